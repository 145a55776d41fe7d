// The run worker: its own wasm instance holds one RunSession, whose `drive` runs the run
// driver written in Rust (src/run/driver.rs, the loop the CLI runs too): it sends the calls
// with fetch, retries, waits out Retry-After, and calls back `store` for every answered or
// failed record, which issues its IndexedDB write before the loop goes on. What is left here
// is glue: the store, the messages to the page (progress at most five times a second as
// {type: "progress"}; calls from the page use rpc.js, {id, op, args}) and the stored runs.
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

function newRun(session, meta) {
  // commit: time from issuing an IndexedDB write to its commit (ms, asynchronous, summed).
  return { session, meta, started: false, storing: 0, storeError: null, commit: { ms: 0, n: 0 } };
}

/** Replaces the current run; an old one still sending is cancelled (its records stay stored). */
function replaceRun(next) {
  if (run?.started) run.session.cancel(performance.now());
  clearInterval(ticker);
  run = next;
}

const bytes = (b) => (b instanceof Uint8Array ? b : new Uint8Array(b));

/** Runs the driver until nothing is in flight or scheduled; while it runs, this only wakes it. */
function drive(r) {
  if (run !== r || !r.started) return;
  r.session.drive((record, vectors) => {
    if (run === r) store(r, record, vectors); // a discarded run keeps nothing
  }, self.location.origin).then((failed) => {
    if (failed) {
      r.storeError = `a record could not be stored (${failed}); the run is paused`;
      postProgress();
    }
    settleIfDone(r);
  }, (error) => post({ type: "error", message: `the run stopped: ${error?.message ?? error}` }));
}

function store(r, record, vectors) {
  const t0 = performance.now();
  r.storing += 1;
  putRecord(r.db, record, vectors).then(
    () => {
      r.commit.ms += performance.now() - t0;
      r.commit.n += 1;
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
  for (const t of p.targets) t.advice = p.advice[t.target] ?? "";
  p.run_id = r.meta.run_id;
  p.kind = r.meta.cases.kind ?? "chat";
  p.origin = r.meta.cases.origin ?? null;
  p.models = [...new Set(r.meta.spec.targets.flatMap((t) => t.models))];
  p.store_error = r.storeError;
  p.overhead.commit_ms = r.commit.ms / Math.max(1, r.commit.n);
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
  drive(r);
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

/** Resolves once `r` has no call in flight and no record being written (at most 60 s). */
async function settled(r) {
  const until = performance.now() + 60_000;
  while ((r.session.in_flight() > 0 || r.storing > 0) && performance.now() < until) {
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

function planned(session) {
  return { estimate: session.estimate(), spec: session.spec(), calls: session.calls() };
}

/** The operations the Run view calls through rpc.js; `Ops` types its `call`. @typedef {typeof ops} Ops */
const ops = {
  providers: () => ({ specs: provider_specs(), prices: builtin_prices() }),

  /** A session for `spec` over `cases` ({name, bytes, as_records}); returns its estimate.
   * With `continues` (a stored run's id), the session takes that run's id and every answer it
   * stored, so starting it sends only the calls still unanswered: `resumed` then says
   * {restored, remaining, failed, total, stale}. */
  plan: async (spec, cases, continues = null) => {
    if (run?.started) {
      // A cancelled run's calls in flight still complete and are stored: wait for them, so
      // that no answer paid for is dropped with the session it arrived for.
      if (continues && run.meta.run_id === continues) await settled(run);
      const state = run.session.progress(performance.now()).state;
      if (state === "running" || state === "paused" || run.session.in_flight() > 0) {
        throw new Error("A run is in progress: cancel it (its records stay stored) or let it finish before planning another.");
      }
    }
    const session = sessionFor(continues ? { ...spec, run_id: continues } : spec, cases);
    let resumed = null;
    if (continues) {
      if (!(await getRun(continues))) throw new Error(`no stored run ${continues}`);
      const restored = session.restore(await runRecords(continues));
      const p = session.progress(performance.now());
      resumed = { restored, remaining: p.remaining, failed: p.failed, answered: p.answered, total: p.total, stale: session.stale() };
    }
    const out = planned(session);
    replaceRun(newRun(session, { run_id: out.spec.run_id, spec: out.spec, cases, state: "planned" }));
    return { ...out, resumed };
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
    replaceRun(newRun(session, { run_id: runId, spec: stored.spec, cases: stored.cases, state: "running" }));
    await setRunState(runId, "running");
    await begin(run, keys);
    return { restored, stale, calls: session.calls(), estimate: session.estimate(), spec: session.spec() };
  },

  unfinished: () => unfinishedRuns(),
  discard: async (runId) => {
    if (run?.meta.run_id === runId) replaceRun(null);
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
    drive(run);
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
    drive(run);
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
