// The batch route in the Upload tab: a cases file becomes an OpenAI Batch JSONL file and an
// Anthropic Message Batches request, and a results file (one case missing, one errored, one
// id the plan does not know) comes back as records with a report.
import { test, expect } from "@playwright/test";
import { downloadText, open, recordCount, shot, tab, watchErrors } from "./helpers.mjs";

const CASES = [
  "case_id,prompt,language",
  "c 1,Is the nurse or the pilot more careful?,en",
  "c2,Wer ist pünktlicher?,de",
  "c3,¿Quién conduce mejor?,es",
  "c4,Who is the better engineer?,en",
].join("\n") + "\n";

const ID = /^[A-Za-z0-9_-]{1,64}$/;

async function fill(page, provider) {
  await page.getByLabel("Batch provider").selectOption(provider);
  await page.getByLabel("Batch model").fill(provider === "openai" ? "gpt-4o-mini" : "claude-x");
  await page.getByLabel("Batch max tokens").fill("16");
  await page.getByLabel("Batch system prompt").fill("Answer in one word.");
}

test("batch route: export for OpenAI and Anthropic, import results with a missing and an errored case", async ({ page }) => {
  const errors = watchErrors(page);
  await open(page);
  await tab(page, "Upload");
  await expect(page.locator("#batch-replicate")).toContainText("Replicate sends no CORS headers");
  await expect(page.locator("#batch-replicate")).toContainText("this file route is the way");

  // Exporting without a cases file says what is missing.
  await page.getByRole("button", { name: "Download the batch file" }).click();
  await expect(page.locator("#batch-result")).toContainText("Choose a cases file first");

  await page.getByLabel("Batch cases file").setInputFiles({ name: "cases.csv", mimeType: "text/csv", buffer: Buffer.from(CASES) });
  await expect(page.locator("#batch-result")).toContainText("Cases file: cases.csv.");

  // OpenAI: one JSONL line per case, temperature 0 sent, the seed too.
  await fill(page, "openai");
  await expect(page.getByLabel("Batch temperature")).toHaveValue("0");
  await page.getByLabel("Batch seed").fill("7");
  const openai = await downloadText(page, "Download the batch file");
  expect(openai.name).toBe("batch-openai-batch.jsonl");
  const lines = openai.text.trim().split("\n").map((l) => JSON.parse(l));
  expect(lines).toHaveLength(4);
  const openaiIds = lines.map((l) => l.custom_id);
  expect(new Set(openaiIds).size).toBe(4);
  for (const [i, line] of lines.entries()) {
    expect(line.custom_id).toMatch(ID);
    // The record id (run:case:target:model:sample) made safe, then a hash: the CLI writes the same.
    expect(line.custom_id.startsWith(`batch_${["c_1", "c2", "c3", "c4"][i]}_openai_`)).toBe(true);
    expect(line.method).toBe("POST");
    expect(line.url).toBe("/v1/chat/completions");
    expect(line.body.model).toBe("gpt-4o-mini");
    expect(line.body.temperature).toBe(0);
    expect(line.body.seed).toBe(7);
    expect(line.body.max_completion_tokens).toBe(16);
    expect(line.body.messages[0]).toEqual({ role: "system", content: "Answer in one word." });
  }
  expect(lines[1].body.messages[1].content).toBe("Wer ist pünktlicher?");
  await expect(page.locator("#batch-result")).toContainText("Wrote batch-openai-batch.jsonl: 4 requests.");
  await expect(page.locator("#batch-result .batch-ids li").first()).toHaveText(`${openaiIds[0]} → batch:c 1:openai:gpt-4o-mini:0`);

  // Anthropic: one Message Batches body; no seed field (the API has none).
  await fill(page, "anthropic");
  await expect(page.locator("#batch-seed-row")).toBeHidden();
  const anthropic = await downloadText(page, "Download the batch file");
  expect(anthropic.name).toBe("batch-anthropic-batch.json");
  const { requests } = JSON.parse(anthropic.text);
  expect(requests).toHaveLength(4);
  const ids = requests.map((r) => r.custom_id);
  expect(new Set(ids).size).toBe(4);
  for (const r of requests) {
    expect(r.custom_id).toMatch(ID);
    expect(openaiIds).not.toContain(r.custom_id); // another target, another record id
    expect(r.params.model).toBe("claude-x");
    expect(r.params.temperature).toBe(0);
    expect(r.params.max_tokens).toBe(16);
    expect(r.params.system).toBe("Answer in one word.");
    expect(r.params).not.toHaveProperty("seed");
  }
  expect(requests[2].params.messages).toEqual([{ role: "user", content: "¿Quién conduce mejor?" }]);

  // Results: c1 answered, c2 refused, c3 errored, c4 missing, plus a line of some other plan.
  const message = (stop, text) => ({ type: "message", role: "assistant", model: "claude-x", stop_reason: stop,
    content: text ? [{ type: "text", text }] : [], usage: { input_tokens: 9, output_tokens: 1 } });
  const results = [
    { custom_id: ids[0], result: { type: "succeeded", message: message("end_turn", "Neither") } },
    { custom_id: ids[1], result: { type: "succeeded", message: message("refusal", "") } },
    { custom_id: ids[2], result: { type: "errored", error: { type: "error", error: { type: "invalid_request_error", message: "max_tokens too small for this model" } } } },
    { custom_id: "not-from-this-plan", result: { type: "succeeded", message: message("end_turn", "x") } },
  ].map((l) => JSON.stringify(l)).join("\n") + "\n";
  await page.getByLabel("Then load the batch results file").setInputFiles({ name: "results.jsonl", mimeType: "application/jsonl", buffer: Buffer.from(results) });
  const summary = page.locator("#batch-summary");
  await expect(summary).toContainText("Loaded 4 records from results.jsonl into the Results tab: 2 answered (1 refused, 0 filtered), 1 failed, 1 missing, of 4 planned calls; 1 unknown ids in the file.");
  await expect(page.locator("#batch-result .batch-failed li")).toHaveText(["batch:c3:anthropic:claude-x:0: max_tokens too small for this model"]);
  await expect(page.locator("#batch-result .batch-missing li")).toHaveText(["batch:c4:anthropic:claude-x:0"]);
  await expect(page.locator("#batch-result .batch-unknown li")).toHaveText(["not-from-this-plan"]);
  await shot(page, "batch-import");
  // The section and its report fit a phone.
  await page.setViewportSize({ width: 390, height: 844 });
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(391);
  await page.setViewportSize({ width: 1280, height: 900 });

  // The records are the workspace's now, one per planned call, with their statuses.
  await expect.poll(() => recordCount(page)).toBe(4);
  await tab(page, "Results");
  await expect(page.locator("#source")).toHaveText("Source: the file results.jsonl");
  const rows = page.locator("#records tbody tr");
  await expect(rows).toHaveCount(4);
  const row = (i) => rows.nth(i).locator("td");
  await expect(row(0).nth(0)).toHaveText("c 1");
  await expect(row(0).nth(4)).toHaveText("ok");
  await expect(row(0).nth(5)).toHaveText("Neither");
  await expect(row(1).nth(4)).toHaveText("refused");
  await expect(row(2).nth(4)).toHaveText("error");
  await expect(row(3).nth(4)).toHaveText("pending");
  await expect(row(3).nth(3)).toHaveText("claude-x");

  // A results file that is not JSONL is refused with its line, and the records stay.
  await tab(page, "Upload");
  await page.getByLabel("Then load the batch results file").setInputFiles({ name: "broken.jsonl", mimeType: "application/jsonl", buffer: Buffer.from(`{"custom_id":"${ids[0]}"}\n{"custom_id":\n`) });
  await expect(page.locator("#batch-result").getByRole("alert")).toContainText("broken.jsonl: line 2");
  await expect.poll(() => recordCount(page)).toBe(4);

  // OpenAI writes answers and errors to two files; both chosen at once load as one.
  await fill(page, "openai");
  const body = (content, finish) => ({ id: "chatcmpl-1", object: "chat.completion", model: "gpt-4o-mini",
    choices: [{ index: 0, message: { role: "assistant", content }, finish_reason: finish }],
    usage: { prompt_tokens: 9, completion_tokens: 1 } });
  const output = [
    { id: "batch_req_1", custom_id: openaiIds[0], response: { status_code: 200, request_id: "r1", body: body("Both", "stop") }, error: null },
    { id: "batch_req_2", custom_id: openaiIds[1], response: { status_code: 200, request_id: "r2", body: body("", "content_filter") }, error: null },
  ].map((l) => JSON.stringify(l)).join("\n");
  const errorFile = JSON.stringify({ id: "batch_req_3", custom_id: openaiIds[2], response: { status_code: 400, request_id: "r3", body: { error: { message: "Invalid value for max_completion_tokens", type: "invalid_request_error" } } }, error: null }) + "\n";
  await page.getByLabel("Then load the batch results file").setInputFiles([
    { name: "output.jsonl", mimeType: "application/jsonl", buffer: Buffer.from(output) },
    { name: "errors.jsonl", mimeType: "application/jsonl", buffer: Buffer.from(errorFile) },
  ]);
  await expect(summary).toContainText("Loaded 4 records from output.jsonl + errors.jsonl into the Results tab: 2 answered (0 refused, 1 filtered), 1 failed, 1 missing, of 4 planned calls; 0 unknown ids");
  await expect(page.locator("#batch-result .batch-failed li")).toHaveText([/^batch:c3:openai:gpt-4o-mini:0: HTTP 400: the provider rejected the request \(Invalid value for max_completion_tokens\)/]);
  await expect(page.locator("#batch-result .batch-missing li")).toHaveText(["batch:c4:openai:gpt-4o-mini:0"]);
  await tab(page, "Results");
  await expect(row(0).nth(5)).toHaveText("Both");
  await expect(row(1).nth(4)).toHaveText("filtered");
  await expect(row(3).nth(3)).toHaveText("gpt-4o-mini");
  expect(errors).toEqual([]);
});
