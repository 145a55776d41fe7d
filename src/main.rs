//! The `evenhand` command line: the same core as the page, JSON on stdout, readable errors
//! on stderr and a non-zero exit when something is wrong.

mod cli;
mod cli_divergence;
mod cli_langbite;

fn main() -> std::process::ExitCode {
    cli::main()
}
