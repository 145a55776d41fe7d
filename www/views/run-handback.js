// What a run gives back to the tab that handed it over: an embedding run's vectors (download as
// JSONL, or into the Cross-lingual session when that tab asked for them), an LLM judge run's
// replies (into the Cross-lingual session as judge verdicts), and a cross-lingual chat run's
// records (the session's records). Shown under the run's progress; the
// buttons work on what is stored so far, so a partial run can be used too.
import { $, busy, download, el, errorMessage, plural, showIn, plain } from "../dom.js";
import { bbqDataChanged, requirementsDataChanged, crosslingualDataChanged } from "../handover.js";

/** `runCall` talks to the run worker, `call` to the analysis worker (the Cross-lingual session).
 * @param {import("../rpc.js").RunCall} runCall
 * @param {import("../rpc.js").AnalysisCall} call */
export function createHandback(runCall, call) {
  const box = $("run-handback");
  let shown = ""; // the run and kind the box was built for

  const status = el("p", { role: "status", id: "run-handback-status" });
  const error = el("div", { class: "alert", role: "alert", hidden: true });

  async function sendVectors(model) {
    const batches = await runCall("vectors");
    const b = batches.find((x) => x.model === model);
    if (!b || !b.ids.length) throw new Error(`No vectors of ${model} are stored yet.`);
    const n = await call("crosslingualUseEmbeddingRun", b);
    const message = `${plural(n, "response")} got a vector of ${model} from the Run tab (${b.vectors[0].length} numbers each).`;
    status.textContent = plain(message);
    crosslingualDataChanged(message);
  }

  async function sendRecords() {
    const text = await runCall("export", "jsonl");
    if (!text.trim()) throw new Error("No record is answered or failed yet.");
    const s = await call("crosslingualLoadRecords", "run-records.jsonl", new TextEncoder().encode(text));
    const message = `${plural(s.used, "record")} of the run are the Cross-lingual tab's records now.`;
    status.textContent = plain(message);
    crosslingualDataChanged(message);
  }

  async function sendVerdicts() {
    const text = await runCall("export", "jsonl");
    if (!text.trim()) throw new Error("No judge reply is stored yet.");
    const s = await call("crosslingualLoadJudge", "judge-run.jsonl", new TextEncoder().encode(text));
    const message = `${plural(s.verdicts, "judge verdict")} from ${s.models.join(", ")}` +
      (s.unreadable ? `; ${plural(s.unreadable, "reply", "replies")} not exactly REFUSAL or ANSWER (listed as problems)` : "") +
      (s.failed ? `; ${plural(s.failed, "call")} without a reply` : "") + ".";
    status.textContent = plain(message);
    crosslingualDataChanged(message);
  }

  // The Requirements tab: the run's records (answers to its prompts, or the judge's replies).
  async function sendToRequirements(what) {
    const text = await runCall("export", "jsonl");
    if (!text.trim()) throw new Error("No record is answered or failed yet.");
    const bytes = new TextEncoder().encode(text);
    const result = what === "judge"
      ? await call("requirementsLoadJudge", "judge-run.jsonl", bytes)
      : await call("requirementsLoadRecords", "run-records.jsonl", bytes);
    status.textContent = what === "judge"
      ? `${plural(result.agreement.n, "judge verdict")} reached the Requirements tab.`
      : `${plural(result.records, "record")} of the run are the Requirements tab's records now.`;
    requirementsDataChanged(what, result);
  }

  // The Benchmarks tab: the run's answers scored as one predictions file (a record table).
  async function sendToBbq() {
    const text = await runCall("export", "jsonl");
    if (!text.trim()) throw new Error("No record is answered or failed yet.");
    const s = await call("bbqAddPredictions", "run-records.jsonl", new TextEncoder().encode(text), "records");
    const message = `${plural(s.predictions, "answer")} of the run are scored in the Benchmarks tab.`;
    status.textContent = plain(message);
    bbqDataChanged({ message, answers: true });
  }

  const act = (button, fn) => button.addEventListener("click", () => busy(button, async () => {
    showIn(error);
    try {
      await fn();
    } catch (err) {
      showIn(error, errorMessage(err));
    }
  }));

  function build(p) {
    const title = { embed: "The vectors", "crosslingual-judge": "The judge's verdicts", "crosslingual-chat": "The records",
      "requirements-chat": "The records", "requirements-judge": "The judge's verdicts", "bbq-chat": "The answers" };
    const parts = [el("h4", { text: title[p.kind === "embed" ? "embed" : p.origin] })];
    if (p.kind === "embed") {
      const dl = el("button", { type: "button", id: "run-embeddings-download", text: "Download embeddings (JSONL)" });
      act(dl, async () => download("evenhand-embeddings.jsonl", await runCall("embeddingsJsonl"), "application/x-ndjson"));
      parts.push(el("p", { class: "help", text: "One {\"id\", \"embedding\", \"model\"} per line, keyed by record id." }), dl);
      if (p.origin === "crosslingual-embed") {
        const select = el("select", { id: "run-handback-model" }, p.models.map((m) => el("option", { value: m, text: m })));
        const send = el("button", { type: "button", class: "primary", id: "run-handback-send", text: "Use the vectors in the Cross-lingual tab" });
        act(send, () => sendVectors(select.value));
        parts.push(p.models.length > 1
          ? el("div", { class: "row" }, el("label", { for: "run-handback-model", text: "Model whose vectors to use" }), select)
          : null, send);
      }
    } else if (p.origin === "requirements-chat" || p.origin === "requirements-judge") {
      const judge = p.origin === "requirements-judge";
      const send = el("button", { type: "button", class: "primary", id: "run-handback-send",
        text: judge ? "Use the verdicts in the Requirements tab" : "Use the records in the Requirements tab" });
      act(send, () => sendToRequirements(judge ? "judge" : "records"));
      parts.push(send);
    } else if (p.origin === "bbq-chat") {
      const send = el("button", { type: "button", class: "primary", id: "run-handback-send", text: "Score the answers in the Benchmarks tab" });
      act(send, sendToBbq);
      parts.push(send);
    } else if (p.origin === "crosslingual-judge") {
      const send = el("button", { type: "button", class: "primary", id: "run-handback-send", text: "Use the verdicts in the Cross-lingual tab" });
      act(send, sendVerdicts);
      parts.push(send);
    } else {
      const send = el("button", { type: "button", class: "primary", id: "run-handback-send", text: "Use the records in the Cross-lingual tab" });
      act(send, sendRecords);
      parts.push(send);
    }
    box.replaceChildren(...parts.filter(Boolean), status, error);
  }

  return {
    /** Called with every progress report of the run worker. */
    update(p) {
      const wanted = p.kind === "embed" || ["crosslingual-judge", "crosslingual-chat", "requirements-chat", "requirements-judge", "bbq-chat"].includes(p.origin);
      box.hidden = !wanted;
      const key = `${p.run_id}:${p.kind}:${p.origin}`;
      if (!wanted || key === shown) return;
      shown = key;
      status.textContent = "";
      build(p);
    },
  };
}
