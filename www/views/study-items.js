// "What changed between the models, item by item": a table of the items two models both
// answered (question or prompt, each model's answer and how it was read, the expected answer),
// filtered by model pair, method, category, language, condition and "models disagree". The
// filtering and paging happen in the core (study::items::select); this module only draws the
// page it gets back. Used by the study report and by the harness-logs view.
import { el } from "../dom.js";

const METHOD_NAMES = { bbq: "BBQ", requirements: "Ethical requirements", crosslingual: "Cross-lingual refusals", divergence: "Cultural divergence" };
const PAGE = 25;

/**
 * @param {(query: object) => Promise<any>} fetchPage the core's select() behind the worker
 * @param {string} prefix id prefix of this table's controls (unique in the page)
 * @returns {HTMLElement}
 */
export function createItemTable(fetchPage, prefix) {
  const field = (key, label) => {
    const select = el("select", { id: `${prefix}-${key}`, name: key });
    return { key, select, box: el("div", { class: "field" }, el("label", { for: `${prefix}-${key}`, text: label }), select) };
  };
  const fields = [field("pair", "Model pair"), field("method", "Method"), field("category", "Category"),
    field("language", "Language"), field("condition", "Condition")];
  const disagree = el("input", { type: "checkbox", id: `${prefix}-disagree`, name: "disagree", checked: true });
  const status = el("p", { role: "status", "aria-live": "polite", id: `${prefix}-status`, class: "help" });
  const tbody = el("tbody", {});
  const table = el("table", { id: `${prefix}-table`, class: "item-table" },
    el("caption", { text: "Items both models answered, with each model's answer and how it was read" }),
    el("thead", {}, el("tr", {}, ["Method", "Category", "Language", "Condition", "Item", "Question or prompt", "Expected", "Model A", "Model B"]
      .map((h) => el("th", { scope: "col", text: h })))),
    tbody);
  const prev = el("button", { type: "button", id: `${prefix}-prev`, text: "Previous items", disabled: true });
  const next = el("button", { type: "button", id: `${prefix}-next`, text: "Next items", disabled: true });
  let offset = 0;
  let filled = false;

  const query = () => {
    const q = { disagree: disagree.checked, offset, limit: PAGE };
    for (const f of fields) q[f.key] = f.select.value;
    return q;
  };

  const fill = (f, values) => {
    const keep = f.select.value;
    const name = (v) => (f.key === "method" ? METHOD_NAMES[v] ?? v : f.key === "pair" ? v.replace("|", " and ") : v);
    f.select.replaceChildren(el("option", { value: "", text: "All" }), ...values.map((v) => el("option", { value: v, text: name(v) })));
    f.select.value = values.includes(keep) ? keep : "";
  };

  const answer = (a, model) => el("td", {},
    el("strong", { text: a.outcome }), el("br"), el("span", { class: "item-response", text: a.response }), el("br"),
    el("span", { class: "help", text: `${model}: ${a.read}` }));

  async function load() {
    status.textContent = "Loading items…";
    let page;
    try {
      page = await fetchPage(query());
    } catch (err) {
      status.textContent = `The items could not be listed: ${err?.message ?? err}`;
      return;
    }
    if (!filled) {
      const facets = page.facets;
      fill(fields[0], facets.pairs);
      fill(fields[1], facets.methods);
      fill(fields[2], facets.categories);
      fill(fields[3], facets.languages);
      fill(fields[4], facets.conditions);
      filled = true;
    }
    tbody.replaceChildren(...page.items.map((it) => el("tr", { class: it.disagree ? "disagree" : null, "data-category": it.category },
      el("td", { text: METHOD_NAMES[it.method] ?? it.method }), el("td", { text: it.category }), el("td", { text: it.language }),
      el("td", { text: it.condition }), el("td", { text: it.id }), el("td", { class: "item-question", text: it.question }),
      el("td", { text: it.expected }), answer(it.a, it.model_a), answer(it.b, it.model_b))));
    const last = Math.min(page.offset + page.items.length, page.total);
    status.textContent = page.total
      ? `${page.total} item(s) match, ${page.disagree} where the models disagree; showing ${page.offset + 1} to ${last}.`
      : "No item matches these filters.";
    prev.disabled = page.offset === 0;
    next.disabled = last >= page.total;
  }

  for (const f of fields) f.select.addEventListener("change", () => { offset = 0; load(); });
  disagree.addEventListener("change", () => { offset = 0; load(); });
  prev.addEventListener("click", () => { offset = Math.max(0, offset - PAGE); load(); });
  next.addEventListener("click", () => { offset += PAGE; load(); });
  load();

  return el("section", { id: prefix, class: "item-changes", "aria-labelledby": `${prefix}-title` },
    el("h3", { id: `${prefix}-title`, text: "What changed between the models, item by item" }),
    el("p", { class: "help", text: "Each item both models answered, read as its method counts it (BBQ: the option chosen; requirements: the oracle's verdict; "
      + "cross-lingual: refused or not; divergence: the context's lean). The downloaded HTML lists the first items per category; report.json has them all." }),
    el("div", { class: "item-filters" }, ...fields.map((f) => f.box),
      el("div", { class: "field" }, disagree, el("label", { for: `${prefix}-disagree`, text: " Only items where the models disagree" }))),
    status,
    el("div", { class: "table-wrap" }, table),
    el("div", { class: "buttons" }, prev, next));
}
