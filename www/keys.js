// API keys for the Run tab's targets, by target id. Held in this module's memory by default;
// only when the user ticks "remember in this tab" are they copied to sessionStorage (which the
// browser drops with the tab). Never written to a URL, IndexedDB, an export or a log: the run
// worker gets them by postMessage and puts them only into the headers of its own target.

const STORE = "evenhand-keys";
const keys = new Map();
let remember = false;

try {
  const saved = sessionStorage.getItem(STORE);
  if (saved) {
    remember = true;
    for (const [target, key] of Object.entries(JSON.parse(saved))) if (typeof key === "string") keys.set(target, key);
  }
} catch {
  sessionStorage.removeItem(STORE); // unreadable: start clean rather than guess
}

function persist() {
  if (remember && keys.size) sessionStorage.setItem(STORE, JSON.stringify(Object.fromEntries(keys)));
  else sessionStorage.removeItem(STORE);
}

export const getKey = (target) => keys.get(target) ?? "";

export function setKey(target, key) {
  const k = String(key ?? "").trim();
  if (k) keys.set(target, k);
  else keys.delete(target);
  persist();
}

/** Keys for these target ids, as {id: key}, leaving out the ones not known. */
export function keysFor(targets) {
  return Object.fromEntries(targets.filter((t) => keys.has(t)).map((t) => [t, keys.get(t)]));
}

export const remembered = () => remember;

export function setRemember(on) {
  remember = Boolean(on);
  persist();
}
