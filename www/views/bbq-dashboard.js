// The Benchmarks tab's results: summary line, score tables (per model, then per category,
// subset, language and prompt variant), the two charts and the bootstrap settings.
import { $, el, errorMessage, plural, setSvg, showIn } from "../dom.js";

/** A score as the tables show it: 4 decimals, or "undefined" where a denominator was zero. */
export const fixed = (x, digits = 4) => (x === null || x === undefined ? "undefined" : x.toFixed(digits));

const known = (x) => x !== null && x !== undefined;

/** "0.3326 [0.28, 0.39]": the value, then its bootstrap interval when there is one. The
 *  interval is its own span so that narrow tables can put it under the value. */
export function estimate(e) {
  if (!e || !known(e.value)) return ["undefined"];
  if (!known(e.low) || !known(e.high)) return [fixed(e.value)];
  return [fixed(e.value), " ", el("span", { class: "interval", text: `[${fixed(e.low, 2)}, ${fixed(e.high, 2)}]` })];
}


export const isSimulated = (label) => label.startsWith("sim:");

export function simulatedBadge() {
  return el("strong", { class: "badge", title: "These answers come from a simulated model, not a real one" }, "SIMULATED");
}

const answers = (c) => c.n_a + c.n_b + c.n_c + c.ooc_amb + c.ooc_dis;

// One column per score; `metric` names the cell so a reader (or a test) can find it.
const COLUMNS = [
  { head: "Answers", metric: "answers", cell: (b) => answers(b.counts) },
  { head: "Acc_amb", metric: "acc_amb", cell: (b) => estimate(b.acc_amb) },
  { head: "Acc_dis", metric: "acc_dis", cell: (b) => estimate(b.acc_dis) },
  { head: "diff-bias_amb", metric: "diff_bias_amb", cell: (b) => estimate(b.diff_bias_amb) },
  { head: "diff-bias_dis", metric: "diff_bias_dis", cell: (b) => estimate(b.diff_bias_dis) },
  { head: "max |diff-bias_amb|", metric: "max_diff_bias_amb", cell: (b) => fixed(b.scores.max_diff_bias_amb) },
  { head: "max |diff-bias_dis|", metric: "max_diff_bias_dis", cell: (b) => fixed(b.scores.max_diff_bias_dis) },
  { head: "s_DIS", metric: "s_dis", cell: (b) => fixed(b.scores.s_dis) },
  { head: "s_AMB", metric: "s_amb", cell: (b) => fixed(b.scores.s_amb) },
  { head: "Out of choice", metric: "ooc", cell: (b) => b.counts.ooc_amb + b.counts.ooc_dis },
];

function headRow(first) {
  return el("tr", {}, el("th", { scope: "col", text: first }), COLUMNS.map((c) => el("th", { scope: "col", text: c.head })));
}

function scoreRow(b, label) {
  return el("tr", { "data-label": label },
    el("th", { scope: "row" }, el("span", { class: "label", text: label || "(none)" }), isSimulated(label) ? [" ", simulatedBadge()] : null),
    COLUMNS.map((c) => el("td", { class: "num", "data-metric": c.metric }, c.cell(b))));
}

/** The rows of the main table: one per model, or the overall numbers named after the one model. */
function modelRows(view) {
  const byModel = view.report.by.find(([field]) => field === "model");
  if (byModel) return byModel[1].map((b) => [b, b.label]);
  return [[view.report.overall, view.models.length === 1 ? view.models[0] : "all"]];
}

const FIELD_NAMES = { category: "category", subset: "subset", language: "language", variant: "prompt variant" };

function breakdownTable(field, groups, models) {
  const name = FIELD_NAMES[field] ?? field;
  const pooled = models > 1 ? " (all models together)" : "";
  return el("div", { class: "table-wrap" }, el("table", { class: "metrics", id: `bbq-by-${field}` },
    el("caption", { text: `Scores per ${name}${pooled}` }),
    el("thead", {}, headRow(name)),
    el("tbody", {}, groups.map((b) => scoreRow(b, b.label)))));
}

function scatterAlt(rows, simulated) {
  const points = rows.map(([b, label]) =>
    `${label || "all"}: ambiguous accuracy ${fixed(b.acc_amb.value)}, diff-bias ${fixed(b.diff_bias_amb.value)}; ` +
    `disambiguated accuracy ${fixed(b.acc_dis.value)}, diff-bias ${fixed(b.diff_bias_dis.value)}`);
  return `Chart: accuracy against diff-bias per model${simulated ? " (includes a SIMULATED model)" : ""}, ` +
    `the region where a point can lie shaded. ${points.join(". ")}.`;
}

/** `only`: the category's name when the data has just one (then the report has no breakdown). */
function categoriesAlt(view, only) {
  const byCategory = view.report.by.find(([field]) => field === "category");
  const groups = byCategory ? byCategory[1] : [{ ...view.report.overall, label: only ?? "all examples" }];
  const bars = groups.map((b) =>
    `${b.label}: ambiguous ${fixed(b.diff_bias_amb.value)}, disambiguated ${fixed(b.diff_bias_dis.value)}`);
  return `Chart: diff-bias per category, ambiguous and disambiguated contexts. ${bars.join("; ")}.`;
}

function renderSummary(view) {
  const r = view.report;
  const box = $("bbq-summary");
  box.dataset.examples = String(r.examples);
  box.dataset.judged = String(r.judged);
  const text = [`${plural(r.examples, "example")}, ${r.judged} judged, ${r.unresolved.length} unresolved, ` +
    `${plural(r.missing_predictions, "missing prediction")}.`];
  if (r.unmatched_predictions.length) text.push(` ${plural(r.unmatched_predictions.length, "prediction")} named no loaded example.`);
  if (view.models.length) text.push(` Models: ${view.models.join(", ")}.`);
  else text.push(" No predictions yet: choose a predictions file or ask the simulated model.");
  const simulated = view.models.some(isSimulated);
  box.replaceChildren(...(simulated ? [simulatedBadge(), " "] : []), text.join(""));
}

function renderUnresolved(r) {
  const box = $("bbq-unresolved");
  if (!r.unresolved.length) return box.replaceChildren();
  const LIMIT = 100;
  const items = r.unresolved.slice(0, LIMIT).map(([id, reason]) => el("li", { text: reason ? `${id}: ${reason}` : id }));
  if (r.unresolved.length > LIMIT) items.push(el("li", { text: `… and ${r.unresolved.length - LIMIT} more` }));
  box.replaceChildren(el("details", {},
    el("summary", { text: `${plural(r.unresolved.length, "example")} with no decided biased answer, left out of the bias scores` }),
    el("ul", { class: "problems" }, items)));
}

/** Builds the results part. `changed()` re-renders after new bootstrap settings. Returns {render}.
 * @param {import("../rpc.js").AnalysisCall} call */
export function createBbqDashboard(call, changed) {
  /** The category of every example when there is only one: the first answer names it. */
  async function onlyCategory(view) {
    if (view.report.by.some(([field]) => field === "category")) return undefined;
    return (await call("bbqRows", { offset: 0, limit: 1 })).rows[0]?.category;
  }

  /** Shows the view; returns whether there is anything to show. */
  async function render(view) {
    const r = view.report;
    $("bbq-dashboard").hidden = r.examples === 0;
    if (r.examples === 0) return false;
    renderSummary(view);
    renderUnresolved(r);
    $("bbq-replicates").value = String(r.bootstrap.replicates);
    $("bbq-confidence").value = String(r.bootstrap.confidence);
    $("bbq-boot-seed").value = String(r.bootstrap.seed);

    // Scores only mean something once answers are in.
    $("bbq-scores").hidden = r.judged === 0;
    if (r.judged === 0) return true;
    const rows = modelRows(view);
    const table = $("bbq-metrics");
    table.tHead.replaceChildren(headRow("model"));
    table.tBodies[0].replaceChildren(...rows.map(([b, label]) => scoreRow(b, label)));
    const simulated = view.models.some(isSimulated);
    setSvg($("bbq-scatter"), view.scatter_svg, scatterAlt(rows, simulated));
    setSvg($("bbq-categories"), view.categories_svg, categoriesAlt(view, await onlyCategory(view)));
    $("bbq-breakdowns").replaceChildren(...r.by
      .filter(([field]) => field !== "model")
      .map(([field, groups]) => breakdownTable(field, groups, view.models.length)));
    return true;
  }

  $("bbq-bootstrap-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    const replicates = $("bbq-replicates").value.trim();
    const seed = $("bbq-boot-seed").value.trim();
    const error = $("bbq-bootstrap-error");
    if (!/^\d+$/.test(replicates) || !/^\d+$/.test(seed) || !Number.isSafeInteger(Number(seed))) {
      showIn(error, "Replicates and seed: expected whole numbers.");
      return;
    }
    const button = $("bbq-bootstrap-apply");
    button.disabled = true;
    try {
      await call("bbqSetBootstrap", { replicates: Number(replicates), confidence: Number($("bbq-confidence").value), seed: Number(seed) });
      showIn(error);
      await changed();
    } catch (err) {
      showIn(error, errorMessage(err));
    } finally {
      button.disabled = false;
    }
  });

  return { render };
}
