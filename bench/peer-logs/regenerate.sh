#!/usr/bin/env bash
# Regenerates tests/fixtures/peer-logs/ with the harnesses themselves, offline, in throwaway
# environments outside the repository (PEER_TOOLS, default /work/peer-tools). CI never runs
# this: the logs it wrote are committed. Versions and commands: tests/fixtures/peer-logs/README.md.
#
#   bench/peer-logs/regenerate.sh            # install the tools if missing, write the logs
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
tools="${PEER_TOOLS:-/work/peer-tools}"
out="$repo/tests/fixtures/peer-logs"
mkdir -p "$tools/data" "$tools/tasks"
[ -x "$tools/lmeval/bin/lm_eval" ] || { python3 -m venv "$tools/lmeval" && "$tools/lmeval/bin/pip" install -q "lm-eval==0.4.13"; }
[ -x "$tools/inspect/bin/inspect" ] || { python3 -m venv "$tools/inspect" && "$tools/inspect/bin/pip" install -q "inspect-ai==0.3.285"; }
[ -x "$tools/pf/node_modules/.bin/promptfoo" ] || { mkdir -p "$tools/pf" && (cd "$tools/pf" && npm init -y >/dev/null && npm i --no-audit --no-fund promptfoo@0.121.20); }

# Our own BBQ-format items (no third-party text).
python3 "$here/bbq_items.py" "$tools/data/bbq_items.jsonl"
rm -rf "$tools/out" && mkdir -p "$tools/out"

# lm-evaluation-harness: its bbq task (its utils.py, its metrics) on the local file, with its
# built-in dummy model (random log-likelihoods) under two seeds.
bbq_yaml="$("$tools/lmeval/bin/python" -c 'import lm_eval, os; print(os.path.join(os.path.dirname(lm_eval.__file__), "tasks/bbq/bbq_multiple_choice.yaml"))')"
cat > "$tools/tasks/bbq_local.yaml" <<YAML
include: $bbq_yaml
task: bbq_local
dataset_path: json
dataset_name: null
dataset_kwargs:
  data_files:
    test: $tools/data/bbq_items.jsonl
test_split: test
YAML
for seed in 1 2; do
  HF_DATASETS_OFFLINE=1 HF_HUB_OFFLINE=1 "$tools/lmeval/bin/lm_eval" --model dummy --tasks bbq_local \
    --include_path "$tools/tasks" --output_path "$tools/out/lm-eval/seed$seed" --log_samples \
    --seed "$seed,$seed,$seed,$seed" >/dev/null
done

# Inspect: the mock provider, two models, .eval and .json.
"$tools/inspect/bin/python" "$here/inspect_bbq.py" "$tools/data/bbq_items.jsonl" "$tools/out/inspect"

# promptfoo: two local script providers, two assertions; it exits 100 when tests fail.
mkdir -p "$tools/out/promptfoo" && cp "$here/promptfoo_provider.js" "$tools/out/promptfoo/provider.js"
python3 "$here/promptfoo_config.py" "$tools/data/bbq_items.jsonl" 24 provider.js "$tools/out/promptfoo/promptfooconfig.yaml"
(cd "$tools/out/promptfoo" && PROMPTFOO_DISABLE_TELEMETRY=1 PROMPTFOO_DISABLE_UPDATE=1 PROMPTFOO_DISABLE_SHARING=1 \
  PROMPTFOO_CONFIG_DIR="$tools/out/promptfoo/.pf" "$tools/pf/node_modules/.bin/promptfoo" eval \
  -c promptfooconfig.yaml -o results.json --no-cache >/dev/null || [ $? -eq 100 ])

# Into the repository, under stable names (the time in lm-eval's names pairs its two files).
rm -rf "$out/lm-eval" "$out/inspect" "$out/promptfoo"
for seed in 1 2; do
  mkdir -p "$out/lm-eval/seed$seed"
  cp "$tools"/out/lm-eval/seed$seed/*/samples_bbq_local_*.jsonl "$tools"/out/lm-eval/seed$seed/*/results_*.json "$out/lm-eval/seed$seed/"
done
mkdir -p "$out/inspect" "$out/promptfoo"
evals=("$tools"/out/inspect/eval/*.eval)
cp "${evals[0]}" "$out/inspect/model-a.eval"
cp "${evals[1]}" "$out/inspect/model-b.eval"
cp "$tools"/out/inspect/json/*.json "$out/inspect/model-a.json"
cp "$tools/out/promptfoo/results.json" "$out/promptfoo/results.json"
echo "written to $out"
