"""A float64 reference of DeBERTa-v2 sequence classification, written with numpy only from the
model's equations (He et al. 2021, disentangled attention; v2/v3's log-bucketed relative
positions, shared position keys and the layer-normed relative embeddings), for
crates/evenhand-models/tests/deberta_reference.rs. Reads one JSON request on stdin:

  {"dir": MODEL_DIR, "ids": [[...], ...], "type_ids": [[...], ...] (optional)}
      ->  {"logits": [[...], ...]}

Each sequence runs alone and unpadded, so the Rust side's padded batches are checked against
what padding must not change. Loops follow the equations index by index (clear over fast).
"""
import json
import math
import sys

import numpy as np
from safetensors.numpy import load_file

ERF = np.frompyfunc(math.erf, 1, 1)


def act(name, x):
    if name == "gelu":
        return 0.5 * x * (1.0 + ERF(x / math.sqrt(2.0)).astype(np.float64))
    if name in ("gelu_new", "gelu_pytorch_tanh", "gelu_fast"):
        return 0.5 * x * (1.0 + np.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * x**3)))
    if name == "relu":
        return np.maximum(x, 0.0)
    if name == "tanh":
        return np.tanh(x)
    raise ValueError(name)


def layer_norm(x, w, b, eps):
    mu = x.mean(-1, keepdims=True)
    var = ((x - mu) ** 2).mean(-1, keepdims=True)
    return (x - mu) / np.sqrt(var + eps) * w + b


def bucket(delta, buckets, max_pos):
    """Distances within +-mid stay; farther ones share logarithmically wider buckets."""
    mid = buckets // 2
    if abs(delta) <= mid:
        return delta
    grown = math.ceil(math.log(abs(delta) / mid) / math.log((max_pos - 1) / mid) * (mid - 1))
    return int(math.copysign(mid + grown, delta))


def pos_types(c):
    p = c.get("pos_att_type") or []
    if isinstance(p, str):
        p = [x.strip() for x in p.lower().split("|")]
    return p


def classify(w, c, ids, type_ids):
    eps = c.get("layer_norm_eps", 1e-7)
    n, H = len(ids), c["hidden_size"]
    heads = c["num_attention_heads"]
    d = H // heads
    lin = lambda x, p: x @ w[p + ".weight"].T + w[p + ".bias"]
    e = "deberta.embeddings."
    x = w[e + "word_embeddings.weight"][ids]
    if c.get("position_biased_input", True):
        x = x + w[e + "position_embeddings.weight"][:n]
    if c.get("type_vocab_size", 0) > 0:
        x = x + w[e + "token_type_embeddings.weight"][type_ids]
    h = layer_norm(x, w[e + "LayerNorm.weight"], w[e + "LayerNorm.bias"], eps)

    kinds = pos_types(c)
    relative = c.get("relative_attention", False)
    share = c.get("share_att_key", False)
    if relative:
        max_rel = c.get("max_relative_positions", -1)
        if max_rel < 1:
            max_rel = c["max_position_embeddings"]
        nb = c.get("position_buckets", -1)
        span = nb if nb > 0 else max_rel
        P = w["deberta.encoder.rel_embeddings.weight"][: 2 * span]
        if "layer_norm" in [x.strip() for x in c.get("norm_rel_ebd", "none").lower().split("|")]:
            P = layer_norm(P, w["deberta.encoder.LayerNorm.weight"], w["deberta.encoder.LayerNorm.bias"], eps)
        delta = np.array([[bucket(i - j, nb, max_rel) if nb > 0 else i - j for j in range(n)] for i in range(n)])
    scale = math.sqrt(d * (1 + len(kinds)))

    for layer in range(c["num_hidden_layers"]):
        p = "deberta.encoder.layer.%d." % layer
        s = p + "attention.self."
        heads_of = lambda y: y.reshape(len(y), heads, d).transpose(1, 0, 2)  # (heads, rows, d)
        q, k, v = (heads_of(lin(h, s + m)) for m in ("query_proj", "key_proj", "value_proj"))
        scores = q @ k.transpose(0, 2, 1)
        if relative:
            if "c2p" in kinds:
                # Query i against the position key of its distance to key j.
                kr = heads_of(lin(P, s + ("key_proj" if share else "pos_key_proj")))
                for a in range(heads):
                    for i in range(n):
                        for j in range(n):
                            r = min(max(delta[i, j] + span, 0), 2 * span - 1)
                            scores[a, i, j] += q[a, i] @ kr[a, r]
            if "p2c" in kinds:
                # Key j against the position query of the distance from j back to query i.
                qr = heads_of(lin(P, s + ("query_proj" if share else "pos_query_proj")))
                for a in range(heads):
                    for i in range(n):
                        for j in range(n):
                            r = min(max(-delta[j, i] + span, 0), 2 * span - 1)
                            scores[a, i, j] += k[a, j] @ qr[a, r]
        scores = scores / scale
        probs = np.exp(scores - scores.max(-1, keepdims=True))
        probs = probs / probs.sum(-1, keepdims=True)
        ctx = (probs @ v).transpose(1, 0, 2).reshape(n, H)
        a = layer_norm(lin(ctx, p + "attention.output.dense") + h,
                       w[p + "attention.output.LayerNorm.weight"], w[p + "attention.output.LayerNorm.bias"], eps)
        f = lin(act(c.get("hidden_act", "gelu"), lin(a, p + "intermediate.dense")), p + "output.dense")
        h = layer_norm(f + a, w[p + "output.LayerNorm.weight"], w[p + "output.LayerNorm.bias"], eps)

    pooled = act(c.get("pooler_hidden_act", "gelu"), lin(h[0], "pooler.dense"))
    return lin(pooled, "classifier")


def main():
    req = json.load(sys.stdin)
    d = req["dir"]
    c = json.load(open(d + "/config.json"))
    w = {k: v.astype(np.float64) for k, v in load_file(d + "/model.safetensors").items()}
    types = req.get("type_ids") or [[0] * len(ids) for ids in req["ids"]]
    json.dump({"logits": [classify(w, c, i, t).tolist() for i, t in zip(req["ids"], types)]}, sys.stdout)


main()
