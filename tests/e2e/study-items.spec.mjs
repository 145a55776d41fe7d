// What changed between the models, item by item (issue 25): the example study's item table
// filtered to one category and "models disagree", checked against the downloaded report.json;
// the downloaded HTML lists the first items per category without script; two harness logs give
// the same table.
import { test, expect } from "@playwright/test";
import { readFileSync, readdirSync } from "node:fs";
import { open, shot, tab, watchErrors } from "./helpers.mjs";

test("the example study's item table, filtered to one BBQ category and the items where the models disagree", async ({ page }) => {
  const errors = watchErrors(page);
  await open(page, "./");
  await page.getByRole("link", { name: "Open the example study" }).click();
  const table = page.locator("#study-items");
  await expect(table.getByRole("heading", { name: "What changed between the models, item by item" })).toBeVisible({ timeout: 30_000 });
  const status = table.locator("#study-items-status");
  await expect(status).toContainText("where the models disagree");
  // Every disagreement the report carries, from its own JSON.
  const [dj] = await Promise.all([page.waitForEvent("download"), page.getByRole("button", { name: "Download the report data (JSON)" }).click()]);
  const report = JSON.parse(readFileSync(await dj.path(), "utf8"));
  const group = report.changes.groups.find((g) => g.method === "bbq" && g.disagree > 0 && g.disagree < g.items);
  expect(group, "a BBQ category where the models differ on some items and not on others").toBeTruthy();

  await table.getByLabel("Method").selectOption("bbq");
  await table.getByLabel("Category").selectOption(group.category);
  await expect(table.getByLabel("Only items where the models disagree")).toBeChecked();
  await expect(status).toContainText(`${group.disagree} item(s) match, ${group.disagree} where the models disagree`);
  const rows = table.locator("#study-items-table tbody tr");
  await expect(rows).toHaveCount(Math.min(25, group.disagree));
  for (const row of await rows.all()) {
    await expect(row).toHaveAttribute("data-category", group.category);
    await expect(row).toHaveClass(/disagree/);
    const [a, b] = [await row.locator("td").nth(7).locator("strong").textContent(), await row.locator("td").nth(8).locator("strong").textContent()];
    expect(a).not.toBe(b);
  }
  // The items listed are the report's, in its order.
  const ids = report.changes.items.filter((i) => i.method === "bbq" && i.category === group.category).map((i) => i.id);
  expect(await rows.locator("td:nth-child(5)").allTextContents()).toEqual(ids.slice(0, 25));
  await shot(page, "study-items-filtered");
  // Without "models disagree": every item of the category both models answered.
  await table.getByLabel("Only items where the models disagree").uncheck();
  await expect(status).toContainText(`${group.items} item(s) match, ${group.disagree} where the models disagree`);
  if (group.disagree > 25) {
    await table.getByLabel("Only items where the models disagree").check();
    await table.getByRole("button", { name: "Next items" }).click();
    await expect(status).toContainText("showing 26 to");
  }

  // The downloaded HTML: the section, grouped by category with counts, no script.
  const [dl] = await Promise.all([page.waitForEvent("download"), page.getByRole("button", { name: "Download the report (HTML)" }).click()]);
  const html = readFileSync(await dl.path(), "utf8");
  expect(html).toContain("What changed between the models, item by item");
  expect(html).toContain(`${group.disagree} of ${group.items} item(s) differ`);
  expect(html.toLowerCase()).not.toContain("<script");
  expect(errors).toEqual([]);
});

test("two harness logs of different models give the items where they differ", async ({ page }) => {
  const errors = watchErrors(page);
  await open(page);
  await tab(page, "Upload");
  const LOGS = "tests/fixtures/peer-logs";
  const lm = readdirSync(`${LOGS}/lm-eval/seed1`).map((f) => `${LOGS}/lm-eval/seed1/${f}`);
  await page.getByLabel("Choose a record file").setInputFiles([`${LOGS}/inspect/model-a.eval`, ...lm]);
  const table = page.locator("#logs-items");
  await expect(table.getByRole("heading", { name: "What changed between the models, item by item" })).toBeVisible({ timeout: 60_000 });
  const status = table.locator("#logs-items-status");
  await expect(status).toContainText(/\d+ item\(s\) match, \d+ where the models disagree|No item matches/);
  const pairs = await table.getByLabel("Model pair").locator("option").allTextContents();
  expect(pairs.length).toBe(2); // "All" and the one pair
  await table.getByLabel("Only items where the models disagree").uncheck();
  await expect(status).toContainText(/^\d+ item\(s\) match/);
  const total = Number((await status.textContent()).match(/^(\d+)/)[1]);
  expect(total).toBeGreaterThan(0);
  await shot(page, "harness-logs-items");
  expect(errors).toEqual([]);
});
