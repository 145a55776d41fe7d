#!/usr/bin/env bash
# Evenhand's one entry point.
#   ./build.sh serve   install what is missing, build the page, serve it at http://127.0.0.1:8080/
#   ./build.sh test    every test layer: native, wasm in headless Chromium, Playwright end to end
#   ./build.sh dist    a self-contained static folder in dist/ (relative URLs, any sub-path)
#   ./build.sh bench   the benchmarks under bench/
#   ./build.sh build [--features bench]   only the four wasm modules (the benchmarks' exports with bench)
#   ./build.sh fuzz [SECONDS]   every reader's fuzz target for SECONDS each (default 60)
set -euo pipefail
cd "$(dirname "$0")"
ROOT=$PWD

WB_VERSION=0.2.130          # must equal the wasm-bindgen crate pin in Cargo.toml
PORT=${PORT:-8080}
export TMPDIR="$ROOT/target/tmp"   # Chromium and chromedriver leave profile folders in TMPDIR
mkdir -p "$TMPDIR"

say() { printf '\033[1m==> %s\033[0m\n' "$*"; }

need_rust_tools() {
  if ! rustup target list --installed | grep -qx wasm32-unknown-unknown; then
    say "adding the wasm32 target"
    rustup target add wasm32-unknown-unknown
  fi
  if ! wasm-bindgen --version 2>/dev/null | grep -qx "wasm-bindgen $WB_VERSION"; then
    say "installing wasm-bindgen-cli $WB_VERSION (a few minutes, once)"
    # Not --locked: its lock file pins a webpki-roots version the registry here does not serve.
    cargo install wasm-bindgen-cli --version "$WB_VERSION"
  fi
}

need_npm() {
  if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
    say "installing npm packages (Playwright, binaryen's wasm-opt)"
    npm ci --no-audit --no-fund
  fi
}

need_chromium() {
  if command -v chromium >/dev/null && command -v chromedriver >/dev/null; then return; fi
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    say "installing chromium and chromium-driver from apt"
    apt-get update -q
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium chromium-driver
  else
    echo "Chromium and chromedriver are needed for the browser tests: apt-get install chromium chromium-driver" >&2
    exit 1
  fi
}

# www/version.json names what is running: the page shows it and stamps its exports with it,
# and the service worker names its cache after the build. Written on every build (ignored by git).
write_version() {
  local version build
  version=$(sed -n 's/^version *= *"\(.*\)"/\1/p' Cargo.toml | head -n 1)
  build=$(git rev-parse --short HEAD 2>/dev/null || echo dev)
  printf '{"version": "%s", "build": "%s"}\n' "$version" "$build" > www/version.json
}

# www/data/: the Datasets view's catalogue (a copy of datasets/catalogue.json; a checkout without
# it builds a page whose Datasets view says so) and the tools' built-in datasets, which the
# page's wasm leaves out and its worker fetches on first use (src/builtin.rs lists them).
copy_data() {
  rm -rf www/data
  mkdir -p www/data
  if [ -f datasets/catalogue.json ]; then
    cp datasets/catalogue.json www/data/catalogue.json
  fi
  local f
  for f in $(sed -n '/^builtin_files! {/,/^}/s/^ *"\(.*\)",$/\1/p' src/builtin.rs); do
    mkdir -p "www/data/$(dirname "$f")"
    cp "datasets/$f" "www/data/$f"
  done
}

# One wasm-bindgen output: $1 names it ($2/$1.js, $2/$1_bg.wasm), $3 is the wasm cargo writes; the
# rest goes to cargo. A new module (a lazily loaded reader, say) is one more line in build_wasm.
bindgen_module() {
  local name=$1 out=$2 wasm=$3; shift 3
  say "building the wasm module $name (${PROFILE:-release})"
  cargo build --lib --target wasm32-unknown-unknown --profile "${PROFILE:-release}" "$@"
  # Its TypeScript declarations ($out/$name.d.ts) are what the lint step checks the page against.
  wasm-bindgen --target web --out-dir "$out" --out-name "$name" "$wasm"
  # binaryen from npm: Debian's binaryen 108 silently breaks wasm-bindgen 0.2.130 output.
  npx --no-install wasm-opt "${OPT:--Oz}" ${OPT_FEATURES:-} --enable-simd --enable-bulk-memory --enable-nontrapping-float-to-int --enable-sign-ext --enable-mutable-globals \
    --enable-reference-types "$out/${name}_bg.wasm" -o "$out/${name}_bg.wasm"
  local raw gz
  raw=$(stat -c %s "$out/${name}_bg.wasm")
  gz=$(gzip -9 -c "$out/${name}_bg.wasm" | wc -c)
  say "wasm $name: $raw bytes raw, $gz bytes gzipped"
}

# Four modules (docs/architecture.md, "First load"). Two from the one crate, both without the
# compiled-in datasets: `home`, without the tools' facade, is all the first visit loads;
# `evenhand`, the full facade, is fetched when a tool is first used. The third,
# crates/evenhand-parquet, is fetched only when a Parquet file is picked or a Parquet export is
# asked for; the fourth, crates/evenhand-models, only when a local model is first used.
# Arguments go to the full module's cargo: `build_wasm --features bench` adds the exports only
# the benchmarks call.
build_wasm() {
  write_version
  copy_data
  need_rust_tools
  need_npm
  rm -rf www/pkg www/pkg-parquet www/pkg-models www/pkg-models-relaxed
  # The models module first, in the background: its own profile (Cargo.toml's [profile.models]:
  # no LTO, 16 codegen units, all at opt-level 3) and a lighter wasm-opt, since it is fetched
  # lazily and size matters less. Its own profile also means its own cargo lock, so it fills the
  # core that the release modules' one-unit LTO leaves idle (it was ~5 minutes of a fresh clone's
  # test run on its own).
  # Built twice: the second time with relaxed SIMD's fused multiply-add in the matrix kernel
  # (crates/evenhand-models, feature relaxed-simd), for browsers that have it (the worker checks);
  # only that crate is compiled again, not its dependencies.
  local models_log="$ROOT/target/tmp/models-build.log"
  local models_wasm=target/wasm32-unknown-unknown/models/evenhand_models.wasm
  # (Two commands, not `a && b`: errexit does not apply inside an && list, so a failed first build
  # would not stop the subshell.)
  (
    PROFILE=models OPT=-O2 bindgen_module evenhand_models www/pkg-models "$models_wasm" -p evenhand-models
    PROFILE=models OPT=-O2 OPT_FEATURES=--enable-relaxed-simd bindgen_module evenhand_models www/pkg-models-relaxed \
      "$models_wasm" -p evenhand-models --features relaxed-simd
  ) >"$models_log" 2>&1 &
  local models_pid=$!
  local crate=target/wasm32-unknown-unknown/release/evenhand.wasm
  bindgen_module home www/pkg "$crate" --no-default-features
  bindgen_module evenhand www/pkg "$crate" --no-default-features --features tools "$@"
  bindgen_module evenhand_parquet www/pkg-parquet target/wasm32-unknown-unknown/release/evenhand_parquet.wasm -p evenhand-parquet
  say "waiting for the models module (its log: $models_log)"
  if ! wait "$models_pid"; then cat "$models_log" >&2; echo "the models module did not build (above)" >&2; exit 1; fi
  grep -E '==>|error' "$models_log" || true
}

cmd_serve() {
  build_wasm
  say "serving http://127.0.0.1:$PORT/ (Ctrl-C stops)"
  exec python3 -m http.server "$PORT" --bind 127.0.0.1 --directory www
}

cmd_dist() {
  build_wasm
  rm -rf dist
  cp -r www dist
  # Relative URLs only, so the folder works under any sub-path (GitHub Pages project sites).
  if grep -rnE '(src|href)="/|from "/|import\("/|fetch\("/' dist --include='*.html' --include='*.js' | grep -v '^dist/pkg/'; then
    echo "dist: the lines above use absolute URLs" >&2
    exit 1
  fi
  say "dist/ is ready ($(du -sh dist | cut -f1)); copy it to any static host"
}

# Sums the "test result:" lines of cargo's output into "N passed, M failed, K skipped". When the
# command itself failed ($2 non-zero) but no test did, e.g. a test target that did not compile,
# it counts one failure, so the summary never says "0 failed" for a layer that did not run.
cargo_counts() {
  awk -v broke="${2:-0}" '/^test result:/ { for (i = 1; i <= NF; i++) { if ($(i+1) ~ /^passed/) p += $i; if ($(i+1) ~ /^failed/) f += $i; if ($(i+1) ~ /^ignored/) s += $i } }
       END { if (broke != 0 && f == 0) f = 1; printf "%d passed, %d failed, %d skipped", p, f, s }' "$1"
}

cmd_test() {
  local started=$SECONDS status=0 log="$ROOT/target/test-logs"
  mkdir -p "$log"
  need_rust_tools
  need_npm
  need_chromium

  # The wasm first: the page's type check reads its declarations (www/pkg/evenhand.d.ts).
  build_wasm

  say "lint: cargo fmt --check, cargo clippy -D warnings, tsc (the page against the wasm's types)"
  if ! cargo fmt --all -- --check; then echo "cargo fmt: run cargo fmt" >&2; status=1; fi
  # One pass with the benchmarks' exports on (no code is compiled only without them).
  if ! cargo clippy --workspace --all-targets --features bench -q -- -D warnings; then status=1; fi
  if ! npx --no-install tsc -p jsconfig.json; then status=1; fi

  # Layer 1 includes the bounded fuzz pass (tests/fuzz_corpus.rs: every reader's seed corpus
  # plus a few thousand mutants each); a panic or hang there fails it.
  say "layer 1/3: native cargo test"
  local broke=0
  # --no-fail-fast: every test binary runs, so one failure does not hide the others (or the counts).
  if ! cargo test --workspace --no-fail-fast 2>&1 | tee "$log/native.txt"; then status=1; broke=1; fi
  local native; native=$(cargo_counts "$log/native.txt" $broke)

  say "layer 2/3: wasm tests in headless Chromium"
  if ! CHROMEDRIVER=/usr/bin/chromedriver WASM_BINDGEN_TEST_TIMEOUT=60 \
       cargo test --no-fail-fast --target wasm32-unknown-unknown --test web_page --test web_worker --test web_connectors --test web_run --test web_corpus --test web_study --test web_distributions 2>&1 | tee "$log/wasm.txt"; then status=1; broke=1; else broke=0; fi
  local wasm; wasm=$(cargo_counts "$log/wasm.txt" $broke)

  say "layer 3/3: Playwright end to end"
  # The debug CLI the tests compare against (tests/e2e/cli.mjs). Layer 1 has just built it for
  # the integration tests (cargo puts it at target/debug/evenhand); `cargo build --bin` would
  # rebuild it with other dependency features (about a minute here), so only when it is missing.
  [ -x target/debug/evenhand ] || cargo build --bin evenhand
  rm -rf dist && cp -r www dist
  if ! PLAYWRIGHT_JSON_OUTPUT_NAME="$log/e2e.json" npx --no-install playwright test --reporter=list,json 2>&1 | tee "$log/e2e.txt"; then status=1; fi
  local e2e
  e2e=$(node -e 'const s=require(process.argv[1]).stats; console.log(`${s.expected} passed, ${s.unexpected + s.flaky} failed, ${s.skipped} skipped`)' "$log/e2e.json" 2>/dev/null || echo "0 passed, 1 failed, 0 skipped")

  echo
  echo "native: $native"
  echo "wasm: $wasm"
  echo "e2e: $e2e"
  printf 'time: %ss\n' "$((SECONDS - started))"
  local total
  total=$(printf '%s\n%s\n%s\n' "$native" "$wasm" "$e2e" | awk '{ p += $1; f += $3 } END { printf "%d passed, %d failed", p, f }')
  echo "total: $total"
  case "$native$wasm$e2e" in *" 0 failed"*" 0 failed"*" 0 failed"*) ;; *) status=1 ;; esac
  return $status
}

# The long fuzz run: each target in its own process (an abort loses only that target and keeps
# its input), in the fuzz profile (release speed, overflow checks on). Findings are saved under
# target/fuzz-crashes/<target>/; the exit status is 1 when any target crashed, hung or aborted.
cmd_fuzz() {
  local seconds=${1:-60}
  if ! [[ $seconds =~ ^[0-9]+([.][0-9]+)?$ ]]; then
    echo "usage: ./build.sh fuzz [SECONDS]  (seconds per target, default 60)" >&2
    exit 2
  fi
  say "fuzzing every reader for ${seconds}s each"
  cargo run -q --profile fuzz --example fuzz -- --seconds "$seconds"
}

cmd_bench() {
  # The Chromium halves of the benchmarks call exports the page's build leaves out.
  build_wasm --features bench
  # Peak memory on a million-row table per command (issue 15's goal: 250 MB each).
  bash bench/memory.sh || echo "bench/memory.sh: a command missed its memory goal (table above)" >&2
  # The first visit: bytes and time to the first chart, five cold loads (issue 17's goal: 1.0 MB
  # gzipped, under 1 s).
  mkdir -p bench/out
  node bench/web/first_load.mjs | tee bench/out/first_load.json
  # The demo's render and the example study's report (the e2e tests assert what they show; the
  # time, which fails under load, is measured here against its 2 s and 5 s goals).
  node bench/web/timings.mjs 8096 5 | tee bench/out/timings.json || echo "bench/web/timings.mjs failed" >&2
  # The full BBQ's size through the page: time per step and memory, median of 3 runs.
  node bench/web/bbq_page.mjs 8097 3 | tee bench/out/bbq_page.json || echo "bench/web/bbq_page.mjs failed" >&2
  exec bash bench/run.sh
}

case "${1:-}" in
  serve) cmd_serve ;;
  test) cmd_test ;;
  dist) cmd_dist ;;
  bench) cmd_bench ;;
  fuzz) cmd_fuzz "${2:-60}" ;;
  build) shift; build_wasm "$@" ;;
  *) echo "usage: ./build.sh serve | test | dist | bench | fuzz [SECONDS] | build" >&2; exit 2 ;;
esac
