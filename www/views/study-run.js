// Step 4 of a study: run it, or upload responses already collected. A run is the study's cases
// (run_cases(), one JSONL, every case tagged with its method) sent by the page's one run engine
// (run-worker.js, the Run tab's), so it pauses, resumes, survives a reload from IndexedDB and
// never pays for a stored answer twice; its records go back to the study when it finishes.
// Uploads: one file per method, or one record table with a method column.
import { el, busy, download, errorMessage, plural, showIn } from "../dom.js";
import { keysFor, setKey } from "../keys.js";
import { METHODS, describe } from "./study-setup.js";

/** Where the study of a run is kept across a reload, by run id (the study's text, no key). */
const STORE = "evenhand-study-run:";
const ORIGIN = "study";

/**
 * @param {import("../rpc.js").AnalysisCall} call
 * @param {() => Promise<{worker: Worker, runCall: import("../rpc.js").RunCall}>} engineReady
 * @param {{providerTargets: () => any[], params: () => any, reported: () => Promise<void>,
 *   opened: (summary: any) => void, cannotRun: () => string | null}} hooks
 *   `cannotRun()` says why this study cannot be run here (null when it can)
 */
export function createStudyRun(call, engineReady, hooks) {
  const status = el("p", { id: "study-run-status", role: "status" });
  const error = el("div", { class: "alert", role: "alert", id: "study-run-error", hidden: true });
  const runButton = el("button", { type: "button", class: "primary", id: "study-run-start", text: "Run the study" });
  const resumeBox = el("div", { id: "study-resume", hidden: true });

  // The live view: one bar for the whole run, one row per target.
  const bar = el("div", { class: "bar", id: "study-bar", role: "progressbar", "aria-label": "Study run progress",
    "aria-valuemin": 0, "aria-valuemax": 0, "aria-valuenow": 0 }, el("div", { class: "bar-fill" }));
  const counts = el("p", { id: "study-counts", "aria-live": "polite" });
  const perTarget = el("tbody");
  const failures = el("ul", { class: "problems", id: "study-failures" });
  const pause = el("button", { type: "button", id: "study-pause", text: "Pause" });
  const resume = el("button", { type: "button", id: "study-resume-run", text: "Resume" });
  const cancel = el("button", { type: "button", id: "study-cancel", text: "Cancel" });
  const retry = el("button", { type: "button", id: "study-retry", text: "Retry the failed calls" });
  const live = el("div", { id: "study-live", class: "progress-wrap", hidden: true },
    bar, counts,
    el("div", { class: "table-wrap" }, el("table", { id: "study-targets-status" },
      el("caption", { text: "Calls per target" }),
      el("thead", {}, el("tr", {}, ["Target", "Answered", "Failed", "Remaining", "In flight"].map((h) => el("th", { scope: "col", text: h })))),
      perTarget)),
    failures,
    el("div", { class: "buttons" }, pause, resume, cancel, retry));
  const dialog = el("dialog", { id: "study-confirm", "aria-labelledby": "study-confirm-title" },
    el("h3", { id: "study-confirm-title", text: "Start this run?" }),
    el("ul", { id: "study-confirm-reasons" }),
    el("div", { class: "buttons" },
      el("button", { type: "button", class: "primary", id: "study-confirm-yes", text: "Start anyway" }),
      el("button", { type: "button", id: "study-confirm-no", text: "Not now" })));

  // Uploads: per method, or one table with a method column.
  const uploadInputs = METHODS.map((m) => el("input", { type: "file", id: `study-up-${m.id}`, accept: ".csv,.jsonl,.json,.tsv" }));
  const tableInput = el("input", { type: "file", id: "study-up-table", accept: ".csv,.jsonl,.json,.tsv" });
  const uploadResult = el("div", { id: "study-upload-result", "aria-live": "polite" });
  const reportButton = el("button", { type: "button", class: "primary", id: "study-make-report", text: "Make the report" });
  const casesButton = el("button", { type: "button", id: "study-cases-download", text: "Download the cases (JSONL)" });

  const step = el("section", { class: "study-step", "data-step": "run", "aria-labelledby": "study-step4-title" },
    el("h2", { id: "study-step4-title", tabindex: -1, text: "4. Run or upload" }),
    el("div", { class: "split" },
      el("section", { "aria-labelledby": "study-run-title" },
        el("h3", { id: "study-run-title", text: "Run it here" }),
        el("p", { text: "Every method and every model in one run. Answers are kept in this browser as they arrive: "
          + "a reload or a closed tab loses none, and a resumed run sends only the calls not answered yet." }),
        resumeBox, el("div", { class: "buttons" }, runButton), status),
      el("section", { "aria-labelledby": "study-upload-title" },
        el("h3", { id: "study-upload-title", text: "Or upload responses you have" }),
        el("p", { class: "help", text: "Record files (CSV, JSONL or JSON) as the Upload tab reads them: one per method, "
          + "or one table whose method column names each row's method. To collect them elsewhere (a batch job, "
          + "another tool), start from the study's cases: each carries its method and item." }),
        el("div", { class: "buttons" }, casesButton),
        METHODS.map((m, i) => el("div", { class: "row" }, el("label", { for: uploadInputs[i].id, text: `${m.name} records` }), uploadInputs[i])),
        el("div", { class: "row" }, el("label", { for: tableInput.id, text: "One record table with a method column" }), tableInput),
        uploadResult)),
    live,
    error,
    el("div", { class: "buttons" }, el("a", { class: "button", href: "#study/plan", text: "Back" }), reportButton),
    dialog);

  let engine = null;
  let current = null; // the run id this view follows
  let adding = false;

  async function getEngine() {
    if (engine) return engine;
    engine = await engineReady();
    engine.worker.addEventListener("message", ({ data }) => {
      if (data.type === "progress" && data.progress.origin === ORIGIN && data.progress.run_id === current) show(data.progress);
    });
    return engine;
  }

  function show(p) {
    live.hidden = false;
    const settled = p.answered + p.failed;
    bar.setAttribute("aria-valuemax", String(p.total));
    bar.setAttribute("aria-valuenow", String(settled));
    bar.setAttribute("aria-valuetext", `${p.answered} answered, ${p.failed} failed, ${p.remaining} remaining`);
    /** @type {HTMLElement} */ (bar.firstElementChild).style.width = `${p.total ? (100 * settled) / p.total : 0}%`;
    counts.textContent = `${p.state}: ${p.answered} answered, ${p.failed} failed, ${p.remaining} remaining of ${p.total}`
      + (p.in_flight ? ` (${p.in_flight} in flight)` : "") + (p.cost > 0 ? `; cost so far ${p.cost.toFixed(4)} ${p.currency}` : "") + ".";
    Object.assign(counts.dataset, { answered: p.answered, failed: p.failed, total: p.total, state: p.state, runId: p.run_id });
    perTarget.replaceChildren(...p.targets.map((t) => el("tr", {},
      el("th", { scope: "row", text: `${t.target} (${t.provider})` }), el("td", { text: t.answered }),
      el("td", { text: t.failed }), el("td", { text: t.remaining }), el("td", { text: t.in_flight }))));
    failures.replaceChildren(...(p.failures ?? []).slice(0, 10).map((f) =>
      el("li", { text: `${f.case_id} on ${f.target} / ${f.model}, after ${plural(f.attempts, "attempt")}: ${t(p, f)}` })));
    runButton.disabled = p.state === "running" || p.state === "paused";
    pause.disabled = p.state !== "running";
    resume.disabled = p.state !== "paused";
    cancel.disabled = p.state === "finished" || p.state === "cancelled";
    retry.disabled = !p.failed;
    if (p.state === "finished" && !adding && counts.dataset.added !== p.run_id) finish(p.run_id);
  }
  const t = (p, f) => p.targets.find((x) => x.target === f.target)?.advice || f.error;

  /** The run's records go to the study (with its simulated targets), then the report. */
  async function finish(runId) {
    adding = true;
    try {
      const { runCall } = await getEngine();
      const jsonl = await runCall("export", "jsonl");
      const summary = await call("studyAddRecords", `${runId}.jsonl`, new TextEncoder().encode(jsonl), null, "run");
      counts.dataset.added = runId;
      await call("studySimulate"); // the study's simulated models, if any, answer beside the run's
      status.textContent = `The run's ${plural(summary.records, "record")} reached the study.`;
      localStorage.removeItem(STORE + runId);
      await hooks.reported();
    } catch (err) {
      showIn(error, describe(err));
    } finally {
      adding = false;
    }
  }

  async function plan() {
    const { runCall } = await getEngine();
    const targets = hooks.providerTargets();
    const cases = await call("studyRunCases");
    const spec = {
      run_id: `study-${new Date().toISOString().replace(/[-:]/g, "").replace(/\..*/, "")}-${Math.random().toString(36).slice(2, 6)}`,
      method: "study",
      targets,
      samples: 1, // the cases carry their samples
      params: hooks.params(),
      retry: { max_attempts: 5, timeout_s: 60 },
    };
    return runCall("plan", spec, { name: "study-cases.jsonl", bytes: new TextEncoder().encode(cases), as_records: false, origin: ORIGIN });
  }

  async function start(planned) {
    const { runCall } = await getEngine();
    current = planned.spec.run_id;
    localStorage.setItem(STORE + current, JSON.stringify(await call("studyText")));
    await runCall("start", keysFor(planned.spec.targets.map((x) => x.id)));
    live.hidden = false;
  }

  let planned = null;
  runButton.addEventListener("click", () => busy(runButton, async () => {
    showIn(error);
    try {
      const simulated = await call("studySimulate");
      if (!hooks.providerTargets().length) {
        status.textContent = `No provider model in this study: the simulated models answered (${plural(simulated.records, "record")}).`;
        await hooks.reported();
        return;
      }
      planned = await plan();
      if (planned.estimate.confirm.length) {
        dialog.querySelector("ul").replaceChildren(...planned.estimate.confirm.map((r) => el("li", { text: `This run has ${r}.` })));
        /** @type {HTMLDialogElement} */ (dialog).showModal();
      } else {
        await start(planned);
      }
    } catch (err) {
      showIn(error, describe(err));
    }
  }));
  dialog.querySelector("#study-confirm-yes").addEventListener("click", async () => {
    /** @type {HTMLDialogElement} */ (dialog).close();
    try {
      await start(planned);
    } catch (err) {
      showIn(error, describe(err));
    }
  });
  dialog.querySelector("#study-confirm-no").addEventListener("click", () => /** @type {HTMLDialogElement} */ (dialog).close());

  const action = (button, op) => button.addEventListener("click", () => busy(button, async () => {
    try {
      await (await getEngine()).runCall(op);
    } catch (err) {
      showIn(error, errorMessage(err));
    }
  }));
  action(pause, "pause");
  action(resume, "resume");
  action(cancel, "cancel");
  action(retry, "retryFailed");

  async function addFile(input, method) {
    const file = input.files[0];
    if (!file) return;
    showIn(error);
    try {
      const s = await call("studyAddRecords", file.name, new Uint8Array(await file.arrayBuffer()), method);
      const by = Object.entries(s.by_method).map(([m, n]) => `${n} ${m}`).join(", ");
      uploadResult.append(el("p", { role: "status", text: `${file.name}: ${plural(s.records, "record")} (${by}) of ${s.models.join(", ")}.` }),
        s.problems.length ? el("ul", { class: "problems" }, s.problems.map((p) => el("li", { text: describe({ detail: p }) }))) : "");
    } catch (err) {
      showIn(error, describe(err));
    }
  }
  casesButton.addEventListener("click", () => busy(casesButton, async () => {
    showIn(error);
    try {
      download("evenhand-study-cases.jsonl", await call("studyRunCases"), "application/x-ndjson");
    } catch (err) {
      showIn(error, describe(err));
    }
  }));
  METHODS.forEach((m, i) => uploadInputs[i].addEventListener("change", () => addFile(uploadInputs[i], m.id)));
  tableInput.addEventListener("change", () => addFile(tableInput, null));
  reportButton.addEventListener("click", () => busy(reportButton, async () => {
    showIn(error);
    try {
      await call("studySimulate");
      await hooks.reported();
    } catch (err) {
      showIn(error, describe(err));
    }
  }));

  const runNote = el("p", { class: "help", id: "study-run-note", hidden: true });
  runButton.after(runNote);

  /** A study run a reload interrupted: offered with Resume (keys typed again unless remembered). */
  async function offerResume() {
    const why = hooks.cannotRun();
    runButton.disabled = Boolean(why);
    runNote.textContent = why ?? "";
    runNote.hidden = !why;
    const { runCall } = await getEngine();
    const runs = (await runCall("unfinished")).filter((r) => r.origin === ORIGIN && localStorage.getItem(STORE + r.run_id));
    if (!runs.length || current) {
      resumeBox.hidden = true;
      return;
    }
    const r = runs[0];
    runButton.hidden = true; // a second run would pay again for what the stored one has
    const inputs = r.keyed.filter((x) => !keysFor([x])[x]).map((target) => {
      const id = `study-resume-key-${target}`;
      return { target, id, input: el("input", { id, type: "password", autocomplete: "off", spellcheck: "false" }) };
    });
    const go = el("button", { type: "button", class: "primary", id: "study-resume-stored", text: "Resume the study run" });
    resumeBox.replaceChildren(
      el("p", { role: "status", text: `An unfinished study run (${r.run_id}): ${r.answered} of ${r.total} answered`
        + (r.failed ? `, ${r.failed} failed` : "") + "." }),
      ...inputs.map(({ target, id, input }) => el("div", { class: "row" }, el("label", { for: id, text: `API key for ${target}` }), input)),
      go);
    resumeBox.hidden = false;
    go.addEventListener("click", () => busy(go, async () => {
      showIn(error);
      for (const { target, input } of inputs) setKey(target, input.value);
      try {
        hooks.opened(await call("studyOpen", "study.json", JSON.parse(localStorage.getItem(STORE + r.run_id))));
        current = r.run_id;
        await runCall("resumeStored", r.run_id, keysFor(r.targets));
        runButton.hidden = false;
        resumeBox.hidden = true;
        live.hidden = false;
      } catch (err) {
        current = null;
        showIn(error, describe(err));
      }
    }));
  }

  return { step, offerResume, plan };
}
