// The Divergence tab's inputs: probe set, references, the model's data (simulated, or uploaded
// log-probabilities or completions) and the settings. The worker holds one DivergenceSession;
// the results are drawn by divergence-results.js.
import { $, busy, describeProblem, download, el, errorMessage, plural, showIn } from "../dom.js";
import { withGenerator } from "../build-info.js";
import { createDivergenceResults } from "./divergence-results.js";
import { readFile } from "../read-file.js";
import { onDivergenceData } from "../handover.js";

const alert = (...content) => el("div", { class: "alert", role: "alert" }, ...content);
const ok = (text) => el("p", { class: "success", role: "status", text });

function problems(list, limit = 20) {
  const items = list.slice(0, limit).map((p) => el("li", { text: describeProblem(p) }));
  if (list.length > limit) items.push(el("li", { text: `… and ${list.length - limit} more` }));
  return el("ul", { class: "problems" }, items);
}

/** A number from an input within [min, max]; throws a readable message. */
function number(id, name, min, max, whole = false) {
  const text = $(id).value.trim();
  const x = Number(text);
  const valid = text !== "" && Number.isFinite(x) && x >= min && x <= max && (!whole || Number.isSafeInteger(x));
  if (!valid) throw new Error(`${name}: expected ${whole ? "a whole number" : "a number"} from ${min} to ${max}, found "${text}"`);
  return x;
}

/** @param {import("../rpc.js").AnalysisCall} call */
export function createDivergence(call) {
  const results = createDivergenceResults(call);
  let state = null;

  function renderState(s) {
    state = s;
    const p = s.probe_set;
    if (!p) return;
    $("divergence-ref-aspect").replaceChildren(...p.aspects.map((a) => el("option", { value: a.id, text: a.id })));
    const rows = [];
    for (const a of p.aspects) {
      for (const culture of ["local", "western"]) {
        const refs = s.references.filter((r) => r.aspect === a.id && r.culture === culture);
        const note = a.reference_notes[culture] ?? "";
        const what = refs.length
          ? refs.map((r) => `${r.file.split("/").pop()} (${r.rows} rows${r.builtin ? ", shipped" : ", uploaded"})`).join(" + ")
          : `none: ${note || "upload one"}`;
        rows.push(el("tr", { "data-aspect": a.id, "data-culture": culture, class: refs.length ? null : "missing" },
          el("th", { scope: "row", text: a.id }), el("td", { text: `${culture} (${p.cultures[culture]})` }), el("td", { text: what })));
      }
    }
    $("divergence-references").replaceChildren(el("div", { class: "table-wrap" }, el("table", { id: "divergence-ref-table" },
      el("caption", { text: "References in use per aspect and culture" }),
      el("thead", {}, el("tr", {}, ["aspect", "culture", "reference"].map((h) => el("th", { scope: "col", text: h })))),
      el("tbody", {}, rows))));
  }

  function probesLoaded(s) {
    const p = s.probe_set;
    const contexts = p.aspects.map((a) => `${a.id}: ${plural(a.contexts.length, "context")}, ${plural(a.fillers, "filler")}`);
    return [ok(`Probe set ${p.id} (${p.language}, ${p.cultures.local} vs ${p.cultures.western}): ${contexts.join("; ")}.`),
      p.warnings.length ? el("div", { class: "warning" }, el("p", { text: "Worth a look:" }), problems(p.warnings)) : null];
  }

  async function useBuiltin(id) {
    const s = await call("divergenceUseBuiltin", id);
    renderState(s);
    showIn($("divergence-probes-result"), probesLoaded(s));
    showIn($("divergence-data-result"));
    results.clear();
  }

  function dataLoaded(d) {
    const temperature = d.temperatures.length ? `, temperature ${d.temperatures.join(", ")}` : "";
    return [ok(`${d.file}: ${plural(d.rows, d.mode === "scoring" ? "log-probability row" : "completion")} ` +
      `(${d.mode} mode${temperature}) from ${d.models.join(", ")}.`),
      d.calls ? el("p", { text: runCalls(d.calls) }) : null,
      d.problems.length ? alert(el("p", { text: `${plural(d.problems.length, "row")} could not be read:` }), problems(d.problems)) : null];
  }

  // What became of a run's calls: nothing failed or missing is left unsaid.
  function runCalls(c) {
    const parts = [`${plural(c.records, "record")}`, `${c.used} used`, `${c.failed} failed`, `${c.pending} pending`];
    if (c.not_ok) parts.push(`${c.not_ok} refused or filtered`);
    if (c.unreadable) parts.push(`${c.unreadable} without a readable log-probability`);
    if (c.incomplete_contexts) parts.push(`${plural(c.incomplete_contexts, "context")} left out (a filler's score is missing)`);
    return `Run records: ${parts.join(", ")}.`;
  }

  function settings() {
    const method = $("divergence-smoothing").value;
    const value = $("divergence-smoothing-value").value.trim();
    return {
      smoothing: method === "none" ? "none" : `${method}:${value}`,
      unit: $("divergence-unit").value,
      replicates: number("divergence-replicates", "Resamples for the intervals", 0, 100000, true),
      confidence: number("divergence-confidence", "Interval confidence", 0.5, 0.999),
      seed: number("divergence-seed", "Random seed", 0, Number.MAX_SAFE_INTEGER, true),
    };
  }

  async function analyze() {
    const box = $("divergence-settings-error");
    let s;
    try {
      s = settings();
    } catch (err) {
      showIn(box, err.message);
      return;
    }
    await busy($("divergence-analyze"), async () => {
      try {
        const analysis = await call("divergenceAnalyze", s);
        showIn(box);
        await results.render(analysis);
      } catch (err) {
        showIn(box, errorMessage(err));
      }
    });
  }

  // 1. Probe set.
  useBuiltin("pl-western").catch((err) => showIn($("divergence-probes-result"), alert(el("p", { text: errorMessage(err) }))));
  $("divergence-probes-form").addEventListener("submit", (event) => {
    event.preventDefault();
    busy($("divergence-use-builtin"), () => useBuiltin($("divergence-builtin").value).catch((err) =>
      showIn($("divergence-probes-result"), alert(el("p", { text: errorMessage(err) })))));
  });
  $("divergence-probes-file").addEventListener("change", async (event) => {
    const [file] = /** @type {HTMLInputElement} */ (event.target).files;
    /** @type {HTMLInputElement} */ (event.target).value = "";
    if (!file) return;
    try {
      const s = await call("divergenceLoadProbes", file.name, await file.arrayBuffer());
      renderState(s);
      showIn($("divergence-probes-result"), probesLoaded(s));
      showIn($("divergence-data-result"));
      results.clear();
    } catch (err) {
      showIn($("divergence-probes-result"), alert(el("p", { text: `${errorMessage(err)}. The earlier probe set is kept.` })));
    }
  });

  // 2. References.
  $("divergence-ref-file").addEventListener("change", async (event) => {
    const files = [.../** @type {HTMLInputElement} */ (event.target).files];
    /** @type {HTMLInputElement} */ (event.target).value = "";
    const out = [];
    for (const file of files) {
      try {
        const name = $("divergence-ref-name-col").value.trim();
        const weight = $("divergence-ref-weight-col").value.trim();
        // Column names only mean something for a plain table; they make the shape one.
        const columns = name || weight ? { name: name || null, weight: weight || null } : null;
        const shape = columns ? "table" : $("divergence-ref-shape").value;
        const r = await call("divergenceAddReference", $("divergence-ref-culture").value, $("divergence-ref-aspect").value, file.name,
          await file.arrayBuffer(), shape, columns);
        out.push(ok(`${r.file}: ${plural(r.rows, "row")} read as ${r.shape}, the ${r.culture} reference for ${r.aspect}.`));
        if (r.problems.length) out.push(alert(el("p", { text: `${plural(r.problems.length, "row")} were not read:` }), problems(r.problems)));
      } catch (err) {
        out.push(alert(el("p", { text: errorMessage(err) })));
      }
    }
    showIn($("divergence-ref-result"), out);
    renderState(await call("divergenceState"));
    results.clear();
  });
  $("divergence-ref-clear").addEventListener("click", async () => {
    await call("divergenceClearReferences");
    renderState(await call("divergenceState"));
    showIn($("divergence-ref-result"), ok("Using the shipped references again."));
    results.clear();
  });

  // 3. The model's data.
  $("divergence-sim-form").addEventListener("submit", (event) => {
    event.preventDefault();
    let request;
    try {
      const common = {
        jitter: number("divergence-jitter", "Variation between sentences", 0, 10),
        samples: number("divergence-samples", "Completions per sentence", 1, 10000, true),
        unmatched_rate: number("divergence-unmatched-rate", "Share of replies naming no filler", 0, 1),
      };
      const models = [{ name: "A", lean: number("divergence-lean-a", "Lean of model A", 0, 1), ...common }];
      if ($("divergence-lean-b").value.trim() !== "") models.push({ name: "B", lean: number("divergence-lean-b", "Lean of model B", 0, 1), ...common });
      request = { mode: $("divergence-mode").value, models, seed: number("divergence-seed", "Random seed", 0, Number.MAX_SAFE_INTEGER, true) };
    } catch (err) {
      showIn($("divergence-data-result"), alert(el("p", { text: err.message })));
      return;
    }
    busy($("divergence-simulate"), async () => {
      try {
        showIn($("divergence-data-result"), dataLoaded(await call("divergenceSimulate", request)));
        await analyze();
      } catch (err) {
        showIn($("divergence-data-result"), alert(el("p", { text: errorMessage(err) })));
      }
    });
  });
  $("divergence-cases-download").addEventListener("click", async () => {
    // The mode select says "sampling"/"scoring"; the session's cases take "sample"/"score".
    const mode = $("divergence-mode").value === "scoring" ? "score" : "sample";
    try {
      download(`divergence-${mode}-cases.jsonl`, await call("divergenceCasesJsonl", mode), "application/jsonl");
    } catch (err) {
      showIn($("divergence-data-result"), alert(el("p", { text: errorMessage(err) })));
    }
  });
  // A study's records, from its report's link to this tool (handover.js).
  onDivergenceData(async ({ message, loaded }) => {
    showIn($("divergence-data-result"), ok(message), dataLoaded(loaded));
    await analyze();
  });
  for (const [id, op] of /** @type {const} */ ([["divergence-logprobs-file", "divergenceLoadLogprobs"], ["divergence-records-file", "divergenceLoadRecords"]])) {
    $(id).addEventListener("change", async (event) => {
      const [file] = /** @type {HTMLInputElement} */ (event.target).files;
      /** @type {HTMLInputElement} */ (event.target).value = "";
      if (!file) return;
      try {
        showIn($("divergence-data-result"), dataLoaded(await call(op, file.name, await readFile(file, $("divergence-data-result")))));
        await analyze();
      } catch (err) {
        showIn($("divergence-data-result"), alert(el("p", { text: `${errorMessage(err)}. The earlier data is kept.` })));
      }
    });
  }

  // 4. Settings and exports.
  $("divergence-smoothing").addEventListener("change", () => {
    const method = $("divergence-smoothing").value;
    $("divergence-smoothing-value").disabled = method === "none";
    $("divergence-smoothing-value").value = method === "floor" ? "1e-6" : "0.5";
  });
  $("divergence-settings-form").addEventListener("submit", (event) => {
    event.preventDefault();
    analyze();
  });
  const save = async (op, arg, name, type) => {
    try {
      const text = await call(op, arg);
      download(name, type === "application/json" ? withGenerator(text) : text, type);
    } catch (err) {
      showIn($("divergence-error"), errorMessage(err));
    }
  };
  $("divergence-export-json").addEventListener("click", () => save("divergenceExport", "json", `divergence-${state?.probe_set?.id ?? "results"}.json`, "application/json"));
  $("divergence-export-csv").addEventListener("click", () => save("divergenceExport", "csv", `divergence-${state?.probe_set?.id ?? "results"}.csv`, "text/csv"));
  $("divergence-export-data").addEventListener("click", () => save("divergenceDataCsv", undefined, "divergence-model-data.csv", "text/csv"));
}
