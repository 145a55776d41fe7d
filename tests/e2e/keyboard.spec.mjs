// Everything works from the keyboard: the tab bar and the upload control.
import { test, expect } from "@playwright/test";
import { open } from "./helpers.mjs";

const focusedId = (page) => page.evaluate(() => document.activeElement?.id);

/** Presses Tab until the element with `id` has the focus (at most `limit` presses). */
async function tabTo(page, id, limit = 8) {
  for (let i = 0; i < limit; i++) {
    await page.keyboard.press("Tab");
    if ((await focusedId(page)) === id) return;
  }
  throw new Error(`${id} not reached in ${limit} Tab presses`);
}

test("11. keyboard: tab bar with arrow keys, upload input reachable", async ({ page }) => {
  await open(page);
  // The header's links and the Expert tools menu come first, then the tab bar.
  await tabTo(page, "tab-results", 6); // the selected tab is the one tab stop
  // Focus is visible.
  expect(await page.locator("#tab-results").evaluate((t) => getComputedStyle(t).outlineStyle)).not.toBe("none");

  await page.keyboard.press("ArrowRight");
  expect(await focusedId(page)).toBe("tab-bench"); // Benchmarks, Datasets and Divergence sit between Results and Share
  await expect(page.locator("#panel-bench")).toBeVisible();
  await page.keyboard.press("ArrowRight");
  expect(await focusedId(page)).toBe("tab-datasets");
  await expect(page.locator("#panel-datasets")).toBeVisible();
  await page.keyboard.press("ArrowRight");
  expect(await focusedId(page)).toBe("tab-divergence");
  await expect(page.locator("#panel-divergence")).toBeVisible();
  await page.keyboard.press("ArrowRight");
  expect(await focusedId(page)).toBe("tab-crosslingual"); // then Cross-lingual
  await expect(page.locator("#panel-crosslingual")).toBeVisible();
  await page.keyboard.press("ArrowRight");
  expect(await focusedId(page)).toBe("tab-share");
  await expect(page.locator("#tab-share")).toHaveAttribute("aria-selected", "true");
  await expect(page.locator("#panel-share")).toBeVisible();
  await expect(page.locator("#panel-results")).toBeHidden();

  await page.keyboard.press("End");
  expect(await focusedId(page)).toBe("tab-credits");
  await page.keyboard.press("ArrowRight"); // wraps around
  expect(await focusedId(page)).toBe("tab-design");
  await page.keyboard.press("ArrowLeft");
  await page.keyboard.press("Home");
  expect(await focusedId(page)).toBe("tab-design");
  await page.keyboard.press("ArrowRight");
  expect(await focusedId(page)).toBe("tab-requirements"); // Requirements, then Run, then Upload
  await expect(page.locator("#panel-requirements")).toBeVisible();
  await page.keyboard.press("ArrowRight");
  expect(await focusedId(page)).toBe("tab-run");
  await page.keyboard.press("ArrowRight");
  expect(await focusedId(page)).toBe("tab-upload");
  await page.keyboard.press("Enter");
  await expect(page.locator("#tab-upload")).toHaveAttribute("aria-selected", "true");
  await expect(page.locator("#panel-upload")).toBeVisible();
  // Only one tab is in the Tab order.
  expect(await page.locator('[role="tab"][tabindex="0"]').count()).toBe(1);

  // From the tab, Tab walks into the panel and reaches the file input.
  let reached = false;
  for (let i = 0; i < 8 && !reached; i++) {
    await page.keyboard.press("Tab");
    reached = (await focusedId(page)) === "upload-file";
  }
  expect(reached).toBe(true);
  await expect(page.locator("#upload-file")).toHaveAccessibleName("Choose a record file or harness logs");

  // Shift+Tab back to the tab bar, then to Results with the arrow keys and Enter.
  let back = false;
  for (let i = 0; i < 8 && !back; i++) {
    await page.keyboard.press("Shift+Tab");
    back = (await focusedId(page)) === "tab-upload";
  }
  expect(back).toBe(true);
  await page.keyboard.press("ArrowRight");
  await page.keyboard.press("Enter");
  await expect(page.locator("#panel-results")).toBeVisible();
  // Buttons in the panel work with the keyboard too: Next page.
  await page.locator("#rec-next").focus();
  await page.keyboard.press("Enter");
  await expect(page.locator("#rec-range")).toHaveText(/^Records 26–50/);
});

test("11b. keyboard: from the home screen through the Expert tools menu to a tool, and back home", async ({ page }) => {
  await open(page, "./");
  await expect(page.locator("#view-home")).toBeVisible();
  await expect(page.getByRole("tablist")).toBeHidden(); // the tools sit behind the menu
  await tabTo(page, "tools-menu-button");
  expect(await page.locator("#tools-menu-button").evaluate((t) => getComputedStyle(t).outlineStyle)).not.toBe("none");
  await page.keyboard.press("ArrowDown"); // opens the menu on its first item
  await expect(page.locator("#tools-menu-button")).toHaveAttribute("aria-expanded", "true");
  await expect(page.getByRole("menuitem", { name: "Design" })).toBeFocused();
  await page.keyboard.press("ArrowUp"); // wraps to the last
  await expect(page.getByRole("menuitem", { name: "Credits" })).toBeFocused();
  await page.keyboard.press("Escape"); // closes, focus back on the button
  await expect(page.getByRole("menu")).toBeHidden();
  await expect(page.locator("#tools-menu-button")).toBeFocused();
  await page.keyboard.press("Enter");
  for (let i = 0; i < 3; i++) await page.keyboard.press("ArrowDown");
  await expect(page.getByRole("menuitem", { name: "Upload" })).toBeFocused();
  await page.keyboard.press("Enter");
  await expect(page).toHaveURL(/#tools\/upload$/);
  await expect(page.locator("#panel-upload")).toBeVisible();
  await expect(page.locator("#tab-upload")).toBeFocused(); // the focus follows to the tool
  await expect(page.getByRole("menu")).toBeHidden();
  // Arrow keys in the tab bar keep the address in step, and Back goes to the previous tool.
  await page.keyboard.press("ArrowRight");
  await expect(page).toHaveURL(/#tools\/results$/);
  await page.goBack();
  await expect(page.locator("#panel-upload")).toBeVisible();
  await page.goBack();
  await expect(page.locator("#view-home")).toBeVisible();
  // Every tool opens by its address.
  await page.goto("./#tools/divergence");
  await expect(page.locator("#panel-divergence")).toBeVisible();
  await expect(page.getByRole("tab", { name: "Divergence" })).toHaveAttribute("aria-selected", "true");
});
