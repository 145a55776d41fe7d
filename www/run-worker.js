// The run worker: its own wasm instance drives one RunSession (the run engine). The loop asks
// `next(now)` for the calls that may start, sends each with plain fetch (only the headers the
// engine built, which carry the target's own key), hands status, headers and body bytes back
// to `complete`, and writes every answered or failed record to IndexedDB the moment it
// arrives. Between completions it sleeps until `wake_at()`. Progress goes to the page at most
// five times a second as {type: "progress"}; calls from the page use rpc.js ({id, op, args}).
//
// Keys arrive by postMessage and live only in the session's memory: nothing here logs a
// dispatch, stores a request, or puts a key into an error.
import init, { RunSession, provider_specs, builtin_prices, models_request, parse_model_list, network_failure_advice } from "./pkg/evenhand.js";
import { openStore, putRecord, saveRun, setRunState, getRun, runRecords, runVectors, unfinishedRuns, deleteRun } from "./run-store.js";

const ready = init().catch((error) => {
  throw new Error(`the run engine (wasm) could not be loaded: ${error.message ?? error}`);
});

/** The planned or running session and what the loop needs beside it. */
let run = null;
let ticker = null;
const PROGRESS_MS = 200;
/** A target whose calls fail this many times in a row without any HTTP answer gets the CORS advice. */
const NETWORK_STREAK = 3;

function newRun(session, meta) {
  return {
    session, meta, started: false, timer: null, storing: 0, storeError: null,
    streak: new Map(), advice: new Map(),
    // Overhead counters (ms): time inside next(), complete() and the synchronous part of the
    // IndexedDB write; the commit itself is asynchronous and measured apart.
    cost: { next: 0, complete: 0, store: 0, commit: 0, calls: 0, committed: 0 },
  };
}

const bytes = (b) => (b instanceof Uint8Array ? b : new Uint8Array(b));

function pump(r) {
  if (run !== r || !r.started) return;
  clearTimeout(r.timer);
  r.timer = null;
  const t0 = performance.now();
  const dispatches = r.session.next(t0);
  r.cost.next += performance.now() - t0;
  for (const d of dispatches) send(r, d);
  const at = r.session.wake_at();
  if (Number.isFinite(at)) r.timer = setTimeout(() => pump(r), Math.max(0, at - performance.now()));
  if (dispatches.length === 0) settleIfDone(r);
}

async function send(r, d) {
  const abort = new AbortController();
  const started = performance.now();
  const timer = setTimeout(() => abort.abort(), d.timeout_ms);
  let response;
  try {
    const res = await fetch(d.url, {
      method: d.method, headers: d.headers, body: d.body ?? undefined, signal: abort.signal,
      // No cache mode: "no-store" would also bypass Chromium's CORS preflight cache and cost
      // one OPTIONS round trip per call (a POST is never served from the HTTP cache anyway).
      credentials: "omit", referrerPolicy: "no-referrer",
    });
    response = { status: res.status, headers: [...res.headers], body: new Uint8Array(await res.arrayBuffer()) };
  } catch (error) {
    response = abort.signal.aborted
      ? { error: "timeout", message: "" }
      : { error: "network", message: String(error?.message ?? error) };
  } finally {
    clearTimeout(timer);
  }
  d.headers = null; // the key goes with them
  completeCall(r, d, response, performance.now() - started);
}

function completeCall(r, d, response, latency) {
  if (run !== r) return; // a discarded run
  const t0 = performance.now();
  let done;
  try {
    done = r.session.complete(d.call, d.attempt, response, latency, Date.now(), t0);
  } catch (error) {
    done = { kind: "ignored" };
    post({ type: "error", message: `a response could not be taken: ${error?.message ?? error}` });
  }
  const t1 = performance.now();
  r.cost.complete += t1 - t0;
  trackNetwork(r, d.target, response);
  if (done.kind === "answered" || done.kind === "failed") {
    r.cost.calls += 1;
    store(r, done.record, done.embeddings ?? null);
    r.cost.store += performance.now() - t1;
  }
  pump(r);
}

function trackNetwork(r, target, response) {
  if (response.error !== "network") {
    r.streak.set(target, 0);
    return;
  }
  const n = (r.streak.get(target) ?? 0) + 1;
  r.streak.set(target, n);
  if (n >= NETWORK_STREAK && !r.advice.has(target)) {
    const t = r.meta.spec.targets.find((x) => x.id === target);
    try {
      r.advice.set(target, network_failure_advice(t.provider, t.base_url ?? undefined, self.location.origin));
    } catch {
      /* an unknown target cannot happen for a planned run; no advice then */
    }
  }
}

function store(r, record, vectors) {
  const t0 = performance.now();
  r.storing += 1;
  putRecord(r.db, record, vectors).then(
    () => {
      r.cost.commit += performance.now() - t0;
      r.cost.committed += 1;
    },
    (error) => {
      // Nothing more is sent once a record could not be kept: a call must not be paid for twice.
      r.storeError = `a record could not be stored (${error?.message ?? error}); the run is paused`;
      r.session.pause(performance.now());
      postProgress();
    },
  ).finally(() => {
    r.storing -= 1;
    settleIfDone(r);
  });
}

async function settleIfDone(r) {
  if (run !== r || r.storing > 0 || r.session.in_flight() > 0) return;
  const p = r.session.progress(performance.now());
  if (p.state === "finished" && r.meta.state !== "finished") {
    r.meta.state = "finished";
    await setRunState(r.meta.run_id, "finished");
    postProgress();
  }
}

function progress() {
  if (!run) return null;
  const r = run;
  const p = r.session.progress(performance.now());
  for (const t of p.targets) t.advice = r.advice.get(t.target) ?? "";
  const calls = Math.max(1, r.cost.calls);
  p.run_id = r.meta.run_id;
  p.kind = r.meta.cases.kind ?? "chat";
  p.origin = r.meta.cases.origin ?? null;
  p.models = [...new Set(r.meta.spec.targets.flatMap((t) => t.models))];
  p.store_error = r.storeError;
  p.overhead = {
    calls: r.cost.calls,
    next_ms: r.cost.next / calls,
    complete_ms: r.cost.complete / calls,
    store_ms: r.cost.store / calls,
    per_call_ms: (r.cost.next + r.cost.complete + r.cost.store) / calls,
    commit_ms: r.cost.commit / Math.max(1, r.cost.committed),
  };
  return p;
}

function post(message) {
  self.postMessage(message);
}

function postProgress() {
  const p = progress();
  if (p) post({ type: "progress", progress: p });
}

function startTicker() {
  clearInterval(ticker);
  ticker = setInterval(() => {
    postProgress();
    if (run && run.meta.state === "finished") clearInterval(ticker);
  }, PROGRESS_MS);
}

function applyKeys(session, keys) {
  for (const [target, key] of Object.entries(keys ?? {})) session.set_key(target, key);
}

async function begin(r, keys) {
  applyKeys(r.session, keys);
  r.db = await openStore();
  r.started = true;
  startTicker();
  pump(r);
  postProgress();
}

/** A session for stored or new cases: {name, bytes, as_records} or, for an embedding run,
 *  {kind: "embed", name, bytes, batch} (JSONL texts). `origin` says which tab handed them over. */
function sessionFor(spec, cases) {
  if (cases.kind === "embed") return RunSession.embed(spec, cases.name, bytes(cases.bytes), cases.batch ?? 64);
  return new RunSession(spec, cases.name, bytes(cases.bytes), Boolean(cases.as_records));
}

/** The vectors the current run stored, per model: [{model, ids, vectors}], ids in text order. */
async function vectorsByModel() {
  if (!run) throw new Error("no run yet");
  const byModel = new Map();
  for (const { record, vectors } of await runVectors(run.meta.run_id)) {
    const b = byModel.get(record.model) ?? { model: record.model, ids: [], vectors: [] };
    const ids = record.prompt.split(" ").filter(Boolean);
    ids.forEach((id, i) => {
      if (vectors[i]) {
        b.ids.push(id);
        b.vectors.push(vectors[i]);
      }
    });
    byModel.set(record.model, b);
  }
  return [...byModel.values()];
}

function planned(session) {
  return { estimate: session.estimate(), spec: session.spec(), calls: session.calls() };
}

/** The operations the Run view calls through rpc.js; `Ops` types its `call`. @typedef {typeof ops} Ops */
const ops = {
  providers: () => ({ specs: provider_specs(), prices: builtin_prices() }),

  /** A session for `spec` over `cases` ({name, bytes, as_records}); returns its estimate. */
  plan: (spec, cases) => {
    if (run?.started) {
      const state = run.session.progress(performance.now()).state;
      if (state === "running" || state === "paused" || run.session.in_flight() > 0) {
        throw new Error("A run is in progress: cancel it (its records stay stored) or let it finish before planning another.");
      }
    }
    const session = sessionFor(spec, cases);
    const out = planned(session);
    clearInterval(ticker);
    run = newRun(session, { run_id: out.spec.run_id, spec: out.spec, cases, state: "planned" });
    return out;
  },

  /** Starts the planned run: the run (without keys) goes to IndexedDB first. */
  start: async (keys) => {
    if (!run || run.started) throw new Error("plan a run first");
    const m = run.meta;
    m.state = "running";
    await saveRun({ run_id: m.run_id, spec: m.spec, cases: { ...m.cases, bytes: bytes(m.cases.bytes) },
      total: run.session.calls(), keyed: Object.keys(keys ?? {}), created: Date.now(), state: "running" });
    await begin(run, keys);
  },

  /** Resumes a stored run: every stored record made for the request the plan sends now is
   * restored, so none is sent again; `stale` counts (and names the cases of) those made for
   * another request, which are set aside and sent again. */
  resumeStored: async (runId, keys) => {
    const stored = await getRun(runId);
    if (!stored) throw new Error(`no stored run ${runId}`);
    const session = sessionFor(stored.spec, stored.cases);
    const records = await runRecords(runId);
    const restored = session.restore(records);
    /** @type {{records: number, cases: string[]}} */
    const stale = session.stale();
    clearInterval(ticker);
    run = newRun(session, { run_id: runId, spec: stored.spec, cases: stored.cases, state: "running" });
    await setRunState(runId, "running");
    await begin(run, keys);
    return { restored, stale, calls: session.calls(), estimate: session.estimate(), spec: session.spec() };
  },

  unfinished: () => unfinishedRuns(),
  discard: async (runId) => {
    if (run?.meta.run_id === runId) {
      clearInterval(ticker);
      run = null;
    }
    await deleteRun(runId);
  },

  setKey: (target, key) => run?.session.set_key(target, key ?? "") ?? false,
  pause: async () => {
    run?.session.pause(performance.now());
    if (run?.started) await setRunState(run.meta.run_id, "paused");
    postProgress();
  },
  resume: async () => {
    if (!run?.started) return;
    run.storeError = null;
    run.session.resume();
    await setRunState(run.meta.run_id, "running");
    pump(run);
    postProgress();
  },
  cancel: async () => {
    if (!run?.started) return;
    run.session.cancel(performance.now());
    await setRunState(run.meta.run_id, "cancelled");
    postProgress();
  },
  retryFailed: async () => {
    if (!run?.started) return 0;
    const n = run.session.retry_failed();
    if (n > 0 && run.meta.state === "finished") {
      run.meta.state = "running";
      await setRunState(run.meta.run_id, "running");
      startTicker();
    }
    pump(run);
    postProgress();
    return n;
  },
  setPrices: (table) => {
    if (run) run.session.set_prices(table);
  },
  progress: () => progress(),
  export: (format) => {
    if (!run) throw new Error("no run yet");
    return run.session.export(format);
  },
  /** An embedding run's vectors so far, per model, from the store (so a resumed run has them all). */
  vectors: () => vectorsByModel(),
  /** The same as JSONL, one {"id", "embedding", "model"} per line (as `evenhand run --embed` writes). */
  embeddingsJsonl: async () => (await vectorsByModel())
    .flatMap((b) => b.ids.map((id, i) => JSON.stringify({ id, embedding: b.vectors[i], model: b.model }) + "\n")).join(""),

  /** The provider's model names, fetched with the user's key (sent only to that provider). */
  listModels: async (kind, baseUrl, key) => {
    const req = models_request(kind, baseUrl || undefined, key || undefined);
    let res;
    try {
      res = await fetch(req.url, { method: req.method, headers: req.headers, credentials: "omit", cache: "no-store", referrerPolicy: "no-referrer" });
    } catch {
      throw new Error(network_failure_advice(kind, baseUrl || undefined, self.location.origin));
    }
    const response = { status: res.status, headers: [...res.headers], body: new Uint8Array(await res.arrayBuffer()) };
    return parse_model_list(kind, response, key || undefined, Date.now());
  },
};

// Errors from the wasm are {kind, message, detail} objects; others get the same shape.
function plain(error) {
  if (error && typeof error === "object" && "message" in error && !(error instanceof Error)) return error;
  return { kind: "internal", message: String(error && error.message ? error.message : error), detail: null };
}

self.addEventListener("message", async ({ data: { id, op, args } }) => {
  if (id === undefined) return;
  try {
    await ready;
    if (!Object.hasOwn(ops, op)) throw new Error(`unknown operation ${op}`);
    self.postMessage({ id, ok: true, value: await ops[op](...(args ?? [])) });
  } catch (error) {
    self.postMessage({ id, ok: false, error: plain(error) });
  }
});
