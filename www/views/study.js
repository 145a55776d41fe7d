// The study view (#study/<step>): the guided flow of a new study, steps 1 to 5, and the example
// study's report. The one open study lives in the analysis worker (a StudySession); this view
// only moves between the steps the address names.
import { $, el, showIn } from "../dom.js";
import { createStudySetup, describe } from "./study-setup.js";
import { createStudyRun } from "./study-run.js";
import { createStudyReport } from "./study-report.js";

const STEPS = [
  ["new", "What to test"],
  ["models", "Which models"],
  ["plan", "The plan"],
  ["run", "Run or upload"],
  ["report", "Report"],
];

/**
 * @param {import("../rpc.js").AnalysisCall} call
 * @param {() => Promise<{worker: Worker, runCall: import("../rpc.js").RunCall}>} engineReady
 * @param {(hash: string) => void} go
 */
export function createStudy(call, engineReady, go) {
  const view = $("view-study");
  let open = null; // what the worker said when the study opened: {title, example, ...}

  const stepper = el("ol", { class: "stepper", id: "study-stepper", "aria-label": "Steps of a study" },
    STEPS.map(([id, name], i) => el("li", {}, el("a", { href: `#study/${id}`, "data-step": id, text: `${i + 1}. ${name}` }))));
  const banner = el("p", { class: "study-banner", id: "study-banner", hidden: true });
  const missing = el("div", { class: "study-step", "data-step": "none" },
    el("h2", { tabindex: -1, text: "No study is open" }),
    el("p", {}, "Start a ", el("a", { href: "#study/new", text: "new study" }), ", or open the ",
      el("a", { href: "#study/example", text: "example study" }), "."));

  const opened = (summary) => {
    open = summary;
    return summary;
  };
  const setup = createStudySetup(call, async () => (await engineReady()).runCall, { opened, go, estimate: () => run.plan() });
  const report = createStudyReport(call);
  const run = createStudyRun(call, engineReady, {
    providerTargets: () => (open?.from_form === false ? [] : setup.providerTargets()),
    params: setup.params,
    opened,
    reported: async () => go("#study/report"),
    // The run's targets, keys and base URLs come from step 2's form; a study file's own
    // provider targets have none, so such a study is answered by upload (or rebuilt in the form).
    cannotRun: () => (open?.from_form === false && open.targets.some((t) => !t.startsWith("simulated:"))
      ? "This study came from a file: its provider models have no keys or addresses here. Upload their responses, "
        + "or describe the study in steps 1 and 2 to run it."
      : null),
  });
  view.append(stepper, banner, ...setup.steps, run.step, report.step, missing);
  const steps = /** @type {HTMLElement[]} */ ([...view.querySelectorAll(".study-step")]);

  function showStep(name, focus = true) {
    const shown = name === "example" ? "report" : name === "plan-file" ? "plan" : name;
    for (const s of steps) s.hidden = s.dataset.step !== shown;
    stepper.hidden = name === "example";
    for (const a of stepper.querySelectorAll("a")) {
      if (a.dataset.step === shown) a.setAttribute("aria-current", "step");
      else a.removeAttribute("aria-current");
    }
    if (focus) /** @type {HTMLElement} */ (steps.find((s) => !s.hidden)?.querySelector("h2"))?.focus();
  }

  /** Called by the router with the step the address names. */
  async function route(step) {
    showIn(banner);
    if (step === "example" || step === "shared") {
      showStep("example", false);
      const t0 = performance.now();
      try {
        opened(await (step === "shared" ? call("studyOpenShare", location.hash.slice(1)) : call("studyExample")));
        const t1 = performance.now();
        await report.render();
        // Measured here so the tests can report where the time goes (open and simulate, report).
        report.step.dataset.openMs = String(Math.round(t1 - t0));
        report.step.dataset.renderMs = String(Math.round(performance.now() - t0));
        /** @type {HTMLElement} */ (view.querySelector("#study-report-title"))?.focus();
      } catch (err) {
        report.showError(step === "shared" ? `This study link could not be opened: ${describe(err)}` : err);
      }
      return;
    }
    if (step === "report") {
      if (!open) return showStep("none");
      showStep("report", false);
      try {
        await report.render();
        /** @type {HTMLElement} */ (view.querySelector("#study-report-title"))?.focus();
      } catch (err) {
        report.showError(err);
      }
      return;
    }
    if (step === "models" || step === "run") {
      showStep(step);
      if (step === "run") run.offerResume().catch((err) => showIn(banner, describe(err)));
      return;
    }
    if (step === "plan") {
      if (!setup.checkModels()) return go("#study/models");
      showStep("plan");
      await setup.showPlan();
      return;
    }
    if (step === "plan-file") {
      showStep("plan-file");
      return showFilePlan();
    }
    showStep("new");
    setup.countCalls();
  }

  /** A study opened from a file: its plan as it stands (its targets are the file's). */
  async function showFilePlan() {
    try {
      open = { ...open, from_form: false };
      const plan = await call("studyPlan");
      const box = $("study-plan");
      box.replaceChildren(el("p", { text: `The study ${open.title ?? ""} from its file.` }), ...setup.renderPlan(plan));
    } catch (err) {
      setup.setStepError(err);
    }
  }

  /** The home screen's "open a study file" (a study or a study bundle). */
  async function openFile(input, errorBox) {
    const file = input.files[0];
    if (!file) return;
    showIn(errorBox);
    try {
      // A bundle brings its records: straight to its report. A study starts at its plan.
      const summary = opened(await call("studyOpen", file.name, await file.text()));
      go(summary.records ? "#study/report" : "#study/plan-file");
    } catch (err) {
      showIn(errorBox, `The study could not be opened. ${describe(err)}`);
    } finally {
      input.value = "";
    }
  }

  return { route, openFile };
}
