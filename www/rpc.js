// Promise-based calls into the worker that holds the wasm: call("op", ...args) sends
// {id, op, args} and settles when {id, ok, value | error} comes back. An ArrayBuffer marked
// by read-file.js's transferable() is moved to the worker rather than copied.
import { TRANSFER } from "./read-file.js";

/**
 * A typed `call` into a worker whose operation table is `Ops` (worker.js's or run-worker.js's
 * `ops`): an operation name the table lacks fails the type check (`npx tsc -p jsconfig.json`).
 * @template Ops
 * @typedef {<K extends keyof Ops & string>(op: K, ...args: Ops[K] extends (...a: infer A) => any ? A : never)
 *   => Promise<Ops[K] extends (...a: any[]) => infer R ? Awaited<R> : never>} Call
 */

/** The analysis worker's calls (worker.js). @typedef {Call<import("./worker.js").Ops>} AnalysisCall */
/** The run worker's calls (run-worker.js). @typedef {Call<import("./run-worker.js").Ops>} RunCall */

/**
 * @param {Worker} worker
 * @returns {(op: string, ...args: any[]) => Promise<any>} typed by the caller as an AnalysisCall or a RunCall
 */
export function connect(worker) {
  let next = 1;
  const pending = new Map();

  worker.addEventListener("message", ({ data }) => {
    const waiting = pending.get(data.id);
    if (!waiting) return;
    pending.delete(data.id);
    if (data.ok) waiting.resolve(data.value);
    else waiting.reject(data.error);
  });

  // A worker that fails to start (script or wasm missing) would otherwise leave every call hanging.
  worker.addEventListener("error", (event) => {
    const error = { kind: "worker", message: `The analysis engine could not start: ${event.message || "the worker failed to load"}` };
    for (const waiting of pending.values()) waiting.reject(error);
    pending.clear();
  });

  return function call(op, ...args) {
    const id = next++;
    return new Promise((resolve, reject) => {
      pending.set(id, { resolve, reject });
      const moved = args.filter((a) => a instanceof ArrayBuffer && TRANSFER.has(a));
      worker.postMessage({ id, op, args }, moved);
    });
  };
}
