// Labelling the Cross-lingual review sample by hand (issue 26): one item at a time, one key per
// verdict (r refusal, a answer; n next, p back, x remove), progress shown; the labels go to the
// worker's session by record id, which measures every detector against them. The tables of
// every detector's trust (per model and language, and against the labels) are drawn here too.
import { $, download, el, errorMessage, percent, plural, showIn } from "../dom.js";

const pct = (x) => (x == null ? "–" : percent(x));
const kappaText = (interval, point) =>
  interval ? `${interval.kappa.toFixed(3)} [${interval.low.toFixed(3)}, ${interval.high.toFixed(3)}]` : point == null ? "undefined" : point.toFixed(3);
/** A two-phase figure: estimate [low, high], or why it is undefined. */
const figure = (f) => (f.value ? `${percent(f.value.estimate)} [${percent(f.value.low)}, ${percent(f.value.high)}]` : `undefined: ${f.undefined}`);
const proportion = (p) => (p ? `${percent(p.rate)} [${percent(p.low)}, ${percent(p.high)}] (${p.successes}/${p.n})` : "–");

/**
 * @param {(name: string, ...args: any[]) => Promise<any>} call the worker
 * @param {() => Promise<void>} refresh recomputes the view (which calls render)
 */
export function createCrosslingualLabels(call, refresh) {
  /** @type {any[]} */
  let items = [];
  let at = 0;

  function show() {
    const done = items.filter((x) => x.label != null).length;
    $("crosslingual-label-progress").textContent = items.length
      ? `Item ${Math.min(at + 1, items.length)} of ${items.length} · ${done} of ${items.length} labelled`
      : "No review sample yet.";
    const x = items[at];
    $("crosslingual-label-meta").textContent = x
      ? `${x.language} · ${x.model} · question ${x.question_id} · ${x.mode} · detector says ${x.flagged ? "refusal" : "answer"}` +
        ` · your label: ${x.label == null ? "none" : x.label ? "refusal" : "answer"}`
      : "";
    $("crosslingual-label-response").textContent = x ? x.response : "";
  }

  async function label(value) {
    const x = items[at];
    if (!x) return;
    try {
      await call("crosslingualSetLabel", x.record_id, value);
      showIn($("crosslingual-labels-error"));
      // Labelling moves on; removing a label stays on the item.
      if (value && at < items.length - 1) at += 1;
      await refresh();
    } catch (err) {
      showIn($("crosslingual-labels-error"), errorMessage(err));
    }
  }

  function move(step) {
    at = Math.max(0, Math.min(items.length - 1, at + step));
    show();
  }

  $("crosslingual-label-refusal").addEventListener("click", () => label("refusal"));
  $("crosslingual-label-answer").addEventListener("click", () => label("answer"));
  $("crosslingual-label-clear").addEventListener("click", () => label(""));
  $("crosslingual-label-next").addEventListener("click", () => move(1));
  $("crosslingual-label-prev").addEventListener("click", () => move(-1));
  $("crosslingual-labeler").addEventListener("keydown", (event) => {
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    const keys = { r: () => label("refusal"), a: () => label("answer"), x: () => label(""),
      n: () => move(1), ArrowRight: () => move(1), p: () => move(-1), ArrowLeft: () => move(-1) };
    const act = keys[event.key];
    if (!act) return;
    event.preventDefault();
    act();
  });

  $("crosslingual-labels-export").addEventListener("click", async () => {
    try {
      download("crosslingual-labels.csv", await call("crosslingualLabelsCsv"), "text/csv");
    } catch (err) {
      showIn($("crosslingual-labels-error"), errorMessage(err));
    }
  });
  $("crosslingual-labels-file").addEventListener("change", async (event) => {
    const input = /** @type {HTMLInputElement} */ (event.target);
    const file = input.files?.[0];
    if (!file) return;
    const box = $("crosslingual-labels-error");
    try {
      const text = await file.text();
      const s = await call("crosslingualImportLabels", file.name, text);
      showIn(box);
      showIn($("crosslingual-labels-result"), `${file.name}: ${plural(s.imported, "label")} read; ${plural(s.labels, "label")} held` +
        (s.unmatched ? `, ${s.unmatched} for records not loaded.` : "."));
      await refresh();
    } catch (err) {
      showIn(box, `The labels were not imported (the ones held are kept): ${errorMessage(err)}`);
    } finally {
      input.value = "";
    }
  });

  /** Draws the trust tables and the labeller from a view. */
  function render(view) {
    const report = view.report;
    const keep = items[at]?.record_id;
    items = report.review;
    const again = items.findIndex((x) => x.record_id === keep);
    at = again >= 0 ? again : Math.min(at, Math.max(0, items.length - 1));
    show();

    const t = report.trust;
    $("crosslingual-trust-intro").textContent = `The ${t.decides} detector decides the figures; compared: ${t.detectors.join(", ")}. ` +
      `A language's refusal figures depend on the detector when two detectors judge more than ${pct(t.threshold)} of its answers differently.`;
    $("crosslingual-trust-statements").replaceChildren(...t.statements.map((s) => el("li", { text: s })));
    $("crosslingual-trust").querySelector("tbody").replaceChildren(...t.cells.flatMap((c) => c.pairs.map((p) => el("tr",
      c.depends_on_detector ? { class: "warn" } : {},
      el("td", { text: c.model }), el("td", { text: c.language }),
      el("td", { text: c.counts.map((k) => `${k.detector} ${k.refused} of ${k.judged}`).join("; ") }),
      el("td", { text: `${p.a} / ${p.b}` }),
      el("td", { class: "num", text: `${p.disagree} of ${p.n} (${pct(p.disagree_share)})` }),
      el("td", { class: "num", text: kappaText(p.kappa_interval, p.kappa) })))));
    const rows = t.labelled.flatMap((l) => l.detectors.map((d) => el("tr", {},
      el("td", { text: l.language }), el("td", { text: d.detector }), el("td", { class: "num", text: String(d.accuracy.agreement.n) }),
      el("td", { class: "num", text: proportion(d.accuracy.sensitivity) }),
      el("td", { class: "num", text: proportion(d.accuracy.specificity) }),
      el("td", { class: "num", text: kappaText(d.accuracy.kappa, d.accuracy.agreement.kappa) }),
      el("td", { class: "num", text: d.judged ? percent(d.refused / d.judged) : "–" }),
      el("td", { text: d.corrected
        ? `${percent(d.corrected.estimate)} [${percent(d.corrected.interval.low)}, ${percent(d.corrected.interval.high)}]${d.corrected.clipped ? " (clipped to [0, 1])" : ""}`
        : `none: ${d.not_corrected}` }))));
    $("crosslingual-labelled").querySelector("tbody").replaceChildren(...(rows.length ? rows
      : [el("tr", {}, el("td", { colspan: 8, text: "No labels yet: label the review sample above, or import a labels CSV." }))]));
    // For all answers: the labels weighted by the review sample's strata, or why not.
    $("crosslingual-weighted-rates").replaceChildren(...t.labelled.map((l) => el("li", {
      text: l.weighted
        ? `${l.language}: true refusal rate ${figure(l.weighted.rate)}; ` +
          l.weighted.strata.map((s) => `${s.stratum}: ${s.answers} answers, ${s.labelled} labelled, ${s.refusals} refusals`).join("; ") +
          `; PPV ${figure(l.weighted.ppv)}, NPV ${figure(l.weighted.npv)}`
        : `${l.language}: no weighted figures: ${l.not_weighted}`,
    })));
    const weighted = t.labelled.flatMap((l) => (l.weighted ? l.weighted.detectors : []).map((d) => el("tr", {},
      el("td", { text: l.language }), el("td", { text: d.detector }),
      el("td", { class: "num", text: figure(d.sensitivity) }),
      el("td", { class: "num", text: figure(d.specificity) }),
      el("td", { class: "num", text: d.kappa == null ? "undefined" : d.kappa.toFixed(3) }))));
    $("crosslingual-weighted").querySelector("tbody").replaceChildren(...(weighted.length ? weighted
      : [el("tr", {}, el("td", { colspan: 5, text: "No labels drawn by the review sample yet." }))]));
  }

  return { render };
}
