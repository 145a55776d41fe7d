//! The HTML report's "what changed between the models, item by item" section: per method and
//! model pair, the items compared and the items whose outcomes differ per category, then the
//! first [`super::items::HTML_PER_GROUP`] differing items of each category (static, no script;
//! every one of them is in report.json's `changes.items`).

use super::items::{Changes, Item};
use crate::report::svg::escape;
use std::fmt::Write;

/// Long prompts and answers are cut here in the HTML (report.json has them whole).
const CUT: usize = 300;

fn cut(text: &str) -> String {
    let t = text.trim();
    match t.char_indices().nth(CUT) {
        Some((at, _)) => format!("{}…", &t[..at]),
        None => t.to_string(),
    }
}

fn method_name(m: &str) -> &str {
    match m {
        "bbq" => "BBQ",
        "requirements" => "Ethical requirements",
        "crosslingual" => "Cross-lingual refusals",
        "divergence" => "Cultural divergence",
        other => other,
    }
}

fn answer_cell(a: &super::items::Answer) -> String {
    format!(
        "<strong>{}</strong><br>{}<br><span class=\"meta\">{}</span>",
        escape(&a.outcome),
        escape(&cut(&a.response)),
        escape(&a.read)
    )
}

/// Items printed per group: the on-screen HTML shows [`super::items::HTML_PER_GROUP`]; on paper
/// that made the item table most of the report's pages.
pub const PRINT_PER_GROUP: usize = 3;

fn item_row(out: &mut String, it: &Item, printed: bool) {
    let _ = writeln!(
        out,
        "<tr{}><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
        if printed { "" } else { " class=\"screen-only\"" },
        escape(&it.id),
        escape(&it.language),
        escape(&it.condition),
        escape(&cut(&it.question)),
        escape(&it.expected),
        answer_cell(&it.a),
        answer_cell(&it.b)
    );
}

/// Writes the section into `out`.
pub fn render(out: &mut String, ch: &Changes) {
    out.push_str("<section id=\"changes\">\n<h2>What changed between the models, item by item</h2>\n");
    if ch.groups.is_empty() {
        out.push_str("<p>No item was answered by two models: nothing to compare item by item.</p>\n</section>\n");
        return;
    }
    let _ = writeln!(
        out,
        "<p>Each item both models answered, read as its method counts it (BBQ: the option chosen; requirements: the oracle's verdict; cross-lingual: refused or not; divergence: the context's lean, local or Western). Per category, the first {} items whose outcomes differ; all {} are in report.json (<code>changes.items</code>).</p>",
        ch.html_per_group,
        ch.items.len()
    );
    let mut heads: Vec<(&str, &str, &str)> = vec![];
    for g in &ch.groups {
        let h = (g.method.as_str(), g.model_a.as_str(), g.model_b.as_str());
        if !heads.contains(&h) {
            heads.push(h);
        }
    }
    for (method, a, b) in heads {
        let groups: Vec<_> =
            ch.groups.iter().filter(|g| g.method == method && g.model_a == a && g.model_b == b).collect();
        let _ = writeln!(out, "<h3>{}: {} and {}</h3>", escape(method_name(method)), escape(a), escape(b));
        out.push_str("<table><thead><tr><th>Category</th><th>Items both answered</th><th>Outcomes differ</th><th>Share</th></tr></thead><tbody>\n");
        for g in &groups {
            let share = if g.items == 0 { 0.0 } else { g.disagree as f64 / g.items as f64 };
            let _ = writeln!(
                out,
                "<tr><td>{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td></tr>",
                escape(&g.category),
                g.items,
                g.disagree,
                super::units::value(super::units::Kind::Rate, share)
            );
        }
        out.push_str("</tbody></table>\n");
        for g in groups.iter().filter(|g| g.disagree > 0) {
            let (first, more) = ch.first_of(g, ch.html_per_group);
            let _ = writeln!(
                out,
                "<h4>{}: {} of {} item(s) differ</h4>\n<table><thead><tr><th>Item</th><th>Language</th><th>Condition</th><th>Question or prompt</th><th>Expected</th><th>{}</th><th>{}</th></tr></thead><tbody>",
                escape(&g.category),
                g.disagree,
                g.items,
                escape(a),
                escape(b)
            );
            for (i, it) in first.into_iter().enumerate() {
                item_row(out, it, i < PRINT_PER_GROUP);
            }
            out.push_str("</tbody></table>\n");
            if g.disagree as usize > PRINT_PER_GROUP {
                let _ = writeln!(
                    out,
                    "<p class=\"meta print-only\">Printed: the first {PRINT_PER_GROUP} of {}; the report on screen shows {}, report.json all.</p>",
                    g.disagree,
                    ch.html_per_group.min(g.disagree as usize)
                );
            }
            if more > 0 {
                let _ = writeln!(
                    out,
                    "<p class=\"meta\">… and {more} more in report.json (<code>changes.items</code>).</p>"
                );
            }
        }
    }
    out.push_str("</section>\n");
}
