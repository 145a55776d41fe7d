#!/usr/bin/env bash
# PERMANOVA + PERMDISP on embeddings: Evenhand natively and in Chromium vs scikit-bio, on the
# same generated vectors (bench/out/permanova_<2N>x<D>.f64), for the three sizes of issue 6.
# scikit-bio goes into a throwaway virtualenv under target/ at benchmark time, never into
# the system. Prints one line per case and tees it into bench/out/permanova.txt.
# SKIP_SKBIO=1 skips the peer; SKBIO_PERMDISP_MAX_N (default 4000) bounds skbio's permdisp.
set -euo pipefail
cd "$(dirname "$0")/.."
VENV=target/bench-venv
if [ -z "${SKIP_SKBIO:-}" ] && ! "$VENV/bin/python" -c "import skbio" 2>/dev/null; then
  python3 -m venv "$VENV"
  "$VENV/bin/pip" install -q numpy scikit-bio
fi
mkdir -p bench/out
cargo build -q --release --example bench_permanova
web_ok=0
if [ -f www/pkg/evenhand_bg.wasm ] && [ -d node_modules/playwright ]; then web_ok=1; fi
results=bench/out/permanova.txt
: > "$results"
for spec in "1000 768 999" "1000 768 9999" "5000 1536 999"; do
  set -- $spec
  n=$1 dim=$2 perms=$3
  ours=$(/usr/bin/time -f '%M' -o bench/out/ours.rss target/release/examples/bench_permanova "$n" "$dim" "$perms")
  web='{}'
  if [ "$web_ok" = 1 ]; then
    repo=$(basename "$PWD")
    python3 -m http.server 8096 --bind 127.0.0.1 --directory .. >/dev/null 2>&1 & server=$!
    sleep 1
    web=$(node bench/web/run.mjs "http://127.0.0.1:8096/$repo/bench/web/permanova.html?n=$n&dim=$dim&p=$perms" || echo '{}')
    kill "$server" 2>/dev/null || true
  fi
  peer='{}'
  if [ -z "${SKIP_SKBIO:-}" ]; then
    skip_disp=""
    # skbio's permdisp recomputes full-space centroids per permutation: minutes at 9,999.
    [ "$perms" -gt 999 ] && skip_disp=1
    peer=$(SKBIO_PERMDISP_MAX_N=$([ -n "$skip_disp" ] && echo 0 || echo "${SKBIO_PERMDISP_MAX_N:-4000}") \
      /usr/bin/time -f '%M' -o bench/out/peer.rss "$VENV/bin/python" bench/cases/permanova_skbio.py "$n" "$dim" "$perms" || echo '{}')
  fi
  OURS="$ours" WEB="$web" PEER="$peer" OURS_RSS=$(cat bench/out/ours.rss) PEER_RSS=$(cat bench/out/peer.rss 2>/dev/null || echo 0) \
    CASE="2x$n dim $dim, $perms perms" python3 - <<'PY' | tee -a "$results"
import json, os
o, w, p = (json.loads(os.environ[k] or "{}") for k in ("OURS", "WEB", "PEER"))
line = [f'{os.environ["CASE"]:<28} ours {o["seconds"]:8.3f} s {int(os.environ["OURS_RSS"]) / 1024:7.1f} MB']
if "seconds" in w:
    line.append(f'Chromium {w["seconds"]:8.3f} s ({w["seconds"] / o["seconds"]:.2f}x native, wasm memory {w["wasm_memory_mb"]:.0f} MB)')
    same = w["sample"] == o["sample"] and w["p"] == o["p"] and w["permdisp_p"] == o["permdisp_p"]
    line.append("F and p bit-identical" if same else f'DIFFER: {w["sample"]} {w["p"]} vs {o["sample"]} {o["p"]}')
elif w:
    line.append(f"no browser figure: {w}")
if "seconds" in p:
    rel = [abs(a - b) / abs(b) for a, b in zip(o["sample"][0], p["sample"][0])]
    steps = ", ".join(f'{k[8:]} {v:.2f}' for k, v in p.items() if k.startswith("seconds_"))
    disp = "" if "seconds_permdisp" in p else " (no permdisp)"
    line.append(f'skbio {p["seconds"]:8.2f} s{disp} [{steps}] {int(os.environ["PEER_RSS"]) / 1024:7.1f} MB; '
                f'skbio/ours {p["seconds"] / o["seconds"]:.1f}x; F rel.diff {", ".join(f"{r:.1e}" for r in rel)}')
print(" | ".join(line))
PY
done
