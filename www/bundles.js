// Opening bundles: from a chosen file or from a ?bundle=<url> address. A bundle may point to
// its records by URL instead of carrying them; then the page fetches those too, but only with
// the visitor's say-so when they are on another site, and never from the visitor's own
// machine or private network (unless the page itself is served from there): a bundle is a
// file anyone can send, and its records_url must not make the visitor's browser reach places
// the sender cannot.

import { el } from "./dom.js";

/** Whether `hostname` (as URL.hostname gives it) is this machine, a private network or a
 *  link-local address: loopback, RFC 1918, CGNAT, link-local, unique-local IPv6, .localhost
 *  and .local names. */
export function isPrivateHost(hostname) {
  const h = hostname.toLowerCase().replace(/^\[|\]$/g, "").replace(/\.$/, "");
  if (h === "localhost" || h.endsWith(".localhost") || h.endsWith(".local") || h === "") return true;
  const v4 = h.match(/^(\d+)\.(\d+)\.(\d+)\.(\d+)$/);
  if (v4) return privateV4(v4.slice(1).map(Number));
  if (!h.includes(":")) return false;
  if (h === "::" || h === "::1" || /^f[cd]/.test(h) || /^fe[89ab]/.test(h)) return true;
  // IPv4 mapped into IPv6 (the URL parser writes ::ffff:127.0.0.1 as ::ffff:7f00:1).
  const mapped = h.match(/^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/);
  if (mapped) {
    const [hi, lo] = [parseInt(mapped[1], 16), parseInt(mapped[2], 16)];
    return privateV4([hi >> 8, hi & 255, lo >> 8, lo & 255]);
  }
  return false;
}

/** @param {number[]} octets the address's four numbers */
function privateV4(octets) {
  const [a, b] = octets;
  return a === 127 || a === 10 || a === 0 || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168) ||
    (a === 169 && b === 254) || (a === 100 && b >= 64 && b <= 127);
}

/** Asks the visitor, in a modal dialog, whether to fetch `url`. @returns {Promise<boolean>} */
export function askToFetch(url) {
  const origin = new URL(url).origin;
  const dialog = el("dialog", { id: "records-url-confirm", "aria-labelledby": "records-url-confirm-title" },
    el("h2", { id: "records-url-confirm-title", text: "Fetch this bundle's records from another site?" }),
    el("p", { text: `The bundle does not carry its records; it says they are at ${url}, on ${origin}, ` +
      `which is not this page's site (${location.origin}). Fetching them tells that site you opened this bundle.` }),
    el("form", { method: "dialog" },
      el("button", { value: "fetch", text: "Fetch the records" }), " ",
      el("button", { value: "no", text: "Don't fetch", autofocus: true })));
  document.body.append(dialog);
  return new Promise((resolve) => {
    dialog.addEventListener("close", () => {
      resolve(dialog.returnValue === "fetch");
      dialog.remove();
    });
    dialog.showModal();
  });
}

/** Refuses (throws) an address on the visitor's own machine or private network, unless the
 *  page is served from one too. `what` names the address in the message. */
function notPrivate(url, what) {
  const u = new URL(url);
  if (u.protocol !== "https:" && u.protocol !== "http:") {
    throw { kind: "fetch", message: `${what} ${url} is not an http or https address; it was not fetched.` };
  }
  if (isPrivateHost(u.hostname) && !isPrivateHost(location.hostname)) {
    throw { kind: "fetch", message: `${what} ${url} is on your own machine or private network; ` +
      `this page (${location.origin}) does not fetch from such addresses for a link or a bundle, so it was not fetched.` };
  }
}

/** Refuses (throws) a records_url the page must not fetch, and asks the visitor about one on
 *  another site. */
async function mayFetch(url, ask) {
  notPrivate(url, "The bundle's records_url");
  if (new URL(url).origin !== location.origin && !(await ask(url))) {
    throw { kind: "fetch", message: `The bundle's records are at ${url}, on another site; you chose not to fetch them, ` +
      "so the bundle was not opened." };
  }
}

/** A fetch that failed, with a message that says why it most likely did. */
class FetchFailure extends Error {
  constructor(url, status, statusText) {
    const message = status
      ? `Could not fetch ${url}: the server answered HTTP ${status}${statusText ? ` ${statusText}` : ""}. ` +
        (status === 404 ? "There is no file at that address (404): check the link." : "Check the link and the server.")
      : `Could not fetch ${url}: the request failed before any HTTP status arrived. This is most often CORS: ` +
        "the server must send an Access-Control-Allow-Origin header (for example Access-Control-Allow-Origin: *) " +
        "for other sites to read the file. It can also be a wrong address, a server that is down, or an address " +
        "this page may not contact (https addresses are allowed).";
    super(message);
    this.kind = "fetch";
    this.status = status ?? null;
  }
}

async function fetchOk(url) {
  let response;
  try {
    response = await fetch(url, { credentials: "omit" });
  } catch {
    throw new FetchFailure(url, null);
  }
  if (!response.ok) throw new FetchFailure(url, response.status, response.statusText);
  return response;
}

const fileName = (url) => decodeURIComponent(new URL(url).pathname.split("/").pop() || "records");

/** Opens bundle text in the worker; `base` resolves a relative records_url, `ask` says
 * whether records on another site may be fetched.
 * @param {import("./rpc.js").AnalysisCall} call */
export async function openBundleText(call, name, text, base = location.href, ask = askToFetch) {
  const recordsUrl = await call("bundleRecordsUrl", text);
  if (!recordsUrl) return call("openBundle", name, text);
  let url;
  try {
    url = new URL(recordsUrl, base).href;
  } catch {
    throw { kind: "fetch", message: `The bundle's records_url "${recordsUrl}" is not a valid URL.` };
  }
  await mayFetch(url, ask);
  const bytes = await (await fetchOk(url)).arrayBuffer();
  return call("openBundle", name, text, fileName(url), bytes);
}

/** Fetches and opens the bundle at `address` (absolute, or relative to this page).
 * @param {import("./rpc.js").AnalysisCall} call */
export async function openBundleUrl(call, address) {
  let url;
  try {
    url = new URL(address, location.href).href;
  } catch {
    throw { kind: "fetch", message: `The bundle address "${address}" is not a valid URL.` };
  }
  notPrivate(url, "The bundle address");
  const text = await (await fetchOk(url)).text();
  return openBundleText(call, url, text, url);
}

/** One sentence on whether the bundle's numbers came out the same. */
export function describeReproduction(summary) {
  const rebuilt = summary.records_rebuilt ? " The records were rebuilt from the bundle's experiment." : "";
  if (summary.identical === true) return `The numbers were reproduced identically.${rebuilt}`;
  if (summary.identical === false) return `The recomputed numbers DIFFER from the ones stored in the bundle.${rebuilt}`;
  return `The bundle stored no numbers to compare with.${rebuilt}`;
}
