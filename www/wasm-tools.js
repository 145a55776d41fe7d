// What every worker holding the full wasm module shares: worker.js (the tabs' sessions) and
// permanova-worker.js (one member of the PERMANOVA pool) load pkg/evenhand.js through
// `loadTools` and send errors back through `plainError`.

/** @type {Promise<typeof import("./pkg/evenhand.js")> | undefined} */
let loading;

/** The full module (every tool's facade), fetched and compiled on the first call in this worker. */
export function loadTools() {
  loading ??= import("./pkg/evenhand.js").then(async (full) => {
    await full.default();
    return full;
  }).catch((error) => {
    loading = undefined; // a later call tries again (a dropped connection, say)
    throw new Error(`the tools' analysis engine (wasm) could not be loaded: ${error.message ?? error}`);
  });
  return loading;
}

/**
 * Errors from the wasm are plain {kind, message, detail} objects; anything else (a JS
 * exception, a panic) is turned into the same shape so it survives postMessage.
 * @returns {{kind: string, message: string, detail: any}}
 */
export function plainError(error) {
  if (error && typeof error === "object" && "message" in error && !(error instanceof Error)) return error;
  return { kind: "internal", message: String(error && error.message ? error.message : error), detail: null };
}
