// The Upload tab: record files (drop or choose), the column-mapping step, and bundles.
import { $, el, errorMessage, plural, problemList, showIn } from "../dom.js";
import { describeReproduction, openBundleText } from "../bundles.js";
import { readFile } from "../read-file.js";
import { showHarnessLogs, wireHarnessLogs } from "./harness-logs.js";
import { mappingForm } from "./mapping-form.js";

const KEPT = "Your earlier data is kept.";

/** The structured load error inside a worker error, if it is one: {kind, ...}. */
function loadDetail(err) {
  const d = err && err.detail;
  if (!d) return null;
  if (d.kind === "load") return d.detail; // {kind: "needs_mapping" | "syntax" | ...}
  return d; // {kind: "nothing_loaded", detail: {...}} and others
}

/** Builds the Upload tab. `changed()` re-renders everything after new data is in.
 * @param {import("../rpc.js").AnalysisCall} call */
export function createUpload(call, fields, changed) {
  const result = $("upload-result");
  const mapping = $("mapping");

  function loaded(summary) {
    const parts = [el("p", { class: "success", role: "status", text: `Loaded ${plural(summary.loaded, "record")} from ${summary.file}.` })];
    if (summary.errors.length) {
      parts.push(el("div", { class: "alert", role: "alert" },
        el("p", { text: `${plural(summary.errors.length, "row")} not loaded:` }), problemList(summary.errors)));
    }
    if (summary.warnings.length) {
      parts.push(el("div", { class: "warning" },
        el("p", { text: `${plural(summary.warnings.length, "warning")}:` }), problemList(summary.warnings)));
    }
    showIn(result, parts);
  }

  function failed(file, err) {
    const d = loadDetail(err);
    if (d && d.kind === "nothing_loaded") {
      const { errors, warnings } = d.detail;
      showIn(result, el("div", { class: "alert", role: "alert" },
        el("p", { text: `No row of ${file} could be loaded. ${KEPT}` }),
        problemList(errors), warnings.length ? problemList(warnings) : null));
    } else {
      showIn(result, el("div", { class: "alert", role: "alert" },
        el("p", { text: errorMessage(err) }), el("p", { text: KEPT })));
    }
  }

  /** Reads `file` (in chunks, with a progress bar when large) and loads it into the workspace.
   * The bytes move to the worker, so the mapping step reads the file again.
   * @param {File} chosen @param {Record<string, string> | null} map */
  async function load(chosen, map) {
    const file = chosen.name;
    try {
      const bytes = await readFile(chosen, result);
      showIn(result, el("p", { role: "status", text: `Checking ${file}…` }));
      const got = await call("upload", file, bytes, map);
      mapping.hidden = true;
      mapping.replaceChildren();
      if (got.logs) {
        showIn(result, el("p", { class: "success", role: "status", text: `Read ${file} as a harness log.` }));
        if (got.records) await changed();
        await showHarnessLogs(call, got.logs);
      } else {
        loaded(got.records);
        await changed();
      }
    } catch (err) {
      const d = loadDetail(err);
      if (d && d.kind === "needs_mapping") {
        showIn(result, el("p", { role: "status", text: `${file}: choose which column holds each field. ${KEPT}` }));
        askMapping(chosen, d, map ? "The response column is still missing." : null);
      } else {
        failed(file, err);
      }
    }
  }

  // The mapping form (views/mapping-form.js): one <select> of the file's headers per record field.
  function askMapping(chosen, request, note) {
    mapping.replaceChildren(mappingForm({ file: chosen.name, request, fields, note, onSubmit: (map) => load(chosen, map) }));
    mapping.hidden = false;
  }

  /** Several files (harness logs to compare) are loaded one after the other. @param {FileList | File[]} files */
  async function pick(files) {
    for (const file of Array.from(files ?? [])) {
      showIn(result, el("p", { role: "status", text: `Reading ${file.name}…` }));
      await load(file, null);
    }
  }
  wireHarnessLogs(call);

  $("upload-file").addEventListener("change", (event) => {
    pick(/** @type {HTMLInputElement} */ (event.target).files);
    /** @type {HTMLInputElement} */ (event.target).value = ""; // choosing the same file again must load it again
  });

  const zone = $("dropzone");
  zone.addEventListener("dragover", (event) => {
    event.preventDefault();
    zone.classList.add("over");
  });
  zone.addEventListener("dragleave", () => zone.classList.remove("over"));
  zone.addEventListener("drop", (event) => {
    event.preventDefault();
    zone.classList.remove("over");
    pick(event.dataTransfer.files);
  });

  $("bundle-file").addEventListener("change", async (event) => {
    const file = /** @type {HTMLInputElement} */ (event.target).files[0];
    /** @type {HTMLInputElement} */ (event.target).value = "";
    if (!file) return;
    const box = $("bundle-result");
    try {
      const summary = await openBundleText(call, file.name, await file.text());
      showIn(box, el("p", { role: "status", class: "success", text: `Opened the bundle ${file.name}: ${summary.records} records. ${describeReproduction(summary)}` }),
        summary.problems.length ? problemList(summary.problems) : null);
      await changed();
    } catch (err) {
      showIn(box, el("div", { class: "alert", role: "alert" }, el("p", { text: errorMessage(err) }), el("p", { text: KEPT })));
    }
  });
}
