// The native CLI the end-to-end tests compare the page against. The debug build: `cargo test`
// has just built it, and the few small commands these tests run take well under a second in it,
// while a release build with LTO would cost the test run several minutes.
export const CLI = process.env.EVENHAND_CLI || "target/debug/evenhand";
