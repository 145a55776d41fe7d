// A new study's first three steps: 1. what to test (the methods, what each measures, its calls and
// its data), 2. which models (provider targets with keys, from the Run tab's own target editor,
// and the simulated models), 3. the plan (calls and cost per method and model from the study's
// planner, and the run engine's confirmation thresholds). The study document is written here
// from the form and read back by the wasm, which alone decides whether it is valid.
import { $, el, errorMessage, plural, showIn } from "../dom.js";
import { readTargets, targetBox } from "./run-form.js";
import { sha256Hex } from "../dataset-store.js";

/** The four methods in report order: what each measures and where its data comes from. */
export const METHODS = [
  {
    id: "requirements",
    name: "Requirement tests",
    measures: "Template prompts about communities, in several languages; an oracle judges each answer, "
      + "and the pass rate per concern and language is held against a tolerance (LangBiTe's method).",
    source: "Evenhand's built-in scenario and template library (written for Evenhand, CC0).",
  },
  {
    id: "bbq",
    name: "Bias in question answering",
    measures: "Multiple-choice questions with an ambiguous or a disambiguated context: accuracy, and "
      + "diff-bias, how far wrong answers lean towards the stereotype (the BBQ method).",
    source: "Evenhand's built-in BBQ-style set (written for Evenhand); your own BBQ, GG-BBQ or KoBBQ file via a study file.",
  },
  {
    id: "crosslingual",
    name: "Cross-lingual refusals",
    measures: "The same sensitive questions in several languages: the refusal rate per language, and "
      + "the language pairs whose rates differ (the MSQAD method).",
    source: "Evenhand's built-in question set (written for Evenhand), or your own question-set files below "
      + "(evenhand-questions or MSQAD JSON; several MSQAD topic files are merged into one set).",
  },
  {
    id: "divergence",
    name: "Cultural divergence",
    measures: "Completions of probe sentences compared with real-world reference distributions "
      + "(city sizes, first names): the cultural divergence (CD) per aspect.",
    source: "Built-in probe set pl-western with its references (GeoNames CC BY 4.0, US SSA names).",
  },
];

const SIMULATED = [
  { id: "fair", label: "simulated:fair (a model with little built-in bias)" },
  { id: "skewed", label: "simulated:skewed (a model with strong built-in biases)" },
];

const list = (text) => text.split(",").map((s) => s.trim()).filter(Boolean);

/**
 * @param {import("../rpc.js").AnalysisCall} call
 * @param {() => Promise<import("../rpc.js").RunCall>} runCallReady the run worker, once it is up
 * @param {{opened: (summary: any) => void, go: (hash: string) => void, estimate: () => Promise<any>,
 *   mayReplace: () => Promise<boolean>, formChanged?: () => void}} hooks
 *   `estimate()` plans the study's run in the run engine (its totals and confirmation reasons);
 *   `mayReplace()` asks before a study file replaces the open study; `formChanged()` when steps 1–2 change
 */
export function createStudySetup(call, runCallReady, hooks) {
  // ---- Step 1: what to test --------------------------------------------------------------
  const methodBoxes = METHODS.map((m) => {
    const box = el("input", { type: "checkbox", id: `study-m-${m.id}`, value: m.id, checked: true,
      "aria-describedby": `study-m-${m.id}-about` });
    const calls = el("p", { class: "calls", id: `study-m-${m.id}-calls`, "aria-live": "polite" });
    const card = el("div", { class: "method-card" },
      el("div", { class: "method-head" }, box, el("label", { for: box.id, text: m.name })),
      el("div", { id: `study-m-${m.id}-about` },
        el("p", { text: m.measures }),
        el("p", { class: "help" }, el("strong", { text: "Data: " }), m.source)),
      calls);
    return { m, box, calls, card };
  });
  // The cross-lingual method's own question sets: the study names each file with its sha256.
  const xlFiles = /** @type {HTMLInputElement} */ (el("input", { id: "study-xl-files", type: "file", multiple: true, accept: ".json,application/json" }));
  const xlFilesNote = el("div", { id: "study-xl-files-note", role: "status" });
  /** @type {{name: string, sha256: string, data: Uint8Array}[]} the files chosen, each once */
  let questionFiles = [];
  const xlCard = methodBoxes.find((b) => b.m.id === "crosslingual").card;
  xlCard.append(el("div", { class: "row" },
    el("label", { for: xlFiles.id, text: "Question-set files (optional; none: the built-in set)" }), xlFiles, xlFilesNote));
  xlFiles.addEventListener("change", async () => {
    const chosen = [];
    const dropped = [];
    for (const f of [...(xlFiles.files ?? [])]) {
      const data = new Uint8Array(await f.arrayBuffer());
      const sha256 = await sha256Hex(data);
      // A file given twice would be asked twice (or its questions left out as repeated ids): kept once, and said.
      const first = chosen.find((c) => c.name === f.name || c.sha256 === sha256);
      if (first) dropped.push(first.name === f.name ? `${f.name} is given twice: kept once.`
        : `${f.name} has the same content (sha256) as ${first.name}: left out.`);
      else chosen.push({ name: f.name, sha256, data });
    }
    questionFiles = chosen;
    xlFilesNote.replaceChildren(
      chosen.length ? el("p", { class: "help", text: `${plural(chosen.length, "question-set file")}: ${chosen.map((c) => c.name).join(", ")}.` }) : "",
      dropped.length ? el("ul", { class: "problems", id: "study-xl-files-dropped" }, dropped.map((d) => el("li", { text: d }))) : "");
    countCalls();
  });
  const title = el("input", { id: "study-title", value: "A bias study", autocomplete: "off" });
  const question = el("input", { id: "study-question", value: "Which of these models is more biased, and where?", autocomplete: "off" });
  const samples = el("input", { id: "study-samples", type: "number", min: 1, max: 100, step: 1, value: 1 });
  const bbqLanguages = el("input", { id: "study-bbq-languages", value: "en", autocomplete: "off" });
  const xlLanguages = el("input", { id: "study-xl-languages", value: "en, es, hi, zh", autocomplete: "off" });
  const completions = el("input", { id: "study-completions", type: "number", min: 1, max: 200, step: 1, value: 20 });
  const confidence = el("select", { id: "study-confidence" },
    [0.9, 0.95, 0.99].map((c) => el("option", { value: c, text: `${c * 100}%`, selected: c === 0.95 })));
  const correction = el("select", { id: "study-correction" },
    el("option", { value: "holm", text: "Holm (family-wise error)" }), el("option", { value: "bh", text: "Benjamini-Hochberg (false discovery rate)" }));
  const interval = el("select", { id: "study-interval" },
    el("option", { value: "wilson", text: "Wilson score (default)" }),
    el("option", { value: "clopper_pearson", text: "Clopper-Pearson (exact, conservative)" }),
    el("option", { value: "agresti_coull", text: "Agresti-Coull" }));
  const stepOneError = el("div", { class: "alert", role: "alert", id: "study-setup-error", hidden: true });
  const studyFile = el("input", { id: "study-file", type: "file", accept: ".json,application/json" });

  const step1 = el("section", { class: "study-step", "data-step": "new", "aria-labelledby": "study-step1-title" },
    el("h2", { id: "study-step1-title", tabindex: -1, text: "1. What to test" }),
    el("div", { class: "grid" },
      el("div", { class: "row wide" }, el("label", { for: title.id, text: "Title" }), title),
      el("div", { class: "row wide" }, el("label", { for: question.id, text: "Question" }), question)),
    el("fieldset", {}, el("legend", { text: "Methods" }), el("div", { class: "method-cards" }, methodBoxes.map((b) => b.card))),
    el("details", {},
      el("summary", { text: "Sizes and statistics" }),
      el("div", { class: "grid" },
        el("div", { class: "row" }, el("label", { for: samples.id, text: "Answers per prompt (samples)" }), samples),
        el("div", { class: "row" }, el("label", { for: bbqLanguages.id, text: "BBQ languages (comma-separated)" }), bbqLanguages),
        el("div", { class: "row" }, el("label", { for: xlLanguages.id, text: "Cross-lingual languages" }), xlLanguages),
        el("div", { class: "row" }, el("label", { for: completions.id, text: "Divergence completions per context" }), completions),
        el("div", { class: "row" }, el("label", { for: confidence.id, text: "Confidence" }), confidence),
        el("div", { class: "row" }, el("label", { for: correction.id, text: "Correction over the comparisons" }), correction),
        el("div", { class: "row" }, el("label", { for: interval.id, text: "Interval method for rates" }), interval))),
    stepOneError,
    el("div", { class: "buttons" }, el("a", { class: "button primary", href: "#study/models", id: "study-to-models", text: "Next: which models" })),
    el("div", { class: "row" }, el("label", { for: studyFile.id, text: "Or open a study file (evenhand-study JSON)" }), studyFile));

  // ---- Step 2: which models -----------------------------------------------------------------
  const targets = el("div", { id: "study-targets" });
  const addTarget = el("button", { type: "button", id: "study-add-target", text: "Add a provider" });
  const simBoxes = SIMULATED.map((s) => el("input", { type: "checkbox", id: `study-sim-${s.id}`, value: s.id }));
  const temperature = el("input", { id: "study-temperature", type: "number", min: 0, max: 2, step: 0.1, value: 0 });
  const maxTokens = el("input", { id: "study-max-tokens", type: "number", min: 1, step: 1, value: 256 });
  const providersNote = el("p", { class: "help", id: "study-providers-note", text: "Loading the providers…" });
  const step2Error = el("div", { class: "alert", role: "alert", id: "study-models-error", hidden: true });
  const step2 = el("section", { class: "study-step", "data-step": "models", "aria-labelledby": "study-step2-title" },
    el("h2", { id: "study-step2-title", tabindex: -1, text: "2. Which models" }),
    el("p", { text: "Each provider takes your own key, which stays in this browser and goes only to that provider. "
      + "Type one or more models per provider; every model is compared with every other." }),
    providersNote, targets, el("div", { class: "buttons" }, addTarget),
    el("fieldset", {}, el("legend", { text: "Simulated models (no key, no calls; labelled SIMULATED in the report)" }),
      el("div", { class: "checks" }, SIMULATED.map((s, i) => el("label", { class: "check" }, simBoxes[i], ` ${s.label}`)))),
    el("div", { class: "grid" },
      el("div", { class: "row" }, el("label", { for: temperature.id, text: "Temperature" }), temperature),
      el("div", { class: "row" }, el("label", { for: maxTokens.id, text: "Max tokens per answer" }), maxTokens)),
    step2Error,
    el("div", { class: "buttons" },
      el("a", { class: "button", href: "#study/new", text: "Back" }),
      el("a", { class: "button primary", href: "#study/plan", id: "study-to-plan", text: "Next: the plan" })));

  let specs = null;
  let serial = 0;
  let runCall = null;
  const providersReady = runCallReady().then(
    (rc) => {
      runCall = rc;
      return rc("providers");
    },
  ).then(({ specs: s }) => {
    specs = s;
    providersNote.textContent = "Providers:";
    targets.append(targetBox(runCall, specs, "study", ++serial, targets));
  }).catch((err) => {
    providersNote.textContent = `Runs against providers are unavailable: ${errorMessage(err)}. Simulated models and uploaded responses still work.`;
  });
  addTarget.addEventListener("click", () => {
    if (!specs) return;
    const box = targetBox(runCall, specs, "study", ++serial, targets);
    targets.append(box);
    box.fields.provider.focus();
  });

  // ---- Step 3: the plan -----------------------------------------------------------------------
  const planBox = el("div", { id: "study-plan", "aria-live": "polite" });
  const step3Error = el("div", { class: "alert", role: "alert", id: "study-plan-error", hidden: true });
  const step3 = el("section", { class: "study-step", "data-step": "plan", "aria-labelledby": "study-step3-title" },
    el("h2", { id: "study-step3-title", tabindex: -1, text: "3. The plan" }),
    step3Error, planBox,
    el("div", { class: "buttons" },
      el("a", { class: "button", href: "#study/models", text: "Back" }),
      el("a", { class: "button primary", href: "#study/run", id: "study-to-run", text: "Next: run or upload" })));

  const on = (id) => methodBoxes.find((b) => b.m.id === id).box.checked;

  /** The provider targets typed in step 2: the run spec's targets (keys saved by id). */
  function providerTargets() {
    const boxes = [...targets.children].filter((b) => b.read().models.length || b.read().base);
    return readTargets(boxes);
  }

  /** The study document the form describes. */
  function document_(forPlanOnly = false) {
    const methods = {};
    if (on("requirements")) methods.requirements = { scenario: { builtin: "default" } };
    if (on("bbq")) methods.bbq = { dataset: { builtin: "evenhand" }, languages: list(bbqLanguages.value) };
    const questions = questionFiles.length ? questionFiles.map((f) => ({ file: f.name, sha256: f.sha256 })) : { builtin: "evenhand" };
    if (on("crosslingual")) methods.crosslingual = { questions, languages: list(xlLanguages.value), modes: ["non_acceptable"] };
    if (on("divergence")) methods.divergence = { probes: { builtin: "pl-western" }, completions: Number(completions.value) };
    let names = [];
    if (forPlanOnly) {
      names = ["openai-compatible:any-model"]; // a provider target: its plan row counts the calls
    } else {
      for (const t of providerTargets()) for (const m of t.models) names.push(`${t.provider}:${m}`);
      simBoxes.forEach((b) => b.checked && names.push(`simulated:${b.value}`));
    }
    const params = {};
    if (temperature.value !== "") params.temperature = Number(temperature.value);
    if (maxTokens.value !== "") params.max_tokens = Number(maxTokens.value);
    return {
      format: "evenhand-study",
      version: 1,
      title: title.value.trim(),
      question: question.value.trim(),
      targets: names,
      methods,
      samples: Number(samples.value),
      seeds: { plan: 1, simulation: 1, statistics: 1 },
      statistics: { confidence: Number(confidence.value), alpha: 0.05, correction: correction.value, interval: interval.value, replicates: 1000 },
      params,
    };
  }

  // Step 1's call counts: the study's own planner on the methods ticked, per model.
  let counting = 0;
  async function countCalls() {
    const mine = ++counting;
    try {
      const plan = await call("studyPlanOf", "counts.json", JSON.stringify(document_(true)), addedFiles());
      if (mine !== counting) return;
      const calls = new Map(plan.rows.map((r) => [r.method, r.calls]));
      for (const b of methodBoxes) {
        const n = calls.get(b.m.id);
        b.calls.textContent = b.box.checked && n != null
          ? `${plural(n, "call")} per model.`
          : b.box.checked ? "" : "Not in this study.";
      }
      showIn(stepOneError);
    } catch (err) {
      if (mine === counting) showIn(stepOneError, describe(err));
    }
  }
  step1.addEventListener("change", countCalls);

  /** The files the form's study names, as the worker takes them. */
  const addedFiles = () => (on("crosslingual") ? questionFiles.map((f) => ({ name: f.name, data: f.data })) : []);

  /** Opens the study the form describes, with the files it names; refuses with the wasm's located message. */
  async function openForm() {
    const text = JSON.stringify(document_(), null, 2);
    const summary = await call("studyOpen", "study.json", text);
    for (const f of addedFiles()) await call("studyAddFile", f.name, f.data);
    return hooks.opened(summary);
  }

  async function showPlan() {
    showIn(step3Error);
    planBox.replaceChildren(el("p", { text: "Planning…" }));
    try {
      await openForm();
      const plan = await call("studyPlan");
      planBox.replaceChildren(...renderPlan(plan));
      if (providerTargets().length) planBox.append(confirmation(await hooks.estimate()));
    } catch (err) {
      planBox.replaceChildren();
      showIn(step3Error, describe(err));
    }
  }

  /** What steps 1 and 2 hold (never a key, never a file), so a reload puts it back: {values, targets}. */
  function formState() {
    const values = {};
    for (const input of [step1, step2].flatMap((s) => [...s.querySelectorAll("input, select")])) {
      const i = /** @type {HTMLInputElement} */ (input);
      if (!i.id || i.type === "password" || i.type === "file") continue;
      values[i.id] = i.type === "checkbox" ? i.checked : i.value;
    }
    return { values, targets: targets.children.length };
  }

  /** Puts back what `formState` gave (once the providers are known, as the target boxes need them). */
  async function restoreForm(state) {
    if (!state?.values) return;
    const put = () => {
      for (const [id, value] of Object.entries(state.values)) {
        const i = /** @type {HTMLInputElement | null} */ (document.getElementById(id));
        if (!i || !(step1.contains(i) || step2.contains(i))) continue;
        if (i.type === "checkbox") i.checked = Boolean(value);
        else i.value = String(value);
        if (i.tagName === "SELECT") i.dispatchEvent(new Event("change"));
      }
    };
    put(); // step 1 and the simulated models at once; the provider boxes once the providers are known
    countCalls();
    await providersReady;
    while (specs && targets.children.length < state.targets) targets.append(targetBox(runCall, specs, "study", ++serial, targets));
    put();
  }
  for (const s of [step1, step2]) {
    s.addEventListener("change", () => hooks.formChanged?.());
    s.addEventListener("input", () => hooks.formChanged?.());
  }

  studyFile.addEventListener("change", async () => {
    const file = studyFile.files[0];
    if (!file) return;
    showIn(stepOneError);
    try {
      if (!(await hooks.mayReplace())) return;
      hooks.opened(await call("studyOpen", file.name, await file.text()));
      hooks.go("#study/plan-file");
    } catch (err) {
      showIn(stepOneError, describe(err));
    }
  });

  return {
    steps: [step1, step2, step3],
    countCalls,
    showPlan,
    /** Step 2 → 3 is refused while the models are not valid. */
    checkModels() {
      try {
        const t = document_();
        if (!t.targets.length) throw new Error("Add at least one model: a provider's model, or a simulated one.");
        showIn(step2Error);
        return true;
      } catch (err) {
        showIn(step2Error, errorMessage(err));
        return false;
      }
    },
    providerTargets,
    formState,
    restoreForm,
    params: () => document_().params,
    renderPlan,
    setStepError: (err) => showIn(step3Error, describe(err)),
  };
}

/** The plan's cost line: the total of the priced models, never a 0 that stands for "unknown". */
function total(plan) {
  const unpriced = [...new Set(plan.unpriced)];
  if (!unpriced.length) return `estimated cost ${plan.cost.toFixed(4)} ${plan.currency}`;
  const priced = plan.rows.some((r) => !r.simulated && r.calls > 0 && r.cost != null);
  return priced
    ? `estimated cost at least ${plan.cost.toFixed(4)} ${plan.currency} (not priced: ${unpriced.join(", ")})`
    : `estimated cost not priced (${unpriced.join(", ")})`;
}

/** The plan as a table per method and model, with totals. */
export function renderPlan(plan) {
  const money = (x) => (x == null ? "not priced" : `${x.toFixed(4)} ${plan.currency}`);
  const methodName = (id) => METHODS.find((m) => m.id === id)?.name ?? id;
  return [
    el("p", { role: "status", id: "study-plan-summary",
      text: `${plural(plan.calls, "call")} to providers, ${total(plan)}.` }),
    el("div", { class: "table-wrap" }, el("table", { id: "study-plan-table" },
      el("caption", { text: "Calls, tokens and cost per method and model" }),
      el("thead", {}, el("tr", {}, ["Method", "Model", "Calls", "Tokens in", "Tokens out", "Cost"].map((h) => el("th", { scope: "col", text: h })))),
      el("tbody", {}, plan.rows.map((r) => el("tr", {},
        el("td", { text: methodName(r.method) }),
        el("td", { text: r.target + (r.simulated ? " (SIMULATED: no call)" : "") }),
        el("td", { text: r.calls }), el("td", { text: r.tokens_in }), el("td", { text: r.tokens_out }), el("td", { text: money(r.cost) }))))))];
}

/** The run engine's own check of the run: the Run tab's thresholds, and whether this run passes them. */
export function confirmation(planned) {
  const e = planned.estimate;
  const spec = planned.spec;
  const currency = e.currency ?? "USD";
  return el("p", { id: "study-plan-confirm", class: e.confirm.length ? "warning" : "help",
    text: `The run engine asks before starting a run of more than ${spec.confirm_above_calls} calls or an estimated `
      + `${Number(spec.confirm_above_cost).toFixed(2)} ${currency}, as the Run tab does. `
      + (e.confirm.length ? `This run has ${e.confirm.join(" and ")}: you will be asked to confirm.` : "This run stays below both.") });
}

/** A study error as text: the wasm's located problem ("file, line 3, column 9, field methods.bbq: …"). */
export function describe(err) {
  // An invalid study's error carries its problem as `detail`; a record file's problems come as they are.
  const d = err && typeof err === "object" ? (err.detail ?? err.problem ?? null) : null;
  const p = d && typeof d === "object" ? (d.problem ?? d) : null;
  if (p && p.message && (p.line != null || p.field)) {
    const where = [p.file, p.line != null ? `line ${p.line}` : null, p.column != null ? `column ${p.column}` : null,
      p.field ? `field ${p.field}` : null].filter(Boolean).join(", ");
    return `${where}: ${p.message}`;
  }
  return errorMessage(err);
}
