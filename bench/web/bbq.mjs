// The browser half of bench/cases/bbq.rs: the same data, tiling and predictions, through the
// same wasm the page uses. Served from the folder above the repository, so that
// ../shared/ref is reachable; the result lands in #out as JSON.
import init, { BbqSession } from "../../www/pkg/evenhand.js";

const out = document.getElementById("out");
try {
  await init();
  const wanted = Number(new URLSearchParams(location.search).get("n") ?? 100000);
  const response = await fetch("../../../shared/ref/bbq/data/Sexual_orientation.jsonl");
  if (!response.ok) throw new Error(`shared/ref is absent (HTTP ${response.status})`);
  const base = (await response.text()).split("\n").filter((l) => l.trim());
  const copies = Math.ceil(wanted / base.length);
  const data = [];
  const preds = ["id,prediction"];
  let i = 0;
  for (let k = 0; k < copies; k++) {
    for (const line of base) {
      const row = JSON.parse(line);
      row.example_id += k * 100000;
      data.push(JSON.stringify(row));
      preds.push(`Sexual_orientation:${row.example_id},${"ABC"[(i * 7 + Math.floor(i / 3)) % 3]}`);
      i++;
    }
  }
  const enc = new TextEncoder();
  const dataBytes = enc.encode(data.join("\n") + "\n");
  const predBytes = enc.encode(preds.join("\n") + "\n");
  const s = new BbqSession();
  s.set_bootstrap({ replicates: 1, confidence: 0.95, seed: 1 });
  s.add_data("Sexual_orientation.jsonl", dataBytes); // untimed, as in the native case
  const start = performance.now();
  s.add_predictions("model.csv", predBytes, undefined);
  const v = s.view();
  const seconds = (performance.now() - start) / 1000;
  const o = v.report.overall.scores;
  out.textContent = JSON.stringify({ seconds, examples: v.report.judged, sample: [[o.acc_amb, o.s_amb, o.s_dis]] });
} catch (error) {
  out.textContent = JSON.stringify({ error: String(error && error.message ? error.message : error) });
}
out.dataset.done = "1";
