// The study report's links to the Requirements and Divergence tools (issue 25: "The report's
// link to the expert tool opens that tool with the study's own records, not whatever it last
// held"; the Benchmarks and Cross-lingual links are 25s5 in study-slots.spec.mjs). Each link is
// followed from the example study's report, and a number the tool shows must equal the report's.
import { test, expect } from "@playwright/test";
import { open, shot, tab, watchErrors } from "./helpers.mjs";

/** Opens the example study's report; returns its section of `method`. */
async function exampleSection(page, method) {
  await open(page, "./#study/example");
  const section = page.locator(`#study-section-${method}`);
  await expect(section).toBeVisible({ timeout: 60_000 });
  return section;
}

/** The report's figure row of `figure` and `model` in a section: its cells' texts. */
async function figureRow(section, figure, model) {
  const row = section.locator("table.report-figures tbody tr")
    .filter({ has: section.page().locator("td:nth-child(1)", { hasText: new RegExp(`^${figure}$`) }) })
    .filter({ has: section.page().locator("td:nth-child(2)", { hasText: new RegExp(`^${model}$`) }) });
  await expect(row).toHaveCount(1);
  return row.locator("td").allTextContents();
}

test("25t1. the report's Requirements link opens the tool with the study's records: its counts are the report's", async ({ page }) => {
  const errors = watchErrors(page);
  // The tool holds something else first: a records file of another study's model.
  await open(page, "./#tools/requirements");
  await tab(page, "Requirements");
  // The tab listens for files once its worker calls have set it up (a file picked earlier would
  // go unheard).
  await expect(page.locator("#panel-requirements")).toHaveAttribute("data-ready", "1", { timeout: 30_000 });
  const other = { format_version: 1, record_id: "x1", method: "requirements", case_id: "c1", provider: "test", model: "not-the-study",
    concern: "sexism", language: "en_us", template_id: "t1", prompt: "p", response: "r", status: "ok" };
  await page.locator("#requirements-records-file").setInputFiles({ name: "other.jsonl", mimeType: "application/x-ndjson",
    buffer: Buffer.from(JSON.stringify(other) + "\n") });
  await expect(page.locator("#requirements-run-result")).toContainText("other.jsonl: 1 record loaded");
  // ... and another scenario: the study's records must be judged by the study's requirements.
  const held = JSON.parse(await page.locator("#requirements-json").inputValue());
  held.requirements[0].name = "Held by the tool";
  held.requirements[0].tolerance = 0.99;
  await page.locator("#requirements-json").fill(JSON.stringify(held, null, 2));
  await expect(page.locator("#requirements-validation")).toContainText("Valid");

  const section = await exampleSection(page, "requirements");
  // "… 90 record(s) judged by the scenario's oracles …"
  const judged = Number(/(\d+) record\(s\) judged/.exec(await section.locator("p").first().textContent())?.[1]);
  expect(judged).toBeGreaterThan(0);
  const [, , value, , , , n] = await figureRow(section, "pass rate · sexism · en_us", "sim:fair");

  await section.getByRole("link", { name: "Requirement tests" }).click();
  await expect(page.getByRole("tab", { name: "Requirements" })).toHaveAttribute("aria-selected", "true");
  await expect(page.locator("#requirements-run-result")).toContainText(`Opened from the study “`);
  await expect(page.locator("#requirements-results-summary")).toContainText(`${judged} records judged`, { timeout: 30_000 });
  const groups = page.locator("#requirements-groups");
  await expect(groups).not.toContainText("not-the-study");
  // The editor holds the study's scenario now, checked valid, not the one the tool held.
  const editor = page.locator("#requirements-json");
  await expect(editor).not.toHaveValue(/Held by the tool/);
  expect(JSON.parse(await editor.inputValue()).requirements.length).toBeGreaterThan(0);
  await expect(page.locator("#requirements-validation")).toContainText("Valid");
  // The tool's groups of sim:fair, sexism, en_us (per input and reflection type) add up to the
  // report's figure: the same passed among the same n.
  const rows = groups.locator("tbody tr").filter({ hasText: "sim:fair" }).filter({ hasText: "en_us" }).filter({ hasText: "sexism" });
  expect(await rows.count()).toBeGreaterThan(0);
  let passed = 0;
  let failed = 0;
  for (const cells of await Promise.all((await rows.all()).map((r) => r.locator("td").allTextContents()))) {
    passed += Number(cells[5]);
    failed += Number(cells[6]);
  }
  expect(passed + failed).toBe(Number(n));
  expect(`${(100 * passed / (passed + failed)).toFixed(1)}%`).toBe(value);
  await shot(page, "study-to-requirements");
  expect(errors).toEqual([]);
});

test("25t2. the report's Divergence link opens the tool with the study's records: its CD is the report's", async ({ page }) => {
  const errors = watchErrors(page);
  const section = await exampleSection(page, "divergence");
  const [, , value] = await figureRow(section, "CD · cities", "sim:fair");
  const [, , skewed] = await figureRow(section, "CD · cities", "sim:skewed");

  await section.getByRole("link", { name: "Cultural divergence" }).click();
  await expect(page.getByRole("tab", { name: "Divergence" })).toHaveAttribute("aria-selected", "true");
  await expect(page.locator("#divergence-data-result")).toContainText("Opened from the study “");
  const models = page.locator("#divergence-models");
  const fair = models.locator('tr[data-model="sim:fair"] td[data-metric="cd-cities"]');
  await expect(fair).toBeVisible({ timeout: 30_000 });
  const shown = (cell) => cell.getAttribute("data-value").then((v) => Number(v));
  // The report rounds as it shows; the tool keeps the full value.
  const digits = (text) => (text.split(".")[1] ?? "").length;
  expect((await shown(fair)).toFixed(digits(value))).toBe(value);
  const sk = models.locator('tr[data-model="sim:skewed"] td[data-metric="cd-cities"]');
  expect((await shown(sk)).toFixed(digits(skewed))).toBe(skewed);
  await shot(page, "study-to-divergence");
  expect(errors).toEqual([]);
});
