// What the two local-model views (crosslingual-local.js: embeddings, crosslingual-nli.js: the NLI
// detector) show while a model downloads and is checked, and once it is loaded.
import { el } from "../dom.js";

export const mb = (bytes) => `${(bytes / 1e6).toFixed(1)} MB`;

/** A progress handler for models.js's loads: bytes while downloading, then the check and parse.
 *  @param {HTMLProgressElement} progress @param {HTMLElement} status */
export const loadProgress = (progress, status) => (p) => {
  if (p.got !== undefined) {
    progress.max = p.total || p.got;
    progress.value = p.got;
    status.textContent = `Downloading ${p.file}: ${mb(p.got)}${p.total ? ` of ${mb(p.total)}` : ""}`;
  } else {
    progress.removeAttribute("value");
    status.textContent = p.checking ? `Checking the sha256 of ${p.file}` : `Loading ${p.file}`;
  }
};

/** Each loaded file with its sha256 and whether the catalogue pinned it. */
export const describeFiles = (loaded) => el("ul", { class: "model-files" }, loaded.files.map((f) => el("li", {
  text: `${f.file}: sha256 ${f.sha256} ${f.pinned ? "(matches the catalogue's pin)" : "(unverified: not pinned by the model catalogue; trust on first use)"}` })));
