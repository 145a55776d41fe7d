"""A float64 reference of the BERT encoder and sentence pooling, written with numpy only, for
crates/evenhand-models/tests/reference.rs. Reads one JSON request on stdin, writes JSON on stdout.

  {"op": "tokenize", "tokenizer": PATH, "max_positions": N, "texts": [...]}
      -> {"ids": [[...]], "type_ids": [[...]]}
  {"op": "embed", "dir": MODEL_DIR, "normalise": bool, "texts": [...]}
      -> {"ids": [[...]], "embeddings": [[...]]}

Each text runs alone (no padding), so the Rust side's padded batches are checked too.
The tokenizer rule mirrors the Rust one: no padding; the tokenizer.json's truncation, capped
at the model's positions, or the positions when it sets none.
"""
import json
import math
import sys

import numpy as np
from safetensors.numpy import load_file
from tokenizers import Tokenizer

ERF = np.frompyfunc(math.erf, 1, 1)


def tokenizer(path, max_positions):
    t = Tokenizer.from_file(path)
    t.no_padding()
    limit = max_positions if t.truncation is None else min(t.truncation["max_length"], max_positions)
    t.enable_truncation(limit)
    return t


def layer_norm(x, w, b, eps):
    mu = x.mean(-1, keepdims=True)
    var = ((x - mu) ** 2).mean(-1, keepdims=True)
    return (x - mu) / np.sqrt(var + eps) * w + b


def activation(name, x):
    if name == "gelu":
        return 0.5 * x * (1.0 + ERF(x / math.sqrt(2.0)).astype(np.float64))
    if name in ("gelu_new", "gelu_pytorch_tanh", "gelu_fast"):
        return 0.5 * x * (1.0 + np.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * x**3)))
    if name == "relu":
        return np.maximum(x, 0.0)
    raise ValueError(name)


def encode(w, c, ids, type_ids):
    """Last hidden states (tokens, hidden) of one unpadded sequence."""
    eps = c.get("layer_norm_eps", 1e-12)
    n = len(ids)
    x = w["embeddings.word_embeddings.weight"][ids]
    x = x + w["embeddings.position_embeddings.weight"][:n] + w["embeddings.token_type_embeddings.weight"][type_ids]
    h = layer_norm(x, w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"], eps)
    heads = c["num_attention_heads"]
    d = c["hidden_size"] // heads
    lin = lambda x, p: x @ w[p + ".weight"].T + w[p + ".bias"]
    for i in range(c["num_hidden_layers"]):
        p = "encoder.layer.%d." % i
        split = lambda x: x.reshape(n, heads, d).transpose(1, 0, 2)
        q = split(lin(h, p + "attention.self.query"))
        k = split(lin(h, p + "attention.self.key"))
        v = split(lin(h, p + "attention.self.value"))
        s = q @ k.transpose(0, 2, 1) / math.sqrt(d)
        s = np.exp(s - s.max(-1, keepdims=True))
        s = s / s.sum(-1, keepdims=True)
        ctx = (s @ v).transpose(1, 0, 2).reshape(n, heads * d)
        a = layer_norm(lin(ctx, p + "attention.output.dense") + h,
                       w[p + "attention.output.LayerNorm.weight"], w[p + "attention.output.LayerNorm.bias"], eps)
        f = lin(activation(c.get("hidden_act", "gelu"), lin(a, p + "intermediate.dense")), p + "output.dense")
        h = layer_norm(f + a, w[p + "output.LayerNorm.weight"], w[p + "output.LayerNorm.bias"], eps)
    return h


def main():
    req = json.load(sys.stdin)
    if req["op"] == "tokenize":
        t = tokenizer(req["tokenizer"], req["max_positions"])
        enc = [t.encode(s) for s in req["texts"]]
        json.dump({"ids": [e.ids for e in enc], "type_ids": [e.type_ids for e in enc]}, sys.stdout)
        return
    d = req["dir"]
    c = json.load(open(d + "/config.json"))
    w = {k.removeprefix("bert."): v.astype(np.float64) for k, v in load_file(d + "/model.safetensors").items()}
    t = tokenizer(d + "/tokenizer.json", c["max_position_embeddings"])
    ids, out = [], []
    for s in req["texts"]:
        e = t.encode(s)
        v = encode(w, c, e.ids, e.type_ids).mean(0)  # every token is unmasked: a plain mean
        if req["normalise"]:
            v = v / max(np.linalg.norm(v), 1e-12)
        ids.append(e.ids)
        out.append(v.tolist())
    json.dump({"ids": ids, "embeddings": out}, sys.stdout)


main()
