// End-to-end tests of the page in the system Chromium (never `npx playwright install`).
// Three local servers: the page from www/, the dist/ copy under a sub-path, and fixture files
// with and without CORS headers. Only 127.0.0.1; nothing comes from the internet.
import { defineConfig } from "@playwright/test";
import { PAGE_PORT, SUBPATH_PORT, FIXTURE_PORT } from "./tests/e2e/ports.mjs";

export default defineConfig({
  testDir: "tests/e2e",
  testMatch: "*.spec.mjs",
  timeout: 60_000,
  workers: 1,
  reporter: "list",
  outputDir: "target/e2e-results",
  globalSetup: "./tests/e2e/global-setup.mjs",
  use: {
    baseURL: `http://127.0.0.1:${PAGE_PORT}/`,
    browserName: "chromium",
    headless: true,
    viewport: { width: 1280, height: 900 },
    acceptDownloads: true,
    launchOptions: {
      executablePath: "/usr/bin/chromium",
      args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
             "--disable-background-networking", "--disable-component-update", "--disable-sync"],
    },
  },
  webServer: [
    { command: `python3 -m http.server ${PAGE_PORT} --bind 127.0.0.1 --directory www`,
      url: `http://127.0.0.1:${PAGE_PORT}/index.html`, reuseExistingServer: false, timeout: 20_000,
      stderr: "ignore" }, // http.server logs every request on stderr
    // dist/ copied to target/subpath-root/some/project/ by global-setup.mjs.
    { command: `python3 -m http.server ${SUBPATH_PORT} --bind 127.0.0.1 --directory target/subpath-root`,
      port: SUBPATH_PORT, reuseExistingServer: false, timeout: 20_000, stderr: "ignore" },
    { command: `python3 tests/e2e/fixture_server.py ${FIXTURE_PORT} target/e2e-fixtures`,
      port: FIXTURE_PORT, reuseExistingServer: false, timeout: 20_000 },
  ],
});
