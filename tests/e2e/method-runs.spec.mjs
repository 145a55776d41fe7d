// The methods' provider cases reach the Run tab: the Cross-lingual and Divergence tabs download
// their cases as a JSONL file that the Run tab plans as it is (one call per case and model).
import { test, expect } from "@playwright/test";
import { readFileSync } from "node:fs";
import { open, openCrossLingualFixture, tab, watchErrors } from "./helpers.mjs";

async function downloadText(page, button) {
  const [d] = await Promise.all([page.waitForEvent("download"), button.click()]);
  return { name: d.suggestedFilename(), text: readFileSync(await d.path(), "utf8") };
}

async function planInRunTab(page, file) {
  await tab(page, "Run");
  await expect(page.locator("#panel-run")).toHaveAttribute("data-ready", "1", { timeout: 15_000 });
  await page.locator("#run-t1-provider").selectOption("openai-compatible");
  await page.locator("#run-t1-base").fill("http://127.0.0.1:9/v1");
  await page.locator("#run-t1-models").fill("some-model");
  await page.getByLabel("Choose a cases file").setInputFiles({ name: file.name, mimeType: "application/jsonl", buffer: Buffer.from(file.text) });
  await page.getByRole("button", { name: "Plan" }).click();
}

test("cross-lingual cases go to the Run tab as a cases file", async ({ page }) => {
  const errors = watchErrors(page);
  await openCrossLingualFixture(page);
  const file = await downloadText(page, page.getByRole("button", { name: "Download the cases for the Run tab" }).first());
  expect(file.name).toBe("crosslingual-cases.jsonl");
  const rows = file.text.trim().split("\n").map((l) => JSON.parse(l));
  const modes = await page.locator("#crosslingual-modes input:checked").count();
  expect(rows.length).toBe(6 * 2 * modes);
  expect(new Set(rows.map((r) => r.language))).toEqual(new Set(["en", "de"]));
  expect(rows.every((r) => r.prompt && r.question_id && r.status === "pending")).toBe(true);
  await planInRunTab(page, file);
  await expect(page.locator("#run-plan-summary")).toContainText(`${rows.length} calls`);
  expect(errors).toEqual([]);
});

test("divergence sampling and scoring cases go to the Run tab", async ({ page }) => {
  const errors = watchErrors(page);
  await open(page);
  await tab(page, "Divergence");
  await expect(page.locator("#divergence-probes-result")).not.toBeEmpty({ timeout: 15_000 });
  const files = {};
  for (const mode of ["sampling", "scoring"]) {
    await page.locator("#divergence-mode").selectOption(mode);
    files[mode] = await downloadText(page, page.locator("#divergence-cases-download"));
  }
  expect(files.sampling.name).toBe("divergence-sample-cases.jsonl");
  const sample = files.sampling.text.trim().split("\n").map((l) => JSON.parse(l));
  const score = files.scoring.text.trim().split("\n").map((l) => JSON.parse(l));
  expect(sample.length).toBeGreaterThan(10);
  expect(score.length).toBeGreaterThan(sample.length); // one per filler of each context
  await planInRunTab(page, files.sampling);
  await expect(page.locator("#run-plan-summary")).toContainText(`${sample.length} calls`);
  expect(errors).toEqual([]);
});
