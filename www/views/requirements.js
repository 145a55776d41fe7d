// The Requirements tab: the scenario (a form over one requirement at a time, beside the JSON,
// both checked by the wasm as you type), the library browser, the preview of expanded prompts,
// and the run (simulated, or cases out to the Run tab and records back). Results and
// LangBiTe reports are in requirements-results.js. The worker holds one RequirementsSession.
import { $, busy, describeProblem, download, el, errorMessage, plural, showIn } from "../dom.js";
import { createRequirementResults } from "./requirements-results.js";
import { createNliPanel } from "./nli-panel.js";
import { handToRun, onRequirementsData } from "../handover.js";
import { readFile } from "../read-file.js";

const INPUTS = ["constrained", "verbose"];
const REFLECTIONS = ["observational", "utopian"];
// Typing pauses this long before the JSON is parsed and checked.
const CHECK_DELAY_MS = 250;

const alert = (...content) => el("div", { class: "alert", role: "alert" }, ...content);
const checked = (box) => [...box.querySelectorAll("input:checked")].map((b) => b.value);
const options = (select, values, labels = values) =>
  select.replaceChildren(...values.map((v, i) => el("option", { value: v, text: labels[i] })));

function checkboxes(box, name, values, on) {
  box.replaceChildren(...values.map((v) => {
    const id = `requirements-${name}-${v}`;
    return el("span", { class: "check" },
      el("input", { type: "checkbox", id, value: v, checked: on(v) }), " ", el("label", { for: id, text: v }));
  }));
}

function number(id, name, min, max, whole = false) {
  const text = $(id).value.trim();
  const x = Number(text);
  if (text === "" || !Number.isFinite(x) || x < min || x > max || (whole && !Number.isInteger(x))) {
    throw new Error(`${name}: expected ${whole ? "a whole number" : "a number"} from ${min} to ${max}, found "${text}"`);
  }
  return x;
}

/** "nonbinary=0.4, men=0.1" -> {nonbinary: 0.4, men: 0.1}. */
function communityRates(text) {
  const out = {};
  for (const part of text.split(",").map((p) => p.trim()).filter(Boolean)) {
    const [id, rate] = part.split("=").map((p) => p.trim());
    const x = Number(rate);
    if (!id || rate === undefined || rate === "" || !Number.isFinite(x)) {
      throw new Error(`Communities treated worse: expected id=rate, found "${part}"`);
    }
    out[id] = x;
  }
  return out;
}

function table(headers, rows) {
  return el("div", { class: "table-wrap" }, el("table", {},
    el("thead", {}, el("tr", {}, headers.map((h) => el("th", { scope: "col", text: h })))),
    el("tbody", {}, rows.map((r) => el("tr", {}, r.map((c) => el("td", { text: c })))))));
}

/** @param {import("../rpc.js").AnalysisCall} call */
export async function createRequirements(call) {
  const catalogue = await call("requirementsCatalogue");
  let scenario = JSON.parse(await call("requirementsDefaultScenario"));
  let selected = 0;
  let timer;

  // --- 1. The scenario: form <-> JSON, checked on every change. ---
  options($("requirements-concern"), catalogue.concerns);

  // Our superset's settings (the scenario's "evenhand" key) <-> the preview, run, results and
  // judge fields, so a downloaded scenario carries them and an opened one restores them.
  /** @type {[string, (e: any) => any][]} */
  const SETTINGS = [
    ["requirements-seed", (e) => e.seed], ["requirements-samples", (e) => e.samples],
    ["requirements-confidence", (e) => e.statistics?.confidence], ["requirements-alpha", (e) => e.statistics?.alpha],
    ["requirements-eval-seed", (e) => e.statistics?.seed], ["requirements-judge-n", (e) => e.judge?.per_outcome], ["requirements-judge-seed", (e) => e.judge?.seed],
  ];
  function fillSettings() {
    const e = scenario.evenhand;
    if (!e || typeof e !== "object") return;
    for (const [id, get] of SETTINGS) if (get(e) != null) $(id).value = get(e);
    if (Array.isArray(e.targets) && e.targets.length) $("requirements-models").value = e.targets.join(", ");
  }
  function withSettings(base) {
    const n = (id) => Number($(id).value);
    const e = {
      seed: n("requirements-seed"), samples: n("requirements-samples"),
      targets: $("requirements-models").value.split(",").map((m) => m.trim()).filter(Boolean),
      statistics: { confidence: n("requirements-confidence"), alpha: n("requirements-alpha"), seed: n("requirements-eval-seed") },
    };
    if (base.evenhand?.judge) e.judge = { ...base.evenhand.judge, per_outcome: n("requirements-judge-n"), seed: n("requirements-judge-seed") };
    return { ...base, evenhand: e };
  }

  function fillForm() {
    const reqs = scenario.requirements ?? [];
    selected = Math.min(selected, Math.max(reqs.length - 1, 0));
    options($("requirements-req"), reqs.map((_, i) => String(i)), reqs.map((r, i) => `${i + 1}. ${r.name ?? ""} (${r.concern ?? "?"})`));
    $("requirements-req").value = String(selected);
    $("requirements-ntemplates").value = scenario.nTemplates ?? "";
    const r = reqs[selected];
    $("requirements-remove").disabled = reqs.length <= 1;
    for (const id of ["requirements-name", "requirements-concern", "requirements-tolerance", "requirements-delta"]) $(id).disabled = !r;
    if (!r) return;
    $("requirements-name").value = r.name ?? "";
    $("requirements-concern").value = String(r.concern ?? "").toLowerCase();
    $("requirements-tolerance").value = r.tolerance ?? "";
    $("requirements-delta").value = r.delta ?? "";
    const langs = new Set(r.languages ?? []);
    checkboxes($("requirements-languages"), "lang", catalogue.languages, (l) => langs.has(l));
    checkboxes($("requirements-inputs"), "input", INPUTS, (v) => (r.inputs ?? []).includes(v));
    checkboxes($("requirements-reflections"), "reflection", REFLECTIONS, (v) => (r.reflections ?? []).includes(v));
  }

  /** The form's values into the scenario object: communities follow concern and languages. */
  function readForm() {
    const r = scenario.requirements?.[selected];
    if (!r) return;
    const concern = $("requirements-concern").value;
    const concernChanged = concern !== String(r.concern ?? "").toLowerCase();
    r.name = $("requirements-name").value;
    r.concern = concern;
    r.markup = catalogue.markups[concern] ?? r.markup;
    r.languages = checked($("requirements-languages"));
    const communities = {};
    for (const l of r.languages) {
      const own = !concernChanged && r.communities?.[l];
      communities[l] = own || catalogue.communities[l]?.[concern] || [];
    }
    r.communities = communities;
    r.inputs = checked($("requirements-inputs"));
    r.reflections = checked($("requirements-reflections"));
    // Numbers as typed: a bad one is the wasm check's to report, with its field.
    const num = (id) => ($(id).value.trim() === "" ? null : Number($(id).value));
    r.tolerance = num("requirements-tolerance");
    r.delta = num("requirements-delta");
    scenario.nTemplates = num("requirements-ntemplates");
  }

  async function check(text) {
    const v = await call("requirementsSetScenario", text);
    const parts = [];
    if (v.ok) parts.push(el("p", { class: "success", role: "status", text: `Valid: ${plural(v.requirements, "requirement")}.` }));
    else parts.push(alert(el("p", { text: "Not valid yet; the last valid scenario stays in use:" }),
      el("ul", { class: "problems" }, v.errors.map((p) => el("li", { text: describeProblem(p) })))));
    if (v.warnings.length) parts.push(el("div", { class: "warning" }, el("p", { text: "Warnings:" }),
      el("ul", { class: "problems" }, v.warnings.map((p) => el("li", { text: describeProblem(p) })))));
    showIn($("requirements-validation"), parts);
    $("panel-requirements").dataset.valid = v.ok ? "1" : "0";
    return v.ok;
  }

  async function fromForm() {
    readForm();
    const text = JSON.stringify(scenario, null, 2);
    $("requirements-json").value = text;
    fillForm();
    await check(text);
  }

  async function fromJson() {
    const text = $("requirements-json").value;
    try {
      scenario = JSON.parse(text);
      if (scenario && typeof scenario === "object") {
        fillForm();
        fillSettings();
      }
    } catch {
      // Not JSON yet: the check below reports where.
    }
    await check(text);
  }

  $("requirements-form").addEventListener("change", (e) => {
    if (/** @type {HTMLInputElement} */ (e.target).id === "requirements-req") {
      selected = Number(/** @type {HTMLInputElement} */ (e.target).value);
      fillForm();
      return;
    }
    fromForm();
  });
  $("requirements-form").addEventListener("submit", (e) => e.preventDefault());
  $("requirements-json").addEventListener("input", () => {
    clearTimeout(timer);
    timer = setTimeout(fromJson, CHECK_DELAY_MS);
  });
  $("requirements-add").addEventListener("click", () => {
    const concern = catalogue.concerns.find((c) => !scenario.requirements.some((r) => r.concern === c)) ?? catalogue.concerns[0];
    const languages = scenario.requirements[selected]?.languages ?? ["en_us"];
    scenario.requirements.push({
      name: `Requirement ${scenario.requirements.length + 1}`, rationale: "", languages, tolerance: 0.8, delta: 0.1,
      concern, markup: catalogue.markups[concern],
      communities: Object.fromEntries(languages.map((l) => [l, catalogue.communities[l]?.[concern] ?? []])),
      inputs: ["constrained"], reflections: ["observational"],
    });
    selected = scenario.requirements.length - 1;
    fillForm();
    fromForm();
  });
  $("requirements-remove").addEventListener("click", () => {
    if (scenario.requirements.length <= 1) return;
    scenario.requirements.splice(selected, 1);
    selected = Math.max(0, selected - 1);
    fillForm();
    fromForm();
  });
  // The download carries the page's settings in the "evenhand" key (LangBiTe ignores it).
  $("requirements-scenario-download").addEventListener("click", async () => {
    try {
      scenario = withSettings(JSON.parse($("requirements-json").value));
    } catch {
      showIn($("requirements-validation"), alert(el("p", { text: "The JSON above does not parse yet; it is downloaded as it is." })));
      download("scenario.json", $("requirements-json").value, "application/json");
      return;
    }
    const text = JSON.stringify(scenario, null, 2);
    $("requirements-json").value = text;
    await check(text);
    download("scenario.json", text, "application/json");
  });
  $("requirements-scenario-file").addEventListener("change", async (event) => {
    const file = /** @type {HTMLInputElement} */ (event.target).files[0];
    /** @type {HTMLInputElement} */ (event.target).value = "";
    if (!file) return;
    $("requirements-json").value = await file.text();
    await fromJson();
  });

  $("requirements-json").value = JSON.stringify(scenario, null, 2);
  fillForm();
  fillSettings();
  await check($("requirements-json").value);

  // --- 2. The library: built-in or uploaded LangBiTe files, browsed with filters. ---
  async function browse() {
    try {
      const b = await call("requirementsBrowse", {
        language: $("requirements-f-language").value, concern: $("requirements-f-concern").value, input_type: $("requirements-f-input").value,
        reflection_type: $("requirements-f-reflection").value, text: $("requirements-f-text").value, limit: 200,
      });
      const keep = (id) => $(id).value;
      const [lang, concern] = [keep("requirements-f-language"), keep("requirements-f-concern")];
      options($("requirements-f-language"), ["", ...b.languages], ["all", ...b.languages]);
      options($("requirements-f-concern"), ["", ...b.concerns], ["all", ...b.concerns]);
      $("requirements-f-language").value = b.languages.includes(lang) ? lang : "";
      $("requirements-f-concern").value = b.concerns.includes(concern) ? concern : "";
      $("requirements-library-source").textContent = b.source === "built-in"
        ? "The built-in library (six languages, eight concerns)" : `In use: ${b.source}`;
      $("requirements-browse-count").textContent = b.total > b.rows.length
        ? `${b.total} templates match; the first ${b.rows.length} are shown.` : `${plural(b.total, "template")} match.`;
      $("requirements-browse").tBodies[0].replaceChildren(...b.rows.map((r) => el("tr", {},
        [r.language, r.id, r.concern, r.input_type, r.reflection_type, r.prompt, `${r.oracle} ${r.prediction}`]
          .map((c) => el("td", { text: c })))));
    } catch (err) {
      showIn($("requirements-library-result"), alert(el("p", { text: errorMessage(err) })));
    }
  }
  let browseTimer;
  $("requirements-browse-form").addEventListener("input", () => {
    clearTimeout(browseTimer);
    browseTimer = setTimeout(browse, CHECK_DELAY_MS);
  });
  $("requirements-browse-form").addEventListener("submit", (e) => e.preventDefault());
  $("requirements-use-builtin").addEventListener("click", async () => {
    await call("requirementsUseBuiltin");
    showIn($("requirements-library-result"));
    await browse();
  });
  $("requirements-lib-file").addEventListener("change", async (event) => {
    const file = /** @type {HTMLInputElement} */ (event.target).files[0];
    /** @type {HTMLInputElement} */ (event.target).value = "";
    if (!file) return;
    const language = $("requirements-lib-language").value.trim();
    try {
      const warnings = await call("requirementsLoadLibrary", language, file.name, await file.arrayBuffer());
      showIn($("requirements-library-result"), el("p", { class: "success", role: "status", text: `${file.name} loaded for ${language}.` }),
        warnings.length ? el("div", { class: "warning" }, el("p", { text: `${plural(warnings.length, "warning")}:` }),
          el("ul", { class: "problems" }, warnings.slice(0, 50).map((p) => el("li", { text: `${p.file} ${describeProblem(p)}` })))) : null);
      await browse();
    } catch (err) {
      showIn($("requirements-library-result"), alert(el("p", { text: errorMessage(err) }), el("p", { text: "The libraries in use are unchanged." })));
    }
  });
  await browse();

  // --- 3. Preview and 4. run. ---
  function planQuery() {
    const models = $("requirements-models").value.split(",").map((m) => m.trim()).filter(Boolean);
    if (!models.length) throw new Error("Models: name at least one (sim-model for the simulated model).");
    return { models, samples: number("requirements-samples", "Samples", 1, 100, true), seed: number("requirements-seed", "Seed", 0, 2 ** 53, true), first: 20, run_id: "requirements" };
  }

  $("requirements-preview-form").addEventListener("submit", (event) => {
    event.preventDefault();
    busy($("requirements-preview"), async () => {
      try {
        const p = await call("requirementsPreview", planQuery());
        showIn($("requirements-preview-error"));
        showIn($("requirements-preview-result"),
          el("p", { class: "success", role: "status", id: "requirements-preview-summary",
            text: `${plural(p.instances, "prompt")}, ${p.samples} sample${p.samples === 1 ? "" : "s"} each: ` +
              `${plural(p.calls_per_model, "call")} per model, ${plural(p.total_calls, "call")} for ${plural(p.models.length, "model")} (${p.models.join(", ")}).` }),
          table(["Concern", "Language", "Prompts"], p.counts.map((c) => [c.concern, c.language, String(c.instances)])),
          el("p", { text: `The first ${p.first.length} prompts:` }),
          table(["Language", "Template", "Communities", "Prompt"], p.first.map((i) =>
            [i.language, i.template_id, Object.values(i.communities).join(", "), i.prompt])),
          p.warnings.length ? el("div", { class: "warning" }, el("ul", { class: "problems" },
            p.warnings.slice(0, 30).map((w) => el("li", { text: describeProblem(w) })))) : null);
      } catch (err) {
        showIn($("requirements-preview-error"), errorMessage(err));
      }
    });
  });

  const results = createRequirementResults(call);
  createNliPanel("requirements-nli", {
    items: () => call("requirementsNliItems"),
    write: (batch) => call("requirementsAddNli", batch),
    empty: "No answered records are loaded: run the simulated model or load records first.",
    compared: "“NLI model” is now offered as the refusal detector under Results.",
    async after() {
      await results.offerDetectors();
      return [];
    },
  });

  $("requirements-run-form").addEventListener("submit", (event) => {
    event.preventDefault();
    busy($("requirements-run"), async () => {
      try {
        const sim = {
          bias: number("requirements-bias", "Simulated bias", 0, 1), refusal: number("requirements-refusal", "Simulated refusals", 0, 1),
          seed: number("requirements-sim-seed", "Seed of the simulated model", 0, 2 ** 53, true), community: communityRates($("requirements-community-bias").value),
        };
        const planned = await call("requirementsPlan", planQuery());
        const answered = await call("requirementsSimulate", sim);
        showIn($("requirements-run-error"));
        showIn($("requirements-run-result"), el("p", { class: "success", role: "status", id: "requirements-run-summary",
          text: `The simulated model answered ${answered} of ${plural(planned, "planned call")}.` }));
        await results.evaluate();
      } catch (err) {
        showIn($("requirements-run-error"), errorMessage(err));
      }
    });
  });
  $("requirements-cases-download").addEventListener("click", async () => {
    try {
      await call("requirementsPlan", planQuery());
      download("requirements-cases.jsonl", await call("requirementsRecordsJsonl"), "application/jsonl");
      showIn($("requirements-run-error"));
      showIn($("requirements-run-result"), el("p", { role: "status",
        text: "Run the downloaded cases in the Run tab (cases file), export its records, and load them below." }));
    } catch (err) {
      showIn($("requirements-run-error"), errorMessage(err));
    }
  });
  $("requirements-cases-run").addEventListener("click", async () => {
    try {
      const n = await call("requirementsPlan", planQuery());
      const text = await call("requirementsRecordsJsonl");
      showIn($("requirements-run-error"));
      showIn($("requirements-run-result"), el("p", { role: "status", text: `${plural(n, "case")} handed to the Run tab.` }));
      handToRun({ origin: "requirements-chat", kind: "chat", name: "requirements-cases.jsonl", text,
        label: `From the Requirements tab: ${plural(n, "prompt")} (one chat call each)` });
    } catch (err) {
      showIn($("requirements-run-error"), errorMessage(err));
    }
  });
  // What a run in the Run tab gave back: the records (evaluated at once) or the judge's replies.
  onRequirementsData(async ({ what, result, message, scenario: text }) => {
    if (what === "judge") {
      results.showJudge(result);
      return;
    }
    if (text) {
      $("requirements-json").value = text;
      await fromJson();
    }
    showIn($("requirements-run-result"), el("p", { class: "success", role: "status", id: "requirements-run-summary",
      text: message ?? `${plural(result.records, "record")} came back from the Run tab.` }));
    await results.evaluate();
  });
  $("requirements-records-file").addEventListener("change", async (event) => {
    const file = /** @type {HTMLInputElement} */ (event.target).files[0];
    /** @type {HTMLInputElement} */ (event.target).value = "";
    if (!file) return;
    try {
      const r = await call("requirementsLoadRecords", file.name, await readFile(file, $("requirements-run-result")));
      showIn($("requirements-run-result"), el("p", { class: "success", role: "status", text: `${file.name}: ${plural(r.records, "record")} loaded.` }),
        r.problems.length ? el("div", { class: "warning" }, el("p", { text: `${plural(r.problems.length, "row")} could not be read:` }),
          el("ul", { class: "problems" }, r.problems.slice(0, 30).map((p) => el("li", { text: describeProblem(p) })))) : null);
      await results.evaluate();
    } catch (err) {
      showIn($("requirements-run-result"), alert(el("p", { text: errorMessage(err) }), el("p", { text: "The records loaded earlier are kept." })));
    }
  });
  // The file inputs start disabled: a file picked before the listeners above exist would be
  // dropped without a word (the tab sets itself up through worker calls first).
  for (const input of $("panel-requirements").querySelectorAll("input[data-until-ready]")) {
    /** @type {HTMLInputElement} */ (input).disabled = false;
  }
  $("panel-requirements").dataset.ready = "1";
}
