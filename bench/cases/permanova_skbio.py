"""Peer for bench/cases/permanova.rs: scikit-bio's permanova and permdisp on the same vectors
(read from bench/out/permanova_<2N>x<D>.f64, which the Rust case writes). Args: N D P.
Timed: the Euclidean distance matrix (scipy pdist + skbio DistanceMatrix), permanova, and
permdisp with test=PERMDISP (env, default 'centroid'), method='eigh', dimensions=n (all PCoA
axes: the full-space test that Evenhand computes; skbio's default dimensions=10 tests
something else). Reading the file is not timed. permdisp is skipped
above SKBIO_PERMDISP_MAX_N points (default 4000): its eigendecomposition of the n x n matrix
is O(n^3). Prints JSON: seconds (all timed steps), each step, peak_rss_mb, p, sample."""
import json, os, resource, sys, time

import numpy as np
from scipy.spatial.distance import pdist, squareform
from skbio import DistanceMatrix
from skbio.stats.distance import permanova, permdisp

n = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
dim = int(sys.argv[2]) if len(sys.argv) > 2 else 768
perms = int(sys.argv[3]) if len(sys.argv) > 3 else 999
path = os.path.join(os.path.dirname(__file__), "..", "out", f"permanova_{2 * n}x{dim}.f64")
if not os.path.exists(path):
    print(json.dumps({"skipped": f"{path} is absent; run the Rust case first"}))
    sys.exit(0)
x = np.fromfile(path, dtype="<f8").reshape(2 * n, dim)
grouping = ["A"] * n + ["B"] * n

# numba compiles skbio's kernels on first use in every process (1-3 s); warm them up on a
# 40-point subset, untimed, so the figures are the computation. The benchmark driver reports
# the whole process's wall time beside them.
if not os.environ.get("SKBIO_COLD"):
    import warnings

    warnings.simplefilter("ignore")
    small = DistanceMatrix(squareform(pdist(x[:20].tolist() + x[-20:].tolist())), ids=[str(i) for i in range(40)])
    permanova(small, grouping[:20] + grouping[-20:], permutations=9, seed=1)
    permdisp(small, grouping[:20] + grouping[-20:], test=os.environ.get("PERMDISP", "centroid"), method="eigh",
             dimensions=40, permutations=9, seed=1)

t0 = time.perf_counter()
dm = DistanceMatrix(squareform(pdist(x, "euclidean")), ids=[str(i) for i in range(2 * n)])
t1 = time.perf_counter()
res = permanova(dm, grouping, permutations=perms, seed=42)
t2 = time.perf_counter()
out = {
    "seconds_distance_matrix": t1 - t0,
    "seconds_permanova": t2 - t1,
    "p": float(res["p-value"]),
}
sample = [float(res["test statistic"])]
if 2 * n <= int(os.environ.get("SKBIO_PERMDISP_MAX_N", "4000")):
    import warnings

    warnings.simplefilter("ignore")
    t3 = time.perf_counter()
    test = os.environ.get("PERMDISP", "centroid")
    disp = permdisp(dm, grouping, test=test, method="eigh", dimensions=2 * n, permutations=perms, seed=42)
    out["permdisp_test"] = test
    out["seconds_permdisp"] = time.perf_counter() - t3
    out["permdisp_p"] = float(disp["p-value"])
    sample.append(float(disp["test statistic"]))
else:
    out["permdisp"] = f"skipped above {os.environ.get('SKBIO_PERMDISP_MAX_N', '4000')} points (O(n^3) eigendecomposition)"
out["seconds"] = out["seconds_distance_matrix"] + out["seconds_permanova"] + out.get("seconds_permdisp", 0.0)
out["peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
out["sample"] = [sample]
print(json.dumps(out))
