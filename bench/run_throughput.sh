#!/usr/bin/env bash
# Throughput of `evenhand run` (release build) against the local mock with 50 ms latency at
# concurrency 16: the ideal is 16 / 0.05 s = 320 calls/s (goal: at least 290/s). Then the same
# cases through a peer, the official OpenAI Python SDK (AsyncOpenAI with a Semaphore(16), in
# the throwaway virtualenv target/sdk-venv; skipped with a reason when PyPI is unreachable),
# and the run engine's own overhead per call (bench/cases/engine.rs, no network).
# RUN_BENCH_CASES overrides the 2,000 cases. Prints one line per figure.
set -euo pipefail
cd "$(dirname "$0")/.."
N=${RUN_BENCH_CASES:-2000}
CONCURRENCY=16
LATENCY_MS=50
dir=bench/out/run_throughput
rm -rf "$dir"
mkdir -p "$dir"
cargo build -q --release --bin evenhand --example bench_engine

python3 tests/mock/mock_provider.py --port 0 --latency-ms "$LATENCY_MS" --max-seconds 900 >"$dir/mock.out" &
mock=$!
trap 'kill "$mock" 2>/dev/null || true' EXIT
for _ in $(seq 100); do grep -q LISTENING "$dir/mock.out" 2>/dev/null && break; sleep 0.1; done
port=$(awk '/LISTENING/ {print $2}' "$dir/mock.out")
base="http://127.0.0.1:$port"
ideal=$(python3 -c "print($CONCURRENCY * 1000 / $LATENCY_MS)")

python3 -c "
print('case_id,prompt')
for i in range($N):
    print(f'q{i},Case {i}: two people missed the bus. Who was late: A, B or C?')
" >"$dir/cases.csv"
cat >"$dir/spec.json" <<JSON
{"run_id": "bench", "cases": "cases.csv", "confirm_above_calls": 1000000,
 "targets": [{"provider": "openai", "base_url": "$base/v1", "models": ["mock-a"],
              "concurrency": $CONCURRENCY, "key_env": "EVENHAND_BENCH_KEY"}],
 "params": {"temperature": 0, "max_tokens": 5}}
JSON

EVENHAND_BENCH_KEY=sk-bench-not-a-key target/release/evenhand run --scenario "$dir/spec.json" \
  --out "$dir/records.csv" --fresh >"$dir/summary.json" 2>"$dir/progress.log"
seen=$(curl -s "$base/__stats" | python3 -c "import json,sys; print(json.load(sys.stdin)['total'])")
ours=$(python3 -c "import json; s = json.load(open('$dir/summary.json')); print(s['calls_per_second'])")
python3 - "$dir/summary.json" "$ideal" "$seen" "$dir/records.csv" "$CONCURRENCY" <<'PY'
import csv, json, sys
s, ideal, seen = json.load(open(sys.argv[1])), float(sys.argv[2]), int(sys.argv[3])
goal = "met" if s["calls_per_second"] >= 290 else "NOT met"
print(f'run_throughput: evenhand run      {s["settled_now"]} calls ({s["answered"]} answered, mock saw {seen}) '
      f'in {s["seconds"]:.2f} s = {s["calls_per_second"]:.1f} calls/s; ideal {ideal:.0f}/s '
      f'({100 * s["calls_per_second"] / ideal:.0f}%), goal >= 290/s {goal}')
# Where the time went: with every slot busy, calls/s = concurrency / mean latency. A mean well
# above 50 ms means the mock (or a busy machine) was slow, not the client.
lat = sorted(float(r["latency_ms"]) for r in csv.DictReader(open(sys.argv[4])) if r["latency_ms"])
mean, bound = sum(lat) / len(lat), int(sys.argv[5]) * 1000 / (sum(lat) / len(lat))
print(f'run_throughput:   latency per call mean {mean:.1f} ms, p50 {lat[len(lat) // 2]:.1f}, '
      f'p99 {lat[99 * len(lat) // 100]:.1f}; concurrency / mean = {bound:.1f}/s, of which evenhand reached '
      f'{100 * s["calls_per_second"] / bound:.0f}%')
PY

VENV=target/sdk-venv
if ! "$VENV/bin/python" -c "import openai" 2>/dev/null; then
  if [ -n "${EVENHAND_NO_PYPI:-}" ]; then
    echo "run_throughput: openai SDK peer skipped: EVENHAND_NO_PYPI is set and $VENV has no openai SDK"
  elif ! { python3 -m venv "$VENV" && "$VENV/bin/pip" install -q --disable-pip-version-check --timeout 20 openai anthropic; } >"$dir/pip.log" 2>&1; then
    echo "run_throughput: openai SDK peer skipped: pip could not install it from PyPI (see $dir/pip.log)"
  fi
fi
if "$VENV/bin/python" -c "import openai" 2>/dev/null; then
  curl -s -X POST "$base/__reset" >/dev/null
  "$VENV/bin/python" bench/run_throughput_sdk.py "$base/v1" "$dir/cases.csv" "$CONCURRENCY" >"$dir/sdk.json"
  python3 - "$dir/sdk.json" "$ours" "$ideal" <<'PY'
import json, sys
p, ours, ideal = json.load(open(sys.argv[1])), float(sys.argv[2]), float(sys.argv[3])
print(f'run_throughput: openai SDK async  {p["calls"]} calls ({p["answered"]} answered) in {p["seconds"]:.2f} s = '
      f'{p["calls_per_second"]:.1f} calls/s ({100 * p["calls_per_second"] / ideal:.0f}% of ideal); '
      f'evenhand / SDK = {ours / p["calls_per_second"]:.2f}x')
PY
fi

engine=$(target/release/examples/bench_engine 100000)
python3 - "$engine" <<'PY'
import json, sys
e = json.loads(sys.argv[1])
print(f'run_throughput: engine overhead   {e["us_per_call"]:.1f} us/call over {e["calls"]} calls '
      f'({e["us_per_call_with_journal_line"]:.1f} us with the journal line, {e["us_per_call_through_driver"]:.1f} us '
      f'through the run driver); goal < 1000 us')
PY
