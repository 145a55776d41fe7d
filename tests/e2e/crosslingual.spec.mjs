// The Cross-lingual tab: the simulated flow through the page, checked against the native CLI
// for the same seed; the built-in language effect found; cancel; question and record uploads.
import { test, expect } from "@playwright/test";
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { open, shot, tab, watchErrors } from "./helpers.mjs";

import { CLI } from "./cli.mjs";
const LANGS = ["en", "ko", "zh", "es", "de", "hi"];
const SEED = 3;
const SAMPLES = 5;
const fmtP = (p) => (p < 0.001 ? p.toExponential(1) : p.toFixed(3));

// Our small fixture set (6 questions, 8 languages) keeps the page's numbers easy to check.
const FIXTURE = "tests/fixtures/crosslingual/questions.json";

function cli(...args) {
  return JSON.parse(execFileSync(CLI, ["crosslingual", "--questions", FIXTURE, ...args],
    { encoding: "utf8", stdio: ["ignore", "pipe", "inherit"] }));
}

async function openTab(page) {
  await open(page);
  await tab(page, "Cross-lingual");
  // The built-in set: our 170 questions on the 17 topics in six languages.
  await expect(page.locator("#crosslingual-set-result")).toContainText("170 questions in en, ko, zh, es, de, hi");
  await page.getByLabel(/upload a question set/).setInputFiles(FIXTURE);
  await expect(page.locator("#crosslingual-set-result")).toContainText("6 questions");
}

async function chooseLanguages(page, wanted) {
  for (const box of await page.locator("#crosslingual-languages input").all()) {
    await box.setChecked(wanted.includes(await box.getAttribute("value")));
  }
}

test("the simulated run shows the CLI's numbers and finds the language effect", async ({ page }) => {
  const errors = watchErrors(page);
  const dir = mkdtempSync(path.join(tmpdir(), "crosslingual-"));
  const native = cli("--simulate", "--languages", LANGS.join(","), "--modes", "non_acceptable",
    "--samples", String(SAMPLES), "--seed", String(SEED), "--permutations", "199", "--out", dir);
  await openTab(page);
  await chooseLanguages(page, LANGS);
  await expect(page.locator("#crosslingual-modes input:checked")).toHaveCount(1);
  await expect(page.locator("#crosslingual-modes input:checked")).toHaveValue("non_acceptable");
  await page.getByLabel("Samples per question").fill(String(SAMPLES));
  await page.getByLabel("Seed of the run").fill(String(SEED));
  await page.getByRole("button", { name: "Run the simulated model" }).click();
  await expect(page.locator("#crosslingual-run-result")).toContainText(`answered ${6 * 6 * SAMPLES} prompts`);
  await expect(page.locator("#crosslingual-dashboard")).toBeVisible();

  // Every language's refused count, n and rate equal the native CLI's.
  for (const r of native.rates_by_language) {
    const row = page.locator(`#crosslingual-rates tbody tr[data-language="${r.language}"]`);
    await expect(row.locator("td").nth(1)).toHaveText(String(r.refused));
    await expect(row.locator("td").nth(2)).toHaveText(String(r.n));
    await expect(row.locator("td.rate")).toHaveText(`${(r.interval.rate * 100).toFixed(1)}%`);
  }
  // The built-in effect: Hindi refuses most, German least, and the pooled test says they differ.
  const pooled = native.families.find((f) => f.name === "pairs");
  const hd = pooled.tests.find((t) => t.a === "de" && t.b === "hi");
  expect(hd.significant_holm).toBe(true);
  await expect(page.locator("#crosslingual-rates tbody tr").first()).toHaveAttribute("data-language", native.ranking[0].language);
  await expect(page.locator('#crosslingual-rates tbody tr[data-language="hi"] td').last()).toContainText("de");

  // The heatmap: 6 x 6 cells plus headers; the hi row against de says hi refuses more, significantly.
  await expect(page.locator("#crosslingual-heat-lang tbody tr")).toHaveCount(6);
  const hiRow = page.locator("#crosslingual-heat-lang tbody tr", { has: page.locator('th:text-is("hi")') });
  const deCol = LANGS.slice().sort().indexOf("de");
  await expect(hiRow.locator("td").nth(deCol)).toContainText("▲");
  // The corrected p shown equals the native one (same bits, same formatting).
  const pooledModel = native.families.find((f) => f.name === "pairs x models").tests.find((t) => t.a === "de" && t.b === "hi");
  await expect(hiRow.locator("td").nth(deCol)).toHaveText(`▲ ${fmtP(pooledModel.p_holm)}${pooledModel.significant_holm ? "*" : ""}`);
  await expect(page.locator("#crosslingual-topic-rates tbody tr")).toHaveCount(3);
  const hiArms = native.rates_by_language_topic.find((r) => r.language === "hi" && r.topic === "Arms").interval;
  const hiCol = LANGS.slice().sort().indexOf("hi");
  await expect(page.locator("#crosslingual-topic-rates tbody tr").first().locator("td").nth(hiCol))
    .toContainText(`${(hiArms.rate * 100).toFixed(1)}%`);
  await expect(page.locator("#crosslingual-heat-topics tbody tr")).toHaveCount(15);
  await expect(page.locator("#crosslingual-heat-topics thead th")).toHaveCount(1 + 3);

  // The family table names the variant and the family size; NHAR raw and corrected.
  const main = native.families.find((f) => f.name === "pairs x topics x models");
  await expect(page.locator("#crosslingual-family-info")).toContainText("McNemar exact (statsmodels convention)");
  await expect(page.locator("#crosslingual-family-info")).toContainText(`${main.size} tests corrected together`);
  const nh = main.null_acceptance_raw;
  await expect(page.locator("#crosslingual-family-info")).toContainText(`raw ${nh.accepted}/${nh.total}`);
  await expect(page.locator("#crosslingual-tests tbody tr")).toHaveCount(main.size);

  await expect(page.locator("#crosslingual-review tbody tr")).not.toHaveCount(0);
  await expect(page.locator("#crosslingual-permanova")).toContainText("192 responses have an embedding".replace("192", String(6 * 6 * SAMPLES)));
  await shot(page, "crosslingual-dashboard");

  // PERMANOVA per language pair and topic, run a test at a time in the worker: the same bits
  // as the CLI for the same seed and permutations.
  await page.getByLabel("Permutations per test").fill("199");
  await page.getByLabel("Permutation seed").fill(String(SEED));
  await page.getByRole("button", { name: "Run PERMANOVA" }).click();
  const perm = native.permanova;
  expect(perm.rows.length).toBe(15 * 4); // 15 language pairs x (all topics + 3 topics)
  await expect(page.locator("#crosslingual-permanova-table tbody tr")).toHaveCount(perm.rows.length);
  await expect(page.locator("#crosslingual-perm-family")).toContainText(perm.family);
  for (const i of [0, 1, 37]) {
    const r = perm.rows[i];
    const cells = page.locator("#crosslingual-permanova-table tbody tr").nth(i).locator("td");
    await expect(cells.nth(0)).toHaveText(r.topic ?? "all topics");
    await expect(cells.nth(2)).toHaveText(r.result.f.toFixed(3));
    await expect(cells.nth(3)).toHaveText(r.result.r_squared.toFixed(3));
    await expect(cells.nth(5)).toHaveText(fmtP(r.p_holm));
  }
  // The built-in shift separates the languages: every pooled test has the smallest p, 1/200.
  expect(perm.rows.filter((r) => r.topic == null).every((r) => r.result.p === 1 / 200)).toBe(true);
  await expect(page.locator("#crosslingual-pca-chart")).toBeVisible();
  await page.locator("#crosslingual-permanova").scrollIntoViewIfNeeded();
  await shot(page, "crosslingual-permanova");

  // Another variant is named everywhere it is used.
  await page.getByLabel("McNemar variant").selectOption("mid-p");
  await expect(page.locator("#crosslingual-family-info")).toContainText("McNemar mid-p");

  // The CLI's record file, uploaded, gives the same rates.
  await page.getByLabel("Record file (CSV, JSONL, JSON)").setInputFiles(path.join(dir, "records.csv"));
  await expect(page.locator("#crosslingual-upload-result")).toContainText(`${6 * 6 * SAMPLES} cross-lingual records`);
  for (const r of native.rates_by_language) {
    await expect(page.locator(`#crosslingual-rates tbody tr[data-language="${r.language}"] td.rate`))
      .toHaveText(`${(r.interval.rate * 100).toFixed(1)}%`);
  }
  // The simulation's truth uploaded as labels: the lexicon agrees with every one (κ = 1).
  const labelled = readFileSync(path.join(dir, "records.csv"), "utf8").replace("simulated_refusal", "refusal_label");
  await page.getByLabel("Record file (CSV, JSONL, JSON)").setInputFiles({ name: "labelled.csv", mimeType: "text/csv", buffer: Buffer.from(labelled) });
  await expect(page.locator("#crosslingual-upload-result")).toContainText("labelled.csv");
  const agreement = page.locator("#crosslingual-agreement tbody tr").first();
  await expect(agreement.locator("th")).toHaveText("lexicon / label");
  await expect(agreement.locator("td").nth(0)).toHaveText(String(6 * 6 * SAMPLES));
  await expect(agreement.locator("td").nth(5)).toHaveText("100.0%");
  await expect(agreement.locator("td").nth(6)).toHaveText("1.000");
  await expect(page.locator("#crosslingual-review tbody tr").first().locator("td").last()).toContainText("label: refusal");
  await page.getByLabel(/Response embeddings/).setInputFiles(path.join(dir, "embeddings.jsonl"));
  await expect(page.locator("#crosslingual-upload-result")).toContainText(`${6 * 6 * SAMPLES} records got an embedding`);
  // A provider run's record file: the failed call is counted and shown, not dropped.
  const run = [
    { record_id: "r1", method: "crosslingual", question_id: "q1", language: "en", prompt: "P", response: "Sure.", status: "ok" },
    { record_id: "r2", method: "crosslingual", question_id: "q1", language: "hi", prompt: "P", response: "", status: "error",
      error: "HTTP 500: internal server error" },
  ].map((r) => JSON.stringify(r)).join("\n");
  await page.getByLabel("Record file (CSV, JSONL, JSON)").setInputFiles({ name: "run.jsonl", mimeType: "application/x-ndjson", buffer: Buffer.from(run) });
  await expect(page.locator("#crosslingual-summary")).toContainText("1 of 2 responses judged");
  await expect(page.locator("#crosslingual-summary")).toContainText("1 error; e.g. r2: HTTP 500: internal server error");
  expect(errors).toEqual([]);
});

test("a long run shows progress and can be cancelled", async ({ page }) => {
  await openTab(page);
  for (const box of await page.locator("#crosslingual-modes input").all()) await box.setChecked(true);
  await page.getByLabel("Samples per question").fill("1000");
  await page.getByRole("button", { name: "Run the simulated model" }).click();
  await expect(page.locator("#crosslingual-status")).toContainText("of 144000 simulated calls");
  await shot(page, "crosslingual-progress");
  await page.getByRole("button", { name: "Cancel" }).click();
  await expect(page.locator("#crosslingual-run-result")).toContainText("Cancelled after");
  await expect(page.locator("#crosslingual-busy")).toBeHidden();
  await expect(page.getByRole("button", { name: "Run the simulated model" })).toBeEnabled();
});

test("question files: errors name the question and field; MSQAD JSON with a BOM reads", async ({ page }) => {
  await openTab(page);
  const good = JSON.parse(readFileSync("tests/fixtures/crosslingual/questions.json", "utf8"));
  delete good.questions[1].text.hi;
  await page.getByLabel(/upload a question set/).setInputFiles({ name: "bad.json", mimeType: "application/json", buffer: Buffer.from(JSON.stringify(good)) });
  await expect(page.locator("#crosslingual-set-result")).toContainText("bad.json: question 2 (arms-02): field text.hi");
  await expect(page.locator("#crosslingual-set-result")).toContainText("earlier question set is kept");
  // MSQAD's released files write missing values as a bare NaN (Python's json.dump): read, and counted.
  const withNaN = readFileSync("tests/fixtures/crosslingual/Torture.json", "utf8").replaceAll('"subtitle": "s"', '"subtitle": NaN');
  await page.getByLabel(/upload a question set/).setInputFiles({ name: "Torture.json", mimeType: "application/json", buffer: Buffer.from(withNaN) });
  await expect(page.locator("#crosslingual-set-result")).toContainText("(msqad): 3 questions in en, ko, zh, es, de, hi");
  await expect(page.locator("#crosslingual-set-result .warning")).toHaveText(/^3 bare NaN\/Infinity values .* read as missing\.$/);
  await page.getByLabel(/upload a question set/).setInputFiles("tests/fixtures/crosslingual/Torture.json");
  await expect(page.locator("#crosslingual-set-result")).toContainText("(msqad): 3 questions in en, ko, zh, es, de, hi");
  await expect(page.locator("#crosslingual-set-result .warning")).toHaveCount(0);
  await expect(page.locator("#crosslingual-languages input")).toHaveCount(6);
  await page.getByRole("button", { name: "Run the simulated model" }).click();
  await expect(page.locator("#crosslingual-run-result")).toContainText("answered");
  await expect(page.locator("#crosslingual-heat-topic option")).toHaveText(["all topics (pooled)", "Torture"]);
  await page.getByRole("button", { name: "Analyze the reference responses" }).click();
  await expect(page.locator("#crosslingual-upload-result")).toContainText("36 reference responses");
  await expect(page.locator('#crosslingual-rates tbody tr[data-language="en"] td.rate')).toHaveText("50.0%"); // 3 of 6: NA refusals only
  await shot(page, "crosslingual-msqad");
});
