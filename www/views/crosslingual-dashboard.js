// The Cross-lingual dashboard: refusal rates with Wilson intervals (chart and table), the
// McNemar heatmaps (language x language for one topic, and pairs x topics), the table of pair
// tests of a chosen family, detector agreement and the review sample. Everything is text.
import { $, el, percent, plural, setSvg, plain } from "../dom.js";

const ALL = "";
const fmtP = (p) => (p == null || Number.isNaN(p) ? "–" : p < 0.001 ? p.toExponential(1) : p.toFixed(3));
const num = (x, d = 3) => (x == null ? "–" : x.toFixed(d));

/** Darker for smaller corrected p. */
function heatClass(p) {
  if (p == null) return "heat-0";
  if (p < 0.001) return "heat-4";
  if (p < 0.01) return "heat-3";
  if (p < 0.05) return "heat-2";
  if (p < 0.2) return "heat-1";
  return "heat-0";
}

function mark(t) {
  return t.significant_holm ? "*" : t.significant_bh ? "†" : "";
}

/** The cell for `row` against `col` from test t (whose languages are a and b). */
function cell(t, row) {
  if (!t) return el("td", { text: "–" });
  const more = t.refuses_more;
  const arrow = more == null ? "=" : more === row ? "▲" : "▼";
  return el("td", {
    class: `${heatClass(t.p_holm)}${t.significant_holm ? " sig" : ""}`,
    title: `${t.a} vs ${t.b}: b=${t.table.n01}, c=${t.table.n10}, p=${fmtP(t.test.p_value)}, Holm ${fmtP(t.p_holm)}, BH ${fmtP(t.p_bh)}`,
    text: `${arrow} ${fmtP(t.p_holm)}${mark(t)}`,
  });
}

function fillSelect(select, values, allLabel) {
  const keep = select.value;
  select.replaceChildren(...(allLabel ? [el("option", { value: ALL, text: allLabel })] : []),
    ...values.map((v) => el("option", { value: v, text: v })));
  if ([...select.options].some((o) => o.value === keep)) select.value = keep;
}

/** A rows x languages grid of rates, from report rates keyed by `field` (topic or model). */
function rateGrid(table, rates, field, languages, label) {
  const rows = [...new Set(rates.map((r) => r[field]))];
  table.querySelector("thead").replaceChildren(el("tr", {}, el("th", { scope: "col", text: label }),
    languages.map((l) => el("th", { scope: "col", text: l }))));
  table.querySelector("tbody").replaceChildren(...rows.map((row) => el("tr", {}, el("th", { scope: "row", text: row }),
    languages.map((l) => {
      const p = rates.find((r) => r[field] === row && r.language === l)?.interval;
      return el("td", { class: "num", text: p ? `${percent(p.rate)} [${percent(p.low, 0)}–${percent(p.high, 0)}]` : "–" });
    }))));
}

/** Failed and pending calls are counted, never silently dropped. */
function unansweredText(report) {
  const st = report.statuses ?? {};
  const missing = ["error", "pending", "skipped"].filter((k) => st[k]).map((k) => `${st[k]} ${k}`);
  if (!missing.length) return "";
  const first = report.unanswered.find((u) => u.error);
  return ` Records without an answer (left out of the rates): ${missing.join(", ")}` +
    `${first ? `; e.g. ${first.record_id}: ${first.error}` : ""}.`;
}

export function createCrosslingualDashboard() {
  let report = null;

  function familyByName(name) {
    return report.families.find((f) => f.name === name);
  }

  function renderHeatmaps() {
    const topic = $("crosslingual-heat-topic").value;
    const model = $("crosslingual-heat-model").value || report.models[0];
    const langs = report.languages;
    // Language x language: one topic (main family) or all topics pooled (family "pairs x models").
    const tests = topic === ALL
      ? familyByName("pairs x models").tests.filter((t) => t.model === model)
      : familyByName("pairs x topics x models").tests.filter((t) => t.topic === topic && t.model === model);
    const find = (a, b) => tests.find((t) => (t.a === a && t.b === b) || (t.a === b && t.b === a));
    const table = $("crosslingual-heat-lang");
    table.querySelector("caption").textContent =
      `Language × language, ${topic === ALL ? "all topics pooled" : topic}, model ${model} (${report.variant}, Holm within its family)`;
    table.querySelector("thead").replaceChildren(el("tr", {}, el("th", { scope: "col", text: "row vs column" }),
      langs.map((l) => el("th", { scope: "col", text: l }))));
    table.querySelector("tbody").replaceChildren(...langs.map((r) => el("tr", {}, el("th", { scope: "row", text: r }),
      langs.map((c) => (r === c ? el("td", { class: "diag", text: "·" }) : cell(find(r, c), r))))));

    // Pairs x topics, main family.
    const main = familyByName("pairs x topics x models").tests.filter((t) => t.model === model);
    const pairs = [];
    for (let i = 0; i < langs.length; i++) for (let j = i + 1; j < langs.length; j++) pairs.push([langs[i], langs[j]]);
    const t2 = $("crosslingual-heat-topics");
    t2.querySelector("caption").textContent = `Language pairs × topics, model ${plain(model)}: ▲ the first language of the pair refuses more`;
    t2.querySelector("thead").replaceChildren(el("tr", {}, el("th", { scope: "col", text: "pair" }),
      report.topics.map((tp) => el("th", { scope: "col", text: tp }))));
    t2.querySelector("tbody").replaceChildren(...pairs.map(([a, b]) => el("tr", {}, el("th", { scope: "row", text: `${a}–${b}` }),
      report.topics.map((tp) => cell(main.find((t) => t.topic === tp && t.a === a && t.b === b), a)))));
  }

  function renderTests() {
    const f = familyByName($("crosslingual-family").value) || report.families[0];
    const r = (x) => (x.ratio == null ? "–" : `${x.accepted}/${x.total} = ${percent(x.ratio)}`);
    $("crosslingual-family-info").textContent = `${report.variant}; family “${f.name}”: ${f.description}; ${f.size} tests corrected together ` +
      `at α = ${f.alpha}. Null hypothesis acceptance ratio: raw ${r(f.null_acceptance_raw)}, Holm ${r(f.null_acceptance_holm)}, ` +
      `BH ${r(f.null_acceptance_bh)}.`;
    $("crosslingual-tests").querySelector("tbody").replaceChildren(...f.tests.map((t) => el("tr", {},
      el("td", { text: t.a }), el("td", { text: t.b }), el("td", { text: t.topic ?? "all" }), el("td", { text: t.model ?? "all" }),
      ...[t.table.n00, t.table.n01, t.table.n10, t.table.n11].map((n) => el("td", { class: "num", text: n })),
      el("td", { class: "num", text: num(t.test.statistic) }),
      el("td", { class: "num", text: fmtP(t.test.p_value) }),
      el("td", { class: "num", text: `${fmtP(t.p_holm)}${t.significant_holm ? " *" : ""}` }),
      el("td", { class: "num", text: `${fmtP(t.p_bh)}${t.significant_bh ? " *" : ""}` }),
      el("td", { class: "num", text: t.test.odds_ratio == null ? "–" :
        `${num(t.test.odds_ratio, 2)} [${num(t.test.odds_ratio_low, 2)}, ${num(t.test.odds_ratio_high, 2)}]` }),
      el("td", { text: t.refuses_more ?? "neither" }))));
  }

  $("crosslingual-heat-topic").addEventListener("change", () => report && renderHeatmaps());
  $("crosslingual-heat-model").addEventListener("change", () => report && renderHeatmaps());
  $("crosslingual-family").addEventListener("change", () => report && renderTests());

  function render(view) {
    report = view.report;
    $("crosslingual-dashboard").hidden = false;
    const sim = report.simulated ? " Includes a SIMULATED model." : "";
    $("crosslingual-summary").textContent = `${report.judged} of ${report.records} responses judged by the ${report.detector} detector, ` +
      `${plural(report.languages.length, "language")}, ${plural(report.topics.length, "topic")}, ` +
      `${plural(report.models.length, "model")}, modes ${report.modes.join(", ")}.${sim}${unansweredText(report)}`;
    setSvg($("crosslingual-rates-chart"), view.rates_svg, `Refusal rate per language: ${report.rates_by_language
      .map((r) => `${r.language} ${r.interval ? percent(r.interval.rate) : "no data"}`).join(", ")}`);
    $("crosslingual-rates").querySelector("tbody").replaceChildren(...report.ranking.map((k) => {
      const r = report.rates_by_language.find((x) => x.language === k.language);
      const p = r.interval;
      return el("tr", { "data-language": k.language },
        el("td", { class: "num", text: k.rank }), el("th", { scope: "row", text: k.language }),
        el("td", { class: "num", text: r.refused }), el("td", { class: "num", text: r.n }),
        el("td", { class: "num rate", text: p ? percent(p.rate) : "–" }),
        el("td", { class: "num", text: p ? `${percent(p.low)} – ${percent(p.high)}` : "–" }),
        el("td", { text: k.differs_from.join(", ") || "none" }));
    }));
    rateGrid($("crosslingual-topic-rates"), report.rates_by_language_topic, "topic", report.languages, "topic");
    rateGrid($("crosslingual-model-rates"), report.rates_by_language_model, "model", report.languages, "model");
    fillSelect($("crosslingual-heat-topic"), report.topics, "all topics (pooled)");
    fillSelect($("crosslingual-heat-model"), report.models, null);
    fillSelect($("crosslingual-family"), report.families.map((f) => f.name), null);
    renderHeatmaps();
    renderTests();

    $("crosslingual-agreement").querySelector("tbody").replaceChildren(...(report.agreement.length ? report.agreement.map((a) => el("tr", {},
      el("th", { scope: "row", text: `${a.a} / ${a.b}` }),
      ...[a.n, a.both, a.only_a, a.only_b, a.neither].map((n) => el("td", { class: "num", text: n })),
      el("td", { class: "num", text: a.percent_agreement == null ? "–" : `${a.percent_agreement.toFixed(1)}%` }),
      el("td", { class: "num", text: a.kappa == null ? "undefined" : a.kappa.toFixed(3) })))
      : [el("tr", {}, el("td", { colspan: 8, text: "Only one detector gave verdicts (add a refusal_label, judge_verdict or nli_p_refuse column to compare)." }))]));

    $("crosslingual-review").querySelector("tbody").replaceChildren(...report.review.map((x) => el("tr", {},
      el("td", { text: x.language }), el("td", { text: x.flagged ? "refusal" : "answer" }), el("td", { text: x.question_id }),
      el("td", { text: x.mode }), el("td", { class: "response", text: x.response }),
      el("td", { text: [x.lexicon_match ?? "no phrase matched",
        x.label == null ? null : `label: ${x.label ? "refusal" : "answer"}`,
        x.judge == null ? null : `judge: ${x.judge ? "REFUSAL" : "ANSWER"}`,
        x.nli == null ? null : `NLI: ${x.nli ? "refusal" : "answer"}${x.nli_p_refuse == null ? " (the lexicon decided)" : ` (P(refuse) ${x.nli_p_refuse})`}`]
        .filter(Boolean).join("; ") }))));

    const e = report.embeddings;
    $("crosslingual-embeddings-info").textContent = e.with_embedding
      ? `${e.with_embedding} responses have an embedding (dimension ${e.dimension}` +
        `${e.models?.length ? `, model ${e.models.join(", ")}` : ""}).`
      : "No response embeddings loaded.";
    $("crosslingual-perm-run").disabled = !e.with_embedding && !view.distances;
    renderPermanova(report.permanova);
    // Without vectors the core draws the uploaded matrix's principal coordinates instead.
    const pictured = e.with_embedding >= 2 ? "2-D PCA of the response embeddings" : "2-D principal coordinates of the uploaded distance matrix";
    if (view.projection_svg) setSvg($("crosslingual-pca-chart"), view.projection_svg, `${pictured}, coloured by language`);
    else $("crosslingual-pca-chart").hidden = true;
  }

  function renderPermanova(section) {
    $("crosslingual-perm-results").hidden = !section;
    if (!section) return;
    const disp = section.rows.find((r) => r.result)?.result.permdisp;
    $("crosslingual-perm-family").textContent = `${section.family}. Distances: ${section.source}; ` +
      `${section.settings.permutations} permutations per test` +
      `${disp ? `; PERMDISP around the group ${disp.center} (${disp.mode})` : ""}. Null hypothesis acceptance ratio at α = ${section.alpha}: ` +
      `${section.acceptance_raw == null ? "–" : percent(section.acceptance_raw)} raw, ` +
      `${section.acceptance_holm == null ? "–" : percent(section.acceptance_holm)} after Holm.`;
    $("crosslingual-perm-note").hidden = !section.note;
    $("crosslingual-perm-note").textContent = section.note ?? "";
    $("crosslingual-permanova-table").querySelector("tbody").replaceChildren(...section.rows.map((r) => {
      const t = r.result;
      const cells = t
        ? [`${r.n_a} + ${r.n_b}`, num(t.f), num(t.r_squared), fmtP(t.p), fmtP(r.p_holm), fmtP(r.p_bh), num(t.permdisp.f), fmtP(t.permdisp.p)]
        : [`${r.n_a} + ${r.n_b}`, `skipped: ${r.skipped}`, "", "", "", "", "", ""];
      return el("tr", { class: r.p_holm != null && r.p_holm < section.alpha ? "sig" : "" },
        el("th", { scope: "row", text: `${r.language_a} – ${r.language_b}` }), el("td", { text: r.topic ?? "all topics" }),
        ...cells.map((c) => el("td", { class: "num", text: c })));
    }));
  }

  return { render };
}
