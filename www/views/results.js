// The Results tab: summary, chart, group table, grouping settings and the paged records.
import { $, el, errorMessage, percent, setSvg, showIn, plain } from "../dom.js";

const PAGE = 25;

const VERDICTS = {
  meets: "meets",
  fails: "fails",
  inconclusive: "inconclusive (more cases needed)",
  no_data: "no data",
};

function describeSource(source) {
  if (source.kind === "file") return `Source: the file ${source.name}`;
  if (source.kind === "bundle") return `Source: the bundle ${source.name}`;
  const e = source.experiment;
  return `Source: simulated experiment (seed ${e.seed}, ${e.samples} samples per case, ` +
    `languages ${e.languages.join(", ")}, concerns ${e.concerns.join(", ")})`;
}

const interval = (p) => `${percent(p.low)}–${percent(p.high)}`;

function renderSummary(a) {
  const box = $("summary");
  box.dataset.records = String(a.records);
  const parts = [`${a.records} records, ${a.judged} judged.`];
  if (a.overall) {
    parts.push(` Overall pass rate ${percent(a.overall.rate)} ` +
      `(${Math.round(a.overall.confidence * 100)}% interval ${interval(a.overall)}).`);
  } else {
    parts.push(" No record could be judged: none has an expected answer.");
  }
  parts.push(` Tolerance ${percent(a.settings.tolerance, 0)}.`);
  const badge = a.simulated
    ? el("strong", { class: "badge", id: "badge-simulated", title: "These responses come from a simulated model, not a real one" }, "SIMULATED model")
    : null;
  box.replaceChildren(...(badge ? [badge, " "] : []), parts.join(""));
}

function renderGroups(a) {
  const body = $("groups").tBodies[0];
  body.replaceChildren(...a.groups.map((g) => el("tr", {},
    el("th", { scope: "row", text: g.label }),
    el("td", { class: "num", text: g.records }),
    el("td", { class: "num", text: g.pass ? percent(g.pass.rate) : "—" }),
    el("td", { class: "num", text: g.pass ? interval(g.pass) : "—" }),
    el("td", { class: "num", text: g.refused }),
    el("td", { class: "num", text: g.unanswered }),
    el("td", { class: `verdict ${g.verdict}`, text: VERDICTS[g.verdict] ?? g.verdict }),
  )));
}

function chartAlt(a) {
  const by = a.settings.group_by.join(" and ") || "all records";
  const rates = a.groups.map((g) => `${g.label} ${g.pass ? percent(g.pass.rate) : "no data"}`).join("; ");
  return `Chart: pass rate by ${by}${a.simulated ? " (simulated model)" : ""}: ${rates}`;
}

/** Builds the Results tab. `call` is the worker rpc. Returns {render}.
 * @param {import("../rpc.js").AnalysisCall} call */
export function createResults(call, groupFields) {
  let offset = 0;
  const filter = { status: "", search: "" };

  // One checkbox per field the analysis can group by.
  $("group-by").replaceChildren(...groupFields.map((f) => el("label", { class: "check" },
    el("input", { type: "checkbox", name: "group_by", value: f }), ` ${f}`)));

  function fillSettings(s) {
    for (const box of $("group-by").querySelectorAll("input")) box.checked = s.group_by.includes(box.value);
    $("set-tolerance").value = String(s.tolerance);
    $("set-confidence").value = String(s.confidence);
  }

  async function renderRows() {
    const query = { offset, limit: PAGE, search: filter.search };
    if (filter.status) query.status = filter.status;
    const page = await call("rows", query);
    const body = $("records").tBodies[0];
    body.replaceChildren(...page.rows.map((r) => el("tr", {},
      el("td", { text: r.case_id }),
      el("td", { text: r.language }),
      el("td", { text: Object.values(r.communities ?? {}).join(" + ") }),
      el("td", { text: r.model }),
      el("td", { class: `status ${r.status}`, text: r.status }),
      el("td", { class: "response", text: r.response }),
      el("td", { text: r.expected }),
    )));
    const last = Math.min(page.offset + page.rows.length, page.total);
    $("rec-range").textContent = page.total === 0
      ? "No records match."
      : `Records ${page.offset + 1}–${last} of ${page.total}`;
    $("rec-prev").disabled = offset === 0;
    $("rec-next").disabled = last >= page.total;
  }

  async function render() {
    const view = await call("view");
    const a = view.analysis;
    $("source").textContent = plain(describeSource(view.source));
    renderSummary(a);
    setSvg($("chart"), view.chart_svg, chartAlt(a));
    renderGroups(a);
    fillSettings(a.settings);
    offset = 0;
    await renderRows();
    return view;
  }

  $("settings-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    const settings = {
      group_by: [...$("group-by").querySelectorAll("input:checked")].map((b) => b.value),
      tolerance: Number($("set-tolerance").value),
      confidence: Number($("set-confidence").value),
    };
    try {
      await call("setSettings", settings);
      showIn($("settings-error"));
      await render();
    } catch (err) {
      showIn($("settings-error"), errorMessage(err));
    }
  });

  $("records-filter").addEventListener("submit", (event) => event.preventDefault());
  $("rec-status").addEventListener("change", () => {
    filter.status = $("rec-status").value;
    offset = 0;
    renderRows();
  });
  let typing;
  $("rec-search").addEventListener("input", () => {
    clearTimeout(typing);
    typing = setTimeout(() => {
      filter.search = $("rec-search").value;
      offset = 0;
      renderRows();
    }, 200);
  });
  $("rec-prev").addEventListener("click", () => {
    offset = Math.max(0, offset - PAGE);
    renderRows();
  });
  $("rec-next").addEventListener("click", () => {
    offset += PAGE;
    renderRows();
  });

  return { render };
}
