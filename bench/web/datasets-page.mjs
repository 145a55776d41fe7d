// The full BBQ through the page itself, as a user gets it: the Datasets tab fetches 11 category
// files (58,492 examples) from a local mirror, checks their sha256, keeps them in Cache
// Storage, opens them in the Benchmarks tab and scores them on the simulated model; then a
// reload opens them again from the cache. Only Sexual_orientation is in ../shared/ref, so each
// category file is that file's rows tiled to the category's real row count (as datasets.mjs).
// Prints the time of each step and the peak resident memory of Chromium's processes (sampled
// every 100 ms from /proc). Needs ./build.sh build first.
// Usage: node bench/web/datasets-page.mjs [PORT]   (PORT and PORT+1; default 8096)
import { chromium } from "playwright";
import { spawn, execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import http from "node:http";

const PORT = Number(process.argv[2] ?? 8096);
const PAGE = `http://127.0.0.1:${PORT}`;
const MIRROR = `http://127.0.0.1:${PORT + 1}`;
const ROWS = { Age: 3680, Disability_status: 1556, Gender_identity: 5672, Nationality: 3080, Physical_appearance: 1576,
  Race_ethnicity: 6880, Race_x_SES: 11160, Race_x_gender: 15960, Religion: 1200, SES: 6864, Sexual_orientation: 864 };

const base = readFileSync("../shared/ref/bbq/data/Sexual_orientation.jsonl", "utf8").split("\n").filter((l) => l.trim()).map((l) => JSON.parse(l));
const files = new Map();
const entries = Object.entries(ROWS).map(([category, n]) => {
  const lines = [];
  for (let i = 0; i < n; i++) lines.push(JSON.stringify({ ...base[i % base.length], example_id: i, category }));
  const bytes = Buffer.from(lines.join("\n") + "\n");
  const url = `https://raw.githubusercontent.com/bench/bbq-tiled/0000000/data/${category}.jsonl`;
  files.set(new URL(url).pathname, bytes);
  return { name: category, path: `data/${category}.jsonl`, url, bytes: bytes.length, sha256: createHash("sha256").update(bytes).digest("hex"),
    rows: n, kind: "examples", format: "bbq-jsonl", language: "en", category };
});
const catalogue = { format: "evenhand-catalogue", version: 1, datasets: [{ name: "bbq-tiled", title: "BBQ's size, tiled", method: "bbq",
  version: "0", repository: "bench/bbq-tiled", source_url: "https://example.org", license: "CC-BY-4.0", languages: ["en"],
  categories: Object.keys(ROWS), description: "bench", citation: "", files: entries }] };

const mirror = http.createServer((req, res) => {
  const body = files.get(new URL(req.url, MIRROR).pathname);
  res.writeHead(body ? 200 : 404, { "access-control-allow-origin": "*", "content-length": String(body?.length ?? 0) });
  res.end(body);
});
await new Promise((r) => mirror.listen(PORT + 1, "127.0.0.1", r));
const server = spawn("python3", ["-m", "http.server", String(PORT), "--bind", "127.0.0.1", "--directory", "www"], { stdio: "ignore" });
await new Promise((r) => setTimeout(r, 800));

const browser = await chromium.launch({ executablePath: "/usr/bin/chromium",
  args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"] });
// Resident memory of Chromium's processes, in MB: every process under this one but the server.
const rss = () => {
  try {
    const out = execFileSync("ps", ["-e", "-o", "pid=,ppid=,rss="], { encoding: "utf8" });
    const rows = out.trim().split("\n").map((l) => l.trim().split(/\s+/).map(Number));
    const tree = new Set([process.pid]);
    for (let grew = true; grew;) {
      grew = false;
      for (const [pid, ppid] of rows) if (tree.has(ppid) && !tree.has(pid)) { tree.add(pid); grew = true; }
    }
    return rows.filter(([pid]) => tree.has(pid) && pid !== process.pid && pid !== server.pid).reduce((n, [, , kb]) => n + kb, 0) / 1024;
  } catch {
    return 0;
  }
};
/** The Datasets tab, through the Expert tools menu when it is not on the tab bar. */
async function openDatasets(page) {
  const tab = page.getByRole("tab", { name: "Datasets" });
  if (await tab.isVisible()) await tab.click();
  else {
    await page.getByRole("button", { name: "Expert tools" }).click();
    await page.getByRole("menuitem", { name: "Datasets" }).click();
  }
}
let peak = 0;
const sampler = setInterval(() => { peak = Math.max(peak, rss()); }, 100);
const out = { examples: 58492, mb_of_files: Math.round([...files.values()].reduce((n, b) => n + b.length, 0) / 1e5) / 10 };
try {
  const context = await browser.newContext({ serviceWorkers: "block" });
  const page = await context.newPage();
  await page.route("**/data/catalogue.json", (route) => route.fulfill({ json: catalogue }));
  await page.goto(`${PAGE}/?datasets-base=${encodeURIComponent(MIRROR)}`);
  await page.waitForSelector("body[data-ready='1']", { timeout: 60_000 });
  await openDatasets(page);
  await page.waitForSelector("#panel-datasets[data-ready='1']");
  for (const e of entries) await page.locator(`#dataset-bbq-tiled tr[data-file="${e.name}"] input[type=checkbox]`).check();
  const idle = rss();
  let t = performance.now();
  const lap = (key) => { const now = performance.now(); out[key] = Math.round(now - t) / 1000; t = now; };
  const start = t;
  await page.locator("#dataset-bbq-tiled").getByRole("button", { name: "Score on the simulated model" }).click();
  await page.waitForFunction(() => document.querySelectorAll("#dataset-bbq-tiled tr[data-state='stored']").length === 11, null, { timeout: 300_000 });
  lap("fetch_verify_store_seconds");
  await page.locator("#bbq-data-result").filter({ hasText: "58492 examples" }).waitFor({ timeout: 300_000 });
  lap("import_seconds");
  await page.locator("#bbq-sim-result").filter({ hasText: "answered 58492 questions" }).waitFor({ timeout: 300_000 });
  lap("simulate_seconds");
  await page.waitForFunction(() => !document.querySelector("#bbq-dashboard")?.hasAttribute("aria-busy") &&
    (document.querySelector("#bbq-metrics")?.textContent ?? "").includes("sim:"), null, { timeout: 300_000 });
  lap("metrics_seconds");
  out.total_seconds = Math.round(performance.now() - start) / 1000;
  out.idle_rss_mb = Math.round(idle);
  out.peak_rss_mb = Math.round(peak);
  // Offline from the cache: the mirror is closed, the page reloaded, the same two clicks.
  await new Promise((r) => { mirror.closeAllConnections(); mirror.close(r); });
  await page.reload();
  await page.waitForSelector("body[data-ready='1']", { timeout: 60_000 });
  await openDatasets(page);
  await page.waitForSelector("#panel-datasets[data-ready='1']");
  for (const e of entries) await page.locator(`#dataset-bbq-tiled tr[data-file="${e.name}"] input[type=checkbox]`).check();
  t = performance.now();
  await page.locator("#dataset-bbq-tiled").getByRole("button", { name: "Open in Benchmarks" }).click();
  await page.locator("#bbq-data-result").filter({ hasText: "58492 examples" }).waitFor({ timeout: 300_000 });
  lap("from_cache_open_seconds");
  out.stored_mb = Math.round((await page.evaluate(() => navigator.storage.estimate())).usage / 1e5) / 10;
  console.log(JSON.stringify(out));
} finally {
  clearInterval(sampler);
  await browser.close();
  server.kill();
  mirror.close();
}
