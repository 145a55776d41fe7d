// The page's places by address, so each can be bookmarked and the Back button works:
//   #home (or nothing)          the home screen
//   #study/<step>               the study flow (new, example, report, ...)
//   #tools/<tab>                an expert tool, by its tab id (tab-<tab>)
//   #s1.… / #b1.…               a study's share link (the study / its bundle): its report
// A share link (#v1.…) and a bundle address (?bundle=) open in the expert tools' Results.

/** @typedef {{view: "home" | "study" | "tools", step?: string, tab?: string}} Route */

/** @returns {Route} */
export function parseRoute(hash = location.hash, search = location.search) {
  if (hash.startsWith("#v1.")) return { view: "tools", tab: "results" };
  if (hash.startsWith("#s1.") || hash.startsWith("#b1.")) return { view: "study", step: "shared" };
  const m = /^#(home|study|tools)(?:\/([\w-]*))?$/.exec(hash);
  if (!m) return new URLSearchParams(search).has("bundle") ? { view: "tools", tab: "results" } : { view: "home" };
  if (m[1] === "tools") return { view: "tools", tab: m[2] || "results" };
  if (m[1] === "study") return { view: "study", step: m[2] || "new" };
  return { view: "home" };
}

/**
 * Shows the view the address names. `selectTab(name)` selects a tools tab; `onStudy(step)` is
 * told when the study view opens or changes step. Returns `go(hash)`, which navigates.
 * @param {{selectTab: (name: string) => void, onStudy: (step: string) => void}} hooks
 */
export function setupRouter({ selectTab, onStudy }) {
  const views = /** @type {HTMLElement[]} */ ([...document.querySelectorAll(".view")]);
  let current = "";

  function apply(moveFocus) {
    const route = parseRoute();
    const changed = route.view !== current;
    current = route.view;
    for (const v of views) v.hidden = v.dataset.view !== route.view;
    document.body.dataset.view = route.view;
    for (const link of document.querySelectorAll(".site-nav > a")) {
      const here = link.getAttribute("href") === `#${route.view === "home" ? "home" : `study/${route.step}`}`;
      if (here) link.setAttribute("aria-current", "page");
      else link.removeAttribute("aria-current");
    }
    if (route.view === "tools") {
      const tab = document.getElementById(`tab-${route.tab}`) ? route.tab : "results";
      selectTab(tab);
      if (moveFocus && changed) document.getElementById(`tab-${tab}`)?.focus();
    } else if (route.view === "study") {
      onStudy(route.step ?? "new");
    } else if (moveFocus && changed) {
      document.getElementById("home-title")?.focus();
    }
  }

  window.addEventListener("hashchange", () => apply(true));
  // After the caller has `go` in hand: a view opened at load may navigate at once.
  queueMicrotask(() => apply(false));
  return (hash) => {
    if (location.hash !== hash) location.hash = hash;
    else apply(true);
  };
}
