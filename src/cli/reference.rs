//! docs/cli.md, rendered from the parser itself so the reference cannot drift from `--help`
//! (tests/cli_reference.rs fails when the committed file differs).

/// The top-level help, then one section per subcommand (nested ones too) with its `--help`.
pub fn markdown(mut cli: clap::Command) -> String {
    // Building fills in what `--help` shows and the bare definitions lack: the full
    // "evenhand batch export" in usage lines, the generated `help` subcommand.
    cli.build();
    let mut out = String::from(
        "# evenhand command reference\n\n\
         Generated from the command definitions by `evenhand help-markdown`; do not edit by hand.\n\
         Regenerate with `cargo run -- help-markdown > docs/cli.md`.\n\n",
    );
    section(&mut out, "evenhand", &mut cli);
    out.truncate(out.trim_end().len());
    out + "\n"
}

fn section(out: &mut String, path: &str, cmd: &mut clap::Command) {
    // `--help` is the long form only where some text has a long form (clap's own rule).
    let long = cmd.get_long_about().is_some()
        || cmd.get_after_long_help().is_some()
        || cmd.get_arguments().any(|a| a.get_long_help().is_some());
    let help = if long { cmd.render_long_help() } else { cmd.render_help() }.to_string();
    let help: Vec<&str> = help.lines().map(str::trim_end).collect();
    out.push_str(&format!("## {path}\n\n```text\n{}\n```\n\n", help.join("\n").trim_end()));
    for sub in cmd.get_subcommands_mut() {
        if !sub.is_hide_set() && sub.get_name() != "help" {
            let path = format!("{path} {}", sub.get_name());
            section(out, &path, sub);
        }
    }
}
