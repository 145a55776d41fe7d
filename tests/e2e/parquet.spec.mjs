// Parquet on the page: the second wasm module is fetched only when a Parquet file is picked or
// asked for; records exported as Parquet load back; a BBQ file written by pyarrow (nested
// answer_info) loads in the Benchmarks tab; a damaged file is refused naming the file.
import { test, expect } from "@playwright/test";
import { readFileSync } from "node:fs";
import { nativeAnalysis, open, recordCount, shot, tab, watchErrors } from "./helpers.mjs";

const fetchedParquetModule = (urls) => urls.some((u) => u.includes("/pkg-parquet/"));

test("records exported as Parquet load back, and the Parquet module loads only then", async ({ page }) => {
  const errors = watchErrors(page);
  const urls = [];
  page.on("request", (r) => urls.push(r.url()));
  await open(page);
  const native = nativeAnalysis();
  await expect.poll(() => recordCount(page)).toBe(native.records);
  expect(fetchedParquetModule(urls)).toBe(false);

  await tab(page, "Share");
  const [download] = await Promise.all([
    page.waitForEvent("download"),
    page.getByRole("button", { name: "Download records (Parquet)" }).click(),
  ]);
  expect(download.suggestedFilename()).toBe("evenhand-records.parquet");
  const bytes = readFileSync(await download.path());
  expect(bytes.subarray(0, 4).toString()).toBe("PAR1");
  expect(bytes.subarray(bytes.length - 4).toString()).toBe("PAR1");
  expect(fetchedParquetModule(urls)).toBe(true);

  await tab(page, "Upload");
  await page.getByLabel("Choose a record file").setInputFiles({ name: "back.parquet", mimeType: "application/octet-stream", buffer: bytes });
  await expect(page.locator("#upload-result")).toContainText(`Loaded ${native.records} records from back.parquet.`);
  await tab(page, "Results");
  await expect(page.locator("#source")).toHaveText("Source: the file back.parquet");
  await expect(page.locator("#groups tbody tr")).toHaveCount(9);
  await shot(page, "parquet-loaded");

  // Damaged: cut in the middle (no footer), and a footer that points nowhere.
  await tab(page, "Upload");
  const result = page.locator("#upload-result");
  await page.getByLabel("Choose a record file").setInputFiles({ name: "cut.parquet", mimeType: "application/octet-stream", buffer: bytes.subarray(0, 500) });
  await expect(result.getByRole("alert")).toContainText("cut.parquet: not a Parquet file");
  await expect(result.getByRole("alert")).toContainText("Your earlier data is kept.");
  const broken = Buffer.concat([bytes.subarray(0, 500), Buffer.from([0x10, 0, 0, 0]), Buffer.from("PAR1")]);
  await page.getByLabel("Choose a record file").setInputFiles({ name: "broken.parquet", mimeType: "application/octet-stream", buffer: broken });
  await expect(result.getByRole("alert")).toContainText("broken.parquet: the Parquet file is damaged or truncated");
  await shot(page, "parquet-damaged");
  await expect.poll(() => recordCount(page)).toBe(native.records);
  expect(errors).toEqual([]);
});

test("a BBQ file written by pyarrow loads in the Benchmarks tab", async ({ page }) => {
  const errors = watchErrors(page);
  await open(page);
  await tab(page, "Benchmarks");
  // Our own two Age examples (fuzz/corpus/bbq_data/Age.jsonl) written by pyarrow with Snappy:
  // answer_info and additional_metadata are structs of lists there.
  await page.getByLabel("Choose benchmark data").setInputFiles("fuzz/corpus/records_parquet/nested_snappy.parquet");
  await expect(page.locator("#bbq-data-result")).toContainText("nested_snappy.parquet: 2 examples loaded");
  expect(errors).toEqual([]);
});

test("100,000 rows convert both ways in the Parquet worker (timed)", async ({ page }) => {
  await open(page);
  const timing = await page.evaluate(async () => {
    const parquet = await import("./parquet.js");
    const rows = [];
    for (let i = 0; i < 100_000; i++) {
      rows.push(JSON.stringify({ record_id: `r${i}`, case_id: `c${i % 500}`, language: ["en", "de", "es"][i % 3], model: "m", response: `answer ${i % 17}`, gold: i % 3, latency_ms: i / 7 }));
    }
    const jsonl = rows.join("\n") + "\n";
    let t = performance.now();
    const bytes = await parquet.jsonlToParquet("big.parquet", jsonl);
    const write = performance.now() - t;
    const size = bytes.byteLength;
    t = performance.now();
    const back = new TextDecoder().decode(await parquet.parquetToJsonl("big.parquet", bytes));
    const read = performance.now() - t;
    return { write, read, readInWorker: parquet.lastMs, size, lines: back.split("\n").length - 1, jsonlBytes: jsonl.length };
  });
  console.log(`Parquet in Chromium, 100,000 rows: ${JSON.stringify(timing)}`);
  expect(timing.lines).toBe(100_000);
});
