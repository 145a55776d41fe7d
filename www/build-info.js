// Which Evenhand is running: the version and build from version.json (written by ./build.sh),
// shown in the header and written into the exports that have a place for metadata
// (docs/formats.md lists which do). Exports are stamped as text, never parsed and re-serialised,
// so 64-bit seeds and the exact number formatting the wasm wrote survive untouched.

let current = { version: null, build: "dev" };

/** Reads version.json once; `fallbackVersion` (the wasm's own) when the file is missing. */
export async function loadBuildInfo(fallbackVersion) {
  try {
    const response = await fetch(new URL("./version.json", import.meta.url), { cache: "no-store" });
    if (response.ok) {
      const info = await response.json();
      current = { version: String(info.version ?? fallbackVersion), build: String(info.build || "dev") };
      return current;
    }
  } catch {
    // Served without version.json (a bare checkout): the wasm still knows its version.
  }
  current = { version: String(fallbackVersion), build: "dev" };
  return current;
}

export const buildInfo = () => current;

/** "Evenhand 0.1.0 (3f2c1ab)" */
export const buildLabel = () => `Evenhand ${current.version} (${current.build})`;

/** The JSON object in `text` with `key` added as its first member, in the text's own layout. */
export function withFirstKey(text, key, value) {
  const open = text.indexOf("{");
  if (open < 0) return text;
  const rest = text.slice(open + 1);
  const pair = `${JSON.stringify(key)}: ${JSON.stringify(value)}`;
  const indent = /^\n([ \t]*)/.exec(rest);
  const empty = /^\s*}/.test(rest);
  if (indent) return `${text.slice(0, open)}{\n${indent[1]}${pair}${empty ? "" : ","}${rest}`;
  return `${text.slice(0, open)}{${pair}${empty ? "" : ","}${rest}`;
}

/** A results JSON object, with a "generator" member naming this build. */
export const withGenerator = (text) => withFirstKey(text, "generator", buildLabel());

/** A bundle: its tool_version gains the build as semver build metadata ("0.1.0+3f2c1ab").
 *  The bundle reader accepts no unknown member, so the build goes into this existing one. */
export function stampBundle(text) {
  return text.replace(/("tool_version"\s*:\s*)"([^"\\]*)"/, (_, head, version) =>
    `${head}${JSON.stringify(version.includes("+") ? version : `${version}+${current.build}`)}`);
}
