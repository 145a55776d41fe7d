// The study flow (issue 16): the home screen, the example study's report, a new study over two
// mocked providers to the downloaded report, and a study file with a bad field.
import { test, expect } from "@playwright/test";
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { open, shot, startMock, watchErrors } from "./helpers.mjs";

const caseKey = (model, prompt) => createHash("sha256").update(`${model}\n${prompt}`).digest("hex").slice(0, 16);

/** The study run's counts as the progress line carries them. */
const counts = async (page) => {
  const d = await page.locator("#study-counts").evaluate((n) => ({ ...n.dataset }));
  return { answered: Number(d.answered ?? 0), failed: Number(d.failed ?? 0), total: Number(d.total ?? 0), state: d.state };
};

/** The records IndexedDB holds for the page's runs. */
const storedRecords = (page) => page.evaluate(async () => {
  const db = await new Promise((res, rej) => {
    const r = indexedDB.open("evenhand-runs");
    r.onsuccess = () => res(r.result);
    r.onerror = () => rej(r.error);
  });
  const rows = await new Promise((res, rej) => {
    const r = db.transaction("records").objectStore("records").getAll();
    r.onsuccess = () => res(r.result);
    r.onerror = () => rej(r.error);
  });
  db.close();
  return rows.map((r) => ({ record_id: r.record_id, status: r.status, model: r.record.model, prompt: r.record.prompt }));
});

/** Opens a downloaded report in a fresh context where every request but the report's own fails;
 *  returns the page and the requests it tried. */
async function openOffline(browser, html) {
  const context = await browser.newContext();
  const url = "http://report.invalid/report.html";
  const tried = [];
  await context.route("**", (route) => {
    if (route.request().url() === url) return route.fulfill({ body: html, contentType: "text/html; charset=utf-8" });
    tried.push(route.request().url());
    return route.abort();
  });
  const page = await context.newPage();
  await page.goto(url);
  return { context, page, tried };
}

test("16a. the page opens on the home screen; the tools sit behind the Expert tools menu", async ({ page }) => {
  const errors = watchErrors(page);
  await open(page, "./");
  await expect(page.locator("#view-home")).toBeVisible();
  await expect(page.getByRole("heading", { level: 2, name: "Does your model treat people evenly?" })).toBeVisible();
  await expect(page.getByRole("link", { name: "Open the example study" })).toBeVisible();
  await expect(page.getByRole("link", { name: "New study" }).first()).toBeVisible();
  await expect(page.getByRole("tablist")).toBeHidden();
  await shot(page, "study-home-1280");
  await page.getByRole("button", { name: "Expert tools" }).click();
  await expect(page.getByRole("menuitem")).toHaveCount(11);
  await shot(page, "study-home-menu");
  await page.getByRole("menuitem", { name: "Benchmarks" }).click();
  await expect(page.locator("#panel-bench")).toBeVisible();
  await expect(page).toHaveURL(/#tools\/bench$/);
  await page.getByRole("link", { name: "Home" }).click();
  await expect(page.locator("#view-home")).toBeVisible();
  await page.setViewportSize({ width: 390, height: 844 });
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(391);
  await shot(page, "study-home-390");
  expect(errors).toEqual([]);
});

/** Opens the example study from the home screen; returns the times (ms) from the click (logged;
 *  bench/web/timings.mjs measures them). */
async function openExample(page) {
  await open(page, "./");
  const started = Date.now();
  await page.getByRole("link", { name: "Open the example study" }).click();
  await expect(page.locator("#study-section-divergence")).toBeVisible({ timeout: 15_000 });
  const elapsed = Date.now() - started;
  const step = page.locator('section.study-step[data-step="report"]');
  const ms = async (name) => Number(await step.getAttribute(`data-${name}-ms`));
  const t = { elapsed, open: await ms("open"), report: await ms("report"), draw: await ms("draw"), total: await ms("render") };
  console.log(`example report visible ${t.elapsed} ms after the click; in the page: ${t.open} ms to open and simulate `
    + `(StudySession.example), ${t.report} ms for report(), ${t.draw} ms to draw; ${t.total} ms in all`);
  return t;
}

test("16b. the example study opens from the home screen with every part of its report", async ({ page }) => {
  const errors = watchErrors(page);
  // How fast it shows is bench/web/timings.mjs's to measure (a bound here fails under load).
  await openExample(page);
  await expect(page).toHaveURL(/#study\/example$/);

  await expect(page.getByRole("heading", { level: 2, name: /Example: two simulated models/ })).toBeVisible();
  await expect(page.locator("#study-report-question")).toContainText("Which of two models is more biased");
  await expect(page.locator("#study-models tbody tr")).toHaveCount(2);
  await expect(page.locator("#study-simulated-badge")).toBeVisible();
  for (const method of ["requirements", "bbq", "crosslingual", "divergence"]) {
    const section = page.locator(`#study-section-${method}`);
    await expect(section.locator("img.report-chart")).toBeVisible();
    expect(await section.locator("img.report-chart").evaluate((img) => img.complete && img.naturalWidth > 100)).toBe(true);
    expect(await section.locator(".report-figures tbody tr").count()).toBeGreaterThan(1);
  }
  await expect(page.locator("#study-summary li")).toHaveCount(4);
  expect(await page.locator("#study-paired tbody tr").count()).toBeGreaterThan(0);
  await expect(page.locator("#study-family")).toContainText("Holm");
  expect(await page.locator("#study-methods p").count()).toBeGreaterThan(0);
  expect(await page.locator("#study-limitations li").count()).toBeGreaterThan(0);
  expect(await page.locator("#study-references li").count()).toBeGreaterThanOrEqual(4);
  await shot(page, "study-example-report");

  // The report's JSON holds the numbers the page shows.
  const [json] = await Promise.all([page.waitForEvent("download"), page.getByRole("button", { name: "Download the report data (JSON)" }).click()]);
  const report = JSON.parse(readFileSync(await json.path(), "utf8"));
  expect(report.format).toBe("evenhand-study-report");
  expect(report.sections.map((s) => s.method)).toEqual(["requirements", "bbq", "crosslingual", "divergence"]);
  const first = report.sections[0].figures[0];
  await expect(page.locator("#study-section-requirements .report-figures tbody tr").first()).toContainText(first.figure);
  await page.setViewportSize({ width: 390, height: 844 });
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(391);
  await shot(page, "study-example-report-390");
  expect(errors).toEqual([]);
});

test("16c. a study file with a bad field is refused, naming the field", async ({ page }) => {
  await open(page, "./");
  const study = `{
  "format": "evenhand-study",
  "version": 1,
  "title": "Bad",
  "targets": ["simulated:fair", "simulated:skewed"],
  "methods": {"bbq": {"dataset": {"builtin": "evenhand"}, "langauges": ["en"]}}
}`;
  await page.getByLabel("Or open a study file").setInputFiles({ name: "bad-study.json", mimeType: "application/json", buffer: Buffer.from(study) });
  const error = page.locator("#home-error");
  await expect(error).toBeVisible();
  await expect(error).toContainText("bad-study.json");
  await expect(error).toContainText("line 6");
  await expect(error).toContainText("methods.bbq");
  await expect(error).toContainText("langauges");
  await expect(page.locator("#view-home")).toBeVisible(); // it did not open
  await shot(page, "study-invalid");

  // A good file opens on its plan.
  await page.locator("#home-study-file").setInputFiles({ name: "good-study.json", mimeType: "application/json",
    buffer: Buffer.from(study.replace("langauges", "languages")) });
  await expect(page).toHaveURL(/#study\/plan-file$/);
  await expect(page.locator("#study-plan-summary")).toContainText("0 calls");
});

test("16d. a new study over two mocked providers: all four methods, faults, a reload mid-run, to the downloaded report", async ({ page, browser }) => {
  test.setTimeout(400_000);
  const errors = watchErrors(page);
  const one = await startMock(["--fault-rate", "0.05", "--seed", "5", "--latency-ms", "10"]);
  const two = await startMock(["--latency-ms", "10"]);
  try {
    await open(page, "./");
    await page.getByRole("link", { name: "New study" }).first().click();
    // 1. What to test: all four methods, each with its calls and its data.
    await expect(page).toHaveURL(/#study\/new$/);
    for (const m of ["requirements", "bbq", "crosslingual", "divergence"]) {
      await expect(page.locator(`#study-m-${m}`)).toBeChecked();
      await expect(page.locator(`#study-m-${m}-calls`)).toContainText(/\d+ calls? per model/);
    }
    await page.getByText("Sizes and statistics").click();
    await page.getByLabel("Cross-lingual languages").fill("en, es");
    await page.getByLabel("Divergence completions per context").fill("4");
    await page.getByLabel("Divergence completions per context").dispatchEvent("change");
    await expect(page.locator("#study-m-divergence-calls")).toContainText(/calls? per model/);
    await shot(page, "study-step1");
    await page.getByRole("link", { name: "Next: which models" }).click();

    // 2. Which models: two providers, one model each.
    await expect(page.locator("#study-t1-provider")).toBeVisible({ timeout: 15_000 });
    await page.locator("#study-t1-provider").selectOption("openai-compatible");
    await page.locator("#study-t1-base").fill(`${one.base}/v1`);
    await page.locator("#study-t1-models").fill("mock-a");
    await page.getByRole("button", { name: "Add a provider" }).click();
    await page.locator("#study-t2-provider").selectOption("openai-compatible");
    await page.locator("#study-t2-base").fill(`${two.base}/v1`);
    await page.locator("#study-t2-models").fill("mock-b");
    await shot(page, "study-step2");
    await page.getByRole("link", { name: "Next: the plan" }).click();

    // 3. The plan: per method and model.
    await expect(page.locator("#study-plan-summary")).toContainText("calls to providers");
    await expect(page.locator("#study-plan-table tbody tr")).toHaveCount(8);
    const calls = Number((await page.locator("#study-plan-summary").textContent()).match(/^(\d+) calls/)[1]);
    expect(calls).toBeGreaterThan(40);
    await expect(page.locator("#study-plan-confirm")).toContainText("asks before starting a run of more than 500 calls");
    await expect(page.locator("#study-plan-confirm")).toContainText(`${calls} calls`); // above the Run tab's threshold
    await shot(page, "study-step3");
    await page.getByRole("link", { name: "Next: run or upload" }).click();

    // 4. Run, reload in the middle, resume.
    await page.getByRole("button", { name: "Run the study" }).click();
    const confirm = page.locator("#study-confirm");
    await expect.poll(async () => (await confirm.isVisible()) || (await counts(page)).total > 0).toBe(true);
    if (await confirm.isVisible()) await page.getByRole("button", { name: "Start anyway" }).click();
    await expect.poll(async () => (await counts(page)).answered, { timeout: 120_000 }).toBeGreaterThanOrEqual(Math.floor(calls / 4));
    expect((await counts(page)).answered).toBeLessThan(calls);
    await shot(page, "study-step4-running");
    await page.reload();
    await expect(page.locator("body")).toHaveAttribute("data-ready", "1", { timeout: 15_000 });
    const stored = await storedRecords(page);
    const before = { one: await one.stats(), two: await two.stats() };
    // The Run tab does not offer the study's run among its own: it says where it belongs.
    await page.evaluate(() => { location.hash = "#tools/run"; });
    await expect(page.locator("#run-study-note")).toContainText("belongs to the study", { timeout: 15_000 });
    await expect(page.locator("#run-resume .resume-item")).toHaveCount(0);
    await shot(page, "study-run-tab-note");
    await page.evaluate(() => { location.hash = "#study/run"; });
    await expect(page.getByRole("button", { name: "Resume the study run" })).toBeVisible({ timeout: 15_000 });
    await shot(page, "study-step4-resume");
    await page.getByRole("button", { name: "Resume the study run" }).click();

    // 5. The report, once every call is settled.
    await expect(page).toHaveURL(/#study\/report$/, { timeout: 300_000 });
    await expect(page.locator("#study-report-title")).toBeVisible({ timeout: 15_000 });
    const after = { one: await one.stats(), two: await two.stats() };
    expect(after.one.faults).toBeGreaterThan(0); // the faults really happened
    // No answer stored before the reload was paid for again: a prompt whose every call was
    // answered before the reload got no request after it.
    const final = await storedRecords(page);
    const keyOf = (r) => caseKey(r.model, r.prompt);
    const tally = (rows) => rows.reduce((m, r) => m.set(keyOf(r), (m.get(keyOf(r)) ?? 0) + 1), new Map());
    const storedOk = tally(stored.filter((r) => r.status === "ok"));
    const all = tally(final);
    const done = [...storedOk].filter(([k, n]) => all.get(k) === n).map(([k]) => k);
    expect(done.length).toBeGreaterThan(10);
    const mockOf = (r) => (r.model === "mock-a" ? "one" : "two");
    const modelOf = new Map(final.map((r) => [keyOf(r), r]));
    const again = done.filter((k) => after[mockOf(modelOf.get(k))].cases[k] !== before[mockOf(modelOf.get(k))].cases[k]);
    expect(again).toEqual([]);
    for (const r of final) expect(after[mockOf(r)].cases[keyOf(r)] ?? 0).toBeGreaterThan(0);
    console.log(`study run: ${calls} calls; reload after ${stored.length} stored; `
      + `mock one ${after.one.total} requests (${after.one.faults} faults), mock two ${after.two.total}; ${before.one.total + before.two.total} before the reload`);

    await expect(page.locator("#study-models tbody tr")).toHaveCount(2);
    const [dj] = await Promise.all([page.waitForEvent("download"), page.getByRole("button", { name: "Download the report data (JSON)" }).click()]);
    const report = JSON.parse(readFileSync(await dj.path(), "utf8"));
    // Every method's records reached the study and every method has its section (the mock fills
    // the divergence probes' blanks with names); the records are the study's own run's.
    const coverage = await page.evaluate(() => document.querySelector("#study-models")?.textContent);
    console.log(`report sections: ${report.sections.map((x) => x.method).join(", ")}; limitations: ${report.limitations.join(" | ")}`);
    expect(report.sections.map((x) => x.method)).toEqual(["requirements", "bbq", "crosslingual", "divergence"]);
    expect(report.omitted ?? []).toEqual([]);
    expect(report.limitations.join(" ")).not.toContain("Uploaded responses");
    expect(report.methods_text[1]).toContain("collected by this study's own run");
    expect(coverage).toContain("mock-a");
    for (const m of report.sections.map((x) => x.method)) {
      await expect(page.locator(`#study-section-${m} img.report-chart`)).toBeVisible();
    }
    await shot(page, "study-step5-report");

    // The downloaded HTML reads offline: every chart and table, no request.
    const [dl] = await Promise.all([page.waitForEvent("download"), page.getByRole("button", { name: "Download the report (HTML)" }).click()]);
    const html = readFileSync(await dl.path(), "utf8");
    expect(html).not.toMatch(/<script/i);
    const offline = await openOffline(browser, html);
    try {
      const svgs = await offline.page.locator("svg").count();
      const tables = await offline.page.locator("table").count();
      expect(svgs).toBeGreaterThanOrEqual(report.sections.length);
      expect(tables).toBeGreaterThanOrEqual(report.sections.length + 1);
      for (const svg of await offline.page.locator("svg").all()) {
        expect(await svg.evaluate((n) => n.getBoundingClientRect().width)).toBeGreaterThan(50);
      }
      expect(offline.tried).toEqual([]);
      await offline.page.screenshot({ path: "target/e2e-results/screens/study-report-html.png", fullPage: true });
      await offline.page.screenshot({ path: "target/e2e-results/screens/study-report-html-top.png" });
      console.log(`downloaded report: ${svgs} charts, ${tables} tables, ${html.length} bytes, no request`);
    } finally {
      await offline.context.close();
    }
    // The finished study run stays out of the Run tab: no progress drawn there, a note instead.
    await page.evaluate(() => { location.hash = "#tools/run"; });
    await expect(page.locator("#run-study-note")).toContainText("belongs to the study");
    await expect(page.locator("#run-live")).toBeHidden();
    expect(errors).toEqual([]);
  } finally {
    one.stop();
    two.stop();
  }
});

test("16e. responses collected elsewhere: the study's cases out, one record table with a method column in, to the report", async ({ page }) => {
  const errors = watchErrors(page);
  await open(page, "./");
  const study = {
    format: "evenhand-study", version: 1, title: "Uploaded responses", question: "Do two models refuse alike?",
    targets: ["openai-compatible:model-u", "openai-compatible:model-v"],
    methods: {
      requirements: { scenario: { builtin: "default" } },
      crosslingual: { questions: { builtin: "evenhand" }, languages: ["en", "es"], modes: ["non_acceptable"] },
    },
  };
  await page.locator("#home-study-file").setInputFiles({ name: "uploaded-study.json", mimeType: "application/json", buffer: Buffer.from(JSON.stringify(study)) });
  await expect(page).toHaveURL(/#study\/plan-file$/);
  await page.getByRole("link", { name: "Next: run or upload" }).click();
  // A file's providers have no addresses or keys: step 4 asks for them (study-state.spec.mjs runs one).
  await expect(page.locator("#study-file-openai-compatible-base")).toBeVisible();
  await expect(page.locator("#study-run-note")).toContainText("Upload their responses");
  const [dl] = await Promise.all([page.waitForEvent("download"), page.getByRole("button", { name: "Download the cases (JSONL)" }).click()]);
  const cases = readFileSync(await dl.path(), "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l));
  expect(new Set(cases.map((c) => c.method))).toEqual(new Set(["requirements", "crosslingual"]));
  // Each model "answers" every case; model-v refuses every third cross-lingual question.
  const rows = cases.flatMap((c, i) => ["model-u", "model-v"].map((model) => ({
    ...c, record_id: `${c.record_id || c.case_id}-${model}`, provider: "openai-compatible", model, status: "ok",
    response: model === "model-v" && c.method === "crosslingual" && i % 3 === 0 ? "I'm sorry, but I can't help with that." : "Yes.",
  })));
  await page.getByLabel("One record table with a method column").setInputFiles({ name: "answers.jsonl", mimeType: "application/x-ndjson",
    buffer: Buffer.from(rows.map((r) => JSON.stringify(r)).join("\n") + "\n") });
  await expect(page.locator("#study-upload-result")).toContainText(`answers.jsonl: ${rows.length} records`);
  await shot(page, "study-upload");
  await page.getByRole("button", { name: "Make the report" }).click();
  await expect(page).toHaveURL(/#study\/report$/);
  await expect(page.locator("#study-section-crosslingual img.report-chart")).toBeVisible({ timeout: 15_000 });
  await expect(page.locator("#study-section-requirements")).toBeVisible();
  await expect(page.locator("#study-models tbody tr")).toHaveCount(2);
  await expect(page.locator("#study-limitations")).toContainText("answers.jsonl");
  // model-v refuses more: the paired McNemar test on the same questions says so.
  await expect(page.locator("#study-paired")).toContainText("refusal rate");
  expect(errors).toEqual([]);
});

test("16f. the example's share link and its bundle rebuild the same report", async ({ page, context }) => {
  await openExample(page);
  const shown = async (p) => ({
    summary: await p.locator("#study-summary").innerText(),
    bbq: await p.locator("#study-section-bbq .report-figures tbody").innerText(),
    paired: await p.locator("#study-paired tbody").innerText(),
  });
  const before = await shown(page);
  await page.getByRole("button", { name: "Copy the share link" }).click();
  await expect(page.getByLabel("Study share link")).toHaveValue(/\/#s1\.[A-Za-z0-9_-]+$/);
  const link = await page.getByLabel("Study share link").inputValue();
  const [bundle] = await Promise.all([page.waitForEvent("download"), page.getByRole("button", { name: "Download the study bundle" }).click()]);
  const bundleText = readFileSync(await bundle.path(), "utf8");
  expect(JSON.parse(bundleText).format).toBe("evenhand-study-bundle");

  const shared = await context.newPage();
  await open(shared, link);
  await expect(shared.locator("#study-section-bbq")).toBeVisible({ timeout: 15_000 });
  expect(await shown(shared)).toEqual(before);

  const fromBundle = await context.newPage();
  await open(fromBundle, "./");
  await fromBundle.locator("#home-study-file").setInputFiles({ name: "example-bundle.json", mimeType: "application/json", buffer: Buffer.from(bundleText) });
  await expect(fromBundle).toHaveURL(/#study\/report$/);
  await expect(fromBundle.locator("#study-section-bbq")).toBeVisible({ timeout: 15_000 });
  expect(await shown(fromBundle)).toEqual(before);

  // A damaged link says so.
  const broken = await context.newPage();
  await open(broken, "./#s1.not-a-study");
  await expect(broken.locator("#study-report-error")).toContainText("This study link could not be opened");
});
