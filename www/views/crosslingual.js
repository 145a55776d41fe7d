// The Cross-lingual tab: a question set (built-in or uploaded, Evenhand or MSQAD JSON), a run
// on the simulated model (stepped in the worker, with progress and cancel) or an uploaded
// record file, then the dashboard (crosslingual-dashboard.js). The worker holds one XlingSession.
import { $, download, el, errorMessage, plural, showIn } from "../dom.js";
import { buildLabel } from "../build-info.js";
import { createXlingDashboard } from "./crosslingual-dashboard.js";
import { createXlingRuns } from "./crosslingual-runs.js";
import { handToRun } from "../handover.js";

// Cases per worker call: small enough for a smooth progress bar, large enough to be quick.
const STEP_CASES = 12;
const DEFAULT_MODES = ["non_acceptable"];

const alert = (...content) => el("div", { class: "alert", role: "alert" }, ...content);
const checked = (box) => [...box.querySelectorAll("input:checked")].map((b) => b.value);

function checkboxes(box, name, values, on) {
  box.replaceChildren(...values.map((v) => {
    const id = `xl-${name}-${v}`;
    return el("span", { class: "check" },
      el("input", { type: "checkbox", id, value: v, checked: on(v) }), " ", el("label", { for: id, text: v }));
  }));
}

function wholeNumber(id, name, min, max) {
  const text = $(id).value.trim();
  const x = Number(text);
  if (!/^\d+$/.test(text) || x < min || x > max) throw new Error(`${name}: expected a whole number from ${min} to ${max}, found "${text}"`);
  return x;
}

export function createXlingSetup(call, onData) {
  let cancelled = false;
  let running = false;

  function showSet(s) {
    checkboxes($("xl-languages"), "lang", s.languages, () => true);
    const modes = s.modes.some((m) => DEFAULT_MODES.includes(m)) ? DEFAULT_MODES : s.modes.slice(0, 1);
    checkboxes($("xl-modes"), "mode", s.modes, (m) => modes.includes(m));
    showIn($("xl-set-result"), el("p", { class: "success", role: "status",
      text: `${s.name || s.file} (${s.source_format}): ${plural(s.questions, "question")} in ${s.languages.join(", ")}; ` +
        `topics: ${s.topics.join(", ")}.` }));
  }

  async function useBuiltin() {
    try {
      showSet(await call("xlUseBuiltin"));
    } catch (err) {
      showIn($("xl-set-result"), alert(el("p", { text: errorMessage(err) })));
    }
  }

  $("xl-builtin").addEventListener("click", useBuiltin);
  $("xl-questions-file").addEventListener("change", async (event) => {
    const file = event.target.files[0];
    event.target.value = "";
    if (!file) return;
    try {
      showSet(await call("xlLoadQuestions", file.name, await file.arrayBuffer()));
    } catch (err) {
      showIn($("xl-set-result"), alert(el("p", { text: errorMessage(err) }), el("p", { text: "The earlier question set is kept." })));
    }
  });

  $("xl-cancel").addEventListener("click", () => {
    cancelled = true;
  });

  async function providerCases() {
    const languages = checked($("xl-languages"));
    const modes = checked($("xl-modes"));
    if (languages.length < 2) throw new Error("Choose at least two languages.");
    if (modes.length === 0) throw new Error("Choose at least one prompt mode.");
    return call("xlCasesJsonl", { languages, modes });
  }
  $("xl-cases-download").addEventListener("click", async () => {
    try {
      download("crosslingual-cases.jsonl", await providerCases(), "application/jsonl");
      showIn($("xl-run-error"));
    } catch (err) {
      showIn($("xl-run-error"), errorMessage(err));
    }
  });
  $("xl-cases-run").addEventListener("click", async () => {
    try {
      const text = await providerCases();
      const n = text.split("\n").filter((l) => l.trim()).length;
      showIn($("xl-run-error"));
      handToRun({ origin: "crosslingual-chat", kind: "chat", name: "crosslingual-cases.jsonl", text,
        label: `From the Cross-lingual tab: ${plural(n, "case")} (the questions in the chosen languages and modes)` });
    } catch (err) {
      showIn($("xl-run-error"), errorMessage(err));
    }
  });

  $("xl-run-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    if (running) return;
    let request;
    try {
      const languages = checked($("xl-languages"));
      const modes = checked($("xl-modes"));
      if (languages.length < 2) throw new Error("Choose at least two languages.");
      if (modes.length === 0) throw new Error("Choose at least one prompt mode.");
      request = { languages, modes, samples: wholeNumber("xl-samples", "Samples", 1, 1000), seed: wholeNumber("xl-seed", "Seed", 0, 2 ** 32 - 1) };
    } catch (err) {
      showIn($("xl-run-error"), err.message);
      return;
    }
    showIn($("xl-run-error"));
    running = true;
    cancelled = false;
    $("xl-run").disabled = true;
    $("xl-busy").hidden = false;
    const progress = $("xl-progress");
    try {
      let p = await call("xlPlanRun", request);
      progress.max = p.total;
      while (p.done < p.total) {
        if (cancelled) {
          await call("xlCancel");
          showIn($("xl-run-result"), el("p", { role: "status", text: `Cancelled after ${p.done} of ${p.total} calls; the earlier results are kept.` }));
          return;
        }
        p = await call("xlStep", STEP_CASES);
        progress.value = p.done;
        $("xl-status").textContent = `${p.done} of ${p.total} simulated calls`;
      }
      showIn($("xl-run-result"), el("p", { class: "success", role: "status",
        text: `The simulated model answered ${plural(p.total, "prompt")} (seed ${request.seed}).` }));
      await onData({ seed: request.seed, modes: request.modes });
    } catch (err) {
      showIn($("xl-run-error"), errorMessage(err));
    } finally {
      running = false;
      $("xl-run").disabled = false;
      $("xl-busy").hidden = true;
    }
  });

  $("xl-references").addEventListener("click", async () => {
    const box = $("xl-upload-result");
    try {
      const s = await call("xlUseReferences");
      showIn(box, el("p", { class: "success", role: "status", text: `${s.file}: ${plural(s.used, "reference response")} to analyze.` }));
      await onData({ modes: [] });
    } catch (err) {
      showIn(box, alert(el("p", { text: errorMessage(err) })));
    }
  });

  $("xl-records-file").addEventListener("change", async (event) => {
    const file = event.target.files[0];
    event.target.value = "";
    if (!file) return;
    const box = $("xl-upload-result");
    try {
      const s = await call("xlLoadRecords", file.name, await file.arrayBuffer());
      showIn(box, el("p", { class: "success", role: "status",
        text: `${file.name}: ${plural(s.used, "cross-lingual record")} of ${s.records} loaded.` }),
      s.problems.length ? alert(el("p", { text: `${plural(s.problems.length, "row")} could not be read:` }),
        el("ul", { class: "problems" }, s.problems.slice(0, 50).map((p) => el("li", { text: `${p.line ? `line ${p.line}: ` : ""}${p.message}` })))) : null);
      await onData({ modes: [] });
    } catch (err) {
      showIn(box, alert(el("p", { text: errorMessage(err) })));
    }
  });

  $("xl-embeddings-file").addEventListener("change", async (event) => {
    const file = event.target.files[0];
    event.target.value = "";
    if (!file) return;
    const box = $("xl-upload-result");
    try {
      const n = await call("xlLoadEmbeddings", file.name, await file.arrayBuffer());
      showIn(box, el("p", { class: "success", role: "status", text: `${file.name}: ${plural(n, "record")} got an embedding.` }));
      await onData(null);
    } catch (err) {
      showIn(box, alert(el("p", { text: errorMessage(err) })));
    }
  });

  return { useBuiltin };
}

export function createCrosslingual(call) {
  let last = null;
  const dashboard = createXlingDashboard();

  function readSettings(base) {
    const alpha = Number($("xl-alpha").value);
    if (!(alpha > 0 && alpha < 1)) throw new Error(`α: expected a number between 0 and 1, found "${$("xl-alpha").value}"`);
    return { ...base, method: $("xl-method").value, convention: $("xl-convention").value, detector: $("xl-detector").value, alpha };
  }

  async function refresh(change) {
    try {
      const current = await call("xlSettings");
      const base = change ? { ...current, ...change } : current;
      await call("xlSetSettings", readSettings(base));
      showIn($("xl-settings-error"));
    } catch (err) {
      showIn($("xl-settings-error"), errorMessage(err));
      return;
    }
    try {
      last = await call("xlView");
      dashboard.render(last);
      showIn($("xl-view-error"));
    } catch (err) {
      showIn($("xl-view-error"), `The results could not be computed: ${errorMessage(err)}`);
    }
  }

  const setup = createXlingSetup(call, refresh);
  createXlingRuns(call, refresh);

  // PERMANOVA: one test per worker call, so the progress bar moves and Cancel is heard.
  let permCancelled = false;
  $("xl-perm-cancel").addEventListener("click", () => { permCancelled = true; });
  $("xl-perm-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    let settings;
    try {
      settings = { distance: $("xl-perm-distance").value, permutations: wholeNumber("xl-perm-permutations", "Permutations", 1, 100000),
        seed: wholeNumber("xl-perm-seed", "Permutation seed", 0, 2 ** 32 - 1), matrix: $("xl-perm-source").value === "matrix" };
    } catch (err) {
      showIn($("xl-perm-error"), err.message);
      return;
    }
    showIn($("xl-perm-error"));
    permCancelled = false;
    $("xl-perm-run").disabled = true;
    $("xl-perm-busy").hidden = false;
    const progress = $("xl-perm-progress");
    try {
      let p = await call("xlPermPlan", settings);
      progress.max = p.total;
      while (p.done < p.total) {
        if (permCancelled) {
          await call("xlPermCancel");
          showIn($("xl-perm-error"), `Cancelled after ${p.done} of ${p.total} tests; nothing was kept (corrections need the whole family).`);
          return;
        }
        p = await call("xlPermStep", 1);
        progress.value = p.done;
        $("xl-perm-status").textContent = `${p.done} of ${p.total} tests`;
      }
      last = await call("xlView");
      dashboard.render(last);
    } catch (err) {
      showIn($("xl-perm-error"), errorMessage(err));
    } finally {
      $("xl-perm-run").disabled = false;
      $("xl-perm-busy").hidden = true;
    }
  });
  for (const id of ["xl-method", "xl-convention", "xl-detector", "xl-alpha"]) $(id).addEventListener("change", () => refresh(null));
  $("xl-dl-csv").addEventListener("click", async () => download("crosslingual-records.csv", await call("xlExport", "csv"), "text/csv"));
  $("xl-dl-embeddings").addEventListener("click", async () =>
    download("crosslingual-embeddings.jsonl", await call("xlExport", "embeddings"), "application/x-ndjson"));
  $("xl-dl-analysis").addEventListener("click", () => {
    if (last) download("crosslingual-analysis.json", JSON.stringify({ generator: buildLabel(), ...last.report }, null, 2), "application/json");
  });
  setup.useBuiltin();
}
