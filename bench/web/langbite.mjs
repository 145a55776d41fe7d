// The browser half of bench/cases/langbite.rs: the same records (written by the native case to
// bench/out/langbite_records.csv) read and evaluated in default mode the way the page's
// Requirements view does it: the file's bytes handed to the page's own worker (www/worker.js,
// moved, not copied, as read-file.js and rpc.js do), `requirementsLoadRecords`, then
// `requirementsEvaluate` with the view's settings, and the results view back on this thread.
// Timed from the first call to the view's arrival: load_seconds is the first round trip,
// evaluate_seconds the second.
// ?www=DIR runs another build of the page (a copy of www/ with an earlier pkg/, to alternate
// builds); ?inline=1 makes the same two session calls on this thread, without the worker, so
// that bench/web/profile.mjs, which samples this thread only, sees the wasm's functions.
const params = new URLSearchParams(location.search);
const www = params.get("www") ?? "../../www";
const inline = params.has("inline");
// The Results view's query (views/requirements-results.js) with the bench's seed.
const QUERY = { compat: false, confidence: 0.95, alpha: 0.05, seed: 1 };

/** The view's numbers as `Summary::fingerprint` lists them, so the native run's sample compares. */
function fingerprint(v) {
  const t = v.template_verdicts;
  const o = v.outcomes;
  const pSum = (v.communities?.groups ?? []).flatMap((g) => g.tests).reduce((a, test) => a + test.p_value, 0);
  return [t.Passed ?? 0, t.Failed ?? 0, t.Error ?? 0, o.Passed ?? 0, o.Failed ?? 0, o.Refused ?? 0, o.Unparseable ?? 0,
    v.groups.length, pSum];
}

/** The session's three calls, through the page's worker or on this thread. */
async function session() {
  if (inline) {
    const full = await import(`${www}/pkg/evenhand.js`);
    const wasm = await full.default();
    const s = new full.RequirementsSession();
    return {
      call: async (op, ...args) => {
        if (op === "requirementsSetScenario") return s.set_scenario(args[0]);
        if (op === "requirementsLoadRecords") return s.load_records(args[0], new Uint8Array(args[1]));
        return s.evaluate(args[0]);
      },
      memory: () => wasm.memory.buffer.byteLength / 2 ** 20,
    };
  }
  const [{ connect }, { transferable }] = await Promise.all([import(`${www}/rpc.js`), import(`${www}/read-file.js`)]);
  const call = connect(new Worker(new URL(`${www}/worker.js`, location.href), { type: "module" }));
  return { call: (op, ...args) => call(op, ...args.map((a) => (a instanceof ArrayBuffer ? transferable(a) : a))), memory: () => null };
}

const out = document.getElementById("out");
try {
  const [{ call, memory }, scenario, records] = await Promise.all([
    session(),
    fetch("../out/langbite_scenario.json").then((r) => (r.ok ? r.text() : Promise.reject(new Error(`scenario: HTTP ${r.status}`)))),
    fetch("../out/langbite_records.csv").then((r) => (r.ok ? r.arrayBuffer() : Promise.reject(new Error(`records: HTTP ${r.status}`)))),
  ]);
  // Not timed: on the page the scenario is set (and the full module loaded) before a file is read.
  const valid = await call("requirementsSetScenario", scenario);
  if (!valid.ok) throw new Error(`scenario: ${JSON.stringify(valid.errors)}`);
  const start = performance.now();
  const loaded = await call("requirementsLoadRecords", "records.csv", records);
  const read = performance.now();
  const v = await call("requirementsEvaluate", QUERY);
  const done = performance.now();
  out.textContent = JSON.stringify({
    seconds: (done - start) / 1000,
    load_seconds: (read - start) / 1000,
    evaluate_seconds: (done - read) / 1000,
    records: loaded.records,
    records_per_second: loaded.records / ((done - start) / 1000),
    path: inline ? "inline" : "worker",
    wasm_memory_mb: memory(),
    sample: [fingerprint(v)],
  });
} catch (error) {
  out.textContent = JSON.stringify({ error: String(error && error.message ? error.message : error) });
}
out.dataset.done = "1";
