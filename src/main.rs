//! The `evenhand` command line: the same core as the page, JSON on stdout, readable errors
//! on stderr and a non-zero exit when something is wrong.
//!
//! It needs a native HTTP transport (ureq), so it exists only for native targets; cargo still
//! builds the binary when the wasm tests run, and there it is an empty program.

#[cfg(not(target_arch = "wasm32"))]
mod cli;

#[cfg(not(target_arch = "wasm32"))]
fn main() -> std::process::ExitCode {
    cli::main()
}

#[cfg(target_arch = "wasm32")]
fn main() {}
