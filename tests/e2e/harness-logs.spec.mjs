// Harness logs on the Upload tab: an Inspect .eval archive and an lm-evaluation-harness samples
// file with its results file, dropped together, give BBQ's figures per model beside the
// harness's own and the paired comparison of the two models (matched by the dataset's ids).
import { test, expect } from "@playwright/test";
import { readdirSync } from "node:fs";
import { open, recordCount, shot, tab, watchErrors } from "./helpers.mjs";

const LOGS = "tests/fixtures/peer-logs";

test("an Inspect log and an lm-eval log dropped on the page are compared", async ({ page }) => {
  const errors = watchErrors(page);
  await open(page);
  await tab(page, "Upload");
  const lm = readdirSync(`${LOGS}/lm-eval/seed1`).map((f) => `${LOGS}/lm-eval/seed1/${f}`);
  await page.getByLabel("Choose a record file").setInputFiles([`${LOGS}/inspect/model-a.eval`, ...lm]);
  const logs = page.locator("#harness-logs");
  await expect(logs).toBeVisible();
  const comparisons = logs.locator("table", { hasText: "Paired comparisons" });
  await expect(comparisons).toBeVisible({ timeout: 60_000 });
  // Both models, each with its BBQ table, and every comparison between them.
  await expect(logs.locator("caption", { hasText: "BBQ, mockllm/model-a" })).toHaveCount(1);
  await expect(logs.locator("caption", { hasText: "BBQ, lm-eval model" })).toHaveCount(0);
  await expect(logs.locator("caption", { hasText: /^BBQ, dummy/ })).toHaveCount(1);
  const rows = comparisons.locator("tbody tr");
  expect(await rows.count()).toBeGreaterThanOrEqual(3);
  await expect(rows.first()).toContainText("mockllm/model-a");
  await expect(rows.first()).toContainText("dummy");
  // Each harness's own figures beside Evenhand's (lm-eval's accuracies and bias scores,
  // Inspect's accuracy), and the line that says how lm-eval's scoring differs.
  await expect(logs.locator("caption", { hasText: "the harness's own figures" })).toHaveCount(2);
  await expect(logs.locator("ul.notes")).toContainText("phrasings of unknown");
  // The logs' records are the workspace's records too: 64 items under each model.
  await expect.poll(() => recordCount(page)).toBe(128);
  await shot(page, "harness-logs");
  // A file that is not a log of either kind: a located error, the logs kept.
  await page.getByLabel("Choose a record file").setInputFiles({ name: "broken.eval", mimeType: "application/zip", buffer: Buffer.from("PK\u0003\u0004_journal/start.json") });
  await expect(page.locator("#upload-result")).toContainText("broken.eval");
  await expect(comparisons).toBeVisible();
  await page.getByRole("button", { name: "Forget these logs" }).click();
  await expect(logs).toBeHidden();
  expect(errors).toEqual([]);
});
