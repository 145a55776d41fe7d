#!/usr/bin/env bash
# PERMANOVA + PERMDISP: Evenhand natively (and in Chromium with WEB=1) vs scikit-bio 0.7.4,
# alternating runs on the same generated file; the protocol is in bench/permanova.py, which
# this script calls after building. scikit-bio goes into a throwaway virtualenv under target/
# at benchmark time, never into the system. Output: bench/out/permanova.txt.
set -euo pipefail
cd "$(dirname "$0")/.."
VENV=target/bench-venv
if [ -z "${SKIP_SKBIO:-}" ] && ! "$VENV/bin/python" -c "import skbio; assert skbio.__version__ == '0.7.4'" 2>/dev/null; then
  python3 -m venv "$VENV"
  "$VENV/bin/pip" install -q scikit-bio==0.7.4
fi
mkdir -p bench/out
cargo build -q --release --example bench_permanova --example bench_matmul
exec python3 bench/permanova.py
