// Runs against LLM providers from the page, end to end, against the local mock provider
// (tests/mock/mock_provider.py, started here on a free port and stopped after each test).
// (a) 1,000 cases with 5% injected faults and a reload in the middle: the run resumes from
//     IndexedDB and the mock's own counts prove no stored case was requested again.
// (b) a recognisable fake key is used for a run, then searched for in every export, the URL,
//     the storages, an IndexedDB dump and every console message: it must be in none of them.
import { test, expect } from "@playwright/test";
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { createServer } from "node:net";
import { open, startMock, tab } from "./helpers.mjs";
import { PAGE } from "./ports.mjs";

const caseKey = (model, prompt) => createHash("sha256").update(`${model}\n${prompt}`).digest("hex").slice(0, 16);

/** Shows the Run tab once its worker is up. */
async function runTab(page) {
  await tab(page, "Run");
  await expect(page.locator("#panel-run")).toHaveAttribute("data-ready", "1", { timeout: 15_000 });
}

/** Fills the first target of the Run tab. */
async function target(page, { base, models, key = "", concurrency = 4 }) {
  await page.locator("#run-t1-provider").selectOption("openai-compatible");
  await page.locator("#run-t1-base").fill(`${base}/v1`);
  if (key) await page.locator("#run-t1-key").fill(key);
  await page.locator("#run-t1-models").fill(models);
  await page.locator("#run-t1-concurrency").fill(String(concurrency));
}

async function casesFile(page, name, text) {
  await page.getByLabel("Choose a cases file").setInputFiles({ name, mimeType: "text/csv", buffer: Buffer.from(text) });
}

const counts = async (page) => {
  const d = await page.locator("#run-counts").evaluate((n) => ({ ...n.dataset }));
  return { answered: Number(d.answered ?? 0), failed: Number(d.failed ?? 0), total: Number(d.total ?? 0), state: d.state };
};

/** Everything in IndexedDB "evenhand-runs", as plain JSON (bytes as text). */
const dumpIdb = (page) => page.evaluate(async () => {
  const db = await new Promise((res, rej) => {
    const r = indexedDB.open("evenhand-runs");
    r.onsuccess = () => res(r.result);
    r.onerror = () => rej(r.error);
  });
  const all = (store) => new Promise((res, rej) => {
    const r = db.transaction(store).objectStore(store).getAll();
    r.onsuccess = () => res(r.result);
    r.onerror = () => rej(r.error);
  });
  const runs = (await all("runs")).map((r) => ({ ...r, cases: { ...r.cases, bytes: new TextDecoder().decode(r.cases.bytes) } }));
  const records = await all("records");
  db.close();
  return { runs, records };
});

test("run: 1,000 cases with 5% faults survive a reload, and no stored case is sent again", async ({ page }) => {
  test.setTimeout(300_000);
  const mock = await startMock(["--fault-rate", "0.05", "--seed", "11", "--latency-ms", "15"]);
  try {
    const prompts = Array.from({ length: 1000 }, (_, i) => `Question ${i + 1}: is community ${i % 17} trustworthy?`);
    const csv = `case_id,prompt\n${prompts.map((p, i) => `c${i + 1},"${p}"`).join("\n")}\n`;
    await open(page);
    await runTab(page);
    await target(page, { base: mock.base, models: "mock-a", concurrency: 4 });
    await page.locator("#run-timeout").fill("10");
    await casesFile(page, "cases.csv", csv);
    await page.getByRole("button", { name: "Plan" }).click();
    await expect(page.locator("#run-plan-summary")).toContainText("1000 calls");
    await page.getByRole("button", { name: "Start", exact: true }).click();
    await expect(page.locator("#run-confirm")).toContainText("1000 calls"); // above the confirmation threshold
    await page.getByRole("button", { name: "Start anyway" }).click();

    await expect.poll(async () => (await counts(page)).answered, { timeout: 120_000 }).toBeGreaterThanOrEqual(300);
    expect((await counts(page)).answered).toBeLessThan(1000);
    await page.reload();
    await expect(page.locator("body")).toHaveAttribute("data-ready", "1", { timeout: 15_000 });

    const stored = (await dumpIdb(page)).records;
    const before = await mock.stats();
    expect(stored.length).toBeGreaterThanOrEqual(300);
    expect(stored.every((r) => r.record.prompt && r.record.model === "mock-a")).toBe(true);
    await runTab(page);
    const offer = page.locator("#run-resume .resume-item");
    await expect(offer).toContainText(`of 1000 answered`);
    await offer.getByRole("button", { name: "Resume" }).click();
    await expect.poll(async () => (await counts(page)).state, { timeout: 240_000 }).toBe("finished");

    const end = await counts(page);
    expect(end.answered + end.failed).toBe(1000);
    await expect(page.getByRole("progressbar", { name: "Run progress" })).toHaveAttribute("aria-valuenow", "1000");
    await expect(page.locator("#run-bar")).toHaveAttribute("aria-valuemax", "1000");
    const after = await mock.stats();
    expect(after.faults).toBeGreaterThan(0); // the faults really happened
    const again = stored.filter((r) => (after.cases[caseKey("mock-a", r.record.prompt)] ?? 0) !== (before.cases[caseKey("mock-a", r.record.prompt)] ?? 0));
    expect(again.map((r) => r.record_id)).toEqual([]);
    // Every case reached the mock, and the store holds all 1,000 records.
    for (const p of prompts) expect(after.cases[caseKey("mock-a", p)] ?? 0).toBeGreaterThan(0);
    const final = (await dumpIdb(page)).records;
    expect(final.length).toBe(1000);
    const settled = final.filter((r) => ["ok", "refused", "filtered", "error"].includes(r.status)).length;
    expect(settled).toBe(1000);
    expect(final.filter((r) => r.status === "ok").length).toBe(end.answered);
    console.log(`reload after ${stored.length} stored records; end: ${end.answered} answered, ${end.failed} failed; `
      + `mock: ${after.total} requests, ${after.faults} injected faults, ${before.total} before the reload`);
  } finally {
    mock.stop();
  }
});

test("run: a fake key reaches the mock and nowhere else", async ({ page }) => {
  test.setTimeout(120_000);
  const KEY = "sk-evenhand-FAKE-KEY-7f3a9c";
  const mock = await startMock([]);
  const logs = [];
  page.on("console", (m) => logs.push(m.text()));
  page.on("pageerror", (e) => logs.push(String(e)));
  try {
    await open(page);
    await runTab(page);
    await target(page, { base: mock.base, models: "mock-a, mock-401", key: KEY, concurrency: 2 });
    await casesFile(page, "cases.csv", "case_id,prompt\nk1,Is the sky blue?\nk2,Name a colour.\nk3,Say yes.\n");
    await page.getByRole("button", { name: "Plan" }).click();
    await expect(page.locator("#run-plan-summary")).toContainText("6 calls");
    await page.getByRole("button", { name: "Start", exact: true }).click();
    await expect.poll(async () => (await counts(page)).state, { timeout: 60_000 }).toBe("finished");
    expect(await counts(page)).toMatchObject({ answered: 3, failed: 3 });
    await expect(page.locator("#run-failure-list")).toContainText("401"); // an error message was produced

    const texts = [];
    const grab = async (button) => {
      const [d] = await Promise.all([page.waitForEvent("download"), button.click()]);
      texts.push(`${d.suggestedFilename()}\n${readFileSync(await d.path(), "utf8")}`);
    };
    await grab(page.getByRole("button", { name: "Export records (CSV)" }));
    await grab(page.getByRole("button", { name: "Export records (JSONL)" }));
    expect(texts[0]).toContain("mock-401");
    // The Results tab and the Share tab's exports of the same records.
    await page.getByRole("button", { name: "Analyze now" }).click();
    await expect(page.getByRole("tab", { name: "Results" })).toHaveAttribute("aria-selected", "true");
    await tab(page, "Share");
    for (const id of ["#dl-bundle", "#dl-csv", "#dl-jsonl", "#dl-json"]) await grab(page.locator(id));
    await page.getByRole("button", { name: "Copy share link" }).click();
    texts.push(await page.getByLabel("Share link").inputValue());

    const idb = JSON.stringify(await dumpIdb(page));
    const storage = await page.evaluate(() => ({ local: JSON.stringify({ ...localStorage }), session: JSON.stringify({ ...sessionStorage }) }));
    const places = {
      downloads: texts.join("\n"), url: page.url(), localStorage: storage.local, sessionStorage: storage.session,
      indexedDB: idb, console: logs.join("\n"), pageText: await page.locator("body").innerText(),
    };
    for (const [where, text] of Object.entries(places)) expect(text.includes(KEY), `the key is in ${where}`).toBe(false);
    expect(idb).toContain("mock-401"); // the dump is real: the failed records are in it
    expect(places.downloads.split("\n").length).toBeGreaterThan(20);

    // The mock got the key (as a hash in its stats), on every call.
    const seen = (await mock.stats()).auth[createHash("sha256").update(KEY).digest("hex").slice(0, 16)];
    expect(seen).toBe(6);

    // "Remember in this tab" puts it in sessionStorage, and only there.
    await runTab(page);
    await page.getByLabel(/Remember keys in this tab/).check();
    await page.getByRole("button", { name: "Plan" }).click();
    await expect(page.locator("#run-plan-summary")).toContainText("6 calls");
    const kept = await page.evaluate(() => ({ local: JSON.stringify({ ...localStorage }), session: JSON.stringify({ ...sessionStorage }) }));
    expect(kept.session).toContain(KEY);
    expect(kept.local.includes(KEY)).toBe(false);
    expect(JSON.stringify(await dumpIdb(page)).includes(KEY)).toBe(false);
    expect(page.url().includes(KEY)).toBe(false);
  } finally {
    mock.stop();
  }
});

test("run: calls that never get an HTTP answer show what to do, not 'Failed to fetch'", async ({ page }) => {
  test.setTimeout(60_000);
  await open(page);
  await runTab(page);
  // A port nobody listens on: every fetch fails the way a CORS refusal does ("Failed to fetch").
  const port = await new Promise((resolve) => {
    const server = createServer().listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
  await target(page, { base: `http://127.0.0.1:${port}`, models: "mock-a", concurrency: 2 });
  await page.locator("#run-attempts").fill("2");
  await casesFile(page, "cases.csv", "case_id,prompt\nn1,One?\nn2,Two?\n");
  await page.getByRole("button", { name: "Plan" }).click();
  await page.getByRole("button", { name: "Start", exact: true }).click();
  await expect.poll(async () => (await counts(page)).state, { timeout: 30_000 }).toBe("finished");
  expect(await counts(page)).toMatchObject({ answered: 0, failed: 2 });
  const status = page.locator("#run-targets-status");
  await expect(status).toContainText(`No answer from the local server at http://127.0.0.1:${port}`);
  await expect(status).toContainText("LM Studio");
  await expect(page.locator("#run-failure-list")).toContainText(`allows this page's origin (${PAGE})`);
  await expect(page.locator("#run-failure-list")).not.toContainText("Failed to fetch");
});

test("run: after a reload without 'remember', resume asks for the key again", async ({ page }) => {
  test.setTimeout(120_000);
  const KEY = "sk-evenhand-RESUME-KEY-41d2";
  const mock = await startMock(["--latency-ms", "40"]);
  try {
    await open(page);
    await runTab(page);
    await target(page, { base: mock.base, models: "mock-a", key: KEY, concurrency: 1 });
    const cases = Array.from({ length: 80 }, (_, i) => `r${i},Resume question ${i}?`).join("\n");
    await casesFile(page, "cases.csv", `case_id,prompt\n${cases}\n`);
    await page.getByRole("button", { name: "Plan" }).click();
    await page.getByRole("button", { name: "Start", exact: true }).click();
    await expect.poll(async () => (await counts(page)).answered, { timeout: 30_000 }).toBeGreaterThanOrEqual(10);
    await page.reload();
    await expect(page.locator("body")).toHaveAttribute("data-ready", "1", { timeout: 15_000 });
    expect(await page.evaluate(() => JSON.stringify({ ...sessionStorage }))).not.toContain(KEY);
    await runTab(page);
    const offer = page.locator("#run-resume .resume-item");
    await offer.getByRole("button", { name: "Resume" }).click();
    await expect(offer.getByRole("alert")).toContainText("Type the key for openai-compatible first.");
    await offer.getByLabel("API key for openai-compatible").fill(KEY);
    await offer.getByRole("button", { name: "Resume" }).click();
    await expect.poll(async () => (await counts(page)).state, { timeout: 60_000 }).toBe("finished");
    expect(await counts(page)).toMatchObject({ answered: 80, failed: 0 });
    const stats = await mock.stats();
    // Every request, before and after the reload, carried the key.
    expect(stats.auth[createHash("sha256").update(KEY).digest("hex").slice(0, 16)]).toBe(stats.total);
  } finally {
    mock.stop();
  }
});

test("run: a resume sets aside stored answers whose prompt changed since, names their cases and sends them again", async ({ page }) => {
  test.setTimeout(120_000);
  const mock = await startMock(["--latency-ms", "40"]);
  try {
    await open(page);
    await runTab(page);
    await target(page, { base: mock.base, models: "mock-a", concurrency: 1 });
    const cases = Array.from({ length: 30 }, (_, i) => `s${i},Stale question ${i}?`).join("\n");
    await casesFile(page, "cases.csv", `case_id,prompt\n${cases}\n`);
    await page.getByRole("button", { name: "Plan" }).click();
    await page.getByRole("button", { name: "Start", exact: true }).click();
    await expect.poll(async () => (await counts(page)).answered, { timeout: 30_000 }).toBeGreaterThanOrEqual(6);
    await page.reload();
    await expect(page.locator("body")).toHaveAttribute("data-ready", "1", { timeout: 15_000 });
    // Between the two sessions the cases of s1 and s2 change (answered before the reload).
    const stored = (await dumpIdb(page)).records.map((r) => r.record.case_id);
    expect(stored).toEqual(expect.arrayContaining(["s1", "s2", "s3"]));
    await page.evaluate(async () => {
      const store = await import("./run-store.js");
      const [run] = await store.unfinishedRuns();
      const saved = await store.getRun(run.run_id);
      const text = new TextDecoder().decode(saved.cases.bytes)
        .replace("Stale question 1?", "Changed question 1?").replace("Stale question 2?", "Changed question 2?");
      await store.saveRun({ ...saved, cases: { ...saved.cases, bytes: new TextEncoder().encode(text) } });
    });
    const before = await mock.stats();
    await runTab(page);
    await page.locator("#run-resume .resume-item").getByRole("button", { name: "Resume" }).click();
    const note = page.locator("#run-stale");
    await expect(note).toBeVisible();
    await expect(note).toHaveText(/^2 stored answers set aside: the request changed since \(prompt, model or parameters\), so they are sent again\. Cases: s1, s2\.$/);
    await expect.poll(async () => (await counts(page)).state, { timeout: 60_000 }).toBe("finished");
    expect(await counts(page)).toMatchObject({ answered: 30, failed: 0 });
    const after = await mock.stats();
    // The changed prompts were sent after the resume; the unchanged stored ones were not.
    for (const i of [1, 2]) expect(after.cases[caseKey("mock-a", `Changed question ${i}?`)]).toBe(1);
    expect(after.cases[caseKey("mock-a", "Stale question 3?")]).toBe(before.cases[caseKey("mock-a", "Stale question 3?")]);
    const final = (await dumpIdb(page)).records.filter((r) => ["s1", "s2"].includes(r.record.case_id));
    expect(final.map((r) => r.record.prompt).sort()).toEqual(["Changed question 1?", "Changed question 2?"]);
    await page.locator("#run-live").screenshot({ path: "target/e2e-results/screens/run-stale.png" });
  } finally {
    mock.stop();
  }
});

test("run store: an error never replaces an answered record in IndexedDB", async ({ page }) => {
  await open(page);
  const kept = await page.evaluate(async () => {
    const store = await import("./run-store.js");
    const db = await store.openStore();
    const base = { record_id: "t:c1:x:m:0", run_id: "t", prompt: "p" };
    await store.putRecord(db, { ...base, status: "ok", response: "Yes", error: "" });
    await store.putRecord(db, { ...base, status: "error", response: "", error: "HTTP 500" });
    const after = await store.runRecords("t");
    await store.putRecord(db, { ...base, record_id: "t:c2:x:m:0", status: "error", error: "HTTP 500" });
    await store.putRecord(db, { ...base, record_id: "t:c2:x:m:0", status: "ok", response: "No", error: "" });
    const both = await store.runRecords("t");
    await store.deleteRun("t");
    return { after, both, gone: (await store.runRecords("t")).length };
  });
  expect(kept.after).toEqual([{ record_id: "t:c1:x:m:0", run_id: "t", prompt: "p", status: "ok", response: "Yes", error: "HTTP 500" }]);
  expect(kept.both.map((r) => [r.record_id, r.status])).toEqual([["t:c1:x:m:0", "ok"], ["t:c2:x:m:0", "ok"]]);
  expect(kept.gone).toBe(0);
});

test("run: pause stops new calls, analyze works mid-run, cancel stops, retry failed resends only the failures", async ({ page }) => {
  test.setTimeout(180_000);
  const mock = await startMock(["--latency-ms", "150"]);
  try {
    const csv = `case_id,prompt\n${Array.from({ length: 40 }, (_, i) => `p${i},"Pause test ${i}: yes or no?"`).join("\n")}\n`;
    await open(page);
    await runTab(page);
    // mock-503 always fails (its calls come first: the plan goes model by model), so
    // "Retry failed" has something to do; mock-a answers.
    await target(page, { base: mock.base, models: "mock-503, mock-a", concurrency: 2 });
    await page.locator("#run-attempts").fill("1");
    await casesFile(page, "pause.csv", csv);
    await page.getByRole("button", { name: "Plan" }).click();
    await expect(page.locator("#run-plan-summary")).toContainText("80 calls");
    await page.getByRole("button", { name: "Start", exact: true }).click();
    await expect.poll(async () => (await counts(page)).answered, { timeout: 30_000 }).toBeGreaterThanOrEqual(4);

    await page.locator("#run-pause").click();
    await expect.poll(async () => (await counts(page)).state, { timeout: 10_000 }).toBe("paused");
    await page.waitForTimeout(600); // the calls in flight land
    const settled = async () => { const c = await counts(page); return c.answered + c.failed; };
    const atPause = await settled();
    const sentAtPause = (await mock.stats()).total;
    await page.waitForTimeout(1500);
    expect((await mock.stats()).total).toBe(sentAtPause); // nothing new is sent while paused
    expect(await settled()).toBe(atPause);

    // Results while the run is unfinished: the records so far go to the Results tab.
    await page.locator("#run-analyze").click();
    await expect(page.getByRole("tab", { name: "Results" })).toHaveAttribute("aria-selected", "true");
    await runTab(page);

    await page.locator("#run-resume-btn").click();
    await expect.poll(settled, { timeout: 30_000 }).toBeGreaterThan(atPause + 2);
    await page.locator("#run-cancel").click();
    await expect.poll(async () => (await counts(page)).state, { timeout: 10_000 }).toBe("cancelled");
    await page.waitForTimeout(600);
    const atCancel = await counts(page);
    expect(atCancel.answered + atCancel.failed).toBeLessThan(80);
    const sentAtCancel = (await mock.stats()).total;
    await page.waitForTimeout(1000);
    expect((await mock.stats()).total).toBe(sentAtCancel);

    // A cancelled run can be resumed to the end; then "Retry failed" sends only the failures
    // again (and they fail again: mock-503 always does).
    await page.locator("#run-resume-btn").click();
    await expect.poll(settled, { timeout: 60_000 }).toBe(80);
    const done = await counts(page);
    expect(done.failed).toBe(40);
    const sentAtEnd = (await mock.stats()).total;
    await page.locator("#run-retry").click();
    await expect.poll(async () => (await mock.stats()).total, { timeout: 30_000 }).toBe(sentAtEnd + 40);
    await expect.poll(settled, { timeout: 30_000 }).toBe(80);
    await page.waitForTimeout(500);
    expect((await mock.stats()).total).toBe(sentAtEnd + 40); // the 40 answers were not asked for again
    await expect(page.locator("#run-failures")).toContainText("503");
  } finally {
    mock.stop();
  }
});
