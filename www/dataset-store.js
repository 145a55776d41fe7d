// The catalogue's files in the browser: fetched with progress, checked against their pinned
// sha256, and kept in Cache Storage so a reload or an offline visit needs no network. A file
// whose hash differs is never stored. The service worker (sw.js) leaves this cache alone.

export const CACHE = "evenhand-datasets-v1";
// The host a mirror replaces (catalogue-schema: the path is kept, the origin swapped).
const RAW_HOST = "https://raw.githubusercontent.com";

/** The bytes are not the pinned file: `expected` and `actual` are sha256 in hex. */
export class HashMismatch extends Error {
  constructor(url, expected, actual) {
    super(`${url}: the file's sha256 is ${actual}, but the catalogue pins ${expected}; it was not kept`);
    this.url = url;
    this.expected = expected;
    this.actual = actual;
  }
}

/** fetch() itself failed: no HTTP answer reached the page (a host without CORS headers, or
 *  no network at all; the browser does not say which). */
export class Unreachable extends Error {
  constructor(url, cause) {
    super(`${url} could not be fetched from this page (${cause})`);
    this.url = url;
  }
}

/** The catalogue beside index.html (copied there by ./build.sh). */
export async function loadCatalogue() {
  const url = new URL("data/catalogue.json", document.baseURI).href;
  let response;
  try {
    response = await fetch(url);
  } catch (err) {
    throw new Error(`data/catalogue.json could not be fetched: ${err.message ?? err}`);
  }
  if (!response.ok) throw new Error(`data/catalogue.json: HTTP ${response.status} (./build.sh build copies datasets/catalogue.json there)`);
  let catalogue;
  try {
    catalogue = await response.json();
  } catch (err) {
    throw new Error(`data/catalogue.json is not JSON: ${err.message ?? err}`);
  }
  if (catalogue?.format !== "evenhand-catalogue" || !Array.isArray(catalogue.datasets)) {
    throw new Error(`data/catalogue.json: expected {"format": "evenhand-catalogue", "datasets": [...]}`);
  }
  return catalogue;
}

/** The mirror named by ?datasets-base=URL (tests, and hosts that mirror), or null. */
export function mirrorBase(search = location.search) {
  const base = new URLSearchParams(search).get("datasets-base");
  return base ? base.replace(/\/+$/, "") : null;
}

/** Where a catalogue file is fetched from: its URL, or the mirror's copy at the same path. */
export function sourceUrl(url, base = mirrorBase()) {
  return base && url.startsWith(`${RAW_HOST}/`) ? base + url.slice(RAW_HOST.length) : url;
}

export async function sha256Hex(bytes) {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
  return [...digest].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/** Fetches `url`, reporting progress as onProgress(received, total) (total from the
 *  catalogue, as a mirror need not send Content-Length), and checks the sha256.
 *  @param {string} url
 *  @param {{bytes: number, sha256: string}} file
 *  @param {(received: number, total: number) => void} [onProgress]
 *  @returns {Promise<Uint8Array>} */
export async function fetchVerified(url, { bytes: total, sha256 }, onProgress = () => {}) {
  let response;
  try {
    response = await fetch(url, { cache: "no-store" });
  } catch (err) {
    throw new Unreachable(url, err.message ?? String(err));
  }
  if (!response.ok) throw new Error(`${url}: HTTP ${response.status}`);
  const chunks = [];
  let received = 0;
  onProgress(0, total);
  if (response.body) {
    const reader = response.body.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      received += value.length;
      onProgress(received, total);
    }
  } else {
    const all = new Uint8Array(await response.arrayBuffer());
    chunks.push(all);
    received = all.length;
    onProgress(received, total);
  }
  const data = new Uint8Array(received);
  let at = 0;
  for (const c of chunks) {
    data.set(c, at);
    at += c.length;
  }
  await check(url, data, sha256);
  return data;
}

/** Fetches a file the catalogue could not pin: nothing to check it against yet, so the
 *  caller records its sha256 (trust on first use). Progress as in fetchVerified, with the
 *  total unknown (0) unless the host sends Content-Length.
 *  @param {string} url
 *  @param {(received: number, total: number) => void} [onProgress]
 *  @returns {Promise<{data: Uint8Array, sha256: string}>} */
export async function fetchUnverified(url, onProgress = () => {}) {
  let response;
  try {
    response = await fetch(url, { cache: "no-store" });
  } catch (err) {
    throw new Unreachable(url, err.message ?? String(err));
  }
  if (!response.ok) throw new Error(`${url}: HTTP ${response.status}`);
  const data = new Uint8Array(await response.arrayBuffer());
  onProgress(data.length, data.length);
  return { data, sha256: await sha256Hex(data) };
}

// What the first fetch of each unpinned file was, by catalogue URL: {sha256, bytes, first_fetched}.
// Kept apart from the files, so removing a file keeps its record: a later fetch is held to it.
const TRUST_KEY = "evenhand-datasets-trust-v1";

/** The trust-on-first-use records. @returns {Record<string, {sha256: string, bytes: number, first_fetched: string}>} */
export function trustRecords() {
  try {
    const parsed = JSON.parse(localStorage.getItem(TRUST_KEY) ?? "{}");
    return parsed && typeof parsed === "object" ? parsed : {};
  } catch {
    return {};
  }
}

/** Records the first fetch of an unpinned file. */
export function trust(url, sha256, bytes) {
  const all = trustRecords();
  all[url] = { sha256, bytes, first_fetched: new Date().toISOString() };
  localStorage.setItem(TRUST_KEY, JSON.stringify(all));
}

/** Throws HashMismatch unless `data` hashes to `sha256`. */
export async function check(url, data, sha256) {
  const actual = await sha256Hex(data);
  if (actual !== sha256.toLowerCase()) throw new HashMismatch(url, sha256.toLowerCase(), actual);
}

/** Cache Storage exists only in secure contexts (https, localhost). */
export const canStore = () => typeof caches !== "undefined";

/** Keeps verified bytes under the file's catalogue URL (mirror or not, the bytes are the same). */
export async function store(file, data) {
  if (!canStore()) return false;
  const cache = await caches.open(CACHE);
  await cache.put(file.url, new Response(data, {
    headers: { "content-type": "application/octet-stream", "content-length": String(data.length), "x-sha256": file.sha256 },
  }));
  return true;
}

// Reading must not create the cache: a visit that never loads a file leaves no trace.
const existing = async () => (canStore() && (await caches.has(CACHE)) ? caches.open(CACHE) : null);

/** The stored bytes of a catalogue file, checked again (storage can be cut short), or null. */
export async function stored(file) {
  const cache = await existing();
  if (!cache) return null;
  const hit = await cache.match(file.url);
  if (!hit) return null;
  const data = new Uint8Array(await hit.arrayBuffer());
  try {
    await check(file.url, data, file.sha256);
  } catch {
    await cache.delete(file.url);
    return null;
  }
  return data;
}

/** The URLs stored now. */
export async function storedUrls() {
  const cache = await existing();
  if (!cache) return new Set();
  return new Set((await cache.keys()).map((r) => r.url));
}

export async function remove(file) {
  const cache = await existing();
  await cache?.delete(file.url);
}

/** {usage, quota} of the whole origin, when the browser tells. */
export async function estimate() {
  try {
    return await navigator.storage.estimate();
  } catch {
    return {};
  }
}

/** "3.1 MB" */
export function size(n) {
  if (n == null || !Number.isFinite(n)) return "?";
  if (n < 1000) return `${n} B`;
  const units = ["kB", "MB", "GB"];
  let x = n;
  let i = -1;
  do {
    x /= 1000;
    i++;
  } while (x >= 1000 && i < units.length - 1);
  return `${x.toFixed(x < 10 ? 1 : 0)} ${units[i]}`;
}
