// The Parquet worker: the second wasm module (pkg-parquet/, built from crates/evenhand-parquet),
// started by parquet.js only when a Parquet file is picked or a Parquet export is asked for, so
// the page's first load never fetches it. It converts and nothing else: Parquet to JSON Lines
// for the page's usual readers, and JSON Lines to Parquet for downloads.
import init, { parquet_to_jsonl, jsonl_to_parquet } from "./pkg-parquet/evenhand_parquet.js";

const ready = init();
const encoder = new TextEncoder();
const decoder = new TextDecoder();

self.onmessage = async (event) => {
  const { id, op, name, data } = event.data;
  try {
    await ready;
    const started = performance.now();
    if (op === "toJsonl") {
      const jsonl = encoder.encode(parquet_to_jsonl(name, new Uint8Array(data)));
      self.postMessage({ id, result: jsonl.buffer, ms: performance.now() - started }, { transfer: [jsonl.buffer] });
    } else if (op === "toParquet") {
      const bytes = jsonl_to_parquet(name, decoder.decode(data));
      self.postMessage({ id, result: bytes.buffer, ms: performance.now() - started }, { transfer: [bytes.buffer] });
    } else {
      self.postMessage({ id, error: `unknown operation ${op}` });
    }
  } catch (err) {
    // A trap (RuntimeError) leaves the module unusable: say so, and parquet.js starts afresh.
    const trapped = err instanceof WebAssembly.RuntimeError;
    const message = trapped ? `${name}: the Parquet reader stopped on this file (${err.message})` : String(err && err.message || err);
    self.postMessage({ id, error: message, trapped });
  }
};
