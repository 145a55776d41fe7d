// Evenhand's page: wires the tabs to the worker that holds the wasm. The main thread never
// imports the wasm; every computation is a call into the worker (rpc.js).
import { $, el, errorMessage, problemList, showIn } from "./dom.js";
import { connect } from "./rpc.js";
import { setupTabs } from "./tabs.js";
import { setupMenu } from "./menu.js";
import { setupRouter } from "./router.js";
import { describeReproduction, openBundleUrl } from "./bundles.js";
import { createResults } from "./views/results.js";
import { createDesign } from "./views/design.js";
import { createUpload } from "./views/upload.js";
import { createBatch } from "./views/batch.js";
import { createShare } from "./views/share.js";
import { createBenchmarks } from "./views/benchmarks.js";
import { createDatasets } from "./views/datasets.js";
import { createDivergence } from "./views/divergence.js";
import { createCrosslingual } from "./views/crosslingual.js";
import { createRun, startRunWorker } from "./views/run.js";
import { createStudy } from "./views/study.js";
import { createRequirements } from "./views/requirements.js";
import { buildLabel, loadBuildInfo } from "./build-info.js";
import { registerOffline } from "./offline.js";

// Started by engine.js, so the wasm downloads and the demo computes while the page's modules load.
/** @type {Worker} */
const worker = /** @type {any} */ (globalThis).evenhandWorker ?? new Worker(new URL("./worker.js", import.meta.url), { type: "module" });
/** @type {import("./rpc.js").AnalysisCall} */
const call = connect(worker);
// The tools' own calls on load (their forms' choices, their built-in sets) need the full wasm
// module, which the first load leaves out (worker.js): they wait until the demo's chart is drawn,
// so the home screen does not share the network and the CPU with them.
/** @type {(value?: unknown) => void} */
let firstResults;
const shown = new Promise((resolve) => { firstResults = resolve; });
const afterFirstResults = /** @type {import("./rpc.js").AnalysisCall} */ (/** @type {any} */ (
  (op, ...args) => shown.then(() => call(op, ...args))));
// A tab chosen in the tools goes into the address (#tools/<tab>), so it can be bookmarked.
const tabs = setupTabs(document.querySelector('[role="tablist"]'), (name) => {
  if (location.hash !== `#tools/${name}`) location.hash = `tools/${name}`;
});
const showTab = tabs.show;
setupMenu($("tools-menu-button"), $("tools-menu"));

// The run engine's worker starts once the page is ready (startRuns); the study flow waits for it.
/** @type {(engine: {worker: Worker, runCall: import("./rpc.js").RunCall}) => void} */
let engineStarted;
const engine = new Promise((resolve) => { engineStarted = resolve; });
let study = null;
// The study view is built on first use: the home screen and the tools do not wait for it.
const theStudy = () => (study ??= createStudy(call, () => engine, (hash) => go(hash)));
const go = setupRouter({ selectTab: tabs.select, onStudy: (step) => theStudy().route(step) });
$("home-study-file").addEventListener("change", () => theStudy().openFile($("home-study-file"), $("home-error")));

/** A message at the top of Results: kind "ok" or "error". */
function notice(kind, ...content) {
  const box = $("notice");
  box.className = `notice ${kind}`;
  box.setAttribute("role", kind === "error" ? "alert" : "status");
  showIn(box, content);
}

/** Opens what the address asks for: a share link (#v1.…) or a bundle (?bundle=<url>). */
async function openFromAddress() {
  const hash = location.hash;
  if (hash.startsWith("#v1.")) {
    try {
      await call("openShare", hash.slice(1));
      notice("ok", el("p", { text: "Opened the shared experiment from the link." }));
    } catch (err) {
      notice("error", el("p", { text: `This share link could not be opened: ${errorMessage(err)}` }),
        el("p", { text: "The built-in demo is shown instead." }));
    }
    return;
  }
  const address = new URLSearchParams(location.search).get("bundle");
  if (!address) return;
  try {
    const summary = await openBundleUrl(call, address);
    notice("ok", el("p", { text: `Opened the bundle ${address}: ${summary.records} records. ${describeReproduction(summary)}` }),
      summary.problems.length ? problemList(summary.problems) : null);
  } catch (err) {
    notice("error", el("p", { text: `The bundle could not be opened. ${errorMessage(err)}` }),
      el("p", { text: "The built-in demo is shown instead." }));
  }
}

async function boot() {
  const info = await call("info");
  const build = await loadBuildInfo(info.version);
  $("version").textContent = buildLabel();
  registerOffline(build.build); // not awaited: offline use must not delay the first results
  const results = createResults(call, info.groupFields);
  let design;

  // After the data changed: Results, and the Design form when the data is a simulation.
  async function refresh() {
    await results.render();
    const experiment = await call("experiment");
    if (experiment) design.fill(experiment);
  }

  async function run(experiment) {
    const count = await call("run", experiment);
    $("notice").hidden = true;
    $("run-status").textContent = `The simulated model answered ${count} prompts.`;
    await refresh();
    showTab("results");
  }

  design = createDesign(call, info.defaultExperiment, run);
  design.fill(info.defaultExperiment);
  createUpload(call, info.fields, refresh);
  createBatch(call, refresh);
  createShare(call);
  createBenchmarks(afterFirstResults); // holds its own session in the worker; nothing to compute until asked
  createDatasets(afterFirstResults).catch((err) => {
    showIn($("datasets-error"), `The Datasets tab could not start: ${errorMessage(err)}`);
    $("panel-datasets").dataset.ready = "error";
  });
  createDivergence(afterFirstResults); // likewise; loads its built-in probe set in the background
  createCrosslingual(afterFirstResults); // likewise
  createRequirements(afterFirstResults).catch((err) => {
    showIn($("requirements-validation"), el("div", { class: "alert", role: "alert", text: `The Requirements tab could not start: ${errorMessage(err)}` }));
    $("panel-requirements").dataset.ready = "error";
  });

  $("run-simulated").addEventListener("click", async () => {
    const button = $("run-simulated");
    button.disabled = true;
    $("run-busy").hidden = false;
    showIn($("run-error"));
    try {
      await run(design.read());
    } catch (err) {
      showIn($("run-error"), `${errorMessage(err)} (change it in the Design tab)`);
    } finally {
      button.disabled = false;
      $("run-busy").hidden = true;
    }
  });

  // A share link pasted into this tab's address bar changes only the fragment.
  window.addEventListener("hashchange", async () => {
    if (!location.hash.startsWith("#v1.")) return;
    await openFromAddress();
    await refresh();
    showTab("results");
  });

  await openFromAddress();
  await refresh();
  return refresh;
}

/** Provider runs have their own worker and wasm; started once the page is ready, so they do not
 *  delay the first results, and a failure there does not stop the rest of the page. */
function startRuns(refresh) {
  const started = startRunWorker();
  engineStarted(started);
  createRun(call, async () => {
    await refresh();
    showTab("results");
  }, started).then(
    () => { $("panel-run").dataset.ready = "1"; },
    (err) => {
      showIn($("run-plan-error"), `Runs against providers are unavailable: ${errorMessage(err)}`);
      $("panel-run").dataset.ready = "error";
    },
  );
}

boot().then(
  (refresh) => {
    document.body.dataset.readyMs = String(Math.round(performance.now()));
    document.body.dataset.ready = "1";
    firstResults();
    startRuns(refresh);
  },
  (err) => {
    notice("error", el("p", { text: `Evenhand could not start: ${errorMessage(err)}` }));
    document.body.dataset.ready = "error";
    firstResults(); // the tools may still work without the demo
  },
);
