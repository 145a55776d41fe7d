// A study report section's calls table (study::calls in the core): per model and language, how
// many calls were answered, out of choice, refused (where the method detects refusals),
// failed and left out (calls the method could not analyse: divergence), adding up to the
// total the study planned, with which columns the figures count.
import { el } from "../dom.js";

/** @param {{ method: string, title?: string, calls?: { figures_count: string, rows: any[] } }} s */
export function callsTable(s) {
  const rows = s.calls?.rows ?? [];
  if (!rows.length) return null;
  const refusals = rows.some((r) => r.refused != null);
  const leftOut = rows.some((r) => r.left_out != null);
  const heads = ["Model", "Language", "Answered", "Out of choice", ...(refusals ? ["Refused"] : []), "Failed",
    ...(leftOut ? ["Left out"] : []), "Total"];
  return el("div", { class: "report-calls" },
    el("div", { class: "table-wrap" }, el("table", { class: "report-calls-table", "data-method": s.method },
      el("caption", { text: `${s.title ?? s.method}: what became of each planned call, per model and language` }),
      el("thead", {}, el("tr", {}, heads.map((h) => el("th", { scope: "col", text: h })))),
      el("tbody", {}, rows.map((r) => el("tr", { "data-model": r.model, "data-language": r.language },
        el("th", { scope: "row", text: r.model }),
        el("td", { text: r.language || "–" }),
        el("td", { "data-col": "answered", text: r.answered }),
        el("td", { "data-col": "out_of_choice", text: r.out_of_choice }),
        refusals ? el("td", { "data-col": "refused", text: r.refused ?? 0 }) : null,
        el("td", { "data-col": "failed", text: r.not_run ? `${r.failed} (${r.not_run} not run)` : r.failed }),
        leftOut ? el("td", { "data-col": "left_out", text: r.left_out ?? 0 }) : null,
        el("td", { "data-col": "total", text: r.total })))))),
    el("p", { class: "help", text: s.calls?.figures_count ?? "" }));
}
