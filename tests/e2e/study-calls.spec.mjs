// The study report's calls table (issue 25): a run on a mock model that answers about 15% of the
// BBQ questions out of choice shows, per model and language, answered / out of choice / failed
// adding up to the planned calls, with the out-of-choice count the mock itself gave.
import { test, expect } from "@playwright/test";
import { createHash } from "node:crypto";
import { SCREENS, bbqCategoryFile, open, startMock, watchErrors } from "./helpers.mjs";

test("25f. a run with 15% of answers out of choice: the report's calls table shows them per model and language, and the columns add up", async ({ page }) => {
  test.setTimeout(240_000);
  const errors = watchErrors(page);
  const mock = await startMock(["--latency-ms", "2"]);
  try {
    const questions = 40;
    const planned = questions * 4;
    const data = bbqCategoryFile(questions);
    const study = {
      format: "evenhand-study", version: 1, title: "Answers out of choice", question: "What became of every call?",
      targets: ["openai-compatible:mock-offchoice", "simulated:fair"],
      methods: { bbq: { dataset: { file: "Gender_identity.jsonl", sha256: createHash("sha256").update(data).digest("hex") } } },
      statistics: { replicates: 200 },
    };
    await open(page, "./");
    await page.locator("#home-study-file").setInputFiles({ name: "calls-study.json", mimeType: "application/json", buffer: Buffer.from(JSON.stringify(study)) });
    await expect(page).toHaveURL(/#study\/plan-file$/);
    await page.getByLabel("Gender_identity.jsonl (methods.bbq.dataset)")
      .setInputFiles({ name: "Gender_identity.jsonl", mimeType: "application/x-ndjson", buffer: data });
    await expect(page.locator("#study-plan-summary")).toContainText(`${planned} calls to providers`);
    await page.getByRole("link", { name: "Next: run or upload" }).click();
    await page.getByLabel("Base URL for openai-compatible (empty: the provider's own)").fill(`${mock.base}/v1`);
    await page.getByRole("button", { name: "Run the study" }).click();
    const confirm = page.locator("#study-confirm");
    await expect.poll(async () => (await confirm.isVisible()) || /#study\/report$/.test(page.url()), { timeout: 30_000 }).toBe(true);
    if (await confirm.isVisible()) await confirm.getByRole("button", { name: /Start anyway|Resume/ }).click();
    await expect(page).toHaveURL(/#study\/report$/, { timeout: 180_000 });
    await expect(page.locator("#study-report-title")).toContainText("Answers out of choice", { timeout: 30_000 });

    const stats = await mock.stats();
    expect(stats.total).toBe(planned);
    const offChoice = stats.offchoice["mock-offchoice"] ?? 0;
    console.log(`mock-offchoice answered ${offChoice} of ${planned} calls out of choice`);
    expect(offChoice).toBeGreaterThan(planned * 0.05);
    expect(offChoice).toBeLessThan(planned * 0.3);

    const table = page.locator("#study-section-bbq table.report-calls-table");
    await expect(table).toBeVisible();
    await table.scrollIntoViewIfNeeded();
    await page.locator("#study-section-bbq .report-calls").screenshot({ path: `${SCREENS}/study-calls-table.png` });
    // BBQ detects no refusals: no Refused column.
    await expect(table.locator("thead th")).toHaveText(["Model", "Language", "Answered", "Out of choice", "Failed", "Total"]);
    const row = table.locator('tbody tr[data-model="mock-offchoice"]');
    await expect(row).toHaveCount(1);
    await expect(row).toHaveAttribute("data-language", "en");
    const cell = async (col) => Number((await row.locator(`td[data-col="${col}"]`).textContent()).match(/^\d+/)[0]);
    const [answered, out, failed, total] = [await cell("answered"), await cell("out_of_choice"), await cell("failed"), await cell("total")];
    expect(out).toBe(offChoice);
    expect(failed).toBe(0);
    expect(answered + out + failed).toBe(total);
    expect(total).toBe(planned);
    // The figures count the answered column: accuracy · all's n is the answered calls.
    const all = page.locator("#study-section-bbq table.report-figures tbody tr")
      .filter({ has: page.locator("td", { hasText: /^accuracy · all$/ }) })
      .filter({ has: page.locator("td", { hasText: /^mock-offchoice$/ }) });
    await expect(all.locator("td").last()).toHaveText(String(answered));
    await expect(page.locator("#study-section-bbq .report-calls p.help")).toContainText("answered column");
    // Every row of the table adds up, the simulated model's too.
    for (const r of await table.locator("tbody tr").all()) {
      const n = async (col) => Number((await r.locator(`td[data-col="${col}"]`).textContent()).match(/^\d+/)[0]);
      expect((await n("answered")) + (await n("out_of_choice")) + (await n("failed"))).toBe(await n("total"));
    }
    expect(errors).toEqual([]);
  } finally {
    mock.stop();
  }
});
