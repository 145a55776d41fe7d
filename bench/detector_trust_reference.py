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

And "two_phase": labels drawn by the review sample, stratified by the deciding detector's
verdict (flagged / not flagged, N_h answers, n_h labelled). Written here with numpy from the
formulas of Cochran (1977, sections 5.3, 6.11, 12.2), not from the Rust code:
  - the true refusal rate sum_h (N_h/N) p_h with Cochran's 5.48 variance
    sum_h W_h^2 (1 - n_h/N_h) p_h (1 - p_h) / (n_h - 1);
  - the deciding detector's PPV and NPV within their strata (same variance, one stratum), its
    sensitivity and specificity by Bayes, Se = N_f PPV / (N_f PPV + N_u (1 - NPV)), with the
    delta method's variance (PPV and NPV independent);
  - another detector's sensitivity and specificity from the table weighted by N_h / n_h, with
    the linearised (Taylor) variance of a ratio over unit-level arrays (numpy var, ddof=1);
  - kappa of each weighted table (point only);
  - every interval Wilson's on the Kish effective size n* = R(1 - R)/V capped by Kish's size
    of the weights (sum w)^2 / sum w^2 over the labelled answers in the denominator, that size
    alone when V = 0 or unestimable (a stratum of one label), or [R, R] when every stratum is
    labelled in full (Korn and Graubard 1998; Kish 1965).

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
    import numpy as np
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


# (N_f, N_u, flagged labels, unflagged labels); each label list counts (other detector, label)
# as [yes & refusal, no & refusal, yes & answer, no & answer].
TWO_PHASE = [(40, 960, [7, 1, 1, 1], [1, 0, 2, 7]), (120, 380, [3, 2, 2, 3], [0, 1, 1, 8]),
             (25, 975, [5, 0, 0, 0], [0, 0, 0, 5]), (10, 12, [6, 1, 1, 2], [1, 1, 2, 8]),
             (10, 12, [6, 1, 1, 2], [2, 1, 3, 6]), (30, 70, [4, 4, 1, 1], [1, 1, 0, 1]),
             (200, 800, [20, 5, 3, 2], [2, 1, 4, 23]), (60, 300, [9, 1, 0, 0], [1, 0, 3, 0])]


def wilson_eff(r, n_eff, z):
    if math.isinf(n_eff):
        return r, r
    z2 = z * z
    denom = 1 + z2 / n_eff
    centre = (r + z2 / (2 * n_eff)) / denom
    half = z / denom * math.sqrt(r * (1 - r) / n_eff + z2 / (4 * n_eff ** 2))
    low = 0.0 if r == 0 else max(centre - half, 0.0)
    high = 1.0 if r == 1 else min(centre + half, 1.0)
    return low, high


def interval(r, var, kish, census, z):
    """Wilson on n* = min(R(1-R)/V, Kish's size of the weights), or Kish's size when V = 0."""
    if census:
        n_eff = math.inf
    elif var is not None and var > 0 and 0 < r < 1:
        n_eff = min(r * (1 - r) / var, kish)
    else:
        n_eff = kish
    low, high = wilson_eff(r, n_eff, z)
    return [r, low, high]


def stratified_rate(pops, ys, z):
    """Cochran 5.48 over strata (ys: one 0/1 array per stratum)."""
    big = sum(pops)
    p = sum(n_h / big * y.mean() for n_h, y in zip(pops, ys))
    var = 0.0
    for n_h, y in zip(pops, ys):
        n = len(y)
        if n == n_h:
            continue
        if n < 2:
            var = None
            break
        ph = y.mean()
        var += (n_h / big) ** 2 * (1 - n / n_h) * ph * (1 - ph) / (n - 1)
    census = all(len(y) == n_h for n_h, y in zip(pops, ys))
    w = np.concatenate([np.full(len(y), n_h / len(y)) for n_h, y in zip(pops, ys)])
    return interval(p, var, w.sum() ** 2 / (w ** 2).sum(), census, z)


def linearised_ratio(pops, ys, xs, z):
    """Weighted ratio sum w y / sum w x, Taylor variance with e = y - R x."""
    w = [n_h / len(y) for n_h, y in zip(pops, ys)]
    y_hat = sum(wi * y.sum() for wi, y in zip(w, ys))
    x_hat = sum(wi * x.sum() for wi, x in zip(w, xs))
    r = y_hat / x_hat
    var = 0.0
    for n_h, y, x in zip(pops, ys, xs):
        n = len(y)
        if n == n_h:
            continue
        if n < 2:
            var = None
            break
        var += n_h ** 2 * (1 - n / n_h) * np.var(y - r * x, ddof=1) / n
    var = None if var is None else var / x_hat ** 2
    census = all(len(y) == n_h for n_h, y in zip(pops, ys))
    wx = np.concatenate([np.full(len(x), n_h / len(x)) * x for n_h, x in zip(pops, xs)])
    return interval(r, var, wx.sum() ** 2 / (wx ** 2).sum(), census, z), r


def expand(counts):
    """(other detector, label) arrays from [yes&ref, no&ref, yes&ans, no&ans]."""
    det = np.array([1] * counts[0] + [0] * counts[1] + [1] * counts[2] + [0] * counts[3], dtype=float)
    lab = np.array([1] * (counts[0] + counts[1]) + [0] * (counts[2] + counts[3]), dtype=float)
    return det, lab


def bayes(n_f, n_u, lf, lu, z):
    """The deciding detector's Se and Sp from PPV and NPV, delta-method variances."""
    nf, nu = len(lf), len(lu)
    ppv, npv = lf.mean(), 1 - lu.mean()
    v_ppv = (1 - nf / n_f) * ppv * (1 - ppv) / (nf - 1) if nf < n_f else 0.0
    v_npv = (1 - nu / n_u) * npv * (1 - npv) / (nu - 1) if nu < n_u else 0.0
    a, b = n_f * ppv, n_u * (1 - npv)
    se = a / (a + b)
    v_se = (n_f * b / (a + b) ** 2) ** 2 * v_ppv + (n_u * a / (a + b) ** 2) ** 2 * v_npv
    c, d = n_u * npv, n_f * (1 - ppv)
    sp = c / (c + d)
    v_sp = (n_u * d / (c + d) ** 2) ** 2 * v_npv + (n_f * c / (c + d) ** 2) ** 2 * v_ppv
    census = nf == n_f and nu == n_u
    wf, wu = n_f / nf, n_u / nu
    kish_se = (wf * lf.sum() + wu * lu.sum()) ** 2 / (wf ** 2 * lf.sum() + wu ** 2 * lu.sum())
    kish_sp = (wf * (nf - lf.sum()) + wu * (nu - lu.sum())) ** 2 / (wf ** 2 * (nf - lf.sum()) + wu ** 2 * (nu - lu.sum()))
    return interval(se, v_se, kish_se, census, z), interval(sp, v_sp, kish_sp, census, z)


def kappa(t):
    tp, fn, fp, tn = t
    n = tp + fn + fp + tn
    po = (tp + tn) / n
    pe = ((tp + fp) * (tp + fn) + (fn + tn) * (fp + tn)) / n ** 2
    return (po - pe) / (1 - pe)


two_phase = []
for n_f, n_u, cf, cu in TWO_PHASE:
    (df, lf), (du, lu) = expand(cf), expand(cu)
    for level in LEVELS:
        z = float(norm.ppf(0.5 + level / 2))
        row = {"flagged": [n_f] + cf, "unflagged": [n_u] + cu, "confidence": level}
        row["rate"] = stratified_rate([n_f, n_u], [lf, lu], z)
        row["ppv"] = stratified_rate([n_f], [lf], z)
        row["npv"] = stratified_rate([n_u], [1 - lu], z)
        # The Bayes route must agree with the weighted ratio: checked here, then written.
        se, sp = bayes(n_f, n_u, lf, lu, z)
        se_ratio, _ = linearised_ratio([n_f, n_u], [lf, 0 * lu], [lf, lu], z)
        assert np.allclose(se, se_ratio, atol=1e-12), (se, se_ratio)
        row["decider"] = {"sensitivity": se, "specificity": sp,
                          "kappa": kappa([n_f * lf.mean(), n_u * lu.mean(), n_f * (1 - lf.mean()), n_u * (1 - lu.mean())])}
        wf, wu = n_f / len(lf), n_u / len(lu)
        table = [wf * (df * lf).sum() + wu * (du * lu).sum(), wf * ((1 - df) * lf).sum() + wu * ((1 - du) * lu).sum(),
                 wf * (df * (1 - lf)).sum() + wu * (du * (1 - lu)).sum(),
                 wf * ((1 - df) * (1 - lf)).sum() + wu * ((1 - du) * (1 - lu)).sum()]
        o_se, _ = linearised_ratio([n_f, n_u], [df * lf, du * lu], [lf, lu], z)
        o_sp, _ = linearised_ratio([n_f, n_u], [(1 - df) * (1 - lf), (1 - du) * (1 - lu)], [1 - lf, 1 - lu], z)
        row["other"] = {"sensitivity": o_se, "specificity": o_sp, "kappa": kappa(table)}
        two_phase.append(row)

out = os.path.join(os.path.dirname(__file__), "..", "tests", "fixtures", "detector_trust.json")
with open(out, "w") as f:
    json.dump({"generated_with": f"statsmodels {statsmodels.__version__} proportion_confint (wilson) and "
               "cohens_kappa; Rogan-Gladen and Lang-Reiczigel transcribed from the papers, by "
               "bench/detector_trust_reference.py; two_phase: numpy from Cochran's formulas, same file",
               "rows": rows, "two_phase": two_phase}, f, indent=1)
print(f"wrote {len(rows)} rows and {len(two_phase)} two-phase rows to {out}")
