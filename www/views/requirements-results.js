// The Requirements tab's results: pass rates with intervals per concern x language x input x
// reflection, the community forest plot and pairwise heatmap, the community and cross-language
// tests with their corrections, the exports; and LangBiTe's own reports read again.
import { $, describeProblem, download, el, errorMessage, percent, plural, setSvg, showIn } from "../dom.js";
import { buildInfo, withFirstKey } from "../build-info.js";
import { handToRun } from "../handover.js";

/** The refusal detectors as the summary names them. */
const DETECTORS = { lexicon: "phrase lexicon", nli: "NLI model", judge: "LLM judge", label: "uploaded labels" };
const VERDICT = { pass: "meets", fail: "fails", inconclusive: "inconclusive", notevaluated: "" };
const VERDICT_TEXT = { pass: "pass", fail: "fail", inconclusive: "inconclusive", notevaluated: "not evaluated" };
const p3 = (p) => (p < 0.001 ? "<0.001" : p.toFixed(3));
const alert = (...content) => el("div", { class: "alert", role: "alert" }, ...content);

function number(id, name, min, max) {
  const text = $(id).value.trim();
  const x = Number(text);
  if (text === "" || !Number.isFinite(x) || x < min || x > max) throw new Error(`${name}: expected a number from ${min} to ${max}, found "${text}"`);
  return x;
}

function table(id, caption, headers, rows) {
  return el("div", { class: "table-wrap" }, el("table", { id },
    el("caption", { class: "visually-hidden", text: caption }),
    el("thead", {}, el("tr", {}, headers.map((h) => el("th", { scope: "col", text: h })))),
    el("tbody", {}, rows)));
}

const interval = (p) => (p ? `${percent(p.rate)} [${percent(p.low)}, ${percent(p.high)}]` : "–");
const verdictCell = (v) => el("td", { class: `verdict ${VERDICT[v] ?? ""}`, text: VERDICT_TEXT[v] ?? v });

function groupsTable(groups) {
  const count = (g, o) => String(g.counts[o] ?? 0);
  return table("requirements-groups", "Pass rate per group", ["Model", "Concern", "Language", "Input", "Reflection", "Passed", "Failed",
    "Refused", "Unparseable", "Error", "Pass rate [interval]", "Tolerance", "Verdict", "LangBiTe's verdict"],
  groups.map((g) => el("tr", {},
    [g.model, g.concern, g.language, g.input_type, g.reflection_type].map((c) => el("td", { text: c })),
    ["Passed", "Failed", "Refused", "Unparseable", "Error"].map((o) => el("td", { class: "num", text: count(g, o) })),
    el("td", { class: "num", text: interval(g.pass_rate) }), el("td", { class: "num", text: String(g.tolerance) }),
    verdictCell(g.verdict), el("td", { text: g.point_verdict }))));
}

function testsTable(c, alpha) {
  const rows = c.groups.flatMap((g) => g.tests.map((t) => el("tr", { class: t.p_holm < alpha ? "significant" : null },
    [g.model, g.concern, g.language, t.test, t.communities.join(" vs ")].map((x) => el("td", { text: x })),
    [t.statistic == null ? "–" : t.statistic.toFixed(3), p3(t.p_value), p3(t.p_holm), p3(t.p_bh)]
      .map((x) => el("td", { class: "num", text: x })),
    el("td", { text: t.p_holm < alpha ? "yes" : "no" }))));
  return table("requirements-tests", "Community tests", ["Model", "Concern", "Language", "Test", "Communities", "Statistic", "p",
    "p (Holm)", "p (BH)", `Significant (Holm, α = ${alpha})`], rows);
}

function crossTable(cross) {
  return table("requirements-cross", "The same templates across languages", ["Model", "Concern", "Languages", "Templates",
    "Passed in the first only", "Passed in the second only", "p (exact McNemar)", "p (Holm)"],
  cross.pairs.map((p) => el("tr", {}, [p.model, p.concern, `${p.language_a} / ${p.language_b}`].map((x) => el("td", { text: x })),
    [String(p.templates), String(p.a_only), String(p.b_only), p3(p.p_value), p3(p.p_holm)].map((x) => el("td", { class: "num", text: x })))));
}

/** @param {import("../rpc.js").AnalysisCall} call */
export function createRequirementResults(call) {
  const detector = /** @type {HTMLSelectElement} */ ($("requirements-detector"));

  /** Offers the detectors the records carry verdicts for (the lexicon always); a choice no
   *  longer carried falls back to the lexicon. */
  async function offerDetectors() {
    /** @type {string[]} */
    const carried = await call("requirementsDetectors");
    for (const option of detector.options) option.disabled = option.hidden = !carried.includes(option.value);
    if (!carried.includes(detector.value)) detector.value = "lexicon";
  }

  async function evaluate() {
    let query;
    // Large record sets take a second or two in the worker: no second click meanwhile.
    $("requirements-evaluate").disabled = true;
    $("requirements-results").setAttribute("aria-busy", "true");
    try {
      await offerDetectors();
      query = {
        detector: detector.value,
        compat: $("requirements-compat").checked, confidence: number("requirements-confidence", "Confidence", 0.5, 0.999),
        alpha: number("requirements-alpha", "Significance level", 0.001, 0.5), seed: number("requirements-eval-seed", "Seed", 0, 2 ** 53),
      };
      const v = await call("requirementsEvaluate", query);
      showIn($("requirements-eval-error"));
      render(v, query);
    } catch (err) {
      showIn($("requirements-eval-error"), errorMessage(err));
    } finally {
      $("requirements-evaluate").disabled = false;
      $("requirements-results").removeAttribute("aria-busy");
    }
  }

  function render(v, q) {
    const outcomes = Object.entries(v.outcomes).map(([o, n]) => `${o} ${n}`).join(", ");
    const verdicts = Object.entries(v.template_verdicts).map(([o, n]) => `${o} ${n}`).join(", ");
    const parts = [el("p", { class: "success", role: "status", id: "requirements-results-summary",
      text: `${plural(v.records, "record")} judged (${v.mode === "langbite" ? "LangBiTe compatibility" : `every instance; refusals by the ${DETECTORS[v.detector] ?? v.detector}`}). ` +
        (outcomes ? `Outcomes: ${outcomes}. ` : "") + `Template verdicts as LangBiTe gives them: ${verdicts || "none"}.` })];
    if (v.groups.length) {
      parts.push(el("h4", { text: "Pass rate per group" }),
        el("p", { class: "help", text: `Pass rate = passed / (passed + failed), with its ${percent(q.confidence, 0)} Wilson interval. ` +
          "Verdict: pass when the whole interval is at or above the tolerance, fail when it is below, otherwise inconclusive; " +
          "LangBiTe's verdict compares the point estimate alone." }),
        groupsTable(v.groups));
      if (v.pass_rates_svg) {
        const img = el("img", { class: "chart", id: "requirements-pass-rates" });
        setSvg(img, v.pass_rates_svg, "Pass rate per group with its interval; the dashed tick is the tolerance");
        parts.push(img);
      }
    } else {
      parts.push(el("h4", { text: "LangBiTe's verdicts per group" }), table("requirements-global", "LangBiTe's global evaluation",
        ["Model", "Concern", "Language", "Input", "Reflection", "Passed", "Failed", "Error", "Tolerance", "Verdict"],
        v.global.map((g) => el("tr", {}, [g.model, g.concern, g.language, g.input_type, g.reflection_type, g.passed, g.failed,
          g.error, g.tolerance, g.tolerance_evaluation].map((c) => el("td", { text: String(c) }))))));
    }
    const charts = el("div", {});
    if (v.communities) {
      const forest = el("img", { class: "chart", id: "requirements-forest" });
      const heat = el("img", { class: "chart", id: "requirements-heatmap" });
      setSvg(forest, v.forest_svg, "Per-community pass share or mean value, with intervals");
      setSvg(heat, v.heatmap_svg, `Pairwise McNemar p-values; a star marks Holm-corrected p < ${q.alpha}`);
      charts.append(el("h4", { text: "Communities" }),
        el("p", { class: "help", text: "The instances of one template differ only in the community, so they are compared as " +
          "matched sets: Cochran's Q across communities and exact McNemar for each pair (pass/fail oracles), a permutation " +
          `test of the spread of means (number oracles). Corrections run over ${plural(v.communities.family_size, "test")} (${v.communities.family}).` }),
        forest, heat, testsTable(v.communities, q.alpha));
    }
    if (v.cross_language?.pairs.length) charts.append(el("h4", { text: "The same templates across languages" }), crossTable(v.cross_language));
    parts.push(charts);
    if (v.problem_count) {
      parts.push(el("div", { class: "warning" }, el("p", { text: `${plural(v.problem_count, "record")} could not be judged:` }),
        el("ul", { class: "problems" }, v.problems.map((p) => el("li", { text: describeProblem(p) })))));
    }
    parts.push(el("h4", { text: "Exports" }), el("div", { class: "buttons", id: "requirements-exports" },
      el("button", { type: "button", "data-export": "all", text: "Download every file" })));
    showIn($("requirements-results"), parts);
    fillExports();
  }

  async function fillExports() {
    // One timestamp for LangBiTe's three CSVs, as LangBiTe writes them.
    const stamp = new Date().toISOString().replace(/\D/g, "").slice(0, 14);
    const files = await call("requirementsFiles", stamp);
    const box = $("requirements-exports");
    // The manifest names the build; the other files stay byte-identical to `evenhand evaluate`'s.
    const withBuild = (name, text) => (name === "manifest.json" ? withFirstKey(text, "build", buildInfo().build) : text);
    const save = ([name, text]) =>
      download(name.replaceAll("/", "_"), withBuild(name, text), name.endsWith(".json") ? "application/json" : "text/csv");
    for (const f of files) {
      const b = el("button", { type: "button", text: f[0] });
      b.addEventListener("click", () => save(f));
      box.append(b);
    }
    box.firstChild.addEventListener("click", () => files.forEach(save));
  }

  $("requirements-eval-form").addEventListener("submit", (event) => {
    event.preventDefault();
    evaluate();
  });

  function showJudge(r) {
    const a = r.agreement;
    $("requirements-judge").open = true;
    showIn($("requirements-judge-result"),
      el("p", { id: "requirements-judge-summary", role: "status", text: `The judge and the oracle agree on ${a.both + a.neither} of ` +
        `${plural(a.n, "answer")}${a.percent_agreement == null ? "" : ` (${a.percent_agreement.toFixed(1)}%)`}; Cohen's kappa ` +
        `${a.kappa == null ? "undefined" : a.kappa.toFixed(3)}; ${plural(r.unusable, "reply", "replies")} unusable.` }),
      table("requirements-judge-table", "Oracle against judge", ["", "Judge: pass", "Judge: fail"], [
        el("tr", {}, el("th", { scope: "row", text: "Oracle: pass" }), el("td", { class: "num", text: String(a.both) }), el("td", { class: "num", text: String(a.only_a) })),
        el("tr", {}, el("th", { scope: "row", text: "Oracle: fail" }), el("td", { class: "num", text: String(a.only_b) }), el("td", { class: "num", text: String(a.neither) })),
      ]));
  }

  // The LLM judge: its cases out to the Run tab, its answers back against the oracle.
  const judgeCases = () => call("requirementsJudgeCases", number("requirements-judge-n", "Passes and failures per group", 1, 1000),
    number("requirements-judge-seed", "Seed of the sample", 0, 2 ** 32 - 1));
  $("requirements-judge-run").addEventListener("click", async () => {
    try {
      const j = await judgeCases();
      showIn($("requirements-judge-result"), el("p", { role: "status", text: `${plural(j.cases, "case")} handed to the Run tab.` }));
      handToRun({ origin: "requirements-judge", kind: "chat", name: "requirements-judge-cases.jsonl", text: j.jsonl,
        label: `From the Requirements tab: ${plural(j.cases, "judge case")} (an audit sample of passes and failures)` });
    } catch (err) {
      showIn($("requirements-judge-result"), alert(el("p", { text: errorMessage(err) })));
    }
  });
  $("requirements-judge-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    try {
      const j = await judgeCases();
      download("requirements-judge-cases.jsonl", j.jsonl, "application/jsonl");
      showIn($("requirements-judge-result"), el("p", { role: "status", text: `${plural(j.cases, "case")} for the judge. Run them in the ` +
        "Run tab (cases file) on the model you trust, export its records and load them here." }));
    } catch (err) {
      showIn($("requirements-judge-result"), alert(el("p", { text: errorMessage(err) })));
    }
  });
  $("requirements-judge-file").addEventListener("change", async (event) => {
    const file = /** @type {HTMLInputElement} */ (event.target).files[0];
    /** @type {HTMLInputElement} */ (event.target).value = "";
    if (!file) return;
    try {
      showJudge(await call("requirementsLoadJudge", file.name, await file.arrayBuffer()));
    } catch (err) {
      showIn($("requirements-judge-result"), alert(el("p", { text: errorMessage(err) }), el("p", { text: "The evaluation is unchanged." })));
    }
  });

  // LangBiTe's reports: each file recognised by its header, then read again together.
  $("requirements-reports-file").addEventListener("change", async (event) => {
    const files = [.../** @type {HTMLInputElement} */ (event.target).files];
    /** @type {HTMLInputElement} */ (event.target).value = "";
    const loaded = [];
    const errors = [];
    for (const file of files) {
      try {
        loaded.push(`${file.name} (${await call("requirementsLoadReport", file.name, await file.text())})`);
      } catch (err) {
        errors.push(errorMessage(err));
      }
    }
    try {
      renderReports(await call("requirementsReportsView", number("requirements-confidence", "Confidence", 0.5, 0.999)), loaded, errors);
    } catch (err) {
      showIn($("requirements-reports"), alert(el("p", { text: errorMessage(err) })));
    }
  });

  function renderReports(r, loaded, errors) {
    const parts = [];
    if (loaded.length) parts.push(el("p", { class: "success", role: "status", text: `Read: ${loaded.join(", ")}.` }));
    if (errors.length || r.problems.length) parts.push(alert(...[...errors, ...r.problems].map((m) => el("p", { text: m }))));
    if (r.global) {
      parts.push(el("p", { id: "requirements-reports-summary", text: `${plural(r.global.length, "group")}; in ${r.disagreements} of them ` +
        "LangBiTe's verdict is not what the interval supports (highlighted)." }),
      table("requirements-reanalysis", "LangBiTe's global report with intervals", ["Model", "Concern", "Language", "Input", "Reflection",
        "Passed", "Failed", "Errors (left out upstream)", "Pass rate [interval]", "Tolerance", "Verdict", "LangBiTe's verdict"],
      r.global.map((g) => el("tr", { class: g.disagrees ? "disagrees" : null },
        [g.model, g.concern, g.language, g.input_type, g.reflection_type].map((c) => el("td", { text: c })),
        [g.passed, g.failed, g.error].map((c) => el("td", { class: "num", text: String(c) })),
        el("td", { class: "num", text: interval(g.pass_rate) }), el("td", { class: "num", text: String(g.tolerance) }),
        verdictCell(g.verdict), el("td", { text: g.tolerance_evaluation })))));
    }
    if (r.rejudged) {
      parts.push(el("p", { id: "requirements-rejudged", text: `Judged again from the responses: ${r.agree} of ${plural(r.rejudged.length, "evaluation")} ` +
        "get the verdict the report gives." }));
    }
    showIn($("requirements-reports"), parts);
  }

  return { evaluate, showJudge, offerDetectors };
}
