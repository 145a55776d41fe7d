#!/usr/bin/env python3
"""Writes tests/fixtures/kappa.json: statsmodels' cohens_kappa (simple kappa, its variance
`var_kappa` after Fleiss, Cohen and Everitt 1969, and the interval kappa +- z * std_kappa) on
2x2 tables of two binary raters, perfect and one-sided tables included.
tests/diagnostic.rs checks Evenhand's kappa and interval against these values.

Run it in a throwaway virtual environment, never the system Python:
  python3 -m venv target/pyvenv && target/pyvenv/bin/pip install statsmodels
  target/pyvenv/bin/python bench/kappa_reference.py
Without statsmodels it says so and exits 0 (the fixture in the repository stays as it is).
"""

import json
import os
import sys

try:
    import statsmodels
    from scipy.stats import norm
    from statsmodels.stats.inter_rater import cohens_kappa
except ImportError:
    print("statsmodels is not installed: the fixture was not regenerated (see this file's docstring)")
    sys.exit(0)

# (both, only_a, only_b, neither): rater A in rows, rater B in columns.
TABLES = [(20, 5, 10, 15), (40, 3, 2, 55), (1, 0, 0, 9), (3, 2, 4, 1), (88, 12, 7, 893),
          (0, 5, 5, 90), (12, 0, 6, 32), (250, 31, 44, 675), (5, 5, 5, 5), (9, 1, 0, 0)]
LEVELS = [0.9, 0.95, 0.99]

rows = []
for both, only_a, only_b, neither in TABLES:
    r = cohens_kappa([[both, only_a], [only_b, neither]])
    for level in LEVELS:
        z = norm.ppf(0.5 + level / 2)
        # A one-sided table's variance can come out as -2e-15 by rounding: taken as 0, as
        # Evenhand does (statsmodels' own sqrt gives NaN there).
        se = max(float(r["var_kappa"]), 0.0) ** 0.5
        rows.append({"table": [both, only_a, only_b, neither], "confidence": level,
                     "kappa": float(r["kappa"]), "se": se,
                     "low": max(-1.0, float(r["kappa"]) - z * se),
                     "high": min(1.0, float(r["kappa"]) + z * se)})

out = os.path.join(os.path.dirname(__file__), "..", "tests", "fixtures", "kappa.json")
with open(out, "w") as f:
    json.dump({"generated_with": f"statsmodels {statsmodels.__version__} cohens_kappa "
               "(kappa, std_kappa; interval kappa +- z * std_kappa clipped to [-1, 1]), by bench/kappa_reference.py",
               "rows": rows}, f, indent=1)
print(f"wrote {len(rows)} rows to {out}")
