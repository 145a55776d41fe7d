// Step 5 of a study, and the example study: the report, drawn from report() JSON alone (every
// number here is in that JSON), with its downloads: the self-contained HTML (report_html()), the
// JSON itself, the study bundle and the share link. Charts are the core's SVG, shown through <img>
// so an SVG can run nothing.
import { el, download, errorMessage, setSvg, showIn } from "../dom.js";
import { METHODS } from "./study-setup.js";
import { createItemTable } from "./study-items.js";
import { callsTable } from "./study-calls.js";
import { TOOL, openInTool } from "./study-tools.js";
import { createNliPanel } from "./nli-panel.js";
import { difference, differenceInterval, interval, pValue, ratio, unitsNote, value } from "./figure-units.js";

// A comparison's n: the resampled clusters, with the paired items beside them (as the core's n_text).
const nText = (c) => (c.items != null ? `${c.n} clusters (${c.items} items)` : String(c.n));
const methodName = (id) => METHODS.find((m) => m.id === id)?.name ?? id;

/** @param {import("../rpc.js").AnalysisCall} call */
export function createStudyReport(call) {
  const shareNote = el("p", { class: "warning", id: "study-share-note", role: "status", hidden: true });
  const body = el("div", { id: "study-report-body" });
  const error = el("div", { class: "alert", role: "alert", id: "study-report-error", hidden: true });
  const shareOut = el("input", { id: "study-share-link", readOnly: true, "aria-label": "Study share link", hidden: true });
  const buttons = [
    ["study-dl-html", "Download the report (HTML)", async () => download(`${await slug()}.html`, await call("studyReportHtml"), "text/html")],
    ["study-dl-json", "Download the report data (JSON)", async () => download(`${await slug()}.json`, await call("studyReportJson"), "application/json")],
    ["study-dl-bundle", "Download the study bundle", async () => download(`${await slug()}-bundle.json`, await call("studyBundle"), "application/json")],
    ["study-share", "Copy the share link", async () => {
      // A link carries the study, and its records when they fit; when they do not, say so
      // before copying anything: opened elsewhere, such a link could not rebuild this report.
      /** @type {{fragment: string | null, lacks: string[]}} */
      const share = await call("studyShareLink");
      if (!share.fragment) {
        shareOut.hidden = true;
        shareNote.textContent = `This study needs its bundle: a link cannot carry ${share.lacks.join(", ")} (too large for a link), `
          + "so opened elsewhere it could not rebuild this report. Share the study bundle instead (“Download the study bundle”); "
          + "it opens from the home screen.";
        shareNote.hidden = false;
        return;
      }
      const link = `${location.origin}${location.pathname}#${share.fragment}`;
      shareOut.value = link;
      shareOut.hidden = false;
      shareOut.select();
      try {
        await navigator.clipboard.writeText(link);
      } catch {
        /* the link is selected in the field; copying by hand works */
      }
    }],
  ].map(([id, text, fn]) => {
    const b = el("button", { type: "button", id, text });
    b.addEventListener("click", async () => {
      showIn(error);
      try {
        await /** @type {() => Promise<void>} */ (fn)();
      } catch (err) {
        showIn(error, errorMessage(err));
      }
    });
    return b;
  });
  let title = "evenhand-study";
  const slug = async () => `evenhand-report-${title.toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-|-$/g, "").slice(0, 40) || "study"}`;

  // The local NLI detector over the study's records; once written, the report is drawn again.
  const nli = /** @type {HTMLTemplateElement} */ (document.getElementById("study-nli-template")).content.cloneNode(true);
  const step = el("section", { class: "study-step", "data-step": "report", "aria-labelledby": "study-report-title" },
    el("div", { class: "buttons report-downloads" }, ...buttons), shareOut, shareNote, error, nli, body);
  createNliPanel("study-nli", {
    items: () => call("studyNliItems"),
    write: (batch) => call("studyAddNli", batch),
    empty: "The study has no answered requirements or cross-lingual records to judge.",
    compared: "The report's detector tables now show the NLI model with its agreement (Cohen's kappa), and the methods text names it.",
    async after() {
      await render();
      return [];
    },
  }, step);

  /** Renders the report of the open study. */
  async function render() {
    const t0 = performance.now();
    showIn(error);
    const report = await call("studyReport");
    const t1 = performance.now();
    title = report.title ?? title;
    // Each report its own link: none shown until asked for this one.
    shareOut.value = "";
    shareOut.hidden = true;
    shareNote.hidden = true;
    body.replaceChildren(...draw(report));
    // The item table pages through the core's items; it goes after the paired comparisons.
    body.querySelector("#study-paired-title")?.parentElement?.after(createItemTable((q) => call("studyItems", q), "study-items"));
    // Where the time goes, for the tests' timing log: the wasm's report(), then the drawing.
    step.dataset.reportMs = String(Math.round(t1 - t0));
    step.dataset.drawMs = String(Math.round(performance.now() - t1));
    step.dataset.ready = "1";
    return report;
  }

  // A method's link to its expert tool opens the tool with this study's records of that method.
  body.addEventListener("click", async (event) => {
    const link = /** @type {HTMLElement | null} */ (/** @type {HTMLElement} */ (event.target).closest?.("a[data-tool-method]"));
    if (!link) return;
    event.preventDefault();
    try {
      await openInTool(call, link.dataset.toolMethod, title);
    } catch (err) {
      showIn(error, `The expert tool could not take this study's records: ${errorMessage(err)}`);
    }
  });

  /** Empties the view (a link that cannot rebuild its report shows why instead). */
  const clear = () => {
    body.replaceChildren();
    shareOut.hidden = true;
    shareNote.hidden = true;
  };

  return { step, render, clear, showError: (err) => showIn(error, typeof err === "string" ? err : errorMessage(err)) };
}

/** The report's parts in reading order. */
function draw(r) {
  const sections = r.sections ?? [];
  return [
    el("h2", { id: "study-report-title", tabindex: -1, text: r.title }),
    (r.models ?? []).some((m) => m.simulated)
      ? el("p", { class: "badge", id: "study-simulated-badge", text: "Includes SIMULATED models: their answers describe no real model" }) : null,
    r.question ? el("p", { class: "lead", id: "study-report-question" }, el("strong", { text: "Question: " }), r.question) : null,
    models(r),
    r.answer ? el("section", { "aria-labelledby": "study-answer-title", id: "study-answer" },
      el("h3", { id: "study-answer-title", text: "Answer" }),
      el("p", { id: "study-answer-text" }, el("strong", { text: r.answer.answer })),
      r.answer.findings.length ? el("ul", { id: "study-answer-findings" }, r.answer.findings.map((f) => el("li", { text: f.text }))) : null,
      r.answer.undecided.length ? el("div", {}, el("h4", { text: "Not decided" }),
        el("ul", { id: "study-answer-undecided" }, r.answer.undecided.map((u) => el("li", { text: u })))) : null) : null,
    el("section", { "aria-labelledby": "study-summary-title" },
      el("h3", { id: "study-summary-title", text: "Summary" }),
      el("ul", { id: "study-summary" }, sections.map((s) => el("li", {}, el("strong", { text: `${s.title ?? methodName(s.method)}: ` }), s.summary)))),
    ...sections.map(section),
    breakdowns(r),
    paired(r, sections),
    prose("Methods", "study-methods", r.methods_text),
    list("Limitations", "study-limitations", r.limitations),
    list("References", "study-references", r.references, "ol"),
    el("p", { class: "help", text: `Made by Evenhand ${r.tool_version} on ${r.generated_at}; study SHA-256 ${r.study_sha256}.` }),
  ].filter(Boolean);
}

function models(r) {
  return el("section", { "aria-labelledby": "study-models-title" },
    el("h3", { id: "study-models-title", text: "Models" }),
    el("div", { class: "table-wrap" }, el("table", { id: "study-models" },
      el("caption", { class: "visually-hidden", text: "The models compared, with their records" }),
      el("thead", {}, el("tr", {}, ["Model", "Records", "Refused", "Failed calls", ""].map((h) => el("th", { scope: "col", text: h })))),
      el("tbody", {}, r.models.map((m) => el("tr", {},
        el("th", { scope: "row", text: m.target }), el("td", { text: m.records }), el("td", { text: m.refused }),
        el("td", { text: m.failed }), el("td", { text: m.simulated ? "SIMULATED" : "" })))))));
}

function section(s) {
  const id = `study-section-${s.method}`;
  const chart = el("img", { class: "chart report-chart" });
  if (s.chart_svg) setSvg(chart, s.chart_svg, `${s.title}: the main chart`);
  else chart.hidden = true;
  return el("section", { id, class: "report-section", "aria-labelledby": `${id}-title` },
    el("h3", { id: `${id}-title`, text: s.title ?? methodName(s.method) }),
    el("p", { text: s.summary }),
    chart,
    el("div", { class: "table-wrap" }, el("table", { class: "report-figures" },
      el("caption", { text: `${s.title}: each model's figures` }),
      el("thead", {}, el("tr", {}, ["Figure", "Model", "Value", "Interval", "Cluster-robust interval", "Design effect", "n"]
        .map((h) => el("th", { scope: "col", text: h })))),
      el("tbody", {}, s.figures.map((f) => el("tr", { class: f.clustered?.verdict_disagrees ? "disagrees" : null },
        el("td", { text: f.figure }), el("td", { text: f.model }), el("td", { text: value(f.figure, f.value) }),
        el("td", { text: `${interval(f.figure, f.interval)} (${f.interval_method})` }),
        el("td", { text: f.clustered ? `${interval(f.figure, f.clustered.interval)}${f.clustered.verdict_disagrees ? " (verdict differs)" : ""}` : "–" }),
        el("td", { text: f.clustered?.design_effect != null ? ratio(f.clustered.design_effect) : "–" }),
        el("td", { text: f.n })))))),
    note(s.figures.map((f) => f.figure)),
    callsTable(s),
    s.notes?.length ? el("ul", { class: "report-notes" }, s.notes.map((n) => el("li", { text: n }))) : null,
    TOOL[s.method] ? el("p", { class: "help" }, "More on this method in its expert tool, with this study's records: ",
      el("a", { href: `#tools/${TOOL[s.method]}`, "data-tool-method": s.method, text: methodName(s.method) }), ".") : null);
}

/** Every paired test of every method in one table, with the correction the study names. */
function paired(r, sections) {
  const rows = sections.flatMap((s) => s.comparisons ?? []);
  const f = r.family;
  return el("section", { "aria-labelledby": "study-paired-title" },
    el("h3", { id: "study-paired-title", text: "Paired comparisons between models" }),
    el("p", { id: "study-family", text: `${f.size} comparisons (model pairs × figures, all methods) form one family; `
      + `p-values are adjusted by ${f.correction}, which controls ${f.controls} at α = ${f.alpha}; ${f.significant} differ significantly.` }),
    f.replicates_note ? el("p", { id: "study-replicates-note", class: "help", text: f.replicates_note }) : null,
    rows.length ? el("div", { class: "table-wrap" }, el("table", { id: "study-paired" },
      el("caption", { text: `Paired tests on the same items, p adjusted by ${f.correction}` }),
      el("thead", {}, el("tr", {}, ["Method", "Figure", "Models", "Difference", "Test", "n", "p", "p adjusted", "Significant", "Detectable at 80% power"]
        .map((h) => el("th", { scope: "col", text: h })))),
      el("tbody", {}, rows.map((c) => el("tr", { class: c.significant ? "sig" : null },
        el("td", { text: methodName(c.method) }), el("td", { text: c.figure }), el("td", { text: `${c.model_a} − ${c.model_b}` }),
        el("td", { text: `${difference(c.figure, c.difference)}${c.interval ? ` ${differenceInterval(c.figure, c.interval)}` : ""}` }),
        el("td", { text: c.test + (c.discordant ? ` (discordant ${c.discordant[0]} / ${c.discordant[1]})` : "") }),
        el("td", { text: nText(c) }), el("td", { text: pValue(c.p_value) }), el("td", { text: pValue(c.p_adjusted) }),
        el("td", { text: c.significant ? "yes" : "no" }), el("td", { text: c.detectable != null ? difference(c.figure, c.detectable) : "–" }))))))
      : el("p", { text: "No pair of models shares items to compare." }),
    note(rows.map((c) => c.figure)));
}

function prose(title, id, text) {
  if (!text) return null;
  const paragraphs = Array.isArray(text) ? text : String(text).split(/\n\s*\n/);
  return el("section", { "aria-labelledby": `${id}-title` },
    el("h3", { id: `${id}-title`, text: title }),
    el("div", { id }, paragraphs.map((p) => el("p", { text: p }))));
}

function list(title, id, items, tag = "ul") {
  if (!items?.length) return null;
  return el("section", { "aria-labelledby": `${id}-title` },
    el("h3", { id: `${id}-title`, text: title }),
    el(tag, { id }, items.map((x) => el("li", { id: x.key ? `ref-${x.key}` : null, text: typeof x === "string" ? x : x.text }))));
}

/** Figures and paired differences per category and language (study::breakdown). */
function breakdowns(r) {
  if (!r.breakdowns?.length) return null;
  return el("section", { id: "study-breakdowns", "aria-labelledby": "study-breakdowns-title" },
    el("h3", { id: "study-breakdowns-title", text: "Breakdowns per category, language, topic and language pair" }),
    el("p", { class: "help", text: "Each model's figure with its interval, and the paired difference between models in each category, language, topic or language pair (a model's refusal gap is its rate in the first language minus the second); these comparisons are corrected as a family of their own." }),
    ...r.breakdowns.map((b) => el("div", { class: "table-wrap" }, el("table", { class: "report-breakdown", "data-method": b.method, "data-by": b.by },
      el("caption", { text: `${methodName(b.method)} by ${b.by}${b.paired_replicates ? ` (paired bootstraps: ${b.paired_replicates} replicates)` : ""}` }),
      el("thead", {}, el("tr", {}, ["Figure", "Model(s)", "Value or difference", "Interval", "n", "p adjusted", "Significant"].map((h) => el("th", { scope: "col", text: h })))),
      el("tbody", {},
        b.figures.map((f) => el("tr", {}, el("td", { text: f.figure }), el("td", { text: f.model }), el("td", { text: value(f.figure, f.value) }),
          el("td", { text: interval(f.figure, f.interval) }), el("td", { text: f.n }), el("td", { text: "" }), el("td", { text: "" }))),
        b.comparisons.map((c) => el("tr", { class: c.significant ? "sig" : null }, el("td", { text: c.figure }),
          el("td", { text: `${c.model_a} − ${c.model_b}` }), el("td", { text: difference(c.figure, c.difference) }),
          el("td", { text: differenceInterval(c.figure, c.interval) }), el("td", { text: nText(c) }), el("td", { text: pValue(c.p_adjusted) }),
          el("td", { text: c.significant ? "yes" : "no" }))))))),
    note(r.breakdowns.flatMap((b) => b.figures.map((f) => f.figure))));
}

/** The scale of each kind of figure in the table above it (rates in percent, ...). */
function note(figures) {
  const text = unitsNote(figures);
  return text ? el("p", { class: "help units-note", text }) : null;
}
