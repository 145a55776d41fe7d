// The first visit, as issue 17 measures it: five cold loads of the home screen (a fresh browser
// context each, the HTTP cache disabled, no service worker), each timed from navigation start
// to the first chart (the demo's Results chart, drawn behind the home screen), with the bytes
// fetched until then. Sizes are given raw and gzipped (gzip -9 of each file, as a static host
// that compresses would send them; the local server here does not compress). Prints one JSON
// object. Needs ./build.sh build first.
// Usage: node bench/web/first_load.mjs [PORT] [RUNS] [DIR]   (default 8097, 5, www)
import { chromium } from "playwright";
import { spawn } from "node:child_process";
import { gzipSync } from "node:zlib";

const PORT = Number(process.argv[2] ?? 8097);
const RUNS = Number(process.argv[3] ?? 5);
const DIR = process.argv[4] ?? "www";
const PAGE = `http://127.0.0.1:${PORT}/`;

const server = spawn("python3", ["-m", "http.server", String(PORT), "--bind", "127.0.0.1", "--directory", DIR], { stdio: "ignore" });
await new Promise((r) => setTimeout(r, 800));
const browser = await chromium.launch({ executablePath: "/usr/bin/chromium",
  args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"] });

const median = (xs) => { const s = [...xs].sort((a, b) => a - b); return s[Math.floor(s.length / 2)]; };
const kind = (url) => (url.endsWith(".wasm") ? "wasm" : url.endsWith(".js") ? "js" : url.includes("/data/") || url.endsWith(".json") ? "data" : "other");

async function coldLoad() {
  const context = await browser.newContext({ serviceWorkers: "block" });
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  await cdp.send("Network.enable");
  await cdp.send("Network.setCacheDisabled", { cacheDisabled: true });
  // Every response with the moment its request was sent: a file asked for before the chart was
  // drawn is part of the first load. (Playwright hands over a worker's response bodies late,
  // so the moment a body arrives in this script says nothing.) The workers' requests too:
  // Playwright reports them on the context.
  const fetched = [];
  const sent = new Map();
  context.on("request", (request) => sent.set(request, Date.now()));
  context.on("response", async (response) => {
    const url = response.url();
    if (!url.startsWith(PAGE)) return;
    const at = sent.get(response.request()) ?? Date.now();
    try {
      const body = await response.body();
      fetched.push({ url: url.slice(PAGE.length) || "./", raw: body.length, gz: gzipSync(body, { level: 9 }).length, at });
    } catch {
      // a response without a body (a redirect, an aborted request): nothing was downloaded
    }
  });
  // The moment the chart's image gets its picture, stamped in the page (ms since navigation
  // start), so the test driver's own round trips do not count.
  await page.addInitScript(() => {
    new MutationObserver((changes, observer) => {
      if (changes.some((c) => c.target instanceof HTMLImageElement && c.target.id === "chart" && c.target.src.startsWith("blob:"))) {
        window["chartMs"] = performance.now();
        window["chartAt"] = Date.now();
        observer.disconnect();
      }
    }).observe(document, { subtree: true, attributes: true, attributeFilter: ["src"] });
  });
  const started = Date.now();
  await page.goto(PAGE);
  await page.waitForFunction(() => window["chartMs"] !== undefined, null, { timeout: 60_000 });
  const { chartMs, chartAt } = await page.evaluate(() => ({ chartMs: window["chartMs"], chartAt: window["chartAt"] }));
  const readyMs = Number(await page.locator("body").getAttribute("data-ready-ms"));
  // What arrived after the chart (the tools' module, fetched once the tools ask for it).
  await page.waitForTimeout(3000);
  await context.close();
  const first = fetched.filter((f) => f.at <= chartAt);
  const later = fetched.filter((f) => f.at > chartAt);
  const sum = (fs, k) => fs.reduce((n, f) => n + f[k], 0);
  const byKind = {};
  for (const f of first) {
    const k = kind(f.url);
    byKind[k] ??= { raw: 0, gz: 0 };
    byKind[k].raw += f.raw;
    byKind[k].gz += f.gz;
  }
  return { chartMs, readyMs, wallMs: chartAt - started, firstRaw: sum(first, "raw"), firstGz: sum(first, "gz"), byKind,
    files: first.length, wasm: first.filter((f) => f.url.endsWith(".wasm")).map((f) => `${f.url} ${f.gz}`),
    laterGz: sum(later, "gz"), later: later.map((f) => f.url) };
}

const runs = [];
try {
  await coldLoad(); // a first load off the record: the server and the disk warm up
  for (let i = 0; i < RUNS; i++) runs.push(await coldLoad());
} finally {
  await browser.close();
  server.kill();
}
const chart = runs.map((r) => r.chartMs);
const last = runs[runs.length - 1];
console.log(JSON.stringify({
  runs: RUNS,
  first_chart_ms_median: Math.round(median(chart)),
  first_chart_ms_min: Math.round(Math.min(...chart)),
  first_chart_ms_each: chart.map(Math.round),
  ready_ms_median: Math.round(median(runs.map((r) => r.readyMs))),
  first_load_bytes_raw: last.firstRaw,
  first_load_bytes_gz: last.firstGz,
  first_load_by_kind: last.byKind,
  first_load_files: last.files,
  first_load_wasm: last.wasm,
  after_chart_bytes_gz: last.laterGz,
  after_chart_files: last.later,
}, null, 1));
