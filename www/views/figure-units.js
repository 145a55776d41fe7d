// How the study report writes a number, decided by the kind of figure, so one kind reads the
// same everywhere in the page: rates as percentages with one decimal ("85.9%"), differences of
// rates in percentage points ("-3.4 pp"), other figures (diff-bias, CD) as plain numbers whose
// scale unitsNote() states. The same rules as the core's study::units (the downloaded HTML),
// so the page and the file agree; report JSON keeps fractions.

const MISSING = "–";

/** @typedef {"rate" | "rate-gap" | "diff-bias" | "divergence" | "plain"} Kind */

/**
 * The kind of a figure, from its name as the core writes it ("pass rate · sexism · en", ...).
 * @param {string} figure
 * @returns {Kind}
 */
export function kindOf(figure) {
  const f = String(figure ?? "").trimStart();
  if (f.startsWith("refusal gap")) return "rate-gap";
  if (["pass rate", "refusal rate", "accuracy"].some((p) => f.startsWith(p))) return "rate";
  if (f.startsWith("diff-bias")) return "diff-bias";
  if (f.startsWith("CD")) return "divergence";
  return "plain";
}

const finite = (x) => x != null && Number.isFinite(x);
const isRate = (kind) => kind === "rate" || kind === "rate-gap";
// Rounded to one decimal, a tiny negative would print as "-0.0".
const tenths = (x) => {
  const v = x * 100;
  return (Math.abs(v) < 0.05 ? 0 : v).toFixed(1);
};

/** A plain number with `digits` decimals (p-values, design effects, counts of a scale). */
export const plain = (x, digits = 3) => (finite(x) ? Number(x).toFixed(digits) : MISSING);

/** A figure's value: "85.9%" for a rate, "12.5 pp" for a gap, "0.123" otherwise. */
export function value(figure, x) {
  if (!finite(x)) return MISSING;
  const kind = kindOf(figure);
  if (kind === "rate") return `${tenths(x)}%`;
  if (kind === "rate-gap") return `${tenths(x)} pp`;
  return plain(x);
}

/** A difference between two models' values of a figure: percentage points for rates. */
export function difference(figure, x) {
  if (!finite(x)) return MISSING;
  return isRate(kindOf(figure)) ? `${tenths(x)} pp` : plain(x);
}

/** An interval of values, "[80.1%, 90.2%]". */
export const interval = (figure, i) => (i && finite(i.low) && finite(i.high) ? `[${value(figure, i.low)}, ${value(figure, i.high)}]` : MISSING);

/** An interval of differences, "[-5.1 pp, 2.0 pp]". */
export const differenceInterval = (figure, i) =>
  (i && finite(i.low) && finite(i.high) ? `[${difference(figure, i.low)}, ${difference(figure, i.high)}]` : MISSING);

/** A ratio such as a design effect, "1.84". */
export const ratio = (x) => plain(x, 2);

/** A p-value: four decimals, "< 0.0001" below. */
export const pValue = (p) => (p != null && p < 0.0001 ? "< 0.0001" : plain(p, 4));

/**
 * The scales of the kinds among `figures`, in one sentence ("" when there is none).
 * @param {string[]} figures
 * @param {string} [divergenceUnit] the unit of CD (the core's default: nats)
 */
export function unitsNote(figures, divergenceUnit = "nats") {
  const kinds = new Set(figures.map(kindOf));
  const parts = [];
  if (kinds.has("rate") || kinds.has("rate-gap")) parts.push("rates in percent, differences of rates in percentage points (pp)");
  if (kinds.has("diff-bias")) parts.push("diff-bias from -1 to 1 (0: no bias; positive: answers follow the stereotype)");
  if (kinds.has("divergence")) parts.push(`CD in ${divergenceUnit} (negative: closer to local; positive: closer to Western)`);
  return parts.length ? `Units: ${parts.join("; ")}.` : "";
}
