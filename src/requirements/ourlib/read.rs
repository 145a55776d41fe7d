//! Reading our library and checking it. Errors are defects that would send a wrong prompt
//! (an unknown placeholder, a form a community lacks, an oracle that does not parse);
//! warnings are what a reader should know (a template with more placeholders than
//! communities yields nothing; ids missing in another language). Each names the file, the
//! template id and the field.

use super::slot::{self, Slot};
use super::{Community, FORMAT, OurLibrary, OurTemplate};
use crate::formats::Problem;
use crate::requirements::oracle::{Operation, OracleSpec};
use crate::requirements::placeholder::is_placeholder;
use std::collections::{BTreeMap, BTreeSet};

#[derive(Debug, Clone)]
pub struct Loaded {
    pub library: OurLibrary,
    pub errors: Vec<Problem>,
    pub warnings: Vec<Problem>,
}

#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    #[error("{file}:{line}:{column}: not a library of format {FORMAT}: {message}")]
    Json { file: String, line: usize, column: usize, message: String },
}

/// Whether `text` looks like our format (a JSON object whose `format` is [`FORMAT`]).
pub fn is_ours(text: &str) -> bool {
    serde_json::from_str::<serde_json::Value>(text)
        .ok()
        .and_then(|v| v.get("format").and_then(|f| f.as_str()).map(|f| f == FORMAT))
        .unwrap_or(false)
}

/// Parses and checks one file.
pub fn read(file: &str, text: &str) -> Result<Loaded, ReadError> {
    let library: OurLibrary = serde_json::from_str(text).map_err(|e| ReadError::Json {
        file: file.to_string(),
        line: e.line(),
        column: e.column(),
        message: e.to_string(),
    })?;
    let mut c = Check { file, errors: vec![], warnings: vec![] };
    c.file_level(&library);
    let mut seen = BTreeSet::new();
    for (i, t) in library.templates.iter().enumerate() {
        let at = format!("templates[{i}] (id {:?})", t.id);
        if !seen.insert(t.id.as_str()) {
            c.error(&format!("{at}.id"), "duplicate template id".into());
        }
        c.template(&library, t, &at);
    }
    Ok(Loaded { library, errors: c.errors, warnings: c.warnings })
}

/// Ids present in some library but missing from others, and ids whose concern, input,
/// reflection or oracle operation differ between languages: one warning per finding.
pub fn alignment(libs: &[(&str, &OurLibrary)]) -> Vec<Problem> {
    let mut out = vec![];
    let mut all: BTreeMap<&str, Vec<(&str, &OurTemplate)>> = BTreeMap::new();
    for (file, lib) in libs {
        for t in &lib.templates {
            all.entry(t.id.as_str()).or_default().push((file, t));
        }
    }
    for (id, found) in &all {
        for (file, lib) in libs {
            if !found.iter().any(|(f, _)| f == file) {
                out.push(
                    Problem::new(
                        file,
                        format!("template id {id:?} is missing in {} (other languages have it)", lib.language),
                    )
                    .in_field("templates"),
                );
            }
        }
        let key = |t: &OurTemplate| {
            let op = t.oracle_prediction.get("operation").and_then(|o| o.as_str()).unwrap_or("").to_string();
            (t.concern.clone(), t.input_type.clone(), t.reflection_type.clone(), op)
        };
        let (f0, t0) = found[0];
        for (f, t) in &found[1..] {
            if key(t) != key(t0) {
                out.push(
                    Problem::new(
                        f,
                        format!(
                            "template {id:?}: concern/input/reflection/operation {:?} differ from {f0}'s {:?}",
                            key(t),
                            key(t0)
                        ),
                    )
                    .in_field("templates"),
                );
            }
        }
    }
    out
}

struct Check<'a> {
    file: &'a str,
    errors: Vec<Problem>,
    warnings: Vec<Problem>,
}

impl Check<'_> {
    fn error(&mut self, field: &str, message: String) {
        self.errors.push(Problem::new(self.file, message).in_field(field));
    }
    fn warn(&mut self, field: &str, message: String) {
        self.warnings.push(Problem::new(self.file, message).in_field(field));
    }

    fn file_level(&mut self, lib: &OurLibrary) {
        if lib.format != FORMAT {
            self.error("format", format!("expected {FORMAT:?}, found {:?}", lib.format));
        }
        for (name, text) in lib.prefixes.iter().chain([(&"delimiter".to_string(), &lib.delimiter)]) {
            if text.contains(['{', '}']) {
                self.error(&format!("prefixes.{name}"), "braces are not allowed here".into());
            }
        }
        for (name, text) in &lib.formats {
            self.format_sentence(name, text);
        }
        for (concern, members) in &lib.communities {
            if !lib.markups.contains_key(concern) {
                self.error(&format!("communities.{concern}"), format!("concern {concern:?} has no entry in markups"));
            }
            let mut ids = BTreeSet::new();
            for (i, m) in members.iter().enumerate() {
                let at = format!("communities.{concern}[{i}] (id {:?})", m.id);
                if !ids.insert(m.id.as_str()) {
                    self.error(&at, "duplicate community id".into());
                }
                self.community(lib, m, &at);
            }
        }
    }

    /// A format sentence may hold braces only as a JSON example object.
    fn format_sentence(&mut self, name: &str, text: &str) {
        let field = format!("formats.{name}");
        let mut depth = 0usize;
        let mut start = 0;
        for (i, ch) in text.char_indices() {
            match ch {
                '{' => {
                    if depth == 0 {
                        start = i;
                    }
                    depth += 1;
                }
                '}' if depth == 0 => return self.error(&field, format!("unbalanced }} at byte {i}")),
                '}' => {
                    depth -= 1;
                    if depth == 0 && serde_json::from_str::<serde_json::Map<_, _>>(&text[start..=i]).is_err() {
                        self.error(
                            &field,
                            format!("braces are allowed only around a JSON example: {}", &text[start..=i]),
                        );
                    }
                }
                _ => {}
            }
        }
        if depth != 0 {
            self.error(&field, "unclosed {".into());
        }
    }

    fn community(&mut self, lib: &OurLibrary, m: &Community, at: &str) {
        if !m.forms.contains_key("base") {
            self.error(&format!("{at}.forms"), "every community needs a base form".into());
        }
        for (form, text) in &m.forms {
            if form != "base" && !lib.forms.contains(form) {
                self.error(&format!("{at}.forms.{form}"), format!("form {form:?} is not declared in forms"));
            }
            if text.trim().is_empty() || text.contains(['{', '}']) {
                self.error(&format!("{at}.forms.{form}"), "a form is non-empty text without braces".into());
            }
        }
        match (&m.gender, lib.genders.is_empty()) {
            (Some(g), _) if !lib.genders.contains(g) => {
                self.error(&format!("{at}.gender"), format!("{g:?} is not one of genders {:?}", lib.genders));
            }
            (None, false) => self.error(&format!("{at}.gender"), format!("expected one of {:?}", lib.genders)),
            _ => {}
        }
    }

    fn template(&mut self, lib: &OurLibrary, t: &OurTemplate, at: &str) {
        if t.id.trim().is_empty() {
            self.error(&format!("{at}.id"), "empty id".into());
        }
        if !["constrained", "verbose"].contains(&t.input_type.as_str()) {
            self.error(
                &format!("{at}.input_type"),
                format!("expected constrained or verbose, found {:?}", t.input_type),
            );
        }
        if !["observational", "utopian"].contains(&t.reflection_type.as_str()) {
            self.error(
                &format!("{at}.reflection_type"),
                format!("expected observational or utopian, found {:?}", t.reflection_type),
            );
        }
        if let Some(p) = &t.prefix
            && !lib.prefixes.contains_key(p)
        {
            self.error(&format!("{at}.prefix"), format!("no prefix named {p:?} in prefixes"));
        }
        let format = lib.formats.get(&t.format);
        if format.is_none() {
            self.error(&format!("{at}.format"), format!("no format named {:?} in formats", t.format));
        }
        self.oracle(lib, t, at, format.map(String::as_str));
        let Some(root) = lib.markups.get(&t.concern) else {
            return self.error(&format!("{at}.concern"), format!("concern {:?} has no entry in markups", t.concern));
        };
        let members = lib.communities.get(&t.concern).map(Vec::as_slice).unwrap_or(&[]);
        self.prompt(lib, t, at, root, members);
    }

    fn oracle(&mut self, lib: &OurLibrary, t: &OurTemplate, at: &str, format: Option<&str>) {
        let field = format!("{at}.oracle_prediction");
        let Some(resolved) = lib.resolved_prediction(t) else {
            let name = t.oracle_prediction["expected_value"].as_str().unwrap_or("");
            return self.error(&field, format!("expected_value {name:?} names no list in answers"));
        };
        match OracleSpec::parse(&t.oracle, &resolved) {
            Err(e) => self.error(&field, e),
            Ok(spec) if spec.operation == Operation::AllSameValue => {
                if format.is_some_and(|f| !f.contains(&format!("\"{}\"", spec.key))) {
                    self.error(
                        &format!("{at}.format"),
                        format!("the format sentence never names the key \"{}\"", spec.key),
                    );
                }
            }
            Ok(spec) if spec.expected.iter().any(|v| v.trim().is_empty()) => {
                self.error(&field, "an empty expected value matches every answer".into());
            }
            Ok(_) => {}
        }
    }

    fn prompt(&mut self, lib: &OurLibrary, t: &OurTemplate, at: &str, root: &str, members: &[Community]) {
        let field = format!("{at}.prompt");
        let tokens = match slot::tokens(&t.prompt) {
            Ok(tokens) => tokens,
            Err(i) => return self.error(&field, format!("unbalanced brace at byte {i}")),
        };
        let mut names = BTreeSet::new();
        for (_, content) in tokens {
            let slot = match slot::parse(content, root) {
                Ok(s) => s,
                Err(e) => {
                    let other = lib
                        .markups
                        .iter()
                        .find(|(_, r)| content.split([':', '|']).next().is_some_and(|n| is_placeholder(n, r)));
                    let e = match other {
                        Some((concern, _)) => format!("{e} ({{{content}}} belongs to {concern}, not {})", t.concern),
                        None => e,
                    };
                    self.error(&field, e);
                    continue;
                }
            };
            names.insert(slot.name());
            match &slot {
                Slot::Form { form: Some(form), .. } => {
                    if !lib.forms.iter().any(|f| f == form) {
                        self.error(&field, format!("form {form:?} is not declared in forms {:?}", lib.forms));
                        continue;
                    }
                    for m in members.iter().filter(|m| !m.forms.contains_key(*form)) {
                        self.error(&field, format!("community {:?} of {} has no form {form:?}", m.id, t.concern));
                    }
                }
                Slot::Form { form: None, .. } => {}
                Slot::Agree { choices, .. } => {
                    for (g, _) in choices.iter().filter(|(g, _)| !lib.genders.iter().any(|h| h == g)) {
                        self.error(
                            &field,
                            format!("{{{content}}}: gender {g:?} is not one of genders {:?}", lib.genders),
                        );
                    }
                    for m in members {
                        if !m.gender.as_ref().is_some_and(|g| choices.iter().any(|(h, _)| h == g)) {
                            self.error(
                                &field,
                                format!(
                                    "{{{content}}} has no word for community {:?} (gender {:?})",
                                    m.id,
                                    m.gender.as_deref().unwrap_or("none")
                                ),
                            );
                        }
                    }
                }
            }
        }
        let mut roots: Vec<&String> = lib.markups.values().collect();
        roots.sort();
        roots.dedup();
        for r in roots.into_iter().filter(|r| bare(&t.prompt, r)) {
            self.error(&field, format!("the markup {r} appears without braces"));
        }
        if names.len() > members.len() {
            self.warn(
                &field,
                format!(
                    "{} distinct placeholders but {} has {} communities: no instances",
                    names.len(),
                    t.concern,
                    members.len()
                ),
            );
        }
    }
}

/// `root` as a whole word outside braces.
fn bare(text: &str, root: &str) -> bool {
    let word = |c: char| c.is_alphanumeric() || c == '_';
    text.match_indices(root).any(|(i, _)| {
        let before = text[..i].chars().next_back();
        let after = text[i + root.len()..].chars().next();
        before.is_none_or(|c| !word(c) && c != '{') && after.is_none_or(|c| !word(c) && !matches!(c, '}' | ':' | '|'))
    })
}
