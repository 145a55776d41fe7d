// The two times the e2e tests used to bound (they failed under load, so they are measured here):
//   demo     the demo's Results on load: navigation start to body[data-ready] (the page's own
//            data-ready-ms) and goto to ready as seen from outside (goal: 2 s)
//   example  the example study's report: from the click on "Open the example study" to its last
//            section on screen, with the page's own split (data-open/report/draw/render-ms on the
//            report step) (goal: 5 s; it was 2 s before the report grew)
// Each run is a fresh browser context (cold wasm; the HTTP cache of a first visit, no service
// worker). Prints one JSON line: every run, the median of each figure, the load average.
// Usage: node bench/web/timings.mjs [PORT] [RUNS]   (default 8096, 5; needs ./build.sh build)
import { launch, loadAverage, median, serve } from "./chromium.mjs";

const PORT = Number(process.argv[2] ?? 8096);
const RUNS = Number(process.argv[3] ?? 5);
const PAGE = `http://127.0.0.1:${PORT}/`;
const server = await serve(process.env.WWW || "www", PORT);
const { browser } = await launch();

async function demo() {
  const context = await browser.newContext({ serviceWorkers: "block" });
  const page = await context.newPage();
  const started = Date.now();
  await page.goto(`${PAGE}#tools/results`);
  await page.waitForSelector("body[data-ready='1']", { timeout: 120_000 });
  const out = { demo_goto_to_ready_ms: Date.now() - started,
    demo_in_page_ms: Number(await page.locator("body").getAttribute("data-ready-ms")) };
  await context.close();
  return out;
}

async function example() {
  const context = await browser.newContext({ serviceWorkers: "block" });
  const page = await context.newPage();
  await page.goto(PAGE);
  await page.waitForSelector("body[data-ready='1']", { timeout: 120_000 });
  const started = Date.now();
  await page.getByRole("link", { name: "Open the example study" }).click();
  await page.locator("#study-section-divergence").waitFor({ state: "visible", timeout: 120_000 });
  const out = { example_click_to_report_ms: Date.now() - started };
  const step = page.locator('section.study-step[data-step="report"]');
  for (const name of ["open", "report", "draw", "render"]) out[`example_${name}_ms`] = Number(await step.getAttribute(`data-${name}-ms`));
  await context.close();
  return out;
}

const runs = [];
try {
  for (let i = 0; i < RUNS; i++) {
    const run = { load_average: loadAverage(), ...(await demo()), ...(await example()) };
    console.error(JSON.stringify(run));
    runs.push(run);
  }
} finally {
  await browser.close();
  server.kill();
}
const med = Object.fromEntries(Object.keys(runs[0]).filter((k) => k !== "load_average").map((k) => [k, median(runs.map((r) => r[k]))]));
console.log(JSON.stringify({ load_average: loadAverage(), median: med, goals_ms: { demo: 2000, example: 5000 }, runs }));
