// Builds what the servers serve: fixture files from the native CLI, and the dist/ copy of the
// page under a sub-path. Runs once before the tests (the servers read their folders lazily).
import { execFileSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";

import { CLI } from "./cli.mjs";
const FIXTURES = "target/e2e-fixtures";
const SUBPATH = "target/subpath-root/some/project";

function need(path, hint) {
  if (!existsSync(path)) throw new Error(`${path} is missing: ${hint}`);
}

export default function globalSetup() {
  need(CLI, "run `cargo build --bin evenhand` first");
  need("www/pkg/evenhand_bg.wasm", "run `./build.sh build` first");
  need("dist/pkg/evenhand_bg.wasm", "run `rm -rf dist && cp -r www dist` (or ./build.sh test) first");

  rmSync(FIXTURES, { recursive: true, force: true });
  mkdirSync(FIXTURES, { recursive: true });
  // The built-in demo, as the native CLI computes it: the reference numbers.
  execFileSync(CLI, ["demo", "--out", `${FIXTURES}/demo`], { stdio: ["ignore", "ignore", "inherit"] });
  // Another seed, so a loaded bundle is told apart from the demo the page opens on.
  execFileSync(CLI, ["demo", "--out", `${FIXTURES}/seed7`, "--seed", "7", "--samples", "3"], { stdio: ["ignore", "ignore", "inherit"] });
  // A bundle that points to its records by a relative URL instead of carrying them.
  const bundle = JSON.parse(readFileSync(`${FIXTURES}/seed7/bundle.json`, "utf8"));
  mkdirSync(`${FIXTURES}/byurl`);
  writeFileSync(`${FIXTURES}/byurl/bundle.json`,
    JSON.stringify({ ...bundle, experiment: null, records: null, records_url: "records.jsonl" }, null, 2));
  cpSync(`${FIXTURES}/seed7/records.jsonl`, `${FIXTURES}/byurl/records.jsonl`);
  // One whose records_url answers an empty object: an error, not "0 records".
  writeFileSync(`${FIXTURES}/byurl/empty-bundle.json`,
    JSON.stringify({ ...bundle, experiment: null, records: null, records_url: "empty.json" }, null, 2));
  writeFileSync(`${FIXTURES}/byurl/empty.json`, "{}");

  rmSync("target/subpath-root", { recursive: true, force: true });
  mkdirSync(SUBPATH, { recursive: true });
  cpSync("dist", SUBPATH, { recursive: true });
}
