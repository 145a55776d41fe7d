// PERMANOVA on every core: a pool of module workers (permanova-worker.js), each holding the
// full wasm module. Every member builds the same job from the same request and counts a
// contiguous share of the permutations, a chunk per call (progress after each chunk, cancel
// heard between chunks); one member then absorbs every chunk's counts and reports. A
// permutation's F does not depend on where it ran and only the counts are summed, so the
// report has the same bits as the job run alone (src/stats/permanova.rs).
// Not wasm threads: they need a SharedArrayBuffer, which browsers give only to cross-origin
// isolated pages (COOP/COEP headers), and a static host cannot promise those.
import { transferable } from "./read-file.js";
import { connect } from "./rpc.js";

/** Members: one per core, at most four (each holds its own copy of the numbers). */
export const POOL_SIZE = Math.min(navigator.hardwareConcurrency || 2, 4);
/** The wasm kernel's block of permutations (permanova_kernel.rs): shares start on one. */
const BLOCK = 64;
/** Permutations per call: two blocks, about 0.1 s at 2,000 points of dimension 768. */
const CHUNK = 2 * BLOCK;

/** @typedef {{worker: Worker, call: (op: string, ...args: any[]) => Promise<any>, broken: boolean}} Member */
/** @type {Member[]} */
let members = [];
/** Runs one at a time: each uses every member. */
let queue = Promise.resolve();

function start() {
  const worker = new Worker(new URL("./permanova-worker.js", import.meta.url), { type: "module" });
  /** @type {Member} */
  const m = { worker, call: connect(worker), broken: false };
  // A worker that did not start (its script or the wasm missing) is replaced on the next run.
  worker.addEventListener("error", () => {
    m.broken = true;
  });
  return m;
}

/** The members, created on first use and reused; a broken one is replaced. */
function pool() {
  members = Array.from({ length: POOL_SIZE }, (_, i) => {
    const m = members[i];
    if (m && !m.broken) return m;
    m?.worker.terminate();
    return start();
  });
  return members;
}

/** Contiguous shares of 0..total, one per member, split on block boundaries. */
function shares(total, k) {
  const cut = (i) => Math.min(total, Math.round((total * i) / k / BLOCK) * BLOCK);
  return Array.from({ length: k }, (_, i) => [cut(i), i === k - 1 ? total : cut(i + 1)]);
}

/**
 * PERMANOVA with PERMDISP on every core: the report `PermanovaRun.result()` gives, bit for bit.
 * @param {object} query the request's settings (src/stats/permanova_query.rs)
 * @param {Float64Array} values its numbers
 * @param {{onProgress?: (done: number, total: number) => void, signal?: AbortSignal}} [options]
 * @returns {Promise<any>} rejects with the first failing member's error, or the signal's reason
 */
export function runPermanova(query, values, { onProgress, signal } = {}) {
  const run = queue.then(() => runNow(query, values, onProgress, signal));
  queue = run.catch(() => {});
  return run;
}

/** A member's call; a trap (a panic in its wasm) marks the member for replacement. */
function ask(m, op, ...args) {
  return m.call(op, ...args).catch((error) => {
    if (error?.trapped) m.broken = true;
    throw error;
  });
}

async function runNow(query, values, onProgress, signal) {
  signal?.throwIfAborted();
  const all = pool();
  let stop = false;
  try {
    // Each member gets its own copy moved to it (a copy here, no second copy there); the
    // members start sooner than with a structured clone, though a whole run measured the same.
    const [{ total }] = await Promise.all(all.map((m) => ask(m, "open", query, transferable(values.slice().buffer))));
    const parts = shares(total, all.length);
    /** @type {any[]} */
    const counts = [];
    let done = 0;
    await Promise.all(all.map(async (m, i) => {
      try {
        for (let [first, to] = parts[i]; first < to && !stop && !signal?.aborted; ) {
          const end = Math.min(first + CHUNK, to);
          counts.push(await ask(m, "count", first, end));
          done += end - first;
          first = end;
          onProgress?.(done, total);
        }
      } catch (error) {
        stop = true; // the other members stop after their chunk in flight
        throw error;
      }
    }));
    signal?.throwIfAborted();
    for (const m of all.slice(1)) ask(m, "close").catch(() => {}); // frees their copies of the numbers
    return await ask(all[0], "finish", counts);
  } catch (error) {
    for (const m of all) if (!m.broken) ask(m, "close").catch(() => {});
    throw error;
  }
}
