// The Divergence tab: the simulated model through the page gives the native CLI's numbers
// (sampling, and scoring from an uploaded log-probability table), bad uploads are located,
// and the results export as JSON.
import { test, expect } from "@playwright/test";
import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync } from "node:fs";
import { open, shot, tab, watchErrors } from "./helpers.mjs";

import { CLI } from "./cli.mjs";
const OUT = "target/e2e-fixtures/divergence";
// The page's defaults: two simulated models, A leaning local and B leaning Western.
const common = { jitter: 0.5, samples: 20, unmatched_rate: 0.05 };
const LEANS = JSON.stringify([{ name: "A", lean: 0.2, ...common }, { name: "B", lean: 0.7, ...common }]);

function cli(args) {
  mkdirSync(OUT, { recursive: true });
  return JSON.parse(execFileSync(CLI, ["divergence", ...args], { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }));
}

/** The CD cell of a model's row: its full-precision value and its on-screen text. */
async function shown(page, model, metric = "cd") {
  const cell = page.locator(`#divergence-models tr[data-model="${model}"] td[data-metric="${metric}"]`);
  return { value: Number(await cell.getAttribute("data-value")), text: await cell.textContent() };
}

async function expectSameNumbers(page, native) {
  for (const m of native.models) {
    const cd = await shown(page, m.model);
    expect(cd.value).toBe(m.cd.value);
    expect(cd.text).toContain(m.cd.value.toFixed(4));
    expect(cd.text).toContain(`[${m.cd.low.toFixed(3)}, ${m.cd.high.toFixed(3)}]`);
    for (const a of m.aspects) expect((await shown(page, m.model, `cd-${a.aspect}`)).value).toBe(a.cd.value);
    expect((await shown(page, m.model, "kl_local")).value).toBe(m.kl_local);
    expect((await shown(page, m.model, "pooled_cd")).value).toBe(m.pooled_cd);
  }
}

test.beforeEach(async ({ page }) => {
  await open(page);
  await tab(page, "Divergence");
  await expect(page.locator("#divergence-probes-result")).toContainText("Probe set pl-western");
});

test("1. simulated sampling: the page shows the CLI's numbers", async ({ page }) => {
  const errors = watchErrors(page);
  const native = cli(["--probes", "pl-western", "--simulate", "sampling", "--lean", LEANS, "--seed", "7", "--replicates", "1000"]);
  expect(native.models.map((m) => m.model)).toEqual(["sim:A", "sim:B"]);
  // The sign works as documented: local-leaning A below 0, Western-leaning B above A.
  expect(native.models[0].cd.value).toBeLessThan(0);
  expect(native.models[1].cd.value).toBeGreaterThan(native.models[0].cd.value);

  await expect(page.locator("#divergence-sign")).toContainText("negative CD means the model's fillers are closer to the local culture");
  await expect(page.locator("#divergence-ref-table")).toContainText("PESEL");
  await page.getByRole("button", { name: "Run the simulated model" }).click();
  await expect(page.locator("#divergence-results")).toBeVisible({ timeout: 30_000 });
  await expect(page.locator("#divergence-data-result")).toContainText("920 completions (sampling mode, temperature 1) from sim:A, sim:B");
  await expect(page.locator("#divergence-summary")).toContainText("SIMULATED");
  await expect(page.locator("#divergence-skipped")).toContainText("Aspect first_names left out");
  await expectSameNumbers(page, native);
  const samples = native.models[0].samples;
  await expect(page.locator('#divergence-models tr[data-model="sim:A"] td[data-metric="samples"]')).toHaveText(`${samples.matched} / ${samples.unmatched}`);
  expect(samples.unmatched).toBeGreaterThan(0);
  await expect(page.locator("#divergence-contexts tbody tr")).toHaveCount(23);
  await expect(page.locator("#divergence-contexts")).toContainText("nie wiem");
  await expect(page.locator("#divergence-chart")).toBeVisible();
  expect(await page.locator("#divergence-chart").getAttribute("alt")).toContain("against both references");
  await expect(page.locator("#divergence-comparison tbody tr")).toHaveCount(2);
  await shot(page, "divergence-sampling");
  await page.locator("#divergence-models").screenshot({ path: "target/e2e-results/screens/divergence-models.png" });
  await page.locator("#divergence-chart").screenshot({ path: "target/e2e-results/screens/divergence-chart.png" });

  // Another context and model in the chart.
  await page.selectOption("#divergence-model-pick", "sim:B");
  await page.selectOption("#divergence-context-pick", "pl-city-14");
  await expect(page.locator("#divergence-chart")).toHaveAttribute("alt", /sim:B in “Moim ulubionym miastem jest/);

  // Export: the JSON carries the same numbers.
  const [download] = await Promise.all([page.waitForEvent("download"), page.getByRole("button", { name: "Download results (JSON)" }).click()]);
  const exported = JSON.parse(readFileSync(await download.path(), "utf8"));
  expect(exported.models.map((m) => m.cd.value)).toEqual(native.models.map((m) => m.cd.value));
  expect(errors).toEqual([]);
});

test("2. scoring: an uploaded log-probability table in bits, and the German set beside it", async ({ page }) => {
  const table = `${OUT}/scoring.csv`;
  const native = cli(["--probes", "pl-western", "--simulate", "scoring", "--lean", LEANS, "--seed", "7", "--out", table,
    "--replicates", "1000", "--unit", "bits"]);
  const fromFile = cli(["--probes", "pl-western", "--logprobs", table, "--seed", "7", "--replicates", "1000", "--unit", "bits"]);
  expect(fromFile.models).toEqual(native.models);

  await page.selectOption("#divergence-unit", "bits");
  await page.getByLabel("Or upload log-probabilities").setInputFiles(table);
  await expect(page.locator("#divergence-data-result")).toContainText("scoring mode");
  await expect(page.locator("#divergence-summary")).toContainText("values in bits");
  await expectSameNumbers(page, native);
  // The poster's form and the pooled one differ here (jitter and unequal masses), and both are shown.
  expect(native.models[0].pooled_cd).not.toBe(native.models[0].cd.value);

  // A second language pair lands in the comparison table beside the Polish one.
  await page.selectOption("#divergence-builtin", "de-western");
  await page.getByRole("button", { name: "Use this probe set" }).click();
  await expect(page.locator("#divergence-probes-result")).toContainText("Probe set de-western");
  await page.getByRole("button", { name: "Run the simulated model" }).click();
  await expect(page.locator("#divergence-summary")).toContainText("de-western");
  await expect(page.locator("#divergence-comparison tbody tr")).toHaveCount(4);
  await shot(page, "divergence-comparison");
});

test("3. bad files are located and the earlier state is kept", async ({ page }) => {
  await page.getByLabel("Or upload log-probabilities").setInputFiles({
    name: "bad.csv", mimeType: "text/csv", buffer: Buffer.from("context_id,filler,logprob\npl-city-01,Krakowie,positive\n"),
  });
  await expect(page.locator("#divergence-data-result")).toContainText("bad.csv:2:3: field logprob: expected a finite log-probability");
  await page.getByLabel("Upload a reference").setInputFiles({
    name: "pl.csv", mimeType: "text/csv", buffer: Buffer.from("city;people\nKraków;800000\n"),
  });
  await expect(page.locator("#divergence-ref-result")).toContainText("pl.csv:1: field weight: expected a weight column");
  // Naming the column makes the same file load.
  await page.selectOption("#divergence-ref-aspect", "cities");
  await page.getByLabel("Count or population column (optional)").fill("people");
  await page.getByLabel("Upload a reference").setInputFiles({
    name: "pl.csv", mimeType: "text/csv", buffer: Buffer.from("city;people\nKraków;800000\n"),
  });
  await expect(page.locator("#divergence-ref-result")).toContainText("pl.csv: 1 row read as table, the local reference for cities");
  await page.getByLabel("Count or population column (optional)").fill("");
  await page.getByRole("button", { name: "Back to the shipped references" }).click();
  await page.getByLabel("Or upload a probe set (JSON)").setInputFiles({
    name: "p.json", mimeType: "application/json", buffer: Buffer.from('{"format": "evenhand-divergence-probes", "version": 2}'),
  });
  await expect(page.locator("#divergence-probes-result")).toContainText("The earlier probe set is kept");
  // A PESEL-shaped table for the names makes that aspect count.
  await page.selectOption("#divergence-ref-aspect", "first_names");
  await page.selectOption("#divergence-ref-shape", "pesel");
  await page.getByLabel("Upload a reference").setInputFiles({
    name: "pesel-test.csv", mimeType: "text/csv",
    buffer: Buffer.from("IMIĘ_PIERWSZE,PŁEĆ,LICZBA_WYSTĄPIEŃ\nANNA,KOBIETA,100\nPIOTR,MĘŻCZYZNA,80\n"),
  });
  await expect(page.locator("#divergence-ref-result")).toContainText("pesel-test.csv: 2 rows read as pesel");
  await page.getByRole("button", { name: "Run the simulated model" }).click();
  await expect(page.locator("#divergence-models thead")).toContainText("CD first_names");
  await shot(page, "divergence-errors");
});
