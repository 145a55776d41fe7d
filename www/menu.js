// A menu button (WAI-ARIA menu pattern) whose items are links: Enter, Space or the arrow keys
// open it, the arrow keys, Home and End move inside it, Escape closes it and gives the focus back.

/** @param {HTMLButtonElement} button @param {HTMLElement} list */
export function setupMenu(button, list) {
  const items = /** @type {HTMLElement[]} */ ([...list.querySelectorAll('[role="menuitem"]')]);

  function open(index = 0) {
    list.hidden = false;
    button.setAttribute("aria-expanded", "true");
    items[(index + items.length) % items.length].focus();
  }
  function close(refocus = false) {
    if (list.hidden) return;
    list.hidden = true;
    button.setAttribute("aria-expanded", "false");
    if (refocus) button.focus();
  }

  button.addEventListener("click", () => (list.hidden ? open(0) : close()));
  button.addEventListener("keydown", (event) => {
    if (event.key === "ArrowDown") open(0);
    else if (event.key === "ArrowUp") open(-1);
    else return;
    event.preventDefault();
  });

  list.addEventListener("keydown", (event) => {
    const i = items.indexOf(/** @type {HTMLElement} */ (document.activeElement));
    const target = {
      ArrowDown: i + 1,
      ArrowUp: i - 1,
      Home: 0,
      End: -1,
    }[event.key];
    if (target !== undefined) {
      event.preventDefault();
      items[(target + items.length) % items.length].focus();
    } else if (event.key === "Escape") {
      event.preventDefault();
      close(true);
    } else if (event.key === "Tab") {
      close();
    } else if (event.key === " ") {
      // Links follow on Enter by themselves; Space is the menu pattern's other key.
      event.preventDefault();
      /** @type {HTMLElement} */ (document.activeElement).click();
    }
  });
  // Following an item closes the menu; the router moves the focus to what it opened.
  list.addEventListener("click", () => close());
  document.addEventListener("pointerdown", (event) => {
    const target = /** @type {Node} */ (event.target);
    if (!list.hidden && !list.contains(target) && !button.contains(target)) close();
  });
}
