// The column-mapping step: when a record table's columns are not recognised, one <select> of
// the file's headers per record field, with the file's first rows beside them. The Upload tab
// and a study's upload slots both ask through it (one form, one behaviour).
import { el } from "../dom.js";

/**
 * @typedef {{name: string, required: boolean, doc: string}} RecordField
 * @typedef {{headers: string[], suggested: Record<string, string>, missing: string[], preview: string[][]}} MappingRequest
 */

/**
 * The mapping form for `file`. `prefix` keeps its ids apart from another form's on the page.
 * @param {{file: string, request: MappingRequest, fields: RecordField[], note?: string | null, prefix?: string,
 *   onSubmit: (map: Record<string, string>) => void}} o
 */
export function mappingForm({ file, request, fields, note = null, prefix = "map", onSubmit }) {
  const choose = (field) => {
    const id = `${prefix}-${field.name}`;
    const help = `${id}-help`;
    return el("div", { class: "row map" },
      el("label", { for: id, text: field.required ? `${field.name} (required)` : field.name }),
      el("select", { id, name: field.name, "aria-describedby": help },
        el("option", { value: "", text: "(not in this file)" }),
        request.headers.map((h) => el("option", { value: h, text: h, selected: request.suggested[field.name] === h }))),
      el("span", { class: "help", id: help, text: field.doc }));
  };
  // Required fields first, then those matched by name; the rest fold away.
  const main = [...fields.filter((f) => f.required), ...fields.filter((f) => !f.required && request.suggested[f.name])];
  const rest = fields.filter((f) => !main.includes(f));
  const preview = el("div", { class: "table-wrap" }, el("table", { class: "preview" },
    el("caption", { text: `The first rows of ${file}` }),
    el("thead", {}, el("tr", {}, request.headers.map((h) => el("th", { scope: "col", text: h })))),
    el("tbody", {}, request.preview.map((row) => el("tr", {}, row.map((cell) => el("td", { text: cell })))))));
  const form = el("form", { id: prefix === "map" ? "mapping-form" : `${prefix}-form`, class: "mapping-form", novalidate: "" },
    el("h3", { text: `Map the columns of ${file}` }),
    el("p", { text: `No column could be matched to: ${request.missing.join(", ")}.` }),
    note ? el("p", { class: "alert", role: "alert", text: note }) : null,
    main.map(choose),
    el("details", {}, el("summary", { text: "Other fields (optional)" }), rest.map(choose)),
    preview,
    el("button", { type: "submit", class: "primary", text: "Load with this mapping" }));
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    /** @type {Record<string, string>} */
    const map = {};
    for (const select of form.querySelectorAll("select")) if (select.value) map[select.name] = select.value;
    onSubmit(map);
  });
  return form;
}
