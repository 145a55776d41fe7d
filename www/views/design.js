// The Design tab: the simulated experiment's form, and the power calculator.
import { $, el, errorMessage, percent, setSvg, showIn } from "../dom.js";

function checkboxes(box, name, options) {
  box.replaceChildren(...options.map((value) => el("label", { class: "check" },
    el("input", { type: "checkbox", name, value }), ` ${value}`)));
}

const checked = (box) => [...box.querySelectorAll("input:checked")].map((b) => b.value);

/** A failure found in the page before the worker sees the experiment. */
const invalid = (message) => ({ kind: "input", message });

/**
 * Builds the Design tab. `run(experiment)` runs it in the worker and shows Results.
 * Returns {fill, read}: fill the form from an experiment, read an experiment from the form.
 * @param {import("../rpc.js").AnalysisCall} call
 */
export function createDesign(call, defaults, run) {
  // The demo library offers these; the default experiment uses them all.
  checkboxes($("exp-languages"), "languages", defaults.languages);
  checkboxes($("exp-concerns"), "concerns", defaults.concerns);
  // Analysis settings ride along with the experiment; kept from the last experiment shown.
  let analysis = defaults.analysis;

  function fill(e) {
    $("exp-seed").value = String(e.seed);
    $("exp-samples").value = String(e.samples);
    for (const b of $("exp-languages").querySelectorAll("input")) b.checked = e.languages.includes(b.value);
    for (const b of $("exp-concerns").querySelectorAll("input")) b.checked = e.concerns.includes(b.value);
    $("exp-behaviour").value = JSON.stringify(e.behaviour, null, 2);
    analysis = e.analysis;
  }

  function read() {
    const seed = $("exp-seed").value.trim();
    if (!/^\d+$/.test(seed) || !Number.isSafeInteger(Number(seed))) {
      throw invalid(`Seed: expected a whole number from 0 to ${Number.MAX_SAFE_INTEGER}, found "${seed}"`);
    }
    const samples = $("exp-samples").value.trim();
    if (!/^\d+$/.test(samples)) throw invalid(`Samples per case: expected a whole number, found "${samples}"`);
    let behaviour;
    try {
      behaviour = JSON.parse($("exp-behaviour").value);
    } catch (err) {
      throw invalid(`Behaviour: not valid JSON (${err.message})`);
    }
    return {
      seed: Number(seed),
      samples: Number(samples),
      languages: checked($("exp-languages")),
      concerns: checked($("exp-concerns")),
      behaviour,
      analysis,
    };
  }

  $("design-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    const button = $("design-run");
    button.disabled = true;
    try {
      await run(read());
      showIn($("design-error"));
    } catch (err) {
      showIn($("design-error"), errorMessage(err));
    } finally {
      button.disabled = false;
    }
  });

  setupPower(call);
  return { fill, read };
}

function readPowerQuery() {
  const sizes = $("pw-sizes").value.split(",").map((s) => s.trim()).filter(Boolean);
  if (sizes.length === 0 || sizes.some((s) => !/^\d+$/.test(s))) {
    throw invalid(`Cases per community: expected whole numbers separated by commas, found "${$("pw-sizes").value}"`);
  }
  const reps = $("pw-reps").value.trim();
  if (!/^\d+$/.test(reps)) throw invalid(`Repetitions: expected a whole number, found "${reps}"`);
  return {
    rate_a: Number($("pw-rate-a").value),
    rate_b: Number($("pw-rate-b").value),
    alpha: Number($("pw-alpha").value),
    repetitions: Number(reps),
    sizes: sizes.map(Number),
    seed: 1,
  };
}

/** @param {import("../rpc.js").AnalysisCall} call */
function setupPower(call) {
  let cancelled = false;
  $("power-cancel").addEventListener("click", () => {
    cancelled = true;
  });

  $("power-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    const button = $("power-run");
    const out = $("power-output");
    const progress = $("power-progress");
    try {
      const query = readPowerQuery();
      button.disabled = true;
      cancelled = false;
      $("power-busy").hidden = false;
      out.setAttribute("aria-busy", "true");
      showIn($("power-error"));
      // One size per call, in the worker: the page keeps responding, the bar moves, and
      // Cancel takes effect between sizes. Work grows with the size, so the bar is weighted by it.
      const total = query.sizes.reduce((a, b) => a + b, 0);
      progress.max = total;
      progress.value = 0;
      const points = [];
      for (const size of query.sizes) {
        if (cancelled) break;
        const result = await call("powerCurve", { ...query, sizes: [size] });
        points.push(...result.points);
        progress.value += size;
        $("power-status").textContent = `${points.length} of ${query.sizes.length} sizes done`;
      }
      if (cancelled) {
        showIn($("power-error"), `Cancelled after ${points.length} of ${query.sizes.length} sizes; the finished ones are shown.`);
      }
      const table = $("power-table").tBodies[0];
      table.replaceChildren(...points.map((p) => el("tr", {},
        el("td", { class: "num", text: p.size }), el("td", { class: "num", text: percent(p.power) }))));
      if (points.length > 0) {
        const alt = `Chart: power to tell ${percent(query.rate_a, 0)} from ${percent(query.rate_b, 0)} biased answers: ` +
          points.map((p) => `${p.size} cases ${percent(p.power, 0)}`).join("; ");
        setSvg($("power-chart"), await call("powerChart", query, points), alt);
        out.hidden = false;
      }
    } catch (err) {
      showIn($("power-error"), errorMessage(err));
    } finally {
      button.disabled = false;
      $("power-busy").hidden = true;
      out.removeAttribute("aria-busy");
    }
  });
}
