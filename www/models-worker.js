// The local models' worker: the third wasm module (pkg-models/, built from crates/evenhand-models),
// started by models.js only when a local model is first used, so the page's first load never
// fetches it. It holds one model at a time. Weights come from Cache Storage, else from the
// catalogue's URL (or the mirror the page names) by a plain GET; every file is checked in Rust
// against the catalogue's sha256 before it is kept or parsed. Two kinds of model: an embedder
// (vectors) and a zero-shot NLI classifier (P(refuse) and a verdict per answer); the user's own
// NLI model folder loads without a pin (trust on first use, each file's sha256 reported).
import init, { model_spec, check_file, nli_unlabelled, LocalEmbedder, LocalClassifier } from "./pkg-models/evenhand_models.js";
// The NLI rule itself (the CLI's), applied to P(refuse) the page keeps: no model needed.
import { nli_verdicts } from "./pkg-models/evenhand_models.js";

const ready = init();
// Kept across builds: sw.js spares this cache when it deletes an old build's.
const CACHE = "evenhand-models-v1";

/** The one model held: its key (the catalogue name, or "own:" and the weights' sha256) and kind.
 * @type {{ name: string, embedder?: LocalEmbedder, classifier?: LocalClassifier } | null} */
let loaded = null;

/** Frees the model held, before another one's bytes arrive. */
function unload() {
  loaded?.embedder?.free();
  loaded?.classifier?.free();
  loaded = null;
}

const post = (message) => self.postMessage(message);

/** The cached copy of a file's URL, or null. */
async function cached(url) {
  const cache = await caches.open(CACHE);
  const hit = await cache.match(url);
  return hit ? new Uint8Array(await hit.arrayBuffer()) : null;
}

/** A plain GET (no Range, HEAD or Authorization: the hub's CDN refuses their preflights),
 *  read in chunks so the page can show how much has arrived. */
async function download(id, file) {
  const response = await fetch(file.url, { referrerPolicy: "no-referrer", credentials: "omit", cache: "no-store" });
  if (!response.ok) throw new Error(`${file.path}: ${file.url} answered HTTP ${response.status}`);
  const total = file.bytes ?? (Number(response.headers.get("content-length")) || 0);
  const reader = /** @type {ReadableStreamDefaultReader<Uint8Array>} */ (response.body.getReader());
  const parts = [];
  let got = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    parts.push(value);
    got += value.length;
    post({ id, progress: { file: file.path, got, total } });
  }
  const bytes = new Uint8Array(got);
  let at = 0;
  for (const p of parts) {
    bytes.set(p, at);
    at += p.length;
  }
  return bytes;
}

/** Each file's bytes, checked: from Cache Storage, from the network when `fetchMissing`, or
 *  from the files the user picked. A file whose bytes fail the pin is refused (and dropped
 *  from the cache, if it came from there). */
async function gather(id, name, base, fetchMissing, picked) {
  const spec = model_spec(name, base);
  const cache = await caches.open(CACHE);
  const out = {};
  for (const file of spec.files) {
    let bytes = picked ? picked.get(file.path) ?? null : await cached(file.url);
    const fromCache = !picked && bytes !== null;
    if (bytes === null) {
      if (picked) throw new Error(`${file.path}: not among the picked files (expected ${spec.files.map((f) => f.path).join(", ")})`);
      if (!fetchMissing) throw new Error(`${file.path}: not downloaded yet`);
      bytes = await download(id, file);
    }
    post({ id, progress: { file: file.path, checking: true } });
    try {
      check_file(name, file.path, bytes);
    } catch (err) {
      if (fromCache) await cache.delete(file.url);
      throw err;
    }
    if (!fromCache) await cache.put(file.url, new Response(bytes, { headers: { "content-type": "application/octet-stream" } }));
    out[file.path] = bytes;
  }
  return out;
}

async function load(id, name, base, fetchMissing, picked) {
  if (loaded?.name === name && loaded.embedder) return loaded.embedder.describe();
  // One model at a time: the old one's memory goes before the new one's arrives.
  unload();
  const files = await gather(id, name, base, fetchMissing, picked);
  post({ id, progress: { file: "model.safetensors", parsing: true } });
  const embedder = new LocalEmbedder(name, files["config.json"], files["model.safetensors"], files["tokenizer.json"]);
  loaded = { name, embedder };
  return embedder.describe();
}

/** A catalogue NLI model, as `load` does for an embedder. */
async function loadClassifier(id, name, base, fetchMissing, picked) {
  if (loaded?.name === name && loaded.classifier) return loaded.classifier.describe();
  unload();
  const files = await gather(id, name, base, fetchMissing, picked);
  post({ id, progress: { file: "model.safetensors", parsing: true } });
  const classifier = new LocalClassifier(name, files["config.json"], files["model.safetensors"], files["tokenizer.json"]);
  loaded = { name, classifier };
  return classifier.describe();
}

const OWN_FILES = ["config.json", "model.safetensors", "tokenizer.json"];

/** The user's own NLI model folder: no pin, nothing cached; its key is the weights' sha256. */
function loadOwn(id, folder, picked) {
  const missing = OWN_FILES.filter((f) => !picked.has(f));
  if (missing.length) throw new Error(`${missing.join(", ")}: not among the picked files (expected ${OWN_FILES.join(", ")})`);
  unload();
  post({ id, progress: { file: "model.safetensors", checking: true } });
  const classifier = LocalClassifier.own(folder, picked.get("config.json"), picked.get("model.safetensors"), picked.get("tokenizer.json"));
  const described = classifier.describe();
  loaded = { name: described.id, classifier };
  return described;
}

const ops = {
  /** The catalogue entry, and which of its files Cache Storage has. */
  async spec({ name, base }) {
    const spec = model_spec(name, base);
    const cache = await caches.open(CACHE);
    const kept = await Promise.all(spec.files.map(async (f) => Boolean(await cache.match(f.url))));
    return { ...spec, cached: kept.every(Boolean), loaded: loaded?.name === name };
  },
  load: ({ id, name, base, fetchMissing }) => load(id, name, base, fetchMissing, null),
  /** Files the user picked (offline, or the hub blocked): [{name, data}] by their file names. */
  loadFiles: ({ id, name, files }) => {
    const picked = new Map(files.map((f) => [f.name, new Uint8Array(f.data)]));
    return load(id, name, "", false, picked);
  },
  /** Vectors of a few texts, row after row. */
  embed({ name, texts }) {
    if (loaded?.name !== name || !loaded.embedder) throw new Error(`the model ${name} is not loaded`);
    return loaded.embedder.embed(texts);
  },
  loadClassifier: ({ id, name, base, fetchMissing }) => loadClassifier(id, name, base, fetchMissing, null),
  /** A catalogue NLI model's files picked by the user (checked against its pins). */
  loadClassifierFiles: ({ id, name, files }) => loadClassifier(id, name, "", false, new Map(files.map((f) => [f.name, new Uint8Array(f.data)]))),
  /** The user's own NLI model folder (trust on first use). */
  loadOwnClassifier: ({ id, folder, files }) => loadOwn(id, folder, new Map(files.map((f) => [f.name, new Uint8Array(f.data)]))),
  /** The languages among these the zero-shot rule has no labels for. */
  unlabelled: ({ languages }) => nli_unlabelled(languages),
  /** The verdicts of kept P(refuse) values under a rule (no model involved). */
  verdicts: ({ p_refuse, rule }) => Array.from(nli_verdicts(new Float64Array(p_refuse), rule), Boolean),
  /** P(refuse) and verdicts of a few answers under the rule. */
  classify({ name, texts, languages, rule }) {
    if (loaded?.name !== name || !loaded.classifier) throw new Error(`the NLI model ${name} is not loaded`);
    return loaded.classifier.detect(texts, languages, rule);
  },
};

self.onmessage = async (event) => {
  const { id, op } = event.data;
  try {
    await ready;
    if (!(op in ops)) throw new Error(`unknown operation ${op}`);
    const result = await ops[op](event.data);
    if (result instanceof Float32Array) self.postMessage({ id, result }, { transfer: [result.buffer] });
    else post({ id, result });
  } catch (err) {
    // A trap (RuntimeError) leaves the module unusable: say so, and models.js starts afresh.
    const trapped = err instanceof WebAssembly.RuntimeError;
    if (trapped) loaded = null;
    post({ id, error: trapped ? `the local model stopped (${err.message})` : String(err?.message || err), trapped });
  }
};
