// The browser half of bench/cases/permanova.rs: the same data file (bench/out, written by the
// native case), the same seed, through the page's wasm. Two ways, alternating run by run: the
// page's path, the PERMANOVA pool (www/permanova-pool.js: K workers, each counting a share of
// the permutations), and the former one, one job a chunk at a time on one thread (this page's
// main thread). Query: ?n=N&dim=D&p=P&r=RUNS; ?mode=single runs only the one-thread side;
// ?pkg=DIR loads another build of the module for it (e.g. one with function names kept, for
// bench/web/profile.mjs, which sees only this thread). The result lands in #out as JSON.
const q = new URLSearchParams(location.search);
const pkg = q.get("pkg") ?? "../../www/pkg";
const mode = q.get("mode") ?? "both";
const { default: init, PermanovaRun } = await import(`${pkg}/evenhand.js`);
const { runPermanova, POOL_SIZE } = await import("../../www/permanova-pool.js");

const out = document.getElementById("out");
try {
  const wasm = await init();
  const n = Number(q.get("n") ?? 1000);
  const dim = Number(q.get("dim") ?? 768);
  const perms = Number(q.get("p") ?? 999);
  const response = await fetch(`../out/permanova_${2 * n}x${dim}.f64`);
  if (!response.ok) throw new Error(`data file absent (HTTP ${response.status}); run the native case first`);
  const values = new Float64Array(await response.arrayBuffer());
  const groups = Array.from({ length: 2 * n }, (_, i) => (i < n ? "A" : "B"));
  const query = { dim, groups, distance: "euclidean", permutations: perms, seed: 42 };
  const single = (request = query) => {
    const run = new PermanovaRun(request, values);
    for (let done = 0; done < request.permutations; ) done = run.advance(100).done;
    const r = run.result();
    run.free();
    return r;
  };
  // Untimed warm-up of both sides (the pool's workers start and compile the module on first use).
  const warm = { ...query, permutations: 64 };
  single(warm);
  if (mode !== "single") await runPermanova(warm, values);
  const repeat = Number(q.get("r") ?? 3);
  const time = async (f) => {
    const start = performance.now();
    const r = await f();
    return [(performance.now() - start) / 1000, r];
  };
  const pool = [];
  const one = [];
  let r;
  let same = true;
  for (let k = 0; k < repeat; k++) {
    let s;
    if (mode !== "single") {
      [s, r] = await time(() => runPermanova(query, values));
      pool.push(s);
    }
    const [t, r1] = await time(() => single());
    one.push(t);
    same &&= r === undefined || JSON.stringify(r) === JSON.stringify(r1);
    r = r1;
  }
  out.textContent = JSON.stringify({
    // The page's path first (`all`, as bench/permanova.py reads it), then the one-thread side.
    all: mode === "single" ? one : pool,
    workers: mode === "single" ? 1 : POOL_SIZE,
    single: one,
    pool_equals_single: same,
    seconds: Math.min(...(mode === "single" ? one : pool)),
    p: r.p,
    permdisp_p: r.permdisp.p,
    wasm_memory_mb: wasm.memory.buffer.byteLength / 2 ** 20,
    js_heap_mb: performance.memory ? performance.memory.usedJSHeapSize / 2 ** 20 : null,
    sample: [[r.f, r.permdisp.f]],
  });
} catch (error) {
  out.textContent = JSON.stringify({ error: String(error && error.message ? error.message : error) });
}
out.dataset.done = "1";
