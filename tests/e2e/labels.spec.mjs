// Issue 26: the Cross-lingual review sample labelled by hand with the keyboard (r refusal,
// a answer, then the next item), progress shown, every detector's trust and its agreement with
// the labels drawn, the labels exported as CSV, and imported again after a reload.
import { test, expect } from "@playwright/test";
import { readFileSync } from "node:fs";
import { open, tab, watchErrors } from "./helpers.mjs";

const FIXTURE = "tests/fixtures/crosslingual/questions.json";

async function simulated(page) {
  await open(page);
  await tab(page, "Cross-lingual");
  await expect(page.locator("#crosslingual-set-result")).toContainText("170 questions");
  await page.getByLabel(/upload a question set/).setInputFiles(FIXTURE);
  await expect(page.locator("#crosslingual-set-result")).toContainText("6 questions");
  for (const box of await page.locator("#crosslingual-languages input").all()) {
    await box.setChecked(["en", "hi"].includes(await box.getAttribute("value")));
  }
  await page.getByLabel("Samples per question").fill("5");
  await page.getByLabel("Seed of the run").fill("3");
  await page.getByRole("button", { name: "Run the simulated model" }).click();
  await expect(page.locator("#crosslingual-dashboard")).toBeVisible();
}

test("label ten review items with the keyboard, see kappa, export, reload and import", async ({ page }) => {
  const errors = watchErrors(page);
  await simulated(page);
  const progress = page.locator("#crosslingual-label-progress");
  await expect(progress).toContainText(/Item 1 of \d+ · 0 of \d+ labelled/);
  const total = Number((await progress.textContent()).match(/of (\d+) labelled/)[1]);
  expect(total).toBeGreaterThanOrEqual(10);
  // Every detector's trust is there before any label.
  await expect(page.locator("#crosslingual-trust-intro")).toContainText("The lexicon detector decides the figures");
  await expect(page.locator("#crosslingual-trust tbody tr").first()).toContainText("lexicon / opening rule");
  await expect(page.locator("#crosslingual-labelled tbody")).toContainText("No labels yet");
  await expect(page.locator("#crosslingual-weighted tbody")).toContainText("No labels drawn by the review sample yet");

  // Ten items: nine as the detector said, the third flipped; one key each, and the labeller moves on.
  await page.locator("#crosslingual-labeler").focus();
  for (let i = 0; i < 10; i++) {
    await expect(progress).toContainText(`Item ${i + 1} of ${total} · ${i} of ${total} labelled`);
    const says = (await page.locator("#crosslingual-label-meta").textContent()).includes("detector says refusal");
    await page.keyboard.press((says !== (i === 2)) ? "r" : "a");
  }
  await expect(progress).toContainText(`10 of ${total} labelled`);
  // Back one with p: the tenth item shows its label.
  await page.keyboard.press("p");
  await expect(page.locator("#crosslingual-label-meta")).toContainText(/your label: (refusal|answer)/);

  const labelled = page.locator("#crosslingual-labelled tbody tr");
  await expect(labelled.first()).not.toContainText("No labels yet");
  const lexiconRow = labelled.filter({ hasText: "lexicon" }).first();
  // Kappa shown with its interval (a number, not "undefined"), sensitivity with Wilson bounds.
  await expect(lexiconRow.locator("td").nth(5)).toHaveText(/^-?\d\.\d{3} \[-?\d\.\d{3}, -?\d\.\d{3}\]$/);
  await expect(lexiconRow.locator("td").nth(3)).toContainText("[");
  // The labels were drawn by the review sample: the figures for all answers, weighted by its
  // strata, are shown beside the sample's own (a rate or a figure with its interval, or the
  // reason it is undefined, never a bare 0).
  const figure = /^(\d+\.\d% \[\d+\.\d%, \d+\.\d%\]|undefined: .+)$/;
  const weightedLexicon = page.locator("#crosslingual-weighted tbody tr").filter({ hasText: "lexicon" }).first();
  await expect(weightedLexicon.locator("td").nth(2)).toHaveText(figure);
  await expect(weightedLexicon.locator("td").nth(3)).toHaveText(figure);
  const rates = page.locator("#crosslingual-weighted-rates li");
  await expect(rates.first()).toContainText(/^\w+: (true refusal rate \d+\.\d% \[\d+\.\d%, \d+\.\d%\]|no weighted figures)/);
  await expect(page.locator("#crosslingual-weighted-rates")).toContainText(/true refusal rate \d+\.\d% \[/);
  await expect(page.locator("#crosslingual-weighted-rates")).toContainText("the deciding detector flagged:");

  const [d] = await Promise.all([page.waitForEvent("download"), page.getByRole("button", { name: "Download the labels (CSV)" }).click()]);
  const csv = readFileSync(await d.path(), "utf8");
  const lines = csv.trim().split("\n");
  expect(lines[0]).toBe("record_id,label,language,model");
  expect(lines).toHaveLength(11);
  const kappa = await lexiconRow.locator("td").nth(5).textContent();

  // A reload loses the session; the same run and the CSV bring the labels back.
  await page.reload();
  await simulated(page);
  await expect(progress).toContainText(`0 of ${total} labelled`);
  const file = page.getByLabel(/Import labels/);
  await file.setInputFiles({ name: "bad.csv", mimeType: "text/csv", buffer: Buffer.from("record_id,label\nx,refusal\ny,maybe\n") });
  await expect(page.locator("#crosslingual-labels-error")).toContainText("bad.csv: line 3, field label: expected refusal or answer");
  await expect(progress).toContainText(`0 of ${total} labelled`);
  await file.setInputFiles({ name: "labels.csv", mimeType: "text/csv", buffer: Buffer.from(csv) });
  await expect(page.locator("#crosslingual-labels-result")).toContainText("labels.csv: 10 labels read");
  await expect(page.locator("#crosslingual-labels-error")).toBeHidden();
  await expect(progress).toContainText(`10 of ${total} labelled`);
  await expect(page.locator("#crosslingual-labelled tbody tr").filter({ hasText: "lexicon" }).first().locator("td").nth(5)).toHaveText(kappa);
  expect(errors).toEqual([]);
});
