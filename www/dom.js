// Small DOM helpers. Everything that may come from a model response or an uploaded file
// goes through textContent here; nothing in the page assigns innerHTML.

// Bidirectional controls (embeddings, overrides, isolates, marks) in text a model or a user
// wrote would reorder the page's own words after them ("gpt-4\u202E answered" reversed):
// shown escaped instead, as [U+202E], as the HTML report and the CSV exports do.
const BIDI = /[\u202A-\u202E\u2066-\u2069\u200E\u200F\u061C]/g;

/** `text` with every bidirectional control written visibly as [U+XXXX]. */
export const plain = (text) =>
  String(text).replace(BIDI, (c) => `[U+${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, "0")}]`);

/** Creates an element. `props.text` becomes textContent (bidirectional controls escaped); other keys are attributes, except
 *  the few listed as properties. Event-handler attributes are refused outright. */
const PROPERTIES = new Set(["value", "checked", "selected", "disabled", "hidden", "readOnly"]);

export function el(tag, props = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(props)) {
    if (value === undefined || value === null || value === false) continue;
    if (/^on/i.test(key)) throw new Error(`el: refusing event attribute ${key}`);
    if (key === "text") node.textContent = plain(value);
    else if (key === "class") node.className = value;
    else if (PROPERTIES.has(key)) node[key] = value;
    else node.setAttribute(key, plain(value));
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(plain(child)));
  }
  return node;
}

/** An element by id; `any`, as the page reads .value, .files, .tBodies of many element kinds.
 *  @returns {any} */
export const $ = (id) => document.getElementById(id);

/** Shows `content` in an alert box (or hides the box when there is none). */
export function showIn(box, ...content) {
  box.replaceChildren(...content.flat().filter((c) => c !== null && c !== undefined));
  box.hidden = box.childNodes.length === 0;
}

/** "line 3, column 2, field sample_index: expected ..." */
export function describeProblem(p) {
  const where = [];
  if (p.line != null) where.push(`line ${p.line}`);
  if (p.column != null) where.push(`column ${p.column}`);
  if (p.field) where.push(`field ${p.field}`);
  return where.length ? `${where.join(", ")}: ${p.message}` : p.message;
}

export function problemList(problems, className = "problems") {
  return el("ul", { class: className }, problems.map((p) => el("li", { text: describeProblem(p) })));
}

/** The readable message of an error from the worker, whatever its shape. */
export function errorMessage(err) {
  if (err && typeof err === "object" && err.message) return String(err.message);
  return String(err);
}

/** Swaps an <img>'s SVG. An SVG shown through <img> cannot run script or load anything. */
export function setSvg(img, svg, alt) {
  if (img.src.startsWith("blob:")) URL.revokeObjectURL(img.src);
  img.src = URL.createObjectURL(new Blob([svg], { type: "image/svg+xml" }));
  img.alt = alt;
  img.hidden = false;
}

/** Saves text as a file through a temporary blob link. */
export function download(name, text, type) {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const a = el("a", { href: url, download: name, hidden: true });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

export const percent = (x, digits = 1) => `${(x * 100).toFixed(digits)}%`;

/** "1 reply", "2 replies": `many` for words whose plural is not word + "s". */
export const plural = (n, word, many = `${word}s`) => `${n} ${n === 1 ? word : many}`;

/** Runs `work` with `button` disabled, so a second click cannot start it twice. */
export async function busy(button, work) {
  button.disabled = true;
  try {
    return await work();
  } finally {
    button.disabled = false;
  }
}
