// The batch route in the Upload tab: a cases file and one model's settings become an OpenAI
// Batch JSONL file or an Anthropic Message Batches request (downloaded, never sent), and the
// provider's results file comes back as the workspace's records, with a report of what was
// answered, what failed, what is missing and which ids the plan does not know.
import { $, el, busy, download, errorMessage, plural, problemList, showIn } from "../dom.js";

const SHOWN = 20; // ids listed per group; the counts are always whole

/** Builds the section. `changed()` re-renders the Results tab after an import.
 * @param {import("../rpc.js").AnalysisCall} call */
export function createBatch(call, changed) {
  const box = $("batch-result");
  let cases = null; // {name, bytes}

  const provider = $("batch-provider");
  const syncSeed = () => {
    // Anthropic's Messages API has no seed; the field is hidden rather than silently dropped.
    $("batch-seed-row").hidden = provider.value !== "openai";
  };
  provider.addEventListener("change", syncSeed);
  syncSeed();

  $("batch-cases").addEventListener("change", async (event) => {
    const file = /** @type {HTMLInputElement} */ (event.target).files[0];
    cases = file ? { name: file.name, bytes: await file.arrayBuffer() } : null;
    showIn(box, cases ? el("p", { role: "status", text: `Cases file: ${file.name}.` }) : null);
  });

  /** An optional number field: null when empty, a number otherwise (NaN is caught by the core). */
  const number = (id) => {
    const text = $(id).value.trim();
    return text === "" ? null : Number(text);
  };

  function settings() {
    const params = {};
    const temperature = number("batch-temperature");
    if (temperature !== null) params.temperature = temperature; // 0 is a setting, sent as 0
    const maxTokens = number("batch-max-tokens");
    if (maxTokens !== null) params.max_tokens = maxTokens;
    const system = $("batch-system").value;
    if (system.trim()) params.system = system;
    const seed = number("batch-seed");
    if (seed !== null && provider.value === "openai") params.seed = seed;
    return {
      provider: provider.value,
      model: $("batch-model").value.trim(),
      run_id: $("batch-run-id").value.trim() || "batch",
      samples: number("batch-samples") ?? 1,
      params,
    };
  }

  function failed(err) {
    const detail = err && err.detail;
    const problems = detail && detail.kind === "cases" ? detail.problems : null;
    showIn(box, el("div", { class: "alert", role: "alert" },
      el("p", { text: errorMessage(err) }), problems ? problemList(problems) : null));
  }

  function needCases() {
    if (cases) return true;
    showIn(box, el("p", { class: "alert", role: "alert", text: "Choose a cases file first (a prompt column, one case per row)." }));
    return false;
  }

  $("batch-export").addEventListener("click", (event) => busy(event.currentTarget, async () => {
    if (!needCases()) return;
    try {
      const out = await call("batchExport", settings(), cases.name, cases.bytes);
      download(out.file_name, out.text, out.mime);
      showIn(box,
        el("p", { class: "success", role: "status", text: `Wrote ${out.file_name}: ${plural(out.requests, "request")}. Submit it with your provider account, then load its results file below with the same cases and settings.` }),
        out.warnings.length ? el("div", { class: "warning" }, out.warnings.map((w) => el("p", { text: w }))) : null,
        el("details", {}, el("summary", { text: "How custom ids map to record ids" }),
          el("ul", { class: "batch-ids" }, out.first_ids.map((p) => el("li", { text: `${p.custom_id} → ${p.record_id}` })))));
    } catch (err) {
      failed(err);
    }
  }));

  const idList = (title, ids, cls) => ids.length === 0 ? null : el("div", { class: cls },
    el("p", { text: `${title}: ${ids.length}` }),
    el("ul", {}, ids.slice(0, SHOWN).map((text) => el("li", { text }))),
    ids.length > SHOWN ? el("p", { class: "help", text: `and ${ids.length - SHOWN} more` }) : null);

  $("batch-results").addEventListener("change", async (event) => {
    // OpenAI's output and error files together: one JSONL text, since their ids never overlap.
    const files = [.../** @type {HTMLInputElement} */ (event.target).files];
    /** @type {HTMLInputElement} */ (event.target).value = ""; // the same file chosen again must load again
    if (files.length === 0 || !needCases()) return;
    const file = { name: files.map((f) => f.name).join(" + ") };
    showIn(box, el("p", { role: "status", text: `Reading ${file.name}…` }));
    try {
      const parts = files.flatMap((f, i) => (i === 0 ? [f] : ["\n", f]));
      const bytes = await new Blob(parts).arrayBuffer();
      const { report, load } = await call("batchImport", settings(), cases.name, cases.bytes, file.name, bytes);
      const planned = report.answered.length + report.failed.length + report.missing.length;
      showIn(box,
        el("p", { class: "success", role: "status", id: "batch-summary",
          text: `Loaded ${plural(load.loaded, "record")} from ${file.name} into the Results tab: ${report.answered.length} answered (${report.refused} refused, ${report.filtered} filtered), ${report.failed.length} failed, ${report.missing.length} missing, of ${plural(planned, "planned call")}; ${report.unknown.length} unknown ids in the file.` }),
        idList("Failed", report.failed.map((f) => `${f.record_id}: ${f.reason}`), "alert batch-failed"),
        idList("Missing from the results file (kept as pending)", report.missing.map((m) => m.record_id), "warning batch-missing"),
        idList("Unknown ids (not in this plan: another file, or other cases or settings?)", report.unknown, "warning batch-unknown"));
      await changed();
    } catch (err) {
      failed(err);
    }
  });
}
