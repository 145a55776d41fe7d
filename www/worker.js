// The module worker that holds the wasm, the one open Workspace and the one bias-benchmark
// session (BBQ, GG-BBQ, KoBBQ). All computation happens here so the page stays responsive;
// the main thread talks to it through rpc.js.
// Two wasm modules: the small first-load one (pkg/home.js: the demo's Workspace, enough for the
// home screen and the Results chart) and the full one (pkg/evenhand.js: every tool's session),
// fetched and compiled the first time a tool's operation arrives (`tools()`).
import init, { Workspace, version, record_fields, default_experiment, group_fields, power_curve, power_chart, batch_export, builtin_files } from "./pkg/home.js";
import { loadTools, plainError } from "./wasm-tools.js";

/** The full module, once loaded. @type {typeof import("./pkg/evenhand.js")} */
let T;
function tools() {
  return loadTools().then((full) => {
    T = full;
  });
}

// The tools' built-in datasets are not in the wasm either (src/builtin.rs): each tool's files
// are fetched from data/ the first time one of its operations arrives, the study's all of them,
// while the full module loads (the list comes from the first-load module), and handed over once
// it is ready.
/** Path under data/ → its hand-over, done or under way. @type {Map<string, Promise<void>>} */
const handedOver = new Map();
const DATA_OF = [["bbq", "bbq/"], ["divergence", "divergence/"], ["crosslingual", "crosslingual/"], ["requirements", "requirements/"], ["study", ""]];
function builtinData(op) {
  const dir = DATA_OF.find(([prefix]) => op.startsWith(prefix))?.[1];
  if (dir === undefined) return undefined;
  return Promise.all(builtin_files().filter((path) => path.startsWith(dir)).map((path) => {
    if (!handedOver.has(path)) {
      const text = fetch(new URL(`./data/${path}`, import.meta.url)).then((response) => {
        if (!response.ok) throw new Error(`HTTP ${response.status}`);
        return response.text();
      });
      handedOver.set(path, Promise.all([text, tools()]).then(([t]) => T.install_builtin(path, t)).catch((error) => {
        handedOver.delete(path); // a later call tries again
        throw new Error(`the built-in dataset data/${path} could not be loaded: ${error.message ?? error}`);
      }));
    }
    return handedOver.get(path);
  }));
}

// Every operation below calls the facade through these typed handles (www/pkg/evenhand.d.ts),
// so a facade method renamed or removed without its operation fails `npx tsc -p jsconfig.json`.
/** @type {Workspace} */
let ws;
// One session per method's tab, made on first use, so the demo on load does not wait for them.
/** @type {import("./pkg/evenhand.js").BbqSession} */
let bbqSession;
const bbq = () => (bbqSession ??= new T.BbqSession());
/** @type {import("./pkg/evenhand.js").DivergenceSession} */
let divergenceSession;
const divergence = () => (divergenceSession ??= new T.DivergenceSession());
/** @type {import("./pkg/evenhand.js").CrosslingualSession} */
let crosslingualSession;
const crosslingual = () => (crosslingualSession ??= new T.CrosslingualSession());
/** @type {import("./pkg/evenhand.js").HarnessLogs} */
let harnessLogsHeld;
const harnessLogs = () => (harnessLogsHeld ??= new T.HarnessLogs());
/** @type {import("./pkg/evenhand.js").RequirementsSession} */
let requirementsSession;
const requirements = () => (requirementsSession ??= new T.RequirementsSession());
// The one open study (views/study*.js): opened from the form, a file or the example.
/** @type {import("./pkg/evenhand.js").StudySession | null} */
let studySession = null;
function study() {
  if (!studySession) throw new Error("No study is open: start a new study or open the example.");
  return studySession;
}
/** @type {string | null} */
let reportTime = null;
/** Does this text look like a study bundle rather than a study? (A bundle names its format.) */
function isBundle(text) {
  try {
    return JSON.parse(text)?.format === "evenhand-study-bundle";
  } catch {
    return false; // the study reader says where the JSON is broken
  }
}
/** What the page shows of a study that opened. */
function opened(session) {
  studySession?.free();
  studySession = session;
  reportTime = null;
  const doc = JSON.parse(session.study_json());
  /** @type {Record<string, Record<string, number>>} */
  const coverage = session.coverage();
  const records = Object.values(coverage).flatMap((byModel) => Object.values(byModel)).reduce((a, b) => a + b, 0);
  return { title: doc.title, targets: doc.targets, methods: Object.keys(doc.methods), records, sha256: session.study_sha256() };
}
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

/** The operations the page calls through rpc.js; `Ops` types its `call`. @typedef {typeof ops} Ops */
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
  // The Upload tab: a harness log (lm-eval, Inspect, promptfoo, recognised by its bytes) joins
  // the logs, whose records then fill the workspace; any other file is a record table.
  upload: (name, data, mapping) => {
    const b = bytes(data);
    if (!T.harness_log_kind(b)) return { records: ws.load(name, b, mapping ?? null) };
    const logs = harnessLogs().add(name, b);
    const jsonl = new TextEncoder().encode(harnessLogs().records_jsonl());
    return { logs, records: logs.length ? ws.load("harness logs", jsonl, null) : null };
  },
  logsAnalysis: (statistics) => harnessLogs().analysis(statistics ?? null, new Date().toISOString()),
  logsClear: () => harnessLogs().clear(),
  /** One page of the item table of the logs' models (study::items::Query). */
  logsItems: (query, statistics) => harnessLogs().items(query, statistics ?? null),
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
  bbqVariants: () => T.BbqSession.prompt_variants(),
  bbqAddData: (name, data) => bbq().add_data(name, bytes(data)),
  bbqAddDataIn: (name, data, language) => bbq().add_data_in(name, bytes(data), language ?? undefined),
  bbqKeep: (selection) => bbq().keep(selection),
  bbqProviderCases: (variant) => bbq().provider_cases_jsonl(variant ?? undefined),
  bbqUseBuiltin: (seed, languages) => bbq().use_builtin(seed, languages),
  bbqClear: () => bbq().clear(),
  bbqAddPredictions: (name, data, format) => bbq().add_predictions(name, bytes(data), format ?? undefined),
  bbqSimulate: (request) => bbq().simulate(request),
  bbqSimulatePart: (request, from, to) => bbq().simulate_part(request, from, to),
  bbqSetBootstrap: (settings) => bbq().set_bootstrap(settings),
  bbqView: () => bbq().view(),
  bbqRows: (query) => bbq().rows(query ?? null),

  // The Divergence tab.
  divergenceUseBuiltin: (id) => divergence().use_builtin(id),
  divergenceLoadProbes: (name, data) => divergence().load_probes(name, bytes(data)),
  divergenceAddReference: (culture, aspect, name, data, shape, columns) =>
    divergence().add_reference(culture, aspect, name, bytes(data), shape ?? undefined, columns ?? null),
  divergenceClearReferences: () => divergence().clear_references(),
  divergenceLoadLogprobs: (name, data) => divergence().load_logprobs(name, bytes(data)),
  divergenceLoadRecords: (name, data) => divergence().load_records(name, bytes(data)),
  divergenceSimulate: (request) => divergence().simulate(request),
  divergenceAnalyze: (settings) => divergence().analyze(settings),
  divergenceChart: (model, context) => divergence().chart(model, context),
  divergenceState: () => divergence().state(),
  divergenceDataCsv: () => divergence().data_csv(),
  divergenceExport: (format) => divergence().export(format),

  // The Cross-lingual tab. A simulated run is planned once and then stepped, so the page can
  // show progress and cancel between steps.
  crosslingualUseBuiltin: () => crosslingual().use_builtin(),
  crosslingualLoadQuestions: (name, data) => crosslingual().load_questions(name, bytes(data)),
  /** Several question files (MSQAD's one per topic) merged into one set; duplicate ids listed. */
  crosslingualLoadQuestionFiles: (names, datas) => crosslingual().load_question_files(names, datas.map(bytes)),
  crosslingualPlanRun: (request) => crosslingual().plan_run(request),
  crosslingualStep: (cases) => crosslingual().step(cases),
  crosslingualCancel: () => crosslingual().cancel(),
  crosslingualLoadRecords: (name, data) => crosslingual().load_records(name, bytes(data)),
  crosslingualUseReferences: () => crosslingual().use_references(),
  crosslingualLoadEmbeddings: (name, data) => crosslingual().load_embeddings(name, bytes(data)),
  crosslingualSetSettings: (settings) => crosslingual().set_settings(settings),
  crosslingualSettings: () => crosslingual().settings(),
  crosslingualView: () => ({ ...crosslingual().view(), distances: crosslingual().distances() ?? null }),
  crosslingualExport: (format) => crosslingual().export(format),
  crosslingualPermPlan: (settings) => crosslingual().permanova_plan(settings),
  // A test at a time for the PERMANOVA pool (permanova-pool.js): its request out, its report
  // back (embeddings and an uploaded matrix alike).
  crosslingualPermNext: () => crosslingual().permanova_next(),
  crosslingualPermTake: (result) => crosslingual().permanova_take(result),
  crosslingualPermCancel: () => crosslingual().permanova_cancel(),
  // Provider runs (the run engine sends them): cases out, records and vectors back.
  crosslingualRunCases: (request) => crosslingual().run_cases(request),
  crosslingualEmbedItems: () => crosslingual().embed_items(),
  crosslingualAddEmbeddings: (batch) => crosslingual().add_embeddings(batch),
  crosslingualClearEmbeddings: () => crosslingual().clear_embeddings(),
  crosslingualJudgeCases: () => crosslingual().judge_cases(),
  crosslingualLoadJudge: (name, data) => crosslingual().load_judge(name, bytes(data)),
  // Hand labels of the review sample (issue 26): one at a time, or a labels CSV in and out.
  crosslingualSetLabel: (recordId, label) => crosslingual().set_label(recordId, label),
  crosslingualLabelsCsv: () => crosslingual().labels_csv(),
  crosslingualImportLabels: (name, text) => crosslingual().import_labels(name, text),
  // The local NLI refusal detector (models.js runs the model): answers out, P(refuse) back
  // into the records' nli_* columns.
  crosslingualNliItems: () => crosslingual().nli_items(),
  crosslingualAddNli: (batch) => crosslingual().add_nli(batch),
  // The Run tab's inputs (JSONL) and what comes back: an embedding run's vectors replace the
  // earlier ones; a judge run's records become verdicts (crosslingualLoadJudge).
  crosslingualEmbedTexts: (all) => crosslingual().embed_texts(Boolean(all)),
  crosslingualUseEmbeddingRun: (batch) => crosslingual().use_embedding_run(batch),
  crosslingualJudgeJsonl: () => crosslingual().judge_cases_jsonl(),
  crosslingualLoadDistances: (name, data) => crosslingual().load_distances(name, bytes(data)),
  // Provider cases as a JSONL file for the Run tab.
  crosslingualCasesJsonl: (request) => crosslingual().run_cases_jsonl(request),
  // The divergence session writes record-table JSON already; one row per line is JSONL.
  divergenceCasesJsonl: (mode) => divergence().run_cases_jsonl(mode),

  // The Requirements tab.
  requirementsDefaultScenario: () => T.RequirementsSession.default_scenario(),
  requirementsCatalogue: () => requirements().catalogue(),
  requirementsSetScenario: (text) => requirements().set_scenario(text),
  requirementsLoadLibrary: (language, name, data) => requirements().load_library(language, name, bytes(data)),
  requirementsUseBuiltin: () => requirements().use_builtin(),
  requirementsBrowse: (query) => requirements().browse(query),
  requirementsPreview: (query) => requirements().preview(query),
  requirementsPlan: (query) => requirements().plan(query),
  requirementsSimulate: (settings) => requirements().simulate(settings),
  requirementsLoadRecords: (name, data) => requirements().load_records(name, bytes(data)),
  requirementsRecordsJsonl: () => requirements().records_jsonl(),
  requirementsEvaluate: (query) => requirements().evaluate(query),
  /** The local NLI detector over the loaded records: the answers out, a batch into their nli_* columns. */
  requirementsNliItems: () => requirements().nli_items(),
  requirementsAddNli: (batch) => requirements().add_nli(batch),
  /** The detectors an evaluation can be decided by: ["lexicon", and those the records carry]. */
  requirementsDetectors: () => requirements().detectors(),
  requirementsFiles: (timestamp) => requirements().files(timestamp),
  requirementsJudgeCases: (perOutcome, seed) => requirements().judge_cases(perOutcome, seed),
  requirementsLoadJudge: (name, data) => requirements().load_judge(name, bytes(data)),
  requirementsLoadReport: (name, text) => requirements().load_report(name, text),
  requirementsClearReports: () => requirements().clear_reports(),
  requirementsReportsView: (confidence) => requirements().reports_view(confidence),

  // The study flow. A study that does not open is refused with its located problem.
  // A study file, or a study bundle (study, inputs and records) by its format.
  studyOpen: (name, text) => opened(isBundle(text) ? T.StudySession.open_bundle(name, text) : new T.StudySession(name, text)),
  studyExample: () => opened(T.StudySession.example()),
  studyOpenShare: (fragment) => opened(T.StudySession.open_share(fragment)),
  studyText: () => study().study_json(),
  /** The files the open study names that have not been added: [{field, file}]. */
  studyMissing: () => study().missing(),
  /** A file the study names; returns those still missing. */
  studyAddFile: (name, data) => study().add_file(name, bytes(data)),
  /** The plan of a study not opened (step 1's call counts), with the files it names, leaving the open one alone. */
  studyPlanOf: (name, text, files = []) => {
    const s = new T.StudySession(name, text);
    try {
      for (const f of files) s.add_file(f.name, bytes(f.data));
      return s.plan();
    } finally {
      s.free();
    }
  },
  studyPlan: () => study().plan(),
  studyRunCases: () => study().run_cases(),
  /** The run spec's skeleton for the study's provider targets: {run_id, targets: [{provider, models}], params, ...}. */
  studyRunSpec: () => study().run_spec(),
  /** `origin`: "run" for this study's own run's records, otherwise an upload. */
  studyAddRecords: (name, data, method, origin) => study().add_records(name, bytes(data), method ?? undefined, origin ?? undefined),
  /** An uploaded record file with the column mapping chosen after a needs_mapping error: {field: header}. */
  studyAddRecordsMapped: (name, data, method, mapping) => study().add_records_mapped(name, bytes(data), method ?? undefined, mapping),
  /** Several question files in the study's cross-lingual slot, merged; null when one is not a question set. */
  studyAddQuestionSets: (names, datas) => study().add_question_sets(names, datas.map(bytes)),
  /** The records of one method as its expert tool reads them (JSONL). */
  studyToolRecords: (method) => study().tool_records(method),
  studyToolScenario: () => study().tool_scenario(),
  studySimulate: () => study().simulate(),
  /** The local NLI detector over the study's requirements and cross-lingual records. */
  studyNliItems: () => study().nli_items(),
  studyAddNli: (batch) => study().add_nli(batch),
  // The report's time is set when the page draws it, so its HTML and JSON downloads match it.
  studyReport: () => study().report((reportTime = new Date().toISOString())),
  studyReportHtml: () => study().report_html(reportTime ?? undefined),
  studyReportJson: () => study().report_json(reportTime ?? undefined),
  studyBundle: () => study().bundle(),
  /** One page of the report's item table (study::items::Query). */
  studyItems: (query) => study().items(query),
  studyShareFragment: () => study().share_fragment(),
  /** What the share link cannot carry (empty: the link rebuilds the report). */
  studyShareLacks: () => study().share_lacks(),
  /** {fragment} of a link that rebuilds the report (the records carried when they fit), or {lacks}. */
  studyShareLink: () => study().share_link(),

  // The batch route (Upload tab): provider batch files out, their results into the workspace.
  batchExport: (settings, name, data) => batch_export(settings, name, bytes(data)),
  batchImport: (settings, casesName, casesData, resultsName, resultsData) =>
    ws.batch_import(settings, casesName, bytes(casesData), resultsName, bytes(resultsData)),
};

// The operations the first-load module answers; every other one waits for the full module.
const HOME = new Set(["info", "view", "rows", "run", "load", "settings", "setSettings", "export", "bundle", "openBundle",
  "bundleRecordsUrl", "shareFragment", "openShare", "experiment", "powerCurve", "powerChart", "batchExport", "batchImport"]);

self.addEventListener("message", async ({ data: { id, op, args } }) => {
  try {
    await ready;
    if (!Object.hasOwn(ops, op)) throw new Error(`unknown operation ${op}`);
    if (!HOME.has(op)) await Promise.all([tools(), builtinData(op)]);
    self.postMessage({ id, ok: true, value: ops[op](...(args ?? [])) });
  } catch (error) {
    self.postMessage({ id, ok: false, error: plainError(error) });
  }
});
