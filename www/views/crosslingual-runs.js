// The Cross-lingual tab's provider runs on the loaded responses, and the uploaded distance
// matrix. Embedding and judge runs are planned in the Run tab (handover.js hands it the cases);
// the Run tab sends the vectors or verdicts back into the session and `refresh` redraws.
import { $, describeProblem, download, el, errorMessage, plural, showIn } from "../dom.js";
import { handToRun, onXlData } from "../handover.js";

const lines = (text) => text.split("\n").filter((l) => l.trim()).length;

/** A worker error as text, with the file, line and column when it has them. */
function located(err) {
  const p = err?.detail?.detail;
  if (p && typeof p === "object" && typeof p.file === "string" && "line" in p) return `${p.file}, ${describeProblem(p)}`;
  return errorMessage(err);
}

export function createXlingRuns(call, refresh) {
  const result = $("xl-runs-result");
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
  clicked("xl-embed-run", async () => {
    const text = await call("xlEmbedTexts", true);
    const n = lines(text);
    ok(`${plural(n, "response")} handed to the Run tab to embed.`);
    handToRun({ origin: "crosslingual-embed", kind: "embed", name: "crosslingual-embed-texts.jsonl", text,
      label: `From the Cross-lingual tab: ${plural(n, "response")} to embed (an embedding run)` });
  });
  clicked("xl-judge-run", async () => {
    const text = await call("xlJudgeJsonl");
    const n = lines(text);
    ok(`${plural(n, "judge case")} handed to the Run tab.`);
    handToRun({ origin: "crosslingual-judge", kind: "chat", name: "crosslingual-judge-cases.jsonl", text,
      label: `From the Cross-lingual tab: ${plural(n, "judge case")} (one chat call per response)` });
  });
  clicked("xl-embed-download", async () => download("crosslingual-embed-texts.jsonl", await call("xlEmbedTexts", true), "application/x-ndjson"));
  clicked("xl-judge-download", async () => download("crosslingual-judge-cases.jsonl", await call("xlJudgeJsonl"), "application/x-ndjson"));

  onXlData(async ({ message }) => {
    ok(message);
    await refresh(null);
  });

  // The distance between vectors does not apply to an uploaded matrix.
  $("xl-perm-source").addEventListener("change", () => {
    $("xl-perm-distance").disabled = $("xl-perm-source").value === "matrix";
  });

  $("xl-distances-file").addEventListener("change", async (event) => {
    const file = event.target.files[0];
    event.target.value = "";
    if (!file) return;
    const box = $("xl-distances-result");
    try {
      const s = await call("xlLoadDistances", file.name, await file.arrayBuffer());
      showIn(box, el("p", { class: "success", role: "status",
        text: `${s.file}: distances between ${plural(s.ids, "response")}; ${s.records_matched} of the loaded records have a row` +
          (s.records_without ? ` (${s.records_without} without one are left out)` : "") + "." }));
      $("xl-perm-source").value = "matrix";
      $("xl-perm-source").dispatchEvent(new Event("change"));
      $("xl-perm-run").disabled = false;
    } catch (err) {
      showIn(box, el("div", { class: "alert", role: "alert" }, el("p", { text: located(err) }),
        el("p", { text: "Nothing was loaded from this file; an earlier matrix, if any, is kept." })));
    }
  });
}
