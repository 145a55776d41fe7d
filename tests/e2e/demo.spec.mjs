// The demo on load: complete, the same numbers as the native CLI, under a sub-path
// and at phone width.
import { test, expect } from "@playwright/test";
import { downloadText, nativeAnalysis, open, recordCount, shot, tab, upload, watchErrors } from "./helpers.mjs";
import { SUBPATH } from "./ports.mjs";

const percent = (x) => `${(x * 100).toFixed(1)}%`;

// How fast it renders is bench/web/timings.mjs's to measure (a bound here fails under load).
test("1. the demo renders on load", async ({ page }) => {
  const errors = watchErrors(page);
  const started = Date.now();
  await open(page);
  const elapsed = Date.now() - started;
  const inPage = Number(await page.locator("body").getAttribute("data-ready-ms")); // since navigation start
  console.log(`data-ready after ${elapsed} ms (goto to ready), ${inPage} ms (navigation start to ready, in page)`);

  await expect(page.getByRole("tab", { name: "Results" })).toHaveAttribute("aria-selected", "true");
  const chart = page.locator("#chart");
  await expect(chart).toBeVisible();
  expect(await chart.getAttribute("src")).toMatch(/^blob:/);
  await expect(chart).toHaveAttribute("alt", /pass rate by concern and language/);
  expect(await chart.evaluate((img) => img.complete && img.naturalWidth > 100)).toBe(true);
  await expect(page.locator("#groups tbody tr")).toHaveCount(9); // 3 concerns x 3 languages
  await expect(page.locator("#badge-simulated")).toHaveText("SIMULATED model");
  await expect(page.locator("#records tbody tr")).toHaveCount(25);
  await expect(page.locator("#rec-range")).toHaveText(`Records 1–25 of ${nativeAnalysis().records}`);
  await expect.poll(() => recordCount(page)).toBe(nativeAnalysis().records);

  // Paging and filtering go through the worker.
  await page.getByRole("button", { name: "Next page" }).click();
  await expect(page.locator("#rec-range")).toHaveText(/^Records 26–50 of/);
  await page.getByLabel("Status", { exact: true }).selectOption("refused");
  await expect(page.locator("#rec-range")).toHaveText(`Records 1–${Math.min(25, nativeAnalysis().status_counts.refused)} of ${nativeAnalysis().status_counts.refused}`);
  await expect(page.locator("#records tbody td.status").first()).toHaveText("refused");
  await page.getByLabel("Status", { exact: true }).selectOption("");

  await shot(page, "results-1280");
  expect(errors).toEqual([]);
});

test("2. the page computes the same numbers as the native CLI", async ({ page }) => {
  await open(page);
  const native = nativeAnalysis();
  // The numbers as the page shows them.
  const rows = page.locator("#groups tbody tr");
  await expect(rows).toHaveCount(native.groups.length);
  for (const [i, g] of native.groups.entries()) {
    await expect(rows.nth(i).locator("th")).toHaveText(g.label);
    await expect(rows.nth(i).locator("td").nth(1)).toHaveText(percent(g.pass.rate));
  }
  // The numbers as the page computed them: the bundle downloaded from the Share tab.
  await tab(page, "Share");
  const { name, text } = await downloadText(page, "Download bundle");
  expect(name).toBe("evenhand-bundle.json");
  const bundle = JSON.parse(text);
  expect(bundle.format).toBe("evenhand-bundle");
  expect(bundle.results).toEqual(native); // every number, bit for bit after JSON
  expect(bundle.records).toHaveLength(native.records);

  // Grouping differently changes the numbers, and the bundle follows.
  await tab(page, "Results");
  await page.getByRole("checkbox", { name: "language" }).uncheck();
  await page.getByRole("button", { name: "Apply" }).click();
  await expect(page.locator("#groups tbody tr")).toHaveCount(3);
  await tab(page, "Share");
  const regrouped = JSON.parse((await downloadText(page, "Download bundle")).text);
  expect(regrouped.results.settings.group_by).toEqual(["concern"]);
  expect(regrouped.results.overall).toEqual(native.overall);

  // A setting out of range is refused in place; the table stays as it was.
  await tab(page, "Results");
  await page.getByLabel("Confidence level (0.5–1)").fill("1.5");
  await page.getByRole("button", { name: "Apply" }).click();
  await expect(page.locator("#settings-error")).toContainText("settings: confidence: expected a confidence level from 0.5");
  await expect(page.locator("#groups tbody tr")).toHaveCount(3);
});

test("10. the dist build works under a sub-path", async ({ page }) => {
  const errors = watchErrors(page);
  const requests = [];
  page.on("request", (r) => requests.push(r.url()));
  await open(page, `${SUBPATH}/some/project/#tools/results`);
  await expect(page.locator("#groups tbody tr")).toHaveCount(9);
  await expect(page.locator("#chart")).toBeVisible();
  await expect(page.locator("#badge-simulated")).toBeVisible();
  // The full module is fetched once the first chart is drawn (app.js: the tools' calls on load
  // wait for it), so it may arrive a moment after the table: wait for it, then check every request.
  await expect.poll(() => requests.some((u) => u.endsWith("/some/project/pkg/evenhand_bg.wasm"))).toBe(true);
  const outside = requests.filter((u) => u.startsWith("http") && !u.startsWith(`${SUBPATH}/some/project/`));
  expect(outside).toEqual([]);
  // The server root really holds no page: everything came from the sub-path.
  expect((await page.request.get(`${SUBPATH}/index.html`)).status()).toBe(404);
  expect(errors).toEqual([]);
});

test("12. phone width: no horizontal page scroll, the demo renders", async ({ page }) => {
  await page.setViewportSize({ width: 390, height: 844 });
  await open(page);
  await expect(page.locator("#groups tbody tr")).toHaveCount(9);
  await expect(page.locator("#chart")).toBeVisible();
  const widths = {};
  for (const name of ["Results", "Design", "Run", "Upload", "Share", "Credits"]) {
    await tab(page, name);
    widths[name] = await page.evaluate(() => document.documentElement.scrollWidth);
    if (name === "Results" || name === "Design") await shot(page, `${name.toLowerCase()}-390`);
  }
  for (const [name, w] of Object.entries(widths)) expect(w, `${name} tab scroll width`).toBeLessThanOrEqual(391);
  // The records table is wider than a phone: it scrolls inside its own box.
  await tab(page, "Results");
  const wrap = page.locator("#records").locator("xpath=..");
  expect(await wrap.evaluate((d) => d.scrollWidth > d.clientWidth)).toBe(true);
  expect(await page.locator("#chart").evaluate((img) => img.getBoundingClientRect().right)).toBeLessThanOrEqual(390);

  // What appears later fits too: the power chart and table, the column-mapping form.
  await tab(page, "Design");
  await page.getByRole("button", { name: "Compute power" }).click();
  await expect(page.locator("#power-chart")).toBeVisible();
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(391);
  await upload(page, "wide.csv", `Model Output,${"a_very_long_column_name_".repeat(4)}\nNo,${"x".repeat(120)}\n`);
  await expect(page.locator("#mapping-form")).toBeVisible();
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(391);
  await shot(page, "upload-mapping-390");
});
