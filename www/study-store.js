// IndexedDB store of the open study's bundle ("evenhand-study"), so that a study opened from a
// bundle comes back after a reload with the records the bundle brought. sessionStorage (which
// keeps the open study's text) holds a few megabytes at most and is no place for records.
//   bundles  {slot: "open", name, text, saved}: the bundle of the study open in this browser

const DB = "evenhand-study";
let opening;

/** @returns {Promise<IDBDatabase>} */
function openStore() {
  opening ??= new Promise((resolve, reject) => {
    const req = indexedDB.open(DB, 1);
    req.onupgradeneeded = () => req.result.createObjectStore("bundles", { keyPath: "slot" });
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => reject(new Error(`the study store (IndexedDB) could not be opened: ${req.error?.message}`));
    req.onblocked = () => reject(new Error("the study store is blocked by another tab of this page; close it and reload"));
  });
  return opening;
}

/** @param {"readonly" | "readwrite"} mode @param {(s: IDBObjectStore) => IDBRequest} op */
async function run(mode, op) {
  const db = await openStore();
  return new Promise((resolve, reject) => {
    const tx = db.transaction("bundles", mode);
    const req = op(tx.objectStore("bundles"));
    tx.oncomplete = () => resolve(req.result);
    tx.onerror = () => reject(tx.error);
    tx.onabort = () => reject(tx.error ?? new Error("transaction aborted"));
  });
}

/** Keeps `text` (a study bundle) as the open study's. */
export const saveOpenBundle = (name, text) => run("readwrite", (s) => s.put({ slot: "open", name, text, saved: new Date().toISOString() }));

/** The open study's bundle, or null. @returns {Promise<{name: string, text: string} | null>} */
export const openBundle = async () => (await run("readonly", (s) => s.get("open"))) ?? null;

/** Forgets the open study's bundle (another study was opened). */
export const forgetOpenBundle = () => run("readwrite", (s) => s.delete("open"));
