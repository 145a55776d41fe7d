// The expert tools' tab bar: a WAI-ARIA tablist with roving tabindex. Arrow keys, Home and End
// move between tabs and show them; Enter and Space work because the tabs are buttons.

/**
 * @param {Element} tablist
 * @param {(name: string) => void} onShow told when a click, a key or `show` selects a tab
 *   (the page puts it in the address), not when `select` does
 */
export function setupTabs(tablist, onShow) {
  const tabs = /** @type {HTMLElement[]} */ ([...tablist.querySelectorAll('[role="tab"]')]);
  const panelOf = (tab) => document.getElementById(tab.getAttribute("aria-controls"));
  const nameOf = (tab) => tab.id.replace(/^tab-/, "");

  function select(tab, focus = false) {
    for (const t of tabs) {
      const on = t === tab;
      t.setAttribute("aria-selected", String(on));
      t.tabIndex = on ? 0 : -1;
      panelOf(t).hidden = !on;
    }
    if (focus) tab.focus();
  }

  tablist.addEventListener("click", (event) => {
    const tab = /** @type {HTMLElement} */ (event.target).closest('[role="tab"]');
    if (!tab) return;
    select(tab);
    onShow(nameOf(tab));
  });

  tablist.addEventListener("keydown", (/** @type {KeyboardEvent} */ event) => {
    const i = tabs.indexOf(/** @type {HTMLElement} */ (document.activeElement));
    if (i < 0) return;
    const target = {
      ArrowRight: tabs[(i + 1) % tabs.length],
      ArrowLeft: tabs[(i - 1 + tabs.length) % tabs.length],
      Home: tabs[0],
      End: tabs[tabs.length - 1],
    }[event.key];
    if (!target) return;
    event.preventDefault();
    select(target, true);
    onShow(nameOf(target));
  });

  const byName = (name) => document.getElementById(`tab-${name}`);
  return {
    /** Shows a tab by name ("results", "upload", ...), as a click would. */
    show: (name) => {
      select(byName(name));
      onShow(name);
    },
    /** Selects a tab without telling `onShow` (the address already names it). */
    select: (name) => select(byName(name)),
  };
}
