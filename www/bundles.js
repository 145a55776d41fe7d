// Opening bundles: from a chosen file or from a ?bundle=<url> address. A bundle may point to
// its records by URL instead of carrying them; then the page fetches those too.

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

/** Opens bundle text in the worker; `base` resolves a relative records_url.
 * @param {import("./rpc.js").AnalysisCall} call */
export async function openBundleText(call, name, text, base = location.href) {
  const recordsUrl = await call("bundleRecordsUrl", text);
  if (!recordsUrl) return call("openBundle", name, text);
  const url = new URL(recordsUrl, base).href;
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
