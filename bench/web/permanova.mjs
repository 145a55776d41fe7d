// The browser half of bench/cases/permanova.rs: the same data file (bench/out, written by the
// native case), the same seed, through the wasm the page uses, a chunk of permutations at a
// time as the worker runs it. Query: ?n=N&dim=D&p=P&r=RUNS; ?pkg=DIR loads another build of
// the module (e.g. one with function names kept, for bench/web/profile.mjs). The result lands
// in #out as JSON.
const pkg = new URLSearchParams(location.search).get("pkg") ?? "../../www/pkg";
const { default: init, PermanovaRun } = await import(`${pkg}/evenhand.js`);

const out = document.getElementById("out");
try {
  const wasm = await init();
  const q = new URLSearchParams(location.search);
  const n = Number(q.get("n") ?? 1000);
  const dim = Number(q.get("dim") ?? 768);
  const perms = Number(q.get("p") ?? 999);
  const response = await fetch(`../out/permanova_${2 * n}x${dim}.f64`);
  if (!response.ok) throw new Error(`data file absent (HTTP ${response.status}); run the native case first`);
  const values = new Float64Array(await response.arrayBuffer());
  const groups = Array.from({ length: 2 * n }, (_, i) => (i < n ? "A" : "B"));
  // The best of r runs (default 3), as natively.
  const repeat = Number(q.get("r") ?? 3);
  let seconds = Infinity;
  const all = [];
  let r;
  for (let k = 0; k < repeat; k++) {
    const start = performance.now();
    const run = new PermanovaRun({ dim, groups, distance: "euclidean", permutations: perms, seed: 42 }, values);
    for (let done = 0; done < perms; ) done = run.advance(100).done;
    r = run.result();
    run.free();
    all.push((performance.now() - start) / 1000);
    seconds = Math.min(seconds, all[all.length - 1]);
  }
  out.textContent = JSON.stringify({
    seconds,
    all,
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
