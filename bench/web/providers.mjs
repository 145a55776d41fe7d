// A provider run driven by the page's own run worker (www/run-worker.js) against the local
// mock: N calls at concurrency C. Prints calls per second against the ideal C / latency, and
// the engine's overhead per call inside the worker (next + complete + the synchronous part of
// the IndexedDB write), with the asynchronous IndexedDB commit time beside it.
// Query: ?mock=http://127.0.0.1:PORT&n=1200&c=6&latency=50
import { connect } from "../../www/rpc.js";

const q = new URLSearchParams(location.search);
const mock = q.get("mock");
const n = Number(q.get("n") ?? 1200);
const c = Number(q.get("c") ?? 6);
const latency = Number(q.get("latency") ?? 50);
const out = document.getElementById("out");

const worker = new Worker(new URL("../../www/run-worker.js", import.meta.url), { type: "module" });
const call = connect(worker);
try {
  const cases = `case_id,prompt\n${Array.from({ length: n }, (_, i) => `b${i},Bench question ${i} (${Date.now()})`).join("\n")}\n`;
  const spec = { run_id: `bench-${Date.now()}`, targets: [{ id: "mock", provider: "openai-compatible", base_url: `${mock}/v1`, models: ["mock-a"], concurrency: c }],
    params: { max_tokens: 16 }, retry: { max_attempts: 3, timeout_s: 30 } };
  await call("plan", spec, { name: "bench.csv", bytes: new TextEncoder().encode(cases), as_records: false });
  const finished = new Promise((resolve) => worker.addEventListener("message", ({ data }) => {
    if (data.type === "progress" && data.progress.state === "finished") resolve(data.progress);
  }));
  const t0 = performance.now();
  await call("start", {});
  const p = await finished;
  const seconds = (performance.now() - t0) / 1000;
  await call("discard", spec.run_id);
  const stats = await (await fetch(`${mock}/__stats`)).json();
  // Control: the same mock, plain fetch from this page, no engine, no storage. What this
  // Chromium allows here, so the engine's share of any shortfall can be read off.
  const raw = 600;
  await fetch(`${mock}/__reset`, { method: "POST" });
  let nextRaw = 0;
  const tRaw = performance.now();
  await Promise.all(Array.from({ length: c }, async () => {
    while (nextRaw < raw) {
      const i = nextRaw++;
      const res = await fetch(`${mock}/v1/chat/completions`, { method: "POST", headers: [["Content-Type", "application/json"]],
        body: JSON.stringify({ model: "mock-a", messages: [{ role: "user", content: `raw ${i} ${Date.now()}` }], max_tokens: 16 }),
        credentials: "omit", referrerPolicy: "no-referrer" });
      await res.arrayBuffer();
    }
  }));
  const rawPerS = raw / ((performance.now() - tRaw) / 1000);
  const rawStats = await (await fetch(`${mock}/__stats`)).json();
  const ideal = c / (latency / 1000);
  const rate = (p.answered + p.failed) / seconds;
  out.textContent = JSON.stringify({
    calls: p.total, requests: stats.total, preflights: stats.preflights, answered: p.answered, failed: p.failed, seconds, calls_per_s: rate, ideal_per_s: ideal,
    of_ideal: rate / ideal, raw_fetch_per_s: rawPerS, mean_latency_ms: (p.targets[0].mean_latency_s ?? 0) * 1000, overhead_ms_per_call: p.overhead.per_call_ms, next_ms: p.overhead.next_ms,
    complete_ms: p.overhead.complete_ms, store_sync_ms: p.overhead.store_ms, idb_commit_ms: p.overhead.commit_ms,
    // Where a round trip went, as the mock saw it: its own time and the client's turnaround.
    mock_ms: stats.server_ms_mean, client_turnaround_ms: stats.client_turnaround_ms_mean,
    raw_mock_ms: rawStats.server_ms_mean, raw_client_turnaround_ms: rawStats.client_turnaround_ms_mean,
  });
} catch (err) {
  out.textContent = JSON.stringify({ error: String(err?.message ?? err) });
}
out.dataset.done = "1";
