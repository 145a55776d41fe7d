// The Benchmarks tab: bias-QA data (the built-in set or BBQ / GG-BBQ / KoBBQ files), a model's
// answers (predictions files or the simulated model), then the results and the answers table.
// The worker holds one BbqSession for all of it, apart from the record Workspace.
import { $, busy, describeProblem, el, errorMessage, plural, showIn } from "../dom.js";
import { createBbqDashboard } from "./bbq-dashboard.js";
import { createBbqExamples } from "./bbq-examples.js";
import { readFile } from "../read-file.js";
import { onBbqData } from "../handover.js";

const KEPT_DATA = "Your earlier data is kept.";
const KEPT_PREDICTIONS = "The earlier predictions are kept.";
// The built-in set is generated from this seed; one fixed set keeps results comparable.
const BUILTIN_SEED = 1;
// The simulated model as the brief's demo describes it: only the choice-bias, accuracy and
// refusal rates matter for multiple-choice questions.
const SIMULATED_NAME = "bbq-demo";
const SIMULATED_REFUSAL = 0.02;
// Questions per call to the worker when the simulated model answers: about 0.2 s each.
const SIMULATE_PART = 5000;

/** A list of problems, cut short: a wrong file can have thousands. */
function problems(list, limit = 50) {
  const items = list.slice(0, limit).map((p) => el("li", { text: describeProblem(p) }));
  if (list.length > limit) items.push(el("li", { text: `… and ${list.length - limit} more` }));
  return el("ul", { class: "problems" }, items);
}

/** The structured detail inside a worker error: {kind: "no_examples" | "no_predictions" | ..., detail}. */
const detailOf = (err) => (err && err.detail && typeof err.detail === "object" ? err.detail : {});

const alert = (...content) => el("div", { class: "alert", role: "alert" }, ...content);

function dataLoaded(s) {
  return [
    el("p", { class: "success", text: `${s.file}: ${plural(s.examples, "example")} loaded, ` +
      `${s.unresolved} with an unresolved biased answer. ${plural(s.total_examples, "example")} in all.` }),
    s.problems.length
      ? alert(el("p", { text: `${plural(s.problems.length, "problem")} in ${s.file}; those rows were not loaded:` }), problems(s.problems))
      : null,
  ];
}

function dataFailed(file, err) {
  const d = detailOf(err);
  if (d.kind === "no_examples") {
    return alert(el("p", { text: `No example of ${file} could be read. ${KEPT_DATA}` }), problems(d.detail.problems));
  }
  return alert(el("p", { text: errorMessage(err) }), el("p", { text: KEPT_DATA }));
}

function predictionsLoaded(s) {
  return [
    el("p", { class: "success", text: `${s.file}: ${plural(s.predictions, "prediction")} matched.` }),
    s.unmatched.length
      ? el("div", { class: "warning" },
        el("p", { text: `${plural(s.unmatched.length, "prediction")} in ${s.file} named no loaded example:` }), problems(s.unmatched))
      : null,
    s.problems.length
      ? alert(el("p", { text: `${plural(s.problems.length, "row")} of ${s.file} could not be read:` }), problems(s.problems))
      : null,
  ];
}

function predictionsFailed(file, err) {
  const d = detailOf(err);
  if (d.kind === "no_predictions") {
    const { unmatched, problems: bad } = d.detail;
    return alert(
      el("p", { text: `No prediction in ${file} matches a loaded example. ${KEPT_PREDICTIONS}` }),
      unmatched.length ? [el("p", { text: "Ids that match no example:" }), problems(unmatched)] : null,
      bad.length ? [el("p", { text: "Rows that could not be read:" }), problems(bad)] : null);
  }
  return alert(el("p", { text: `${file}: ${errorMessage(err)}.` }));
}

/** Fills the prompt-variant select: one group per language, after "first of each language". */
function fillVariants(variants) {
  const byLanguage = new Map();
  for (const v of variants) {
    if (!byLanguage.has(v.language)) byLanguage.set(v.language, []);
    byLanguage.get(v.language).push(v);
  }
  const select = $("bbq-variant");
  select.replaceChildren(
    el("option", { value: "", text: "first of each example's language" }),
    ...[...byLanguage].map(([language, list]) => el("optgroup", { label: language },
      list.map((v) => el("option", { value: v.id, text: v.description ? `${v.id}: ${v.description}` : v.id })))));
}

/** A whole number, or a rate from 0 to 1, read from an input; throws a readable message. */
function rate(id, name) {
  const text = $(id).value.trim();
  const x = Number(text);
  if (text === "" || !(x >= 0 && x <= 1)) throw new Error(`${name}: expected a number from 0 to 1, found "${text}"`);
  return x;
}

function wholeNumber(id, name) {
  const text = $(id).value.trim();
  if (!/^\d+$/.test(text) || !Number.isSafeInteger(Number(text))) throw new Error(`${name}: expected a whole number, found "${text}"`);
  return Number(text);
}

/** @param {import("../rpc.js").AnalysisCall} call */
export function createBenchmarks(call) {
  const examples = createBbqExamples(call);
  const dashboard = createBbqDashboard(call, refresh);

  // Never throws: it runs at the end of event handlers, where a rejection would go unseen.
  async function refresh() {
    const box = $("bbq-dashboard");
    box.setAttribute("aria-busy", "true");
    try {
      if (await dashboard.render(await call("bbqView"))) await examples.reset();
      showIn($("bbq-view-error"));
    } catch (err) {
      showIn($("bbq-view-error"), `The results could not be computed: ${errorMessage(err)}`);
    } finally {
      box.removeAttribute("aria-busy");
    }
  }

  call("bbqVariants").then(fillVariants, (err) =>
    showIn($("bbq-sim-result"), alert(el("p", { text: `The prompt variants could not be read: ${errorMessage(err)}` }))));

  // Data opened elsewhere (the Datasets view) or answers from a provider run (the Run tab).
  onBbqData(async ({ message, simulate, answers }) => {
    if (!answers) {
      showIn($("bbq-pred-result"));
      showIn($("bbq-sim-result"));
      showIn($("bbq-data-result"), el("p", { class: "success", role: "status", text: message }));
    } else {
      showIn($("bbq-pred-result"), el("p", { class: "success", role: "status", text: message }));
    }
    if (simulate) $("bbq-sim-form").requestSubmit();
    else await refresh();
  });

  // Data.
  $("bbq-builtin-form").addEventListener("submit", (event) => {
    event.preventDefault();
    const box = $("bbq-data-result");
    const languages = [...$("bbq-languages").querySelectorAll("input:checked")].map((b) => b.value);
    if (languages.length === 0) {
      showIn(box, alert(el("p", { text: "Choose at least one language of the built-in set." })));
      return;
    }
    busy($("bbq-builtin"), async () => {
      try {
        const s = await call("bbqUseBuiltin", BUILTIN_SEED, languages);
        // The built-in set replaces the data and drops every answer given so far.
        showIn($("bbq-pred-result"));
        showIn($("bbq-sim-result"));
        showIn(box, el("p", { class: "success", text: `Using the built-in set in ${languages.join(", ")}: ` +
          `${plural(s.examples, "example")}, ${s.unresolved} with an unresolved biased answer.` }));
        await refresh();
      } catch (err) {
        showIn(box, alert(el("p", { text: errorMessage(err) }), el("p", { text: KEPT_DATA })));
      }
    });
  });

  $("bbq-data-file").addEventListener("change", async (event) => {
    const files = [.../** @type {HTMLInputElement} */ (event.target).files];
    /** @type {HTMLInputElement} */ (event.target).value = ""; // choosing the same file again must load it again
    if (files.length === 0) return;
    const box = $("bbq-data-result");
    showIn(box, el("p", { role: "status", text: `Reading ${files.map((f) => f.name).join(", ")}…` }));
    const results = [];
    for (const file of files) {
      try {
        results.push(dataLoaded(await call("bbqAddData", file.name, await readFile(file, box))));
      } catch (err) {
        results.push(dataFailed(file.name, err));
      }
    }
    showIn(box, results.map((r) => el("div", { class: "file-result" }, r)));
    await refresh();
  });

  $("bbq-clear").addEventListener("click", async () => {
    try {
      await call("bbqClear");
    } catch (err) {
      showIn($("bbq-data-result"), alert(el("p", { text: errorMessage(err) })));
      return;
    }
    showIn($("bbq-pred-result"));
    showIn($("bbq-sim-result"));
    showIn($("bbq-data-result"), el("p", { role: "status", text: "Cleared: no benchmark data or answers are loaded." }));
    await refresh();
  });

  // Predictions.
  $("bbq-pred-file").addEventListener("change", async (event) => {
    const files = [.../** @type {HTMLInputElement} */ (event.target).files];
    /** @type {HTMLInputElement} */ (event.target).value = "";
    if (files.length === 0) return;
    const format = $("bbq-pred-format").value;
    const box = $("bbq-pred-result");
    showIn(box, el("p", { role: "status", text: `Reading ${files.map((f) => f.name).join(", ")}…` }));
    const results = [];
    for (const file of files) {
      try {
        results.push(predictionsLoaded(await call("bbqAddPredictions", file.name, await readFile(file, box), format)));
      } catch (err) {
        results.push(predictionsFailed(file.name, err));
      }
    }
    showIn(box, results.map((r) => el("div", { class: "file-result" }, r)));
    await refresh();
  });

  $("bbq-sim-form").addEventListener("submit", (event) => {
    event.preventDefault();
    const box = $("bbq-sim-result");
    let request;
    try {
      request = {
        behaviour: {
          name: SIMULATED_NAME,
          choice_bias: { default: rate("bbq-choice-bias", "Choice bias") },
          accuracy: rate("bbq-accuracy", "Accuracy"),
          refusal: { default: SIMULATED_REFUSAL },
        },
        seed: wholeNumber("bbq-sim-seed", "Simulation seed"),
        variant: $("bbq-variant").value || null,
      };
    } catch (err) {
      showIn(box, alert(el("p", { text: err.message })));
      return;
    }
    busy($("bbq-simulate"), async () => {
      showIn(box, el("p", { role: "status", text: "Asking the simulated model…" }));
      const bar = $("bbq-sim-progress");
      try {
        // In parts, so a large benchmark (the full BBQ is 58,492 questions) shows its progress.
        let count = 0;
        let from = 0;
        let total = 1;
        bar.hidden = false;
        bar.value = 0;
        do {
          const part = await call("bbqSimulatePart", request, from, from + SIMULATE_PART);
          count += part.answered;
          from = part.to;
          total = part.examples;
          bar.value = from / total;
        } while (from < total);
        showIn(box, el("p", { class: "success", role: "status",
          text: `The simulated model (sim:${SIMULATED_NAME}) answered ${plural(count, "question")}.` }));
        await refresh();
      } catch (err) {
        showIn(box, alert(el("p", { text: errorMessage(err) })));
      } finally {
        bar.hidden = true;
      }
    });
  });
}
