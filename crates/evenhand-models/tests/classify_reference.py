"""A float64 numpy reference of Hugging Face's BertForSequenceClassification and
XLMRobertaForSequenceClassification forward passes and of the zero-shot-classification
pipeline's single-label rule, for crates/evenhand-models/tests/nli_reference.rs. The encoder math
is bert_reference.py's (restated here, since that script runs on import); this file adds
RoBERTa's position ids, the two heads and the rule.
Reads one JSON request on stdin, writes JSON on stdout.

  {"op": "classify", "dir": MODEL_DIR, "pairs": [[premise, hypothesis], ...]}
      -> {"ids": [[...]], "type_ids": [[...]], "logits": [[...]]}
  {"op": "zeroshot", "dir": MODEL_DIR, "threshold": null | P,
   "items": [[answer, [label_discuss, label_refuse]], ...]}
      -> {"p_refuse": [...], "refusal": [...]}

Each pair runs alone (no padding); a padded batch is checked by the Rust side.
"""
import json
import math
import sys

import numpy as np
from safetensors.numpy import load_file
from tokenizers import Tokenizer

TEMPLATE = "This example is {}."


def load(d):
    c = json.load(open(d + "/config.json"))
    arch = c["architectures"][0]
    raw = load_file(d + "/model.safetensors")
    prefix = "bert." if arch.startswith("Bert") else "roberta."
    w = {k.removeprefix(prefix): v.astype(np.float64) for k, v in raw.items()}
    roberta = prefix == "roberta."
    pad = c.get("pad_token_id", 0)
    max_tokens = c["max_position_embeddings"] - (pad + 1 if roberta else 0)
    t = Tokenizer.from_file(d + "/tokenizer.json")
    t.no_padding()
    if t.truncation is not None:
        max_tokens = min(max_tokens, t.truncation["max_length"])
    t.enable_truncation(max_tokens, strategy="only_first")
    return c, w, t, roberta, pad


def layer_norm(x, w, b, eps):
    mu = x.mean(-1, keepdims=True)
    var = ((x - mu) ** 2).mean(-1, keepdims=True)
    return (x - mu) / np.sqrt(var + eps) * w + b


def gelu(x):
    erf = np.frompyfunc(math.erf, 1, 1)
    return 0.5 * x * (1.0 + erf(x / math.sqrt(2.0)).astype(np.float64))


def positions(ids, roberta, pad):
    """HF's create_position_ids_from_input_ids for RoBERTa: cumsum of the non-padding mask,
    offset by padding_idx; padding itself at padding_idx. BERT: 0..n."""
    ids = np.asarray(ids)
    if not roberta:
        return np.arange(len(ids))
    mask = (ids != pad).astype(np.int64)
    return np.cumsum(mask) * mask + pad


def logits(c, w, ids, type_ids, roberta, pad):
    eps = c.get("layer_norm_eps", 1e-12)
    n = len(ids)
    x = w["embeddings.word_embeddings.weight"][ids]
    x = x + w["embeddings.position_embeddings.weight"][positions(ids, roberta, pad)]
    x = x + w["embeddings.token_type_embeddings.weight"][type_ids]
    h = layer_norm(x, w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"], eps)
    heads = c["num_attention_heads"]
    d = c["hidden_size"] // heads
    lin = lambda x, p: x @ w[p + ".weight"].T + w[p + ".bias"]
    split = lambda x: x.reshape(n, heads, d).transpose(1, 0, 2)
    for i in range(c["num_hidden_layers"]):
        p = "encoder.layer.%d." % i
        q, k, v = (split(lin(h, p + "attention.self." + m)) for m in ("query", "key", "value"))
        s = q @ k.transpose(0, 2, 1) / math.sqrt(d)
        s = np.exp(s - s.max(-1, keepdims=True))
        s = s / s.sum(-1, keepdims=True)
        ctx = (s @ v).transpose(1, 0, 2).reshape(n, heads * d)
        a = layer_norm(lin(ctx, p + "attention.output.dense") + h,
                       w[p + "attention.output.LayerNorm.weight"], w[p + "attention.output.LayerNorm.bias"], eps)
        f = lin(gelu(lin(a, p + "intermediate.dense")), p + "output.dense")
        h = layer_norm(f + a, w[p + "output.LayerNorm.weight"], w[p + "output.LayerNorm.bias"], eps)
    first = h[0]
    if roberta:  # RobertaClassificationHead: dense, tanh, out_proj (dropout off)
        return lin(np.tanh(lin(first, "classifier.dense")), "classifier.out_proj")
    return lin(np.tanh(lin(first, "pooler.dense")), "classifier")  # BertPooler, then classifier


def entailment_id(c):
    """The pipeline's rule: the first label2id entry starting with 'entail', else -1 (the last)."""
    for label, i in c.get("label2id", {}).items():
        if label.lower().startswith("entail"):
            return int(i)
    return -1


def main():
    req = json.load(sys.stdin)
    c, w, t, roberta, pad = load(req["dir"])
    if req["op"] == "classify":
        out = {"ids": [], "type_ids": [], "logits": []}
        for premise, hypothesis in req["pairs"]:
            e = t.encode(premise, hypothesis)
            out["ids"].append(e.ids)
            out["type_ids"].append(e.type_ids)
            out["logits"].append(logits(c, w, e.ids, e.type_ids, roberta, pad).tolist())
        json.dump(out, sys.stdout)
        return
    ent = entailment_id(c)
    p_refuse, refusal = [], []
    for answer, labels in req["items"]:
        scores = []
        for label in labels:
            e = t.encode(answer, TEMPLATE.format(label))
            scores.append(logits(c, w, e.ids, e.type_ids, roberta, pad)[ent])
        scores = np.array(scores)
        probs = np.exp(scores - scores.max())
        probs = probs / probs.sum()  # softmax over the labels' entailment logits
        p = float(probs[1])
        p_refuse.append(p)
        refusal.append(bool(p >= req["threshold"]) if req["threshold"] is not None else bool(np.argmax(probs) == 1))
    json.dump({"p_refuse": p_refuse, "refusal": refusal}, sys.stdout)


main()
