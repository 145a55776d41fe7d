// Local models on the page: a worker of their own (models-worker.js) loads the third wasm module
// (pkg-models/) only when a local model is first used, holds one model at a time, and turns
// texts into vectors a few at a time, so the page can show progress and cancel between calls.
// Vectors are kept per model and answer hash for the page's life: a rerun embeds nothing anew.

/** Texts per worker call: a smooth progress bar, and a cancel heard within a second or so. */
const STEP = 8;

/** @type {Worker | null} */
let worker = null;
let next = 0;
/** @type {Map<number, {resolve: (v: any) => void, reject: (e: Error) => void, onProgress?: (p: any) => void}>} */
const pending = new Map();
/** `${model} ${sha256(text)}` -> vector. */
const vectors = new Map();

function start() {
  if (worker) return worker;
  const w = new Worker(new URL("./models-worker.js", import.meta.url), { type: "module" });
  w.onmessage = (event) => {
    const { id, result, error, trapped, progress } = event.data;
    const p = pending.get(id);
    if (!p) return;
    if (progress) {
      p.onProgress?.(progress);
      return;
    }
    pending.delete(id);
    if (error !== undefined) {
      if (trapped) stop();
      p.reject(new Error(error));
    } else {
      p.resolve(result);
    }
  };
  w.onerror = (event) => {
    // The module could not load (offline before it was ever fetched, say): every call fails.
    event.preventDefault();
    const message = `The local models could not start (${event.message || "their module did not load"})`;
    for (const p of pending.values()) p.reject(new Error(message));
    pending.clear();
    stop();
  };
  worker = w;
  return w;
}

/** Ends the worker (and the model it holds); a call in flight fails with `why`. */
export function stop(why = "cancelled") {
  if (worker) worker.terminate();
  worker = null;
  for (const p of pending.values()) p.reject(new Error(why));
  pending.clear();
}

function send(message, onProgress, transfer = []) {
  const w = start();
  const id = ++next;
  return new Promise((resolve, reject) => {
    pending.set(id, { resolve, reject, onProgress });
    w.postMessage({ id, ...message }, { transfer });
  });
}

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
export function load(name, fetchMissing, onProgress) {
  return send({ op: "load", name, base: modelsBase(), fetchMissing }, onProgress);
}

/** Loads `name` from files the user picked (checked as downloads are).
 * @param {string} name @param {File[]} files */
export async function loadFiles(name, files, onProgress) {
  const data = await Promise.all(files.map(async (f) => ({ name: f.name, data: await f.arrayBuffer() })));
  return send({ op: "loadFiles", name, files: data }, onProgress, data.map((f) => f.data));
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
  for (let at = 0; at < todo.length; at += STEP) {
    signal?.throwIfAborted();
    const chunk = todo.slice(at, at + STEP);
    /** @type {Float32Array} */
    const flat = await send({ op: "embed", name, texts: chunk.map((i) => texts[i]) });
    const dim = flat.length / chunk.length;
    chunk.forEach((i, j) => vectors.set(keys[i], Array.from(flat.subarray(j * dim, (j + 1) * dim))));
    onProgress?.(reused + Math.min(at + STEP, todo.length), total);
  }
  return { vectors: keys.map((k) => vectors.get(k)), computed: todo.length, reused };
}
