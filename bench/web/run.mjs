// Opens a bench page in headless Chromium and prints the JSON it produces.
// Usage: node bench/web/run.mjs URL
import { chromium } from "playwright";

const browser = await chromium.launch({
  executablePath: "/usr/bin/chromium",
  args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
});
try {
  const page = await browser.newPage();
  await page.goto(process.argv[2]);
  await page.waitForSelector("#out[data-done='1']", { timeout: 300_000 });
  console.log(await page.textContent("#out"));
} finally {
  await browser.close();
}
