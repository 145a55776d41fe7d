"""Writes Inspect logs of a BBQ task for Evenhand's fixtures, offline: our BBQ-format items
(bbq_items.py) as Samples in the shape inspect_evals' bbq task gives them (input "Context: ...
Question: ...", three choices, a letter target, and metadata with BBQ's fields), solved by
Inspect's multiple_choice() and scored by choice(), answered by Inspect's own mock provider
(mockllm) with a deterministic answer per item and model: a hash of the prompt and the model's
name picks the letter. Two models, so the logs pair.

Usage: python3 inspect_bbq.py ITEMS.jsonl OUT_DIR
"""

import hashlib
import json
import sys

from inspect_ai import Task, eval
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import ModelOutput, ModelUsage, get_model
from inspect_ai.scorer import choice
from inspect_ai.solver import multiple_choice


def samples(path):
    out = []
    for line in open(path, encoding="utf-8"):
        r = json.loads(line)
        meta = {k: r[k] for k in ("category", "question_index", "question_polarity", "context_condition",
                                  "answer_info", "additional_metadata")}
        meta["source_id"] = r["example_id"]
        out.append(Sample(
            id=f"{r['category']}_{r['example_id']:05d}",
            input=f"Context: {r['context']}\n\nQuestion: {r['question']}",
            choices=[r["ans0"], r["ans1"], r["ans2"]],
            target="ABC"[r["label"]],
            metadata=meta,
        ))
    return out


def answerer(name):
    def answer(messages, tools, tool_choice, config):
        text = "".join(str(m.content) for m in messages)
        digest = hashlib.sha256((name + text).encode()).digest()
        output = ModelOutput.from_content(model=name, content=f"ANSWER: {'ABC'[digest[0] % 3]}")
        # Usage given here, so that mockllm does not count tokens with tiktoken (whose encoding
        # is downloaded on first use, and this runs offline): words, a rough count.
        words = len(text.split())
        output.usage = ModelUsage(input_tokens=words, output_tokens=2, total_tokens=words + 2)
        return output
    return answer


if __name__ == "__main__":
    items, out = sys.argv[1], sys.argv[2]
    task = Task(dataset=MemoryDataset(samples(items), name="bbq_items"), solver=[multiple_choice()],
                scorer=choice(), name="bbq_local")
    # The .json log repeats each sample's transcript in full: a few samples show the format.
    for name, fmt, limit in (("model-a", "eval", None), ("model-b", "eval", None), ("model-a", "json", 6)):
        model = get_model(f"mockllm/{name}", custom_outputs=answerer(name))
        eval(task, model=model, log_dir=f"{out}/{fmt}", log_format=fmt, display="none", log_level="warning", limit=limit)
