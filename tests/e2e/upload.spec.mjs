// Uploading record files: good ones, bad rows, whole bad files, unknown columns, and
// hostile content that must stay text.
import { test, expect } from "@playwright/test";
import { mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { FIXTURES, downloadText, nativeAnalysis, open, recordCount, shot, tab, upload, watchErrors } from "./helpers.mjs";

test("3. valid CSV and JSONL files load and update the results", async ({ page }) => {
  const errors = watchErrors(page);
  await open(page);
  const jsonl = readFileSync(`${FIXTURES}/demo/records.jsonl`, "utf8").split("\n").slice(0, 100).join("\n");
  // Dropped on the drop zone.
  await tab(page, "Upload");
  const dropped = await page.evaluateHandle((text) => {
    const dt = new DataTransfer();
    dt.items.add(new File([text], "subset.jsonl"));
    return dt;
  }, jsonl);
  await page.dispatchEvent("#dropzone", "drop", { dataTransfer: dropped });
  await expect(page.locator("#upload-result")).toContainText("Loaded 100 records from subset.jsonl.");
  await expect.poll(() => recordCount(page)).toBe(100);
  await tab(page, "Results");
  await expect(page.locator("#source")).toHaveText("Source: the file subset.jsonl");
  await expect(page.locator("#rec-range")).toHaveText("Records 1–25 of 100");

  // The CLI's CSV: the whole demo again, and the same numbers as the CLI computed.
  await page.getByRole("tab", { name: "Upload" }).click();
  await page.getByLabel("Choose a record file").setInputFiles(`${FIXTURES}/demo/records.csv`);
  const native = nativeAnalysis();
  await expect(page.locator("#upload-result")).toContainText(`Loaded ${native.records} records from records.csv.`);
  await expect.poll(() => recordCount(page)).toBe(native.records);
  await tab(page, "Results");
  await expect(page.locator("#groups tbody tr")).toHaveCount(9);
  await expect(page.locator("#badge-simulated")).toBeVisible(); // the file says its provider was simulated
  await tab(page, "Share");
  expect(JSON.parse((await downloadText(page, "Download bundle")).text).results).toEqual(native);
  // A file cannot be rebuilt from a link.
  await page.getByRole("button", { name: "Copy share link" }).click();
  await expect(page.locator("#share-error")).toContainText("share a bundle instead");
  expect(errors).toEqual([]);
});

test("4. bad rows are listed by line; a wholly bad file keeps the earlier data", async ({ page }) => {
  await open(page);
  const bad = "response,sample_index,status\nNo,0,ok\nNo,minus,ok\nNo,1,maybe\n";
  await upload(page, "bad.csv", bad);
  const result = page.locator("#upload-result");
  await expect(result).toContainText("Loaded 1 record from bad.csv.");
  const alert = result.getByRole("alert");
  await expect(alert).toContainText("2 rows not loaded");
  await expect(alert.locator("li").nth(0)).toHaveText(/^line 3, column 2, field sample_index: expected a non-negative integer, found "minus"/);
  await expect(alert.locator("li").nth(1)).toHaveText(/^line 4, column 3, field status: expected one of ok, refused/);
  await expect.poll(() => recordCount(page)).toBe(1);
  await shot(page, "upload-bad-rows");

  await upload(page, "allbad.csv", "response,sample_index\nNo,minus\nYes,-1\n");
  await expect(result.getByRole("alert")).toContainText("No row of allbad.csv could be loaded. Your earlier data is kept.");
  await expect(result.getByRole("alert").locator("li")).toHaveText([/^line 2, column 2, field sample_index/, /^line 3, column 2, field sample_index/]);
  await expect.poll(() => recordCount(page)).toBe(1); // unchanged
  await tab(page, "Results");
  await expect(page.locator("#source")).toHaveText("Source: the file bad.csv");
  await expect(page.locator("#records tbody tr")).toHaveCount(1);

  // A file that is not a table at all: the message says why, and the data stays.
  await upload(page, "empty.csv", "   \n");
  await expect(result.getByRole("alert")).toContainText("empty");
  await expect(result.getByRole("alert")).toContainText("Your earlier data is kept.");
  await expect.poll(() => recordCount(page)).toBe(1);
});

test("5. an unknown CSV asks for a column mapping", async ({ page }) => {
  const errors = watchErrors(page);
  await open(page);
  await upload(page, "other-tool.csv", "Model Output,lang\nNo,en\nYes,de\nNo,es\n");
  const form = page.locator("#mapping-form");
  await expect(form).toBeVisible();
  await expect(form).toContainText("No column could be matched to: response.");
  await expect(form.getByLabel("language")).toHaveValue("lang"); // suggested from the alias
  await expect(form.getByLabel("response (required)")).toHaveValue("");
  await expect(form.locator("table.preview thead th")).toHaveText(["Model Output", "lang"]);
  await expect(form.locator("table.preview tbody tr")).toHaveCount(3);
  expect(await page.locator("#summary").getAttribute("data-records")).not.toBe("3");
  await shot(page, "upload-mapping");

  await form.getByLabel("response (required)").selectOption("Model Output");
  await form.getByRole("button", { name: "Load with this mapping" }).click();
  await expect(page.locator("#upload-result")).toContainText("Loaded 3 records from other-tool.csv.");
  await expect(page.locator("#mapping")).toBeHidden();
  await expect.poll(() => recordCount(page)).toBe(3);
  await tab(page, "Results");
  await expect(page.locator("#records tbody tr td.response")).toHaveText(["No", "Yes", "No"]);
  await expect(page.locator("#groups tbody tr")).toHaveCount(3); // a file without concerns: by model and language
  await expect(page.locator("#badge-simulated")).toHaveCount(0);
  expect(errors).toEqual([]);
});

test("8. hostile responses and names stay text", async ({ page }) => {
  const payloads = [
    `<img src=x onerror="window.__pwned=1">`,
    `<script>window.__pwned=2</script>`,
    `"><svg onload=window.__pwned=3>`,
  ];
  const requests = [];
  page.on("request", (r) => requests.push(r.url()));
  await open(page);
  const lines = payloads.map((p, i) => JSON.stringify({
    case_id: p, response: p, expected: "No", language: `l${i}`, concern: p, model: p, communities: { X: p },
  }));
  const name = `<img src=x onerror=window.__pwned=4>.jsonl`;
  await upload(page, name, lines.join("\n"));
  await expect(page.locator("#upload-result")).toContainText(`Loaded 3 records from ${name}.`);
  await tab(page, "Results");
  await expect(page.locator("#source")).toHaveText(`Source: the file ${name}`);
  const cells = page.locator("#records tbody tr");
  await expect(cells).toHaveCount(3);
  for (const [i, p] of payloads.entries()) {
    const row = cells.nth(i).locator("td");
    await expect(row.nth(0)).toHaveText(p); // case_id
    await expect(row.nth(2)).toHaveText(p); // community
    await expect(row.nth(3)).toHaveText(p); // model
    await expect(row.nth(5)).toHaveText(p); // response
  }
  await expect(page.locator("#groups tbody th").first()).toContainText("<");
  // The chart's labels hold the payloads too: it still renders, as an image that runs nothing.
  expect(await page.locator("#chart").evaluate((img) => img.complete && img.naturalWidth > 0)).toBe(true);
  await page.waitForTimeout(500);
  expect(await page.evaluate(() => window.__pwned)).toBeUndefined();
  expect(await page.locator("main img:not(.chart), main script, main svg, main iframe").count()).toBe(0);
  expect(requests.filter((u) => u.includes("/x"))).toEqual([]);
  await shot(page, "xss-records");
});

test("a large record file is read in chunks with a moving progress bar, then loads", async ({ page }) => {
  const errors = watchErrors(page);
  // About 30 MB: 100,000 rows with a long response each.
  const rows = 100_000;
  const long = "x".repeat(290);
  const path = "target/e2e-results/large-upload.csv";
  mkdirSync("target/e2e-results", { recursive: true });
  writeFileSync(path, "record_id,prompt,response\n" + Array.from({ length: rows }, (_, i) => `r${i},q${i % 50},${long}`).join("\n") + "\n");
  const size = statSync(path).size;
  expect(size).toBeGreaterThan(29e6);
  // Chunks arrive a little slower than from a local disk, and the fifth waits until the test
  // has looked at the bar, so that the bar can be seen moving.
  await page.addInitScript(() => {
    const stream = Blob.prototype.stream;
    Blob.prototype.stream = function () {
      const reader = stream.call(this).getReader();
      let chunks = 0;
      return new ReadableStream({
        async pull(controller) {
          await new Promise((r) => setTimeout(r, 4));
          if (++chunks === 5) while (!window.__release) await new Promise((r) => setTimeout(r, 20));
          const { done, value } = await reader.read();
          if (done) controller.close();
          else controller.enqueue(value);
        },
      });
    };
  });
  await open(page);
  await tab(page, "Upload");
  // Every value the bar takes, as the page sets it.
  await page.evaluate(() => {
    window.__progress = [];
    new MutationObserver((changes) => {
      for (const c of changes) {
        for (const n of c.type === "attributes" ? [c.target] : [...c.addedNodes]) {
          if (n instanceof HTMLProgressElement) window.__progress.push([n.value, n.max]);
        }
      }
    }).observe(document.getElementById("upload-result"), { subtree: true, childList: true, attributes: true, attributeFilter: ["value"] });
  });
  await page.getByLabel("Choose a record file").setInputFiles(path);
  const bar = page.getByRole("progressbar", { name: "Reading large-upload.csv" });
  await expect(bar).toBeVisible();
  await expect.poll(() => bar.evaluate((b) => b.value), { timeout: 20_000 }).toBeGreaterThan(0);
  await page.locator("#panel-upload").screenshot({ path: "target/e2e-results/screens/upload-large-progress.png" });
  await page.evaluate(() => { window.__release = true; });
  await expect(page.locator("#upload-result")).toContainText(`Loaded 100000 records from large-upload.csv.`, { timeout: 45_000 });
  const seen = await page.evaluate(() => window.__progress);
  const moving = seen.filter(([v, max]) => v > 0 && v < max);
  expect(moving.length, JSON.stringify(seen.slice(0, 5))).toBeGreaterThan(10);
  expect(seen.every(([, max]) => max === size)).toBe(true);
  expect(seen[seen.length - 1][0]).toBe(size);
  await expect.poll(() => recordCount(page)).toBe(rows);
  expect(errors).toEqual([]);
});
