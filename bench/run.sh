#!/usr/bin/env bash
# Runs every benchmark case against its peer tool in one go and prints time ratios.
# Peers are installed into a throwaway virtualenv under target/, never into the system.
# A case is bench/cases/NAME.rs (an example in Cargo.toml) plus bench/cases/NAME_<peer>.py;
# both print JSON with "seconds" and "sample" (values that must agree).
set -euo pipefail
cd "$(dirname "$0")/.."
VENV=target/bench-venv
SIZE=${BENCH_SIZE:-1000000}
if [ ! -x "$VENV/bin/python" ]; then
  python3 -m venv "$VENV"
  "$VENV/bin/pip" install -q numpy statsmodels
fi
mkdir -p bench/out
printf '%-28s %12s %12s %8s %s\n' case ours_s peer_s ratio agreement
for rs in bench/cases/*.rs; do
  name=$(basename "$rs" .rs)
  cargo build -q --release --example "bench_$name"
  ours=$(target/release/examples/"bench_$name" "$SIZE")
  for py in bench/cases/"$name"_*.py; do
    [ -e "$py" ] || continue
    peer=$("$VENV/bin/python" "$py" "$SIZE")
    label="$name vs $(basename "$py" .py | sed "s/^${name}_//")"
    OURS="$ours" PEER="$peer" LABEL="$label" python3 - <<'PY' | tee -a bench/out/results.txt
import json, os
o, p = json.loads(os.environ["OURS"]), json.loads(os.environ["PEER"])
diff = max(abs(a - b) for ra, rb in zip(o["sample"], p["sample"]) for a, b in zip(ra, rb))
print(f'{os.environ["LABEL"]:<28} {o["seconds"]:12.4f} {p["seconds"]:12.4f} {p["seconds"] / o["seconds"]:7.2f}x max|diff|={diff:.1e}')
PY
  done
done
