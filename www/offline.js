// Registers the service worker (sw.js) that keeps the page usable offline, and offers a reload
// when a newer version's worker has installed and waits behind the one in control.
import { $ } from "./dom.js";

/** Only where service workers make sense: served over http(s), and not inside the wasm test
 *  harness (wasm-bindgen-test serves its own page, which must not be cached). */
function wanted() {
  return "serviceWorker" in navigator && /^https?:$/.test(location.protocol) && !("__wbg_test_invoke" in globalThis);
}

let updating = false;

function offerUpdate(waiting) {
  const banner = $("update-banner");
  const button = $("update-reload");
  banner.hidden = false;
  button.onclick = () => {
    button.disabled = true;
    updating = true;
    waiting.postMessage({ type: "skip-waiting" });
  };
}

/** `build` names the cache, so each published version gets its own and a new one is noticed
 *  even when sw.js itself did not change. */
export async function registerOffline(build) {
  if (!wanted()) return null;
  const url = new URL(`./sw.js?build=${encodeURIComponent(build)}`, import.meta.url);
  let registration;
  try {
    registration = await navigator.serviceWorker.register(url, { scope: "./" });
  } catch (err) {
    // Offline use is a convenience: the page works without it (a private window, a policy).
    console.warn(`Evenhand: offline use is unavailable: ${err.message ?? err}`);
    return null;
  }
  // A browser that blocks service workers by policy (Playwright's serviceWorkers: "block") may
  // resolve without a registration.
  if (!registration) return null;
  // A worker already waiting (installed on an earlier visit), or one that finishes installing
  // now, while an older one controls the page: that is a new version.
  if (registration.waiting && navigator.serviceWorker.controller) offerUpdate(registration.waiting);
  registration.addEventListener("updatefound", () => {
    const incoming = registration.installing;
    incoming?.addEventListener("statechange", () => {
      if (incoming.state === "installed" && navigator.serviceWorker.controller) offerUpdate(incoming);
    });
  });
  // The new worker takes over once asked to; the page then reloads into it. (The first
  // visit's worker taking control, or another tab's update, changes nothing on screen.)
  navigator.serviceWorker.addEventListener("controllerchange", () => {
    if (updating) location.reload();
  });
  return registration;
}
