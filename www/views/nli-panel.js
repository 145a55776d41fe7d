// The local NLI refusal detector's panel (issue 26), one component for every tab that decides
// refusals (Cross-lingual, Requirements, Study): MSQAD's zero-shot rule run in this browser by a
// catalogue NLI model or the user's own model folder (models.js, the models worker), no key
// needed. The tab gives two adapters: the answers to judge ({id, text, language}) and how to
// write a batch ({model, rule, ids, p_refuse}) into its records' nli_p_refuse, nli_rule and
// nli_model columns (each tab's thin wasm export over the same core functions). Its elements
// are index.html's `${prefix}-model`, `-rule`, `-run`, `-confirm`, `-cost`, `-download`,
// `-files`, `-busy`, `-progress`, `-status`, `-cancel`, `-result` and the `-done` message.
// Before a first download the page says what it costs; on an error nothing already loaded changes.
import { el, errorMessage, plural, showIn } from "../dom.js";
import * as models from "../models.js";
import { describeFiles, loadProgress, mb } from "./model-load.js";

const OWN = "own";
const CASCADE = "cascade:";
/** The catalogue's NLI models (crates/evenhand-models/src/catalogue.rs) and the user's own folder. */
const MODEL_OPTIONS = {
  "multilingual-minilmv2-l6-mnli-xnli": "multilingual-MiniLMv2-L6-mnli-xnli (XNLI's 15 languages, no Korean; about 430 MB; unverified, not pinned)",
  "mdeberta-v3-base-xnli-multilingual-nli-2mil7": "mDeBERTa-v3-base XNLI (MSQAD's paper text; about 558 MB; slower; unverified, not pinned)",
  [OWN]: "Your own model folder (config.json, model.safetensors, tokenizer.json)",
};
/** The rules offered: as the select shows them, and as the result names the one used. */
const RULES = {
  argmax: { option: "argmax: refusal when P(refuse) > 0.5 (MSQAD's code)",
    named: "argmax (MSQAD's code: refusal when P(refuse) > 0.5)" },
  "threshold:0.8": { option: "threshold: refusal when P(refuse) ≥ 0.8 (MSQAD's paper text)",
    named: "threshold 0.8 (MSQAD's paper text: refusal when P(refuse) ≥ 0.8)" },
  "cascade:argmax": { option: "lexicon first: the phrase lexicon's refusals stand, argmax decides the rest (faster)",
    named: "the lexicon first, then argmax (the lexicon's refusals stand; the model judges the rest)" },
};

/**
 * @typedef {{id: string, text: string, language: string, lexicon: boolean}} NliItem
 * @typedef {{model: string, rule: string, ids: string[], p_refuse: number[]}} NliBatch
 * @param {string} prefix the ids' prefix, e.g. "crosslingual-nli"
 * @param {{
 *   items: () => Promise<NliItem[]>,
 *   write: (batch: NliBatch) => Promise<number>,
 *   after?: () => Promise<(Element | null)[]>,
 *   empty: string,
 *   compared: string,
 * }} adapters `items`: the answers to judge; `write`: the batch into the records (all or
 *   nothing), resolving to how many records got a probability; `after`: redraws the tab once
 *   written, resolving to elements shown under the message; `empty`: the error when there is
 *   nothing to judge; `compared`: where the NLI detector now shows (the message's last sentence).
 * @param {ParentNode} [root] where the panel's elements are (the document unless the view is detached)
 */
export function createNliPanel(prefix, adapters, root = document) {
  const id = (name) => `${prefix}-${name}`;
  // Looked up under `root`, so a view built before it joins the page (the study's) works too.
  const $ = (/** @type {string} */ elementId) => /** @type {any} */ (root.querySelector(`#${elementId}`));
  const result = $(id("result"));
  const confirm = $(id("confirm"));
  const progress = /** @type {HTMLProgressElement} */ ($(id("progress")));
  const status = $(id("status"));
  // One list of models and rules for every tab's panel (index.html holds only the empty selects).
  const fill = (/** @type {string} */ name, /** @type {Record<string, string>} */ options) =>
    $(id(name)).replaceChildren(...Object.entries(options).map(([value, text]) => el("option", { value, text })));
  fill("model", MODEL_OPTIONS);
  fill("rule", Object.fromEntries(Object.entries(RULES).map(([value, r]) => [value, r.option])));
  const choice = () => /** @type {HTMLSelectElement} */ ($(id("model"))).value;
  const rule = () => /** @type {HTMLSelectElement} */ ($(id("rule"))).value;
  /** @type {AbortController | null} */
  let abort = null;
  // What a cancel interrupts: a download or load ends with the worker; scoring stops between calls.
  let phase = "load";

  const failed = (err, ...more) => showIn(result, el("div", { class: "alert", role: "alert" }, el("p", { text: errorMessage(err) }), ...more));

  function busy(on, label = "") {
    $(id("busy")).hidden = !on;
    for (const name of ["run", "download", "files"]) $(id(name)).disabled = on;
    progress.removeAttribute("value");
    status.textContent = label;
  }

  const onLoadProgress = loadProgress(progress, status);

  /** The answers to judge, or an error naming a record whose language has no zero-shot labels. */
  async function answers() {
    /** @type {NliItem[]} */
    const items = await adapters.items();
    if (!items.length) throw new Error(adapters.empty);
    const missing = await models.unlabelled(items.map((i) => i.language));
    if (missing.length) {
      const first = items.find((i) => i.language === missing[0]);
      throw new Error(`record ${JSON.stringify(first.id)}: language ${JSON.stringify(missing[0])} has no zero-shot labels ` +
        `(MSQAD's en, ko, zh, es, de, hi; ours fr, pl, ca)${missing.length > 1 ? `; nor have ${missing.slice(1).join(", ")}` : ""}. Nothing was run.`);
    }
    return items;
  }

  /** The id verdicts are kept under, without loading anything: the catalogue name, or the own model loaded last. */
  const modelId = (name) => (name === OWN ? models.lastOwnClassifier()?.id ?? null : name);

  /** Loads the model if need be (`loadModel`: how; null when no files were picked), scores every
   *  answer, writes the columns, redraws. Picked own files are always loaded (they may be another model). */
  async function run(loadModel) {
    const name = choice();
    const chosen = rule();
    const signal = (abort = new AbortController()).signal;
    busy(true, "Starting the local model");
    try {
      const items = await answers();
      phase = "load";
      const known = name === OWN && loadModel ? null : modelId(name);
      let loaded = known ? models.knownClassifier(known) : null;
      // The lexicon-first cascade (the CLI's --nli-cascade): the lexicon's refusals stand, the
      // model judges the rest only; the records' rule column says so.
      const inner = chosen.startsWith(CASCADE) ? chosen.slice(CASCADE.length) : null;
      const judged = inner ? items.filter((i) => !i.lexicon) : items;
      const todo = loaded ? await models.missingScores(loaded.id, judged) : judged.length;
      if (todo && models.heldClassifier()?.id !== loaded?.id) loaded = null;
      if (todo && !loaded) {
        if (!loadModel) throw new Error("The model is no longer loaded: pick its files again.");
        loaded = await loadModel(name);
        signal.throwIfAborted();
      }
      phase = "score";
      progress.max = judged.length;
      const out = await models.classify(loaded.id, inner ?? chosen, judged, {
        signal,
        onProgress: (done, total) => {
          progress.max = total;
          progress.value = done;
          status.textContent = `${done} of ${plural(total, "answer")} judged`;
        },
      });
      // All or nothing: a failure here leaves the records as they were.
      const n = await adapters.write({ model: loaded.label, rule: chosen, ids: judged.map((i) => i.id), p_refuse: out.p_refuse });
      const spared = items.length - judged.length;
      const refusals = out.refusal.filter(Boolean).length + spared;
      const message = el("p", { class: "success", role: "status", id: id("done"),
        text: `${plural(n, "response")} judged locally by ${loaded.label} under ${RULES[chosen]?.named ?? chosen}: ${plural(refusals, "refusal")} among ` +
          `${plural(items.length, "answer")} (${inner ? `${plural(spared, "lexicon refusal")} without the model; ` : ""}` +
          `${plural(out.computed, "distinct answer")} computed, ${plural(out.reused, "answer")} reused from this page's earlier runs). ` +
          adapters.compared });
      showIn(result, message, describeFiles(loaded));
      // The records hold the verdicts now: a redraw that fails says so, not "nothing written".
      /** @type {(Element | null)[]} */
      let more = [];
      try {
        more = (await adapters.after?.()) ?? [];
      } catch (err) {
        more = [el("div", { class: "alert", role: "alert" }, el("p", { text: `The verdicts were written, but the view could not be redrawn: ${errorMessage(err)}` }))];
      }
      showIn(result, message, ...more, describeFiles(loaded));
    } catch (err) {
      if (signal.aborted) showIn(result, el("p", { role: "status", text: "Cancelled; the records keep their earlier NLI verdicts, if any." }));
      else failed(err, el("p", { text: "Nothing was written to the records; their earlier NLI verdicts, if any, are kept." }));
    } finally {
      abort = null;
      busy(false);
    }
  }

  /** Shows the confirm box: what the download costs, or (own folder) what to pick. */
  function ask(text, download) {
    showIn(result);
    $(id("cost")).textContent = text;
    const button = $(id("download"));
    button.hidden = !download;
    if (download) button.textContent = download;
    confirm.hidden = false;
    (download ? button : $(id("files"))).focus();
  }

  $(id("run")).addEventListener("click", async () => {
    confirm.hidden = true;
    const name = choice();
    try {
      busy(true, "Starting the local model");
      const items = await answers().finally(() => busy(false));
      const known = modelId(name);
      const todo = known ? await models.missingScores(known, items) : items.length;
      if (todo && models.heldClassifier()?.id !== known) {
        if (name === OWN) {
          ask("Your own NLI model: pick its config.json, model.safetensors and tokenizer.json (a BERT, XLM-R or DeBERTa-v2 " +
            "sequence classifier trained on NLI, with entailment in its labels). Nothing is downloaded; the files are not pinned, " +
            "so each file's sha256 is shown and recorded with the verdicts (trust on first use).", null);
          return;
        }
        busy(true, "Starting the local model");
        const spec = await models.spec(name).finally(() => busy(false));
        if (!spec.cached) {
          const bytes = spec.files.reduce((s, f) => s + (f.bytes ?? 0), 0);
          const size = bytes ? `${mb(bytes)} or more` : `about ${spec.download_mb} MB`;
          const host = new URL(spec.files[0].url).origin;
          ask(`${spec.repository} (revision ${spec.revision}, ${spec.license}; ${spec.languages_note}) downloads ${size} in ` +
            `${plural(spec.files.length, "file")} (${spec.files.map((f) => f.path).join(", ")}) from ${host}, once: the files are kept ` +
            "in this browser and each file's sha256 is checked before use.", `Download about ${spec.download_mb} MB and decide`);
          return;
        }
      }
    } catch (err) {
      failed(err, el("p", { text: "Nothing was written to the records." }));
      return;
    }
    await run(name === OWN ? null : (n) => models.loadClassifier(n, false, onLoadProgress));
  });

  $(id("download")).addEventListener("click", async () => {
    confirm.hidden = true;
    await run((n) => models.loadClassifier(n, true, onLoadProgress));
  });

  $(id("files")).addEventListener("change", async (event) => {
    const input = /** @type {HTMLInputElement} */ (event.target);
    const files = [...(input.files ?? [])];
    input.value = "";
    if (!files.length) return;
    confirm.hidden = true;
    // A folder picked whole names itself; loose files are "picked files".
    const folder = files[0].webkitRelativePath?.split("/")[0] || "picked files";
    await run((n) => (n === OWN ? models.loadOwnClassifier(folder, files, onLoadProgress) : models.loadClassifierFiles(n, files, onLoadProgress)));
  });

  $(id("cancel")).addEventListener("click", () => {
    if (!abort) return;
    abort.abort();
    if (phase === "load") models.stop();
  });
}
