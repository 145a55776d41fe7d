// Screenshots of the example study's report, to look at: every section of the report in the
// page and in the downloaded HTML, both on screen and as printed (print media at the width of
// an A4 page less its margins), and the HTML report printed to PDF once by Chromium.
//
//   ./build.sh build && node scripts/report-screens.mjs [out-dir]
//
// Writes PNGs and report.pdf into out-dir (default target/report-screens). Serves www/ on
// 127.0.0.1:$E2E_PORT (default 9500) while it runs; nothing comes from the internet.
import { chromium } from "@playwright/test";
import { spawn } from "node:child_process";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";

const out = resolve(process.argv[2] ?? "target/report-screens");
const port = Number(process.env.E2E_PORT ?? 9500);
// The printable width of A4 with 15 mm margins (the print stylesheets' @page), in CSS px.
const PRINT_WIDTH = Math.floor(((210 - 30) / 25.4) * 96);

rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });

const server = spawn("python3", ["-m", "http.server", String(port), "--bind", "127.0.0.1", "--directory", "www"],
  { stdio: "ignore" });
const base = `http://127.0.0.1:${port}/`;

async function waitForServer() {
  for (let i = 0; i < 100; i++) {
    try {
      if ((await fetch(`${base}index.html`)).ok) return;
    } catch { /* not up yet */ }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`the page server on port ${port} did not start`);
}

/** One PNG per element matched by `selector` (each report section), named by its order and id. */
async function sections(page, selector, prefix) {
  const parts = await page.locator(selector).all();
  let i = 0;
  for (const part of parts) {
    if (!(await part.isVisible())) continue;
    const id = (await part.getAttribute("id")) ?? (await part.evaluate((n) => n.querySelector("h2, h3")?.textContent ?? n.tagName));
    const name = `${prefix}-${String(++i).padStart(2, "0")}-${id.toLowerCase().replace(/[^a-z0-9]+/g, "-").slice(0, 40)}.png`;
    await part.screenshot({ path: join(out, name) });
  }
  return i;
}

/** The whole page in slices of `height` px (one long image is too tall to look at). */
async function slices(page, prefix, height = 1400) {
  const total = await page.evaluate(() => document.documentElement.scrollHeight);
  const width = page.viewportSize().width;
  let i = 0;
  for (let y = 0; y < total; y += height) {
    await page.screenshot({ path: join(out, `${prefix}-${String(++i).padStart(2, "0")}.png`), fullPage: true,
      clip: { x: 0, y, width, height: Math.min(height, total - y) } });
  }
  return i;
}

let browser;
try {
  await waitForServer();
  browser = await chromium.launch({ executablePath: "/usr/bin/chromium", args: ["--no-sandbox", "--disable-gpu"] });
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, acceptDownloads: true });
  const page = await context.newPage();
  await page.goto(`${base}#study/example`);
  await page.locator('section.study-step[data-step="report"][data-ready="1"]').waitFor({ timeout: 60_000 });
  await page.locator("#study-items-table tbody tr").first().waitFor();
  const shown = await sections(page, "#study-report-body > *", "page");
  await slices(page, "page-full");

  // The downloaded HTML report (the core's writer, as `evenhand study report` writes it).
  const [download] = await Promise.all([page.waitForEvent("download"), page.locator("#study-dl-html").click()]);
  await download.saveAs(join(out, "report.html"));

  // The page's report as printed.
  await page.setViewportSize({ width: PRINT_WIDTH, height: 1100 });
  await page.emulateMedia({ media: "print" });
  await slices(page, "page-print");

  const html = await context.newPage();
  await html.goto(`file://${join(out, "report.html")}`);
  const htmlShown = await sections(html, "body > section, body > table, body > h2", "html");
  await slices(html, "html-full");
  await html.pdf({ path: join(out, "report.pdf"), format: "A4", printBackground: true });
  await html.setViewportSize({ width: PRINT_WIDTH, height: 1100 });
  await html.emulateMedia({ media: "print" });
  await slices(html, "html-print");
  writeFileSync(join(out, "README.txt"), `Made by scripts/report-screens.mjs on ${new Date().toISOString()}: `
    + `${shown} page parts, ${htmlShown} HTML parts, slices of both on screen and in print media, report.pdf.\n`);
  console.log(`screens in ${out}: ${shown} page parts, ${htmlShown} HTML parts, report.pdf`);
} finally {
  await browser?.close();
  server.kill();
}
