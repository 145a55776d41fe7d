// Hand-overs between tabs, as DOM events on document so no view imports another: a method tab
// hands provider cases to the Run tab ("evenhand:run-cases"), and the Run tab tells the
// Cross-lingual tab that a run's vectors or verdicts reached its session ("evenhand:crosslingual-data"),
// or the Requirements tab that its records or judge replies did ("evenhand:requirements-data").

const RUN_CASES = "evenhand:run-cases";
const CROSSLINGUAL_DATA = "evenhand:crosslingual-data";

// The last cases handed over, for a Run tab that starts listening later (it waits for its worker).
let lastCases = null;

/** `cases`: {origin, kind: "chat" | "embed", name, text, label}. Shows the Run tab. */
export function handToRun(cases) {
  lastCases = cases;
  document.dispatchEvent(new CustomEvent(RUN_CASES, { detail: cases }));
  showTab("run");
}
export function onRunCases(fn) {
  document.addEventListener(RUN_CASES, (e) => fn(e.detail));
  if (lastCases) fn(lastCases);
}

/** `message`: what reached the session, shown in the Cross-lingual tab. */
export function crosslingualDataChanged(message) {
  document.dispatchEvent(new CustomEvent(CROSSLINGUAL_DATA, { detail: { message } }));
  showTab("crosslingual");
}
export const onCrosslingualData = (fn) => document.addEventListener(CROSSLINGUAL_DATA, (e) => fn(e.detail));

const REQUIREMENTS_DATA = "evenhand:requirements-data";
/** A run's records or judge replies reached the Requirements session: `what` is "records" or
 *  "judge", `result` what the session said, `message` where they came from when not the Run tab
 *  (a study's report), `scenario` the scenario text they were judged by there (the tab takes it
 *  into its editor first). Shows the Requirements tab. */
export function requirementsDataChanged(what, result, message = null, scenario = null) {
  document.dispatchEvent(new CustomEvent(REQUIREMENTS_DATA, { detail: { what, result, message, scenario } }));
  showTab("requirements");
}
export const onRequirementsData = (fn) => document.addEventListener(REQUIREMENTS_DATA, (e) => fn(e.detail));

export function showTab(name) {
  document.getElementById(`tab-${name}`)?.click();
}

const BBQ_DATA = "evenhand:bbq-data";
/** New data or answers reached the Benchmarks session from another tab (the Datasets view, a
 *  provider run): `message` is shown there, and with `simulate` the tab asks its simulated
 *  model at once with its own settings. Shows the Benchmarks tab. */
export function bbqDataChanged(detail) {
  document.dispatchEvent(new CustomEvent(BBQ_DATA, { detail }));
  showTab("bench");
}
export const onBbqData = (fn) => document.addEventListener(BBQ_DATA, (e) => fn(e.detail));

const DIVERGENCE_DATA = "evenhand:divergence-data";
/** Records reached the Divergence session from another view (a study's report): `detail` is
 *  {message, loaded} (what the session said). Shows the Divergence tab. */
export function divergenceDataChanged(detail) {
  document.dispatchEvent(new CustomEvent(DIVERGENCE_DATA, { detail }));
  showTab("divergence");
}
export const onDivergenceData = (fn) => document.addEventListener(DIVERGENCE_DATA, (e) => fn(e.detail));
