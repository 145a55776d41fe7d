#!/usr/bin/env bash
# Peak memory of the commands that read big tables (issue 15): `evenhand validate` on a record
# table, `evenhand bbq --predictions` on a predictions table and `evenhand run --dry-run` on a
# cases file, each with MEMORY_ROWS (default 1,000,000) tiny rows. The inputs are generated into
# bench/out/memory; each command runs once on the release build, and its peak resident set
# (the child's ru_maxrss from wait4) and wall time are printed against the goal of 250 MB.
# Exits 1 when a command fails or misses the goal.
set -euo pipefail
cd "$(dirname "$0")/.."
ROWS=${MEMORY_ROWS:-1000000}
dir=bench/out/memory
mkdir -p "$dir"
[ -n "${EVENHAND_BIN:-}" ] || cargo build -q --release --bin evenhand
BIN=${EVENHAND_BIN:-target/release/evenhand}

ROWS="$ROWS" DIR="$dir" BIN="$BIN" python3 - <<'PY'
import json, os, subprocess, sys, time

rows, d, binary = int(os.environ["ROWS"]), os.environ["DIR"], os.environ["BIN"]
EXAMPLES, MODELS = 10_000, max(1, rows // 10_000)

def write(name, header, lines):
    path = os.path.join(d, name)
    with open(path, "w") as f:
        if header:
            f.write(header + "\n")
        for line in lines:
            f.write(line + "\n")
    return path

# A record table: id, prompt, response.
records = write("records.csv", "record_id,prompt,response", (f"r{i},q{i % 100},yes" for i in range(rows)))
# BBQ data (EXAMPLES examples, BBQ's jsonl) and one prediction per example and model.
def example(i):
    return json.dumps({
        "example_id": i, "question_index": str(i // 4), "question_polarity": "neg" if i % 2 else "nonneg",
        "context_condition": "ambig" if i % 4 < 2 else "disambig", "category": "Age",
        "answer_info": {"ans0": ["grandfather", "old"], "ans1": ["grandson", "nonOld"], "ans2": ["Unknown", "unknown"]},
        "additional_metadata": {"subcategory": "None", "stereotyped_groups": ["old"], "version": "a", "source": "x"},
        "context": f"A grandfather and his grandson ({i}) tried a new phone.", "question": "Who struggled?",
        "ans0": "The grandfather", "ans1": "The grandson", "ans2": "Unknown", "label": 2 if i % 4 < 2 else 1})
data = write("bbq_data.jsonl", None, (example(i) for i in range(EXAMPLES)))
preds = write("predictions.csv", "id,prediction,model",
              (f"Age:{n % EXAMPLES},{(n * 7) % 3},m{n // EXAMPLES}" for n in range(rows)))
# Cases for a run: one prompt a row, one target and model.
cases = write("cases.csv", "case_id,prompt", (f"c{i},Is it fair {i}?" for i in range(rows)))
spec = os.path.join(d, "spec.json")
with open(spec, "w") as f:
    json.dump({"run_id": "mem", "confirm_above_calls": 10 * rows,
               "targets": [{"provider": "openai", "models": ["gpt-4o-mini"]}],
               "params": {"max_tokens": 5}}, f)

commands = [
    ("validate", records, [binary, "validate", records]),
    ("bbq --predictions", preds, [binary, "bbq", "--data", data, "--predictions", preds, "--replicates", "200"]),
    ("run --dry-run", cases, [binary, "run", "--scenario", spec, "--cases", cases, "--out", os.path.join(d, "r.csv"), "--dry-run"]),
]
GOAL_MB = 250
print(f"{'command':<20} | {'rows':>9} | {'input MB':>8} | {'peak MB':>7} | {'seconds':>7} | goal")
failed = False
for label, path, argv in commands:
    start = time.monotonic()
    child = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    err = child.stderr.read()
    _, status, usage = os.wait4(child.pid, 0)
    seconds = time.monotonic() - start
    peak = usage.ru_maxrss / 1024  # kilobytes on Linux
    code = os.waitstatus_to_exitcode(status)
    ok = code == 0 and peak <= GOAL_MB
    failed |= not ok
    note = "" if code == 0 else f" (exit {code}: {err.decode(errors='replace').strip().splitlines()[-1:]})"
    print(f"{label:<20} | {rows:>9} | {os.path.getsize(path) / 1e6:>8.1f} | {peak:>7.0f} | {seconds:>7.2f} | "
          f"<= {GOAL_MB} {'ok' if ok else 'MISSED'}{note}")
sys.exit(1 if failed else 0)
PY
