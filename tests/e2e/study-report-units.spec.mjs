// The study report's presentation (issue 25): one unit per kind of figure in the page and the
// downloaded HTML (rates in percent, differences of rates in pp, never a rate as 0.xxx), the
// divergence axis with round ticks and its unit, the cross-lingual chart naming each model,
// and a print stylesheet that prints the report alone, its tables whole and its chart text at
// 8 pt or more.
import { test, expect } from "@playwright/test";
import { open, shot, watchErrors } from "./helpers.mjs";

// The printable width of A4 less the print stylesheets' 15 mm margins, in CSS px.
const PRINT_WIDTH = Math.floor(((210 - 30) / 25.4) * 96);
const RATE = /^(pass rate|refusal rate|accuracy)/;
const PERCENT = /^-?\d+\.\d%$/;
const POINTS = /^-?\d+\.\d pp$/;
// A rate written as a fraction: "0.862", "1.000".
const FRACTION = /(^|[^\d.])[01]\.\d{3}(?![\d%])/;

async function openExample(page) {
  await open(page, "./#study/example");
  await expect(page.locator('section.study-step[data-step="report"]')).toHaveAttribute("data-ready", "1", { timeout: 30_000 });
  await expect(page.locator("#study-items-table tbody tr").first()).toBeVisible();
}

/** The rows of the tables matching `selector` (or a locator) as arrays of cell texts. */
const rows = (page, selector) => (typeof selector === "string" ? page.locator(selector) : selector).locator("tbody tr")
  .evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll("td, th")].map((td) => td.textContent.trim())));

/** A chart's <text> contents, from the SVG inline (HTML report) or behind an <img> (page). */
const svgTexts = (svg) => [...svg.querySelectorAll("text")].map((t) => t.textContent.trim());

/** True when the numbers are evenly spaced by 1, 2 or 5 × 10^k. */
function round(ticks) {
  if (ticks.length < 3) return false;
  const step = ticks[1] - ticks[0];
  const k = Math.floor(Math.log10(step));
  const mantissa = step / 10 ** k;
  const even = ticks.every((t, i) => Math.abs(t - ticks[0] - i * step) < step * 1e-6);
  const niceStep = [1, 2, 5, 10].some((m) => Math.abs(mantissa - m) < 1e-6);
  const onGrid = ticks.every((t) => Math.abs(t / step - Math.round(t / step)) < 1e-6);
  return even && niceStep && onGrid;
}

test("25u1. the page writes every rate in percent and every rate difference in pp", async ({ page }) => {
  const errors = watchErrors(page);
  await openExample(page);
  let rates = 0;
  for (const method of ["requirements", "bbq", "crosslingual", "divergence"]) {
    for (const [figure, , value, interval, robust] of await rows(page, `#study-section-${method} .report-figures`)) {
      if (!RATE.test(figure)) {
        expect(value, figure).toMatch(/^-?\d+\.\d{3}$/); // diff-bias, CD: plain numbers
        continue;
      }
      rates++;
      expect(value, figure).toMatch(PERCENT);
      expect(interval, figure).toMatch(/^\[\d+\.\d%, \d+\.\d%\]/);
      if (robust !== "–") expect(robust, figure).toMatch(/^\[\d+\.\d%, \d+\.\d%\]/);
    }
  }
  expect(rates).toBeGreaterThan(10);
  // Every section has its calls table, divergence's too: the example's two simulated models
  // answered every planned completion (the aspect without a local reference is not planned).
  for (const method of ["requirements", "bbq", "crosslingual", "divergence"]) {
    await expect(page.locator(`#study-section-${method} table.report-calls-table tbody tr`).first()).toBeVisible();
  }
  const div = page.locator("#study-section-divergence table.report-calls-table tbody tr");
  await expect(div).toHaveCount(2);
  for (const r of await div.all()) {
    const n = async (col) => Number((await r.locator(`td[data-col="${col}"]`).textContent()).match(/^\d+/)[0]);
    expect(await n("answered")).toBeGreaterThan(0);
    expect(await n("answered") + (await n("out_of_choice")) + (await n("failed"))).toBe(await n("total"));
  }
  for (const [, figure, , diff, , , , , , detectable] of await rows(page, "#study-paired")) {
    if (RATE.test(figure)) {
      expect(diff, figure).toMatch(/^-?\d+\.\d pp( \[-?\d+\.\d pp, -?\d+\.\d pp\])?$/);
      if (detectable !== "–") expect(detectable, figure).toMatch(POINTS);
    } else {
      expect(diff, figure).toMatch(/^-?\d+\.\d{3}/);
    }
  }
  for (const [figure, models, value] of await rows(page, ".report-breakdown")) {
    const pair = models.includes(" − "); // a paired difference's row
    if (RATE.test(figure)) expect(value, figure).toMatch(pair ? POINTS : PERCENT);
    if (figure.startsWith("refusal gap")) expect(value, figure).toMatch(POINTS);
  }
  // The sentences built from the numbers (the answer's findings) follow the same rule.
  for (const finding of await page.locator("#study-answer-findings li").allTextContents()) {
    if (/(pass rate|refusal rate|accuracy)/.test(finding)) expect(finding).not.toMatch(FRACTION);
  }
  // Each table says the scale of what it shows.
  await expect(page.locator("#study-section-bbq .units-note")).toContainText("rates in percent");
  await expect(page.locator("#study-section-bbq .units-note")).toContainText("diff-bias from -1 to 1");
  await expect(page.locator("#study-section-divergence .units-note")).toContainText("CD in nats");
  expect(errors).toEqual([]);
});

test("25u2. the HTML report uses the same units, round divergence ticks and a legend naming each model", async ({ page, browser }) => {
  await openExample(page);
  const [download] = await Promise.all([page.waitForEvent("download"), page.locator("#study-dl-html").click()]);
  const html = await (await import("node:fs/promises")).readFile(await download.path(), "utf8");
  const report = await browser.newPage();
  await report.setContent(html);

  let rates = 0;
  for (const method of ["requirements", "bbq", "crosslingual"]) {
    const tables = report.locator(`section#${method} table`);
    for (const [figure, , value, , interval] of await rows(report, tables.nth(0))) {
      if (!RATE.test(figure)) continue;
      rates++;
      expect(value, figure).toMatch(PERCENT);
      expect(interval, figure).toMatch(/^\[\d+\.\d%, \d+\.\d%\]$/);
    }
    for (const [figure, , , a, b, diff] of await rows(report, tables.nth(1))) {
      if (!RATE.test(figure)) continue;
      expect(a, figure).toMatch(PERCENT);
      expect(b, figure).toMatch(PERCENT);
      expect(diff, figure).toMatch(POINTS);
    }
    expect(await tables.count()).toBeGreaterThanOrEqual(2);
  }
  expect(rates).toBeGreaterThan(10);
  for (const finding of await report.locator("section#answer li").allTextContents()) {
    if (/(pass rate|refusal rate|accuracy)/.test(finding)) expect(finding).not.toMatch(FRACTION);
  }
  await expect(report.locator("section#bbq p.units")).toContainText("rates in percent");

  // The divergence chart: round ticks under the axis, and the axis says what and in which unit.
  const texts = await report.locator("section#divergence svg").evaluate(svgTexts);
  const ticks = texts.filter((t) => /^-?\d+(\.\d+)?$/.test(t)).map(Number);
  expect(round(ticks), `ticks ${ticks}`).toBe(true);
  expect(texts.some((t) => t.startsWith("CD in nats"))).toBe(true);

  // The cross-lingual chart: each model named in the legend and on its bars' rows.
  const models = await report.locator("section#crosslingual table").first().locator("tbody tr td:nth-child(2)").allTextContents();
  const xl = await report.locator("section#crosslingual svg").evaluate(svgTexts);
  for (const model of new Set(models)) {
    expect(xl, model).toContain(model);
    expect(xl.some((t) => t.endsWith(` · ${model}`)), model).toBe(true);
  }
  expect(new Set(models).size).toBeGreaterThanOrEqual(2);
  await report.close();
});

/** The smallest chart text as printed, in pt (CSS px × 0.75): over the inline SVGs of a
 *  document (the HTML report), or over the page's chart <img>s, whose SVGs are the same bytes as
 *  the HTML report's (`fonts`: each chart's smallest font-size, in order). */
const smallestInline = (page) => page.evaluate(() => Math.min(...[...document.querySelectorAll("svg")].flatMap((svg) => {
  const scale = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
  return [...svg.querySelectorAll("text")].map((t) => parseFloat(t.getAttribute("font-size")) * scale * 0.75);
})));
const smallestImages = (page, fonts) => page.locator("img.report-chart").evaluateAll((imgs, fonts) =>
  Math.min(...imgs.map((img, i) => fonts[i] * (img.getBoundingClientRect().width / img.naturalWidth) * 0.75)), fonts);

test("25u3. printed, the report shows no control, its tables fit the page and chart text is 8 pt or more", async ({ page, browser }) => {
  await openExample(page);
  const [download] = await Promise.all([page.waitForEvent("download"), page.locator("#study-dl-html").click()]);
  const html = await (await import("node:fs/promises")).readFile(await download.path(), "utf8");

  await page.setViewportSize({ width: PRINT_WIDTH, height: 1000 });
  await page.emulateMedia({ media: "print" });
  for (const control of ["header.site", "#study-stepper", ".report-downloads", "#study-items-prev", "#study-items-method", "#study-items-disagree"]) {
    await expect(page.locator(control), control).toBeHidden();
  }
  expect(await page.locator("button:visible, select:visible, input:visible").count()).toBe(0);
  await expect(page.locator("#study-section-bbq img.report-chart")).toBeVisible();
  // Nothing wider than the page: a table cut at the right edge would not print.
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(PRINT_WIDTH);
  const tableRight = await page.locator("#study-paired").evaluate((t) => t.getBoundingClientRect().right);
  expect(tableRight).toBeLessThanOrEqual(PRINT_WIDTH);
  const fonts = [...html.matchAll(/<svg[\s\S]*?<\/svg>/g)].map(([svg]) =>
    Math.min(...[...svg.matchAll(/font-size="([\d.]+)"/g)].map((m) => Number(m[1]))));
  expect(fonts).toHaveLength(4);
  expect(await smallestImages(page, fonts)).toBeGreaterThanOrEqual(8);
  await shot(page, "study-report-print");

  const report = await browser.newPage({ viewport: { width: PRINT_WIDTH, height: 1000 } });
  await report.setContent(html);
  await report.emulateMedia({ media: "print" });
  expect(await report.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(PRINT_WIDTH);
  for (const table of await report.locator("table").all()) {
    expect(await table.evaluate((t) => t.getBoundingClientRect().right)).toBeLessThanOrEqual(PRINT_WIDTH);
  }
  expect(await smallestInline(report)).toBeGreaterThanOrEqual(8);
  // Headers wrap between words, never inside one ("La/ng/ua/ge" was how they printed).
  const broken = await report.evaluate(() => [...document.querySelectorAll("th")].flatMap((th) => {
    const text = th.firstChild;
    if (!text || text.nodeType !== Node.TEXT_NODE) return [];
    // A word may break after its hyphen ("Cluster-/robust"), not elsewhere.
    return [...text.textContent.matchAll(/[^\s-]+-?/g)].filter((m) => {
      const range = document.createRange();
      range.setStart(text, m.index);
      range.setEnd(text, m.index + m[0].length);
      return new Set([...range.getClientRects()].map((r) => Math.round(r.top))).size > 1;
    }).map((m) => m[0]);
  }));
  expect(broken).toEqual([]);
  // The item table prints the first few per group; the rest stay on screen.
  const printedRows = await report.locator("section#changes tr.screen-only").evaluateAll((rows) => rows.filter((r) => r.getBoundingClientRect().height > 0).length);
  expect(printedRows).toBe(0);
  await expect(report.locator("section#changes p.print-only").first()).toBeVisible();
  // And Chromium prints it: a PDF of several pages.
  const pdf = await report.pdf({ format: "A4" });
  expect(pdf.subarray(0, 5).toString()).toBe("%PDF-");
  expect((pdf.toString("latin1").match(/\/Type\s*\/Page[^s]/g) ?? []).length).toBeGreaterThan(3);
  await report.close();
});
