"""The local-model benchmarks' table (bench/models/run.sh): medians of each side's runs, the
peer's time over ours (above 1: ours is faster), peak memory, and how far the outputs agree.

Usage: summary.py OUT_DIR THREADS. Prints the table; writes OUT_DIR/../../bench/out/models.json.
"""

import json
import os
import statistics
import sys

import numpy as np

out, threads = sys.argv[1], int(sys.argv[2])


def runs(name):
    path = os.path.join(out, name)
    if not os.path.exists(path):
        return []
    rows = [json.loads(line) for line in open(path) if line.strip()]
    return [r for r in rows if "seconds" in r]


def med(rows, key):
    vals = [r[key] for r in rows if r.get(key) is not None]
    return statistics.median(vals) if vals else None


texts = json.load(open(os.path.join(out, "texts.json"), encoding="utf-8"))
result = {"threads": threads, "texts": len(texts), "load_average": open("/proc/loadavg").read().split()[:3]}
lines = [f"{'case':<44} {'ours':>10} {'peer':>10} {'ratio':>7}  notes"]

ours, peer = runs("embed_ours.jsonl"), runs("embed_peer.jsonl")
if ours and peer:
    a = np.fromfile(os.path.join(out, "embed_ours.f32"), dtype="<f4").reshape(len(texts), -1)
    b = np.fromfile(os.path.join(out, "embed_peer.f32"), dtype="<f4").reshape(len(texts), -1)
    diff = float(np.abs(a - b).max())
    cos = float(((a * b).sum(1) / np.linalg.norm(a, axis=1) / np.linalg.norm(b, axis=1)).min())
    o, p = med(ours, "seconds"), med(peer, "seconds")
    result["embed"] = {"ours_s": o, "peer_s": p, "ratio": p / o, "max_abs_diff": diff, "min_cosine": cos,
                       "ours_peak_rss_mb": med(ours, "peak_rss_mb"), "peer_peak_rss_mb": med(peer, "peak_rss_mb"),
                       "ours_runs": [r["seconds"] for r in ours], "peer_runs": [r["seconds"] for r in peer],
                       "ours_threads": ours[0]["threads"], "peer_threads": peer[0]["threads"],
                       "torch": peer[0].get("torch")}
    lines.append(f"{'embed ' + str(len(texts)) + ' texts: native vs sentence-transformers':<44} {o:9.2f}s {p:9.2f}s"
                 f" {p / o:6.2f}x  max|diff|={diff:.1e} min cos={cos:.6f};"
                 f" peak RSS {med(ours, 'peak_rss_mb'):.0f} vs {med(peer, 'peak_rss_mb'):.0f} MB;"
                 f" threads {ours[0]['threads']} vs {peer[0]['threads']}")

# The page: every run of bench/web/models.mjs (one line per round), medians per side: the page's
# own pool, and one worker.
page_runs = [r for line in open(os.path.join(out, "embed_page.jsonl")) if line.strip()
             for r in json.loads(line).get("runs", [])] if os.path.exists(os.path.join(out, "embed_page.jsonl")) else []
if page_runs and ours:
    o = med(ours, "seconds")
    result["page"] = {}
    for side in sorted({r.get("side", f"{r['workers']} workers") for r in page_runs}):
        mine = [r for r in page_runs if r.get("side", f"{r['workers']} workers") == side]
        m = {k: med(mine, k) for k in ("workers", "seconds", "load_seconds", "max_abs_diff", "peak_rss_mb", "wasm_mb")}
        m["runs"] = [r["seconds"] for r in mine]
        m["ratio_to_native"] = m["seconds"] / o
        result["page"][side] = m
        lines.append(f"{'embed in Chromium, ' + side + ' (' + str(m['workers']) + '), vs native':<44} {o:9.2f}s {m['seconds']:9.2f}s"
                     f" {m['seconds'] / o:6.2f}x  (page time / native) max|diff|={m['max_abs_diff']:.1e};"
                     f" renderer peak RSS {m['peak_rss_mb']:.0f} MB, largest worker's wasm memory"
                     f" {m['wasm_mb'] or 0:.0f} MiB; load {m['load_seconds']:.1f} s; {len(mine)} runs")

for kind, label in (("xlmr", "XLM-R base"), ("deberta", "mDeBERTa-v3-base")):
    ours, peer = runs(f"nli_{kind}_ours.jsonl"), runs(f"nli_{kind}_peer.jsonl")
    if not ours:
        continue
    o = med(ours, "answers_per_second")
    entry = {"ours_answers_per_second": o, "ours_s": med(ours, "seconds"), "answers": ours[0]["answers"],
             "ours_peak_rss_mb": med(ours, "peak_rss_mb"), "ours_runs": [r["seconds"] for r in ours]}
    note = f"answers/s, {ours[0]['answers']} answers x 2 hypotheses; RANDOM weights: speed only"
    if peer:
        p = med(peer, "answers_per_second")
        diff = max(abs(x - y) for ra, rb in zip(ours[0]["sample"], peer[0]["sample"]) for x, y in zip(ra, rb))
        entry.update({"peer_answers_per_second": p, "peer_s": med(peer, "seconds"), "ratio": o / p,
                      "peer_peak_rss_mb": med(peer, "peak_rss_mb"), "max_abs_diff_entailment_logits": diff,
                      "peer_runs": [r["seconds"] for r in peer]})
        lines.append(f"{'NLI ' + label + ': native vs transformers':<44} {o:10.2f} {p:10.2f} {o / p:6.2f}x  {note};"
                     f" max|diff| logits={diff:.1e}; peak RSS {med(ours, 'peak_rss_mb'):.0f} vs"
                     f" {med(peer, 'peak_rss_mb'):.0f} MB")
    else:
        lines.append(f"{'NLI ' + label + ': native (no peer figure)':<44} {o:10.2f} {'-':>10} {'-':>7}  {note}")
    page = [r for line in open(os.path.join(out, f"nli_{kind}_page.jsonl")) if line.strip()
            for r in json.loads(line).get("runs", [])] if os.path.exists(os.path.join(out, f"nli_{kind}_page.jsonl")) else []
    if page:
        m = {k: med(page, k) for k in ("seconds", "answers_per_second", "load_seconds", "max_abs_diff", "peak_rss_mb", "wasm_mb")}
        m["verdicts_differ"] = max(r["verdicts_differ"] for r in page)
        m["runs"] = [r["seconds"] for r in page]
        m["ratio_to_native"] = m["seconds"] / med(ours, "seconds")
        entry["page"] = m
        lines.append(f"{'NLI ' + label + ': in Chromium vs native':<44} {o:10.2f} {m['answers_per_second']:10.2f}"
                     f" {m['ratio_to_native']:6.2f}x  (page time / native) max|diff| P(refuse)={m['max_abs_diff']:.1e},"
                     f" {m['verdicts_differ']} verdicts differ; renderer peak RSS {m['peak_rss_mb']:.0f} MB,"
                     f" worker's wasm memory {m['wasm_mb']:.0f} MiB;"
                     f" load {m['load_seconds']:.1f} s; {len(page)} runs")
    result[f"nli_{kind}"] = entry

# The lexicon-first cascade: the CLI's whole run (load included) with the model alone and with the
# cascade, medians; the check run's agreement (meaningful only on real weights).
cascade = runs("cascade.jsonl")
alone, first = [r for r in cascade if r["mode"] == "alone"], [r for r in cascade if r["mode"] == "cascade"]
if alone and first:
    a, c = med(alone, "seconds"), med(first, "seconds")
    check = next((r["check"] for r in cascade if r.get("check")), None)
    about = json.loads(open(os.path.join(out, "cascade.jsonl")).readline())
    weights = "RANDOM weights: agreement means nothing" if about["random_weights"] else about["model_dir"]
    result["cascade"] = {"alone_s": a, "cascade_s": c, "speedup": a / c, "answers": alone[0]["model_runs"],
                         "model_runs_cascade": first[0]["model_runs"], "spared": first[0]["spared"],
                         "alone_runs": [r["seconds"] for r in alone], "cascade_runs": [r["seconds"] for r in first],
                         "check": check, **about}
    lines.append(f"{'NLI cascade (the CLI): alone vs lexicon first':<44} {a:9.2f}s {c:9.2f}s {a / c:6.2f}x"
                 f"  the lexicon spared the model {first[0]['spared']} of {alone[0]['model_runs']} answers;"
                 f" agreement with the model alone: {check['kappa'] if check else 'not run'}"
                 f" ({check['cascade_only'] if check else '-'} refusals by the cascade only; {weights})")

print("\n".join(lines))
print(f"ratio: peer time / ours (embedding), ours / peer answers per second (NLI): above 1, ours is faster;"
      f" page rows: page time / native. {threads} threads each side. load average now {' '.join(result['load_average'])}")
json.dump(result, open(os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(out))), "bench", "out", "models.json"), "w"), indent=1)
