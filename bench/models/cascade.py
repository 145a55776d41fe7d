"""The lexicon-first cascade's speed (bench/models/run.sh, part `cascade`): `evenhand crosslingual
--nli-model-dir` over the same answers with the model alone and with --nli-cascade, the CLI as a
user runs it (load included), one process per run.

  records TEXTS.json TEMPLATE.csv N SHARE OUT.csv
      N records in OUT.csv shaped like TEMPLATE.csv's (a simulated run's records: question,
      language, template), each answer one of the bench's texts in its language; a share SHARE
      of them open with a phrase of our own refusal lexicon (datasets/refusals/lexicon.json), so
      the lexicon flags them as a refusal opener would be flagged in real answers.
  run CLI RECORDS.csv MODEL_DIR alone|cascade|check OUT_DIR
      one timed run; prints a JSON line: seconds, the answers the model ran on and the lexicon
      spared, and for `check` (--nli-cascade-check) the cascade's agreement with the model alone.
"""

import csv
import json
import re
import subprocess
import sys
import time

csv.field_size_limit(1 << 24)


def records(texts_path, template_path, n, share, out):
    texts = json.load(open(texts_path, encoding="utf-8"))
    template = list(csv.DictReader(open(template_path, encoding="utf-8")))
    lexicon = json.load(open("datasets/refusals/lexicon.json", encoding="utf-8"))["languages"]
    by_language = {}
    for row in template:
        by_language.setdefault(row["language"], []).append(row)
    usable = [t for t in texts if t["language"] in by_language and t["language"] in lexicon]
    if len(usable) < n:
        sys.exit(f"only {len(usable)} texts in the template's languages, {n} asked for")
    rows, refusals = [], 0
    for i, t in enumerate(usable[:n]):
        rows_of = by_language[t["language"]]
        row = dict(rows_of[i % len(rows_of)])
        # Every SHARE-th answer (spread evenly, so every language gets its part) opens with a refusal.
        refuse = int((i + 1) * share) > int(i * share)
        phrase = lexicon[t["language"]]["phrases"][0]
        row["response"] = f"{phrase} {t['text']}" if refuse else t["text"]
        refusals += refuse
        row["record_id"] = f"bench:{i}"
        row["sample_index"] = str(i)
        row["status"] = "ok"
        rows.append(row)
    with open(out, "w", encoding="utf-8", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(template[0].keys()))
        w.writeheader()
        w.writerows(rows)
    print(f"{n} records, {refusals} opening with a lexicon phrase", file=sys.stderr)


def run(cli, records_csv, model_dir, mode, out_dir):
    args = [cli, "crosslingual", "--records", records_csv, "--nli-model-dir", model_dir, "--permutations", "0",
            "--out", out_dir]
    args += {"alone": [], "cascade": ["--nli-cascade"], "check": ["--nli-cascade", "--nli-cascade-check"]}[mode]
    t = time.perf_counter()
    done = subprocess.run(args, capture_output=True, text=True)
    seconds = time.perf_counter() - t
    if done.returncode != 0:
        sys.exit(f"{' '.join(args)} failed:\n{done.stderr}")
    err = done.stderr
    row = {"mode": mode, "seconds": seconds}
    m = re.search(r"NLI: (\d+)/(\d+) answers", err)
    row["model_runs"] = int(m.group(2)) if m else None
    m = re.search(r"the lexicon decided (\d+) answers", err) or re.search(r"would have spared the model (\d+)", err)
    row["spared"] = int(m.group(1)) if m else 0
    m = re.search(r"on (\d+) answers: (\d+) refusals by both, (\d+) by the cascade only, (\d+) by the model only, "
                  r"(\d+) by neither; (kappa [^;]*);", err)
    if m:
        row["check"] = {"answers": int(m.group(1)), "both": int(m.group(2)), "cascade_only": int(m.group(3)),
                        "model_only": int(m.group(4)), "neither": int(m.group(5)), "kappa": m.group(6)}
    print(json.dumps(row))


if __name__ == "__main__":
    cmd, *a = sys.argv[1:]
    if cmd == "records":
        records(a[0], a[1], int(a[2]), float(a[3]), a[4])
    elif cmd == "run":
        run(*a)
    else:
        sys.exit(__doc__)
