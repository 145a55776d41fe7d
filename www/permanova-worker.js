// One member of the PERMANOVA pool (permanova-pool.js): the full wasm module and one job at a
// time. Calls arrive as rpc.js sends them ({id, op, args}) and are answered in order.
import { loadTools, plainError } from "./wasm-tools.js";

/** @type {import("./pkg/evenhand.js").PermanovaRun | null} */
let run = null;

function close() {
  run?.free();
  run = null;
}

/** @param {typeof import("./pkg/evenhand.js")} T */
const ops = (T) => ({
  /** Builds the job every member builds from the same request (its numbers moved here as an
   * ArrayBuffer of f64); returns {done, total}. */
  open: (query, buffer) => {
    close();
    run = new T.PermanovaRun(query, new Float64Array(buffer));
    return run.progress();
  },
  /** Counts permutations first..end: {first, end, permanova, permdisp}. */
  count: (first, end) => run.count(first, end),
  /** Absorbs every member's counts into this job and reports (the job is then dropped). */
  finish: (counts) => {
    try {
      for (const c of counts) run.absorb(c);
      return run.result();
    } finally {
      close();
    }
  },
  close,
});

self.addEventListener("message", async ({ data: { id, op, args } }) => {
  try {
    const table = ops(await loadTools());
    if (!Object.hasOwn(table, op)) throw new Error(`unknown operation ${op}`);
    if (op !== "open" && op !== "close" && !run) throw new Error(`${op}: no PERMANOVA job is open`);
    self.postMessage({ id, ok: true, value: table[op](...(args ?? [])) });
  } catch (error) {
    // A trap (a panic in the wasm) leaves the module unusable: the pool replaces this worker.
    self.postMessage({ id, ok: false, error: { ...plainError(error), trapped: error instanceof WebAssembly.RuntimeError } });
  }
});
