"""Reference numbers for tests/permanova_reference.rs (PERMDISP around spatial medians):
scikit-bio 0.7.4's permdisp on a small generated data set that the Rust test builds the
same way (exact binary fractions, so both sides start from the same bits).

Run: target/bench-venv/bin/python bench/permdisp_median_reference.py
(the venv of bench/permanova.sh: python3 -m venv target/bench-venv &&
 target/bench-venv/bin/pip install scikit-bio==0.7.4). Prints the Rust constants.

skbio's permdisp defaults to test='median' and dimensions=10: its PCoA keeps 10 axes, which
is another statistic. With dimensions=n (all axes) and method='eigh' it is the full-space
test Evenhand computes."""
import warnings

import numpy as np
import skbio
from scipy.spatial.distance import pdist, squareform
from skbio import DistanceMatrix
from skbio.stats.distance import permdisp

warnings.simplefilter("ignore")


def data():
    # 3 groups (sizes 14, 12, 16) in R^13; group g shifted along axis g and scaled by
    # (2 + g) / 2, so centres and spreads differ; a few outliers pull centroids from medians.
    rows, groups = [], []
    sizes = [14, 12, 16]
    for g, m in enumerate(sizes):
        for j in range(m):
            i = len(rows)
            row = []
            for k in range(13):
                v = ((i * 37 + k * 11 + i * k * 5) % 29) / 8.0
                if j % 5 == 0:
                    v += ((i + k) % 3) * 4.0  # an outlier every fifth point
                row.append(v * (2 + g) / 2.0 + (3.0 if k == g else 0.0))
            rows.append(row)
            groups.append("abc"[g])
    return np.array(rows), groups


x, groups = data()
n = len(groups)
dm = DistanceMatrix(squareform(pdist(x, "euclidean")), ids=[str(i) for i in range(n)])
out = {}
for test in ("median", "centroid"):
    r = permdisp(dm, groups, test=test, method="eigh", dimensions=n, permutations=0)
    out[test] = float(r["test statistic"])
default = float(permdisp(dm, groups, permutations=0)["test statistic"])
print(f"// scikit-bio {skbio.__version__}, numpy {np.__version__}; bench/permdisp_median_reference.py")
print(f"const SKBIO_MEDIAN_F: f64 = {out['median']!r};")
print(f"const SKBIO_CENTROID_F: f64 = {out['centroid']!r};")
print(f"// skbio's default (test='median', dimensions=10): {default!r}")
