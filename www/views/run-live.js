// The Run tab's live part: progress bar, counts, speed, ETA, tokens and cost, each target's
// state (in flight, paused after a 429, last error or the CORS advice), and the failures.
import { $, el, plural, plain } from "../dom.js";

const seconds = (s) => (s >= 90 ? `${Math.round(s / 60)} min` : `${Math.max(0, Math.round(s))} s`);

export function renderProgress(p) {
  const settled = p.answered + p.failed;
  const bar = $("run-bar");
  bar.setAttribute("aria-valuemax", String(p.total));
  bar.setAttribute("aria-valuenow", String(settled));
  bar.setAttribute("aria-valuetext", `${p.answered} answered, ${p.failed} failed, ${p.remaining} remaining`);
  bar.firstElementChild.style.width = `${p.total ? (100 * settled) / p.total : 0}%`;

  const counts = $("run-counts");
  counts.textContent = `${p.state}: ${p.answered} answered, ${p.failed} failed, ${p.remaining} remaining of ${p.total}`
    + (p.in_flight ? ` (${p.in_flight} in flight)` : "") + (p.waiting ? `, ${p.waiting} waiting to retry` : "") + ".";
  Object.assign(counts.dataset, { answered: p.answered, failed: p.failed, total: p.total, state: p.state, runId: p.run_id });

  const cost = p.cost > 0 ? ` · cost so far ${p.cost.toFixed(4)} ${p.currency}` : "";
  $("run-rates").textContent = `${p.per_second.toFixed(1)} calls/s`
    + (p.eta_s != null ? ` · about ${seconds(p.eta_s)} left` : "")
    + ` · ${p.tokens_in} tokens in, ${p.tokens_out} out${cost} · ${p.retries} retries · ${seconds(p.elapsed_s)} running`;

  $("run-live-error").hidden = !p.store_error;
  $("run-live-error").textContent = plain(p.store_error ?? "");

  $("run-targets-status").tBodies[0].replaceChildren(...p.targets.map((t) => {
    let state = t.in_flight ? `${t.in_flight} of ${t.concurrency} in flight` : "idle";
    if (t.paused_for_s != null) state = `paused by the provider (429) for ${Math.ceil(t.paused_for_s)} s`;
    const error = t.advice ? el("span", { class: "advice", text: t.advice }) : t.last_error;
    return el("tr", {}, el("th", { scope: "row", text: `${t.target} (${t.provider})` }), el("td", { text: t.answered }),
      el("td", { text: t.failed }), el("td", { text: t.remaining }), el("td", { text: t.in_flight }),
      el("td", { text: state }), el("td", {}, error));
  }));

  const failures = $("run-failures");
  if (!p.failures_total) {
    failures.replaceChildren();
    return;
  }
  const advice = new Map(p.targets.filter((t) => t.advice).map((t) => [t.target, t.advice]));
  failures.replaceChildren(...[
    el("h4", { text: `Failures (${p.failures_total})` }),
    p.failures.length < p.failures_total ? el("p", { class: "help", text: `The first ${plural(p.failures.length, "failure")} are listed.` }) : null,
    el("ul", { class: "problems", id: "run-failure-list" }, p.failures.map((f) =>
      el("li", { text: `${f.case_id} on ${f.target} / ${f.model}, after ${plural(f.attempts, "attempt")}: ${advice.get(f.target) ?? f.error}` }))),
  ].filter(Boolean));
}

/** The estimate table and its totals. */
export function renderEstimate(box, e, calls) {
  const money = (x) => (x == null ? "not priced" : `${x.toFixed(4)} ${e.currency}`);
  box.replaceChildren(
    el("h3", { text: "Plan" }),
    el("p", { role: "status", id: "run-plan-summary",
      text: `${plural(calls, "call")}, about ${e.tokens_in} tokens in and ${e.tokens_out} out, estimated cost ${money(e.cost)}`
        + (e.unpriced.length ? ` (not priced: ${e.unpriced.join(", ")})` : "") + "." }),
    el("div", { class: "table-wrap" }, el("table", {},
      el("caption", { text: "Calls, tokens and cost per target and model" }),
      el("thead", {}, el("tr", {}, ["Target", "Model", "Calls", "Tokens in", "Tokens out", "Cost"].map((h) => el("th", { scope: "col", text: h })))),
      el("tbody", {}, e.rows.map((r) => el("tr", {}, el("td", { text: r.target }), el("td", { text: r.model }),
        el("td", { text: r.calls }), el("td", { text: r.tokens_in }), el("td", { text: r.tokens_out }), el("td", { text: money(r.cost) })))))),
    el("button", { type: "button", class: "primary", id: "run-start", text: "Start" }));
  box.hidden = false;
}
