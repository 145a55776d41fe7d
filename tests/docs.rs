//! The documentation stays readable and whole: the README fits on two screens, and every
//! relative link in README.md and docs/*.md points to a file that exists (and, with a
//! `#fragment`, to a heading that exists in it).

use std::path::{Path, PathBuf};

const ROOT: &str = env!("CARGO_MANIFEST_DIR");
const README_MAX_LINES: usize = 130;

fn pages() -> Vec<PathBuf> {
    let mut out = vec![Path::new(ROOT).join("README.md")];
    let mut docs: Vec<PathBuf> = std::fs::read_dir(Path::new(ROOT).join("docs"))
        .expect("docs/ exists")
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "md"))
        .collect();
    docs.sort();
    out.extend(docs);
    out
}

/// Targets of inline Markdown links and images, `[text](target)`, outside code spans and
/// fenced blocks, with the 1-based line they are on.
fn links(text: &str) -> Vec<(usize, String)> {
    let mut out = vec![];
    let mut fenced = false;
    for (n, line) in text.lines().enumerate() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if fenced {
            continue;
        }
        // Code spans may hold brackets that are not links, e.g. `[--seed S]`.
        let plain: String = line.split('`').step_by(2).collect::<Vec<_>>().join(" ");
        let mut rest = plain.as_str();
        while let Some(i) = rest.find("](") {
            let after = &rest[i + 2..];
            let Some(end) = after.find(')') else { break };
            out.push((n + 1, after[..end].trim().to_string()));
            rest = &after[end..];
        }
    }
    out
}

/// GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens.
fn anchors(text: &str) -> Vec<String> {
    let mut fenced = false;
    let mut out = vec![];
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
        }
        if fenced || !line.starts_with('#') {
            continue;
        }
        let title = line.trim_start_matches('#').trim();
        let anchor: String = title
            .to_lowercase()
            .chars()
            .filter(|c| c.is_alphanumeric() || *c == ' ' || *c == '-' || *c == '_')
            .map(|c| if c == ' ' { '-' } else { c })
            .collect();
        out.push(anchor);
    }
    out
}

fn is_external(target: &str) -> bool {
    target.contains("://") || target.starts_with("mailto:")
}

/// Every broken relative link of one page, as "file:line: message".
fn broken_links(page: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(page).unwrap();
    let name = page.strip_prefix(ROOT).unwrap_or(page).display().to_string();
    let mut out = vec![];
    for (line, target) in links(&text) {
        if is_external(&target) {
            continue;
        }
        let (file, fragment) = match target.split_once('#') {
            Some((f, a)) => (f, Some(a)),
            None => (target.as_str(), None),
        };
        let path = if file.is_empty() { page.to_path_buf() } else { page.parent().unwrap().join(file) };
        if !path.exists() {
            out.push(format!("{name}:{line}: link to {target}: no such file"));
            continue;
        }
        if let Some(fragment) = fragment.filter(|_| path.extension().is_some_and(|x| x == "md")) {
            let headings = anchors(&std::fs::read_to_string(&path).unwrap());
            if !headings.iter().any(|h| h == fragment) {
                out.push(format!("{name}:{line}: link to {target}: no heading #{fragment} in {file}"));
            }
        }
    }
    out
}

#[test]
fn the_readme_fits_on_two_screens() {
    let lines = std::fs::read_to_string(Path::new(ROOT).join("README.md")).unwrap().lines().count();
    assert!(
        lines <= README_MAX_LINES,
        "README.md has {lines} lines; keep it at most {README_MAX_LINES} and move detail to docs/"
    );
}

#[test]
fn every_relative_link_points_to_an_existing_file() {
    let broken: Vec<String> = pages().iter().flat_map(|p| broken_links(p)).collect();
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
}

#[test]
fn the_link_check_itself_finds_a_broken_link() {
    let dir = Path::new(ROOT).join("target").join("docs-test");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("there.md"), "# A heading\n").unwrap();
    let page = dir.join("page.md");
    std::fs::write(
        &page,
        "[ok](there.md) [ok](there.md#a-heading) [web](https://example.org/x.md) `[not](a-link.md)`\n\
         [gone](missing.md)\n[bad anchor](there.md#nowhere)\n```\n[in a fence](fenced.md)\n```\n",
    )
    .unwrap();
    let found = broken_links(&page);
    assert_eq!(found.len(), 2, "{found:?}");
    assert!(found[0].ends_with("page.md:2: link to missing.md: no such file"), "{}", found[0]);
    assert!(found[1].contains(":3: link to there.md#nowhere: no heading #nowhere"), "{}", found[1]);
}
