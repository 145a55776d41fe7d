// The Cross-lingual tab's local NLI refusal detector (issue 26): the shared panel (nli-panel.js)
// over the loaded records (crosslingualNliItems, crosslingualAddNli), so the trust panel compares
// the NLI detector with the others and the user can let it decide the figures.
import { $, el } from "../dom.js";
import { createNliPanel } from "./nli-panel.js";

/** @param {import("../rpc.js").AnalysisCall} call */
export function createCrosslingualNli(call, refresh) {
  createNliPanel("crosslingual-nli", {
    items: () => call("crosslingualNliItems"),
    write: (batch) => call("crosslingualAddNli", batch),
    empty: "No answered responses are loaded: load records, run the simulated model or analyze the reference responses first.",
    compared: "The NLI detector is compared with the others under “Every detector's trust”.",
    async after() {
      const select = /** @type {HTMLSelectElement} */ ($("crosslingual-detector"));
      const decide = el("button", { type: "button", id: "crosslingual-nli-decide", text: "Let the NLI model decide the figures" });
      decide.addEventListener("click", () => {
        select.value = "nli";
        select.dispatchEvent(new Event("change"));
        select.focus();
      });
      const offer = select.value === "nli" ? null : decide;
      await refresh(null);
      return [offer];
    },
  });
}
