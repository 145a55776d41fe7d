// A provider run driven by the page's own run worker (www/run-worker.js, whose loop is the
// Rust run driver) against the local mock, alternated with plain fetch from this page over
// the same mock: R rounds, each one run of N calls through the worker and N plain fetches, at
// concurrency C, the order swapped every round (engine first in even rounds). Prints each
// round's calls per second, the medians, the engine's rate as a share of plain fetch, and the
// driver's cost per call inside the worker (next + complete + store, the last being the
// record's handover and the IndexedDB write's issue; send, the request's building and the
// fetch() call, apart), with the asynchronous commit beside it, and the spread of each call's turn.
// Query: ?mock=http://127.0.0.1:PORT&n=600&c=6&latency=50&rounds=5
import { connect } from "../../www/rpc.js";

const q = new URLSearchParams(location.search);
const mock = q.get("mock");
const n = Number(q.get("n") ?? 600);
const c = Number(q.get("c") ?? 6);
const latency = Number(q.get("latency") ?? 50);
const rounds = Number(q.get("rounds") ?? 5);
const out = document.getElementById("out");

const worker = new Worker(new URL("../../www/run-worker.js", import.meta.url), { type: "module" });
const call = connect(worker);
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

/** One run of n calls through the run worker: calls/s, its progress at the end, the mock's view. */
async function engineRun(round) {
  await fetch(`${mock}/__reset`, { method: "POST" });
  const cases = `case_id,prompt\n${Array.from({ length: n }, (_, i) => `b${i},Bench question ${i} (${round} ${Date.now()})`).join("\n")}\n`;
  const spec = { run_id: `bench-${round}-${Date.now()}`, targets: [{ id: "mock", provider: "openai-compatible", base_url: `${mock}/v1`, models: ["mock-a"], concurrency: c }],
    params: { max_tokens: 16 }, retry: { max_attempts: 3, timeout_s: 30 } };
  await call("plan", spec, { name: "bench.csv", bytes: new TextEncoder().encode(cases), as_records: false });
  const finished = new Promise((resolve) => {
    const on = ({ data }) => {
      if (data.type === "progress" && data.progress.run_id === spec.run_id && data.progress.state === "finished") {
        worker.removeEventListener("message", on);
        resolve(data.progress);
      }
    };
    worker.addEventListener("message", on);
  });
  const t0 = performance.now();
  await call("start", {});
  const p = await finished;
  const seconds = (performance.now() - t0) / 1000;
  await call("discard", spec.run_id);
  const stats = await (await fetch(`${mock}/__stats`)).json();
  return { per_s: (p.answered + p.failed) / seconds, p, stats };
}

/** n plain fetches from this page, c at once, no engine and no storage. */
async function rawRun(round) {
  await fetch(`${mock}/__reset`, { method: "POST" });
  let next = 0;
  const t0 = performance.now();
  await Promise.all(Array.from({ length: c }, async () => {
    while (next < n) {
      const i = next++;
      const res = await fetch(`${mock}/v1/chat/completions`, { method: "POST", headers: [["Content-Type", "application/json"]],
        body: JSON.stringify({ model: "mock-a", messages: [{ role: "user", content: `raw ${round} ${i} ${Date.now()}` }], max_tokens: 16 }),
        credentials: "omit", referrerPolicy: "no-referrer" });
      await res.arrayBuffer();
    }
  }));
  const per_s = n / ((performance.now() - t0) / 1000);
  const stats = await (await fetch(`${mock}/__stats`)).json();
  return { per_s, stats };
}

try {
  const engine = [];
  const raw = [];
  for (let round = 0; round < rounds; round += 1) {
    if (round % 2 === 0) {
      engine.push(await engineRun(round));
      raw.push(await rawRun(round));
    } else {
      raw.push(await rawRun(round));
      engine.push(await engineRun(round));
    }
  }
  const ideal = c / (latency / 1000);
  const e = median(engine.map((r) => r.per_s));
  const f = median(raw.map((r) => r.per_s));
  const o = (k) => median(engine.map((r) => r.p.overhead[k]));
  const last = engine[engine.length - 1];
  out.textContent = JSON.stringify({
    rounds, calls: n, concurrency: c, ideal_per_s: ideal,
    engine_per_s: engine.map((r) => r.per_s), raw_fetch_per_s: raw.map((r) => r.per_s),
    engine_median_per_s: e, raw_median_per_s: f, engine_min_per_s: Math.min(...engine.map((r) => r.per_s)),
    raw_min_per_s: Math.min(...raw.map((r) => r.per_s)),
    engine_of_raw: e / f, round_ratios: engine.map((r, i) => r.per_s / raw[i].per_s),
    answered: engine.map((r) => r.p.answered), failed: engine.map((r) => r.p.failed),
    preflights: engine.map((r) => r.stats.preflights), requests: engine.map((r) => r.stats.total),
    overhead_ms_per_call: o("per_call_ms"), next_ms: o("next_ms"), complete_ms: o("complete_ms"), store_sync_ms: o("store_ms"),
    send_ms: o("send_ms"), idb_commit_ms: o("commit_ms"),
    // Each call's turn in the driver, from its answer to the next request issued: each round's
    // median and 90th percentile, and the median of those over the rounds.
    turn_p50_ms: o("turn_p50_ms"), turn_p90_ms: o("turn_p90_ms"),
    turn_p50_per_round: engine.map((r) => r.p.overhead.turn_p50_ms), turn_p90_per_round: engine.map((r) => r.p.overhead.turn_p90_ms),
    mean_latency_ms: (last.p.targets[0].mean_latency_s ?? 0) * 1000,
    // Where a round trip went, as the mock saw it: its own time and the client's turnaround.
    mock_ms: median(engine.map((r) => r.stats.server_ms_mean)), client_turnaround_ms: median(engine.map((r) => r.stats.client_turnaround_ms_mean)),
    raw_mock_ms: median(raw.map((r) => r.stats.server_ms_mean)), raw_client_turnaround_ms: median(raw.map((r) => r.stats.client_turnaround_ms_mean)),
  });
} catch (err) {
  out.textContent = JSON.stringify({ error: String(err?.message ?? err) });
}
out.dataset.done = "1";
