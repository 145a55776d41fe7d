// IndexedDB store of provider runs ("evenhand-runs"), so a closed tab or a crash loses no
// answer. Two object stores:
//   runs     {run_id, spec (never a key), cases: {name, bytes, as_records}, total, keyed (target
//            ids that had a key, so resume knows to ask), created, state}
//   records  {record_id, run_id, status, record, vectors?}, with an index "run" on run_id; an
//            embedding call's record keeps its vectors beside it (one per id in its prompt).
// Each record is written in its own small transaction the moment it arrives; an answered
// record is never replaced by an error (the error is kept beside it instead).

const DB = "evenhand-runs";
const ANSWERED = new Set(["ok", "refused", "filtered"]);
let opening;

export function openStore() {
  opening ??= new Promise((resolve, reject) => {
    const req = indexedDB.open(DB, 1);
    req.onupgradeneeded = () => {
      const db = req.result;
      db.createObjectStore("runs", { keyPath: "run_id" });
      db.createObjectStore("records", { keyPath: "record_id" }).createIndex("run", "run_id");
    };
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => reject(new Error(`the run store (IndexedDB) could not be opened: ${req.error?.message}`));
    req.onblocked = () => reject(new Error("the run store is blocked by another tab of this page; close it and reload"));
  });
  return opening;
}

/** @returns {Promise<void>} */
const done = (tx) => new Promise((resolve, reject) => {
  tx.oncomplete = () => resolve();
  tx.onerror = () => reject(tx.error);
  tx.onabort = () => reject(tx.error ?? new Error("transaction aborted"));
});
const result = (req) => new Promise((resolve, reject) => {
  req.onsuccess = () => resolve(req.result);
  req.onerror = () => reject(req.error);
});

export async function saveRun(run) {
  const db = await openStore();
  const tx = db.transaction("runs", "readwrite");
  tx.objectStore("runs").put(run);
  return done(tx);
}

export async function setRunState(runId, state) {
  const db = await openStore();
  const tx = db.transaction("runs", "readwrite");
  const runs = tx.objectStore("runs");
  const run = await result(runs.get(runId));
  if (run) runs.put({ ...run, state, updated: Date.now() });
  return done(tx);
}

export async function getRun(runId) {
  const db = await openStore();
  return result(db.transaction("runs").objectStore("runs").get(runId));
}

/** Writes one record (with an embedding call's vectors); resolves when it is committed. */
export function putRecord(db, record, vectors = null) {
  // "strict": complete means on disk, so even a crash of the machine keeps a paid answer
  // (measured: no slower than "relaxed" at the rates a tab reaches).
  const tx = db.transaction("records", "readwrite", { durability: "strict" });
  const store = tx.objectStore("records");
  const row = { record_id: record.record_id, run_id: record.run_id, status: record.status, record };
  if (vectors) row.vectors = vectors;
  if (ANSWERED.has(record.status)) {
    // An answer replaces whatever is stored: no need to read it first (one request, not two).
    store.put(row);
  } else {
    const get = store.get(record.record_id);
    get.onsuccess = () => {
      const old = get.result;
      store.put(old && ANSWERED.has(old.status) ? { ...old, record: { ...old.record, error: record.error } } : row);
    };
  }
  return done(tx);
}

export async function runRecords(runId) {
  const db = await openStore();
  const rows = await result(db.transaction("records").objectStore("records").index("run").getAll(runId));
  return rows.map((r) => r.record);
}

/** The answered embedding calls of a run: [{record, vectors}]. */
export async function runVectors(runId) {
  const db = await openStore();
  const rows = await result(db.transaction("records").objectStore("records").index("run").getAll(runId));
  return rows.filter((r) => Array.isArray(r.vectors)).map((r) => ({ record: r.record, vectors: r.vectors }));
}

/** Runs not finished, newest first, each with how many of its calls are answered and failed. */
export async function unfinishedRuns() {
  const db = await openStore();
  const runs = await result(db.transaction("runs").objectStore("runs").getAll());
  const out = [];
  for (const run of runs.filter((r) => r.state !== "finished")) {
    const rows = await result(db.transaction("records").objectStore("records").index("run").getAll(run.run_id));
    const answered = rows.filter((r) => ANSWERED.has(r.status)).length;
    out.push({ run_id: run.run_id, created: run.created, state: run.state, total: run.total, answered,
      failed: rows.length - answered, keyed: run.keyed ?? [], targets: run.spec.targets.map((t) => t.id),
      origin: run.cases?.origin ?? null });
  }
  return out.sort((a, b) => b.created - a.created);
}

export async function deleteRun(runId) {
  const db = await openStore();
  const tx = db.transaction(["runs", "records"], "readwrite");
  tx.objectStore("runs").delete(runId);
  const records = tx.objectStore("records");
  const keys = await result(records.index("run").getAllKeys(runId));
  for (const k of keys) records.delete(k);
  return done(tx);
}
