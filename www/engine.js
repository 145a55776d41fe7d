// Starts the analysis worker (worker.js) as soon as the HTML is parsed. app.js imports every
// view first, and a module runs only once everything it imports has loaded: started from
// there, the worker and its wasm would wait for all of them. app.js takes the worker over.
/** @type {any} */ (globalThis).evenhandWorker = new Worker(new URL("./worker.js", import.meta.url), { type: "module" });
