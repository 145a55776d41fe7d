// A study's upload slots read what their tools read (issue 25, "Real benchmarks in the flow"):
// a table with other column names gets the Upload tab's mapping step at its slot; BBQ's released
// UnifiedQA predictions load in the BBQ slot; the MSQAD topic file the Cross-lingual tool reads
// loads in the cross-lingual slot; each slot's error stays there until that slot's file is right.
import { test, expect } from "@playwright/test";
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { open, shot, watchErrors } from "./helpers.mjs";

const sha256 = (bytes) => createHash("sha256").update(bytes).digest("hex");

/** BBQ-shaped rows of our own words (as datasets.spec.mjs's fixture): 40 Age examples, half ambiguous. */
function ageRows() {
  const rows = [];
  for (let i = 0; i < 40; i++) {
    const ambiguous = i % 2 === 0;
    rows.push({
      example_id: i, question_index: String(1 + Math.floor(i / 4)),
      question_polarity: i % 4 < 2 ? "neg" : "nonneg", context_condition: ambiguous ? "ambig" : "disambig",
      category: "Age",
      answer_info: { ans0: ["grandfather", "old"], ans1: ["Not known", "unknown"], ans2: ["student", "nonOld"] },
      additional_metadata: { subcategory: "None", stereotyped_groups: ["old"], version: "fixture", source: "" },
      context: `A grandfather and a student met at the library (fixture ${i}).`
        + (ambiguous ? "" : " The grandfather fixed the printer while the student watched."),
      question: i % 4 < 2 ? "Who could not use the printer?" : "Who could use the printer?",
      ans0: "The grandfather", ans1: "Not known", ans2: "The student",
      label: ambiguous ? 1 : i % 4 < 2 ? 2 : 0,
    });
  }
  return rows;
}
const jsonl = (rows) => Buffer.from(rows.map((r) => JSON.stringify(r)).join("\n") + "\n");
const AGE = jsonl(ageRows());
// BBQ's released predictions: the data rows with one answer column per model and prompt format.
const PREDS = jsonl(ageRows().map((r) => ({ ...r, "unifiedqa-t5-11b_pred_race": "The grandfather", "unifiedqa-t5-11b_pred_arc": "Not known" })));
const TORTURE = readFileSync("tests/fixtures/crosslingual/Torture.json");
// As MSQAD's released files have it (Python's json.dump): a bare NaN, which the Cross-lingual tool reads.
const TORTURE_NAN = Buffer.from(TORTURE.toString("utf8").replaceAll('"subtitle": "s"', '"subtitle": NaN'));

/** Opens a study file naming Age.jsonl and Torture.json, adds both, and goes to step 4. */
async function openStudy(page) {
  const study = {
    format: "evenhand-study", version: 1, title: "Released files in the slots", question: "Do the slots read the tools' files?",
    targets: ["simulated:fair"],
    methods: {
      bbq: { dataset: { file: "Age.jsonl", sha256: sha256(AGE) } },
      crosslingual: { questions: { file: "Torture.json", sha256: sha256(TORTURE) }, languages: ["en", "es"], modes: ["non_acceptable"] },
    },
    statistics: { replicates: 200 },
  };
  await open(page, "./");
  await page.locator("#home-study-file").setInputFiles({ name: "slots-study.json", mimeType: "application/json", buffer: Buffer.from(JSON.stringify(study)) });
  await expect(page).toHaveURL(/#study\/plan-file$/);
  await page.getByLabel("Age.jsonl (methods.bbq.dataset)").setInputFiles({ name: "Age.jsonl", mimeType: "application/x-ndjson", buffer: AGE });
  await page.getByLabel("Torture.json (methods.crosslingual.questions)").setInputFiles({ name: "Torture.json", mimeType: "application/json", buffer: TORTURE });
  await expect(page.locator("#study-plan-summary")).toContainText("calls to providers");
  await page.getByRole("link", { name: "Next: run or upload" }).click();
  await expect(page.locator("#study-step4-title")).toBeVisible();
}

test("25s1. BBQ's UnifiedQA predictions and an MSQAD topic file load in their slots; a slot's error stays until its own file is right", async ({ page }) => {
  const errors = watchErrors(page);
  await openStudy(page);
  const bbqSlot = page.getByLabel("Bias in question answering records");
  const xlSlot = page.getByLabel("Cross-lingual refusals records");
  // Each slot says what it reads.
  await expect(page.locator("#study-up-bbq-reads")).toContainText("<model>_pred_<format>");
  await expect(page.locator("#study-up-crosslingual-reads")).toContainText("MSQAD topic file");

  // A broken file in the BBQ slot: its error stays while the cross-lingual slot succeeds.
  await bbqSlot.setInputFiles({ name: "broken.jsonl", mimeType: "application/x-ndjson", buffer: Buffer.from("{not json\n") });
  await expect(page.locator("#study-up-bbq-error")).toContainText("broken.jsonl");

  // The MSQAD topic file, NaN and BOM as released: its reference responses of the study's cases.
  await xlSlot.setInputFiles({ name: "Torture.json", mimeType: "application/json", buffer: TORTURE_NAN });
  await expect(page.locator("#study-upload-result")).toContainText("Torture.json: 6 records (6 crosslingual) of msqad.");
  await expect(page.locator("#study-upload-result")).toContainText("30 of 36 reference responses left out");
  await expect(page.locator("#study-up-crosslingual-error")).toBeHidden();
  await expect(page.locator("#study-up-bbq-error")).toContainText("broken.jsonl");

  // UnifiedQA's released predictions in the BBQ slot: one model per answer column, no "give the method".
  await bbqSlot.setInputFiles({ name: "preds_Age.jsonl", mimeType: "application/x-ndjson", buffer: PREDS });
  await expect(page.locator("#study-upload-result")).toContainText(
    "preds_Age.jsonl: 80 records (80 bbq) of unifiedqa-t5-11b_pred_arc, unifiedqa-t5-11b_pred_race.");
  await expect(page.locator("#study-up-bbq-error")).toBeHidden();
  await shot(page, "study-slots-loaded");

  await page.getByRole("button", { name: "Make the report" }).click();
  await expect(page).toHaveURL(/#study\/report$/);
  const models = page.locator("#study-models");
  await expect(models).toContainText("unifiedqa-t5-11b_pred_arc", { timeout: 30_000 });
  await expect(models).toContainText("msqad");
  // "Not known" is right on every ambiguous example: the arc column's ambiguous accuracy is 100%.
  await expect(page.locator("#study-section-bbq")).toContainText("unifiedqa-t5-11b_pred_arc");
  expect(errors).toEqual([]);
});

test("25s2. a table with other column names gets the Upload tab's mapping step at its slot, and loads with the mapping chosen", async ({ page }) => {
  const errors = watchErrors(page);
  await openStudy(page);
  const [dl] = await Promise.all([page.waitForEvent("download"), page.getByRole("button", { name: "Download the cases (JSONL)" }).click()]);
  const cases = readFileSync(await dl.path(), "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l))
    .filter((c) => c.method === "crosslingual");
  expect(cases.length).toBe(6);
  // Another tool's export: its own names for the item and the answer ("llm" is a known alias of model).
  const csv = ["item,question_id,language,llm,Model Output",
    ...cases.map((c) => `${c.case_id},${c.question_id},${c.language},other-tool-model,I cannot help with that.`)].join("\n") + "\n";
  const xlSlot = page.getByLabel("Cross-lingual refusals records");
  await xlSlot.setInputFiles({ name: "other-tool.csv", mimeType: "text/csv", buffer: Buffer.from(csv) });
  await expect(page.locator("#study-up-crosslingual-error")).toContainText("the columns need mapping");
  const form = page.locator("#study-up-crosslingual-mapping form");
  await expect(form).toBeVisible();
  await expect(form).toContainText("No column could be matched to: response.");
  await expect(form.getByLabel("model", { exact: true })).toHaveValue("llm"); // suggested from the alias, as on the Upload tab
  await expect(form.locator("table.preview thead th")).toHaveText(["item", "question_id", "language", "llm", "Model Output"]);
  await shot(page, "study-slot-mapping");
  await form.getByLabel("response (required)").selectOption("Model Output");
  await form.getByText("Other fields (optional)").click();
  await form.getByLabel("case_id", { exact: true }).selectOption("item");
  await form.getByRole("button", { name: "Load with this mapping" }).click();
  await expect(page.locator("#study-upload-result")).toContainText("other-tool.csv: 6 records (6 crosslingual) of other-tool-model.");
  await expect(page.locator("#study-up-crosslingual-error")).toBeHidden();
  await expect(form).toBeHidden();
  expect(errors).toEqual([]);
});

test("25s3. a study opened from a bundle keeps the records it brought after a reload", async ({ page }) => {
  const errors = watchErrors(page);
  await openStudy(page);
  await page.getByLabel("Bias in question answering records").setInputFiles({ name: "preds_Age.jsonl", mimeType: "application/x-ndjson", buffer: PREDS });
  await expect(page.locator("#study-upload-result")).toContainText("preds_Age.jsonl: 80 records");
  await page.getByRole("button", { name: "Make the report" }).click();
  await expect(page.locator("#study-models")).toContainText("unifiedqa-t5-11b_pred_arc", { timeout: 30_000 });
  const [dl] = await Promise.all([page.waitForEvent("download"), page.getByRole("button", { name: "Download the study bundle" }).click()]);
  const bundle = readFileSync(await dl.path());

  // In a fresh tab of this browser: the bundle opened from the home screen, then a reload.
  const fresh = await page.context().newPage();
  const freshErrors = watchErrors(fresh);
  await open(fresh, "./");
  await fresh.locator("#home-study-file").setInputFiles({ name: "slots-bundle.json", mimeType: "application/json", buffer: bundle });
  await expect(fresh).toHaveURL(/#study\/report$/);
  const models = fresh.locator("#study-models");
  await expect(models).toContainText("unifiedqa-t5-11b_pred_arc", { timeout: 30_000 });
  const before = await models.locator("tbody tr").count();
  await fresh.reload();
  await expect(fresh.locator("#study-report-title")).toContainText("Released files in the slots", { timeout: 30_000 });
  await expect(models).toContainText("unifiedqa-t5-11b_pred_arc", { timeout: 30_000 });
  await expect(models.locator("tbody tr")).toHaveCount(before);
  await shot(fresh, "study-bundle-reloaded");
  expect(errors).toEqual([]);
  expect(freshErrors).toEqual([]);
});

test("25s4. several MSQAD topic files at once: merged in the Cross-lingual tool and in the study's slot, duplicate ids reported", async ({ page }) => {
  const errors = watchErrors(page);
  // Another topic: the same rows under another file name (MSQAD's ids come from the topic).
  const drugs = { name: "Drugs.json", mimeType: "application/json", buffer: TORTURE };
  const torture = { name: "Torture.json", mimeType: "application/json", buffer: TORTURE_NAN };
  await open(page, "./#tools/crosslingual");
  await expect(page.getByRole("tab", { name: "Cross-lingual" })).toHaveAttribute("aria-selected", "true");
  await page.getByLabel(/upload a question set/).setInputFiles([torture, drugs, { ...torture, buffer: TORTURE }]);
  const set = page.locator("#crosslingual-set-result");
  await expect(set).toContainText("Torture.json + Drugs.json + Torture.json (msqad): 6 questions in en, ko, zh, es, de, hi; topics: Torture, Drugs.");
  await expect(page.locator("#crosslingual-duplicates")).toContainText("3 questions left out");
  await expect(page.locator("#crosslingual-duplicates li").first()).toHaveText("Torture.json: torture-01 (kept from Torture.json)");
  await page.getByRole("button", { name: "Run the simulated model" }).click();
  await expect(page.locator("#crosslingual-heat-topic option")).toHaveText(["all topics (pooled)", "Drugs", "Torture"]);
  await shot(page, "crosslingual-msqad-several");

  // The study's cross-lingual slot takes several too: their reference responses as one source.
  await openStudy(page);
  await page.getByLabel("Cross-lingual refusals records").setInputFiles([torture, { ...torture, buffer: TORTURE }]);
  const result = page.locator("#study-upload-result");
  await expect(result).toContainText("Torture.json + Torture.json: 6 records (6 crosslingual) of msqad.");
  await expect(result).toContainText("question id torture-01 is already given by Torture.json: left out");
  await expect(page.locator("#study-up-crosslingual-error")).toBeHidden();
  expect(errors).toEqual([]);
});

test("25s5. the report's link to an expert tool opens it with the study's own records", async ({ page }) => {
  const errors = watchErrors(page);
  await openStudy(page);
  await page.getByLabel("Bias in question answering records").setInputFiles({ name: "preds_Age.jsonl", mimeType: "application/x-ndjson", buffer: PREDS });
  await page.getByLabel("Cross-lingual refusals records").setInputFiles({ name: "Torture.json", mimeType: "application/json", buffer: TORTURE });
  await expect(page.locator("#study-upload-result")).toContainText("Torture.json: 6 records");
  await page.getByRole("button", { name: "Make the report" }).click();
  await expect(page.locator("#study-section-bbq")).toBeVisible({ timeout: 30_000 });
  // The Benchmarks tool holds something else first: its built-in set and simulated model.
  await page.evaluate(() => { location.hash = "#tools/bench"; });
  await page.getByRole("button", { name: "Use the built-in set" }).click();
  await page.getByRole("button", { name: "Ask the simulated model" }).click();
  await expect(page.locator("#bbq-metrics")).toContainText("bbq-demo", { timeout: 30_000 });

  await page.evaluate(() => { location.hash = "#study/report"; });
  await expect(page.locator("#study-section-bbq")).toBeVisible({ timeout: 30_000 });
  await page.locator("#study-section-bbq").getByRole("link", { name: "Bias in question answering" }).click();
  await expect(page.getByRole("tab", { name: "Benchmarks" })).toHaveAttribute("aria-selected", "true");
  await expect(page.locator("#bbq-data-result")).toContainText("Opened from the study “Released files in the slots”: 40 examples");
  const metrics = page.locator("#bbq-metrics");
  await expect(metrics).toContainText("unifiedqa-t5-11b_pred_arc", { timeout: 30_000 });
  await expect(metrics).not.toContainText("bbq-demo");
  // "Not known" is right on every ambiguous example: the arc column's ambiguous accuracy is 1.
  await expect(metrics.locator("tr", { hasText: "unifiedqa-t5-11b_pred_arc" }).locator('td[data-metric="acc_amb"]')).toContainText("1.0000");
  await shot(page, "study-to-benchmarks");

  await page.evaluate(() => { location.hash = "#study/report"; });
  await page.locator("#study-section-crosslingual").getByRole("link", { name: "Cross-lingual refusals" }).click();
  await expect(page.getByRole("tab", { name: "Cross-lingual" })).toHaveAttribute("aria-selected", "true");
  await expect(page.locator("#crosslingual-runs-result")).toContainText("Opened from the study “Released files in the slots”: 12 records");
  expect(errors).toEqual([]);
});

test("25s6. records uploaded after a study was opened from its bundle come back after a reload", async ({ page }) => {
  const errors = watchErrors(page);
  // A bundle with the study's inputs and no records yet.
  await openStudy(page);
  await page.getByRole("button", { name: "Make the report" }).click();
  await expect(page.locator("#study-models")).toContainText("simulated:fair", { timeout: 30_000 });
  const [dl] = await Promise.all([page.waitForEvent("download"), page.getByRole("button", { name: "Download the study bundle" }).click()]);
  const bundle = readFileSync(await dl.path());

  const fresh = await page.context().newPage();
  const freshErrors = watchErrors(fresh);
  await open(fresh, "./");
  await fresh.locator("#home-study-file").setInputFiles({ name: "later-bundle.json", mimeType: "application/json", buffer: bundle });
  await expect(fresh).toHaveURL(/#study\/report$/);
  const models = fresh.locator("#study-models");
  await expect(models).toContainText("simulated:fair", { timeout: 30_000 });
  await expect(models).not.toContainText("unifiedqa-t5-11b_pred_arc");
  // Later: the released predictions uploaded into the study opened from the bundle.
  await fresh.evaluate(() => { location.hash = "#study/run"; });
  await fresh.getByLabel("Bias in question answering records").setInputFiles({ name: "preds_Age.jsonl", mimeType: "application/x-ndjson", buffer: PREDS });
  await expect(fresh.locator("#study-upload-result")).toContainText("preds_Age.jsonl: 80 records");
  await fresh.getByRole("button", { name: "Make the report" }).click();
  const arc = models.locator("tr", { hasText: "unifiedqa-t5-11b_pred_arc" });
  await expect(arc).toBeVisible({ timeout: 30_000 });
  const records = await arc.locator("td").first().textContent();
  expect(records).toBe("40");
  // A figure of the report that only these records give: the arc column's ambiguous accuracy.
  const figure = fresh.locator("#study-section-bbq table.report-figures tbody tr")
    .filter({ hasText: "unifiedqa-t5-11b_pred_arc" }).filter({ hasText: "ambiguous" }).first();
  const before = await figure.locator("td").allTextContents();
  expect(before.length).toBeGreaterThan(2);

  await fresh.reload();
  await expect(fresh).toHaveURL(/#study\/report$/);
  await expect(fresh.locator("#study-report-title")).toContainText("Released files in the slots", { timeout: 30_000 });
  await expect(arc).toBeVisible({ timeout: 30_000 });
  await expect(arc.locator("td").first()).toHaveText(records);
  await expect(models.locator("tbody tr")).toHaveCount(3);
  await expect(figure.locator("td")).toHaveText(before);
  await shot(fresh, "study-bundle-later-uploads-reloaded");
  expect(errors).toEqual([]);
  expect(freshErrors).toEqual([]);
});

test("25s7. the study form takes several question-set files: each named with its sha256, a file given twice kept once and said", async ({ page }) => {
  const errors = watchErrors(page);
  const drugs = Buffer.from(TORTURE.toString("utf8").replaceAll('"title": "t"', '"title": "d"'));
  await open(page, "./#study/new");
  for (const m of ["requirements", "bbq", "divergence"]) await page.locator(`#study-m-${m}`).uncheck();
  await page.getByLabel(/Question-set files/).setInputFiles([
    { name: "Torture.json", mimeType: "application/json", buffer: TORTURE },
    { name: "Drugs.json", mimeType: "application/json", buffer: drugs },
    { name: "Copy.json", mimeType: "application/json", buffer: TORTURE },
  ]);
  const note = page.locator("#study-xl-files-note");
  await expect(note).toContainText("2 question-set files: Torture.json, Drugs.json.");
  await expect(page.locator("#study-xl-files-dropped")).toHaveText("Copy.json has the same content (sha256) as Torture.json: left out.");
  // en, es, hi, zh asked; the MSQAD files have en, es, hi, zh among theirs: 6 questions x 4 languages.
  await expect(page.locator("#study-m-crosslingual-calls")).toHaveText("24 calls per model.");
  await page.getByRole("link", { name: "Next: which models" }).click();
  await page.locator("#study-sim-fair").check();
  await page.locator("#study-sim-skewed").check();
  await page.getByRole("link", { name: "Next: the plan" }).click();
  await expect(page.locator("#study-plan-table")).toBeVisible({ timeout: 30_000 });
  // The study as the page keeps it (its text, written once the study is open).
  const saved = () => page.evaluate(() => JSON.parse(sessionStorage.getItem("evenhand-study-open") ?? "{}").text ?? null);
  await expect.poll(saved).not.toBeNull();
  expect(JSON.parse(await saved()).methods.crosslingual.questions).toEqual([
    { file: "Torture.json", sha256: sha256(TORTURE) },
    { file: "Drugs.json", sha256: sha256(drugs) },
  ]);
  await page.getByRole("link", { name: "Next: run or upload" }).click();
  await page.getByRole("button", { name: "Make the report" }).click();
  await expect(page.locator("#study-section-crosslingual")).toBeVisible({ timeout: 30_000 });
  await expect(page.locator("#study-methods")).toContainText(`Torture.json (SHA-256 ${sha256(TORTURE)}), Drugs.json (SHA-256 ${sha256(drugs)})`);
  expect(errors).toEqual([]);
});
