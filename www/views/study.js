// The study view (#study/<step>): the guided flow of a new study, steps 1 to 5, and the example
// study's report. The one open study lives in the analysis worker (a StudySession); this view
// only moves between the steps the address names.
import { $, el, showIn } from "../dom.js";
import { createStudySetup, describe } from "./study-setup.js";
import { createStudyRun } from "./study-run.js";
import { createStudyReport } from "./study-report.js";
import { forgetOpenBundle, openBundle, saveOpenBundle, saveStudyRecords } from "../study-store.js";

/** Is this text a study bundle (study, inputs and records) rather than a study? */
function isBundle(text) {
  try {
    return JSON.parse(text)?.format === "evenhand-study-bundle";
  } catch {
    return false;
  }
}

const OPEN_KEY = "evenhand-study-open";
const FORM_KEY = "evenhand-study-form";

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

  // What a reload must put back (sessionStorage: this tab only, gone with it): the open study
  // (its text; the example and share links by their address) and what steps 1 and 2 hold.
  // A study opened from a bundle is kept as its bundle (IndexedDB, study-store.js), records and all.
  const remember = () => {
    if (!open?.bundle) forgetOpenBundle().catch(() => {});
    if (!open || open.shared) return sessionStorage.removeItem(OPEN_KEY);
    if (open.example) return sessionStorage.setItem(OPEN_KEY, JSON.stringify({ example: true }));
    const summary = open;
    if (summary.bundle) return sessionStorage.setItem(OPEN_KEY, JSON.stringify(summary));
    call("studyText").then((text) => {
      if (open === summary) sessionStorage.setItem(OPEN_KEY, JSON.stringify({ ...summary, text }));
    }, () => {});
  };
  const opened = (summary) => {
    open = summary;
    remember();
    return summary;
  };
  let restoringForm = false;
  const formChanged = () => {
    if (!restoringForm) sessionStorage.setItem(FORM_KEY, JSON.stringify(setup.formState()));
  };

  // Asked before anything replaces an open study (its uploads and report would be gone).
  const replaceText = el("p", { id: "study-replace-text" });
  const replaceDialog = /** @type {HTMLDialogElement} */ (el("dialog", { id: "study-replace", "aria-labelledby": "study-replace-title" },
    el("h3", { id: "study-replace-title", text: "Replace the open study?" }), replaceText,
    el("div", { class: "buttons" },
      el("button", { type: "button", class: "primary", id: "study-replace-yes", text: "Replace it" }),
      el("button", { type: "button", id: "study-replace-no", text: "Keep the open study" }))));
  /** True when no study of the user's is open, or when the user agrees to replace it with `what`. */
  function mayReplace(what = "the study you open") {
    if (!open || open.example || open.shared) return Promise.resolve(true);
    replaceText.textContent = `“${open.title || "The open study"}” is open here: opening ${what} closes it, `
      + "with the records it holds that no run keeps (uploads, simulated answers). A run of it stays stored and is offered again when it is open.";
    return new Promise((resolve) => {
      const answer = (yes) => () => {
        replaceDialog.close();
        resolve(yes);
      };
      replaceDialog.querySelector("#study-replace-yes").addEventListener("click", answer(true), { once: true });
      replaceDialog.querySelector("#study-replace-no").addEventListener("click", answer(false), { once: true });
      replaceDialog.addEventListener("cancel", answer(false), { once: true });
      replaceDialog.showModal();
    });
  }

  const setup = createStudySetup(call, async () => (await engineReady()).runCall,
    { opened, go, estimate: () => run.plan(), mayReplace: () => mayReplace("a study file"), formChanged });
  const report = createStudyReport(call);
  const run = createStudyRun(call, engineReady, {
    providerTargets: () => (open?.from_form === false ? run.fileTargets() : setup.providerTargets()),
    // A study file's parameters are its own; a form's are step 2's.
    params: async () => (open?.from_form === false ? (await call("studyRunSpec")).params : setup.params()),
    opened,
    study: () => open,
    mayReplace,
    go,
    reported: async () => go("#study/report"),
    // A study file's provider targets: the page asks for their base URLs and keys in step 4.
    fileProviders: () => (open?.from_form === false ? open.targets.filter((t) => !t.startsWith("simulated:")) : []),
    recordsChanged,
  });

  /** Records were added to the open study (an upload, simulated answers, a run's): a study kept
   *  as its bundle is written again with them, under its sha256, so a reload brings them back.
   *  Chained, so two quick uploads are written in the order they were made. */
  let saving = Promise.resolve();
  function recordsChanged() {
    const study = open;
    if (!study?.bundle || !study.sha256) return saving;
    saving = saving.then(async () => {
      if (open !== study) return;
      await saveStudyRecords(study.bundleName ?? "study-bundle.json", await call("studyBundle"), study.sha256);
    }).catch(() => {}); // without IndexedDB the records stay for this visit only
    return saving;
  }
  view.append(stepper, banner, ...setup.steps, run.step, report.step, missing, replaceDialog);

  // A reload puts back the open study and the form (the run is in IndexedDB, offered in step 4).
  let saved = null;
  try {
    saved = JSON.parse(sessionStorage.getItem(OPEN_KEY) ?? "null");
  } catch {
    sessionStorage.removeItem(OPEN_KEY);
  }
  /** The text to open again: the bundle kept in IndexedDB, or the study's own text.
   *  @returns {Promise<{name: string, text: string, sha256?: string} | null>} */
  const savedText = async () => {
    if (!saved?.bundle) return saved?.text ? { name: "study.json", text: saved.text } : null;
    return openBundle();
  };
  const reopening = savedText().then((got) => (got
    ? call("studyOpen", got.name, got.text).then((summary) => {
      // A bundle kept before it carried its study's sha256 is filed under it now.
      if (saved.bundle && got.sha256 !== summary.sha256) saveOpenBundle(got.name, got.text, summary.sha256).catch(() => {});
      opened({ ...summary, from_form: saved.from_form, bundle: saved.bundle, bundleName: got.name });
    })
    : sessionStorage.removeItem(OPEN_KEY))).catch(() => sessionStorage.removeItem(OPEN_KEY));
  try {
    const form = JSON.parse(sessionStorage.getItem(FORM_KEY) ?? "null");
    if (form) {
      restoringForm = true;
      setup.restoreForm(form).catch(() => {}).finally(() => {
        restoringForm = false;
        formChanged();
      });
    }
  } catch {
    sessionStorage.removeItem(FORM_KEY);
  }
  /** The last address of a study step shown, to go back to when a replacement is declined. */
  let shownHash = "#home";
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
    await reopening;
    if (step === "example" || step === "shared") {
      if (!(await mayReplace(step === "shared" ? "this shared study" : "the example study"))) return go(shownHash);
      showStep("example", false);
      const t0 = performance.now();
      try {
        opened(step === "shared"
          ? { ...(await call("studyOpenShare", location.hash.slice(1))), shared: true }
          : { ...(await call("studyExample")), example: true });
        const t1 = performance.now();
        // A link of a study run on providers (or on uploaded files) carries no answers: say what
        // is missing rather than show an empty report.
        if (step === "shared" && !open.records) {
          /** @type {string[]} */
          const lacks = await call("studyShareLacks");
          if (lacks.length) {
            report.clear();
            report.showError(`This link carries the study “${open.title ?? ""}” but not ${lacks.join(", ")}, so its report `
              + "cannot be rebuilt here. Ask the sender for the study bundle (“Download the study bundle” on its report) and "
              + "open it from the home screen.");
            return;
          }
        }
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
    shownHash = location.hash;
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
    const box = $("study-plan");
    try {
      if (open && open.from_form !== false) opened({ ...open, from_form: false });
      // The files the study names (a BBQ category file, a question set...) are asked for first;
      // each is checked against the sha256 the study gives before it is taken.
      /** @type {{field: string, file: string}[]} */
      const missingFiles = await call("studyMissing");
      if (missingFiles.length) {
        box.replaceChildren(el("p", { id: "study-files-needed", text: `The study “${open?.title ?? ""}” names `
          + `${missingFiles.length === 1 ? "a file" : `${missingFiles.length} files`} to add before its plan: `
          + "pick each (it is checked against the SHA-256 the study gives)." }),
        ...missingFiles.map((m, i) => fileSlot(m, i)));
        return;
      }
      const plan = await call("studyPlan");
      box.replaceChildren(el("p", { text: `The study ${open.title ?? ""} from its file.` }), ...setup.renderPlan(plan));
    } catch (err) {
      setup.setStepError(err);
    }
  }

  /** One file the study names: a picker, and its error kept beside it until this file is right. */
  function fileSlot({ field, file }, i) {
    const input = /** @type {HTMLInputElement} */ (el("input", { type: "file", id: `study-add-file-${i}` }));
    const problem = el("div", { class: "alert", role: "alert", id: `study-add-file-${i}-error`, hidden: true });
    input.addEventListener("change", async () => {
      const picked = input.files[0];
      if (!picked) return;
      try {
        // Added under the name the study gives, whatever the picked file is called: the sha256 decides.
        await call("studyAddFile", file, new Uint8Array(await picked.arrayBuffer()));
        showIn(problem);
        await showFilePlan();
      } catch (err) {
        showIn(problem, `${picked.name}: ${describe(err)}`);
      }
    });
    return el("div", { class: "row" }, el("label", { for: input.id, text: `${file} (${field})` }), input, problem);
  }

  /** The home screen's "open a study file" (a study or a study bundle). */
  async function openFile(input, errorBox) {
    const file = input.files[0];
    if (!file) return;
    showIn(errorBox);
    try {
      if (!(await mayReplace("a study file"))) return;
      // A bundle brings its records: straight to its report. A study starts at its plan.
      const text = await file.text();
      const summary = await call("studyOpen", file.name, text);
      const bundle = isBundle(text);
      // Kept before it counts as open, so a reload right after finds it.
      if (bundle) await saveOpenBundle(file.name, text, summary.sha256).catch(() => {}); // without IndexedDB: open, not kept
      opened({ ...summary, bundle, bundleName: file.name });
      go(summary.records ? "#study/report" : "#study/plan-file");
    } catch (err) {
      showIn(errorBox, `The study could not be opened. ${describe(err)}`);
    } finally {
      input.value = "";
    }
  }

  return { route, openFile };
}
