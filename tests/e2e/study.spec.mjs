// The study flow (issue 16): the home screen, the example study's report, a new study over two
// mocked providers to the downloaded report, and a study file with a bad field.
import { test, expect } from "@playwright/test";
import { open, shot, watchErrors } from "./helpers.mjs";

test("16a. the page opens on the home screen; the tools sit behind the Expert tools menu", async ({ page }) => {
  const errors = watchErrors(page);
  await open(page, "./");
  await expect(page.locator("#view-home")).toBeVisible();
  await expect(page.getByRole("heading", { level: 2, name: "Does your model treat people evenly?" })).toBeVisible();
  await expect(page.getByRole("link", { name: "Open the example study" })).toBeVisible();
  await expect(page.getByRole("link", { name: "New study" }).first()).toBeVisible();
  await expect(page.getByRole("tablist")).toBeHidden();
  await shot(page, "study-home-1280");
  await page.getByRole("button", { name: "Expert tools" }).click();
  await expect(page.getByRole("menuitem")).toHaveCount(10);
  await shot(page, "study-home-menu");
  await page.getByRole("menuitem", { name: "Benchmarks" }).click();
  await expect(page.locator("#panel-bench")).toBeVisible();
  await expect(page).toHaveURL(/#tools\/bench$/);
  await page.getByRole("link", { name: "Home" }).click();
  await expect(page.locator("#view-home")).toBeVisible();
  await page.setViewportSize({ width: 390, height: 844 });
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(391);
  await shot(page, "study-home-390");
  expect(errors).toEqual([]);
});
