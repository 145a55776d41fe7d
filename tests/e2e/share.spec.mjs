// Share links and bundles by URL: the same numbers come back, and failures say why.
import { test, expect } from "@playwright/test";
import { readFileSync } from "node:fs";
import { FIXTURES, nativeAnalysis, open, recordCount, shot, tab } from "./helpers.mjs";
import { FIXTURES as FIXTURE_URL, PAGE } from "./ports.mjs";

const FIX = FIXTURE_URL;
const nativeBehaviour = () => JSON.parse(readFileSync(`${FIXTURES}/demo/bundle.json`, "utf8")).experiment.behaviour;

/** What the Results tab shows, as text: enough to compare two pages. */
const shown = async (page) => ({
  source: await page.locator("#source").textContent(),
  summary: await page.locator("#summary").textContent(),
  groups: await page.locator("#groups tbody").innerText(),
});

test("6. a share link rebuilds the same results in a new page", async ({ page, context }) => {
  await open(page);
  const demo = await shown(page);
  await tab(page, "Design");
  await page.getByLabel("Seed", { exact: true }).fill("7");
  await page.getByLabel("Samples per case").fill("4");
  await page.getByRole("button", { name: "Run simulated experiment" }).click();
  await expect(page.getByRole("tab", { name: "Results" })).toHaveAttribute("aria-selected", "true");
  await expect(page.locator("#source")).toContainText("seed 7, 4 samples per case");
  const before = await shown(page);
  expect(before.summary).not.toBe(demo.summary); // the run changed the numbers

  await tab(page, "Share");
  await page.getByRole("button", { name: "Copy share link" }).click();
  const link = page.getByLabel("Share link");
  await expect(link).toHaveValue(new RegExp(`^${PAGE.replace(/\./g, "\\.")}/#v1\\.[A-Za-z0-9_-]+$`));
  const url = await link.inputValue();

  const other = await context.newPage();
  await open(other, url);
  await expect(other.locator("#notice")).toContainText("Opened the shared experiment from the link.");
  expect(await shown(other)).toEqual(before);
  await tab(other, "Design");
  await expect(other.getByLabel("Seed", { exact: true })).toHaveValue("7");

  // A damaged link says so and falls back to the demo.
  const broken = await context.newPage();
  await open(broken, "./#v1.this-is-not-a-link");
  await expect(broken.locator("#notice")).toHaveAttribute("role", "alert");
  await expect(broken.locator("#notice")).toContainText("This share link could not be opened");
  await expect(broken.locator("#notice")).toContainText("The built-in demo is shown instead.");
  expect(await shown(broken)).toEqual(demo);
});

test("6b. a bad experiment is reported in place", async ({ page }) => {
  await open(page);
  await tab(page, "Design");
  await page.getByLabel("Samples per case").fill("0");
  await page.getByRole("button", { name: "Run simulated experiment" }).click();
  await expect(page.locator("#design-error")).toHaveText(/field samples: expected between 1 and 1000, found 0/);
  await expect(page.getByRole("tab", { name: "Design" })).toHaveAttribute("aria-selected", "true");
  await page.getByLabel("Samples per case").fill("10");
  await page.getByLabel("Simulated model behaviour (JSON)").fill("{ not json");
  await page.getByRole("button", { name: "Run simulated experiment" }).click();
  await expect(page.locator("#design-error")).toContainText("Behaviour: not valid JSON");
  await expect.poll(() => recordCount(page)).toBe(nativeAnalysis().records);

  // The Run tab runs the same form, and reports the same problems in its own place.
  await tab(page, "Run");
  await page.getByRole("button", { name: "Run the simulated model" }).click();
  await expect(page.locator("#run-error")).toContainText("Behaviour: not valid JSON");
  await tab(page, "Design");
  await page.getByLabel("Simulated model behaviour (JSON)").fill(JSON.stringify(nativeBehaviour()));
  await page.getByLabel("Samples per case").fill("2");
  await tab(page, "Run");
  await page.getByRole("button", { name: "Run the simulated model" }).click();
  await expect(page.getByRole("tab", { name: "Results" })).toHaveAttribute("aria-selected", "true");
  await expect(page.locator("#source")).toContainText("seed 42, 2 samples per case");
  await expect.poll(() => recordCount(page)).toBe(nativeAnalysis().records / 10);
  await expect(page.locator("#run-status")).toHaveText(`The simulated model answered ${nativeAnalysis().records / 10} prompts.`);
});

// Regression (issue 28): a bundle's records_url made the browser GET any address unasked, and
// an answer of {} opened as "0 records".
test("7b. a records_url on another site is fetched only when the visitor agrees; {} is an error", async ({ page }) => {
  const asked = [];
  page.on("request", (r) => { if (r.url().includes("/byurl/records.jsonl") || r.url().includes("/byurl/empty.json")) asked.push(r.url()); });
  // The page is ready only once the visitor has answered: go, then answer.
  await page.goto(`./?bundle=${FIX}/cors/byurl/bundle.json`);
  const dialog = page.getByRole("dialog", { name: "Fetch this bundle's records from another site?" });
  await expect(dialog).toContainText(`${FIX}/cors/byurl/records.jsonl`);
  await dialog.getByRole("button", { name: "Don't fetch" }).click();
  const notice = page.locator("#notice");
  await expect(notice).toContainText("you chose not to fetch them");
  await expect(notice).toContainText("The built-in demo is shown instead.");
  expect(asked).toEqual([]);

  // The page is ready only once the visitor has answered: go, then answer.
  await page.goto(`./?bundle=${FIX}/cors/byurl/empty-bundle.json`);
  await dialog.getByRole("button", { name: "Fetch the records" }).click();
  await expect(notice).toHaveAttribute("role", "alert");
  await expect(notice).toContainText("empty.json: no row could be loaded");
  await expect(page.locator("#source")).toContainText("seed 42");

  // The address rule, as the page applies it.
  const rule = await page.evaluate(async () => {
    const { isPrivateHost } = await import("./bundles.js");
    return ["127.0.0.1", "localhost", "10.1.2.3", "172.20.0.1", "192.168.1.1", "169.254.169.254", "[::1]",
      "[fd00::1]", "[::ffff:7f00:1]", "printer.local", "example.org", "8.8.8.8", "172.32.0.1", "[2001:db8::1]"]
      .map((h) => isPrivateHost(h));
  });
  expect(rule).toEqual([true, true, true, true, true, true, true, true, true, true, false, false, false, false]);

  // Regression (issue 28): bidirectional controls in a file or model name reordered the page's
  // own words after them; the page shows them escaped.
  await tab(page, "Upload");
  await page.getByLabel("Load a bundle").setInputFiles({ name: "gpt\u202Emodel.json", mimeType: "application/json",
    buffer: Buffer.from("not a bundle") });
  await expect(page.locator("#bundle-result")).toContainText("gpt[U+202E]model.json");
  expect(await page.locator("#bundle-result").textContent()).not.toContain("\u202E");
});

test("7. ?bundle=<url> opens a bundle; CORS and 404 failures are explained", async ({ page }) => {
  const native = nativeAnalysis();
  await open(page, `./?bundle=${FIX}/cors/demo/bundle.json`);
  await expect(page.locator("#notice")).toContainText(`Opened the bundle ${FIX}/cors/demo/bundle.json: ${native.records} records. The numbers were reproduced identically.`);
  await expect.poll(() => recordCount(page)).toBe(native.records);

  // Another seed, so the loaded bundle cannot be mistaken for the demo.
  const seed7 = JSON.parse(readFileSync(`${FIXTURES}/seed7/analysis.json`, "utf8"));
  await open(page, `./?bundle=${FIX}/cors/seed7/bundle.json`);
  await expect(page.locator("#notice")).toContainText("reproduced identically");
  await expect(page.locator("#source")).toContainText("seed 7, 3 samples per case");
  await expect.poll(() => recordCount(page)).toBe(seed7.records);

  // Records fetched from the bundle's records_url (relative to the bundle), on another site
  // than the page's: only once the visitor says so.
  // The page is ready only once the visitor has answered: go, then answer.
  await page.goto(`./?bundle=${FIX}/cors/byurl/bundle.json`);
  await page.getByRole("dialog", { name: "Fetch this bundle's records from another site?" })
    .getByRole("button", { name: "Fetch the records" }).click();
  await expect(page.locator("#notice")).toContainText("reproduced identically");
  await expect(page.locator("#source")).toHaveText(`Source: the bundle ${FIX}/cors/byurl/bundle.json`);
  await expect.poll(() => recordCount(page)).toBe(seed7.records);

  // No CORS header: the fetch fails without a status; the message names the URL and CORS.
  await open(page, `./?bundle=${FIX}/nocors/demo/bundle.json`);
  const notice = page.locator("#notice");
  await expect(notice).toHaveAttribute("role", "alert");
  await expect(notice).toContainText(`${FIX}/nocors/demo/bundle.json`);
  await expect(notice).toContainText("CORS");
  await expect(notice).toContainText("Access-Control-Allow-Origin");
  await expect(notice).toContainText("The built-in demo is shown instead.");
  await expect(page.locator("#source")).toContainText("seed 42");
  await expect.poll(() => recordCount(page)).toBe(native.records);
  await shot(page, "bundle-cors-error");

  await open(page, `./?bundle=${FIX}/cors/demo/missing.json`);
  await expect(notice).toContainText(`${FIX}/cors/demo/missing.json`);
  await expect(notice).toContainText("HTTP 404");
  await expect(page.locator("#source")).toContainText("seed 42");

  // A bundle file chosen in the Upload tab.
  await tab(page, "Upload");
  await page.getByLabel("Load a bundle").setInputFiles(`${FIXTURES}/seed7/bundle.json`);
  await expect(page.locator("#bundle-result")).toContainText(`Opened the bundle bundle.json: ${seed7.records} records. The numbers were reproduced identically.`);
  await expect.poll(() => recordCount(page)).toBe(seed7.records);
});
