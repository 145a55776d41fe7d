// The browser half of bench/cases/langbite.rs: the same records (written by the native case to
// bench/out/langbite_records.csv) read and evaluated through the page's wasm, in default mode.
// ?pkg=DIR loads another build of the module (e.g. one with function names kept, for
// bench/web/profile.mjs); the page's own build by default.
const pkg = new URLSearchParams(location.search).get("pkg") ?? "../../www/pkg";
const { default: init, requirements_evaluate } = await import(`${pkg}/evenhand.js`);

const out = document.getElementById("out");
try {
  const wasm = await init();
  const [scenario, records] = await Promise.all([
    fetch("../out/langbite_scenario.json").then((r) => (r.ok ? r.text() : Promise.reject(new Error(`scenario: HTTP ${r.status}`)))),
    fetch("../out/langbite_records.csv").then((r) => (r.ok ? r.arrayBuffer() : Promise.reject(new Error(`records: HTTP ${r.status}`)))),
  ]);
  const bytes = new Uint8Array(records);
  const start = performance.now();
  const s = requirements_evaluate(scenario, "records.csv", bytes, { seed: 1, confidence: 0.95, sample: true });
  const seconds = (performance.now() - start) / 1000;
  out.textContent = JSON.stringify({
    seconds,
    load_seconds: s.timing.load_seconds,
    evaluate_seconds: s.timing.evaluate_seconds,
    records: s.records,
    records_per_second: s.records / seconds,
    wasm_memory_mb: wasm.memory.buffer.byteLength / 2 ** 20,
    sample: [s.sample],
  });
} catch (error) {
  out.textContent = JSON.stringify({ error: String(error && error.message ? error.message : error) });
}
out.dataset.done = "1";
