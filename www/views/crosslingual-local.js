// The Cross-lingual tab's local embeddings: the loaded answers embedded in this browser by a
// model from the model catalogue (models.js, a worker of its own), no key needed. The vectors
// go back into the session as an embedding run's do (crosslingualUseEmbeddingRun), so PERMANOVA,
// PERMDISP and the PCA plot use them. Before a first download the page says what it costs.
import { $, el, errorMessage, plural, showIn } from "../dom.js";
import * as models from "../models.js";
import { describeFiles, loadProgress, mb } from "./model-load.js";


/** @param {import("../rpc.js").AnalysisCall} call */
export function createCrosslingualLocal(call, refresh) {
  const result = $("crosslingual-local-result");
  const confirm = $("crosslingual-local-confirm");
  const progress = /** @type {HTMLProgressElement} */ ($("crosslingual-local-progress"));
  const status = $("crosslingual-local-status");
  /** @type {AbortController | null} */
  let abort = null;
  // What a cancel interrupts: a download or load ends with the worker; embedding stops between calls.
  let phase = "load";
  /** Catalogue entries seen, by model name. */
  const specs = new Map();
  const specOf = async (name) => specs.get(name) ?? specs.set(name, await models.spec(name)).get(name);

  const failed = (err, ...more) => showIn(result, el("div", { class: "alert", role: "alert" }, el("p", { text: errorMessage(err) }), ...more));
  const model = () => /** @type {HTMLSelectElement} */ ($("crosslingual-local-model")).value;

  /** The loaded answers to embed: {ids, texts}. */
  async function answers() {
    const jsonl = await call("crosslingualEmbedTexts", true);
    const items = jsonl.split("\n").filter((l) => l.trim()).map((l) => JSON.parse(l));
    return { ids: items.map((i) => i.id), texts: items.map((i) => String(i.text)) };
  }

  function busy(on, label = "") {
    $("crosslingual-local-busy").hidden = !on;
    $("crosslingual-local-embed").disabled = on;
    $("crosslingual-local-download").disabled = on;
    progress.removeAttribute("value");
    status.textContent = label;
  }

  const onLoadProgress = loadProgress(progress, status);

  /** Loads the model (from the cache, the network or picked files), embeds, hands the vectors over. */
  async function run(loadModel) {
    const name = model();
    const signal = (abort = new AbortController()).signal;
    busy(true, "Starting the local model");
    try {
      const { ids, texts } = await answers();
      let loaded = null;
      phase = "load";
      if (await models.missing(name, texts)) {
        loaded = await loadModel(name);
        signal.throwIfAborted();
      }
      phase = "embed";
      progress.max = texts.length;
      const out = await models.embed(name, texts, {
        signal,
        onProgress: (done, total) => {
          progress.max = total;
          progress.value = done;
          status.textContent = `${done} of ${plural(total, "answer")} embedded`;
        },
      });
      const spec = await specOf(name);
      const n = await call("crosslingualUseEmbeddingRun", { model: spec.repository, ids, vectors: out.vectors });
      showIn(result, el("p", { class: "success", role: "status", id: "crosslingual-local-done",
        text: `${plural(n, "response")} embedded locally with ${spec.repository} (${plural(out.computed, "distinct text")} computed, ${plural(out.reused, "answer")} reused from this page's earlier runs).` }),
      loaded ? describeFiles(loaded) : null);
      await refresh(null);
    } catch (err) {
      if (signal.aborted) showIn(result, el("p", { role: "status", text: "Cancelled; the earlier vectors, if any, are kept." }));
      else failed(err, el("p", { text: "Nothing was attached; the earlier vectors, if any, are kept." }));
    } finally {
      abort = null;
      busy(false);
    }
  }

  $("crosslingual-local-embed").addEventListener("click", async () => {
    confirm.hidden = true;
    const name = model();
    try {
      const { texts } = await answers();
      if (await models.missing(name, texts)) {
        busy(true, "Starting the local model");
        const spec = await models.spec(name).finally(() => busy(false));
        specs.set(name, spec);
        if (!spec.cached && !spec.loaded) {
          // A first use: say what the download costs, and from where, before it happens.
          const bytes = spec.files.reduce((s, f) => s + (f.bytes ?? 0), 0);
          const size = bytes ? `${mb(bytes)} or more` : `about ${spec.download_mb} MB`;
          const host = new URL(spec.files[0].url).origin;
          showIn(result);
          $("crosslingual-local-cost").textContent = `${spec.repository} (revision ${spec.revision}, ${spec.license}) downloads ` +
            `${size} in ${plural(spec.files.length, "file")} (${spec.files.map((f) => f.path).join(", ")}) from ${host}, once: ` +
            "the files are kept in this browser and each file's sha256 is checked before use.";
          $("crosslingual-local-download").textContent = `Download about ${spec.download_mb} MB and embed`;
          confirm.hidden = false;
          return;
        }
      }
    } catch (err) {
      failed(err);
      return;
    }
    await run((n) => models.load(n, false, onLoadProgress));
  });

  $("crosslingual-local-download").addEventListener("click", async () => {
    confirm.hidden = true;
    await run((n) => models.load(n, true, onLoadProgress));
  });

  $("crosslingual-local-files").addEventListener("change", async (event) => {
    const input = /** @type {HTMLInputElement} */ (event.target);
    const files = [...(input.files ?? [])];
    input.value = "";
    if (!files.length) return;
    confirm.hidden = true;
    await run((n) => models.loadFiles(n, files, onLoadProgress));
  });

  $("crosslingual-local-cancel").addEventListener("click", () => {
    if (!abort) return;
    abort.abort();
    if (phase === "load") models.stop();
  });
}
