"""Peer for bench/cases/bbq.rs: lm-evaluation-harness's BBQ metric functions
(lm_eval.tasks.bbq.utils: process_docs, process_results_multiple_choice and the aggregators)
on the same 100,224 predictions. The answer index is mapped onto lm-eval's choice list
(the two group answers plus its ten "unknown" strings). Timed: per-document scoring and aggregation."""
import importlib.util, json, os, sys, time
import datasets

datasets.disable_progress_bars()

# Load lm_eval/tasks/bbq/utils.py by path: importing the lm_eval package itself pulls in
# torch and the model back-ends, which the metric functions do not need.
_root = os.path.dirname(importlib.util.find_spec("lm_eval").origin)
_spec = importlib.util.spec_from_file_location("lm_eval_bbq_utils", os.path.join(_root, "tasks", "bbq", "utils.py"))
U = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(U)

n_wanted = int(sys.argv[1]) if len(sys.argv) > 1 else 100_000
path = os.path.join(os.path.dirname(__file__), "..", "..", "..", "shared", "ref", "bbq", "data", "Sexual_orientation.jsonl")
if not os.path.exists(path):
    print(json.dumps({"skipped": f"{path} is absent"}))
    sys.exit(0)
base = [json.loads(l) for l in open(path, encoding="utf-8") if l.strip()]
docs = list(U.process_docs(datasets.Dataset.from_list(base)))
copies = -(-n_wanted // len(base))

def lm_index(doc, ours):
    """Our option index (ans0..ans2) as an index into lm-eval's choices."""
    choices = U.doc_to_choice(doc)
    text = doc[f"ans{ours}"]
    return choices.index(text) if text in choices else next(i for i, c in enumerate(choices) if c in U.UNKNOWN_RESPONSES)

start = time.perf_counter()
results = []
i = 0
for _ in range(copies):
    for doc in docs:
        ours = (i * 7 + i // 3) % 3
        idx = lm_index(doc, ours)
        lls = [0.0 if j == idx else -10.0 for j in range(len(U.doc_to_choice(doc)))]
        results.append(U.process_results_multiple_choice(doc, [(ll, False) for ll in lls]))
        i += 1
acc_amb = U.agg_accuracy_amb([r["accuracy_amb"] for r in results])
s_amb = U.agg_amb_bias_scores([r["amb_bias_score"] for r in results])
s_dis = U.agg_disamb_bias_scores([r["disamb_bias_score"] for r in results])
seconds = time.perf_counter() - start
print(json.dumps({"seconds": seconds, "examples": i, "sample": [[float(acc_amb), float(s_amb), float(s_dis)]]}))
