//! docs/cli.md is the parser's own help: regenerating it must give the committed file.

#[path = "common/cli.rs"]
mod cli;

#[test]
fn the_cli_reference_matches_the_help() {
    let (code, generated, stderr) = cli::evenhand(&["help-markdown"]);
    assert_eq!(code, 0, "{stderr}");
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/cli.md");
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    if committed != generated {
        let line = committed.lines().zip(generated.lines()).position(|(a, b)| a != b);
        let line = line.unwrap_or(committed.lines().count().min(generated.lines().count())) + 1;
        panic!(
            "docs/cli.md is out of date (first difference at line {line}): run `cargo run -- help-markdown > docs/cli.md`"
        );
    }
}

#[test]
fn every_subcommand_has_a_section() {
    let (_, generated, _) = cli::evenhand(&["help-markdown"]);
    let (_, top, _) = cli::evenhand(&["--help"]);
    let listed: Vec<&str> = top
        .lines()
        .skip_while(|l| !l.starts_with("Commands:"))
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        .filter_map(|l| l.split_whitespace().next())
        .filter(|name| *name != "help")
        .collect();
    assert!(listed.len() >= 13, "{top}");
    for name in listed {
        assert!(generated.contains(&format!("\n## evenhand {name}\n")), "no section for {name}");
    }
    assert!(generated.contains("\n## evenhand batch export\n") && generated.contains("Usage: evenhand batch export"));
    assert!(!generated.contains("help-markdown\n"), "the generator itself is hidden");
}

#[test]
fn each_section_is_what_help_prints() {
    let (_, generated, _) = cli::evenhand(&["help-markdown"]);
    let mut checked = 0;
    for part in generated.split("\n## ").skip(1) {
        let (title, rest) = part.split_once('\n').unwrap();
        let block = rest.split("```text\n").nth(1).and_then(|b| b.split("\n```").next()).unwrap();
        let mut args: Vec<&str> = title.split(' ').skip(1).collect();
        args.push("--help");
        let (code, help, _) = cli::evenhand(&args);
        assert_eq!(code, 0, "{args:?}");
        let help: Vec<&str> = help.trim_end().lines().map(str::trim_end).collect();
        assert_eq!(block, help.join("\n"), "the section {title:?} differs from `{}`", args.join(" "));
        checked += 1;
    }
    assert!(checked >= 16, "{checked} sections");
}
