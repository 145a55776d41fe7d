// The Cross-lingual tab: a question set (built-in or uploaded, Evenhand or MSQAD JSON), a run
// on the simulated model (stepped in the worker, with progress and cancel) or an uploaded
// record file, then the dashboard (crosslingual-dashboard.js). The worker holds one CrosslingualSession.
import { $, download, el, errorMessage, plural, showIn } from "../dom.js";
import { buildLabel } from "../build-info.js";
import { createCrosslingualDashboard } from "./crosslingual-dashboard.js";
import { createCrosslingualLabels } from "./crosslingual-labels.js";
import { createCrosslingualLocal } from "./crosslingual-local.js";
import { createCrosslingualNli } from "./crosslingual-nli.js";
import { createCrosslingualRuns } from "./crosslingual-runs.js";
import { handToRun } from "../handover.js";
import { readFile } from "../read-file.js";
import { runPermanova } from "../permanova-pool.js";

// Cases per worker call: small enough for a smooth progress bar, large enough to be quick.
const STEP_CASES = 12;
const DEFAULT_MODES = ["non_acceptable"];

const alert = (...content) => el("div", { class: "alert", role: "alert" }, ...content);
const checked = (box) => [...box.querySelectorAll("input:checked")].map((b) => b.value);

function checkboxes(box, name, values, on) {
  box.replaceChildren(...values.map((v) => {
    const id = `crosslingual-${name}-${v}`;
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

/** @param {import("../rpc.js").AnalysisCall} call */
export function createCrosslingualSetup(call, onData) {
  let cancelled = false;
  let running = false;

  function showSet(s) {
    checkboxes($("crosslingual-languages"), "lang", s.languages, () => true);
    const modes = s.modes.some((m) => DEFAULT_MODES.includes(m)) ? DEFAULT_MODES : s.modes.slice(0, 1);
    checkboxes($("crosslingual-modes"), "mode", s.modes, (m) => modes.includes(m));
    // MSQAD's files write missing values as a bare NaN; the reader takes them as missing and says how many.
    const nonfinite = s.nonfinite_values ? el("p", { class: "warning",
      text: `${plural(s.nonfinite_values, "bare NaN/Infinity value")} (not JSON; Python writes missing values so) read as missing.` }) : null;
    // Several files merged: a question whose id an earlier file gave is left out, and said.
    const duplicates = s.duplicates?.length ? el("div", { class: "warning", id: "crosslingual-duplicates" },
      el("p", { text: `${plural(s.duplicates.length, "question")} left out: ${s.duplicates.length === 1 ? "its id is" : "their ids are"} already given by an earlier file.` }),
      el("ul", {}, s.duplicates.slice(0, 20).map((d) => el("li", { text: `${d.file}: ${d.id} (kept from ${d.first_file})` })))) : null;
    showIn($("crosslingual-set-result"), el("p", { class: "success", role: "status",
      text: `${s.file.includes(" + ") ? s.file : s.name || s.file} (${s.source_format}): ${plural(s.questions, "question")} in ${s.languages.join(", ")}; ` +
        `topics: ${s.topics.join(", ")}.` }), nonfinite, duplicates);
  }

  async function useBuiltin() {
    try {
      showSet(await call("crosslingualUseBuiltin"));
    } catch (err) {
      showIn($("crosslingual-set-result"), alert(el("p", { text: errorMessage(err) })));
    }
  }

  $("crosslingual-builtin").addEventListener("click", useBuiltin);
  $("crosslingual-questions-file").addEventListener("change", async (event) => {
    const files = [...(/** @type {HTMLInputElement} */ (event.target).files ?? [])];
    /** @type {HTMLInputElement} */ (event.target).value = "";
    if (!files.length) return;
    try {
      // MSQAD has one file per topic: several are merged into one set.
      showSet(files.length === 1
        ? await call("crosslingualLoadQuestions", files[0].name, await files[0].arrayBuffer())
        : await call("crosslingualLoadQuestionFiles", files.map((f) => f.name), await Promise.all(files.map((f) => f.arrayBuffer()))));
    } catch (err) {
      showIn($("crosslingual-set-result"), alert(el("p", { text: errorMessage(err) }), el("p", { text: "The earlier question set is kept." })));
    }
  });

  $("crosslingual-cancel").addEventListener("click", () => {
    cancelled = true;
  });

  async function providerCases() {
    const languages = checked($("crosslingual-languages"));
    const modes = checked($("crosslingual-modes"));
    if (languages.length < 2) throw new Error("Choose at least two languages.");
    if (modes.length === 0) throw new Error("Choose at least one prompt mode.");
    return call("crosslingualCasesJsonl", { languages, modes });
  }
  $("crosslingual-cases-download").addEventListener("click", async () => {
    try {
      download("crosslingual-cases.jsonl", await providerCases(), "application/jsonl");
      showIn($("crosslingual-run-error"));
    } catch (err) {
      showIn($("crosslingual-run-error"), errorMessage(err));
    }
  });
  $("crosslingual-cases-run").addEventListener("click", async () => {
    try {
      const text = await providerCases();
      const n = text.split("\n").filter((l) => l.trim()).length;
      showIn($("crosslingual-run-error"));
      handToRun({ origin: "crosslingual-chat", kind: "chat", name: "crosslingual-cases.jsonl", text,
        label: `From the Cross-lingual tab: ${plural(n, "case")} (the questions in the chosen languages and modes)` });
    } catch (err) {
      showIn($("crosslingual-run-error"), errorMessage(err));
    }
  });

  $("crosslingual-run-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    if (running) return;
    let request;
    try {
      const languages = checked($("crosslingual-languages"));
      const modes = checked($("crosslingual-modes"));
      if (languages.length < 2) throw new Error("Choose at least two languages.");
      if (modes.length === 0) throw new Error("Choose at least one prompt mode.");
      request = { languages, modes, samples: wholeNumber("crosslingual-samples", "Samples", 1, 1000), seed: wholeNumber("crosslingual-seed", "Seed", 0, 2 ** 32 - 1) };
    } catch (err) {
      showIn($("crosslingual-run-error"), err.message);
      return;
    }
    showIn($("crosslingual-run-error"));
    running = true;
    cancelled = false;
    $("crosslingual-run").disabled = true;
    $("crosslingual-busy").hidden = false;
    const progress = $("crosslingual-progress");
    try {
      let p = await call("crosslingualPlanRun", request);
      progress.max = p.total;
      while (p.done < p.total) {
        if (cancelled) {
          await call("crosslingualCancel");
          showIn($("crosslingual-run-result"), el("p", { role: "status", text: `Cancelled after ${p.done} of ${p.total} calls; the earlier results are kept.` }));
          return;
        }
        p = await call("crosslingualStep", STEP_CASES);
        progress.value = p.done;
        $("crosslingual-status").textContent = `${p.done} of ${p.total} simulated calls`;
      }
      showIn($("crosslingual-run-result"), el("p", { class: "success", role: "status",
        text: `The simulated model answered ${plural(p.total, "prompt")} (seed ${request.seed}).` }));
      await onData({ seed: request.seed, modes: request.modes });
    } catch (err) {
      showIn($("crosslingual-run-error"), errorMessage(err));
    } finally {
      running = false;
      $("crosslingual-run").disabled = false;
      $("crosslingual-busy").hidden = true;
    }
  });

  $("crosslingual-references").addEventListener("click", async () => {
    const box = $("crosslingual-upload-result");
    try {
      const s = await call("crosslingualUseReferences");
      showIn(box, el("p", { class: "success", role: "status", text: `${s.file}: ${plural(s.used, "reference response")} to analyze.` }));
      await onData({ modes: [] });
    } catch (err) {
      showIn(box, alert(el("p", { text: errorMessage(err) })));
    }
  });

  $("crosslingual-records-file").addEventListener("change", async (event) => {
    const file = /** @type {HTMLInputElement} */ (event.target).files[0];
    /** @type {HTMLInputElement} */ (event.target).value = "";
    if (!file) return;
    const box = $("crosslingual-upload-result");
    try {
      const s = await call("crosslingualLoadRecords", file.name, await readFile(file, box));
      showIn(box, el("p", { class: "success", role: "status",
        text: `${file.name}: ${plural(s.used, "cross-lingual record")} of ${s.records} loaded.` }),
      s.problems.length ? alert(el("p", { text: `${plural(s.problems.length, "row")} could not be read:` }),
        el("ul", { class: "problems" }, s.problems.slice(0, 50).map((p) => el("li", { text: `${p.line ? `line ${p.line}: ` : ""}${p.message}` })))) : null);
      await onData({ modes: [] });
    } catch (err) {
      showIn(box, alert(el("p", { text: errorMessage(err) })));
    }
  });

  $("crosslingual-embeddings-file").addEventListener("change", async (event) => {
    const file = /** @type {HTMLInputElement} */ (event.target).files[0];
    /** @type {HTMLInputElement} */ (event.target).value = "";
    if (!file) return;
    const box = $("crosslingual-upload-result");
    try {
      const n = await call("crosslingualLoadEmbeddings", file.name, await readFile(file, box));
      showIn(box, el("p", { class: "success", role: "status", text: `${file.name}: ${plural(n, "record")} got an embedding.` }));
      await onData(null);
    } catch (err) {
      showIn(box, alert(el("p", { text: errorMessage(err) })));
    }
  });

  return { useBuiltin };
}

/** @param {import("../rpc.js").AnalysisCall} call */
export function createCrosslingual(call) {
  let last = null;
  const dashboard = createCrosslingualDashboard();
  const labels = createCrosslingualLabels(call, async () => {
    last = await call("crosslingualView");
    draw(last);
  });
  /** The dashboard and the labeller from one view. */
  function draw(view) {
    dashboard.render(view);
    labels.render(view);
  }

  function readSettings(base) {
    const alpha = Number($("crosslingual-alpha").value);
    if (!(alpha > 0 && alpha < 1)) throw new Error(`α: expected a number between 0 and 1, found "${$("crosslingual-alpha").value}"`);
    return { ...base, method: $("crosslingual-method").value, convention: $("crosslingual-convention").value, detector: $("crosslingual-detector").value, alpha };
  }

  async function refresh(change) {
    try {
      const current = await call("crosslingualSettings");
      const base = change ? { ...current, ...change } : current;
      await call("crosslingualSetSettings", readSettings(base));
      showIn($("crosslingual-settings-error"));
    } catch (err) {
      showIn($("crosslingual-settings-error"), errorMessage(err));
      return;
    }
    try {
      last = await call("crosslingualView");
      draw(last);
      showIn($("crosslingual-view-error"));
    } catch (err) {
      showIn($("crosslingual-view-error"), `The results could not be computed: ${errorMessage(err)}`);
    }
  }

  const setup = createCrosslingualSetup(call, refresh);
  createCrosslingualRuns(call, refresh);
  createCrosslingualLocal(call, refresh);
  createCrosslingualNli(call, refresh);

  // PERMANOVA: the worker's session hands out one test at a time; its permutations run on every
  // core in the PERMANOVA pool, and its report goes back to the session, which applies the
  // corrections after the last test. The bar counts permutations; Cancel is heard between chunks.
  /** @type {AbortController | null} */
  let permAbort = null;
  $("crosslingual-perm-cancel").addEventListener("click", () => permAbort?.abort());
  $("crosslingual-perm-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    let settings;
    try {
      settings = { distance: $("crosslingual-perm-distance").value, permutations: wholeNumber("crosslingual-perm-permutations", "Permutations", 1, 100000),
        seed: wholeNumber("crosslingual-perm-seed", "Permutation seed", 0, 2 ** 32 - 1), matrix: $("crosslingual-perm-source").value === "matrix" };
    } catch (err) {
      showIn($("crosslingual-perm-error"), err.message);
      return;
    }
    showIn($("crosslingual-perm-error"));
    const abort = (permAbort = new AbortController());
    $("crosslingual-perm-run").disabled = true;
    $("crosslingual-perm-busy").hidden = false;
    const progress = $("crosslingual-perm-progress");
    let p = { done: 0, total: 0 };
    const show = (tests, permutations) => {
      progress.value = tests * settings.permutations + permutations;
      $("crosslingual-perm-status").textContent = `${tests} of ${p.total} tests`;
    };
    try {
      p = await call("crosslingualPermPlan", settings);
      progress.max = p.total * settings.permutations;
      while (p.done < p.total) {
        abort.signal.throwIfAborted();
        const next = await call("crosslingualPermNext");
        if (!next.test) {
          p = next;
          break;
        }
        show(next.done, 0);
        const result = await runPermanova(next.query, next.values, { signal: abort.signal, onProgress: (done) => show(next.done, done) });
        p = await call("crosslingualPermTake", result);
        show(p.done, 0);
      }
      last = await call("crosslingualView");
      draw(last);
    } catch (err) {
      if (abort.signal.aborted) {
        await call("crosslingualPermCancel");
        showIn($("crosslingual-perm-error"), `Cancelled after ${p.done} of ${p.total} tests; nothing was kept (corrections need the whole family).`);
      } else {
        showIn($("crosslingual-perm-error"), errorMessage(err));
      }
    } finally {
      permAbort = null;
      $("crosslingual-perm-run").disabled = false;
      $("crosslingual-perm-busy").hidden = true;
    }
  });
  for (const id of ["crosslingual-method", "crosslingual-convention", "crosslingual-detector", "crosslingual-alpha"]) $(id).addEventListener("change", () => refresh(null));
  $("crosslingual-dl-csv").addEventListener("click", async () => download("crosslingual-records.csv", await call("crosslingualExport", "csv"), "text/csv"));
  $("crosslingual-dl-embeddings").addEventListener("click", async () =>
    download("crosslingual-embeddings.jsonl", await call("crosslingualExport", "embeddings"), "application/x-ndjson"));
  $("crosslingual-dl-analysis").addEventListener("click", () => {
    if (last) download("crosslingual-analysis.json", JSON.stringify({ generator: buildLabel(), ...last.report }, null, 2), "application/json");
  });
  setup.useBuiltin();
}
