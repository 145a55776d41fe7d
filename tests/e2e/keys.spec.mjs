// A provider key stays out of everything the page keeps or hands out (issue 28), where
// run.spec.mjs's "a fake key reaches the mock and nowhere else" does not look: a provider that
// echoes the key back in a 200 answer (a misconfigured proxy; the mock's mock-echo-auth model),
// a study's run as well as the Run tab's, every IndexedDB database and store (not only the Run
// tab's), Cache Storage, and the study's downloads (bundle, report HTML and JSON).
import { test, expect } from "@playwright/test";
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { open, startMock, tab, watchErrors } from "./helpers.mjs";

/** Every IndexedDB database and object store of the page, as text: bytes and blobs decoded. */
const dumpAllIdb = (page) => page.evaluate(async () => {
  const plain = async (v) => {
    if (v instanceof Blob) return await v.text();
    if (ArrayBuffer.isView(v)) return new TextDecoder().decode(v);
    if (v instanceof ArrayBuffer) return new TextDecoder().decode(new Uint8Array(v));
    if (Array.isArray(v)) return Promise.all(v.map(plain));
    if (v instanceof Map) return plain([...v.entries()]);
    if (v && typeof v === "object") {
      const o = {};
      for (const [k, x] of Object.entries(v)) o[k] = await plain(x);
      return o;
    }
    return v;
  };
  const ask = (r) => new Promise((res, rej) => { r.onsuccess = () => res(r.result); r.onerror = () => rej(r.error); });
  const out = {};
  for (const { name } of await indexedDB.databases()) {
    const db = await ask(indexedDB.open(name));
    for (const store of db.objectStoreNames) {
      const t = db.transaction(store).objectStore(store);
      out[`${name}/${store}`] = { keys: await plain(await ask(t.getAllKeys())), values: await plain(await ask(t.getAll())) };
    }
    db.close();
  }
  return out;
});

/** Every Cache Storage entry's URL and body. */
const dumpCaches = (page) => page.evaluate(async () => {
  if (typeof caches === "undefined") return "";
  const parts = [];
  for (const name of await caches.keys()) {
    const cache = await caches.open(name);
    for (const req of await cache.keys()) parts.push(req.url, await (await cache.match(req)).text());
  }
  return parts.join("\n");
});

/** Everything the page keeps, as one text per place. */
async function kept(page, logs) {
  const storage = await page.evaluate(() => ({ local: JSON.stringify({ ...localStorage }), session: JSON.stringify({ ...sessionStorage }) }));
  return {
    indexedDB: JSON.stringify(await dumpAllIdb(page)), caches: await dumpCaches(page), localStorage: storage.local,
    sessionStorage: storage.session, url: page.url(), console: logs.join("\n"), pageText: await page.locator("body").innerText(),
  };
}

const grab = async (page, locator) => {
  const [d] = await Promise.all([page.waitForEvent("download"), locator.click()]);
  return `${d.suggestedFilename()}\n${readFileSync(await d.path(), "utf8")}`;
};

const keyHash = (key) => createHash("sha256").update(key).digest("hex").slice(0, 16);

test("keys: a key a provider echoes back in its answers is kept and exported only redacted (Run tab)", async ({ page }) => {
  test.setTimeout(120_000);
  const KEY = "sk-test-ECHO-RUN-4b7e1d09c2";
  const mock = await startMock([]);
  const logs = [];
  page.on("console", (m) => logs.push(m.text()));
  page.on("pageerror", (e) => logs.push(String(e)));
  try {
    await open(page);
    await tab(page, "Run");
    await expect(page.locator("#panel-run")).toHaveAttribute("data-ready", "1", { timeout: 15_000 });
    await page.locator("#run-t1-provider").selectOption("openai-compatible");
    await page.locator("#run-t1-base").fill(`${mock.base}/v1`);
    await page.locator("#run-t1-key").fill(KEY);
    await page.locator("#run-t1-models").fill("mock-echo-auth");
    await page.getByLabel("Choose a cases file").setInputFiles({ name: "cases.csv", mimeType: "text/csv",
      buffer: Buffer.from("case_id,prompt\ne1,Who was late?\ne2,Who was early?\n") });
    await page.getByRole("button", { name: "Plan" }).click();
    await expect(page.locator("#run-plan-summary")).toContainText("2 calls");
    await page.getByRole("button", { name: "Start", exact: true }).click();
    const state = () => page.locator("#run-counts").evaluate((n) => ({ ...n.dataset }));
    await expect.poll(async () => (await state()).state, { timeout: 60_000 }).toBe("finished");
    expect(Number((await state()).answered)).toBe(2);
    // The key went to the mock, and came back in both answers.
    expect((await mock.stats()).auth[keyHash(KEY)]).toBe(2);

    const downloads = [];
    downloads.push(await grab(page, page.getByRole("button", { name: "Export records (CSV)" })));
    downloads.push(await grab(page, page.getByRole("button", { name: "Export records (JSONL)" })));
    await page.getByRole("button", { name: "Analyze now" }).click();
    await expect(page.getByRole("tab", { name: "Results" })).toHaveAttribute("aria-selected", "true");
    await tab(page, "Share");
    for (const id of ["#dl-bundle", "#dl-csv", "#dl-jsonl", "#dl-json"]) downloads.push(await grab(page, page.locator(id)));
    await page.getByRole("button", { name: "Copy share link" }).click();
    downloads.push(await page.getByLabel("Share link").inputValue());

    const places = { downloads: downloads.join("\n"), ...(await kept(page, logs)) };
    for (const [where, text] of Object.entries(places)) expect(text.includes(KEY), `the key is in ${where}`).toBe(false);
    // The dumps are real: the echoed answers are in them, with the key taken out.
    expect(places.indexedDB).toContain("you sent: Bearer [key removed]");
    expect(places.downloads).toContain("you sent: Bearer [key removed]");
  } finally {
    mock.stop();
  }
});

test("keys: a study's run keeps its key out of IndexedDB, the bundle and the report, echoed answers included", async ({ page }) => {
  test.setTimeout(240_000);
  const KEY = "sk-test-ECHO-STUDY-8a21f6e3d5";
  const errors = watchErrors(page);
  const mock = await startMock([]);
  const logs = [];
  page.on("console", (m) => logs.push(m.text()));
  try {
    await open(page, "./#study/new");
    await expect(page.locator("#study-step1-title")).toBeVisible();
    await page.locator("#study-title").fill("Echoed keys");
    for (const m of ["bbq", "crosslingual", "divergence"]) await page.locator(`#study-m-${m}`).uncheck();
    await page.getByRole("link", { name: "Next: which models" }).click();
    await expect(page.locator("#study-t1-provider")).toBeVisible({ timeout: 15_000 });
    await page.locator("#study-t1-provider").selectOption("openai-compatible");
    await page.locator("#study-t1-base").fill(`${mock.base}/v1`);
    await page.locator("#study-t1-key").fill(KEY);
    await page.locator("#study-t1-models").fill("mock-a, mock-echo-auth");
    await page.locator("#study-t1-concurrency").fill("4");
    await page.getByRole("link", { name: "Next: the plan" }).click();
    await expect(page.locator("#study-plan-summary")).toContainText("calls to providers");
    const calls = Number((await page.locator("#study-plan-summary").textContent()).match(/^(\d+) calls/)[1]);
    await page.getByRole("link", { name: "Next: run or upload" }).click();
    await expect(page.locator("#study-step4-title")).toBeVisible();
    await page.getByRole("button", { name: "Run the study" }).click();
    const confirm = page.locator("#study-confirm");
    // A confirmation, or the run under way (or already done and on to the report: a fast mock).
    const state = () => page.evaluate(() => document.getElementById("study-counts")?.dataset.state);
    await expect.poll(async () => (await confirm.isVisible()) || /#study\/report$/.test(page.url()) ||
      ["running", "finished"].includes(await state())).toBe(true);
    if (await confirm.isVisible()) await confirm.getByRole("button", { name: /Start anyway/ }).click();
    await expect(page).toHaveURL(/#study\/report$/, { timeout: 180_000 });
    await expect(page.locator("#study-report-title")).toContainText("Echoed keys", { timeout: 30_000 });
    const stats = await mock.stats();
    expect(stats.total).toBe(calls);
    expect(stats.auth[keyHash(KEY)]).toBe(calls);

    const downloads = [];
    for (const id of ["#study-dl-bundle", "#study-dl-json", "#study-dl-html"]) downloads.push(await grab(page, page.locator(id)));
    const places = { downloads: downloads.join("\n"), ...(await kept(page, logs)) };
    for (const [where, text] of Object.entries(places)) expect(text.includes(KEY), `the key is in ${where}`).toBe(false);
    // The echoes were kept (redacted) where the study keeps its answers, and the bundle holds them.
    expect(places.indexedDB).toContain("[key removed]");
    expect(downloads[0]).toContain("[key removed]");
    expect(errors).toEqual([]);
  } finally {
    mock.stop();
  }
});
