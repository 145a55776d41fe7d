// Parquet on the page: files are converted by a worker of their own (parquet-worker.js), which
// loads the second wasm module only when first needed. A Parquet file becomes JSON Lines, which
// every reader of the main module takes; a JSON Lines export becomes a Parquet file.

/** @type {Worker | null} */
let worker = null;
let next = 0;
/** @type {Map<number, {resolve: (v: any) => void, reject: (e: Error) => void}>} */
const pending = new Map();

function start() {
  if (worker) return worker;
  const w = new Worker(new URL("./parquet-worker.js", import.meta.url), { type: "module" });
  w.onmessage = (event) => {
    const { id, result, error, trapped, ms } = event.data;
    const p = pending.get(id);
    if (!p) return;
    pending.delete(id);
    if (error !== undefined) {
      if (trapped) stop();
      p.reject(new Error(error));
    } else {
      lastMs = ms;
      p.resolve(result);
    }
  };
  w.onerror = (event) => {
    // The module could not load (offline before it was ever fetched, say): every call fails.
    event.preventDefault();
    const message = `The Parquet reader could not start (${event.message || "its module did not load"})`;
    for (const p of pending.values()) p.reject(new Error(message));
    pending.clear();
    stop();
  };
  worker = w;
  return w;
}

function stop() {
  if (worker) worker.terminate();
  worker = null;
}

/** How long the last conversion took inside the worker, in ms (shown by the tests). */
export let lastMs = 0;

function send(op, name, data) {
  const w = start();
  const id = ++next;
  return new Promise((resolve, reject) => {
    pending.set(id, { resolve, reject });
    w.postMessage({ id, op, name, data }, { transfer: [data] });
  });
}

/** Whether a file is Parquet: by its name, or by the magic "PAR1" at both ends.
 * @param {string} name @param {ArrayBuffer} buffer */
export function isParquet(name, buffer) {
  if (/\.(parquet|parq|pq)$/i.test(name)) return true;
  if (buffer.byteLength < 8) return false;
  const head = new Uint8Array(buffer, 0, 4);
  const tail = new Uint8Array(buffer, buffer.byteLength - 4, 4);
  const magic = (b) => b[0] === 0x50 && b[1] === 0x41 && b[2] === 0x52 && b[3] === 0x31;
  return magic(head) && magic(tail);
}

/** A Parquet file's rows as JSON Lines bytes. The buffer moves to the worker.
 * @param {string} name @param {ArrayBuffer} buffer @returns {Promise<ArrayBuffer>} */
export function parquetToJsonl(name, buffer) {
  return send("toJsonl", name, buffer);
}

/** JSON Lines text as a Parquet file.
 * @param {string} name @param {string} jsonl @returns {Promise<ArrayBuffer>} */
export function jsonlToParquet(name, jsonl) {
  return send("toParquet", name, new TextEncoder().encode(jsonl).buffer);
}
