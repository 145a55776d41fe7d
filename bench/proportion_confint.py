#!/usr/bin/env python3
"""Writes tests/fixtures/proportion_confint.json: statsmodels' proportion_confint for the three
interval methods a study may name (wilson, beta = Clopper-Pearson, agresti_coull), on counts
that include the edges (0 and n successes) and three confidence levels. tests/proportion_methods.rs
checks Evenhand's intervals against these values.

Run it in a throwaway virtual environment, never the system Python:
  python3 -m venv target/pyvenv && target/pyvenv/bin/pip install statsmodels
  target/pyvenv/bin/python bench/proportion_confint.py
Without statsmodels it says so and exits 0 (the fixture in the repository stays as it is).
"""

import json
import os
import sys

try:
    import statsmodels
    from statsmodels.stats.proportion import proportion_confint
except ImportError:
    print("statsmodels is not installed: the fixture was not regenerated (see this file's docstring)")
    sys.exit(0)

CASES = [(0, 10), (1, 10), (5, 10), (9, 10), (10, 10), (3, 7), (81, 263), (1, 1000), (999, 1000), (17, 40), (0, 1), (1, 1)]
LEVELS = [0.9, 0.95, 0.99]
METHODS = {"wilson": "wilson", "clopper_pearson": "beta", "agresti_coull": "agresti_coull"}

rows = []
for count, nobs in CASES:
    for level in LEVELS:
        for ours, theirs in METHODS.items():
            low, high = proportion_confint(count, nobs, alpha=1 - level, method=theirs)
            rows.append({"successes": count, "n": nobs, "confidence": level, "method": ours,
                         "low": float(low), "high": float(high)})

out = os.path.join(os.path.dirname(__file__), "..", "tests", "fixtures", "proportion_confint.json")
with open(out, "w") as f:
    json.dump({"generated_with": f"statsmodels {statsmodels.__version__} proportion_confint "
               "(wilson; beta for clopper_pearson; agresti_coull), by bench/proportion_confint.py",
               "rows": rows}, f, indent=1)
    f.write("\n")
print(f"wrote {len(rows)} rows to {os.path.normpath(out)}")
