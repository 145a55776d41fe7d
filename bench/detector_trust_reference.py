#!/usr/bin/env python3
"""Writes tests/fixtures/detector_trust.json: a refusal detector against hand labels, as
tests/detector_trust.rs checks it.

For each confusion table (tp, fn, fp, tn; labels taken as the truth) and level:
  - sensitivity tp/(tp+fn) and specificity tn/(tn+fp) with statsmodels' Wilson interval
    (proportion_confint(method="wilson"));
  - kappa between detector and labels with statsmodels' cohens_kappa (its var_kappa after
    Fleiss, Cohen and Everitt 1969; interval kappa +- z * std_kappa clipped to [-1, 1]);
  - the Rogan-Gladen rate (Rogan and Gladen 1978), (AP + Sp - 1) / (Se + Sp - 1), of
    `positives` of `n` answers, clipped to [0, 1], and Lang and Reiczigel's (2014) interval,
    transcribed here from the paper's formulas independently of the Rust code (no package we
    can install implements it).

Run it in a throwaway virtual environment, never the system Python:
  python3 -m venv target/pyvenv && target/pyvenv/bin/pip install statsmodels
  target/pyvenv/bin/python bench/detector_trust_reference.py
Without statsmodels it says so and exits 0 (the fixture in the repository stays as it is).
"""

import json
import math
import os
import sys

try:
    import statsmodels
    from scipy.stats import norm
    from statsmodels.stats.inter_rater import cohens_kappa
    from statsmodels.stats.proportion import proportion_confint
except ImportError:
    print("statsmodels is not installed: the fixture was not regenerated (see this file's docstring)")
    sys.exit(0)

# (tp, fn, fp, tn, positives, n): the labelled sample, then the detector's count on all answers.
CASES = [(18, 2, 3, 27, 60, 300), (90, 10, 5, 95, 200, 1000), (90, 10, 5, 95, 2, 1000),
         (5, 0, 0, 5, 30, 100), (4, 1, 2, 3, 12, 40), (40, 10, 1, 49, 95, 700),
         (7, 3, 0, 10, 9, 50), (30, 0, 12, 38, 400, 500)]
LEVELS = [0.9, 0.95]


def lang_reiczigel(positives, n, tp, fn, fp, tn, z):
    z2 = z * z
    n_ap = n + z2
    ap = (positives + z2 / 2) / n_ap
    n_se, n_sp = tp + fn + 2, fp + tn + 2
    se, sp = (tp + 1) / n_se, (tn + 1) / n_sp
    j = se + sp - 1
    theta = (ap + sp - 1) / j
    var_se, var_sp = se * (1 - se) / n_se, sp * (1 - sp) / n_sp
    sd = math.sqrt(ap * (1 - ap) / n_ap + theta ** 2 * var_se + (1 - theta) ** 2 * var_sp) / abs(j)
    centre = theta + 2 * z2 * (theta * var_se - (1 - theta) * var_sp)
    return min(max(centre - z * sd, 0.0), 1.0), min(max(centre + z * sd, 0.0), 1.0)


rows = []
for tp, fn, fp, tn, positives, n in CASES:
    # Detector in rows (refusal, answer), labels in columns.
    k = cohens_kappa([[tp, fp], [fn, tn]])
    for level in LEVELS:
        z = norm.ppf(0.5 + level / 2)
        se_low, se_high = proportion_confint(tp, tp + fn, alpha=1 - level, method="wilson")
        sp_low, sp_high = proportion_confint(tn, tn + fp, alpha=1 - level, method="wilson")
        std = max(float(k["var_kappa"]), 0.0) ** 0.5
        se, sp, ap = tp / (tp + fn), tn / (tn + fp), positives / n
        raw = (ap + sp - 1) / (se + sp - 1)
        low, high = lang_reiczigel(positives, n, tp, fn, fp, tn, z)
        rows.append({"confusion": [tp, fn, fp, tn], "positives": positives, "n": n, "confidence": level,
                     "sensitivity": [se, float(se_low), float(se_high)],
                     "specificity": [sp, float(sp_low), float(sp_high)],
                     "kappa": [float(k["kappa"]), max(-1.0, float(k["kappa"]) - z * std),
                               min(1.0, float(k["kappa"]) + z * std)],
                     "corrected": [min(max(raw, 0.0), 1.0), low, high], "clipped": not 0.0 <= raw <= 1.0})

out = os.path.join(os.path.dirname(__file__), "..", "tests", "fixtures", "detector_trust.json")
with open(out, "w") as f:
    json.dump({"generated_with": f"statsmodels {statsmodels.__version__} proportion_confint (wilson) and "
               "cohens_kappa; Rogan-Gladen and Lang-Reiczigel transcribed from the papers, by "
               "bench/detector_trust_reference.py", "rows": rows}, f, indent=1)
print(f"wrote {len(rows)} rows to {out}")
