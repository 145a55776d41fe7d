// Step 4 of a study: run it, or upload responses already collected. A run is the study's cases
// (run_cases(), one JSONL, every case tagged with its method) sent by the page's one run engine
// (run-worker.js, the Run tab's), so it pauses, resumes, survives a reload from IndexedDB and
// never pays for a stored answer twice; its records go back to the study when it finishes.
// Uploads: one file per method, or one record table with a method column.
import { el, busy, download, errorMessage, plural, showIn } from "../dom.js";
import { keysFor, setKey } from "../keys.js";
import { METHODS, describe } from "./study-setup.js";
import { mappingForm } from "./mapping-form.js";

/** What each method's slot reads besides Evenhand's record table (CSV, JSONL or JSON; a table
 *  with other column names is mapped, as on the Upload tab): what that method's own tool reads. */
const COLUMNS = "Expected columns: those of the study's cases (download them above), with model and response; "
  + "a table with other column names is mapped here, as on the Upload tab.";
const READS = {
  requirements: COLUMNS,
  bbq: `${COLUMNS} Or BBQ's released predictions (one <model>_pred_<format> answer column per model), as the Benchmarks tool reads them.`,
  crosslingual: `${COLUMNS} Or an MSQAD topic file (a question set, as the Cross-lingual tool reads it): its reference responses.`,
  divergence: COLUMNS,
};

/** Where the study of a run is kept across a reload, by run id: {sha256, title, text} (no key).
 *  The sha256 is the study's identity: a run is offered to its own study only. */
const STORE = "evenhand-study-run:";
const ORIGIN = "study";

/** The study a stored run belongs to; an entry of an older page held the study's text alone. */
function storedStudy(runId) {
  const raw = localStorage.getItem(STORE + runId);
  if (raw == null) return null;
  try {
    const v = JSON.parse(raw);
    if (typeof v === "string") return { sha256: null, title: JSON.parse(v)?.title ?? "", text: v };
    return v?.text ? v : null;
  } catch {
    return null;
  }
}

/** "1 min 5 s", "12 s": a duration a person reads. */
function duration(s) {
  if (!(s >= 0) || !Number.isFinite(s)) return "";
  const t = Math.round(s);
  if (t < 60) return `${t} s`;
  if (t < 3600) return `${Math.floor(t / 60)} min ${t % 60} s`;
  return `${Math.floor(t / 3600)} h ${Math.floor((t % 3600) / 60)} min`;
}

/**
 * @param {import("../rpc.js").AnalysisCall} call
 * @param {() => Promise<{worker: Worker, runCall: import("../rpc.js").RunCall}>} engineReady
 * @param {{providerTargets: () => any[], params: () => Promise<any>, reported: () => Promise<void>,
 *   opened: (summary: any) => any, fileProviders: () => string[], study: () => any,
 *   mayReplace: (what: string) => Promise<boolean>, go: (hash: string) => void,
 *   recordsChanged?: () => Promise<void>}} hooks
 *   `fileProviders()` the provider targets of a study opened from a file (their base URLs and
 *   keys are asked for here); `study()` the open
 *   study's summary ({sha256, title, ...}); `mayReplace(what)` asks before the open study is replaced
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
    el("p", { id: "study-confirm-resumed", hidden: true }),
    el("ul", { id: "study-confirm-reasons" }),
    el("div", { class: "buttons" },
      el("button", { type: "button", class: "primary", id: "study-confirm-yes", text: "Start anyway" }),
      el("button", { type: "button", id: "study-confirm-no", text: "Not now" })));

  // Uploads: per method, or one table with a method column.
  // Several files per slot (MSQAD, for one, has a file per topic).
  const uploadInputs = METHODS.map((m) => el("input", { type: "file", id: `study-up-${m.id}`, accept: ".csv,.jsonl,.json,.tsv", multiple: true }));
  const tableInput = el("input", { type: "file", id: "study-up-table", accept: ".csv,.jsonl,.json,.tsv" });
  // Each slot keeps its own error until a file in that slot is taken: another slot's success
  // does not hide it.
  const slotError = (input) => el("div", { class: "alert", role: "alert", id: `${input.id}-error`, hidden: true });
  const uploadErrors = uploadInputs.map(slotError);
  const tableError = slotError(tableInput);
  // A slot's mapping step (a table whose columns are not recognised), shown under its error.
  const mapBox = (input) => el("div", { id: `${input.id}-mapping` });
  const uploadMaps = uploadInputs.map(mapBox);
  const tableMap = mapBox(tableInput);
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
        METHODS.map((m, i) => el("div", { class: "row" }, el("label", { for: uploadInputs[i].id, text: `${m.name} records` }),
          uploadInputs[i], el("p", { class: "help", id: `${uploadInputs[i].id}-reads`, text: READS[m.id] }), uploadErrors[i], uploadMaps[i])),
        el("div", { class: "row" }, el("label", { for: tableInput.id, text: "One record table with a method column" }), tableInput, tableError, tableMap),
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
    const eta = p.state === "running" && p.eta_s != null && p.remaining > 0 ? duration(p.eta_s) : "";
    counts.textContent = `${p.state}: ${p.answered} answered, ${p.failed} failed, ${p.remaining} remaining of ${p.total}`
      + (p.in_flight ? ` (${p.in_flight} in flight)` : "") + (p.cost > 0 ? `; cost so far ${p.cost.toFixed(4)} ${p.currency}` : "") + "."
      + (eta ? ` About ${eta} left at ${p.per_second.toFixed(1)} calls/s.` : "")
      + (p.state === "cancelled" ? " Cancelled: the answers so far are kept; “Run the study” sends only the calls not answered yet." : "");
    counts.dataset.eta = eta;
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
      await hooks.recordsChanged?.();
      status.textContent = `The run's ${plural(summary.records, "record")} reached the study.`;
      localStorage.removeItem(STORE + runId);
      await hooks.reported();
    } catch (err) {
      showIn(error, describe(err));
    } finally {
      adding = false;
    }
  }

  /** The stored study runs not finished, split by whether they belong to the open study. */
  async function storedRuns() {
    const { runCall } = await getEngine();
    const sha = hooks.study()?.sha256 ?? null;
    const runs = (await runCall("unfinished")).filter((r) => r.origin === ORIGIN)
      .map((r) => ({ ...r, study: storedStudy(r.run_id) })).filter((r) => r.study);
    return { mine: runs.filter((r) => sha && r.study.sha256 === sha), others: runs.filter((r) => !sha || r.study.sha256 !== sha) };
  }

  /** Plans this study's run; `continues` (a stored run of this study) is resumed, not paid again. */
  async function plan(continues = null) {
    const { runCall } = await getEngine();
    const targets = hooks.providerTargets();
    const cases = await call("studyRunCases");
    const spec = {
      run_id: `study-${new Date().toISOString().replace(/[-:]/g, "").replace(/\..*/, "")}-${Math.random().toString(36).slice(2, 6)}`,
      method: "study",
      targets,
      samples: 1, // the cases carry their samples
      params: await hooks.params(),
      retry: { max_attempts: 5, timeout_s: 60 },
    };
    return runCall("plan", spec, { name: "study-cases.jsonl", bytes: new TextEncoder().encode(cases), as_records: false, origin: ORIGIN },
      continues);
  }

  async function start(planned) {
    const { runCall } = await getEngine();
    current = planned.spec.run_id;
    const study = hooks.study();
    localStorage.setItem(STORE + current, JSON.stringify({ sha256: study?.sha256 ?? null, title: study?.title ?? "", text: await call("studyText") }));
    await runCall("start", keysFor(planned.spec.targets.map((x) => x.id)));
    resumeBox.hidden = true;
    inView();
  }

  /** The live view shown, its Pause and Cancel in sight. */
  function inView() {
    live.hidden = false;
    pause.scrollIntoView({ block: "center" });
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
      // A run of this study that was cancelled or interrupted is resumed: its answers are kept.
      const earlier = (await storedRuns()).mine[0] ?? null;
      planned = await plan(earlier?.run_id ?? null);
      const resumed = planned.resumed;
      const note = /** @type {HTMLElement} */ (dialog.querySelector("#study-confirm-resumed"));
      note.hidden = !resumed;
      if (resumed) {
        dialog.querySelector("h3").textContent = "Resume this study's run?";
        note.textContent = `${plural(resumed.remaining, "call")} of ${resumed.total} remain: the ${resumed.answered} answered `
          + `in the earlier run (${planned.spec.run_id}) are kept and not sent again`
          + (resumed.failed ? `; ${resumed.failed} failed stay failed until you retry them` : "")
          + (resumed.stale.records ? `; ${resumed.stale.records} stored for another request are sent again` : "") + ".";
        dialog.querySelector("ul").replaceChildren();
        dialog.querySelector("#study-confirm-yes").textContent = "Resume";
        /** @type {HTMLDialogElement} */ (dialog).showModal();
      } else if (planned.estimate.confirm.length) {
        dialog.querySelector("h3").textContent = "Start this run?";
        dialog.querySelector("#study-confirm-yes").textContent = "Start anyway";
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

  /** The record fields the mapping step offers (the worker's `info`), fetched once. */
  let fields = null;
  /** A slot's file: added as it is, or, when its columns are not recognised, through the Upload
   *  tab's mapping step shown at the slot (its error stays there until the file is in). */
  /** What a slot added: its records per method and model, and what was left out. */
  async function added(name, s) {
    await hooks.recordsChanged?.(); // kept with the study before it is said to be in (a reload keeps it)
    const by = Object.entries(s.by_method).map(([m, n]) => `${n} ${m}`).join(", ");
    uploadResult.append(el("p", { role: "status", text: `${name}: ${plural(s.records, "record")} (${by}) of ${s.models.join(", ")}.` }),
      s.problems.length ? el("ul", { class: "problems" }, s.problems.map((p) => el("li", { text: describe({ detail: p }) }))) : "");
  }

  /** Several files in one slot: question sets (MSQAD's one file per topic) in the cross-lingual
   *  slot are merged as the Cross-lingual tool merges them; other files go one by one. */
  async function addFiles(input, method, slot, mapBox) {
    const files = [...(input.files ?? [])];
    if (files.length < 2) return addFile(input, method, slot, mapBox);
    try {
      const datas = await Promise.all(files.map(async (f) => new Uint8Array(await f.arrayBuffer())));
      const merged = method === "bbq" ? null : await call("studyAddQuestionSets", files.map((f) => f.name), datas);
      if (merged) {
        await added(merged.file, merged);
        showIn(slot);
        return mapBox.replaceChildren();
      }
      const problems = [];
      for (const [i, f] of files.entries()) {
        try {
          await added(f.name, await call("studyAddRecords", f.name, datas[i], method));
        } catch (err) {
          problems.push(`${f.name}: ${describe(err)}`);
        }
      }
      showIn(slot, problems.length ? el("ul", {}, problems.map((p) => el("li", { text: p }))) : null);
      mapBox.replaceChildren();
    } catch (err) {
      showIn(slot, describe(err));
    }
  }

  async function addFile(input, method, slot, mapBox, map = null) {
    const file = input.files[0];
    if (!file) return;
    try {
      const data = new Uint8Array(await file.arrayBuffer());
      const s = map ? await call("studyAddRecordsMapped", file.name, data, method, map)
        : await call("studyAddRecords", file.name, data, method);
      await added(file.name, s);
      showIn(slot);
      mapBox.replaceChildren();
    } catch (err) {
      const text = describe(err);
      showIn(slot, text.startsWith(`${file.name}:`) ? text : `${file.name}: ${text}`);
      const request = err?.detail?.kind === "needs_mapping" ? err.detail.request : null;
      if (!request) return mapBox.replaceChildren();
      fields ??= (await call("info")).fields;
      mapBox.replaceChildren(mappingForm({ file: file.name, request, fields, prefix: `${input.id}-map`,
        note: map ? "A required field is still unmapped." : null,
        onSubmit: (chosen) => addFile(input, method, slot, mapBox, chosen) }));
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
  METHODS.forEach((m, i) => uploadInputs[i].addEventListener("change", () => addFiles(uploadInputs[i], m.id, uploadErrors[i], uploadMaps[i])));
  tableInput.addEventListener("change", () => addFiles(tableInput, null, tableError, tableMap));
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
  // A study file names its provider targets but cannot carry their addresses or keys: asked here.
  const fileBox = el("div", { id: "study-file-targets", hidden: true });
  runButton.after(runNote);
  runNote.after(fileBox);
  /** @type {{provider: string, models: string[], base: HTMLInputElement, key: HTMLInputElement}[]} */
  let fileRows = [];

  async function showFileTargets() {
    const names = hooks.fileProviders();
    runNote.textContent = names.length
      ? "This study came from a file: give its providers' base URLs and keys below to run it here. "
        + "Upload their responses instead if you have them."
      : "";
    runNote.hidden = !names.length;
    if (!names.length) {
      fileBox.hidden = true;
      fileRows = [];
      return;
    }
    /** @type {{targets: {provider: string, models: string[]}[]}} */
    const skeleton = await call("studyRunSpec");
    const same = fileRows.length === skeleton.targets.length
      && fileRows.every((r, i) => r.provider === skeleton.targets[i].provider && r.models.join() === skeleton.targets[i].models.join());
    if (same) return;
    fileRows = skeleton.targets.map((t) => ({
      provider: t.provider, models: t.models,
      base: /** @type {HTMLInputElement} */ (el("input", { id: `study-file-${t.provider}-base`, type: "url", autocomplete: "off", spellcheck: "false" })),
      key: /** @type {HTMLInputElement} */ (el("input", { id: `study-file-${t.provider}-key`, type: "password", autocomplete: "off", spellcheck: "false" })),
    }));
    fileBox.replaceChildren(...fileRows.map((r) => el("fieldset", { class: "target" },
      el("legend", { text: `${r.provider}: ${r.models.join(", ")}` }),
      el("div", { class: "row" }, el("label", { for: r.base.id, text: `Base URL for ${r.provider} (empty: the provider's own)` }), r.base),
      el("div", { class: "row" }, el("label", { for: r.key.id, text: `API key for ${r.provider}` }), r.key))));
    fileBox.hidden = false;
  }

  /** The run spec's targets of a study file, from what was typed above (keys go to keys.js only). */
  function fileTargets() {
    return fileRows.map((r) => {
      if (r.key.value.trim()) setKey(r.provider, r.key.value);
      const t = { id: r.provider, provider: r.provider, models: r.models, concurrency: 4 };
      if (r.base.value.trim()) t.base_url = r.base.value.trim();
      return t;
    });
  }

  /** A study run a reload interrupted: offered with Resume (keys typed again unless remembered).
   *  A run of another study is offered only to open that study, and only after asking. */
  async function offerResume() {
    await showFileTargets();
    const { runCall } = await getEngine();
    // The run this view followed belongs to another study than the open one: not shown here.
    if (current && (storedStudy(current)?.sha256 ?? null) !== (hooks.study()?.sha256 ?? null)) {
      current = null;
      live.hidden = true;
      runButton.disabled = false;
      status.textContent = "";
    }
    const { mine, others } = await storedRuns();
    if (current || (!mine.length && !others.length)) {
      resumeBox.hidden = true;
      runButton.hidden = false;
      return;
    }
    const r = mine[0] ?? others[0];
    const own = Boolean(mine.length);
    if (own) runButton.hidden = true; // the stored run is this study's: resume it rather than start over
    const inputs = r.keyed.filter((x) => !keysFor([x])[x]).map((target) => {
      const id = `study-resume-key-${target}`;
      return { target, id, input: el("input", { id, type: "password", autocomplete: "off", spellcheck: "false" }) };
    });
    const button = el("button", { type: "button", class: own ? "primary" : "", id: "study-resume-stored",
      text: own ? "Resume the study run" : "Open that study and resume its run" });
    const counted = `${r.answered} of ${r.total} answered` + (r.failed ? `, ${r.failed} failed` : "");
    resumeBox.replaceChildren(
      el("p", { role: "status", id: "study-resume-text", text: own
        ? `An unfinished run of this study (${r.run_id}): ${counted}; ${plural(r.total - r.answered - r.failed, "call")} remain.`
        : `An unfinished run of another study, “${r.study.title || "untitled"}” (${r.run_id}): ${counted}. `
          + "It is not this study's: resuming it opens its own study." }),
      ...inputs.map(({ target, id, input }) => el("div", { class: "row" }, el("label", { for: id, text: `API key for ${target}` }), input)),
      button);
    resumeBox.hidden = false;
    button.addEventListener("click", () => busy(button, async () => {
      showIn(error);
      try {
        if (!own) {
          if (!(await hooks.mayReplace(`the study “${r.study.title || "untitled"}” of that run`))) return;
          hooks.opened({ ...(await call("studyOpen", "study.json", r.study.text)), from_form: false });
        }
        for (const { target, input } of inputs) setKey(target, input.value);
        current = r.run_id;
        await runCall("resumeStored", r.run_id, keysFor(r.targets));
        runButton.hidden = false;
        resumeBox.hidden = true;
        inView();
      } catch (err) {
        current = null;
        showIn(error, describe(err));
      }
    }));
  }

  return { step, offerResume, plan, fileTargets };
}
