// Local models on the page: workers of their own (models-worker.js, managed by models-pool.js) load
// the third wasm module (pkg-models/) only when a local model is first used; each holds one model at
// a time. Texts become vectors a few at a time on every worker holding the embedder (a pool: the
// first worker downloads, the others load from Cache Storage), so the page can show progress and
// cancel between calls.
// Vectors are kept per model and answer hash for the page's life: a rerun embeds nothing anew.
// The zero-shot NLI refusal detector runs in the first worker alone (one model at a time):
// P(refuse) is kept per (model, language, answer hash), so a rerun under any rule costs nothing.

import * as pool from "./models-pool.js";

/** Texts per worker call: a smooth progress bar, and a cancel heard within a second or so. */
const STEP = 8;

/** `${model} ${sha256(text)}` -> vector. */
const vectors = new Map();
/** `${model} ${language} ${sha256(text)}` -> P(refuse); a rule's verdicts are derived from it. */
const scores = new Map();
/** What the first worker holds: the describe() of its last loaded model, or null. */
let held = null;
/** Every NLI model loaded in this page's life, by id: what its verdicts are recorded under. */
const classifiers = new Map();
/** Answers per classify call: both hypotheses of each in one forward pass, progress between calls. */
const NLI_STEP = 8;

pool.whenStopped(() => {
  held = null;
});

/** Ends the workers (and the models they hold); a call in flight fails with `why`. */
export function stop(why = "cancelled") {
  pool.stop(why);
}

const send = pool.send;

/** The mirror named by ?models-base=URL (tests, and hosts that mirror the hub), or "". */
export function modelsBase(search = location.search) {
  return new URLSearchParams(search).get("models-base")?.replace(/\/+$/, "") ?? "";
}

/** The catalogue entry of `name` (what it costs to download, its files and URLs), and whether
 *  its files are in Cache Storage already. Starts the worker. */
export function spec(name) {
  return send({ op: "spec", name, base: modelsBase() });
}

/** Loads `name` from Cache Storage, downloading what is missing when `fetchMissing`; resolves to
 *  {name, dimension, files: [{file, status, sha256, pinned}]}. */
export async function load(name, fetchMissing, onProgress) {
  pool.narrow(name);
  return widen(name, modelsBase(), await holding(send({ op: "load", name, base: modelsBase(), fetchMissing }, onProgress)));
}

/** Loads `name` from files the user picked (checked as downloads are).
 * @param {string} name @param {File[]} files */
export async function loadFiles(name, files, onProgress) {
  pool.narrow(name);
  // The Files themselves (structured-cloned as handles, not read here): the worker reads the
  // weights in slices, so they are never whole in memory. The picked files are kept under the
  // catalogue's own URLs (base ""), where the pool's other workers load them from.
  return widen(name, "", await holding(send({ op: "loadFiles", name, files }, onProgress)));
}

/** Once the first worker holds the embedder (and Cache Storage its files): as many more workers
 *  as its size allows load it too. Resolves to the first worker's describe(). */
async function widen(name, base, described) {
  const spec = await send({ op: "spec", name, base });
  const bytes = spec.files.reduce((n, f) => n + (f.bytes ?? 0), 0) || spec.download_mb * 1e6;
  await pool.widen(name, base, pool.workersFor(bytes));
  return described;
}

async function sha256(text) {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/** How many of `texts` have no vector of `name` kept yet. @param {string[]} texts */
export async function missing(name, texts) {
  let n = 0;
  for (const t of texts) if (!vectors.has(`${name} ${await sha256(t)}`)) n++;
  return n;
}

/** The vectors of `texts` by the loaded model `name`: kept ones reused, the rest computed a few at
 *  a time. `onProgress(done, total)` counts texts; `signal` cancels between calls.
 * @param {string} name @param {string[]} texts
 * @param {{onProgress?: (done: number, total: number) => void, signal?: AbortSignal}} options
 * @returns {Promise<{vectors: number[][], computed: number, reused: number}>} */
export async function embed(name, texts, { onProgress, signal } = {}) {
  const keys = await Promise.all(texts.map(async (t) => `${name} ${await sha256(t)}`));
  const todo = [];
  const queued = new Set();
  keys.forEach((k, i) => {
    if (!vectors.has(k) && !queued.has(k)) {
      queued.add(k);
      todo.push(i);
    }
  });
  // Texts kept from earlier runs (a text given twice is computed once, and counted there).
  const reused = keys.filter((k) => vectors.has(k)).length;
  const total = reused + todo.length;
  onProgress?.(reused, total);
  signal?.throwIfAborted();
  // Texts of similar length share a chunk, since a chunk is padded to its longest text: by
  // length in characters, a proxy for tokens (the vectors are kept by text, so order is free).
  todo.sort((a, b) => texts[b].length - texts[a].length);
  const chunks = [];
  for (let at = 0; at < todo.length; at += STEP) chunks.push(todo.slice(at, at + STEP));
  // Chunks go to whichever worker is free; each vector is kept under its text's key, so the
  // order they come back in does not matter.
  let done = 0;
  await pool.each(name, chunks.map((chunk) => ({ op: "embed", name, texts: chunk.map((i) => texts[i]) })),
    (k, /** @type {Float32Array} */ flat) => {
      const chunk = chunks[k];
      const dim = flat.length / chunk.length;
      chunk.forEach((i, j) => vectors.set(keys[i], Array.from(flat.subarray(j * dim, (j + 1) * dim))));
      done += chunk.length;
      onProgress?.(reused + done, total);
    }, signal);
  return { vectors: keys.map((k) => vectors.get(k)), computed: todo.length, reused };
}

/** Each started worker's wasm memory in bytes (a model's cost once loaded; the benches report it).
 * @returns {Promise<number[]>} */
export function workerMemory() {
  return pool.everyWorker({ op: "memory" });
}

/** Which build of the models module the workers run: "relaxed" (relaxed SIMD's fused
 *  multiply-add in the matrix kernel) or "plain". @returns {Promise<string>} */
export function simd() {
  return send({ op: "simd" });
}

/** Remembers what the worker holds after a load (a failed load leaves it holding nothing). */
function holding(promise) {
  return promise.then((d) => {
    held = d;
    if (d.label !== undefined) classifiers.set(d.id, d);
    return d;
  }, (err) => {
    held = null;
    throw err;
  });
}

/** The NLI model the worker holds now ({id, label, files, ...}), or null. */
export function heldClassifier() {
  return held?.label !== undefined ? held : null;
}

/** An NLI model loaded earlier in this page's life ({id, label, files, ...}), or null. */
export function knownClassifier(id) {
  return classifiers.get(id) ?? null;
}

/** The user's own NLI model loaded last in this page's life, or null. */
export function lastOwnClassifier() {
  return [...classifiers.values()].filter((d) => d.id.startsWith("own:")).pop() ?? null;
}

/** Loads the catalogue NLI model `name` (Cache Storage first; the network when `fetchMissing`). */
export function loadClassifier(name, fetchMissing, onProgress) {
  pool.narrow(); // NLI models stay on the first worker: the extras' embedders go
  return holding(send({ op: "loadClassifier", name, base: modelsBase(), fetchMissing }, onProgress));
}

/** Loads the catalogue NLI model `name` from the files the user picked (checked against its pins).
 * @param {string} name @param {File[]} files */
export async function loadClassifierFiles(name, files, onProgress) {
  pool.narrow();
  // The Files themselves, as loadFiles: a base NLI model's weights are never whole in memory.
  return holding(send({ op: "loadClassifierFiles", name, files }, onProgress));
}

/** Loads the user's own NLI model folder (no pin: each file's sha256 is reported, trust on first use).
 * @param {string} folder @param {File[]} files */
export async function loadOwnClassifier(folder, files, onProgress) {
  pool.narrow();
  return holding(send({ op: "loadOwnClassifier", folder, files }, onProgress));
}

/** Of `languages`, those the zero-shot rule has no labels for. @param {string[]} languages
 * @returns {Promise<string[]>} */
export function unlabelled(languages) {
  return send({ op: "unlabelled", languages: [...new Set(languages)] });
}

const scoreKey = async (model, item) => `${model} ${item.language} ${await sha256(item.text)}`;

/** How many of `items` ({text, language}) have no P(refuse) of `model` kept yet (any rule's
 *  verdicts come from it without the model). */
export async function missingScores(model, items) {
  let n = 0;
  for (const item of items) if (!scores.has(await scoreKey(model, item))) n++;
  return n;
}

/** P(refuse) and the verdict under `rule` of each item ({text, language}) by the NLI model the
 *  worker holds, `model` (its id): P kept from earlier runs (under any rule) reused, the rest
 *  computed a few answers at a time; the verdicts come from P by the models module's own rule
 *  (nli_verdicts, the CLI's), so switching rules runs nothing. `onProgress(done, total)` counts
 *  answers; `signal` cancels between calls.
 * @param {string} model @param {string} rule @param {{text: string, language: string}[]} items
 * @param {{onProgress?: (done: number, total: number) => void, signal?: AbortSignal}} options
 * @returns {Promise<{p_refuse: number[], refusal: boolean[], computed: number, reused: number}>} */
export async function classify(model, rule, items, { onProgress, signal } = {}) {
  const keys = await Promise.all(items.map((item) => scoreKey(model, item)));
  const todo = [];
  const queued = new Set();
  keys.forEach((k, i) => {
    if (!scores.has(k) && !queued.has(k)) {
      queued.add(k);
      todo.push(i);
    }
  });
  const reused = keys.filter((k) => scores.has(k)).length;
  const total = reused + todo.length;
  onProgress?.(reused, total);
  for (let at = 0; at < todo.length; at += NLI_STEP) {
    signal?.throwIfAborted();
    const chunk = todo.slice(at, at + NLI_STEP);
    const out = await send({ op: "classify", name: model, rule, texts: chunk.map((i) => items[i].text), languages: chunk.map((i) => items[i].language) });
    chunk.forEach((i, j) => scores.set(keys[i], out.p_refuse[j]));
    onProgress?.(reused + Math.min(at + NLI_STEP, todo.length), total);
  }
  const p_refuse = keys.map((k) => scores.get(k));
  /** @type {boolean[]} */
  const refusal = await send({ op: "verdicts", p_refuse, rule });
  return { p_refuse, refusal, computed: todo.length, reused };
}
