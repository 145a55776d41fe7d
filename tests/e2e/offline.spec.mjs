// The hosted page's own concerns: the service worker caches the app shell on the first visit
// so a reload works offline, a new version's worker is offered through the update banner, and
// the page names its version and build in the header and in its exports.
import { test, expect } from "@playwright/test";
import { execFileSync, spawn } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { downloadText, open, tab, watchErrors } from "./helpers.mjs";
import { PAGE_PORT } from "./ports.mjs";

import { CLI } from "./cli.mjs";
// A server of its own, one port above the three shared ones, so this test can stop it.
const OFFLINE_PORT = PAGE_PORT + 3;
const OFFLINE = `http://127.0.0.1:${OFFLINE_PORT}`;

const cargoVersion = () => /^version\s*=\s*"([^"]+)"/m.exec(readFileSync("Cargo.toml", "utf8"))[1];
const builtVersion = () => JSON.parse(readFileSync("www/version.json", "utf8"));

/** python3 -m http.server on www/ at OFFLINE_PORT; resolves once it answers. */
async function startServer() {
  const proc = spawn("python3", ["-m", "http.server", String(OFFLINE_PORT), "--bind", "127.0.0.1", "--directory", "www"],
    { stdio: "ignore" });
  for (let i = 0; i < 100; i++) {
    try {
      if ((await fetch(`${OFFLINE}/index.html`)).ok) return proc;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  proc.kill();
  throw new Error(`the page server on ${OFFLINE_PORT} did not start`);
}

/** Waits until a service worker controls the page and returns its script URL. */
async function controlled(page) {
  await page.evaluate(() => navigator.serviceWorker.ready);
  await expect.poll(() => page.evaluate(() => navigator.serviceWorker.controller?.scriptURL ?? null)).not.toBeNull();
  return page.evaluate(() => navigator.serviceWorker.controller.scriptURL);
}

const cacheContents = (page) => page.evaluate(async () => {
  const out = {};
  for (const name of await caches.keys()) out[name] = (await (await caches.open(name)).keys()).map((r) => new URL(r.url).pathname);
  return out;
});

test("1. the first visit caches the app shell; offline, a reload still shows the demo", async ({ page, context }) => {
  const errors = watchErrors(page);
  const { build } = builtVersion();
  const server = await startServer();
  try {
    await open(page, `${OFFLINE}/#tools/results`);
    const script = await controlled(page);
    expect(script).toBe(`${OFFLINE}/sw.js?build=${encodeURIComponent(build)}`);
    const caches = await cacheContents(page);
    expect(Object.keys(caches)).toEqual([`evenhand-${build}`]);
    for (const file of ["/", "/index.html", "/app.js", "/worker.js", "/views/results.js", "/styles.css",
      "/pkg/home.js", "/pkg/home_bg.wasm", "/pkg/evenhand.js", "/pkg/evenhand_bg.wasm", "/version.json",
      "/manifest.webmanifest", "/data/requirements/en_us.json", "/data/divergence/references/us_first_names.tsv"]) {
      expect(caches[`evenhand-${build}`]).toContain(file);
    }
  } finally {
    server.kill();
  }
  // Both: the browser is offline, and the server is gone for good.
  await context.setOffline(true);
  await expect.poll(async () => {
    try {
      await fetch(`${OFFLINE}/index.html`);
      return "still answering";
    } catch {
      return "stopped";
    }
  }).toBe("stopped");

  await page.reload();
  await expect(page.locator("body")).toHaveAttribute("data-ready", "1", { timeout: 15_000 });
  await expect(page.locator("#groups tbody tr")).toHaveCount(9); // 3 concerns x 3 languages
  await expect(page.locator("#chart")).toBeVisible();
  await expect(page.locator("#badge-simulated")).toBeVisible();
  await expect(page.locator("#version")).toHaveText(`Evenhand ${cargoVersion()} (${build})`);
  // The tools' module and their built-in datasets, which the page fetches only on first use,
  // come from the cache too: the Requirements tab reads its built-in library.
  await expect(page.locator("#panel-requirements")).toHaveAttribute("data-ready", "1", { timeout: 15_000 });
  expect(errors.filter((e) => !/ERR_INTERNET_DISCONNECTED|Failed to fetch/.test(e))).toEqual([]);
});

test("2. the header names the version from Cargo.toml and the build; the bundle carries both", async ({ page }, info) => {
  const errors = watchErrors(page);
  const { version, build } = builtVersion();
  expect(version).toBe(cargoVersion());
  expect(build).toMatch(/^([0-9a-f]{7,}|dev)$/);
  await open(page);
  await expect(page.locator("#version")).toHaveText(`Evenhand ${cargoVersion()} (${build})`);

  await tab(page, "Share");
  const bundle = await downloadText(page, "Download bundle");
  expect(JSON.parse(bundle.text).tool_version).toBe(`${cargoVersion()}+${build}`);
  // The stamped bundle is still a bundle: the CLI reads it and gets the demo's numbers.
  mkdirSync(info.outputDir, { recursive: true });
  const file = path.join(info.outputDir, "bundle.json");
  writeFileSync(file, bundle.text);
  const analysis = JSON.parse(execFileSync(CLI, ["analyze", file], { encoding: "utf8" }));
  expect(analysis.records).toBe(JSON.parse(bundle.text).results.records);
  expect(errors).toEqual([]);
});

test("3. a new version's worker waits behind the banner; Reload to update switches to it", async ({ page }) => {
  await open(page);
  await controlled(page);
  await expect(page.locator("#update-banner")).toBeHidden();

  // What a newly published build does on its next visit: register a worker for its build.
  await page.evaluate(() => navigator.serviceWorker.register("./sw.js?build=next-test", { scope: "./" }));
  const banner = page.locator("#update-banner");
  await expect(banner).toBeVisible();
  await expect(banner).toHaveAttribute("role", "status");
  await expect(banner).toContainText("A new version of Evenhand is available.");

  // Keyboard: the button takes focus and Enter applies the update, which reloads the page.
  const reload = page.waitForEvent("load");
  await page.getByRole("button", { name: "Reload to update" }).focus();
  await expect(page.getByRole("button", { name: "Reload to update" })).toBeFocused();
  await page.keyboard.press("Enter");
  await reload;
  await expect(page.locator("body")).toHaveAttribute("data-ready", "1", { timeout: 15_000 });
  expect(await page.evaluate(() => navigator.serviceWorker.controller?.scriptURL)).toMatch(/sw\.js\?build=next-test$/);
  // The new worker has its own cache. (Whether the old build's cache is gone cannot be seen
  // here: the reloaded page registers its own build again, which installs a fresh one.)
  await expect.poll(async () => Object.keys(await cacheContents(page))).toContain("evenhand-next-test");
});
