// The page's matrix kernel (crates/evenhand-models/src/matmul.rs) against gemm's simd128 kernel in
// headless Chromium: bench/web/matmul.html on two builds of bench/models/matmul.rs, plain and with
// relaxed SIMD (bench/models/run.sh part `kernel` builds them). Each build's figures are medians
// of 5 timed calls; gemm is timed in the plain build (it has no relaxed path). Prints a table and
// one JSON line.
// Usage: node bench/web/matmul.mjs PLAIN.wasm RELAXED.wasm (paths inside the repository)
import { launch, loadAverage, serve } from "./chromium.mjs";

const [plainWasm, relaxedWasm] = process.argv.slice(2);
if (!relaxedWasm) {
  console.error("usage: node bench/web/matmul.mjs PLAIN.wasm RELAXED.wasm");
  process.exit(2);
}
const PORT = Number(process.env.PORT ?? 8098);
const server = await serve(".", PORT);
const { browser } = await launch();
const builds = {};
try {
  for (const [name, wasm] of [["plain", plainWasm], ["relaxed", relaxedWasm]]) {
    const page = await browser.newPage();
    await page.goto(`http://127.0.0.1:${PORT}/bench/web/matmul.html?wasm=${encodeURIComponent(`../../${wasm}`)}`);
    await page.waitForSelector("#out[data-done='1']", { timeout: 600_000 });
    builds[name] = JSON.parse(await page.textContent("#out"));
    if (builds[name].error) throw new Error(`${name}: ${builds[name].error}`);
    await page.close();
  }
} finally {
  await browser.close();
  server.kill();
}
const { plain, relaxed } = builds;
const f = (x) => x.toFixed(1).padStart(7);
console.log(`${"GFLOP/s in Chromium".padEnd(34)}   gemm    ours  ours+fma  ours/gemm`);
plain.projections.forEach((p, i) => {
  const r = relaxed.projections[i];
  console.log(`${`projection ${p.shape.join(" x ")}`.padEnd(34)}${f(p.gemm)} ${f(p.ours)} ${f(r.ours)}   ${(p.ours / p.gemm).toFixed(2)}x, ${(r.ours / p.gemm).toFixed(2)}x`);
});
const a = plain.attention;
console.log(`${"attention, one head (104 tokens)".padEnd(34)}${f(a.gemm)} ${f(a.ours)} ${f(relaxed.attention.ours)}   ${(a.ours / a.gemm).toFixed(2)}x, ${(relaxed.attention.ours / a.gemm).toFixed(2)}x`);
console.log(`V8's ceiling for f32x4.relaxed_madd (8 chains, no loads): ${relaxed.peak.toFixed(1)} GFLOP/s; load average ${loadAverage()}`);
console.log(JSON.stringify({ load_average: loadAverage(), plain, relaxed }));
