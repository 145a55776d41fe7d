// The Run tab's form: targets (provider, base URL, key, models, limits), parameters, cases
// and the price table, read into a RunSpec for the run worker. Keys never enter the spec:
// they go to keys.js by target id.
import { $, el, errorMessage } from "../dom.js";
import { getKey, setKey } from "../keys.js";

const CORS_TEXT = {
  allowed: "works from a browser page",
  "opt-in": "works from a browser page once allowed",
  blocked: "cannot be called from a browser page",
  unverified: "browser access not confirmed",
};

/**
 * One target's fieldset (provider, base URL, key, models, limits), its inputs' ids
 * `${prefix}-t${n}-…`; `box.read()` gives what was typed. The Run tab and the study flow share it.
 * @param {import("../rpc.js").RunCall} runCall
 * @param {any[]} specs the providers (run worker's "providers")
 * @param {string} prefix
 * @param {number} n
 * @param {HTMLElement} list the container; "Remove this target" keeps at least one in it
 */
export function targetBox(runCall, specs, prefix, n, list) {
  const id = (s) => `${prefix}-t${n}-${s}`;
  const provider = el("select", { id: id("provider") },
    specs.map((s) => el("option", { value: s.kind, text: `${s.label} (${CORS_TEXT[s.cors.status] ?? s.cors.status})` })));
  const note = el("p", { class: "cors-note", id: id("cors"), "aria-live": "polite" });
  const base = el("input", { id: id("base"), type: "url", autocomplete: "off", spellcheck: "false" });
  const key = el("input", { id: id("key"), type: "password", autocomplete: "off", spellcheck: "false" });
  const models = el("input", { id: id("models"), type: "text", autocomplete: "off", list: id("models-list"),
    "aria-describedby": id("models-help") });
  const datalist = el("datalist", { id: id("models-list") });
  const listButton = el("button", { type: "button", text: "List models" });
  const listStatus = el("p", { class: "help", role: "status" });
  const concurrency = el("input", { id: id("concurrency"), type: "number", min: 1, max: 256, step: 1, value: 4 });
  const rpm = el("input", { id: id("rpm"), type: "number", min: 1, step: 1 });
  const tpm = el("input", { id: id("tpm"), type: "number", min: 1, step: 1 });
  const remove = el("button", { type: "button", text: "Remove this target" });
  const box = el("fieldset", { class: "target" },
    el("legend", { text: `Target ${n}` }),
    el("div", { class: "grid" },
      el("div", { class: "row" }, el("label", { for: id("provider"), text: "Provider" }), provider),
      el("div", { class: "row" }, el("label", { for: id("base"), text: "Base URL" }), base),
      el("div", { class: "row" }, el("label", { for: id("key"), text: "API key" }), key),
      el("div", { class: "row wide" }, note),
      el("div", { class: "row wide" }, el("label", { for: id("models"), text: "Models (comma-separated)" }), models, datalist,
        el("p", { class: "help", id: id("models-help"), text: "Type model names, or list the provider's models first." }),
        el("div", { class: "buttons" }, listButton), listStatus),
      el("div", { class: "row" }, el("label", { for: id("concurrency"), text: "Calls at once" }), concurrency),
      el("div", { class: "row" }, el("label", { for: id("rpm"), text: "Requests per minute (optional)" }), rpm),
      el("div", { class: "row" }, el("label", { for: id("tpm"), text: "Tokens per minute (optional)" }), tpm)),
    remove);

  const spec = () => specs.find((s) => s.kind === provider.value);
  function describe() {
    const s = spec();
    base.placeholder = s.default_base_url || "http://localhost:8000/v1 (required)";
    note.className = `cors-note ${s.cors.status}`;
    let text = `${s.label}: ${CORS_TEXT[s.cors.status] ?? s.cors.status}.`;
    if (s.cors.advice) text += ` ${s.cors.advice}`;
    if (s.kind === "replicate") text += " Use the batch route in the Upload tab instead: export the plan, run it there, upload the results.";
    note.textContent = text;
    listButton.disabled = !s.capabilities.model_list;
  }
  provider.addEventListener("change", describe);
  describe();

  listButton.addEventListener("click", async () => {
    listButton.disabled = true;
    listStatus.textContent = "Asking the provider for its models…";
    try {
      const names = await runCall("listModels", provider.value, base.value.trim(), key.value.trim());
      datalist.replaceChildren(...names.map((m) => el("option", { value: m })));
      listStatus.textContent = names.length
        ? `${names.length} models found; they are offered as you type in Models.`
        : "The provider listed no models.";
    } catch (err) {
      listStatus.textContent = `No model list: ${errorMessage(err)}`;
    } finally {
      listButton.disabled = !spec().capabilities.model_list;
    }
  });
  remove.addEventListener("click", () => {
    if (list.children.length > 1) box.remove();
  });
  box.read = () => ({
    provider: provider.value, base: base.value.trim(), key: key.value.trim(),
    models: models.value.split(",").map((m) => m.trim()).filter(Boolean),
    concurrency: Number(concurrency.value), rpm: numberOrNull(rpm.value), tpm: numberOrNull(tpm.value),
  });
  box.fields = { provider, base, key, models, concurrency };
  return box;
}

/** Builds the targets editor and price table; returns {read(), fillPrices(table)}.
 * @param {import("../rpc.js").RunCall} runCall */
export function createRunForm(runCall, specs) {
  const list = $("run-targets");
  let serial = 0;

  function addTarget() {
    const box = targetBox(runCall, specs, "run", ++serial, list);
    list.append(box);
    return box;
  }
  $("run-add-target").addEventListener("click", () => addTarget().fields.provider.focus());
  addTarget();

  // The price table: one row of inputs per model or prefix.
  const prices = $("run-prices").tBodies[0];
  function priceRow(p = { model: "", input_per_million: 0, output_per_million: 0 }) {
    const i = prices.rows.length + 1;
    const model = el("input", { type: "text", value: p.model, "aria-label": `Price row ${i}: model or prefix*` });
    const input = el("input", { type: "number", min: 0, step: "any", value: p.input_per_million, "aria-label": `Price row ${i}: input per million` });
    const output = el("input", { type: "number", min: 0, step: "any", value: p.output_per_million, "aria-label": `Price row ${i}: output per million` });
    const remove = el("button", { type: "button", text: "Remove", "aria-label": `Remove price row ${i}` });
    const tr = el("tr", {}, el("td", {}, model), el("td", {}, input), el("td", {}, output), el("td", {}, remove));
    remove.addEventListener("click", () => tr.remove());
    tr.read = () => ({ model: model.value.trim(), input_per_million: Number(input.value), output_per_million: Number(output.value) });
    prices.append(tr);
    return model;
  }
  $("run-add-price").addEventListener("click", () => priceRow().focus());

  function fillPrices(table) {
    prices.replaceChildren();
    for (const p of table.rows) priceRow(p);
  }

  /** The spec for the run worker (ids filled in here so keys can be matched), or throws. */
  function read() {
    const targets = readTargets([...list.children]);
    const params = {};
    const system = $("run-system").value.trim();
    if (system) params.system = system;
    const temperature = numberOrNull($("run-temperature").value);
    if (temperature !== null) params.temperature = temperature; // 0 is sent as 0
    const maxTokens = numberOrNull($("run-max-tokens").value);
    if (maxTokens !== null) params.max_tokens = maxTokens;
    const topP = numberOrNull($("run-top-p").value);
    if (topP !== null) params.top_p = topP;
    const seed = numberOrNull($("run-seed").value);
    if (seed !== null) params.seed = seed;
    const now = new Date();
    return {
      run_id: `run-${now.toISOString().replace(/[-:]/g, "").replace(/\..*/, "")}-${Math.random().toString(36).slice(2, 6)}`,
      method: "provider-run",
      targets,
      samples: Number($("run-samples").value),
      params,
      retry: { max_attempts: Number($("run-attempts").value), timeout_s: Number($("run-timeout").value) },
      prices: readPrices(),
    };
  }

  const readPrices = () => ({ currency: "USD", rows: [...prices.rows].map((tr) => tr.read()).filter((r) => r.model) });

  return { read, readPrices, fillPrices, keyOf: getKey };
}

/** The run spec's targets from target boxes (ids made unique per provider: openai, openai-2…);
 *  each key goes to keys.js under its target's id, never into the spec. Throws on a box
 *  without a model. */
export function readTargets(boxes) {
  const seen = new Map();
  return boxes.map((box, i) => {
    const t = box.read();
    const count = (seen.get(t.provider) ?? 0) + 1;
    seen.set(t.provider, count);
    const id = count === 1 ? t.provider : `${t.provider}-${count}`;
    if (!t.models.length) throw new Error(`Target ${i + 1}: type at least one model name`);
    setKey(id, t.key);
    const target = { id, provider: t.provider, models: t.models, concurrency: t.concurrency };
    if (t.base) target.base_url = t.base;
    if (t.rpm) target.requests_per_minute = t.rpm;
    if (t.tpm) target.tokens_per_minute = t.tpm;
    return target;
  });
}

function numberOrNull(text) {
  const t = String(text ?? "").trim();
  if (t === "") return null;
  const x = Number(t);
  return Number.isFinite(x) ? x : NaN;
}
