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

/** The most a file without a pin may bring (the CLI's limit is larger, as it writes to disk;
 *  the page holds the file in memory). No unpinned file in the catalogue comes near it. */
export const UNPINNED_LIMIT = 1 << 30;

/** The body is longer than the file can be: the download was stopped at one byte over. */
export class TooLong extends Error {
  constructor(url, limit, pinned) {
    super(`${url}: refused: the server sent more than ${limit} bytes (` + (pinned
      ? `the pinned file has ${limit} bytes, so this is not it`
      : `a file without a pin may have at most ${limit} bytes`) + "); nothing was kept");
    this.url = url;
  }
}

/** Reads `response`'s body, stopping (and cancelling the rest) as soon as it passes `limit`:
 *  one byte over is enough to know, and a server that streams without end must not grow the
 *  page without end. @returns {Promise<Uint8Array>} */
async function readCapped(url, response, limit, pinned, onProgress, total) {
  const chunks = [];
  let received = 0;
  const over = () => new TooLong(url, limit, pinned);
  if (response.body) {
    const reader = response.body.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      received += value.length;
      if (received > limit) {
        await reader.cancel().catch(() => {});
        throw over();
      }
      chunks.push(value);
      onProgress(received, total);
    }
  } else {
    const all = new Uint8Array(await response.arrayBuffer());
    if (all.length > limit) throw over();
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
  return data;
}

/** fetch(), with a failure to reach the host as Unreachable and an HTTP error as an Error. */
async function get(url) {
  let response;
  try {
    response = await fetch(url, { cache: "no-store" });
  } catch (err) {
    throw new Unreachable(url, err.message ?? String(err));
  }
  if (!response.ok) throw new Error(`${url}: HTTP ${response.status}`);
  return response;
}

/** Fetches `url`, reporting progress as onProgress(received, total) (total from the
 *  catalogue, as a mirror need not send Content-Length), stopping at the pinned size plus
 *  one byte, and checks the sha256.
 *  @param {string} url
 *  @param {{bytes: number, sha256: string}} file
 *  @param {(received: number, total: number) => void} [onProgress]
 *  @returns {Promise<Uint8Array>} */
export async function fetchVerified(url, { bytes: total, sha256 }, onProgress = () => {}) {
  const response = await get(url);
  onProgress(0, total);
  const data = await readCapped(url, response, total, true, onProgress, total);
  await check(url, data, sha256);
  return data;
}

/** Fetches a file the catalogue could not pin: nothing to check it against yet, so the
 *  caller records its sha256 (trust on first use). Progress as in fetchVerified, with the
 *  total unknown (0) unless the host sends Content-Length; at most UNPINNED_LIMIT bytes.
 *  @param {string} url
 *  @param {(received: number, total: number) => void} [onProgress]
 *  @returns {Promise<{data: Uint8Array, sha256: string}>} */
export async function fetchUnverified(url, onProgress = () => {}) {
  const response = await get(url);
  const length = Number(response.headers.get("content-length") ?? 0);
  const data = await readCapped(url, response, UNPINNED_LIMIT, false, onProgress, Number.isFinite(length) ? length : 0);
  return { data, sha256: await sha256Hex(data) };
}

// What the first fetch of each unpinned file was, by the host that served it and the
// catalogue URL ("<origin> <url>"): {sha256, bytes, first_fetched, served_by}. Trust on first
// use is per host: a copy a mirror served is trusted as the mirror's, never as the upstream's.
// Kept apart from the files, so removing a file keeps its record: a later fetch is held to it.
const TRUST_KEY = "evenhand-datasets-trust-v1";

/** The origin a file comes from: the mirror's when one serves it, else its own URL's. */
export function servedBy(url, base = mirrorBase()) {
  try {
    return new URL(sourceUrl(url, base)).origin;
  } catch {
    return "";
  }
}

/** The record key of `url` served by `origin` (records written before hosts were kept are
 *  keyed by the URL alone, and were all fetched without a mirror). */
const trustKey = (url, origin) => (origin === new URL(url).origin ? url : `${origin} ${url}`);

/** The trust-on-first-use records. @returns {Record<string, {sha256: string, bytes: number, first_fetched: string, served_by?: string}>} */
export function trustRecords() {
  try {
    const parsed = JSON.parse(localStorage.getItem(TRUST_KEY) ?? "{}");
    return parsed && typeof parsed === "object" ? parsed : {};
  } catch {
    return {};
  }
}

/** The record of `url`'s first fetch from `origin`, or null. */
export function trustRecord(url, origin = servedBy(url)) {
  return trustRecords()[trustKey(url, origin)] ?? null;
}

/** Records the first fetch of an unpinned file from `origin`. */
export function trust(url, sha256, bytes, origin = servedBy(url)) {
  const all = trustRecords();
  all[trustKey(url, origin)] = { sha256, bytes, first_fetched: new Date().toISOString(), served_by: origin };
  localStorage.setItem(TRUST_KEY, JSON.stringify(all));
}

/** Throws HashMismatch unless `data` hashes to `sha256`. */
export async function check(url, data, sha256) {
  const actual = await sha256Hex(data);
  if (actual !== sha256.toLowerCase()) throw new HashMismatch(url, sha256.toLowerCase(), actual);
}

/** Cache Storage exists only in secure contexts (https, localhost). */
export const canStore = () => typeof caches !== "undefined";

/** Where a file is kept: a pinned file under its catalogue URL (mirror or not, the bytes are
 *  the pinned ones); an unpinned one under the URL it was served from, as its trust is that
 *  host's (file.cacheUrl). */
const keyOf = (file) => file.cacheUrl ?? file.url;

/** Keeps verified bytes, with the host that served them (x-served-by). */
export async function store(file, data, origin = servedBy(file.url)) {
  if (!canStore()) return false;
  const cache = await caches.open(CACHE);
  await cache.put(keyOf(file), new Response(data, {
    headers: { "content-type": "application/octet-stream", "content-length": String(data.length), "x-sha256": file.sha256,
      "x-served-by": origin },
  }));
  return true;
}

/** The host a kept file was served by, or null (kept before hosts were recorded, or absent). */
export async function keptFrom(file) {
  const cache = await existing();
  const hit = await cache?.match(keyOf(file));
  return hit?.headers.get("x-served-by") ?? null;
}

// Reading must not create the cache: a visit that never loads a file leaves no trace.
const existing = async () => (canStore() && (await caches.has(CACHE)) ? caches.open(CACHE) : null);

/** The stored bytes of a catalogue file, checked again (storage can be cut short), or null. */
export async function stored(file) {
  const cache = await existing();
  if (!cache) return null;
  const hit = await cache.match(keyOf(file));
  if (!hit) return null;
  const data = new Uint8Array(await hit.arrayBuffer());
  try {
    await check(file.url, data, file.sha256);
  } catch {
    await cache.delete(keyOf(file));
    return null;
  }
  return data;
}

/** The keys stored now, each with the host that served it ("" when not recorded).
 *  @returns {Promise<Map<string, string>>} */
export async function storedUrls() {
  const cache = await existing();
  if (!cache) return new Map();
  const out = new Map();
  for (const r of await cache.keys()) out.set(r.url, (await cache.match(r))?.headers.get("x-served-by") ?? "");
  return out;
}

export async function remove(file) {
  const cache = await existing();
  await cache?.delete(keyOf(file));
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
