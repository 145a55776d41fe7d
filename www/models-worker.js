// The local models' worker: the third wasm module (pkg-models/, built from crates/evenhand-models),
// started by models.js only when a local model is first used, so the page's first load never
// fetches it. It holds one model at a time. Weights come from Cache Storage, else from the
// catalogue's URL (or the mirror the page names) by a plain GET; every file is checked in Rust
// against the catalogue's sha256 before it is used. Two kinds of model: an embedder (vectors)
// and a zero-shot NLI classifier (P(refuse) and a verdict per answer); the user's own NLI model
// folder loads without a pin (trust on first use, each file's sha256 reported).
// Memory: model.safetensors is never whole in this worker. A download streams into Cache
// Storage; the cached Blob (or the user's File) is then read in 16 MB slices into a
// WeightsFeeder, which fills the tensors and hashes as it goes: the peak is the tensors and one
// slice, not the file, its copy in wasm and the tensors.
// nli_verdicts: the NLI rule itself (the CLI's), applied to P(refuse) the page keeps: no model needed.
// Two builds of the module: pkg-models-relaxed has WebAssembly relaxed SIMD's fused multiply-add
// in its matrix kernel (an embedding about a tenth faster: docs/performance.md), but does not load
// in a browser without relaxed SIMD (Safari), which gets pkg-models, the same code rounding twice.
// A 35-byte module holding one f32x4.relaxed_madd tells which; ?simd=plain (models-simd=plain on
// the page) forces the plain build, for tests and comparisons.
const RELAXED_PROBE = new Uint8Array([
  0, 97, 115, 109, 1, 0, 0, 0, 1, 6, 1, 96, 1, 123, 1, 123, 3, 2, 1, 0, 10, 13, 1, 11, 0, 32, 0, 32, 0, 32, 0, 253, 133, 2, 11,
]);
const SIMD = new URLSearchParams(self.location.search).get("simd") !== "plain" && WebAssembly.validate(RELAXED_PROBE)
  ? "relaxed" : "plain";
/** @typedef {import("./pkg-models/evenhand_models.js").LocalEmbedder} LocalEmbedder */
/** @typedef {import("./pkg-models/evenhand_models.js").LocalClassifier} LocalClassifier */
/** The module's exports, once loaded. @type {typeof import("./pkg-models/evenhand_models.js")} */
let wasm;
// (A module worker: the module is imported dynamically, so this file says it is a module itself.)
export {};
const ready = (SIMD === "relaxed" ? import("./pkg-models-relaxed/evenhand_models.js") : import("./pkg-models/evenhand_models.js"))
  .then((module) => {
    wasm = module;
    return module.default();
  });
// Kept across builds: sw.js spares this cache when it deletes an old build's.
const CACHE = "evenhand-models-v1";
const WEIGHTS = "model.safetensors";
/** Bytes per slice fed to the weights reader. */
const CHUNK = 16 << 20;

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

/** A file's bytes: a Blob (a cached Response's, or the user's File) or bytes already in memory
 *  (models.js's other pickers still send those). @typedef {Blob | Uint8Array} Source */

/** @param {Source} source */
const sizeOf = (source) => (source instanceof Blob ? source.size : source.byteLength);

/** Bytes [a, b) of `source`. @param {Source} source @param {number} a @param {number} b */
async function slice(source, a, b) {
  return source instanceof Blob ? new Uint8Array(await source.slice(a, b).arrayBuffer()) : source.subarray(a, b);
}

/** The cached copy of a file's URL as a Blob (not read), or null. */
async function cached(cache, url) {
  const hit = await cache.match(url);
  return hit ? hit.blob() : null;
}

/** A plain GET (no Range, HEAD or Authorization: the hub's CDN refuses their preflights),
 *  streamed into Cache Storage as it arrives, counted so the page can show how much has come.
 *  Cache Storage keeps the entry only once the body is complete: a cancel (the worker ended)
 *  or a broken connection leaves nothing half-downloaded. */
async function download(id, file, cache) {
  const response = await fetch(file.url, { referrerPolicy: "no-referrer", credentials: "omit", cache: "no-store" });
  if (!response.ok || !response.body) throw new Error(`${file.path}: ${file.url} answered HTTP ${response.status}`);
  const total = file.bytes ?? (Number(response.headers.get("content-length")) || 0);
  let got = 0;
  const counting = new TransformStream({
    transform(part, controller) {
      got += part.length;
      post({ id, progress: { file: file.path, got, total } });
      controller.enqueue(part);
    },
  });
  const body = response.body.pipeThrough(counting);
  await cache.put(file.url, new Response(body, { headers: { "content-type": "application/octet-stream" } }));
}

/** A small file (config.json, tokenizer.json) read whole and checked against its pin. */
async function checked(id, name, path, source) {
  post({ id, progress: { file: path, checking: true } });
  const bytes = await slice(source, 0, sizeOf(source));
  wasm.check_file(name, path, bytes);
  return bytes;
}

/** The weights read slice by slice into `feeder` (progress per slice), then finished: the pin
 *  and the file's completeness checked. Returns the finished feeder, for a model to take. */
async function feed(id, feeder, source) {
  try {
    const size = sizeOf(source);
    for (let at = 0; at < size; at += CHUNK) {
      post({ id, progress: { file: WEIGHTS, checking: true, read: at, size } });
      feeder.feed(await slice(source, at, Math.min(at + CHUNK, size)));
    }
    feeder.finish();
    return feeder;
  } catch (err) {
    feeder.free();
    throw err;
  }
}

/** Each file, checked: from Cache Storage, from the network when `fetchMissing`, or from the
 *  files the user picked. The weights come back as a finished WeightsFeeder, the others as
 *  bytes. A file that fails its pin (or is malformed) is refused, and dropped from the cache if
 *  it was there. */
async function gather(id, name, base, fetchMissing, picked) {
  const spec = wasm.model_spec(name, base);
  const cache = await caches.open(CACHE);
  const out = {};
  try {
    for (const file of spec.files) {
      /** @type {Source | null} */
      let source = picked ? picked.get(file.path) ?? null : await cached(cache, file.url);
      if (source === null) {
        if (picked) throw new Error(`${file.path}: not among the picked files (expected ${spec.files.map((f) => f.path).join(", ")})`);
        if (!fetchMissing) throw new Error(`${file.path}: not downloaded yet`);
        await download(id, file, cache);
        source = await cached(cache, file.url);
        if (source === null) throw new Error(`${file.path}: Cache Storage did not keep the download`);
      }
      try {
        out[file.path] = file.path === WEIGHTS ? await feed(id, new wasm.WeightsFeeder(name), source) : await checked(id, name, file.path, source);
      } catch (err) {
        if (!picked) await cache.delete(file.url);
        throw err;
      }
      // A picked file that passed is kept as a download would be (a File streams from disk):
      // the pool's other workers load it from there, and the next visit needs no picking.
      if (picked) {
        const body = source instanceof Blob ? source : new Blob([/** @type {Uint8Array<ArrayBuffer>} */ (source)]);
        await cache.put(file.url, new Response(body, { headers: { "content-type": "application/octet-stream" } }));
      }
    }
  } catch (err) {
    out[WEIGHTS]?.free();
    throw err;
  }
  return out;
}

/** A model built from gathered files; the feeder's handle is freed once its tensors are taken. */
function build(files, make) {
  try {
    return make(files["config.json"], files[WEIGHTS], files["tokenizer.json"]);
  } finally {
    files[WEIGHTS].free();
  }
}

async function load(id, name, base, fetchMissing, picked) {
  if (loaded?.name === name && loaded.embedder) return loaded.embedder.describe();
  // One model at a time: the old one's memory goes before the new one's arrives.
  unload();
  const files = await gather(id, name, base, fetchMissing, picked);
  post({ id, progress: { file: WEIGHTS, parsing: true } });
  const embedder = build(files, (c, w, t) => new wasm.LocalEmbedder(name, c, w, t));
  loaded = { name, embedder };
  return embedder.describe();
}

/** A catalogue NLI model, as `load` does for an embedder. */
async function loadClassifier(id, name, base, fetchMissing, picked) {
  if (loaded?.name === name && loaded.classifier) return loaded.classifier.describe();
  unload();
  const files = await gather(id, name, base, fetchMissing, picked);
  post({ id, progress: { file: WEIGHTS, parsing: true } });
  const classifier = build(files, (c, w, t) => new wasm.LocalClassifier(name, c, w, t));
  loaded = { name, classifier };
  return classifier.describe();
}

const OWN_FILES = ["config.json", WEIGHTS, "tokenizer.json"];

/** The user's own NLI model folder: no pin, nothing cached; its key is the weights' sha256. */
async function loadOwn(id, folder, picked) {
  const missing = OWN_FILES.filter((f) => !picked.has(f));
  if (missing.length) throw new Error(`${missing.join(", ")}: not among the picked files (expected ${OWN_FILES.join(", ")})`);
  unload();
  const whole = (f) => slice(picked.get(f), 0, sizeOf(picked.get(f)));
  const [config, tokenizer] = [await whole("config.json"), await whole("tokenizer.json")];
  const weights = await feed(id, wasm.WeightsFeeder.unpinned(), picked.get(WEIGHTS));
  const files = { "config.json": config, [WEIGHTS]: weights, "tokenizer.json": tokenizer };
  const classifier = build(files, (c, w, t) => wasm.LocalClassifier.own(folder, c, w, t));
  const described = classifier.describe();
  loaded = { name: described.id, classifier };
  return described;
}

/** Picked files by name: the File itself (read in slices), or bytes models.js read already.
 *  @param {({name: string} & (Blob | {data: ArrayBuffer}))[]} files */
const pickedMap = (files) => new Map(files.map((f) => [f.name, f instanceof Blob ? f : new Uint8Array(f.data)]));

const ops = {
  /** The catalogue entry, and which of its files Cache Storage has. */
  async spec({ name, base }) {
    const spec = wasm.model_spec(name, base);
    const cache = await caches.open(CACHE);
    const kept = await Promise.all(spec.files.map(async (f) => Boolean(await cache.match(f.url))));
    return { ...spec, cached: kept.every(Boolean), loaded: loaded?.name === name };
  },
  load: ({ id, name, base, fetchMissing }) => load(id, name, base, fetchMissing, null),
  /** Files the user picked (offline, or the hub blocked): the Files themselves, by name. */
  loadFiles: ({ id, name, files }) => load(id, name, "", false, pickedMap(files)),
  /** Vectors of a few texts, row after row. */
  embed({ name, texts }) {
    if (loaded?.name !== name || !loaded.embedder) throw new Error(`the model ${name} is not loaded`);
    return loaded.embedder.embed(texts);
  },
  loadClassifier: ({ id, name, base, fetchMissing }) => loadClassifier(id, name, base, fetchMissing, null),
  /** A catalogue NLI model's files picked by the user (checked against its pins). */
  loadClassifierFiles: ({ id, name, files }) => loadClassifier(id, name, "", false, pickedMap(files)),
  /** The user's own NLI model folder (trust on first use). */
  loadOwnClassifier: ({ id, folder, files }) => loadOwn(id, folder, pickedMap(files)),
  /** This worker's wasm memory in bytes: what its model, tokenizer and work hold (it never shrinks). */
  memory: async () => (await ready).memory.buffer.byteLength,
  /** Which build of the module this worker runs: "relaxed" or "plain". */
  simd: () => SIMD,
  /** The languages among these the zero-shot rule has no labels for. */
  unlabelled: ({ languages }) => wasm.nli_unlabelled(languages),
  /** The verdicts of kept P(refuse) values under a rule (no model involved). */
  verdicts: ({ p_refuse, rule }) => Array.from(wasm.nli_verdicts(new Float64Array(p_refuse), rule), Boolean),
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
