// The Requirements tab: edit the requirements (form and JSON, checked live) -> browse the
// library -> preview -> simulated run -> results -> exports, checked against the native CLI
// (`evenhand expand` and `evenhand evaluate` on the files the page wrote); then LangBiTe's
// own reports uploaded and read again. Screenshots in target/e2e-results/screens.
import { test, expect } from "@playwright/test";
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { open, runOnMock, shot, startMock, tab, watchErrors } from "./helpers.mjs";

import { CLI } from "./cli.mjs";
const REF = "../shared/ref/langbite";

async function openTab(page) {
  await open(page);
  await tab(page, "Requirements");
  await expect(page.locator("#panel-requirements")).toHaveAttribute("data-ready", "1");
  await expect(page.locator("#requirements-validation")).toContainText("Valid: 1 requirement");
}

async function saved(page, action) {
  const [download] = await Promise.all([page.waitForEvent("download"), action()]);
  return { name: download.suggestedFilename(), text: readFileSync(await download.path(), "utf8") };
}

test("edit -> preview -> simulated run -> results -> exports, as the CLI computes them", async ({ page }) => {
  const errors = watchErrors(page);
  const dir = mkdtempSync(path.join(tmpdir(), "requirements-"));
  await openTab(page);

  // The form writes the JSON; a bad value typed in the JSON is named by field and the last
  // valid scenario stays in use.
  await page.getByLabel("Tolerance (pass rate required, 0 to 1)").fill("0.9");
  await page.getByLabel("Tolerance (pass rate required, 0 to 1)").dispatchEvent("change");
  await page.getByLabel("Templates per group (nTemplates)").fill("30");
  await page.getByLabel("Templates per group (nTemplates)").dispatchEvent("change");
  await page.locator("#requirements-languages").getByLabel("de_de").check();
  const json = page.getByLabel(/Scenario JSON/);
  await expect(json).toHaveValue(/"tolerance": 0\.9/);
  await expect(json).toHaveValue(/"de_de": \[\s*"women",\s*"men",\s*"nonbinary"\s*\]/);
  await expect(page.locator("#requirements-validation")).toContainText("Valid: 1 requirement");
  const good = await json.inputValue();
  await json.fill(good.replace('"tolerance": 0.9', '"tolerance": 7'));
  await expect(page.locator("#requirements-validation [role=alert]")).toContainText("tolerance");
  await expect(page.locator("#requirements-validation [role=alert]")).toContainText("last valid scenario stays in use");
  await json.fill(good.replace('"nTemplates": 30,', '"nTemplates": 30'));
  await expect(page.locator("#requirements-validation [role=alert]")).toContainText(/line \d+, column \d+/);
  await json.fill(good);
  await expect(page.locator("#requirements-validation")).toContainText("Valid: 1 requirement");
  await shot(page, "requirements-1-editor");

  // The library browser: the built-in library's Spanish sexism templates.
  await page.locator("#requirements-f-language").selectOption("es_es");
  await page.locator("#requirements-f-concern").selectOption("sexism");
  await expect(page.locator("#requirements-browse-count")).toHaveText("19 templates match.");
  await expect(page.locator("#requirements-browse tbody tr")).toHaveCount(19);
  await page.locator("#requirements-f-text").fill("zzz-nothing");
  await expect(page.locator("#requirements-browse-count")).toHaveText("0 templates match.");
  await page.locator("#requirements-f-text").fill("");

  // Preview: the prompt count is what `evenhand expand` makes of the same scenario and seed.
  const scenario = await saved(page, () => page.getByRole("button", { name: "Download the scenario" }).click());
  writeFileSync(path.join(dir, "scenario.json"), scenario.text);
  // Our superset: the page's settings ride along in the "evenhand" key.
  expect(JSON.parse(scenario.text).evenhand).toMatchObject({ seed: 1, samples: 1, targets: ["sim-model"], statistics: { confidence: 0.95 } });
  const libs = ["de_de", "en_us", "es_es"].flatMap((l) => ["--library", `${l}=datasets/requirements/${l}.json`]);
  const expanded = execFileSync(CLI, ["expand", "--scenario", path.join(dir, "scenario.json"), ...libs, "--seed", "4"],
    { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim().split("\n");
  await page.getByLabel("Samples per prompt").fill("3");
  await page.getByLabel("Seed (template sampling)").fill("4");
  await page.getByRole("button", { name: "Preview the prompts" }).click();
  await expect(page.locator("#requirements-preview-summary")).toContainText(
    `${expanded.length} prompts, 3 samples each: ${expanded.length * 3} calls per model`);
  const first = JSON.parse(expanded[0]);
  await expect(page.locator("#requirements-preview-result tbody").last().locator("tr").first()).toContainText(first.prompt);
  await shot(page, "requirements-2-preview");

  // The simulated run treats non-binary people worse; the community tests must find it.
  await page.getByLabel("Communities treated worse").fill("nonbinary=0.5");
  await page.getByRole("button", { name: "Run the simulated model" }).click();
  await expect(page.locator("#requirements-run-summary")).toContainText(`answered ${expanded.length * 3} of ${expanded.length * 3} planned calls`);
  await expect(page.locator("#requirements-results-summary")).toContainText(`${expanded.length * 3} records judged`);
  const groups = page.locator("#requirements-groups tbody tr");
  await expect(groups).toHaveCount(3); // one requirement, three languages, constrained x observational
  await expect(page.locator("#requirements-pass-rates")).toBeVisible();
  await expect(page.locator("#requirements-forest")).toBeVisible();
  await expect(page.locator("#requirements-heatmap")).toBeVisible();
  const tests = page.locator("#requirements-tests tbody tr");
  const significant = (lang, pair) =>
    tests.filter({ hasText: lang }).filter({ hasText: "mcnemar" }).filter({ hasText: pair }).locator("td").last();
  for (const lang of ["de_de", "en_us", "es_es"]) {
    await expect(significant(lang, "men vs nonbinary")).toHaveText("yes");
    await expect(significant(lang, "nonbinary vs women")).toHaveText("yes");
    await expect(significant(lang, "men vs women")).toHaveText("no");
  }
  await shot(page, "requirements-3-results");

  // Exports: the page's files, and `evenhand evaluate` on the page's own records writes the
  // same groups and community statistics.
  const file = async (name) => (await saved(page, () => page.locator("#requirements-exports").getByRole("button", { name, exact: true }).click())).text;
  const records = await file("records.jsonl");
  writeFileSync(path.join(dir, "records.jsonl"), records);
  // The scenario's temperature and tokens are what each call is sent with.
  expect(JSON.parse(records.split("\n")[0]).params).toEqual({ max_tokens: 100, temperature: 0 });
  const manifest = JSON.parse(await file("manifest.json"));
  expect(manifest.mode).toBe("default");
  expect(manifest.inputs.records.origin.simulated.community).toEqual({ nonbinary: 0.5 });
  expect(manifest.inputs.records.origin.expansion_seed).toBe(4);
  execFileSync(CLI, ["evaluate", "--scenario", path.join(dir, "scenario.json"), "--records", path.join(dir, "records.jsonl"),
    "--out", path.join(dir, "cli"), "--timestamp", "20260101000000"], { stdio: "ignore" });
  expect(await file("groups.csv")).toBe(readFileSync(path.join(dir, "cli/groups.csv"), "utf8"));
  expect(await file("communities.json")).toBe(readFileSync(path.join(dir, "cli/communities.json"), "utf8"));
  const globalButton = page.locator("#requirements-exports button", { hasText: "_global_evaluation.csv" });
  const global = await saved(page, () => globalButton.click());
  expect(global.text.split("\n")[0]).toBe(",Provider,Model,Concern,Language,Input Type,Reflection Type,Passed Nr,Failed Nr," +
    "Error Nr,Passed Pct,Failed Pct,Total,Tolerance,Tolerance Evaluation");

  // The global report read again: every group gets its interval.
  await page.getByLabel("LangBiTe report CSVs").setInputFiles({ name: global.name, mimeType: "text/csv", buffer: Buffer.from(global.text) });
  await expect(page.locator("#requirements-reanalysis tbody tr")).toHaveCount(3);
  await expect(page.locator("#requirements-reports-summary")).toContainText("3 groups");

  // The LLM judge: its cases out, answered (here: a judge that passes everything), and back.
  await page.locator("#requirements-judge summary").click();
  await page.getByLabel("Passes and failures per group").fill("4");
  const judgeCases = await saved(page, () => page.getByRole("button", { name: "Download the judge's cases", exact: true }).click());
  const cases = judgeCases.text.trim().split("\n").map((l) => JSON.parse(l));
  expect(cases.length).toBeGreaterThan(0);
  expect(cases.every((c) => c.prompt.includes("PASS") && c.judged)).toBe(true);
  const answered = cases.map((c) => JSON.stringify({ ...c, response: "PASS", status: "ok" })).join("\n");
  await page.getByLabel("The judge's answered records").setInputFiles({ name: "judged.jsonl", mimeType: "application/jsonl", buffer: Buffer.from(answered) });
  await expect(page.locator("#requirements-judge-summary")).toContainText(`of ${cases.length} answers`);
  await expect(page.locator("#requirements-judge-table tbody tr").nth(1).locator("td").last()).toHaveText("0"); // the judge never fails
  await shot(page, "requirements-4-judge");

  // Compatibility mode: LangBiTe's verdicts only.
  await page.getByLabel("LangBiTe compatibility").check();
  await page.getByRole("button", { name: "Evaluate" }).click();
  await expect(page.locator("#requirements-results-summary")).toContainText("LangBiTe compatibility");
  await expect(page.locator("#requirements-global tbody tr")).toHaveCount(3);
  expect(errors).toEqual([]);
});

test("LangBiTe's own libraries and reports: uploaded, browsed and judged again", async ({ page }) => {
  test.skip(!existsSync(`${REF}/reports_sample/plain`), `${REF} is absent`);
  const errors = watchErrors(page);
  await openTab(page);
  await page.getByLabel("Open a scenario file").setInputFiles(`${REF}/reports_sample/config_used.json`);
  await expect(page.locator("#requirements-validation")).toContainText("Valid:");
  for (const lang of ["en_us", "es_es"]) {
    await page.getByLabel("Upload a LangBiTe library for language").fill(lang);
    await page.getByLabel("Library file").setInputFiles(`${REF}/prompts/prompts_${lang}.csv`);
    await expect(page.locator("#requirements-library-result")).toContainText(`prompts_${lang}.csv loaded for ${lang}`);
  }
  await expect(page.locator("#requirements-library-source")).toContainText("uploaded LangBiTe libraries (en_us, es_es)");
  const dir = `${REF}/reports_sample/plain`;
  await page.getByLabel("LangBiTe report CSVs").setInputFiles(readdirSync(dir).map((f) => path.join(dir, f)));
  const rejudged = page.locator("#requirements-rejudged");
  await expect(rejudged).toContainText("Judged again from the responses");
  const [, agree, total] = (await rejudged.textContent()).match(/(\d+) of (\d+) evaluation/);
  expect(Number(total)).toBeGreaterThan(0);
  expect(agree).toBe(total);
  // LangBiTe passes groups on a handful of templates; the intervals cannot support that.
  await expect(page.locator("#requirements-reanalysis tr.disagrees").first()).toBeVisible();
  await shot(page, "requirements-5-langbite-reports");
  // A file that is no report: a readable error, and what was read stays.
  await page.getByLabel("LangBiTe report CSVs").setInputFiles({ name: "notes.csv", mimeType: "text/csv", buffer: Buffer.from("a,b\n1,2\n") });
  await expect(page.locator("#requirements-reports [role=alert]")).toContainText("notes.csv");
  await expect(page.locator("#requirements-rejudged")).toContainText(`${agree} of ${total}`);
  expect(errors).toEqual([]);
});

test("the prompts and the judge run on a provider through the Run tab and come back", async ({ page }) => {
  test.setTimeout(120_000);
  const errors = watchErrors(page);
  const mock = await startMock();
  try {
    await openTab(page);
    await page.getByRole("button", { name: "Preview the prompts" }).click();
    const n = Number((await page.locator("#requirements-preview-summary").textContent()).match(/^(\d+) prompts/)[1]);
    expect(n).toBeGreaterThan(10);
    await page.getByRole("button", { name: "Run these prompts via the Run tab" }).click();
    await runOnMock(page, mock, "mock-a", n);
    expect((await mock.stats()).total).toBe(n);
    await page.getByRole("button", { name: "Use the records in the Requirements tab" }).click();
    await expect(page.getByRole("tab", { name: "Requirements" })).toHaveAttribute("aria-selected", "true");
    await expect(page.locator("#requirements-run-summary")).toHaveText(`${n} records came back from the Run tab.`);
    // The mock answers A, B or C, which no oracle of ours expects: judged, and never passed.
    await expect(page.locator("#requirements-results-summary")).toContainText(`${n} records judged`);
    await expect(page.locator("#requirements-results-summary")).not.toContainText("Passed");
    // What was sent: the scenario's temperature (0) and tokens (100), recorded with each answer.
    const [d] = await Promise.all([page.waitForEvent("download"),
      page.locator("#requirements-exports").getByRole("button", { name: "records.jsonl", exact: true }).click()]);
    const records = readFileSync(await d.path(), "utf8").trim().split("\n").map((l) => JSON.parse(l));
    expect(records).toHaveLength(n);
    for (const r of records) expect(r.params).toMatchObject({ model: "mock-a", temperature: 0, max_tokens: 100 });

    // The judge: a seeded audit sample, run on the mock, back as verdicts. The mock's letters
    // are neither PASS nor FAIL, so strict parsing counts every reply as unusable.
    await page.locator("#requirements-judge summary").click();
    await page.getByLabel("Passes and failures per group").fill("3");
    await page.getByRole("button", { name: "Run the judge via the Run tab" }).click();
    await expect(page.locator("#run-handed-text")).toContainText("judge case");
    const judged = Number((await page.locator("#run-handed-text").textContent()).match(/(\d+) judge case/)[1]);
    expect(judged).toBeGreaterThan(0);
    await runOnMock(page, mock, "mock-a", judged);
    await page.getByRole("button", { name: "Use the verdicts in the Requirements tab" }).click();
    await expect(page.locator("#requirements-judge-summary")).toContainText(`${judged} replies unusable`);
    await shot(page, "requirements-6-via-run-tab");
  } finally {
    mock.stop();
  }
  expect(errors).toEqual([]);
});
