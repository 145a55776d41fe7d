// The module worker that holds the wasm, the one open Workspace and the one bias-benchmark
// session (BBQ, GG-BBQ, KoBBQ). All computation happens here so the page stays responsive;
// the main thread talks to it through rpc.js.
import init, { Workspace, BbqSession, DivergenceSession, XlingSession, ReqSession, version, record_fields, default_experiment, group_fields, power_curve, power_chart, batch_export } from "./pkg/evenhand.js";

let ws;
let session; // made on first use, so the demo on load does not wait for it
const bbq = () => (session ??= new BbqSession());
let divergence; // the Divergence tab's session, made on first use
const cd = () => (divergence ??= new DivergenceSession());
let xlingSession;
const xling = () => (xlingSession ??= new XlingSession());
let reqSession; // the Requirements tab's session
const rq = () => (reqSession ??= new ReqSession());
const ready = init().then(
  () => {
    ws = new Workspace(); // opens on the built-in demo
  },
  (error) => {
    throw new Error(`the analysis engine (wasm) could not be loaded: ${error.message ?? error}`);
  },
);

// Byte arrays arrive as ArrayBuffers or typed arrays; the wasm wants a Uint8Array.
const bytes = (b) => (b instanceof Uint8Array ? b : new Uint8Array(b));

const ops = {
  info: () => ({
    version: version(),
    fields: record_fields(),
    groupFields: group_fields(),
    defaultExperiment: default_experiment(),
  }),
  view: () => ws.view(),
  rows: (query) => ws.rows(query),
  run: (experiment) => ws.run(experiment),
  load: (name, data, mapping) => ws.load(name, bytes(data), mapping ?? null),
  settings: () => ws.settings(),
  setSettings: (settings) => ws.set_settings(settings),
  export: (format) => ws.export(format),
  bundle: () => ws.bundle(),
  openBundle: (name, text, recordsName, recordsData) =>
    ws.open_bundle(name, text, recordsName ?? undefined, recordsData ? bytes(recordsData) : undefined),
  bundleRecordsUrl: (text) => Workspace.bundle_records_url(text) ?? null,
  shareFragment: () => ws.share_fragment(),
  openShare: (fragment) => ws.open_share(fragment),
  experiment: () => ws.experiment(),
  powerCurve: (query) => power_curve(query),
  powerChart: (query, points) => power_chart(query, points),

  // The Benchmarks tab.
  bbqVariants: () => BbqSession.prompt_variants(),
  bbqAddData: (name, data) => bbq().add_data(name, bytes(data)),
  bbqUseBuiltin: (seed, languages) => bbq().use_builtin(seed, languages),
  bbqClear: () => bbq().clear(),
  bbqAddPredictions: (name, data, format) => bbq().add_predictions(name, bytes(data), format ?? undefined),
  bbqSimulate: (request) => bbq().simulate(request),
  bbqSetBootstrap: (settings) => bbq().set_bootstrap(settings),
  bbqView: () => bbq().view(),
  bbqRows: (query) => bbq().rows(query ?? null),

  // The Divergence tab.
  cdUseBuiltin: (id) => cd().use_builtin(id),
  cdLoadProbes: (name, data) => cd().load_probes(name, bytes(data)),
  cdAddReference: (culture, aspect, name, data, shape, columns) =>
    cd().add_reference(culture, aspect, name, bytes(data), shape ?? undefined, columns ?? null),
  cdClearReferences: () => cd().clear_references(),
  cdLoadLogprobs: (name, data) => cd().load_logprobs(name, bytes(data)),
  cdLoadRecords: (name, data) => cd().load_records(name, bytes(data)),
  cdSimulate: (request) => cd().simulate(request),
  cdAnalyze: (settings) => cd().analyze(settings),
  cdChart: (model, context) => cd().chart(model, context),
  cdState: () => cd().state(),
  cdDataCsv: () => cd().data_csv(),
  cdExport: (format) => cd().export(format),

  // The Cross-lingual tab. A simulated run is planned once and then stepped, so the page can
  // show progress and cancel between steps.
  xlUseBuiltin: () => xling().use_builtin(),
  xlLoadQuestions: (name, data) => xling().load_questions(name, bytes(data)),
  xlPlanRun: (request) => xling().plan_run(request),
  xlStep: (cases) => xling().step(cases),
  xlCancel: () => xling().cancel(),
  xlLoadRecords: (name, data) => xling().load_records(name, bytes(data)),
  xlUseReferences: () => xling().use_references(),
  xlLoadEmbeddings: (name, data) => xling().load_embeddings(name, bytes(data)),
  xlSetSettings: (settings) => xling().set_settings(settings),
  xlSettings: () => xling().settings(),
  xlView: () => ({ ...xling().view(), distances: xling().distances() ?? null }),
  xlExport: (format) => xling().export(format),
  xlPermPlan: (settings) => xling().permanova_plan(settings),
  xlPermStep: (tests) => xling().permanova_step(tests),
  xlPermCancel: () => xling().permanova_cancel(),
  // Provider runs (the run engine sends them): cases out, records and vectors back.
  xlRunCases: (request) => xling().run_cases(request),
  xlEmbedItems: () => xling().embed_items(),
  xlAddEmbeddings: (batch) => xling().add_embeddings(batch),
  xlClearEmbeddings: () => xling().clear_embeddings(),
  xlJudgeCases: () => xling().judge_cases(),
  xlLoadJudge: (name, data) => xling().load_judge(name, bytes(data)),
  // The Run tab's inputs (JSONL) and what comes back: an embedding run's vectors replace the
  // earlier ones; a judge run's records become verdicts (xlLoadJudge).
  xlEmbedTexts: (all) => xling().embed_texts(Boolean(all)),
  xlUseEmbeddingRun: (batch) => xling().use_embedding_run(batch),
  xlJudgeJsonl: () => xling().judge_cases_jsonl(),
  xlLoadDistances: (name, data) => xling().load_distances(name, bytes(data)),
  // Provider cases as a JSONL file for the Run tab.
  xlCasesJsonl: (request) => xling().run_cases_jsonl(request),
  // The divergence session writes record-table JSON already; one row per line is JSONL.
  cdCasesJsonl: (mode) => JSON.parse(cd().run_cases(mode)).map((r) => JSON.stringify(r)).join("\n") + "\n",

  // The Requirements tab.
  rqDefaultScenario: () => ReqSession.default_scenario(),
  rqCatalogue: () => rq().catalogue(),
  rqSetScenario: (text) => rq().set_scenario(text),
  rqLoadLibrary: (language, name, data) => rq().load_library(language, name, bytes(data)),
  rqUseBuiltin: () => rq().use_builtin(),
  rqBrowse: (query) => rq().browse(query),
  rqPreview: (query) => rq().preview(query),
  rqPlan: (query) => rq().plan(query),
  rqSimulate: (settings) => rq().simulate(settings),
  rqLoadRecords: (name, data) => rq().load_records(name, bytes(data)),
  rqRecordsJsonl: () => rq().records_jsonl(),
  rqEvaluate: (query) => rq().evaluate(query),
  rqFiles: (timestamp) => rq().files(timestamp),
  rqJudgeCases: (perOutcome, seed) => rq().judge_cases(perOutcome, seed),
  rqLoadJudge: (name, data) => rq().load_judge(name, bytes(data)),
  rqLoadReport: (name, text) => rq().load_report(name, text),
  rqClearReports: () => rq().clear_reports(),
  rqReportsView: (confidence) => rq().reports_view(confidence),

  // The batch route (Upload tab): provider batch files out, their results into the workspace.
  batchExport: (settings, name, data) => batch_export(settings, name, bytes(data)),
  batchImport: (settings, casesName, casesData, resultsName, resultsData) =>
    ws.batch_import(settings, casesName, bytes(casesData), resultsName, bytes(resultsData)),
};

// Errors from the wasm are plain {kind, message, detail} objects; anything else (a JS
// exception, a panic) is turned into the same shape so it survives postMessage.
function plain(error) {
  if (error && typeof error === "object" && "message" in error && !(error instanceof Error)) return error;
  return { kind: "internal", message: String(error && error.message ? error.message : error), detail: null };
}

self.addEventListener("message", async ({ data: { id, op, args } }) => {
  try {
    await ready;
    if (!Object.hasOwn(ops, op)) throw new Error(`unknown operation ${op}`);
    self.postMessage({ id, ok: true, value: ops[op](...(args ?? [])) });
  } catch (error) {
    self.postMessage({ id, ok: false, error: plain(error) });
  }
});
