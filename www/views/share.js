// The Share tab: a link for simulated experiments, the bundle, and record downloads.
import { $, download, errorMessage, showIn } from "../dom.js";
import { stampBundle } from "../build-info.js";
import { jsonlToParquet } from "../parquet.js";

const TYPES = { csv: "text/csv", jsonl: "application/x-ndjson", json: "application/json" };

/** This page's address without the fragment or a ?bundle= (the fragment says it all). */
function pageAddress() {
  const url = new URL(location.href);
  url.hash = "";
  url.searchParams.delete("bundle");
  return url.href;
}

/** @param {import("../rpc.js").AnalysisCall} call */
export function createShare(call) {
  $("share-copy").addEventListener("click", async () => {
    showIn($("share-error"));
    $("share-status").textContent = "";
    let link;
    try {
      link = `${pageAddress()}#${await call("shareFragment")}`;
    } catch (err) {
      $("share-link").value = "";
      showIn($("share-error"), errorMessage(err));
      return;
    }
    const input = $("share-link");
    input.value = link;
    input.select();
    try {
      await navigator.clipboard.writeText(link);
      $("share-status").textContent = "The link is copied to the clipboard.";
    } catch {
      // Clipboard access can be refused (permissions, insecure context); the link is still shown.
      $("share-status").textContent = "Copy the link from the box above.";
    }
  });

  async function save(what, name, type) {
    try {
      showIn($("download-error"));
      download(name, await what(), type);
    } catch (err) {
      showIn($("download-error"), errorMessage(err));
    }
  }

  $("dl-bundle").addEventListener("click", () =>
    save(async () => stampBundle(await call("bundle")), "evenhand-bundle.json", "application/json"));
  for (const format of Object.keys(TYPES)) {
    $(`dl-${format}`).addEventListener("click", () =>
      save(() => call("export", format), `evenhand-records.${format}`, TYPES[format]));
  }
  // Parquet for pandas, polars and DuckDB: the JSONL export, converted by the Parquet module.
  $("dl-parquet").addEventListener("click", () =>
    save(async () => jsonlToParquet("evenhand-records.parquet", await call("export", "jsonl")),
      "evenhand-records.parquet", "application/vnd.apache.parquet"));
}
