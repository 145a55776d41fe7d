"""Writes the fuzz seeds of the harness-log readers (fuzz/corpus/harness_*/) from the committed
fixtures (tests/fixtures/peer-logs/): small logs of one or two samples, in each container Inspect
writes (a zip deflated, stored and Zstandard-compressed), and a few broken ones. Run with the
Python of the throwaway Inspect environment (it has zipfile_zstd):

    /work/peer-tools/inspect/bin/python bench/peer-logs/fuzz_seeds.py
"""

import io
import json
import os
import zipfile

import zipfile_zstd  # noqa: F401  (registers Zstandard with zipfile, as Inspect does)

ROOT = os.path.join(os.path.dirname(__file__), "..", "..")
FIX = os.path.join(ROOT, "tests", "fixtures", "peer-logs")
CORPUS = os.path.join(ROOT, "fuzz", "corpus")


def write(target, name, data):
    os.makedirs(os.path.join(CORPUS, target), exist_ok=True)
    with open(os.path.join(CORPUS, target, name), "wb") as f:
        f.write(data if isinstance(data, bytes) else data.encode())


def small_sample(s):
    # Transcripts and events are not what the reader reads: a seed keeps the fields it does.
    return {k: v for k, v in s.items() if k in ("id", "epoch", "input", "choices", "target", "output", "scores", "metadata", "error")}


# lm-eval: the first two lines of a samples file, one cut short, and a generation-style line.
lines = open(os.path.join(FIX, "lm-eval", "seed1", [f for f in os.listdir(os.path.join(FIX, "lm-eval", "seed1")) if f.startswith("samples_")][0]), encoding="utf-8").read().splitlines()
write("harness_lm_eval", "two.jsonl", "\n".join(lines[:2]) + "\n")
write("harness_lm_eval", "cut.jsonl", lines[0][: len(lines[0]) // 2])
gen = json.loads(lines[1].replace("NaN", "null"))
gen["arguments"] = {"gen_args_0": {"arg_0": "Q: who?\nA:", "arg_1": {"until": ["\n"]}}}
gen["resps"] = [["The teenager"]]
gen["filtered_resps"] = ["The teenager"]
gen["metrics"] = ["exact_match"]
gen["exact_match"] = 0.0
write("harness_lm_eval", "generate.jsonl", json.dumps(gen) + "\n")

# Inspect: the JSON log cut to two samples, and .eval archives of the same in three compressions.
log = json.load(open(os.path.join(FIX, "inspect", "model-a.json"), encoding="utf-8"))
samples = [small_sample(s) for s in log["samples"][:2]]
header = {k: v for k, v in log.items() if k in ("version", "status", "eval", "results")}
header["eval"] = {k: v for k, v in header["eval"].items() if k in ("task", "model", "packages", "config", "dataset")}
write("harness_inspect_json", "two.json", json.dumps(dict(header, samples=samples)))
write("harness_inspect_json", "no_scores.json", json.dumps(dict(header, samples=[{k: v for k, v in samples[0].items() if k != "scores"}])))
write("harness_inspect_json", "version9.json", json.dumps(dict(header, version=9, samples=samples)))


def eval_zip(method):
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", compression=method) as z:
        z.writestr("header.json", json.dumps(header))
        for s in samples:
            z.writestr(f"samples/{s['id']}_epoch_{s['epoch']}.json", json.dumps(s))
    return buf.getvalue()


write("harness_inspect_eval", "deflated.eval", eval_zip(zipfile.ZIP_DEFLATED))
write("harness_inspect_eval", "stored.eval", eval_zip(zipfile.ZIP_STORED))
zstd = eval_zip(zipfile_zstd.ZIP_ZSTANDARD)
write("harness_inspect_eval", "zstd.eval", zstd)
write("harness_inspect_eval", "cut.eval", zstd[: len(zstd) // 2])

# promptfoo: two results of one test under both providers, and an unknown version.
pf = json.load(open(os.path.join(FIX, "promptfoo", "results.json"), encoding="utf-8"))
first = [r for r in pf["results"]["results"] if r["testIdx"] == 0]
small = {"evalId": pf["evalId"], "results": {"version": 3, "timestamp": pf["results"]["timestamp"], "prompts": [], "results": first, "stats": pf["results"]["stats"]}, "config": {"description": "seed"}, "metadata": pf["metadata"]}
write("harness_promptfoo", "one_test.json", json.dumps(small))
write("harness_promptfoo", "version7.json", json.dumps(dict(small, results=dict(small["results"], version=7))))
broken = json.loads(json.dumps(small))
del broken["results"]["results"][0]["gradingResult"]
del broken["results"]["results"][0]["success"]
write("harness_promptfoo", "ungraded.json", json.dumps(broken))
