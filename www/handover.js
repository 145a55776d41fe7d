// Hand-overs between tabs, as DOM events on document so no view imports another: a method tab
// hands provider cases to the Run tab ("evenhand:run-cases"), and the Run tab tells the
// Cross-lingual tab that a run's vectors or verdicts reached its session ("evenhand:xl-data").

const RUN_CASES = "evenhand:run-cases";
const XL_DATA = "evenhand:xl-data";

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
export function xlDataChanged(message) {
  document.dispatchEvent(new CustomEvent(XL_DATA, { detail: { message } }));
  showTab("xling");
}
export const onXlData = (fn) => document.addEventListener(XL_DATA, (e) => fn(e.detail));

export function showTab(name) {
  document.getElementById(`tab-${name}`)?.click();
}
