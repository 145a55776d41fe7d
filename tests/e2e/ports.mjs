// The three local servers' ports. E2E_PORT moves all three (base, base+1, base+2), so two
// checkouts can run their end-to-end tests on one machine at the same time.
const base = Number(process.env.E2E_PORT || 8081);
export const PAGE_PORT = base;
export const SUBPATH_PORT = base + 1;
export const FIXTURE_PORT = base + 2;
export const PAGE = `http://127.0.0.1:${PAGE_PORT}`;
export const SUBPATH = `http://127.0.0.1:${SUBPATH_PORT}`;
export const FIXTURES = `http://127.0.0.1:${FIXTURE_PORT}`;
// datasets.spec.mjs's mirror of the catalogue's hosts (offline.spec.mjs takes base + 3).
export const MIRROR_PORT = base + 4;
