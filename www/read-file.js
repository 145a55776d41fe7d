// Reading a chosen file for the worker: in chunks from File.stream() into one buffer of the
// file's size, with a progress bar, so a large table is never held twice on the page (where
// arrayBuffer() and then postMessage's copy made two), and the buffer is handed to the worker
// without a copy (rpc.js transfers it). The bytes stay bytes: the wasm decodes them and names
// the line and column of a bad byte, which a TextDecoder here would not. A Parquet file is
// converted to JSON Lines first (parquet.js), so every upload that takes a table takes Parquet.
import { el } from "./dom.js";
import { isParquet, parquetToJsonl } from "./parquet.js";

/** Files at least this large show a progress bar while they are read. */
export const PROGRESS_FROM = 1 << 20;

/**
 * Reads `file` whole. When it is large, `box` shows "Reading NAME…" with a progress bar
 * (the page's <progress> style) that moves as chunks arrive.
 * @param {File} file
 * @param {HTMLElement | null} box where the progress shows; its content is replaced
 * @returns {Promise<ArrayBuffer>} marked for transfer to the worker (see rpc.js)
 */
export async function readFile(file, box) {
  const total = file.size;
  const buffer = new Uint8Array(total);
  let bar = null;
  if (box && total >= PROGRESS_FROM) {
    bar = el("progress", { id: "file-progress", max: total, value: 0, "aria-label": `Reading ${file.name}` });
    box.replaceChildren(el("p", { role: "status", class: "busy" }, bar, ` Reading ${file.name}…`));
    box.hidden = false;
  }
  const reader = file.stream().getReader();
  let at = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    // A file that grew while being read: keep what fits, as arrayBuffer() would have.
    const take = Math.min(value.length, total - at);
    buffer.set(take === value.length ? value : value.subarray(0, take), at);
    at += take;
    if (bar) bar.value = at;
  }
  const bytes = at === total ? buffer.buffer : buffer.slice(0, at).buffer;
  // A Parquet file reaches the readers as JSON Lines, one object per row (row 1 is line 1).
  if (isParquet(file.name, bytes)) {
    if (box) {
      box.replaceChildren(el("p", { role: "status", class: "busy", text: `Converting ${file.name} from Parquet…` }));
      box.hidden = false;
    }
    return transferable(await parquetToJsonl(file.name, bytes));
  }
  return transferable(bytes);
}

/** Buffers that rpc.js's call() moves to the worker instead of copying. */
export const TRANSFER = new WeakSet();

/** Marks `buffer` to be moved, not copied, by the next call it is passed to. It is unusable here afterwards.
 * @param {ArrayBuffer} buffer */
export function transferable(buffer) {
  TRANSFER.add(buffer);
  return buffer;
}
