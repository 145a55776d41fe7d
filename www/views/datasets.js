// The Datasets tab: the catalogue (data/catalogue.json) as a searchable list with licenses,
// languages, sizes and citations; files fetched with progress, checked against their pinned
// sha256 and kept in the browser (dataset-store.js); a host that refuses the page's request
// gets the source link and an upload field; bias-QA files open in the Benchmarks tab with a
// selection, scored on the simulated model or planned for a provider run.
import { $, busy, el, errorMessage, plural, showIn } from "../dom.js";
import { bbqDataChanged, handToRun, showTab } from "../handover.js";
import * as store from "../dataset-store.js";
import { isParquet, parquetToJsonl } from "../parquet.js";
import { transferable } from "../read-file.js";

const METHOD_LABEL = { bbq: "Bias QA benchmark (Benchmarks tab)", requirements: "Ethical requirements (Requirements tab)",
  crosslingual: "Cross-lingual refusals (Cross-lingual tab)", divergence: "Cultural divergence (Divergence tab)" };
// Files of these kinds hold examples the Benchmarks tab reads as data (BBQ's released
// predictions carry the examples too, with one answer column per model).
const BBQ_DATA_KINDS = new Set(["examples", "predictions"]);

// Files the other tabs read through their own upload fields: the Datasets tab hands the verified
// file to that field, so it goes through the same reader and messages as a user's upload.
const TAB_INPUTS = {
  "msqad-json": { tab: "crosslingual", label: "Cross-lingual", input: "crosslingual-questions-file" },
  "langbite-library-csv": { tab: "requirements", label: "Requirements", input: "requirements-lib-file", language: "requirements-lib-language" },
  "langbite-scenario-json": { tab: "requirements", label: "Requirements", input: "requirements-scenario-file" },
};

const languageNames = (() => {
  try {
    const names = new Intl.DisplayNames(["en"], { type: "language" });
    return (code) => { try { return names.of(code) ?? code; } catch { return code; } };
  } catch {
    return (code) => code;
  }
})();

const alert = (...content) => el("div", { class: "alert", role: "alert" }, ...content);
// A fetch that got no answer at all: the network is down, or the host sends no CORS headers
// (the browser cannot tell the two apart, so neither can we).
const NO_ANSWER = "no answer (offline, or the host does not allow other sites)";
const fileName = (f) => f.path.split("/").pop();
const code = (text) => el("code", { text });
/** "no license stated…" as a sentence: capital first, full stop last. */
const sentence = (text) => text.charAt(0).toUpperCase() + text.slice(1) + (/[.!?]$/.test(text) ? "" : ".");

/** The words of a text, lower case; a search word matches a word it begins ("age" finds
 *  "Age" and "ages", not "language"). */
const words = (...texts) => texts.filter(Boolean).join(" ").toLowerCase().split(/[^\p{L}\p{N}]+/u).filter(Boolean);
const finds = (list, w) => list.some((x) => x.startsWith(w));

/** What a search may hit in a dataset: `own` its own words (name, title, license, ...), `all`
 *  those with every language and category it has, which its files narrow. */
function haystack(d) {
  const own = words(d.name, d.title, d.method, d.description, d.license ?? "no license stated", d.repository);
  const langs = (d.languages ?? []).flatMap((l) => [l, languageNames(l)]);
  return { own, all: [...own, ...words(...langs, ...(d.categories ?? []))] };
}
const fileHaystack = (f) => words(f.name, f.path, f.category, f.language, f.language && languageNames(f.language), f.kind);

/** @param {import("../rpc.js").AnalysisCall} call */
export async function createDatasets(call) {
  // The methods' tabs point here ("the Datasets tab" buttons).
  for (const b of document.querySelectorAll("[data-show-tab]")) {
    b.addEventListener("click", () => showTab(/** @type {HTMLElement} */ (b).dataset.showTab));
  }
  const mirror = store.mirrorBase();
  const mirrorOrigin = mirror ? store.servedBy("https://raw.githubusercontent.com/", mirror) || mirror : "";
  if (mirror) {
    showIn($("datasets-mirror"), el("p", { text: `Files are fetched from the mirror ${mirror} (set by ?datasets-base=), ` +
      "in place of https://raw.githubusercontent.com; their hashes are checked all the same." }));
  }
  let catalogue;
  try {
    catalogue = await store.loadCatalogue();
  } catch (err) {
    showIn($("datasets-error"), el("p", { text: `The dataset catalogue could not be read: ${errorMessage(err)}` }));
    $("panel-datasets").dataset.ready = "error";
    return;
  }
  if (!store.canStore()) {
    showIn($("datasets-error"), el("p", { text: "This browser offers no Cache Storage here (it needs https or localhost): " +
      "files are checked and used, but not kept after a reload." }));
  }
  // Files fetched or uploaded in this visit (kept here too when Cache Storage is missing).
  const loaded = new Map();
  // Why a file is not kept, when a fetch failed: "refused" (hash) or "unreachable" (no answer).
  const marks = new Map();
  const cards = catalogue.datasets.map((d) => card(d));
  $("datasets-list").replaceChildren(...cards.map((c) => c.node));
  $("datasets-search").addEventListener("input", () => search($("datasets-search").value));
  await refreshAll();
  $("panel-datasets").dataset.ready = "1";

  // A file shows when every word is in its dataset's own words or its own fields ("BBQ Age
  // English" keeps BBQ's Age file); a dataset whose words match but none of whose files do
  // (a category it lists without a file) shows whole.
  function search(query) {
    const wanted = words(query);
    for (const c of cards) {
      const { own, all } = haystack(c.dataset);
      let any = false;
      for (const [f, row] of c.rows) {
        const mine = fileHaystack(f);
        const hit = wanted.every((w) => finds(own, w) || finds(mine, w));
        row.hidden = !hit;
        any ||= hit;
      }
      if (!any && wanted.every((w) => finds(all, w))) {
        for (const row of c.rows.values()) row.hidden = false;
        any = true;
      }
      c.node.hidden = !any;
    }
  }

  async function refreshAll() {
    const urls = await store.storedUrls();
    let files = 0;
    let bytes = 0;
    for (const c of cards) {
      for (const [f, row] of c.rows) {
        const key = f.cacheUrl ?? f.url;
        const kept = urls.has(key) || loaded.has(f.url);
        if (kept) {
          files++;
          bytes += f.bytes ?? 0;
        }
        // A copy a mirror served says so, wherever the file is shown as kept.
        const from = urls.get(key) || (loaded.has(f.url) ? f.servedBy : "");
        row.servedBy = from && from !== new URL(f.url).origin ? from : "";
        setState(row, kept ? "stored" : marks.get(f.url) ?? "absent");
      }
    }
    const { usage, quota } = await store.estimate();
    $("datasets-storage").textContent = `Kept in this browser: ${plural(files, "file")}, ${store.size(bytes)}.` +
      (usage != null && quota ? ` The page's storage as a whole: ${store.size(usage)} of ${store.size(quota)} allowed.` : "");
    $("datasets-storage").dataset.files = String(files);
  }

  function setState(row, state, text) {
    row.dataset.state = state;
    const label = row.unverified
      ? { stored: "kept, UNVERIFIED (trust on first use)", absent: "not pinned: unverified download", loading: "loading…",
        refused: "changed since first fetch", unreachable: NO_ANSWER }
      : { stored: "kept, verified", absent: "not loaded", loading: "loading…", refused: "refused", unreachable: NO_ANSWER };
    const via = state === "stored" && row.servedBy ? ` (served by the mirror ${row.servedBy})` : "";
    row.querySelector(".state").textContent = text ?? (label[state] ?? state) + via;
    row.querySelector(".load").hidden = state === "stored";
    row.querySelector(".remove").hidden = state !== "stored";
    row.querySelector(".save").hidden = state !== "stored";
  }

  /** The verified bytes of a file: kept ones, else fetched (and kept). Throws HashMismatch,
   *  Unreachable or an HTTP error; `progress(received)` follows the download. */
  async function bytesOf(f, progress) {
    const have = loaded.get(f.url) ?? (f.sha256 ? await store.stored(f) : null);
    if (have) return have;
    if (f.unverified && !f.sha256) {
      // First use of a file the catalogue could not pin: its sha256 and size become the pin.
      if (!f.allowed()) throw new Error(`${f.name} is not pinned by the catalogue: tick "Allow unverified downloads" to fetch it.`);
      const { data, sha256 } = await store.fetchUnverified(store.sourceUrl(f.url, mirror), progress);
      store.trust(f.url, sha256, data.length, f.servedBy);
      Object.assign(f, { sha256, bytes: data.length });
      if (!(await store.store(f, data))) loaded.set(f.url, data);
      return data;
    }
    const data = await store.fetchVerified(store.sourceUrl(f.url, mirror), f, progress);
    if (!(await store.store(f, data))) loaded.set(f.url, data);
    return data;
  }

  function card(d) {
    const pinned = d.files ?? [];
    // Files the catalogue names but could not pin (no published size or sha256): offered as
    // unverified downloads behind a checkbox, pinned by their first fetch (trust on first use).
    // Trust on first use is per host: a mirror's copy is kept under the mirror's URL, with
    // the mirror's own record, and never stands for the upstream file.
    const allow = el("input", { type: "checkbox", id: `datasets-${d.name}-allow-unverified`.replace(/[^\w-]/g, "_") });
    const unpinnedFiles = (d.unpinned_files ?? []).map((u) => {
      const servedBy = store.servedBy(u.url, mirror);
      const record = store.trustRecord(u.url, servedBy);
      return { ...u, unverified: true, allowed: () => allow.checked, servedBy,
        cacheUrl: mirror ? store.sourceUrl(u.url, mirror) : undefined,
        sha256: record?.sha256 ?? null, bytes: record?.bytes ?? null };
    });
    const files = [...pinned, ...unpinnedFiles];
    const total = pinned.reduce((n, f) => n + (f.bytes ?? 0), 0);
    const languages = (d.languages ?? []).map((l) => `${languageNames(l)} (${l})`).join(", ");
    const source = el("a", { href: d.source_url, target: "_blank", rel: "noopener noreferrer", text: d.repository ?? d.source_url });
    const license = d.license
      ? el("p", { class: "license" }, "License: ", el("strong", { text: d.license }), ". Source: ", source, ` at ${d.version ?? d.commit ?? "?"}.`)
      : el("p", { class: "license warning" }, el("strong", { text: "No license stated. " }),
        sentence(d.license_note ?? "fetch it from the source for your own use"), " Source: ", source, ` at ${d.version ?? d.commit ?? "?"}.`);
    const citation = el("pre", { class: "citation", text: d.citation ?? "" });
    const copy = el("button", { type: "button", text: "Copy citation" });
    copy.addEventListener("click", async () => {
      try {
        await navigator.clipboard.writeText(d.citation ?? "");
        copy.textContent = "Copied";
      } catch {
        getSelection()?.selectAllChildren(citation); // the clipboard may be closed to the page: select it for Ctrl-C
        copy.textContent = "Selected: press Ctrl-C";
      }
      setTimeout(() => { copy.textContent = "Copy citation"; }, 3000);
    });
    const progress = el("progress", { max: "1", value: "0", "aria-label": `Loading ${d.name}`, hidden: true });
    const status = el("p", { role: "status", class: "dataset-status" });
    const problem = el("div", { hidden: true });
    const rows = new Map();
    const tbody = el("tbody");
    for (const f of files) {
      const tick = el("input", { type: "checkbox", "aria-label": `Use ${d.name} ${f.name}` });
      const load = el("button", { type: "button", class: "load", text: "Load" });
      const remove = el("button", { type: "button", class: "remove", text: "Remove", hidden: true });
      const save = el("button", { type: "button", class: "save", text: "Save a copy", hidden: true });
      const row = el("tr", { "data-file": f.name, ...(f.unverified ? { class: "unverified" } : {}) },
        el("td", {}, tick), el("th", { scope: "row" }, f.name, ...(f.note ? [el("br"), el("small", { class: "note", text: sentence(f.note) })] : []),
          ...(f.unverified ? [el("br"), el("small", { class: "note", title: f.reason ? sentence(f.reason) : "", text: "UNVERIFIED: not pinned" })] : [])),
        el("td", { text: f.category ?? "" }),
        el("td", { text: f.language ?? "" }), el("td", { class: "num", text: f.rows != null ? String(f.rows) : "" }),
        el("td", { class: "num", text: store.size(f.bytes) }), el("td", { class: "state" }),
        el("td", { class: "buttons" }, load, remove, save));
      row.tick = tick;
      row.unverified = Boolean(f.unverified);
      load.addEventListener("click", () => busy(load, () => fetchFiles([f])));
      remove.addEventListener("click", () => busy(remove, async () => {
        await store.remove(f);
        loaded.delete(f.url);
        status.textContent = `${f.name} removed from this browser.`;
        await refreshAll();
      }));
      save.addEventListener("click", async () => {
        const data = loaded.get(f.url) ?? (await store.stored(f));
        if (!data) return;
        const url = URL.createObjectURL(new Blob([data]));
        const a = el("a", { href: url, download: fileName(f), hidden: true });
        document.body.append(a);
        a.click();
        a.remove();
        setTimeout(() => URL.revokeObjectURL(url), 10_000);
      });
      rows.set(f, row);
      tbody.append(row);
    }
    const table = el("div", { class: "table-wrap" }, el("table", { class: "dataset-files" },
      el("caption", { text: `Files of ${d.name}` }),
      el("thead", {}, el("tr", {}, ["Use", "File", "Category", "Language", "Rows", "Size", "State", ""].map((h) => el("th", { scope: "col", text: h })))),
      tbody));
    const unpinned = unpinnedFiles.length
      ? el("div", { class: "unpinned warning" },
        el("p", { text: `${plural(unpinnedFiles.length, "file")} of ${d.name} (marked UNVERIFIED in the table) could not be pinned: ` +
          "the source published no size or sha256 for them, so nothing can prove a download is the file the authors released. " +
          "If you allow it, the first download's sha256 is recorded in this browser and every later load is checked against it " +
          "(trust on first use)." }),
        el("label", { class: "check" }, allow, " Allow unverified downloads for this dataset"))
      : null;
    const ticked = () => files.filter((f) => rows.get(f).tick.checked);
    const needTicked = () => {
      const list = ticked();
      if (list.length === 0) throw new Error("Tick at least one file in the Use column.");
      return list;
    };

    /** Fetches `list` one after the other with one progress bar over their bytes. */
    async function fetchFiles(list) {
      showIn(problem);
      const total = list.reduce((n, f) => n + (f.bytes ?? 0), 0) || 1;
      let done = 0;
      progress.hidden = false;
      progress.value = 0;
      try {
        // Kept files are read (and checked again) when opened, not here.
        const kept = await store.storedUrls();
        for (const f of list) {
          const row = rows.get(f);
          if (kept.has(f.cacheUrl ?? f.url) || loaded.has(f.url)) {
            done += f.bytes ?? 0;
            continue;
          }
          setState(row, "loading");
          status.textContent = `Fetching ${f.name} (${store.size(f.bytes)})…`;
          try {
            await bytesOf(f, (received) => {
              progress.value = Math.min(1, (done + received) / total);
              row.querySelector(".state").textContent = f.bytes ? `loading ${Math.round((100 * received) / f.bytes)}%` : "loading…";
            });
          } catch (err) {
            failed(f, err);
            throw err;
          }
          done += f.bytes ?? 0;
          marks.delete(f.url);
          setState(row, "stored");
        }
        const unverified = list.filter((f) => f.unverified).length;
        status.textContent = `${plural(list.length, "file")} kept` + (unverified
          ? `, ${unverified} of them UNVERIFIED (not pinned by the catalogue; checked against their first fetch` +
            (mirror ? ` from the mirror ${mirrorOrigin}` : "") + ")."
          : ", verified.") + (mirror && !unverified ? ` Served by the mirror ${mirrorOrigin}.` : "");
        return true;
      } catch {
        status.textContent = "";
        return false;
      } finally {
        progress.hidden = true;
        await refreshAll();
      }
    }

    function failed(f, err) {
      marks.delete(f.url);
      if (err instanceof store.HashMismatch) {
        marks.set(f.url, "refused");
        showIn(problem, alert(el("p", { text: f.unverified
          ? `${f.name} was refused: its bytes are not those of its first fetch (UNVERIFIED file, trusted on first use), so nothing was kept.`
          : `${f.name} was refused: its bytes are not the file the catalogue pins, so nothing was kept.` }),
          el("dl", { class: "hashes" }, el("dt", { text: "URL" }), el("dd", {}, code(err.url)),
            el("dt", { text: "sha256 expected" }), el("dd", {}, code(err.expected)),
            el("dt", { text: "sha256 received" }), el("dd", {}, code(err.actual)))));
      } else if (err instanceof store.TooLong) {
        marks.set(f.url, "refused");
        showIn(problem, alert(el("p", { text: `${f.name} was refused: ${err.message}` })));
      } else if (err instanceof store.Unreachable) {
        marks.set(f.url, "unreachable");
        showIn(problem, uploadFallback(f, err));
        // The way on (download link, checked upload) sits under the card's table: bring it into view.
        problem.scrollIntoView({ block: "nearest" });
        problem.querySelector("input[type=file]")?.focus({ preventScroll: true });
      } else {
        showIn(problem, alert(el("p", { text: `${f.name}: ${errorMessage(err)}` })));
      }
    }

    /** The host gave the page no answer (no CORS headers, or no network): the user downloads
     *  the file from the source and chooses it here; it is checked against the same sha256. */
    function uploadFallback(f, err) {
      const input = el("input", { type: "file", id: `datasets-upload-${d.name}-${f.name}`.replace(/[^\w-]/g, "_") });
      const result = el("div", { "aria-live": "polite" });
      input.addEventListener("change", async () => {
        const file = input.files?.[0];
        input.value = "";
        if (!file) return;
        const data = new Uint8Array(await file.arrayBuffer());
        try {
          if (f.unverified && !f.sha256) {
            // First use of an unpinned file: the upload becomes its pin, as a download would.
            const sha256 = await store.sha256Hex(data);
            store.trust(f.url, sha256, data.length, f.servedBy);
            Object.assign(f, { sha256, bytes: data.length });
          }
          await store.check(file.name, data, f.sha256);
        } catch (e) {
          showIn(result, alert(el("p", { text: `${file.name} is not ${f.name}: sha256 ${e.actual ?? "?"}, expected ${f.sha256}. It was not kept.` })));
          return;
        }
        if (!(await store.store(f, data))) loaded.set(f.url, data);
        marks.delete(f.url);
        showIn(result, el("p", { class: "success", text: `${file.name} verified (sha256 ${f.sha256.slice(0, 12)}…) and kept as ${f.name}.` }));
        await refreshAll();
      });
      return el("div", { class: "warning fallback" },
        el("p", { text: `${err.url} gave this page no answer: the host does not allow requests from other sites (no CORS headers), ` +
          "or the network is down. Download the file from its source and choose it here; it is checked against the same sha256." }),
        el("p", {}, "Download: ", el("a", { href: f.url, target: "_blank", rel: "noopener noreferrer", text: f.url }),
          " (from ", el("a", { href: d.source_url, target: "_blank", rel: "noopener noreferrer", text: d.repository ?? "the source" }), ")"),
        el("div", { class: "row" }, el("label", { for: input.id, text: `Choose the downloaded ${fileName(f)}` }), input), result);
    }

    const actions = d.method === "bbq" ? bbqActions(d, files, ticked, needTicked, fetchFiles, status, problem)
      : tabActions(d, needTicked, fetchFiles, status, problem);
    const loadTicked = el("button", { type: "button", text: "Load the ticked files" });
    loadTicked.addEventListener("click", () => busy(loadTicked, async () => {
      try {
        await fetchFiles(needTicked());
      } catch (err) {
        showIn(problem, alert(el("p", { text: errorMessage(err) })));
      }
    }));
    const node = el("article", { class: "dataset", id: `dataset-${d.name}`, "data-dataset": d.name },
      el("h3", { text: d.title ?? d.name }),
      el("p", { class: "meta", text: `${METHOD_LABEL[d.method] ?? d.method} · ${languages} · ${plural(files.length, "file")}, ` +
        `${store.size(total)}${d.checked_against_ref ? " · checked against the reference copy" : ""}` }),
      el("p", { text: d.description ?? "" }), license,
      el("details", {}, el("summary", { text: "Citation (BibTeX)" }), citation, copy),
      table, unpinned, el("div", { class: "buttons" }, loadTicked), actions, progress, status, problem);
    return { dataset: d, node, rows };
  }

  /** Other methods: each ticked file goes to its tab's upload field, one after the other. */
  function tabActions(d, needTicked, fetchFiles, status, problem) {
    const targets = [...new Set((d.files ?? []).map((f) => TAB_INPUTS[f.format]?.label).filter(Boolean))];
    if (targets.length === 0) return el("p", { class: "help", text: "Load the files and save a copy: the CLI reads them (evenhand … catalogue:NAME/FILE)." });
    const open = el("button", { type: "button", class: "primary", text: `Open in ${targets.join(" and ")}` });
    open.addEventListener("click", () => busy(open, async () => {
      try {
        const list = needTicked();
        const unknown = list.filter((f) => !TAB_INPUTS[f.format]);
        if (unknown.length) throw new Error(`No tab reads ${unknown.map((f) => f.name).join(", ")} (${unknown[0].format}); save a copy for the CLI.`);
        if (!(await fetchFiles(list))) return;
        let last = "";
        for (const f of list) {
          const target = TAB_INPUTS[f.format];
          const data = await bytesOf(f, () => {});
          const input = $(target.input);
          if (target.language) $(target.language).value = /^[a-z]{2}_[a-z]{2}/.exec(f.name)?.[0] ?? f.language ?? "";
          const transfer = new DataTransfer();
          transfer.items.add(new File([data], fileName(f)));
          input.files = transfer.files;
          input.dispatchEvent(new Event("change"));
          last = target.tab;
        }
        status.textContent = `${plural(list.length, "file")} of ${d.name} handed to the ${TAB_INPUTS[list[0].format].label} tab.`;
        showTab(last);
      } catch (err) {
        showIn(problem, alert(el("p", { text: errorMessage(err) })));
      }
    }));
    return el("div", { class: "buttons" }, open);
  }

  /** The Benchmarks tab's way in: a selection, then open, score on the simulated model, or
   *  plan provider cases. */
  function bbqActions(d, files, ticked, needTicked, fetchFiles, status, problem) {
    const id = (s) => `datasets-${d.name}-${s}`.replace(/[^\w-]/g, "_");
    const condition = el("select", { id: id("condition") },
      el("option", { value: "", text: "both" }), el("option", { value: "ambiguous", text: "ambiguous only" }),
      el("option", { value: "disambiguated", text: "disambiguated only" }));
    const subset = el("select", { id: id("subset") },
      el("option", { value: "", text: "both" }), el("option", { value: "group_terms", text: "group terms only" }),
      el("option", { value: "proper_names", text: "proper names only" }));
    // Which categories and languages to keep, before anything is scored: a file may hold
    // several categories (KoBBQ's, a BBQ-style file of one's own), and a dataset several languages.
    const categories = [...new Set([...(d.categories ?? []), ...files.map((f) => f.category).filter(Boolean)])];
    const languages = [...new Set([...(d.languages ?? []), ...files.map((f) => f.language).filter(Boolean)])];
    const picker = (legend, values, label) => {
      if (values.length < 2) return { node: null, picked: () => [] };
      const boxes = values.map((v) => {
        const box = el("input", { type: "checkbox", value: v });
        box.checked = true;
        return { v, box, node: el("label", { class: "check" }, box, ` ${label(v)}`) };
      });
      const node = el("fieldset", { id: id(legend) }, el("legend", { text: `Keep these ${legend}` }),
        el("div", { class: "checks" }, ...boxes.map((b) => b.node)));
      // Every box ticked keeps everything, including rows whose value no box names.
      const picked = () => {
        const on = boxes.filter((b) => b.box.checked).map((b) => b.v);
        if (on.length === 0) throw new Error(`Tick at least one of the ${legend} to keep.`);
        return on.length === boxes.length ? [] : on;
      };
      return { node, picked };
    };
    const categoryPicker = picker("categories", categories, (c) => c.replaceAll("_", " "));
    const languagePicker = picker("languages", languages, (l) => `${languageNames(l)} (${l})`);
    const open = el("button", { type: "button", text: "Open in Benchmarks" });
    const score = el("button", { type: "button", class: "primary", text: "Score on the simulated model" });
    const plan = el("button", { type: "button", text: "Plan for a provider" });

    /** Loads the ticked files into the Benchmarks session (replacing its data) with the selection. */
    async function openTicked() {
      const list = needTicked().filter((f) => BBQ_DATA_KINDS.has(f.kind ?? "examples"));
      if (list.length === 0) {
        throw new Error("None of the ticked files holds examples: a template table is fetched and verified here, not read (see its note).");
      }
      const keepCategories = categoryPicker.picked();
      const keepLanguages = languagePicker.picked();
      if (!(await fetchFiles(list))) return null;
      const box = el("progress", { max: String(list.length), value: "0", "aria-label": "Reading the files" });
      showIn(problem, box);
      problem.hidden = false;
      await call("bbqClear");
      let examples = 0;
      performance.mark("evenhand:import");
      for (const [i, f] of list.entries()) {
        status.textContent = `Reading ${f.name} (${i + 1} of ${list.length})…`;
        const data = await bytesOf(f, () => {});
        // Bytes read from Cache Storage are this call's own: moved to the worker, not copied
        // (the full BBQ's 47 MB would otherwise be held twice while it is read).
        const own = !loaded.has(f.url) && data.byteOffset === 0 && data.byteLength === data.buffer.byteLength;
        const buffer = /** @type {ArrayBuffer} */ (own ? data.buffer : data.slice().buffer);
        // A file kept as Parquet (Hugging Face's format) holds its format's rows: converted to
        // JSON Lines first, as an upload is (read-file.js), then read by the same reader.
        const rows = isParquet(f.path, buffer) ? await parquetToJsonl(fileName(f), buffer) : buffer;
        const s = await call("bbqAddDataIn", fileName(f), transferable(rows), f.language ?? null);
        examples = s.total_examples;
        box.value = i + 1;
      }
      performance.measure("evenhand:import", "evenhand:import");
      performance.mark("evenhand:select");
      const selection = { categories: keepCategories, languages: keepLanguages, condition: condition.value, subset: subset.value };
      const k = await call("bbqKeep", selection);
      performance.measure("evenhand:select", "evenhand:select");
      showIn(problem);
      const what = list.map((f) => f.name).join(", ");
      const narrowed = k.dropped ? ` (${k.kept} of ${examples} kept by the selection)` : "";
      const unverified = list.filter((f) => f.unverified).map((f) => f.name);
      const via = mirror ? ` Served by the mirror ${mirrorOrigin}.` : "";
      return `${d.name}: ${what}: ${plural(k.kept, "example")}${narrowed}, from the catalogue, ` + (unverified.length
        ? `UNVERIFIED: ${unverified.join(", ")} not pinned by the catalogue (checked against their first fetch only).`
        : "verified.") + via;
    }

    const act = (button, after) => button.addEventListener("click", () => busy(button, async () => {
      try {
        const message = await openTicked();
        if (message) await after(message);
      } catch (err) {
        showIn(problem, alert(el("p", { text: errorMessage(err) })));
      }
    }));
    act(open, (message) => bbqDataChanged({ message }));
    act(score, (message) => bbqDataChanged({ message, simulate: true }));
    act(plan, async (message) => {
      performance.mark("evenhand:plan");
      const p = await call("bbqProviderCases", null);
      performance.measure("evenhand:plan", "evenhand:plan");
      status.textContent = `${message} ${plural(p.cases, "case")} planned for a provider` +
        (p.skipped ? `; ${p.skipped} in a language without a prompt variant left out.` : ".");
      bbqDataChanged({ message });
      handToRun({ origin: "bbq-chat", kind: "chat", name: `${d.name}-cases.jsonl`, text: p.jsonl,
        label: `${plural(p.cases, "question")} of ${d.name} (${ticked().map((f) => f.name).join(", ")}) from the Datasets tab` });
    });
    return el("div", { class: "dataset-open" },
      ...[categoryPicker.node, languagePicker.node].filter(Boolean),
      el("div", { class: "grid" },
        el("div", { class: "row" }, el("label", { for: condition.id, text: "Ambiguous or disambiguated" }), condition),
        el("div", { class: "row" }, el("label", { for: subset.id, text: "Group terms or proper names" }), subset)),
      el("div", { class: "buttons" }, open, score, plan));
  }
}
