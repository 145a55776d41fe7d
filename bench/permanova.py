"""The PERMANOVA + PERMDISP benchmark protocol (issue 17), called by bench/permanova.sh.

Both sides read the same file (bench/out/permanova_<2N>x<D>.f64, written by the Rust case on
its first, untimed run). Per case: one warm-up run of each side, then RUNS (default 5) runs of
each, alternating Evenhand and scikit-bio, each a fresh process. Reported per side: median
and min of the in-process time (from the vectors in memory to the result: for skbio the
distance matrix, permanova and permdisp; reading the file is left out on both sides), the
median wall time of the whole process, peak RSS (wait4's ru_maxrss), and /proc/loadavg
before and after the case. Ratios are skbio/Evenhand of the medians and of the mins.
Beside them: the machine's matrix-product throughput (ndarray/matrixmultiply on 1 and on
all threads, numpy's BLAS) measured in the same run, and Evenhand's kernel GFLOP/s.

Thread counts: Evenhand uses rayon's threads (RAYON_NUM_THREADS, else one per core); numpy's
BLAS its own (OMP_NUM_THREADS, OPENBLAS_NUM_THREADS, MKL_NUM_THREADS; unset means one per
core); both are printed with numpy's BLAS configuration. scikit-bio is pinned to 0.7.4.

Env: RUNS (5), CASES ("1000:768:999 1000:768:9999"), BIG ("5000:1536:999", ours only, peak
RSS), PERMDISP (centroid|median, both sides), SKIP_SKBIO=1, WEB=1 (Chromium, if www/pkg is
built with --features bench: the page's wasm on the same file, RUNS timings of its worker pool
and RUNS of one thread, alternating, in one page), WEB_PORT (8096). Output: bench/out/permanova.txt."""
import json, os, statistics, subprocess, sys, time

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
OURS = os.path.join(ROOT, "target/release/examples/bench_permanova")
MATMUL = os.path.join(ROOT, "target/release/examples/bench_matmul")
PY = os.path.join(ROOT, "target/bench-venv/bin/python")
PEER = os.path.join(ROOT, "bench/cases/permanova_skbio.py")
RUNS = int(os.environ.get("RUNS", "5"))
lines = []


def say(text=""):
    print(text, flush=True)
    lines.append(text)


def loadavg():
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[:3])


def run(cmd, env=None):
    """(parsed JSON of the last stdout line, wall seconds, peak RSS MB) of one process."""
    start = time.perf_counter()
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env={**os.environ, **(env or {})}, cwd=ROOT)
    _, status, usage = os.wait4(p.pid, 0)
    wall = time.perf_counter() - start
    out, err = p.stdout.read().decode(), p.stderr.read().decode()
    if status != 0:
        raise SystemExit(f"{cmd[0]} failed: {err[-2000:]}")
    return json.loads(out.strip().splitlines()[-1]), wall, usage.ru_maxrss / 1024


def stats(xs):
    return statistics.median(xs), min(xs)


def environment():
    say(f"# PERMANOVA benchmark, {time.strftime('%Y-%m-%d %H:%M:%S %Z')}")
    cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "?")
    say(f"machine: {os.cpu_count()} cores, {cpu}; load average {loadavg()}")
    blas_env = {k: os.environ.get(k, "unset") for k in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")}
    say(f"threads: Evenhand rayon RAYON_NUM_THREADS={os.environ.get('RAYON_NUM_THREADS', 'unset')}; "
        + ", ".join(f"{k}={v}" for k, v in blas_env.items()))
    if not os.environ.get("SKIP_SKBIO"):
        info = subprocess.run([PY, "-c", """
import json, numpy, skbio, scipy
c = numpy.show_config(mode="dicts")
blas = c.get("Build Dependencies", {}).get("blas", {})
try:
    from threadpoolctl import threadpool_info
    pools = [(p.get("internal_api"), p.get("num_threads"), p.get("architecture")) for p in threadpool_info()]
except Exception as e:
    pools = str(e)
print(json.dumps({"skbio": skbio.__version__, "numpy": numpy.__version__, "scipy": scipy.__version__,
                  "blas": [blas.get("name"), blas.get("version")], "threadpools": pools}))
"""], capture_output=True, text=True)
        say(f"peer: {info.stdout.strip() or info.stderr.strip()[-300:]}")


def machine_limit():
    before = loadavg()
    ours, _, _ = run([MATMUL, "2000", "768"])
    line = (f"matrix product 2000x768 . 768x2000 (f64), best of 5: ndarray/matrixmultiply "
            f"{ours['gflops_1_thread']:.1f} GFLOP/s on 1 thread, {ours['gflops_all_threads']:.1f} on {ours['threads']}")
    if not os.environ.get("SKIP_SKBIO"):
        peer = subprocess.run([PY, "-c", """
import time, numpy as np
a = ((np.arange(2000)[:, None] * 31 + np.arange(768)[None, :] * 17) % 101) / 101.0 - 0.5
b = np.ascontiguousarray(a.T)
best = min((lambda t: (a @ b, time.perf_counter() - t)[1])(time.perf_counter()) for _ in range(5))
print(2 * 2000 * 768 * 2000 / best / 1e9)
"""], capture_output=True, text=True)
        line += f"; numpy {float(peer.stdout):.1f} GFLOP/s (its BLAS threads)"
    say(line + f"; load {before} -> {loadavg()}")
    return ours


def case(n, dim, perms, limit, peer_too=True):
    args = [str(n), str(dim), str(perms)]
    run([OURS] + args)  # writes the data file if absent; warm-up
    skbio = peer_too and not os.environ.get("SKIP_SKBIO")
    if skbio:
        run([PY, PEER] + args, {"SKBIO_PERMDISP_MAX_N": "4000"})
    before = loadavg()
    o, p = [], []
    for _ in range(RUNS):
        o.append(run([OURS] + args))
        if skbio:
            p.append(run([PY, PEER] + args, {"SKBIO_PERMDISP_MAX_N": "4000"}))
    after = loadavg()
    om, omin = stats([r[0]["seconds"] for r in o])
    gf = statistics.median([r[0]["kernel_gflops"] for r in o])
    head = f"2x{n:,} dim {dim:,}, {perms:,} perms, permdisp {o[0][0]['permdisp_center']}, {RUNS} runs each, load {before} -> {after}"
    say(head)
    say(f"  Evenhand ({o[0][0]['threads']} threads): median {om:.3f} s, min {omin:.3f} s "
        f"(whole process median {statistics.median(r[1] for r in o):.3f} s), peak RSS {max(r[2] for r in o):.0f} MB, "
        f"kernel {gf:.1f} GFLOP/s = {100 * gf / limit['gflops_all_threads']:.0f}% of the measured {limit['gflops_all_threads']:.1f}")
    if skbio:
        pm, pmin = stats([r[0]["seconds"] for r in p])
        steps = {k[8:]: statistics.median(r[0][k] for r in p) for k in p[0][0] if k.startswith("seconds_")}
        fo, fp = o[0][0]["sample"][0], p[0][0]["sample"][0]
        rel = ", ".join(f"{abs(a - b) / abs(b):.1e}" for a, b in zip(fo, fp))
        say(f"  scikit-bio: median {pm:.3f} s, min {pmin:.3f} s [" + ", ".join(f"{k} {v:.2f}" for k, v in steps.items())
            + f"] (whole process median {statistics.median(r[1] for r in p):.3f} s), peak RSS {max(r[2] for r in p):.0f} MB"
            + ("" if "seconds_permdisp" in p[0][0] else ", NO permdisp"))
        say(f"  skbio/Evenhand: {pm / om:.1f}x (medians), {pmin / omin:.1f}x (mins); F, PERMDISP F rel. diff {rel}")
    if os.environ.get("WEB") and os.path.exists(os.path.join(ROOT, "www/pkg/evenhand_bg.wasm")):
        web(n, dim, perms, om, o[0][0])


def web(n, dim, perms, native_median, native):
    port = int(os.environ.get("WEB_PORT", "8096"))
    server = subprocess.Popen([sys.executable, "-m", "http.server", str(port), "--bind", "127.0.0.1", "--directory", ROOT],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        time.sleep(1)
        before = loadavg()
        url = f"http://127.0.0.1:{port}/bench/web/permanova.html?n={n}&dim={dim}&p={perms}&r={RUNS}"
        out = subprocess.run(["node", "bench/web/run.mjs", url], capture_output=True, text=True, cwd=ROOT)
        w = json.loads(out.stdout.strip().splitlines()[-1])
        if "all" not in w:
            say(f"  Chromium: {w}")
            return
        wm, wmin = stats(w["all"])
        sm, smin = stats(w["single"])
        same = w["sample"] == native["sample"] and w["p"] == native["p"] and w["permdisp_p"] == native["permdisp_p"]
        same = same and w["pool_equals_single"]
        say(f"  Chromium, the page's pool ({w['workers']} workers, wasm simd128): median {wm:.3f} s, min {wmin:.3f} s, "
            f"{wm / native_median:.2f}x native median; {'F and p bit-identical to native' if same else 'DIFFER from native'}")
        say(f"  Chromium, one thread (the former path), alternating with the pool: median {sm:.3f} s, min {smin:.3f} s, "
            f"{sm / native_median:.2f}x native median, pool {sm / wm:.2f}x faster (medians); "
            f"main thread's wasm memory {w['wasm_memory_mb']:.0f} MB; load {before} -> {loadavg()}")
    finally:
        server.kill()


def main():
    environment()
    limit = machine_limit()
    for spec in os.environ.get("CASES", "1000:768:999 1000:768:9999").split():
        case(*map(int, spec.split(":")), limit)
    for spec in os.environ.get("BIG", "5000:1536:999").split():
        case(*map(int, spec.split(":")), limit, peer_too=False)
    with open(os.path.join(ROOT, "bench/out/permanova.txt"), "w") as f:
        f.write("\n".join(lines) + "\n")


main()
