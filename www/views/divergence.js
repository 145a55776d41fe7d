// The Divergence tab's inputs: probe set, references, the model's data (simulated, or uploaded
// log-probabilities or completions) and the settings. The worker holds one DivergenceSession;
// the results are drawn by divergence-results.js.
import { $, busy, describeProblem, download, el, errorMessage, plural, showIn } from "../dom.js";
import { withGenerator } from "../build-info.js";
import { createDivergenceResults } from "./divergence-results.js";

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

export function createDivergence(call) {
  const results = createDivergenceResults(call);
  let state = null;

  function renderState(s) {
    state = s;
    const p = s.probe_set;
    if (!p) return;
    $("cd-ref-aspect").replaceChildren(...p.aspects.map((a) => el("option", { value: a.id, text: a.id })));
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
    $("cd-references").replaceChildren(el("div", { class: "table-wrap" }, el("table", { id: "cd-ref-table" },
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
    const s = await call("cdUseBuiltin", id);
    renderState(s);
    showIn($("cd-probes-result"), probesLoaded(s));
    showIn($("cd-data-result"));
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
    const method = $("cd-smoothing").value;
    const value = $("cd-smoothing-value").value.trim();
    return {
      smoothing: method === "none" ? "none" : `${method}:${value}`,
      unit: $("cd-unit").value,
      replicates: number("cd-replicates", "Resamples for the intervals", 0, 100000, true),
      confidence: number("cd-confidence", "Interval confidence", 0.5, 0.999),
      seed: number("cd-seed", "Random seed", 0, Number.MAX_SAFE_INTEGER, true),
    };
  }

  async function analyze() {
    const box = $("cd-settings-error");
    let s;
    try {
      s = settings();
    } catch (err) {
      showIn(box, err.message);
      return;
    }
    await busy($("cd-analyze"), async () => {
      try {
        const analysis = await call("cdAnalyze", s);
        showIn(box);
        await results.render(analysis);
      } catch (err) {
        showIn(box, errorMessage(err));
      }
    });
  }

  // 1. Probe set.
  useBuiltin("pl-western").catch((err) => showIn($("cd-probes-result"), alert(el("p", { text: errorMessage(err) }))));
  $("cd-probes-form").addEventListener("submit", (event) => {
    event.preventDefault();
    busy($("cd-use-builtin"), () => useBuiltin($("cd-builtin").value).catch((err) =>
      showIn($("cd-probes-result"), alert(el("p", { text: errorMessage(err) })))));
  });
  $("cd-probes-file").addEventListener("change", async (event) => {
    const [file] = event.target.files;
    event.target.value = "";
    if (!file) return;
    try {
      const s = await call("cdLoadProbes", file.name, await file.arrayBuffer());
      renderState(s);
      showIn($("cd-probes-result"), probesLoaded(s));
      showIn($("cd-data-result"));
      results.clear();
    } catch (err) {
      showIn($("cd-probes-result"), alert(el("p", { text: `${errorMessage(err)}. The earlier probe set is kept.` })));
    }
  });

  // 2. References.
  $("cd-ref-file").addEventListener("change", async (event) => {
    const files = [...event.target.files];
    event.target.value = "";
    const out = [];
    for (const file of files) {
      try {
        const name = $("cd-ref-name-col").value.trim();
        const weight = $("cd-ref-weight-col").value.trim();
        // Column names only mean something for a plain table; they make the shape one.
        const columns = name || weight ? { name: name || null, weight: weight || null } : null;
        const shape = columns ? "table" : $("cd-ref-shape").value;
        const r = await call("cdAddReference", $("cd-ref-culture").value, $("cd-ref-aspect").value, file.name,
          await file.arrayBuffer(), shape, columns);
        out.push(ok(`${r.file}: ${plural(r.rows, "row")} read as ${r.shape}, the ${r.culture} reference for ${r.aspect}.`));
        if (r.problems.length) out.push(alert(el("p", { text: `${plural(r.problems.length, "row")} were not read:` }), problems(r.problems)));
      } catch (err) {
        out.push(alert(el("p", { text: errorMessage(err) })));
      }
    }
    showIn($("cd-ref-result"), out);
    renderState(await call("cdState"));
    results.clear();
  });
  $("cd-ref-clear").addEventListener("click", async () => {
    await call("cdClearReferences");
    renderState(await call("cdState"));
    showIn($("cd-ref-result"), ok("Using the shipped references again."));
    results.clear();
  });

  // 3. The model's data.
  $("cd-sim-form").addEventListener("submit", (event) => {
    event.preventDefault();
    let request;
    try {
      const common = {
        jitter: number("cd-jitter", "Variation between sentences", 0, 10),
        samples: number("cd-samples", "Completions per sentence", 1, 10000, true),
        unmatched_rate: number("cd-unmatched-rate", "Share of replies naming no filler", 0, 1),
      };
      const models = [{ name: "A", lean: number("cd-lean-a", "Lean of model A", 0, 1), ...common }];
      if ($("cd-lean-b").value.trim() !== "") models.push({ name: "B", lean: number("cd-lean-b", "Lean of model B", 0, 1), ...common });
      request = { mode: $("cd-mode").value, models, seed: number("cd-seed", "Random seed", 0, Number.MAX_SAFE_INTEGER, true) };
    } catch (err) {
      showIn($("cd-data-result"), alert(el("p", { text: err.message })));
      return;
    }
    busy($("cd-simulate"), async () => {
      try {
        showIn($("cd-data-result"), dataLoaded(await call("cdSimulate", request)));
        await analyze();
      } catch (err) {
        showIn($("cd-data-result"), alert(el("p", { text: errorMessage(err) })));
      }
    });
  });
  $("cd-cases-download").addEventListener("click", async () => {
    // The mode select says "sampling"/"scoring"; the session's cases take "sample"/"score".
    const mode = $("cd-mode").value === "scoring" ? "score" : "sample";
    try {
      download(`divergence-${mode}-cases.jsonl`, await call("cdCasesJsonl", mode), "application/jsonl");
    } catch (err) {
      showIn($("cd-data-result"), alert(el("p", { text: errorMessage(err) })));
    }
  });
  for (const [id, op] of [["cd-logprobs-file", "cdLoadLogprobs"], ["cd-records-file", "cdLoadRecords"]]) {
    $(id).addEventListener("change", async (event) => {
      const [file] = event.target.files;
      event.target.value = "";
      if (!file) return;
      try {
        showIn($("cd-data-result"), dataLoaded(await call(op, file.name, await file.arrayBuffer())));
        await analyze();
      } catch (err) {
        showIn($("cd-data-result"), alert(el("p", { text: `${errorMessage(err)}. The earlier data is kept.` })));
      }
    });
  }

  // 4. Settings and exports.
  $("cd-smoothing").addEventListener("change", () => {
    const method = $("cd-smoothing").value;
    $("cd-smoothing-value").disabled = method === "none";
    $("cd-smoothing-value").value = method === "floor" ? "1e-6" : "0.5";
  });
  $("cd-settings-form").addEventListener("submit", (event) => {
    event.preventDefault();
    analyze();
  });
  const save = async (op, arg, name, type) => {
    try {
      const text = await call(op, arg);
      download(name, type === "application/json" ? withGenerator(text) : text, type);
    } catch (err) {
      showIn($("cd-error"), errorMessage(err));
    }
  };
  $("cd-export-json").addEventListener("click", () => save("cdExport", "json", `divergence-${state?.probe_set?.id ?? "results"}.json`, "application/json"));
  $("cd-export-csv").addEventListener("click", () => save("cdExport", "csv", `divergence-${state?.probe_set?.id ?? "results"}.csv`, "text/csv"));
  $("cd-export-data").addEventListener("click", () => save("cdDataCsv", undefined, "divergence-model-data.csv", "text/csv"));
}
