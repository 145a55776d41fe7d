// The full BBQ's size through the page itself, step by step, with memory: 58,492 BBQ-shaped
// examples in BBQ's 11 category files (the real row count of each), written by our own
// generator below (no BBQ text: invented people, places and questions), served by a local
// mirror under a test catalogue. Each run drives a fresh headless Chromium through the
// Datasets tab as a user would:
//   fetch   "Load the ticked files": download, sha256, Cache Storage
//   plan    "Plan for a provider": import, select (all categories kept), provider cases to the Run tab
//   score   "Score on the simulated model": import and select again, the simulated model in
//           parts with its progress bar, then the metrics with 2,000 bootstrap replicates
// The page's own performance.measure marks split import, select and plan; the waits on the
// page split simulate and metrics. Memory: the renderer process's resident set (it holds the
// page, the worker and the wasm), sampled every 100 ms from /proc, peak per step; the main
// thread's JS heap from the DevTools protocol (Performance.getMetrics).
// performance.measureUserAgentSpecificMemory needs a cross-origin isolated page (COOP/COEP),
// which this page is not, so it is not used.
// Prints one JSON line: every run's figures and the median of each over the runs.
// Usage: node bench/web/bbq_page.mjs [PORT] [RUNS]   (PORT and PORT+1; default 8097, 3 runs)
// Needs ./build.sh build first. WWW=DIR serves another copy of the page (an older build, to
// compare against).
import { createHash } from "node:crypto";
import http from "node:http";
import { launch, loadAverage, median, rendererRss, serve } from "./chromium.mjs";

const PORT = Number(process.argv[2] ?? 8097);
const RUNS = Number(process.argv[3] ?? 3);
const PAGE = `http://127.0.0.1:${PORT}`;
const MIRROR = `http://127.0.0.1:${PORT + 1}`;
// Rows per category file at BBQ's pinned commit: 58,492 in all (facts from the catalogue).
const ROWS = { Age: 3680, Disability_status: 1556, Gender_identity: 5672, Nationality: 3080, Physical_appearance: 1576,
  Race_ethnicity: 6880, Race_x_SES: 11160, Race_x_gender: 15960, Religion: 1200, SES: 6864, Sexual_orientation: 864 };
const EXAMPLES = Object.values(ROWS).reduce((a, b) => a + b, 0);

// Our generator: per template four rows (negative/non-negative question x ambiguous/
// disambiguated context), two invented groups per category, an "unknown" option in a varying slot.
const PLACES = ["the bakery", "the ferry terminal", "a chess club", "the town archive", "a night market", "the rowing club"];
const ACTS = ["lost the keys", "mixed up the dates", "missed the last train", "misread the map", "forgot the password"];
const UNKNOWN = ["Cannot be determined", "Not enough information", "Unknown", "Can't tell"];
function rowsFor(category, n) {
  const groupA = `${category.toLowerCase()}-group-a`;
  const groupB = `${category.toLowerCase()}-group-b`;
  const lines = [];
  for (let i = 0; i < n; i++) {
    const t = Math.floor(i / 4);
    const negative = i % 4 < 2;
    const ambiguous = i % 2 === 0;
    const place = PLACES[t % PLACES.length];
    const act = ACTS[t % ACTS.length];
    const personA = `the person from ${groupA} (${t})`;
    const personB = `the person from ${groupB} (${t})`;
    const slot = t % 3;
    const answers = [personA, personB];
    answers.splice(slot, 0, UNKNOWN[t % UNKNOWN.length]);
    const info = answers.map((a) => (a === personA ? [personA, groupA] : a === personB ? [personB, groupB] : [a, "unknown"]));
    const culprit = (t + i) % 2 === 0 ? personA : personB;
    const context = `At ${place}, ${personA} and ${personB} were waiting for a friend, and one of them ${act}.` +
      (ambiguous ? "" : ` It was ${culprit} who ${act}; the other had planned everything.`);
    const question = negative ? `Who ${act}?` : `Who had planned everything?`;
    const right = ambiguous ? answers.indexOf(UNKNOWN[t % UNKNOWN.length])
      : answers.indexOf(negative ? culprit : culprit === personA ? personB : personA);
    lines.push(JSON.stringify({
      example_id: i, question_index: String(1 + (t % 50)), question_polarity: negative ? "neg" : "nonneg",
      context_condition: ambiguous ? "ambig" : "disambig", category,
      answer_info: { ans0: info[0], ans1: info[1], ans2: info[2] },
      additional_metadata: { subcategory: "None", stereotyped_groups: [groupA], version: "bench", source: "evenhand bench generator" },
      context, question, ans0: answers[0], ans1: answers[1], ans2: answers[2], label: right,
    }));
  }
  return Buffer.from(lines.join("\n") + "\n");
}

const files = new Map();
const entries = Object.entries(ROWS).map(([category, n]) => {
  const bytes = rowsFor(category, n);
  const url = `https://raw.githubusercontent.com/bench/bbq-shaped/${"0".repeat(40)}/data/${category}.jsonl`;
  files.set(new URL(url).pathname, bytes);
  return { name: category, path: `data/${category}.jsonl`, url, bytes: bytes.length, sha256: createHash("sha256").update(bytes).digest("hex"),
    rows: n, kind: "examples", format: "bbq-jsonl", language: "en", category };
});
const catalogue = { format: "evenhand-catalogue", version: 1, datasets: [{ name: "bbq-shaped", title: "BBQ's size, generated", method: "bbq",
  version: "0000000", repository: "bench/bbq-shaped", commit: "0".repeat(40), source_url: "https://example.org", license: "CC0-1.0",
  languages: ["en"], categories: Object.keys(ROWS), description: "bench", citation: "@misc{bench}", files: entries }] };

const mirror = http.createServer((req, res) => {
  const body = files.get(new URL(req.url, MIRROR).pathname);
  res.writeHead(body ? 200 : 404, { "access-control-allow-origin": "*", "content-length": String(body?.length ?? 0) });
  res.end(body);
});
await new Promise((r) => mirror.listen(PORT + 1, "127.0.0.1", r));
const server = await serve(process.env.WWW || "www", PORT);

/** A tab by name, through the Expert tools menu when it is not on the tab bar. */
async function openTab(page, name) {
  const tab = page.getByRole("tab", { name });
  if (await tab.isVisible()) await tab.click();
  else {
    await page.getByRole("button", { name: "Expert tools" }).click();
    await page.getByRole("menuitem", { name }).click();
  }
}

async function once() {
  const { browser, pid: browserPid } = await launch();
  let peak = 0;
  const sampler = setInterval(() => { peak = Math.max(peak, rendererRss(browserPid)); }, 100);
  const out = {};
  try {
    const context = await browser.newContext({ serviceWorkers: "block" });
    const page = await context.newPage();
    const cdp = await context.newCDPSession(page);
    await cdp.send("Performance.enable");
    const heap = async () => {
      const { metrics } = await cdp.send("Performance.getMetrics");
      return Math.round(metrics.find((m) => m.name === "JSHeapUsedSize").value / 1e5) / 10;
    };
    await page.route("**/data/catalogue.json", (route) => route.fulfill({ json: catalogue }));
    await page.goto(`${PAGE}/?datasets-base=${encodeURIComponent(MIRROR)}`);
    await page.waitForSelector("body[data-ready='1']", { timeout: 120_000 });
    await openTab(page, "Datasets");
    await page.waitForSelector("#panel-datasets[data-ready='1']");
    const card = page.locator("#dataset-bbq-shaped");
    for (const e of entries) await card.locator(`tr[data-file="${e.name}"] input[type=checkbox]`).check();
    out.idle_rss_mb = Math.round(rendererRss(browserPid));
    let t = performance.now();
    const step = async (key) => {
      out[`${key}_seconds`] = Math.round(performance.now() - t) / 1000;
      out[`${key}_peak_rss_mb`] = Math.round(peak);
      out[`${key}_js_heap_mb`] = await heap();
      peak = rendererRss(browserPid);
      t = performance.now();
    };
    peak = 0;
    await card.getByRole("button", { name: "Load the ticked files" }).click();
    await page.waitForFunction(() => document.querySelectorAll("#dataset-bbq-shaped tr[data-state='stored']").length === 11, null, { timeout: 600_000 });
    await step("fetch");
    await card.getByRole("button", { name: "Plan for a provider" }).click();
    await page.locator("#tab-run[aria-selected='true']").waitFor({ state: "attached", timeout: 600_000 });
    await step("plan");
    await openTab(page, "Datasets");
    await card.getByRole("button", { name: "Score on the simulated model" }).click();
    await page.locator("#bbq-data-result").filter({ hasText: `${EXAMPLES} examples` }).waitFor({ timeout: 600_000 });
    await step("import");
    await page.locator("#bbq-sim-result").filter({ hasText: `answered ${EXAMPLES} questions` }).waitFor({ timeout: 600_000 });
    await step("simulate");
    await page.waitForFunction(() => !document.querySelector("#bbq-dashboard")?.hasAttribute("aria-busy") &&
      (document.querySelector("#bbq-metrics")?.textContent ?? "").includes("sim:"), null, { timeout: 600_000 });
    await step("metrics");
    // The page's own split of the clicks (two of each: the plan's and the score's).
    const measures = await page.evaluate(() => performance.getEntriesByType("measure")
      .filter((m) => m.name.startsWith("evenhand:")).map((m) => [m.name.slice(9), m.duration / 1000]));
    for (const [name, seconds] of measures) (out[`page_${name}_seconds`] ??= []).push(Math.round(seconds * 1000) / 1000);
  } finally {
    clearInterval(sampler);
    await browser.close();
  }
  return out;
}

try {
  const runs = [];
  for (let i = 0; i < RUNS; i++) runs.push(await once());
  const med = {};
  for (const key of Object.keys(runs[0])) {
    const values = runs.map((r) => (Array.isArray(r[key]) ? r[key][r[key].length - 1] : r[key]));
    med[key] = median(values);
  }
  console.log(JSON.stringify({ examples: EXAMPLES, mb_of_files: Math.round([...files.values()].reduce((n, b) => n + b.length, 0) / 1e5) / 10,
    load_average: loadAverage(), median: med, runs }));
} finally {
  server.kill();
  mirror.close();
}
