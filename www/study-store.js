// IndexedDB store of the open study's bundle ("evenhand-study"), so that a study opened from a
// bundle comes back after a reload with the records the bundle brought. sessionStorage (which
// keeps the open study's text) holds a few megabytes at most and is no place for records.
//   bundles  {slot: "open", name, text, sha256, saved}: the bundle of the study open in this
//            browser, with the study's sha256; records added to it later (uploads, simulated
//            answers, a run) are written into it again as a bundle, so a reload brings them back.

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

/** Keeps `text` (a study bundle) as the open study's, filed under the study's sha256. */
export const saveOpenBundle = (name, text, sha256) => run("readwrite", (s) => s.put({ slot: "open", name, text, sha256, saved: new Date().toISOString() }));

/**
 * The open study's bundle again, with the records added since it was opened: written only over
 * the bundle of the same study (same sha256), so a late write never lands on another study's.
 * @returns {Promise<boolean>} whether it was written
 */
export async function saveStudyRecords(name, text, sha256) {
  const db = await openStore();
  return new Promise((resolve, reject) => {
    const tx = db.transaction("bundles", "readwrite");
    const store = tx.objectStore("bundles");
    let written = false;
    const get = store.get("open");
    get.onsuccess = () => {
      if (get.result?.sha256 !== sha256) return;
      store.put({ slot: "open", name, text, sha256, saved: new Date().toISOString() });
      written = true;
    };
    tx.oncomplete = () => resolve(written);
    tx.onerror = () => reject(tx.error);
    tx.onabort = () => reject(tx.error ?? new Error("transaction aborted"));
  });
}

/** The open study's bundle, or null. @returns {Promise<{name: string, text: string, sha256?: string} | null>} */
export const openBundle = async () => (await run("readonly", (s) => s.get("open"))) ?? null;

/** Forgets the open study's bundle (another study was opened). */
export const forgetOpenBundle = () => run("readwrite", (s) => s.delete("open"));
