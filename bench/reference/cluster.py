"""Reference values for src/stats/cluster.rs and src/stats/paired.rs (McNemar), from statsmodels.

Data: our own small generated datasets below, nothing third-party. Run:
    python3 -m venv target/stats-venv && target/stats-venv/bin/pip install statsmodels
    target/stats-venv/bin/python bench/reference/cluster.py
and compare with the numbers written in tests/paired_stats.rs.
"""

import numpy as np
import statsmodels
import statsmodels.api as sm
from statsmodels.stats.contingency_tables import mcnemar
from statsmodels.stats.proportion import proportion_confint

print("statsmodels", statsmodels.__version__)

# (successes, items) per cluster: templates of unequal size, some all-pass, some all-fail.
DATASETS = {
    "uneven": [(3, 4), (0, 5), (6, 6), (2, 7), (1, 3), (4, 4), (0, 2), (5, 9)],
    "one_per_cluster": [(1, 1), (0, 1), (1, 1), (1, 1), (0, 1), (1, 1), (0, 1)],
    "homogeneous": [(10, 10), (0, 10), (10, 10), (0, 10), (10, 10), (10, 10)],
    "two_clusters": [(7, 12), (2, 9)],
}

for name, clusters in DATASETS.items():
    y, g = [], []
    for i, (s, n) in enumerate(clusters):
        y += [1.0] * s + [0.0] * (n - s)
        g += [i] * n
    y, g = np.array(y), np.array(g)
    n = len(y)
    p = y.mean()
    fit = sm.OLS(y, np.ones(n)).fit(cov_type="cluster", cov_kwds={"groups": g})
    se = fit.bse[0]
    deff = se**2 / (p * (1 - p) / n)
    n_eff = n / max(deff, 1.0)
    low, high = proportion_confint(p * n_eff, n_eff, alpha=0.05, method="wilson")
    w_low, w_high = proportion_confint(y.sum(), n, alpha=0.05, method="wilson")
    print(
        f"{name}: p={float(p)!r} se={float(se)!r} deff={float(deff)!r} n_eff={float(n_eff)!r}"
        f" wilson95=({float(w_low)!r}, {float(w_high)!r}) robust95=({float(low)!r}, {float(high)!r})"
    )

# McNemar, rows model A (0 = fail, 1 = pass), columns model B.
TABLES = {
    "t1": [[5, 3], [9, 13]],
    "t2": [[2, 0], [6, 4]],
    "t3": [[10, 7], [7, 1]],
    "t4": [[0, 12], [25, 3]],
    "t5": [[1, 1], [0, 0]],
}
for name, t in TABLES.items():
    e = mcnemar(t, exact=True)
    c = mcnemar(t, exact=False, correction=True)
    print(
        f"{name} {t}: exact stat={float(e.statistic)!r} p={float(e.pvalue)!r};"
        f" chi2cc stat={float(c.statistic)!r} p={float(c.pvalue)!r}"
    )
