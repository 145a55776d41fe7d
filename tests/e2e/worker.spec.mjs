// The wasm runs in a worker: a long computation leaves the page responsive.
import { test, expect } from "@playwright/test";
import { open, shot, tab } from "./helpers.mjs";

test("9. a long power computation does not freeze the page", async ({ page }) => {
  await open(page);
  await tab(page, "Design");
  await page.getByLabel("Repetitions").fill("200000");
  await page.getByLabel("Cases per community (comma list)").fill("10, 20, 40, 80, 160, 320");
  await page.evaluate(() => {
    window.__ticks = 0;
    setInterval(() => window.__ticks++, 50);
  });
  const ticks = () => page.evaluate(() => window.__ticks);
  const startTicks = await ticks();
  const started = Date.now();
  await page.getByRole("button", { name: "Compute power" }).click();
  await expect(page.locator("#power-busy")).toBeVisible();
  await expect(page.getByRole("button", { name: "Compute power" })).toBeDisabled();
  await expect(page.locator("#power-chart")).toBeVisible({ timeout: 60_000 });
  const elapsed = Date.now() - started;
  const advanced = (await ticks()) - startTicks;
  console.log(`power: ${elapsed} ms, main-thread ticks advanced ${advanced}`);
  expect(elapsed).toBeGreaterThan(1000); // big enough to matter
  expect(advanced).toBeGreaterThan(10);
  expect(advanced).toBeGreaterThan((elapsed / 50) * 0.5); // the page ticked most of the time
  await expect(page.locator("#power-busy")).toBeHidden();
  await expect(page.locator("#power-table tbody tr")).toHaveCount(6);
  await expect(page.locator("#power-chart")).toHaveAttribute("alt", /power to tell 5% from 15% biased answers/);
  // Power grows with the number of cases.
  const powers = (await page.locator("#power-table tbody td:nth-child(2)").allTextContents()).map(parseFloat);
  expect(powers[5]).toBeGreaterThan(powers[0]);
  await shot(page, "power");

  await page.getByLabel("Alpha").fill("2");
  await page.getByRole("button", { name: "Compute power" }).click();
  await expect(page.locator("#power-error")).toContainText("alpha");
});

test("9b. a power computation shows its progress and can be cancelled", async ({ page }) => {
  await open(page);
  await tab(page, "Design");
  await page.getByLabel("Repetitions").fill("400000");
  await page.getByLabel("Cases per community (comma list)").fill("10, 20, 40, 80, 160, 320");
  await page.getByRole("button", { name: "Compute power" }).click();
  await expect(page.locator("#power-status")).toHaveText(/^[1-4] of 6 sizes done$/, { timeout: 30_000 });
  expect(Number(await page.locator("#power-progress").getAttribute("value") ?? await page.locator("#power-progress").evaluate((p) => p.value))).toBeGreaterThan(0);
  await page.getByRole("button", { name: "Cancel" }).click();
  await expect(page.locator("#power-error")).toContainText("Cancelled after", { timeout: 30_000 });
  const rows = await page.locator("#power-table tbody tr").count();
  expect(rows).toBeGreaterThan(0);
  expect(rows).toBeLessThan(6);
  await expect(page.getByRole("button", { name: "Compute power" })).toBeEnabled();
});
