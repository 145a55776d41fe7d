#!/usr/bin/env bash
# Part of bench/run.sh; runs alone too: bench/web/providers.sh (BENCH_PORT, BENCH_RUN_CALLS).
set -euo pipefail
cd "$(dirname "$0")/../.."
mkdir -p bench/out

# A provider run in Chromium: the page's run worker (the Rust run driver over fetch) against the
# mock at 50 ms latency and 6 calls at once (Chromium's HTTP/1.1 connection limit per origin),
# so the ideal is 120 calls/s; alternated with plain fetch from the same page, BENCH_ROUNDS
# rounds (default 5) of BENCH_RUN_CALLS calls each (default 600), medians reported.
if [ ! -f www/pkg/evenhand_bg.wasm ]; then echo "provider run in Chromium: skipped (run ./build.sh build first)"; exit 0; fi
{
  repo=$(basename "$PWD")
  coproc MOCK { exec python3 tests/mock/mock_provider.py --port 0 --latency-ms 50 --max-seconds 300; }
  read -r _ port <&"${MOCK[0]}"
  python3 -m http.server "${BENCH_PORT:-8095}" --bind 127.0.0.1 --directory .. >/dev/null 2>&1 & server=$!
  sleep 1
  load_before=$(cut -d' ' -f1-3 /proc/loadavg)
  web=$(node bench/web/run.mjs "http://127.0.0.1:${BENCH_PORT:-8095}/$repo/bench/web/providers.html?mock=http://127.0.0.1:$port&n=${BENCH_RUN_CALLS:-600}&c=6&latency=50&rounds=${BENCH_ROUNDS:-5}" || true)
  load_after=$(cut -d' ' -f1-3 /proc/loadavg)
  # The same mock, same concurrency, from a plain Python HTTP/1.1 client: what this machine's
  # mock allows right now, so a shortfall can be told apart from the page's own.
  native=$(python3 - "$port" <<'PY'
import http.client, json, sys, threading, time
port, n, c = int(sys.argv[1]), 600, 6
def work(k):
    conn = http.client.HTTPConnection("127.0.0.1", port)
    for i in range(k, n, c):
        body = json.dumps({"model": "mock-a", "messages": [{"role": "user", "content": f"native {i} {time.time()}"}]})
        conn.request("POST", "/v1/chat/completions", body, {"Content-Type": "application/json"})
        conn.getresponse().read()
t = time.perf_counter()
threads = [threading.Thread(target=work, args=(k,)) for k in range(c)]
[x.start() for x in threads]
[x.join() for x in threads]
print(n / (time.perf_counter() - t))
PY
)
  kill "$server" "$MOCK_PID" 2>/dev/null || true
  LOAD="$load_before -> $load_after" NATIVE="$native" WEB="$web" python3 - <<'PY' | tee -a bench/out/results.txt
import json, os
w = json.loads(os.environ["WEB"] or "{}")
if "engine_median_per_s" not in w:
    print(f"provider run in Chromium: no figure ({w})")
else:
    f = lambda xs: ", ".join(f"{x:.1f}" for x in xs)
    f2 = lambda xs: ", ".join(f"{x:.2f}" for x in xs)
    goal = "met" if w["engine_of_raw"] >= 0.98 else "NOT met"
    cost = "met" if w["overhead_ms_per_call"] < 1 else "NOT met"
    print(f"provider run in Chromium ({w['rounds']} alternating rounds of {w['calls']} calls, concurrency {w['concurrency']}, load {os.environ['LOAD']}): "
          f"run worker {f(w['engine_per_s'])} calls/s (median {w['engine_median_per_s']:.1f}, min {w['engine_min_per_s']:.1f}); "
          f"plain fetch from the same page {f(w['raw_fetch_per_s'])} (median {w['raw_median_per_s']:.1f}, min {w['raw_min_per_s']:.1f}); "
          f"run worker / plain fetch = {100 * w['engine_of_raw']:.1f}% of the medians (per round: {', '.join(f'{100 * x:.1f}%' for x in w['round_ratios'])}; goal >= 98% {goal}); "
          f"ideal {w['ideal_per_s']:.0f}/s; answered {w['answered']}, failed {w['failed']}, CORS preflights {w['preflights']}; "
          f"driver cost {w['overhead_ms_per_call']:.3f} ms/call (next {w['next_ms']:.3f}, complete {w['complete_ms']:.3f}, store handover {w['store_sync_ms']:.3f}, send {w['send_ms']:.3f}; goal < 1 ms {cost}); "
          f"a call's turn in the driver, from its answer to the next request issued: median {w['turn_p50_ms']:.2f} ms, p90 {w['turn_p90_ms']:.2f} ms "
          f"(medians of the rounds' figures; per round {f2(w['turn_p50_per_round'])} / {f2(w['turn_p90_per_round'])}; the worker's clock ticks by 0.1 ms); "
          f"IndexedDB commit {w['idb_commit_ms']:.2f} ms async; mean fetch latency {w['mean_latency_ms']:.1f} ms for 50 ms served; "
          f"per round trip the mock took {w['mock_ms']:.1f} ms and Chromium {w['client_turnaround_ms']:.1f} ms from an answer to the next request on its connection "
          f"(plain fetch: {w['raw_mock_ms']:.1f} and {w['raw_client_turnaround_ms']:.1f} ms); "
          f"a Python HTTP/1.1 client on the same mock at concurrency 6: {float(os.environ['NATIVE'] or 0):.1f} calls/s")
PY
}
