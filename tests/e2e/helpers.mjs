// Shared steps of the end-to-end tests.
import { expect } from "@playwright/test";
import { readFileSync } from "node:fs";

export const FIXTURES = "target/e2e-fixtures";
export const SCREENS = "target/e2e-results/screens";

/** The native CLI's numbers for the built-in demo. */
export const nativeAnalysis = () => JSON.parse(readFileSync(`${FIXTURES}/demo/analysis.json`, "utf8"));

/** Collects page errors and console errors, so a test can assert there were none. */
export function watchErrors(page) {
  const errors = [];
  page.on("pageerror", (e) => errors.push(`pageerror: ${e.message}`));
  page.on("console", (m) => { if (m.type() === "error") errors.push(`console: ${m.text()}`); });
  return errors;
}

/** Opens the page and waits until everything is rendered (body[data-ready="1"]). */
export async function open(page, url = "./") {
  await page.goto(url);
  await expect(page.locator("body")).toHaveAttribute("data-ready", "1", { timeout: 15_000 });
}

export const recordCount = async (page) => Number(await page.locator("#summary").getAttribute("data-records"));

export async function tab(page, name) {
  await page.getByRole("tab", { name }).click();
  await expect(page.getByRole("tab", { name })).toHaveAttribute("aria-selected", "true");
}

/** Clicks a download button and returns the file's text. */
export async function downloadText(page, buttonName) {
  const [download] = await Promise.all([page.waitForEvent("download"), page.getByRole("button", { name: buttonName }).click()]);
  return { name: download.suggestedFilename(), text: readFileSync(await download.path(), "utf8") };
}

/** Uploads an in-memory file through the Upload tab's file input. */
export async function upload(page, name, text, mimeType = "text/plain") {
  await tab(page, "Upload");
  await page.getByLabel("Choose a record file").setInputFiles({ name, mimeType, buffer: Buffer.from(text) });
}

export const shot = (page, name) => page.screenshot({ path: `${SCREENS}/${name}.png`, fullPage: true });
