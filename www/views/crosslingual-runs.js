// The Cross-lingual tab's provider runs on the loaded responses, and the uploaded distance
// matrix. Embedding and judge runs are planned in the Run tab (handover.js hands it the cases);
// the Run tab sends the vectors or verdicts back into the session and `refresh` redraws.
import { $, describeProblem, download, el, errorMessage, plural, showIn } from "../dom.js";
import { handToRun, onCrosslingualData } from "../handover.js";

const lines = (text) => text.split("\n").filter((l) => l.trim()).length;

/** A worker error as text, with the file, line and column when it has them. */
function located(err) {
  const p = err?.detail?.detail;
  if (p && typeof p === "object" && typeof p.file === "string" && "line" in p) return `${p.file}, ${describeProblem(p)}`;
  return errorMessage(err);
}

/** @param {import("../rpc.js").AnalysisCall} call */
export function createCrosslingualRuns(call, refresh) {
  const result = $("crosslingual-runs-result");
  const ok = (text) => showIn(result, el("p", { class: "success", role: "status", text }));
  const failed = (err) => showIn(result, el("div", { class: "alert", role: "alert" }, el("p", { text: errorMessage(err) })));
  const clicked = (id, fn) => $(id).addEventListener("click", async () => {
    try {
      await fn();
    } catch (err) {
      failed(err);
    }
  });

  // Every answered response, with or without a vector: one model's vectors replace the others.
  clicked("crosslingual-embed-run", async () => {
    const text = await call("crosslingualEmbedTexts", true);
    const n = lines(text);
    ok(`${plural(n, "response")} handed to the Run tab to embed.`);
    handToRun({ origin: "crosslingual-embed", kind: "embed", name: "crosslingual-embed-texts.jsonl", text,
      label: `From the Cross-lingual tab: ${plural(n, "response")} to embed (an embedding run)` });
  });
  clicked("crosslingual-judge-run", async () => {
    const text = await call("crosslingualJudgeJsonl");
    const n = lines(text);
    ok(`${plural(n, "judge case")} handed to the Run tab.`);
    handToRun({ origin: "crosslingual-judge", kind: "chat", name: "crosslingual-judge-cases.jsonl", text,
      label: `From the Cross-lingual tab: ${plural(n, "judge case")} (one chat call per response)` });
  });
  clicked("crosslingual-embed-download", async () => download("crosslingual-embed-texts.jsonl", await call("crosslingualEmbedTexts", true), "application/x-ndjson"));
  clicked("crosslingual-judge-download", async () => download("crosslingual-judge-cases.jsonl", await call("crosslingualJudgeJsonl"), "application/x-ndjson"));

  onCrosslingualData(async ({ message }) => {
    ok(message);
    await refresh(null);
  });

  // The distance between vectors does not apply to an uploaded matrix.
  $("crosslingual-perm-source").addEventListener("change", () => {
    $("crosslingual-perm-distance").disabled = $("crosslingual-perm-source").value === "matrix";
  });

  $("crosslingual-distances-file").addEventListener("change", async (event) => {
    const file = /** @type {HTMLInputElement} */ (event.target).files[0];
    /** @type {HTMLInputElement} */ (event.target).value = "";
    if (!file) return;
    const box = $("crosslingual-distances-result");
    try {
      const s = await call("crosslingualLoadDistances", file.name, await file.arrayBuffer());
      showIn(box, el("p", { class: "success", role: "status",
        text: `${s.file}: distances between ${plural(s.ids, "response")}; ${s.records_matched} of the loaded records have a row` +
          (s.records_without ? ` (${s.records_without} without one are left out)` : "") + "." }));
      $("crosslingual-perm-source").value = "matrix";
      $("crosslingual-perm-source").dispatchEvent(new Event("change"));
      $("crosslingual-perm-run").disabled = false;
    } catch (err) {
      showIn(box, el("div", { class: "alert", role: "alert" }, el("p", { text: located(err) }),
        el("p", { text: "Nothing was loaded from this file; an earlier matrix, if any, is kept." })));
    }
  });
}
