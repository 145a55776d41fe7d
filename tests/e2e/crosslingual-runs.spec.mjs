// The Cross-lingual tab's provider runs through the Run tab, against the local mock provider
// (tests/mock/mock_provider.py, started per test on a free port): simulated responses are
// embedded by the mock's embedding model and the vectors drive PERMANOVA; an LLM judge run's
// replies join the detectors' agreement; and a precomputed distance matrix is uploaded, with a
// bad file's error naming its line and column.
import { test, expect } from "@playwright/test";
import { mkdirSync, readFileSync } from "node:fs";
import { counts, openCrossLingualFixture, runOnMock, startMock, startOnMock, tab, watchErrors } from "./helpers.mjs";

const OUT = "e2e/out";
const SAMPLES = 2;

/** A screenshot of one part of the page (`locator`), small enough to read. */
const shot = (locator, name) => {
  mkdirSync(OUT, { recursive: true });
  return locator.screenshot({ path: `${OUT}/${name}.png` });
};

async function downloadText(page, locator) {
  const [d] = await Promise.all([page.waitForEvent("download"), locator.click()]);
  return readFileSync(await d.path(), "utf8");
}

/** The fixture set run on the simulated model in en and de; returns the number of records. */
async function simulated(page) {
  await openCrossLingualFixture(page);
  const modes = await page.locator("#crosslingual-modes input:checked").count();
  await page.getByLabel("Samples per question").fill(String(SAMPLES));
  await page.getByRole("button", { name: "Run the simulated model" }).click();
  const n = 6 * 2 * modes * SAMPLES;
  await expect(page.locator("#crosslingual-run-result")).toContainText(`answered ${n} prompts`);
  return n;
}

test("embeddings from the Run tab drive PERMANOVA; the judge joins the agreement table", async ({ page }) => {
  test.setTimeout(180_000);
  const errors = watchErrors(page);
  const mock = await startMock();
  try {
    const n = await simulated(page);
    await expect(page.locator("#crosslingual-embeddings-info")).not.toContainText("model"); // simulated vectors, no model

    // Embeddings: handed to the Run tab, 5 texts per call, on the mock's embedding model.
    await page.getByRole("button", { name: "Embed the responses via the Run tab" }).click();
    await expect(page.locator("#run-handed-text")).toContainText(`${n} responses to embed`);
    // A provider that makes no embeddings is refused before anything is planned.
    await page.locator("#run-t1-provider").selectOption("anthropic");
    await page.locator("#run-t1-models").fill("claude-x");
    await page.getByRole("button", { name: "Plan" }).click();
    await expect(page.locator("#run-plan-error")).toContainText("makes no embeddings");
    await page.locator("#run-batch-size").fill("5");
    await runOnMock(page, mock, "mock-embed", Math.ceil(n / 5));
    await shot(page.locator("#run-live"), "crosslingual-runs-run-tab");
    expect((await mock.stats()).total).toBe(Math.ceil(n / 5));

    const jsonl = await downloadText(page, page.getByRole("button", { name: "Download embeddings (JSONL)" }));
    const lines = jsonl.trim().split("\n").map((l) => JSON.parse(l));
    expect(lines.length).toBe(n);
    expect(new Set(lines.map((l) => l.id)).size).toBe(n);
    expect(lines.every((l) => l.model === "mock-embed" && l.embedding.length === 8)).toBe(true);

    await page.getByRole("button", { name: "Use the vectors in the Cross-lingual tab" }).click();
    await expect(page.getByRole("tab", { name: "Cross-lingual" })).toHaveAttribute("aria-selected", "true");
    await expect(page.locator("#crosslingual-runs-result")).toContainText(`${n} responses got a vector of mock-embed`);
    await expect(page.locator("#crosslingual-embeddings-info")).toHaveText(`${n} responses have an embedding (dimension 8, model mock-embed).`);

    await page.getByLabel("Permutations per test").fill("99");
    await page.getByRole("button", { name: "Run PERMANOVA" }).click();
    const rows = page.locator("#crosslingual-permanova-table tbody tr");
    await expect(rows).toHaveCount(1 + 3); // de–en, overall and in each of the 3 topics
    await expect(rows.first().locator("th")).toHaveText("de – en");
    await expect(page.locator("#crosslingual-perm-family")).toContainText("response embeddings, chord distance");
    await expect(page.locator("#crosslingual-perm-family")).toContainText("PERMDISP around the group centroid");
    const overall = (await rows.first().locator("td").nth(1).innerText()).split("+").map((x) => Number(x.trim()));
    expect(overall[0] + overall[1]).toBe(n);
    const f = Number(await rows.first().locator("td").nth(2).innerText());
    expect(Number.isFinite(f) && f >= 0).toBe(true);
    await expect(page.locator("#crosslingual-pca-chart")).toBeVisible();
    await shot(page.locator("#crosslingual-permanova"), "crosslingual-runs-permanova");

    // The LLM judge: one chat call per response; the replies become the judge detector.
    await page.getByRole("button", { name: "Judge refusals via the Run tab" }).click();
    await expect(page.locator("#run-handed-text")).toContainText(`${n} judge cases`);
    await runOnMock(page, mock, "mock-judge", n);
    await page.getByRole("button", { name: "Use the verdicts in the Cross-lingual tab" }).click();
    await expect(page.getByRole("tab", { name: "Cross-lingual" })).toHaveAttribute("aria-selected", "true");
    await expect(page.locator("#crosslingual-runs-result")).toContainText(`${n} judge verdicts from mock-judge`);
    const agreement = page.locator("#crosslingual-agreement tbody tr", { hasText: "judge" }).first();
    await expect(agreement).toBeVisible();
    await expect(agreement.locator("td").first()).toHaveText(String(n));
    await page.getByLabel("Refusal detector").selectOption("judge");
    await expect(page.locator("#crosslingual-summary")).toContainText(`${n} of ${n} responses judged by the judge detector`);
    const csv = await downloadText(page, page.getByRole("button", { name: "Download records (CSV)" }));
    expect(csv.split("\n")[0]).toContain("judge_verdict");
    expect((csv.match(/,mock-judge/g) ?? []).length).toBe(n); // judge_model on every record
    await shot(page.locator("#crosslingual-agreement"), "crosslingual-runs-judge");
    expect(errors).toEqual([]);
  } finally {
    mock.stop();
  }
});

/** A tiny CSV reader for the records file (quoted cells with commas and doubled quotes). */
function parseCsv(text) {
  const rows = [[]];
  let cell = "";
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') cell += text[++i];
      else if (c === '"') quoted = false;
      else cell += c;
    } else if (c === '"') quoted = true;
    else if (c === ",") rows.at(-1).push(cell), (cell = "");
    else if (c === "\n") rows.at(-1).push(cell), (cell = ""), rows.push([]);
    else if (c !== "\r") cell += c;
  }
  if (cell || rows.at(-1).length) rows.at(-1).push(cell);
  return rows.filter((r) => r.length > 1);
}

test("a precomputed distance matrix runs PERMANOVA; a bad one names its line and column", async ({ page }) => {
  test.setTimeout(120_000);
  const errors = watchErrors(page);
  await page.addInitScript(() => {
    const make = URL.createObjectURL.bind(URL);
    window.svgOfBlob = new Map();
    URL.createObjectURL = (blob) => {
      const url = make(blob);
      if (blob.type === "image/svg+xml") blob.text().then((t) => window.svgOfBlob.set(url, t));
      return url;
    };
  });
  const n = await simulated(page);
  const recordsCsv = await downloadText(page, page.getByRole("button", { name: "Download records (CSV)" }));
  const [header, ...records] = parseCsv(recordsCsv);
  // The records alone, without their vectors: the matrix stands in for them.
  await page.locator("#crosslingual-records-file").setInputFiles({ name: "records.csv", mimeType: "text/csv", buffer: Buffer.from(recordsCsv) });
  await expect(page.locator("#crosslingual-embeddings-info")).toHaveText("No response embeddings loaded.");
  const id = header.indexOf("record_id");
  const lang = header.indexOf("language");
  expect(records.length).toBe(n);
  // German responses sit 10 apart from English ones; within a language, up to 0.4 apart.
  const x = records.map((r, i) => (r[lang] === "de" ? 10 : 0) + (i % 5) * 0.1);
  const ids = records.map((r) => r[id]);
  const matrix = (cell) => `id,${ids.join(",")}\n` +
    ids.map((rid, i) => `${rid},${ids.map((_, j) => cell(i, j, Math.abs(x[i] - x[j]).toFixed(6))).join(",")}`).join("\n") + "\n";
  const upload = (name, text) => page.getByLabel(/precomputed distance matrix/).setInputFiles({ name, mimeType: "text/csv", buffer: Buffer.from(text) });

  await upload("distances.csv", matrix((i, j, d) => d));
  await expect(page.locator("#crosslingual-distances-result")).toContainText(`distances between ${n} responses; ${n} of the loaded records have a row`);
  await expect(page.getByLabel("Distances from")).toHaveValue("matrix");
  await page.getByLabel("Permutations per test").fill("99");
  await page.getByRole("button", { name: "Run PERMANOVA" }).click();
  await expect(page.locator("#crosslingual-perm-family")).toContainText("uploaded distance matrix distances.csv");
  const first = page.locator("#crosslingual-permanova-table tbody tr").first();
  await expect(first.locator("td").nth(1)).toHaveText(`${n / 2} + ${n / 2}`);
  expect(Number(await first.locator("td").nth(3).innerText())).toBeGreaterThan(0.99); // R²: language explains nearly all
  await expect(first.locator("td").nth(4)).toHaveText("0.010"); // p = 1/(99 + 1), the smallest there is
  // The scatter comes from the matrix: its principal coordinates, the two languages apart.
  const chart = page.locator("#crosslingual-pca-chart");
  await expect(chart).toBeVisible();
  await expect(chart).toHaveAttribute("alt", "2-D principal coordinates of the uploaded distance matrix, coloured by language");
  // The page's CSP keeps blob: out of fetch, so the SVG is read as it was handed to the <img>.
  const svg = () => chart.evaluate((img) => window.svgOfBlob?.get(img.src) ?? "");
  await expect.poll(svg).toContain("Distance matrix, 2-D principal coordinates");
  await expect.poll(svg).toContain("from distances.csv");
  await expect.poll(svg).toContain("PCo1 (100% of variance) across, PCo2 (0%) up"); // one line: the matrix is 1-D

  // Row 3 (line 5), column 2 (file column 4) disagrees with its mirror, which is named first
  // (the check reads the upper triangle).
  await upload("asymmetric.csv", matrix((i, j, d) => (i === 3 && j === 2 ? "7.5" : d)));
  const box = page.locator("#crosslingual-distances-result");
  await expect(box).toContainText("asymmetric.csv, line 4, column 5:");
  await expect(box).toContainText("but 7.5 at line 5, column 4; expected a symmetric matrix");
  await upload("ghost.csv", `id,${ids[0]},ghost\n${ids[0]},0,1\nghost,1,0\n`);
  await expect(box).toContainText('ghost.csv, line 1, column 3: id "ghost" matches no loaded record');
  await upload("short.csv", `id,${ids[0]},${ids[1]}\n${ids[0]},0,1\n${ids[1]},1\n`);
  await expect(box).toContainText("short.csv, line 3");
  await shot(page.locator("#crosslingual-permanova"), "crosslingual-runs-distances");
  expect(errors).toEqual([]);
});

test("an embedding run survives a reload: resumed without re-sending stored calls, every vector kept", async ({ page }) => {
  test.setTimeout(180_000);
  const errors = watchErrors(page);
  const mock = await startMock(["--latency-ms", "150"]);
  try {
    const n = await simulated(page);
    await page.getByRole("button", { name: "Embed the responses via the Run tab" }).click();
    await page.locator("#run-batch-size").fill("1");
    await startOnMock(page, mock, "mock-embed", n, 1);
    await expect.poll(async () => Number((await counts(page)).answered ?? 0), { timeout: 30_000 }).toBeGreaterThanOrEqual(4);
    await page.reload();
    await expect(page.locator("body")).toHaveAttribute("data-ready", "1", { timeout: 15_000 });
    const sentBefore = (await mock.stats()).total;

    // The same simulated records again (same seed, same ids), then the stored run resumes.
    const again = await simulated(page);
    expect(again).toBe(n);
    await tab(page, "Run");
    const offer = page.locator("#run-resume .resume-item");
    await expect(offer).toContainText(`of ${n} answered`);
    await offer.getByRole("button", { name: "Resume" }).click();
    await expect.poll(async () => (await counts(page)).state, { timeout: 60_000 }).toBe("finished");
    expect(await counts(page)).toMatchObject({ answered: String(n), total: String(n) });
    // One call per text; only the one in flight at the reload (1 at once) may have gone twice.
    const total = (await mock.stats()).total;
    expect(total).toBeGreaterThanOrEqual(n);
    expect(total).toBeLessThanOrEqual(n + 1);
    expect(sentBefore).toBeLessThan(n);
    console.log(`embedding run: ${sentBefore} of ${n} calls sent before the reload, ${total} requests in all`);

    const jsonl = await downloadText(page, page.getByRole("button", { name: "Download embeddings (JSONL)" }));
    expect(jsonl.trim().split("\n").length).toBe(n);
    await page.getByRole("button", { name: "Use the vectors in the Cross-lingual tab" }).click();
    await expect(page.locator("#crosslingual-embeddings-info")).toHaveText(`${n} responses have an embedding (dimension 8, model mock-embed).`);
    expect(errors).toEqual([]);
  } finally {
    mock.stop();
  }
});

test("the texts to embed also go to the Run tab as a file; a bad file names its line", async ({ page }) => {
  const errors = watchErrors(page);
  const n = await simulated(page);
  const text = await downloadText(page, page.getByRole("button", { name: "Download the texts to embed" }));
  const items = text.trim().split("\n").map((l) => JSON.parse(l));
  expect(items.length).toBe(n);
  expect(items.every((i) => i.id && !/\s/.test(i.id) && i.text)).toBe(true);

  await tab(page, "Run");
  await expect(page.locator("#panel-run")).toHaveAttribute("data-ready", "1", { timeout: 15_000 });
  await expect(page.locator("#run-source-handed-label")).toBeHidden(); // nothing was handed over
  await page.locator("#run-t1-provider").selectOption("ollama");
  await page.locator("#run-t1-models").fill("nomic-embed-text");
  await page.getByLabel("Texts to embed (an embedding run)").check();
  await page.getByLabel("Texts per embedding call").fill("4");
  const file = (name, body) => page.getByLabel("Choose a texts-to-embed file").setInputFiles({ name, mimeType: "application/jsonl", buffer: Buffer.from(body) });
  await file("texts.jsonl", text);
  await page.getByRole("button", { name: "Plan" }).click();
  await expect(page.locator("#run-plan-summary")).toContainText(`${Math.ceil(n / 4)} calls`);
  await expect(page.locator("#run-estimate")).toContainText("nomic-embed-text");

  const lines = text.trim().split("\n");
  await file("dup.jsonl", `${lines[0]}\n${lines[0]}\n`);
  await page.getByRole("button", { name: "Plan" }).click();
  await expect(page.locator("#run-plan-error")).toContainText("dup.jsonl:2");
  await expect(page.locator("#run-plan-error")).toContainText("duplicate id");
  expect(errors).toEqual([]);
});

test("the questions run on a provider through the Run tab and come back as the tab's records", async ({ page }) => {
  test.setTimeout(120_000);
  const errors = watchErrors(page);
  const mock = await startMock();
  try {
    await openCrossLingualFixture(page);
    const n = 6 * 2 * (await page.locator("#crosslingual-modes input:checked").count());
    await page.getByRole("button", { name: "Run these cases via the Run tab" }).click();
    await expect(page.locator("#run-handed-text")).toContainText(`${n} cases`);
    await runOnMock(page, mock, "mock-a", n);
    await page.getByRole("button", { name: "Use the records in the Cross-lingual tab" }).click();
    await expect(page.getByRole("tab", { name: "Cross-lingual" })).toHaveAttribute("aria-selected", "true");
    await expect(page.locator("#crosslingual-runs-result")).toContainText(`${n} records of the run`);
    await expect(page.locator("#crosslingual-summary")).toContainText(`${n} of ${n} responses judged`);
    await expect(page.locator("#crosslingual-model-rates tbody")).toContainText("mock-a");
    await expect(page.locator("#crosslingual-embeddings-info")).toHaveText("No response embeddings loaded.");
    expect(errors).toEqual([]);
  } finally {
    mock.stop();
  }
});

test("PERMANOVA's permutations run on the pool's workers; Cancel stops them and the pool runs again", async ({ page }) => {
  test.setTimeout(120_000);
  const errors = watchErrors(page);
  await simulated(page);
  const pool = () => page.workers().filter((w) => w.url().endsWith("/permanova-worker.js"));
  const size = await page.evaluate(() => Math.min(navigator.hardwareConcurrency || 2, 4));
  // Enough permutations that the family takes seconds: Cancel lands between two chunks.
  await page.getByLabel("Permutations per test").fill("100000");
  await page.getByRole("button", { name: "Run PERMANOVA" }).click();
  const progress = page.locator("#crosslingual-perm-progress");
  await expect.poll(() => progress.evaluate((p) => p.value)).toBeGreaterThan(0);
  await page.locator("#crosslingual-perm-cancel").click();
  await expect(page.locator("#crosslingual-perm-error")).toContainText("Cancelled after");
  await expect(page.locator("#crosslingual-perm-results")).toBeHidden();
  expect(pool().length).toBe(size);
  // The same workers run the next family to the end.
  await page.getByLabel("Permutations per test").fill("99");
  await page.getByRole("button", { name: "Run PERMANOVA" }).click();
  await expect(page.locator("#crosslingual-perm-family")).toContainText("response embeddings, chord distance");
  await expect(page.locator("#crosslingual-perm-error")).toBeHidden();
  await expect(page.locator("#crosslingual-permanova-table tbody tr").first().locator("td").nth(4)).toHaveText("0.010");
  expect(pool().length).toBe(size);
  expect(errors).toEqual([]);
});
