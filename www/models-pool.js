// The models workers (models-worker.js) behind models.js: the first one does everything a single
// worker did (specs, loads, downloads, NLI); for embeddings up to N-1 more load the same model from
// Cache Storage after the first has downloaded and kept it, and chunks of texts go to whichever
// worker is free. N = min(cores, 4), fewer when N copies of the model would pass MEMORY_BUDGET;
// ?models-workers=N pins it (1: the single worker of before). Each worker holds one model at a time;
// a worker that fails (its module did not load, or a wasm trap) ends them all, so every call in
// flight fails once with its message and the next call starts afresh.

/** What the workers' copies of one model may take together (each holds the model's weights). */
const MEMORY_BUDGET = 1.5e9;
const MAX_WORKERS = 4;

/** @typedef {{worker: Worker, holds: string | null}} Slot */
/** @type {Slot[]} slots[0] is the first worker; the others only ever embed. */
let slots = [];
let next = 0;
/** Counts stop()s: a widen that a stop interrupted keeps none of its workers. */
let generation = 0;
/** @type {Map<number, {resolve: (v: any) => void, reject: (e: Error) => void, onProgress?: (p: any) => void}>} */
const pending = new Map();
/** @type {(() => void)[]} */
const onStop = [];

/** How many workers a model of `bytes` gets (the page's URL may pin it). */
export function workersFor(bytes, search = location.search, cores = navigator.hardwareConcurrency || 1) {
  const pinned = Number(new URLSearchParams(search).get("models-workers"));
  if (Number.isInteger(pinned) && pinned >= 1) return Math.min(pinned, MAX_WORKERS);
  let n = Math.max(1, Math.min(cores, MAX_WORKERS));
  while (n > 1 && n * bytes > MEMORY_BUDGET) n--;
  return n;
}

/** @returns {Slot} */
function spawn() {
  const url = new URL("./models-worker.js", import.meta.url);
  // ?models-simd=plain: the module without relaxed SIMD, where the browser has it too.
  if (new URLSearchParams(location.search).get("models-simd") === "plain") url.search = "?simd=plain";
  /** @type {Slot} */
  const slot = { worker: new Worker(url, { type: "module" }), holds: null };
  slot.worker.onmessage = (event) => {
    const { id, result, error, trapped, progress } = event.data;
    const p = pending.get(id);
    if (!p) return;
    if (progress) {
      p.onProgress?.(progress);
      return;
    }
    pending.delete(id);
    if (error !== undefined) {
      if (trapped) stop(error);
      p.reject(new Error(error));
    } else {
      p.resolve(result);
    }
  };
  slot.worker.onerror = (event) => {
    // The module could not load (offline before it was ever fetched, say): every call fails.
    event.preventDefault();
    stop(`The local models could not start (${event.message || "their module did not load"})`);
  };
  return slot;
}

/** `fn` runs whenever the workers end (what they held is gone). */
export function whenStopped(fn) {
  onStop.push(fn);
}

/** Ends every worker (and the models they hold); each call in flight fails with `why`. */
export function stop(why = "cancelled") {
  for (const s of slots) s.worker.terminate();
  slots = [];
  generation++;
  for (const p of pending.values()) p.reject(new Error(why));
  pending.clear();
  for (const fn of onStop) fn();
}

/** A call to `slot` (the first worker when none is named, started if need be).
 * @param {object} message @param {((p: any) => void) | undefined} [onProgress]
 * @param {Transferable[]} [transfer] @param {Slot | null} [slot] @returns {Promise<any>} */
export function send(message, onProgress, transfer = [], slot = null) {
  if (!slots.length) slots.push(spawn());
  const target = slot ?? slots[0];
  const id = ++next;
  return new Promise((resolve, reject) => {
    pending.set(id, { resolve, reject, onProgress });
    target.worker.postMessage({ id, ...message }, { transfer });
  });
}

/** The same call to every worker started, their results in order. @param {object} message */
export const everyWorker = (message) => Promise.all(slots.map((s) => send(message, undefined, [], s)));

/** Ends the extra workers unless they hold `keep` (before the first worker loads another model).
 * @param {string | null} [keep] */
export function narrow(keep = null) {
  if (slots.slice(1).every((s) => s.holds === keep)) return;
  for (const s of slots.slice(1)) s.worker.terminate();
  slots = slots.slice(0, 1);
}

/** Brings the workers holding the embedder `name` to `count`, the extras loading it from Cache
 *  Storage (the first worker holds it and has kept its files). An extra that cannot load it
 *  (no Cache Storage, say) is ended: the others embed without it. */
export async function widen(name, base, count) {
  if (!slots.length) return;
  const started = generation;
  slots[0].holds = name;
  narrow(name);
  const extras = [];
  while (slots.length + extras.length < count) extras.push(spawn());
  const loaded = await Promise.all(extras.map((slot) =>
    send({ op: "load", name, base, fetchMissing: false }, undefined, [], slot).then(() => true, () => false)));
  // A stop while they loaded (a cancel): keep none of them.
  if (generation !== started) {
    for (const slot of extras) slot.worker.terminate();
    return;
  }
  extras.forEach((slot, i) => {
    if (loaded[i]) {
      slot.holds = name;
      slots.push(slot);
    } else slot.worker.terminate();
  });
}

/** Runs `calls` on every worker holding `name`, each taking the next call when it is free;
 *  `onResult(k, result)` as each returns. Rejects on the first error, or when `signal` aborts
 *  (the calls in flight finish in their workers; later ones are not sent).
 * @param {string} name @param {object[]} calls @param {(k: number, result: any) => void} onResult
 * @param {AbortSignal} [signal] */
export function each(name, calls, onResult, signal) {
  /** @type {(Slot | null)[]} */
  const workers = slots.length ? slots.filter((s, i) => i === 0 || s.holds === name) : [null];
  let at = 0;
  let over = false;
  const loop = async (/** @type {Slot | null} */ slot) => {
    while (!over && at < calls.length) {
      signal?.throwIfAborted();
      const k = at++;
      onResult(k, await send(calls[k], undefined, [], slot));
    }
  };
  const all = Promise.all(workers.map(loop)).finally(() => { over = true; });
  if (!signal) return all;
  return Promise.race([all, new Promise((_, reject) => {
    if (signal.aborted) reject(signal.reason);
    signal.addEventListener("abort", () => reject(signal.reason), { once: true });
  })]).finally(() => { over = true; });
}

/** How many workers are running now (for the tests and the bench). */
export const size = () => slots.length;
