// A study's money and state (issue 25): a cancelled run is resumed, never paid twice; a run
// belongs to its study (by the study's sha256) and nothing replaces the open study without
// asking; a reload during a run brings back the study, its form and the run's resume offer.
import { test, expect } from "@playwright/test";
import { deflateRawSync } from "node:zlib";
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { bbqCategoryFile, open, shot, startMock, watchErrors } from "./helpers.mjs";

/** The study run's counts as the progress line carries them. */
const counts = async (page) => {
  const d = await page.locator("#study-counts").evaluate((n) => ({ ...n.dataset }));
  return { answered: Number(d.answered ?? 0), failed: Number(d.failed ?? 0), total: Number(d.total ?? 0), state: d.state };
};

/** Steps 1 to 3 of a new study: one method (the requirement tests), one mocked model. */
async function newStudy(page, mock, title) {
  await page.evaluate(() => { location.hash = "#study/new"; });
  await expect(page.locator("#study-step1-title")).toBeVisible();
  await page.locator("#study-title").fill(title);
  for (const m of ["bbq", "crosslingual", "divergence"]) await page.locator(`#study-m-${m}`).uncheck();
  await page.getByRole("link", { name: "Next: which models" }).click();
  await expect(page.locator("#study-t1-provider")).toBeVisible({ timeout: 15_000 });
  await page.locator("#study-t1-provider").selectOption("openai-compatible");
  await page.locator("#study-t1-base").fill(`${mock.base}/v1`);
  await page.locator("#study-t1-models").fill("mock-a");
  await page.locator("#study-t1-concurrency").fill("2");
  await page.getByRole("link", { name: "Next: the plan" }).click();
  await expect(page.locator("#study-plan-summary")).toContainText("calls to providers");
  const calls = Number((await page.locator("#study-plan-summary").textContent()).match(/^(\d+) calls/)[1]);
  // A model with no price is "not priced", never a cost of 0.
  await expect(page.locator("#study-plan-summary")).toContainText(/estimated cost not priced \(openai-compatible:mock-a\)/);
  await page.getByRole("link", { name: "Next: run or upload" }).click();
  await expect(page.locator("#study-step4-title")).toBeVisible();
  return calls;
}

/** Clicks "Run the study" and gets past a confirmation; returns the confirmation's text. */
async function runStudy(page, yes = /Start anyway|Resume/) {
  await page.getByRole("button", { name: "Run the study" }).click();
  const confirm = page.locator("#study-confirm");
  // A confirmation, or the run under way; a small run against a fast mock may already have
  // finished and moved on to the report (where the counts are gone) between two polls.
  const state = () => page.evaluate(() => document.getElementById("study-counts")?.dataset.state);
  const started = async () => (await confirm.isVisible()) || /#study\/report$/.test(page.url()) ||
    ["running", "finished"].includes(await state());
  await expect.poll(started).toBe(true);
  if (!(await confirm.isVisible())) return "";
  const text = await confirm.textContent();
  await confirm.getByRole("button", { name: yes }).click();
  return text;
}

/** Cancels the run once `atLeast` calls are answered; returns the counts once nothing is in flight. */
async function cancelAfter(page, mock, atLeast) {
  await expect.poll(async () => (await counts(page)).answered, { timeout: 60_000 }).toBeGreaterThanOrEqual(atLeast);
  // Pause and Cancel are in view as soon as the run starts (scrolled to).
  await expect(page.locator("#study-cancel")).toBeInViewport();
  await page.getByRole("button", { name: "Cancel" }).click();
  await expect.poll(async () => (await counts(page)).state).toBe("cancelled");
  // Calls in flight at the cancel still complete and are stored: wait until the mock is quiet.
  let last = -1;
  await expect.poll(async () => {
    const now = (await mock.stats()).total;
    const quiet = now === last;
    last = now;
    return quiet;
  }, { intervals: [500] }).toBe(true);
  await expect.poll(async () => (await counts(page)).answered).toBe((await mock.stats()).total);
  return counts(page);
}

test("25a. cancel, then run again: the run resumes, says how many calls remain, and pays each call once", async ({ page }) => {
  test.setTimeout(240_000);
  const errors = watchErrors(page);
  const mock = await startMock(["--latency-ms", "150"]);
  try {
    // The example's share link first: a later report must not show it.
    await open(page, "./#study/example");
    await expect(page.locator("#study-report-title")).toBeVisible({ timeout: 30_000 });
    await page.getByRole("button", { name: "Copy the share link" }).click();
    await expect(page.locator("#study-share-link")).toHaveValue(/#s1\./);
    const exampleLink = await page.locator("#study-share-link").inputValue();
    const calls = await newStudy(page, mock, "Cancel and resume");
    expect(calls).toBeGreaterThan(30);
    await runStudy(page);
    // The progress line gives an estimate of the time left.
    await expect(page.locator("#study-counts")).toContainText(/About .* left at/, { timeout: 30_000 });
    const cancelled = await cancelAfter(page, mock, 10);
    expect(cancelled.answered).toBeLessThan(calls);
    await expect(page.locator("#study-counts")).toContainText("the answers so far are kept");
    await shot(page, "study-cancelled");

    const text = await runStudy(page, "Resume");
    expect(text).toContain(`${calls - cancelled.answered} calls of ${calls} remain`);
    expect(text).toContain(`the ${cancelled.answered} answered in the earlier run`);
    await expect(page).toHaveURL(/#study\/report$/, { timeout: 180_000 });
    const stats = await mock.stats();
    console.log(`cancel + resume: ${calls} calls planned, ${cancelled.answered} before the cancel, mock saw ${stats.total}`);
    expect(stats.total).toBe(calls);
    expect(Math.max(...Object.values(stats.cases))).toBe(1);

    // Each report its own share link: the example's is not shown here, nor given again.
    await expect(page.locator("#study-report-title")).toContainText("Cancel and resume", { timeout: 30_000 });
    // The report holds every answer: those before the cancel and those after.
    await expect(page.locator("#study-models tbody tr td").nth(0)).toHaveText(String(calls));
    await expect(page.locator("#study-share-link")).toBeHidden();
    await page.getByRole("button", { name: "Copy the share link" }).click();
    await expect.poll(async () => (await page.locator("#study-share-link").isVisible()) || (await page.locator("#study-share-note").isVisible())).toBe(true);
    expect(await page.locator("#study-share-link").inputValue()).not.toBe(exampleLink);
    console.log(`share link of a ${calls}-call provider study: ${(await page.locator("#study-share-link").inputValue()).length} characters`);
    expect(errors).toEqual([]);
  } finally {
    mock.stop();
  }
});

test("25b. a run belongs to its study: another study is not offered it, and nothing replaces the open study without asking", async ({ page }) => {
  test.setTimeout(240_000);
  const errors = watchErrors(page);
  const mock = await startMock(["--latency-ms", "150"]);
  try {
    await open(page, "./");
    const calls = await newStudy(page, mock, "Study A");
    await runStudy(page);
    const cancelled = await cancelAfter(page, mock, 5);

    // A different study (another title) does not resume A's run: it is named as another study's.
    await newStudy(page, mock, "Study B");
    await expect(page.locator("#study-resume-text")).toContainText("another study, “Study A”");
    await expect(page.getByRole("button", { name: "Run the study" })).toBeVisible();
    await page.getByRole("button", { name: "Open that study and resume its run" }).click();
    await expect(page.locator("#study-replace")).toBeVisible();
    await expect(page.locator("#study-replace-text")).toContainText("“Study B” is open here");
    await shot(page, "study-replace-ask");
    await page.getByRole("button", { name: "Keep the open study" }).click();
    expect(JSON.parse(await page.evaluate(() => sessionStorage.getItem("evenhand-study-open"))).title).toBe("Study B");
    expect((await mock.stats()).total).toBe(cancelled.answered); // nothing was sent

    // The example asks first too; declined, the address goes back to the step shown.
    await page.evaluate(() => { location.hash = "#study/example"; });
    await expect(page.locator("#study-replace")).toBeVisible();
    await page.getByRole("button", { name: "Keep the open study" }).click();
    await expect(page).toHaveURL(/#study\/run$/);
    expect(JSON.parse(await page.evaluate(() => sessionStorage.getItem("evenhand-study-open"))).title).toBe("Study B");

    // Study A again, as it was: its own run is offered, and resuming it pays each call once.
    await newStudy(page, mock, "Study A");
    await expect(page.locator("#study-resume-text")).toContainText("An unfinished run of this study");
    await expect(page.locator("#study-resume-text")).toContainText(`${calls - cancelled.answered} calls remain`);
    await page.getByRole("button", { name: "Resume the study run" }).click();
    await expect(page).toHaveURL(/#study\/report$/, { timeout: 180_000 });
    const stats = await mock.stats();
    expect(stats.total).toBe(calls);
    expect(Math.max(...Object.values(stats.cases))).toBe(1);

    // With the example declined before, now accepted: it opens.
    await page.evaluate(() => { location.hash = "#study/example"; });
    await expect(page.locator("#study-replace")).toBeVisible();
    await page.getByRole("button", { name: "Replace it" }).click();
    await expect(page.locator("#study-report-title")).toContainText("example", { ignoreCase: true, timeout: 30_000 });
    expect(errors).toEqual([]);
  } finally {
    mock.stop();
  }
});

test("25c. a reload during a run comes back to step 4 with the study, its form and the run's resume offer", async ({ page }) => {
  test.setTimeout(240_000);
  const errors = watchErrors(page);
  const mock = await startMock(["--latency-ms", "150"]);
  try {
    await open(page, "./");
    const calls = await newStudy(page, mock, "Reloaded study");
    await runStudy(page);
    await expect.poll(async () => (await counts(page)).answered, { timeout: 60_000 }).toBeGreaterThanOrEqual(5);
    await page.reload();
    await expect(page.locator("body")).toHaveAttribute("data-ready", "1", { timeout: 15_000 });
    await expect(page).toHaveURL(/#study\/run$/);
    await expect(page.locator("#study-step4-title")).toBeVisible();
    await expect(page.locator("#study-resume-text")).toContainText("An unfinished run of this study", { timeout: 15_000 });
    await shot(page, "study-reloaded");
    // The form is as it was (the key aside: it is never stored).
    await expect(page.locator("#study-title")).toHaveValue("Reloaded study");
    await expect(page.locator("#study-m-bbq")).not.toBeChecked();
    await expect(page.locator("#study-t1-provider")).toHaveValue("openai-compatible", { timeout: 15_000 });
    await expect(page.locator("#study-t1-base")).toHaveValue(`${mock.base}/v1`);
    await expect(page.locator("#study-t1-models")).toHaveValue("mock-a");
    await page.getByRole("button", { name: "Resume the study run" }).click();
    await expect(page).toHaveURL(/#study\/report$/, { timeout: 180_000 });
    await expect(page.locator("#study-report-title")).toContainText("Reloaded study", { timeout: 30_000 });
    const stats = await mock.stats();
    // Only the calls in flight at the reload may have been sent twice (their answers never arrived).
    expect(stats.total).toBeLessThanOrEqual(calls + 2);
    expect(errors).toEqual([]);
  } finally {
    mock.stop();
  }
});

test("25d. a study file naming an uploaded BBQ category file and a provider target runs in the page once the file and a base URL are given; its link rebuilds the report", async ({ page, browser }) => {
  test.setTimeout(180_000);
  const errors = watchErrors(page);
  const mock = await startMock(["--latency-ms", "5"]);
  try {
    const data = bbqCategoryFile(5);
    const sha = createHash("sha256").update(data).digest("hex");
    const study = {
      format: "evenhand-study", version: 1, title: "A BBQ category file on a provider", question: "Is mock-a biased on gender identity?",
      targets: ["openai-compatible:mock-a", "simulated:fair"],
      methods: { bbq: { dataset: { file: "Gender_identity.jsonl", sha256: sha } } },
      statistics: { replicates: 200 },
    };
    await open(page, "./");
    await page.locator("#home-study-file").setInputFiles({ name: "bbq-study.json", mimeType: "application/json", buffer: Buffer.from(JSON.stringify(study)) });
    await expect(page).toHaveURL(/#study\/plan-file$/);
    // The study names a file: it is asked for, and a wrong one is refused at its slot.
    await expect(page.locator("#study-files-needed")).toContainText("names a file to add");
    const slot = page.getByLabel("Gender_identity.jsonl (methods.bbq.dataset)");
    await slot.setInputFiles({ name: "Gender_identity.jsonl", mimeType: "application/x-ndjson", buffer: bbqCategoryFile(4) });
    await expect(page.locator("#study-add-file-0-error")).toContainText(sha);
    await shot(page, "study-file-slot-error");
    await slot.setInputFiles({ name: "my-copy.jsonl", mimeType: "application/x-ndjson", buffer: data });
    await expect(page.locator("#study-plan-summary")).toContainText("20 calls to providers");
    await page.getByRole("link", { name: "Next: run or upload" }).click();

    // Its provider target: a base URL (the mock needs no key), then the run.
    await expect(page.locator("#study-run-note")).toContainText("give its providers' base URLs and keys");
    await page.getByLabel("Base URL for openai-compatible (empty: the provider's own)").fill(`${mock.base}/v1`);
    await shot(page, "study-file-targets");
    await runStudy(page);
    await expect(page).toHaveURL(/#study\/report$/, { timeout: 120_000 });
    await expect(page.locator("#study-report-title")).toContainText("A BBQ category file on a provider", { timeout: 30_000 });
    await expect(page.locator("#study-models tbody tr")).toHaveCount(2);
    await expect(page.locator("#study-section-bbq")).toBeVisible();
    const stats = await mock.stats();
    expect(stats.total).toBe(20);

    // Its share link carries the records (they fit a link) and rebuilds the report elsewhere.
    await page.getByRole("button", { name: "Copy the share link" }).click();
    await expect(page.locator("#study-share-link")).toHaveValue(/#b1\./);
    const link = await page.locator("#study-share-link").inputValue();
    console.log(`share link of the BBQ file study: ${link.length} characters`);
    const other = await browser.newContext();
    try {
      const receiver = await other.newPage();
      await open(receiver, `./${link.slice(link.indexOf("#"))}`);
      await expect(receiver.locator("#study-report-title")).toContainText("A BBQ category file on a provider", { timeout: 30_000 });
      await expect(receiver.locator("#study-models tbody tr")).toHaveCount(2);
      await expect(receiver.locator("#study-models")).toContainText("mock-a");
    } finally {
      await other.close();
    }
    expect(errors).toEqual([]);
  } finally {
    mock.stop();
  }
});

test("25e. a provider study too large for a link: the sender is told it needs its bundle, and a receiver of the study's link is told what is missing", async ({ page, browser }) => {
  const errors = watchErrors(page);
  await open(page, "./");
  const study = {
    format: "evenhand-study", version: 1, title: "Answers too many for a link", question: "Do two models refuse alike?",
    targets: ["openai-compatible:model-u", "openai-compatible:model-v"],
    methods: { crosslingual: { questions: { builtin: "evenhand" }, languages: ["en", "es"], modes: ["non_acceptable"] } },
  };
  await page.locator("#home-study-file").setInputFiles({ name: "big-study.json", mimeType: "application/json", buffer: Buffer.from(JSON.stringify(study)) });
  await expect(page).toHaveURL(/#study\/plan-file$/);
  await page.getByRole("link", { name: "Next: run or upload" }).click();
  const [dl] = await Promise.all([page.waitForEvent("download"), page.getByRole("button", { name: "Download the cases (JSONL)" }).click()]);
  const cases = readFileSync(await dl.path(), "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l));
  // Long answers that do not compress (a hash chain): far more than a link holds.
  let h = "seed";
  const noise = () => Array.from({ length: 12 }, () => (h = createHash("sha256").update(h).digest("hex"))).join(" ");
  const rows = cases.flatMap((c) => ["model-u", "model-v"].map((model) => ({
    ...c, record_id: `${c.record_id || c.case_id}-${model}`, provider: "openai-compatible", model, status: "ok", response: `Yes. ${noise()}`,
  })));
  // A slot's error stays until that slot takes a file, whatever another slot does meanwhile.
  const xlSlot = page.getByLabel("Cross-lingual refusals records");
  await xlSlot.setInputFiles({ name: "broken.csv", mimeType: "text/csv", buffer: Buffer.from("x\n1\n") });
  await expect(page.locator("#study-up-crosslingual-error")).toContainText("broken.csv");
  await page.getByLabel("One record table with a method column").setInputFiles({ name: "answers.jsonl", mimeType: "application/x-ndjson",
    buffer: Buffer.from(rows.map((r) => JSON.stringify(r)).join("\n") + "\n") });
  await expect(page.locator("#study-upload-result")).toContainText(`answers.jsonl: ${rows.length} records`);
  await expect(page.locator("#study-up-crosslingual-error")).toContainText("broken.csv");
  await xlSlot.setInputFiles({ name: "answers-xl.jsonl", mimeType: "application/x-ndjson",
    buffer: Buffer.from(rows.map((r) => JSON.stringify(r)).join("\n") + "\n") });
  await expect(page.locator("#study-upload-result")).toContainText("answers-xl.jsonl");
  await expect(page.locator("#study-up-crosslingual-error")).toBeHidden();
  await page.getByRole("button", { name: "Make the report" }).click();
  await expect(page).toHaveURL(/#study\/report$/);
  await expect(page.locator("#study-models tbody tr")).toHaveCount(2, { timeout: 15_000 });
  await page.getByRole("button", { name: "Copy the share link" }).click();
  await expect(page.locator("#study-share-note")).toContainText("This study needs its bundle");
  await expect(page.locator("#study-share-note")).toContainText("the answers of openai-compatible:model-u, the answers of openai-compatible:model-v");
  await expect(page.locator("#study-share-link")).toBeHidden();
  await shot(page, "study-share-needs-bundle");

  // A link with the study alone (as an older page made for such a study) tells its receiver
  // what is missing instead of showing an empty report.
  const link = `./#s1.${deflateRawSync(Buffer.from(JSON.stringify(study))).toString("base64url")}`;
  const other = await browser.newContext();
  try {
    const receiver = await other.newPage();
    await open(receiver, link);
    await expect(receiver.locator("#study-report-error")).toContainText("but not the answers of openai-compatible:model-u", { timeout: 30_000 });
    await expect(receiver.locator("#study-report-error")).toContainText("study bundle");
    await expect(receiver.locator("#study-report-body")).toBeEmpty();
    await receiver.screenshot({ path: "target/e2e-results/screens/study-share-receiver.png" });
  } finally {
    await other.close();
  }
  expect(errors).toEqual([]);
});
