// The Divergence tab's results: CD per model (overall and per aspect, with intervals and the
// KL and pooled forms), the per-context table and chart, and the comparison across runs.
import { $, el, errorMessage, percent, plural, setSvg, showIn } from "../dom.js";

const fixed = (x, digits = 4) => (x === null || x === undefined ? "—" : x.toFixed(digits));

/** "−1.2345 [−1.50, −0.98]", the value carrying its full precision in data-value. */
function estimate(e, metric) {
  const parts = [fixed(e.value)];
  if (e.low !== null && e.high !== null) parts.push(" ", el("span", { class: "interval", text: `[${fixed(e.low, 3)}, ${fixed(e.high, 3)}]` }));
  return el("td", { class: "num", "data-metric": metric, "data-value": String(e.value) }, ...parts);
}

const num = (x, metric, digits = 4) => el("td", { class: "num", "data-metric": metric, "data-value": String(x), text: fixed(x, digits) });

const isSimulated = (model) => model.startsWith("sim:");

/** @param {import("../rpc.js").AnalysisCall} call */
export function createDivergenceResults(call) {
  let analysis = null;
  const comparison = new Map(); // "probe set|mode|model" -> row data

  function modelTable(a) {
    const aspects = a.models[0]?.aspects.map((x) => x.aspect) ?? [];
    const head = ["model", `CD (${a.unit}) [${Math.round(a.confidence * 100)}% interval]`, ...aspects.map((x) => `CD ${x}`),
      "KL(M‖L)", "KL(M‖W)", "pooled CD", "model mass smoothed (L / W)", "samples used / unmatched"];
    $("divergence-models").tHead.replaceChildren(el("tr", {}, head.map((h) => el("th", { scope: "col", text: h }))));
    $("divergence-models").tBodies[0].replaceChildren(...a.models.map((m) => el("tr", { "data-model": m.model },
      el("th", { scope: "row" }, m.model, isSimulated(m.model) ? [" ", el("strong", { class: "badge", text: "SIMULATED" })] : null),
      estimate(m.cd, "cd"),
      aspects.map((x) => {
        const r = m.aspects.find((y) => y.aspect === x);
        return r ? estimate(r.cd, `cd-${x}`) : el("td", { text: "—" });
      }),
      num(m.kl_local, "kl_local"), num(m.kl_western, "kl_western"), num(m.pooled_cd, "pooled_cd"),
      el("td", { class: "num", text: `${percent(m.model_mass_smoothed_local)} / ${percent(m.model_mass_smoothed_western)}` }),
      el("td", { class: "num", "data-metric": "samples", text: `${m.samples.matched} / ${m.samples.unmatched}` }))));
  }

  function contextTable() {
    const m = analysis.models.find((x) => x.model === $("divergence-model-pick").value) ?? analysis.models[0];
    const rows = m.aspects.flatMap((x) => x.contexts).map((c) => el("tr", { "data-context": c.context },
      el("th", { scope: "row", text: c.context }), el("td", { text: c.text }), el("td", { text: c.form }),
      estimate(c.cd, "cd"), el("td", { class: "num", text: String(c.n) }),
      el("td", { text: c.unmatched ? `${c.unmatched}: ${c.unmatched_texts.map(([t, n]) => `“${t}” ×${n}`).join(", ")}` : "0" })));
    $("divergence-contexts").tBodies[0].replaceChildren(...rows);
    const contexts = m.aspects.flatMap((x) => x.contexts);
    const pick = $("divergence-context-pick");
    const keep = pick.value;
    pick.replaceChildren(...contexts.map((c) => el("option", { value: c.context, text: `${c.context}: ${c.text}` })));
    if (contexts.some((c) => c.context === keep)) pick.value = keep;
  }

  async function chart() {
    const model = $("divergence-model-pick").value;
    const context = $("divergence-context-pick").value;
    if (!model || !context) return;
    try {
      const svg = await call("divergenceChart", model, context);
      const c = analysis.models.find((x) => x.model === model).aspects.flatMap((x) => x.contexts).find((x) => x.context === context);
      const bars = c.fillers.map((f) => `${f.filler}: model ${fixed(f.model, 3)}, local ${fixed(f.local, 3)}, Western ${fixed(f.western, 3)}`);
      setSvg($("divergence-chart"), svg, `Chart: filler probabilities of ${model} in “${c.text}” against both references. ${bars.join("; ")}.`);
    } catch (err) {
      showIn($("divergence-error"), errorMessage(err));
    }
  }

  function renderComparison(a) {
    for (const m of a.models) {
      comparison.set(`${a.probe_set}|${a.mode}|${m.model}`, {
        probe: a.probe_set, language: a.language, mode: a.mode, model: m.model,
        aspects: m.aspects.map((x) => x.aspect).join(", "), cd: m.cd, unit: a.unit,
      });
    }
    $("divergence-comparison").tBodies[0].replaceChildren(...[...comparison.values()].map((r) => el("tr", {},
      el("td", { text: r.probe }), el("td", { text: r.language }), el("td", { text: r.mode }),
      el("th", { scope: "row", text: r.model }), el("td", { text: r.aspects }), estimate(r.cd, "cd"), el("td", { text: r.unit }))));
  }

  async function render(a) {
    analysis = a;
    $("divergence-results").hidden = false;
    showIn($("divergence-error"));
    const simulated = a.simulated ? "SIMULATED model data. " : "";
    const summary = $("divergence-summary");
    summary.dataset.mode = a.mode;
    summary.textContent = `${simulated}${a.probe_set} (${a.cultures.local} vs ${a.cultures.western}), ${a.mode} mode, ` +
      `${plural(a.models.length, "model")}, values in ${a.unit}, ${a.replicates} bootstrap replicates, seed ${a.seed}. ` +
      "Negative CD: closer to the local culture; positive: closer to the Western one.";
    showIn($("divergence-skipped"), a.skipped_aspects.length || a.problems.length ? el("div", { class: "warning" },
      a.skipped_aspects.map((s) => el("p", { text: `Aspect ${s.aspect} left out: ${s.reason}` })),
      a.problems.map((p) => el("p", { text: p.message }))) : null);
    modelTable(a);
    $("divergence-identity").textContent = a.identity;
    const added = a.references.map((r) => `${r.aspect}/${r.culture} ${percent(r.smoothing_added_mass, 3)}`).join(", ");
    $("divergence-smoothing-note").textContent = `Smoothing: ${a.smoothing_description}. Reference probability placed on ` +
      `fillers a reference lacks: ${added}. The “model mass smoothed” column is the model's probability on such fillers.`;
    const pick = $("divergence-model-pick");
    const keep = pick.value;
    pick.replaceChildren(...a.models.map((m) => el("option", { value: m.model, text: m.model })));
    if (a.models.some((m) => m.model === keep)) pick.value = keep;
    contextTable();
    renderComparison(a);
    await chart();
  }

  $("divergence-model-pick").addEventListener("change", async () => {
    contextTable();
    await chart();
  });
  $("divergence-context-pick").addEventListener("change", chart);

  return {
    render,
    clear() {
      analysis = null;
      $("divergence-results").hidden = true;
    },
  };
}
