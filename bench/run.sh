#!/usr/bin/env bash
# Runs every benchmark case against its peer tool in one go and prints time ratios.
# Peers are installed into a throwaway virtualenv under target/, never into the system.
# A case is bench/cases/NAME.rs (an example in Cargo.toml) plus bench/cases/NAME_<peer>.py;
# both print JSON with "seconds" and "sample" (values that must agree).
set -euo pipefail
cd "$(dirname "$0")/.."
VENV=target/bench-venv
# Each case states its size in a "bench-size: N" line of its .rs file; BENCH_SIZE overrides.
if [ ! -x "$VENV/bin/python" ] || ! "$VENV/bin/python" -c "import statsmodels, datasets, lm_eval, skbio" 2>/dev/null; then
  python3 -m venv "$VENV"
  "$VENV/bin/pip" install -q numpy statsmodels datasets scikit-bio
  # lm-eval without its dependencies: only its BBQ metric functions are used (numpy, datasets).
  "$VENV/bin/pip" install -q --no-deps lm-eval
fi
mkdir -p bench/out
printf '%-28s %12s %12s %8s %s\n' case ours_s peer_s ratio agreement
for rs in bench/cases/*.rs; do
  name=$(basename "$rs" .rs)
  SIZE=${BENCH_SIZE:-$(grep -oE 'bench-size: [0-9]+' "$rs" | grep -oE '[0-9]+' || echo 100000)}
  cargo build -q --release --example "bench_$name"
  ours=$(target/release/examples/"bench_$name" "$SIZE")
  case "$ours" in *skipped*) echo "$name: skipped: $ours"; continue ;; esac
  # The same case in Chromium, when the case has a page under bench/web/.
  if [ -f "bench/web/$name.html" ] && [ -f www/pkg/evenhand_bg.wasm ]; then
    repo=$(basename "$PWD")
    python3 -m http.server 8095 --bind 127.0.0.1 --directory .. >/dev/null 2>&1 & server=$!
    sleep 1
    web=$(node bench/web/run.mjs "http://127.0.0.1:8095/$repo/bench/web/$name.html?n=$SIZE" || true)
    kill $server 2>/dev/null || true
    OURS="$ours" WEB="$web" LABEL="$name: Chromium vs native" python3 - <<'PY' | tee -a bench/out/results.txt
import json, os
o, w = json.loads(os.environ["OURS"]), json.loads(os.environ["WEB"] or "{}")
if "seconds" not in w:
    print(f'{os.environ["LABEL"]:<28} (no browser figure: {w})')
else:
    diff = max(abs(a - b) for ra, rb in zip(o["sample"], w["sample"]) for a, b in zip(ra, rb))
    print(f'{os.environ["LABEL"]:<28} {o["seconds"]:12.4f} {w["seconds"]:12.4f} {w["seconds"] / o["seconds"]:7.2f}x max|diff|={diff:.1e}')
    # Where the time went and the memory, when the case reports them (bench/cases/langbite.rs does).
    for side, r, mem in (("native", o, "peak_rss_mb"), ("Chromium", w, "wasm_memory_mb")):
        if "load_seconds" in r:
            print(f'  {side:<9} read {r["load_seconds"]:.3f} s + evaluate {r["evaluate_seconds"]:.3f} s,'
                  f' {r.get("records_per_second", 0):,.0f} records/s, {mem} {r.get(mem) or 0:.0f}')
PY
  fi
  for py in bench/cases/"$name"_*.py; do
    [ -e "$py" ] || continue
    peer=$("$VENV/bin/python" "$py" "$SIZE")
    label="$name vs $(basename "$py" .py | sed "s/^${name}_//")"
    case "$peer" in *skipped*) echo "$label: skipped: $peer"; continue ;; esac
    OURS="$ours" PEER="$peer" LABEL="$label" python3 - <<'PY' | tee -a bench/out/results.txt
import json, os
o, p = json.loads(os.environ["OURS"]), json.loads(os.environ["PEER"])
diff = max(abs(a - b) for ra, rb in zip(o["sample"], p["sample"]) for a, b in zip(ra, rb))
print(f'{os.environ["LABEL"]:<28} {o["seconds"]:12.4f} {p["seconds"]:12.4f} {p["seconds"] / o["seconds"]:7.2f}x max|diff|={diff:.1e}')
PY
  done
done
# Provider calls: `evenhand run` against the mock at 50 ms latency, the OpenAI SDK as peer,
# and the run engine's overhead per call (its own script: it needs the mock running).
bash bench/run_throughput.sh | tee -a bench/out/results.txt
# A provider run in Chromium against the mock (bench/web/providers.sh).
bench/web/providers.sh
# Local models (issue 26): MiniLM embeddings natively, in Chromium and by sentence-transformers;
# NLI throughput on random-weight base-sized models vs transformers (bench/models/run.sh).
bash bench/models/run.sh || echo "bench/models/run.sh failed" >&2
