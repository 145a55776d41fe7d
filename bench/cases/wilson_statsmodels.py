"""Peer for bench/cases/wilson.rs: statsmodels' proportion_confint(method="wilson"), vectorised."""
import json, sys, time
import numpy as np
from statsmodels.stats.proportion import proportion_confint

n = int(sys.argv[1]) if len(sys.argv) > 1 else 1_000_000
i = np.arange(n, dtype=np.int64)
k, t = i % 97, 100 + i % 50
start = time.perf_counter()
low, high = proportion_confint(k, t, alpha=0.05, method="wilson")
seconds = time.perf_counter() - start
print(json.dumps({"seconds": seconds, "checksum": float(np.sum(low) + np.sum(high)),
                  "sample": [[float(low[j]), float(high[j])] for j in range(5)]}))
