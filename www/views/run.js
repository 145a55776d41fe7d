// The Run tab: plan a run against LLM providers, confirm it, start it in the run worker
// (www/run-worker.js), follow its progress, pause / resume / cancel / retry the failed calls,
// analyze the records so far, export them, and resume a run a reload interrupted.
import { $, el, busy, download, errorMessage, plural, showIn, plain } from "../dom.js";
import { connect } from "../rpc.js";
import { keysFor, remembered, setKey, setRemember } from "../keys.js";
import { createRunForm } from "./run-form.js";
import { renderEstimate, renderProgress } from "./run-live.js";
import { createHandback } from "./run-handback.js";
import { onRunCases } from "../handover.js";

/** The run worker (www/run-worker.js): one per page, shared by the Run tab and the study flow,
 *  so one engine sends every call and a run is never driven from two places. */
export function startRunWorker() {
  const worker = new Worker(new URL("../run-worker.js", import.meta.url), { type: "module" });
  /** @type {import("../rpc.js").RunCall} */
  const runCall = connect(worker);
  return { worker, runCall };
}

/** `call` talks to the analysis worker (for "Analyze now"); `analyzed()` refreshes Results.
 * @param {import("../rpc.js").AnalysisCall} call
 * @param {{worker: Worker, runCall: import("../rpc.js").RunCall}} engine from startRunWorker */
export async function createRun(call, analyzed, engine) {
  const { worker, runCall } = engine;
  const handback = createHandback(runCall, call);
  worker.addEventListener("message", ({ data }) => {
    if (data.type === "progress" && data.progress.origin === STUDY) {
      noteStudyRun(data.progress.run_id, `${data.progress.state}: ${data.progress.answered} of ${data.progress.total} answered`);
    } else if (data.type === "progress") {
      $("run-live").hidden = false;
      renderProgress(data.progress);
      handback.update(data.progress);
    } else if (data.type === "error") {
      showIn($("run-live-error"), data.message);
    }
  });

  const { specs, prices } = await runCall("providers");
  const form = createRunForm(runCall, specs);
  form.fillPrices(prices);
  const remember = $("run-remember");
  remember.checked = remembered();
  remember.addEventListener("change", () => setRemember(remember.checked));

  // An edited price table also reprices the run in progress (its cost so far and from now on).
  $("run-prices").addEventListener("change", async () => {
    try {
      await runCall("setPrices", form.readPrices());
    } catch (err) {
      showIn($("run-live-error"), `Prices: ${errorMessage(err)}`);
    }
  });

  const planError = $("run-plan-error");
  const estimateBox = $("run-estimate");
  let planned = null; // {spec, estimate, calls}

  // Cases another tab handed over ({origin, kind, name, text, label}); offered as a source.
  let handed = null;
  onRunCases((cases) => {
    handed = cases;
    $("run-handed-text").textContent = plain(cases.label);
    $("run-source-handed-label").hidden = false;
    $("run-source-handed").checked = true;
    showIn(planError);
    estimateBox.hidden = true;
  });

  function batchSize() {
    const n = Number($("run-batch-size").value);
    if (!Number.isInteger(n) || n < 1 || n > 2048) throw new Error(`Texts per embedding call: expected a whole number from 1 to 2048, found "${$("run-batch-size").value}"`);
    return n;
  }

  async function readCases() {
    const source = /** @type {HTMLInputElement} */ (document.querySelector('input[name="run-source"]:checked')).value;
    if (source === "handed") {
      if (!handed) throw new Error("No cases were handed over; choose another source.");
      const cases = { name: handed.name, bytes: new TextEncoder().encode(handed.text), as_records: false, kind: handed.kind, origin: handed.origin };
      if (handed.kind === "embed") cases.batch = batchSize();
      return cases;
    }
    if (source === "embed") {
      const file = $("run-embed-file").files[0];
      if (!file) throw new Error("Choose a texts-to-embed file (JSONL, one {\"id\", \"text\"} per line).");
      return { name: file.name, bytes: new Uint8Array(await file.arrayBuffer()), as_records: false, kind: "embed", batch: batchSize() };
    }
    if (source === "workspace") {
      const text = await call("export", "jsonl");
      return { name: "results.jsonl", bytes: new TextEncoder().encode(text), as_records: true };
    }
    const file = $("run-cases-file").files[0];
    if (!file) throw new Error("Choose a cases file (CSV, JSONL or JSON with a prompt column), or use the records in the Results tab.");
    return { name: file.name, bytes: new Uint8Array(await file.arrayBuffer()), as_records: false };
  }

  $("run-form").addEventListener("submit", (event) => {
    event.preventDefault();
    busy($("run-plan"), async () => {
      showIn(planError);
      estimateBox.hidden = true;
      try {
        const spec = form.read();
        const cases = await readCases();
        if (cases.kind === "embed") checkEmbeddings(spec, specs);
        planned = await runCall("plan", spec, cases);
        renderEstimate(estimateBox, planned.estimate, planned.calls);
        $("run-start").addEventListener("click", confirmStart);
      } catch (err) {
        planned = null;
        showIn(planError, errorMessage(err));
      }
    });
  });

  const dialog = $("run-confirm");
  function confirmStart() {
    if (!planned) return;
    if (planned.estimate.confirm.length) {
      $("run-confirm-reasons").replaceChildren(...planned.estimate.confirm.map((r) => el("li", { text: `This run has ${r}.` })));
      dialog.showModal();
    } else {
      start();
    }
  }
  $("run-confirm-yes").addEventListener("click", () => {
    dialog.close();
    start();
  });
  $("run-confirm-no").addEventListener("click", () => dialog.close());

  async function start() {
    const spec = planned.spec;
    planned = null;
    estimateBox.hidden = true;
    try {
      await runCall("start", keysFor(spec.targets.map((t) => t.id)));
      $("run-live").hidden = false;
    } catch (err) {
      showIn(planError, errorMessage(err));
    }
  }

  const action = (id, op) => $(id).addEventListener("click", () => busy($(id), async () => {
    try {
      await runCall(op);
    } catch (err) {
      showIn($("run-live-error"), errorMessage(err));
    }
  }));
  action("run-pause", "pause");
  action("run-resume-btn", "resume");
  action("run-cancel", "cancel");
  action("run-retry", "retryFailed");

  for (const format of ["csv", "jsonl"]) {
    const id = `run-export-${format}`;
    $(id).addEventListener("click", async () => {
      try {
        download(`evenhand-run-records.${format}`, await runCall("export", format), format === "csv" ? "text/csv" : "application/x-ndjson");
      } catch (err) {
        showIn($("run-live-error"), errorMessage(err));
      }
    });
  }

  // The records so far go to the Results tab's workspace; the run goes on meanwhile.
  $("run-analyze").addEventListener("click", () => busy($("run-analyze"), async () => {
    try {
      const csv = await runCall("export", "csv");
      if (csv.split("\n").filter(Boolean).length < 2) throw new Error("No record is answered or failed yet.");
      await call("load", "run-records.csv", new TextEncoder().encode(csv), null);
      await analyzed();
    } catch (err) {
      showIn($("run-live-error"), `Analyze now: ${errorMessage(err)}`);
    }
  }));

  $("run-plan").disabled = false;
  await offerResume(runCall);
}

/** An embedding run needs providers that make embeddings (the connectors say which). */
function checkEmbeddings(spec, specs) {
  for (const t of spec.targets) {
    const s = specs.find((x) => x.kind === t.provider);
    if (s && !s.capabilities.embeddings) {
      const able = specs.filter((x) => x.capabilities.embeddings).map((x) => x.label).join(", ");
      throw new Error(`Target ${t.id}: ${s.label} makes no embeddings; for an embedding run choose one of ${able}.`);
    }
  }
}

/** The run-worker origin of the study view's runs (views/study-run.js). */
const STUDY = "study";

/** A study's run shares the engine but belongs to the study: the Run tab neither shows its
 * progress nor offers it among its own runs; it says where it is followed instead. */
function noteStudyRun(runId, what) {
  let note = document.getElementById("run-study-note");
  if (!note) {
    note = el("p", { id: "run-study-note", class: "help", role: "status" });
    $("run-resume").before(note);
  }
  note.replaceChildren(`A study's run (${runId}, ${what}) belongs to the study and is followed there, not here: `,
    el("a", { href: "#study/run", text: "open the study's run" }), ".");
}

/** On load: each unfinished stored run, with Resume (asking again for keys not remembered) and Discard.
 * @param {import("../rpc.js").RunCall} runCall */
async function offerResume(runCall) {
  const box = $("run-resume");
  let runs;
  try {
    runs = await runCall("unfinished");
  } catch (err) {
    showIn(box, el("p", { class: "alert", role: "alert", text: `Stored runs could not be read: ${errorMessage(err)}` }));
    return;
  }
  for (const r of runs.filter((x) => x.origin === STUDY)) noteStudyRun(r.run_id, `unfinished: ${r.answered} of ${r.total} answered`);
  runs = runs.filter((r) => r.origin !== STUDY);
  if (!runs.length) return;
  box.replaceChildren(el("h3", { text: "Unfinished runs" }), ...runs.map((r) => resumeItem(runCall, r, box)));
  box.hidden = false;
}

/** Says how many stored answers a resume set aside because their request changed since.
 * @param {{records: number, cases: string[]}} stale */
function showStale(stale) {
  const box = $("run-stale");
  if (!stale.records) {
    showIn(box);
    return;
  }
  const shown = stale.cases.slice(0, 5);
  const more = stale.cases.length > shown.length ? ` and ${plural(stale.cases.length - shown.length, "more case")}` : "";
  showIn(box, el("p", { text: `${plural(stale.records, "stored answer")} set aside: the request changed since `
    + `(prompt, model or parameters), so ${stale.records === 1 ? "it is" : "they are"} sent again. `
    + `Cases: ${shown.join(", ")}${more}.` }));
}

/** @param {import("../rpc.js").RunCall} runCall */
function resumeItem(runCall, r, box) {
  const inputs = r.keyed.filter((t) => !keysFor([t])[t]).map((t) => {
    const id = `run-resume-key-${r.run_id}-${t}`;
    return { target: t, input: el("input", { id, type: "password", autocomplete: "off", spellcheck: "false" }), id };
  });
  const resume = el("button", { type: "button", class: "primary", text: "Resume" });
  const discard = el("button", { type: "button", text: "Discard" });
  const error = el("div", { class: "alert", role: "alert", hidden: true });
  const item = el("div", { class: "resume-item", "data-run-id": r.run_id },
    el("p", { role: "status", text: `Run ${r.run_id} (${new Date(r.created).toLocaleString()}): ${r.answered} of ${r.total} answered`
      + (r.failed ? `, ${r.failed} failed` : "") + "." }),
    inputs.length ? el("p", { text: "Keys are not kept with a run; type them again to resume." }) : null,
    inputs.map(({ target, input, id }) => el("div", { class: "row" }, el("label", { for: id, text: `API key for ${target}` }), input)),
    el("div", { class: "buttons" }, resume, discard), error);
  resume.addEventListener("click", () => busy(resume, async () => {
    for (const { target, input } of inputs) setKey(target, input.value);
    const missing = inputs.filter(({ input }) => !input.value.trim()).map(({ target }) => target);
    if (missing.length) {
      showIn(error, `Type the key for ${missing.join(", ")} first.`);
      return;
    }
    try {
      const { stale } = await runCall("resumeStored", r.run_id, keysFor(r.targets));
      showStale(stale);
      item.remove();
      box.hidden = box.querySelectorAll(".resume-item").length === 0;
      $("run-live").hidden = false;
    } catch (err) {
      showIn(error, errorMessage(err));
    }
  }));
  discard.addEventListener("click", () => busy(discard, async () => {
    await runCall("discard", r.run_id);
    item.remove();
    box.hidden = box.querySelectorAll(".resume-item").length === 0;
  }));
  return item;
}
