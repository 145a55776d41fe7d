// The full BBQ's size through what the Datasets tab does with it, in the page's own wasm:
// sha256 of every file (crypto.subtle), import of the 11 category files, a selection, the
// simulated model, the view with its bootstrap, and the provider cases. BBQ's 11 files hold
// 58,492 examples; only Sexual_orientation is in ../shared/ref, so each category file here is
// that file's rows tiled to the category's real row count, renamed to the category.
// Served from the folder above the repository; the result lands in #out as JSON.
// Usage: node bench/web/run.mjs http://127.0.0.1:8095/<repo>/bench/web/datasets.html
import init, { BbqSession } from "../../www/pkg/evenhand.js";

// Rows per category file at BBQ's pinned commit (58,492 in all).
const ROWS = { Age: 3680, Disability_status: 1556, Gender_identity: 5672, Nationality: 3080, Physical_appearance: 1576,
  Race_ethnicity: 6880, Race_x_SES: 11160, Race_x_gender: 15960, Religion: 1200, SES: 6864, Sexual_orientation: 864 };

const out = document.getElementById("out");
const mb = (bytes) => Math.round(bytes / 1e5) / 10;
try {
  const wasm = await init();
  const response = await fetch("../../../shared/ref/bbq/data/Sexual_orientation.jsonl");
  if (!response.ok) throw new Error(`shared/ref is absent (HTTP ${response.status})`);
  const base = (await response.text()).split("\n").filter((l) => l.trim()).map((l) => JSON.parse(l));
  const enc = new TextEncoder();
  const files = Object.entries(ROWS).map(([category, n]) => {
    const lines = [];
    for (let i = 0; i < n; i++) lines.push(JSON.stringify({ ...base[i % base.length], example_id: i, category }));
    return { name: `${category}.jsonl`, bytes: enc.encode(lines.join("\n") + "\n") };
  });
  const totalBytes = files.reduce((n, f) => n + f.bytes.length, 0);
  const t = {};
  const time = async (key, fn) => {
    const start = performance.now();
    const value = await fn();
    t[key] = Math.round(performance.now() - start) / 1000;
    // The wasm memory never shrinks, so after each step it is the peak so far.
    t[key.replace("_seconds", "_wasm_mb")] = mb(wasm.memory.buffer.byteLength);
    return value;
  };
  await time("sha256_seconds", () => Promise.all(files.map((f) => crypto.subtle.digest("SHA-256", f.bytes))));
  const s = new BbqSession();
  let examples = 0;
  await time("import_seconds", () => {
    for (const f of files) examples = s.add_data_in(f.name, f.bytes, "en").total_examples;
  });
  const kept = await time("select_seconds", () => s.keep({ languages: ["en"] }).kept);
  const answered = await time("simulate_seconds", () => s.simulate({ behaviour: { name: "bbq-demo", choice_bias: { default: 0.3 }, accuracy: 0.8, refusal: { default: 0.02 } }, seed: 1 }));
  const view = await time("view_seconds", () => s.view());
  const cases = await time("provider_cases_seconds", () => s.provider_cases_jsonl(undefined));
  const o = view.report.overall.scores;
  out.textContent = JSON.stringify({
    examples, kept, answered, judged: view.report.judged, files: files.length, mb_of_files: mb(totalBytes),
    ...t, total_seconds: Math.round(Object.entries(t).filter(([k]) => k.endsWith("_seconds")).reduce((a, [, b]) => a + b, 0) * 1000) / 1000,
    provider_cases: cases.cases, provider_cases_mb: mb(cases.jsonl.length),
    wasm_memory_mb: mb(wasm.memory.buffer.byteLength),
    // Chromium's non-standard heap figure: the JS side (the files' bytes, the view's objects).
    js_heap_mb: performance.memory ? mb(performance.memory.usedJSHeapSize) : null,
    sample: [[o.acc_amb, o.s_amb, o.s_dis]],
  });
} catch (error) {
  out.textContent = JSON.stringify({ error: String(error && error.message ? error.message : error) });
}
out.dataset.done = "1";
