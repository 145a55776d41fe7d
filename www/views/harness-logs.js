// What the Upload tab shows of harness logs (lm-evaluation-harness, Inspect, promptfoo): the logs
// read, BBQ's figures per model with their intervals beside the harness's own, the lines that say
// where the two scorings differ and why, the paired comparison of the models (the study built
// from the logs: paired tests, corrected over the family) and the pass rates of graded results.
import { $, el, problemList, showIn } from "../dom.js";
import { createItemTable } from "./study-items.js";

const num = (v) => (v === null || v === undefined || Number.isNaN(v) ? "–" : Number(v).toFixed(3));
const withInterval = (e) => (e && e.value !== null && e.value !== undefined ? `${num(e.value)} [${num(e.low)}, ${num(e.high)}]` : "–");

function table(caption, head, rows) {
  return el("div", { class: "table-wrap" }, el("table", {},
    el("caption", { text: caption }),
    el("thead", {}, el("tr", {}, head.map((h) => el("th", { scope: "col", text: h })))),
    el("tbody", {}, rows.map((r) => el("tr", {}, r.map((c, i) => (i === 0 ? el("th", { scope: "row", text: c }) : el("td", { text: c }))))))));
}

function logsTable(logs) {
  return table("Logs read", ["file", "harness", "task", "models", "samples", "version"],
    logs.map((l) => [l.file, l.harness, l.task, l.models.join(", "), String(l.samples), [l.format_version, l.tool_version].filter(Boolean).join(" · ")]));
}

function bbqTables(bbq) {
  const figures = ["Acc amb", "Acc dis", "diff-bias amb", "diff-bias dis", "s_AMB", "s_DIS"];
  const row = (label, b) => [label, withInterval(b.acc_amb), withInterval(b.acc_dis), withInterval(b.diff_bias_amb),
    withInterval(b.diff_bias_dis), withInterval(b.s_amb), withInterval(b.s_dis), String(b.units)];
  const parts = [];
  for (const m of bbq.models) {
    const byCategory = (m.report.by.find(([field]) => field === "category") ?? [null, []])[1];
    parts.push(table(`BBQ, ${m.model}: ${m.report.judged} answers (95% bootstrap intervals over template groups)`,
      ["", ...figures, "groups"], [row("all", m.report.overall), ...byCategory.map((b) => row(b.label, b))]));
    if (m.beside.length) {
      parts.push(table(`${m.model}: the harness's own figures beside Evenhand's`, ["harness figure", "harness", "Evenhand", "Evenhand's figure"],
        m.beside.map((b) => [b.metric, num(b.harness), num(b.evenhand), b.evenhand_figure])));
    }
  }
  const notes = [...bbq.explanations, ...bbq.coverage, ...bbq.missing];
  if (notes.length) parts.push(el("ul", { class: "notes" }, notes.map((n) => el("li", { text: n }))));
  if (bbq.problems.length) parts.push(el("div", { class: "warning" }, el("p", { text: "Samples not read as BBQ:" }), problemList(bbq.problems)));
  const section = bbq.study?.sections.find((s) => s.method === "bbq");
  if (section) {
    parts.push(table(`Paired comparisons (${bbq.study.family.correction}-corrected over ${bbq.study.family.size}; ${bbq.study.family.significant} differ at α = ${bbq.study.family.alpha})`,
      ["figure", "model A", "model B", "A", "B", "A − B [interval]", "p", "adjusted p", "differ"],
      section.comparisons.map((c) => [c.figure, c.model_a, c.model_b, num(c.value_a), num(c.value_b),
        c.interval ? `${num(c.difference)} [${num(c.interval.low)}, ${num(c.interval.high)}]` : num(c.difference),
        num(c.p_value), num(c.p_adjusted), c.significant ? "yes" : "no"])));
  }
  return parts;
}

function gradedTables(g) {
  const parts = [table("Pass rates (Wilson, and cluster-robust over the tests' templates)", ["task", "model", "passed", "rate", "Wilson", "cluster-robust", "clusters"],
    g.rates.map((r) => [r.task, r.model, `${r.rate.successes} / ${r.rate.n}`, num(r.rate.rate),
      `[${num(r.rate.plain.low)}, ${num(r.rate.plain.high)}]`, `[${num(r.rate.robust.low)}, ${num(r.rate.robust.high)}]`, String(r.rate.clusters)]))];
  if (g.paired.length) {
    parts.push(table(`McNemar between models (${g.correction}-corrected)`, ["task", "model A", "model B", "items", "only A passed", "only B passed", "p", "adjusted p"],
      g.paired.map((p) => [p.task, p.model_a, p.model_b, String(p.test.n), String(p.test.only_a), String(p.test.only_b), num(p.test.p_value), num(p.p_adjusted)])));
  }
  if (g.notes.length) parts.push(el("ul", { class: "notes" }, g.notes.map((n) => el("li", { text: n }))));
  return parts;
}

/** Shows the logs held and their analysis.
 * @param {import("../rpc.js").AnalysisCall} call */
export async function showHarnessLogs(call, logs) {
  const box = $("harness-logs");
  const body = $("harness-logs-body");
  box.hidden = false;
  if (!logs.length) {
    showIn(body, el("p", { role: "status", text: "A results file of lm-evaluation-harness is held: drop its samples_*.jsonl too." }));
    return;
  }
  showIn(body, logsTable(logs), el("p", { role: "status", class: "busy", text: "Scoring the logs…" }));
  const a = await call("logsAnalysis", null);
  showIn(body, logsTable(a.logs), ...(a.bbq ? bbqTables(a.bbq) : []), ...(a.graded ? gradedTables(a.graded) : []));
  // Two or more models on BBQ: the items where they differ (the study the logs make).
  if (a.bbq?.study) body.append(createItemTable((q) => call("logsItems", q, null), "logs-items"));
}

/** The "Forget these logs" button. @param {import("../rpc.js").AnalysisCall} call */
export function wireHarnessLogs(call) {
  $("harness-logs-clear").addEventListener("click", async () => {
    await call("logsClear");
    $("harness-logs").hidden = true;
    $("harness-logs-body").replaceChildren();
  });
}
