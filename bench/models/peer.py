"""The peer side of the local-model benchmarks (bench/models/run.sh): PyTorch on the CPU.

  embed MODEL_DIR TEXTS.json OUT THREADS   sentence-transformers' encode of every text
                                           (raw little-endian float32 to OUT)
  nli MODEL_DIR PAIRS.json THREADS         transformers' *ForSequenceClassification (config.json's
                                           architecture) on the premise/hypothesis pairs our
                                           side writes, tokenized by the same tokenizer.json,
                                           longest first in batches of 32 as ours are

Prints one JSON line: seconds (the work alone), load_seconds, peak_rss_mb (ru_maxrss), threads.
"""

import json
import resource
import sys
import time

import numpy as np
import torch


def peak_rss_mb():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def embed(model_dir, texts_file, out, threads):
    from sentence_transformers import SentenceTransformer

    texts = [r["text"] for r in json.load(open(texts_file, encoding="utf-8"))]
    t = time.perf_counter()
    model = SentenceTransformer(model_dir, device="cpu")
    load = time.perf_counter() - t
    t = time.perf_counter()
    with torch.inference_mode():
        vectors = model.encode(texts, batch_size=32, convert_to_numpy=True, show_progress_bar=False)
    seconds = time.perf_counter() - t
    np.asarray(vectors, dtype="<f4").tofile(out)
    print(json.dumps({"texts": len(texts), "dimension": int(vectors.shape[1]), "seconds": seconds,
                      "load_seconds": load, "peak_rss_mb": peak_rss_mb(), "threads": torch.get_num_threads(),
                      "torch": torch.__version__}))


def nli(model_dir, pairs_file, threads):
    from tokenizers import Tokenizer
    from transformers import AutoConfig, AutoModelForSequenceClassification

    pairs = json.load(open(pairs_file, encoding="utf-8"))
    t = time.perf_counter()
    config = AutoConfig.from_pretrained(model_dir)
    model = AutoModelForSequenceClassification.from_pretrained(model_dir).eval()
    tok = Tokenizer.from_file(f"{model_dir}/tokenizer.json")
    tok.no_padding()
    # The positions the model takes (XLM-R's table starts after the padding index).
    limit = config.max_position_embeddings - (config.pad_token_id + 1 if config.model_type == "xlm-roberta" else 0)
    tok.enable_truncation(max_length=limit, strategy="only_first")
    load = time.perf_counter() - t
    t = time.perf_counter()
    enc = tok.encode_batch([(p, h) for p, h in pairs])
    ids = [e.ids for e in enc]
    order = sorted(range(len(ids)), key=lambda i: -len(ids[i]))
    logits = [None] * len(ids)
    with torch.inference_mode():
        for at in range(0, len(order), 32):
            rows = order[at:at + 32]
            width = max(len(ids[i]) for i in rows)
            x = torch.full((len(rows), width), config.pad_token_id, dtype=torch.long)
            mask = torch.zeros((len(rows), width), dtype=torch.long)
            for j, i in enumerate(rows):
                x[j, :len(ids[i])] = torch.tensor(ids[i])
                mask[j, :len(ids[i])] = 1
            out = model(input_ids=x, attention_mask=mask).logits
            for j, i in enumerate(rows):
                logits[i] = out[j].tolist()
    seconds = time.perf_counter() - t
    e = next((i for l, i in config.label2id.items() if l.lower().startswith("entail")), len(config.id2label) - 1)
    answers = len(pairs) // 2
    sample = [[logits[2 * a][e], logits[2 * a + 1][e]] for a in range(min(8, answers))]
    print(json.dumps({"answers": answers, "seconds": seconds, "answers_per_second": answers / seconds,
                      "load_seconds": load, "peak_rss_mb": peak_rss_mb(), "threads": torch.get_num_threads(),
                      "sample": sample, "torch": torch.__version__}))


if __name__ == "__main__":
    cmd, *args = sys.argv[1:]
    torch.set_num_threads(int(args[-1]))
    {"embed": embed, "nli": nli}[cmd](*args[:-1], int(args[-1]))
