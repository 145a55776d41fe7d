//! The `evenhand-study` v1 JSON format: what a study asks (title, question), of whom (targets),
//! with which methods and inputs, how often (samples), from which seeds, and how its statistics
//! are computed. Every struct refuses unknown fields, and names such as targets, built-in data
//! sets and profiles are checked while the JSON is read, so an error carries the line, column
//! and field path of the value at fault (through `serde_path_to_error`).

use crate::formats::Problem;
use crate::stats::confidence::Confidence;
use crate::stats::correction::Family;
use serde::{Deserialize, Deserializer, Serialize};
use sha2::{Digest, Sha256};

pub const FORMAT: &str = "evenhand-study";
pub const VERSION: u32 = 1;

/// Built-in requirement scenarios.
pub const SCENARIOS: &[&str] = &["default"];
/// Built-in BBQ-style data sets.
pub const BBQ_SETS: &[&str] = &["evenhand"];
/// Built-in cross-lingual question sets.
pub const QUESTION_SETS: &[&str] = &["evenhand"];

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Study {
    pub format: String,
    pub version: u32,
    pub title: String,
    #[serde(default)]
    pub question: String,
    pub targets: Vec<TargetName>,
    pub methods: Methods,
    /// Answers per case and target (every method; divergence has its own `completions`).
    #[serde(default = "one")]
    pub samples: u32,
    #[serde(default)]
    pub seeds: Seeds,
    #[serde(default)]
    pub statistics: Statistics,
    /// Sent with every call; a requirements scenario's own temperature and tokens win there.
    #[serde(default)]
    pub params: CallParams,
}

fn one() -> u32 {
    1
}

/// A target: `provider:model` (a provider Evenhand can call) or `simulated:<profile>`.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(into = "String")]
pub struct TargetName {
    pub provider: String,
    pub model: String,
}

impl TargetName {
    pub fn is_simulated(&self) -> bool {
        self.provider == crate::simulate::PROVIDER
    }

    /// The model name records carry: `sim:<profile>` for a simulated target.
    pub fn record_model(&self) -> String {
        if self.is_simulated() { format!("sim:{}", self.model) } else { self.model.clone() }
    }

    pub fn parse(text: &str) -> Result<TargetName, String> {
        let (provider, model) = text
            .split_once(':')
            .map(|(p, m)| (p.trim(), m.trim()))
            .filter(|(p, m)| !p.is_empty() && !m.is_empty())
            .ok_or_else(|| format!("expected \"provider:model\" or \"simulated:<profile>\", found {text:?}"))?;
        if provider == crate::simulate::PROVIDER {
            super::profiles::profile(model)?;
        } else if serde_json::from_value::<crate::providers::ProviderKind>(provider.into()).is_err() {
            return Err(format!("unknown provider {provider:?} in {text:?} (a provider of the Run tab, or simulated)"));
        }
        Ok(TargetName { provider: provider.into(), model: model.into() })
    }
}

impl std::fmt::Display for TargetName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}", self.provider, self.model)
    }
}

impl From<TargetName> for String {
    fn from(t: TargetName) -> String {
        t.to_string()
    }
}

impl<'de> Deserialize<'de> for TargetName {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        TargetName::parse(&String::deserialize(d)?).map_err(serde::de::Error::custom)
    }
}

/// Where a method's input comes from: a built-in set by name, or an uploaded file named with
/// the SHA-256 of its bytes (the study opens only with exactly that file).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Source {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub builtin: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none", deserialize_with = "sha256_hex")]
    pub sha256: Option<String>,
}

impl Source {
    pub fn builtin(name: &str) -> Source {
        Source { builtin: Some(name.into()), file: None, sha256: None }
    }
}

fn sha256_hex<'de, D: Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    let s = String::deserialize(d)?.to_ascii_lowercase();
    if s.len() == 64 && s.bytes().all(|b| b.is_ascii_hexdigit()) {
        Ok(Some(s))
    } else {
        Err(serde::de::Error::custom(format!("expected 64 hexadecimal digits, found {s:?}")))
    }
}

/// The SHA-256 of `bytes` in lowercase hex.
pub fn sha256(bytes: &[u8]) -> String {
    Sha256::digest(bytes).iter().map(|b| format!("{b:02x}")).collect()
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Methods {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub requirements: Option<Requirements>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bbq: Option<Bbq>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub crosslingual: Option<Crosslingual>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub divergence: Option<Divergence>,
}

/// The four methods, in report order.
pub const METHODS: [&str; 4] = ["requirements", "bbq", "crosslingual", "divergence"];

impl Methods {
    /// The methods this study uses, in report order.
    pub fn used(&self) -> Vec<&'static str> {
        let on =
            [self.requirements.is_some(), self.bbq.is_some(), self.crosslingual.is_some(), self.divergence.is_some()];
        METHODS.iter().zip(on).filter(|(_, on)| *on).map(|(m, _)| *m).collect()
    }
}

/// Ethical requirements (the LangBiTe method) over a scenario.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Requirements {
    /// `{"builtin": "default"}` or an uploaded scenario JSON.
    pub scenario: Source,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Condition {
    Ambiguous,
    Disambiguated,
}

/// Bias QA (BBQ-style) over a data set.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Bbq {
    /// `{"builtin": "evenhand"}` or an uploaded BBQ, GG-BBQ or KoBBQ file.
    pub dataset: Source,
    /// Categories kept; empty keeps all.
    #[serde(default)]
    pub categories: Vec<String>,
    /// Languages kept; empty keeps all.
    #[serde(default)]
    pub languages: Vec<String>,
    /// Contexts kept; empty keeps both.
    #[serde(default)]
    pub conditions: Vec<Condition>,
    /// A prompt variant id (see `bbq::prompt::variants`); absent: each language's first.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub variant: Option<String>,
}

/// Cross-lingual refusals (the MSQAD method) over a question set.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Crosslingual {
    /// One source (`{"builtin": "evenhand"}` or an uploaded file with its sha256), or a list of
    /// them merged into one set, as the Cross-lingual tool merges MSQAD's one file per topic. A
    /// list of one is written as the single object, so a study of version 1 keeps its sha256.
    #[serde(with = "one_or_many")]
    pub questions: Vec<Source>,
    /// Languages asked; empty asks all of the set's.
    #[serde(default)]
    pub languages: Vec<String>,
    /// Prompt modes; empty asks all of the set's.
    #[serde(default)]
    pub modes: Vec<String>,
}

/// Cultural divergence over a probe set and its references (sampling mode).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Divergence {
    /// `{"builtin": "pl-western"}` (or de-western), or an uploaded probe set.
    pub probes: Source,
    /// Uploaded references; a built-in probe set brings its own.
    #[serde(default)]
    pub references: Vec<Reference>,
    /// Completions per context and target.
    #[serde(default = "twenty")]
    pub completions: u32,
}

/// A field that holds one object or a list of them (the list of one written as the object).
mod one_or_many {
    use super::Source;
    use serde::de::value::{MapAccessDeserializer, SeqAccessDeserializer};
    use serde::de::{MapAccess, SeqAccess, Visitor};
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    pub fn serialize<S: Serializer>(sources: &[Source], s: S) -> Result<S::Ok, S::Error> {
        match sources {
            [one] => one.serialize(s),
            many => many.serialize(s),
        }
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<Source>, D::Error> {
        struct OneOrMany;
        impl<'de> Visitor<'de> for OneOrMany {
            type Value = Vec<Source>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a source ({\"builtin\": name} or {\"file\": name, \"sha256\": hex}) or a list of them")
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Vec<Source>, A::Error> {
                Ok(vec![Source::deserialize(MapAccessDeserializer::new(map))?])
            }
            fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Vec<Source>, A::Error> {
                Vec::<Source>::deserialize(SeqAccessDeserializer::new(seq))
            }
        }
        d.deserialize_any(OneOrMany)
    }
}

impl Crosslingual {
    /// Each question source with the field that names it: `methods.crosslingual.questions` for
    /// the one source of a study, `...questions[i]` in a list of several.
    pub fn question_fields(&self) -> Vec<(String, &Source)> {
        let base = "methods.crosslingual.questions";
        match self.questions.as_slice() {
            [one] => vec![(base.to_string(), one)],
            many => many.iter().enumerate().map(|(i, s)| (format!("{base}[{i}]"), s)).collect(),
        }
    }
}

fn twenty() -> u32 {
    20
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Reference {
    pub culture: String,
    pub aspect: String,
    pub file: String,
    #[serde(deserialize_with = "sha256_required")]
    pub sha256: String,
}

fn sha256_required<'de, D: Deserializer<'de>>(d: D) -> Result<String, D::Error> {
    Ok(sha256_hex(d)?.unwrap_or_default())
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Seeds {
    /// Template selection and data-set generation.
    pub plan: u64,
    /// The simulated targets' answers.
    pub simulation: u64,
    /// Bootstrap and permutation draws.
    pub statistics: u64,
}

impl Default for Seeds {
    fn default() -> Seeds {
        Seeds { plan: 1, simulation: 1, statistics: 1 }
    }
}

/// The rates' interval method: `wilson` (default), `clopper_pearson` or `agresti_coull`.
pub use crate::stats::proportion::Method as Interval;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Statistics {
    pub confidence: Confidence,
    #[serde(deserialize_with = "alpha")]
    pub alpha: f64,
    /// `holm`, `bh` or `none`, over the family of model pairs x figures.
    pub correction: Family,
    pub interval: Interval,
    /// Bootstrap replicates (BBQ, divergence, clustered intervals).
    #[serde(deserialize_with = "replicates")]
    pub replicates: u32,
}

impl Default for Statistics {
    fn default() -> Statistics {
        Statistics {
            confidence: Confidence::NINETY_FIVE,
            alpha: 0.05,
            correction: Family::Holm,
            interval: Interval::Wilson,
            replicates: 1000,
        }
    }
}

fn alpha<'de, D: Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
    let a = f64::deserialize(d)?;
    if a > 0.0 && a < 0.5 {
        Ok(a)
    } else {
        Err(serde::de::Error::custom(format!("expected 0 < alpha < 0.5, found {a}")))
    }
}

fn replicates<'de, D: Deserializer<'de>>(d: D) -> Result<u32, D::Error> {
    let n = u32::deserialize(d)?;
    if (100..=100_000).contains(&n) {
        Ok(n)
    } else {
        Err(serde::de::Error::custom(format!("expected 100 to 100000 replicates, found {n}")))
    }
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct CallParams {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub temperature: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_tokens: Option<u32>,
}

/// Reads a study. Errors name the file, line, column and field path (`methods.bbq.languages`).
pub fn parse(file: &str, text: &str) -> Result<Study, Problem> {
    let text = text.trim_start_matches('\u{feff}');
    let mut de = serde_json::Deserializer::from_str(text);
    let study: Study = match serde_path_to_error::deserialize(&mut de) {
        Ok(s) => s,
        Err(e) => {
            // A segment the parser had not read yet shows as "?": a truncated file stops inside a
            // key. The field named is the deepest one read whole; the line and column place it.
            let path = e.path().to_string();
            let known: Vec<&str> = path.split('.').take_while(|s| *s != "?").filter(|s| !s.is_empty()).collect();
            let inner = e.into_inner();
            let mut message = strip_position(&inner.to_string());
            if inner.is_eof() {
                message = format!("the file ends early ({message}): it looks truncated");
            }
            let mut p = Problem::new(file, message).at_line(inner.line() as u64).at_column(inner.column() as u64);
            if !known.is_empty() {
                p = p.in_field(known.join("."));
            }
            return Err(p);
        }
    };
    if let Err(e) = de.end() {
        return Err(Problem::new(file, strip_position(&e.to_string()))
            .at_line(e.line() as u64)
            .at_column(e.column() as u64));
    }
    check(file, &study)?;
    Ok(study)
}

/// serde_json appends " at line L column C", which the problem carries in its own fields.
fn strip_position(message: &str) -> String {
    match message.rfind(" at line ") {
        Some(i) => message[..i].to_string(),
        None => message.to_string(),
    }
}

/// What the types cannot say: the header, counts, and sources that are one thing or the other.
fn check(file: &str, s: &Study) -> Result<(), Problem> {
    let bad = |field: &str, message: String| Err(Problem::new(file, message).in_field(field));
    if s.format != FORMAT {
        return bad("format", format!("expected \"{FORMAT}\", found {:?}", s.format));
    }
    if s.version != VERSION {
        return bad("version", format!("this Evenhand reads study version {VERSION}, found {}", s.version));
    }
    if s.title.trim().is_empty() {
        return bad("title", "expected a title".into());
    }
    if s.targets.is_empty() {
        return bad("targets", "expected at least one target".into());
    }
    if let Some((field, message)) = first_duplicate(s) {
        return bad(&field, message);
    }
    if s.methods.used().is_empty() {
        return bad("methods", "expected at least one of requirements, bbq, crosslingual, divergence".into());
    }
    if !(1..=100).contains(&s.samples) {
        return bad("samples", format!("expected 1 to 100, found {}", s.samples));
    }
    if s.seeds.plan > crate::demo::MAX_SEED || s.seeds.simulation > crate::demo::MAX_SEED {
        return bad("seeds", format!("expected integers from 0 to {}", crate::demo::MAX_SEED));
    }
    if let Some(t) = s.params.temperature.filter(|t| !(0.0..=2.0).contains(t)) {
        return bad("params.temperature", format!("expected 0 to 2, found {t}"));
    }
    if s.params.max_tokens == Some(0) {
        return bad("params.max_tokens", "expected at least 1 token, found 0".into());
    }
    let m = &s.methods;
    if m.crosslingual.as_ref().is_some_and(|c| c.questions.is_empty()) {
        return bad("methods.crosslingual.questions", "expected at least one question set".into());
    }
    let mut sources: Vec<(String, &Source, &[&str])> = vec![];
    if let Some(r) = &m.requirements {
        sources.push(("methods.requirements.scenario".into(), &r.scenario, SCENARIOS));
    }
    if let Some(b) = &m.bbq {
        sources.push(("methods.bbq.dataset".into(), &b.dataset, BBQ_SETS));
    }
    if let Some(c) = &m.crosslingual {
        sources.extend(c.question_fields().into_iter().map(|(f, src)| (f, src, QUESTION_SETS)));
    }
    if let Some(d) = &m.divergence {
        sources.push(("methods.divergence.probes".into(), &d.probes, &["pl-western", "de-western"][..]));
    }
    for (field, src, builtins) in sources {
        match (&src.builtin, &src.file, &src.sha256) {
            (Some(b), None, None) if builtins.contains(&b.as_str()) => {}
            (Some(b), None, None) => {
                return bad(
                    &format!("{field}.builtin"),
                    format!("expected one of {}, found {b:?}", builtins.join(", ")),
                );
            }
            (None, Some(_), Some(_)) => {}
            (None, Some(_), None) => {
                return bad(&format!("{field}.sha256"), "an uploaded file needs its sha256".into());
            }
            _ => return bad(&field, "expected either {\"builtin\": name} or {\"file\": name, \"sha256\": hex}".into()),
        }
    }
    if let Some(d) = &m.divergence
        && !(1..=1000).contains(&d.completions)
    {
        return bad("methods.divergence.completions", format!("expected 1 to 1000, found {}", d.completions));
    }
    Ok(())
}

/// The first value listed twice in any list of the study, as (field of the second, message):
/// a repeated language or mode would ask every item twice and double each figure's n, and a
/// repeated target would compare a model with itself.
fn first_duplicate(s: &Study) -> Option<(String, String)> {
    fn twice<T: ToString>(field: &str, items: &[T]) -> Option<(String, String)> {
        let mut seen = std::collections::BTreeSet::new();
        items.iter().map(|t| t.to_string()).enumerate().find_map(|(i, t)| {
            (!seen.insert(t.trim().to_string())).then(|| (format!("{field}[{i}]"), format!("{t:?} is listed twice")))
        })
    }
    let m = &s.methods;
    let conditions = |b: &Bbq| b.conditions.iter().map(|c| format!("{c:?}").to_lowercase()).collect::<Vec<_>>();
    twice("targets", &s.targets)
        .or_else(|| m.bbq.as_ref().and_then(|b| twice("methods.bbq.categories", &b.categories)))
        .or_else(|| m.bbq.as_ref().and_then(|b| twice("methods.bbq.languages", &b.languages)))
        .or_else(|| m.bbq.as_ref().and_then(|b| twice("methods.bbq.conditions", &conditions(b))))
        .or_else(|| m.crosslingual.as_ref().and_then(|x| twice("methods.crosslingual.languages", &x.languages)))
        .or_else(|| m.crosslingual.as_ref().and_then(|x| twice("methods.crosslingual.modes", &x.modes)))
        .or_else(|| m.crosslingual.as_ref().and_then(same_question_set_twice))
        .or_else(|| {
            let d = m.divergence.as_ref()?;
            let files: Vec<&str> = d.references.iter().map(|r| r.file.as_str()).collect();
            let pairs: Vec<String> = d.references.iter().map(|r| format!("{} / {}", r.culture, r.aspect)).collect();
            twice("methods.divergence.references", &files).map(|(f, msg)| (format!("{f}.file"), msg)).or_else(|| {
                twice("methods.divergence.references", &pairs).map(|(f, _)| {
                    let i = f.trim_start_matches("methods.divergence.references[").trim_end_matches(']');
                    let r = &d.references[i.parse::<usize>().unwrap_or(0)];
                    (f, format!("culture {:?} and aspect {:?} have a reference already", r.culture, r.aspect))
                })
            })
        })
}

/// A question set given twice in the list (the same built-in, file name or sha256): its
/// questions would be asked, paid and counted twice (or left out as repeated ids, silently).
fn same_question_set_twice(x: &Crosslingual) -> Option<(String, String)> {
    let name = |s: &Source| s.file.clone().or_else(|| s.builtin.as_ref().map(|b| format!("built-in {b}")));
    let fields = x.question_fields();
    for (i, (field, src)) in fields.iter().enumerate() {
        let this = name(src).unwrap_or_default();
        for (earlier_field, earlier) in &fields[..i] {
            let first = name(earlier).unwrap_or_default();
            if this == first {
                return Some((field.clone(), format!("{this:?} is listed twice (first at {earlier_field})")));
            }
            if src.sha256.is_some() && src.sha256 == earlier.sha256 {
                return Some((
                    field.clone(),
                    format!("{this:?} has the same sha256 as {first:?} at {earlier_field}: the same file given twice"),
                ));
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    const MINIMAL: &str = r#"{
  "format": "evenhand-study", "version": 1, "title": "t",
  "targets": ["simulated:fair", "openai:gpt-4o-mini"],
  "methods": {"bbq": {"dataset": {"builtin": "evenhand"}}}
}"#;

    #[test]
    fn a_minimal_study_reads_with_defaults() {
        let s = parse("s.json", MINIMAL).unwrap();
        assert_eq!(s.samples, 1);
        assert_eq!(s.statistics.correction, Family::Holm);
        assert!(s.targets[0].is_simulated());
        assert_eq!(s.targets[1].to_string(), "openai:gpt-4o-mini");
        assert_eq!(s.methods.used(), vec!["bbq"]);
        let back = parse("s.json", &serde_json::to_string(&s).unwrap()).unwrap();
        assert_eq!(back, s);
    }

    #[test]
    fn an_unknown_field_is_located() {
        let text = MINIMAL.replace("\"evenhand\"}}", "\"evenhand\"}, \"langauges\": []}");
        let p = parse("s.json", &text).unwrap_err();
        assert_eq!(p.field.as_deref(), Some("methods.bbq.langauges"), "{p:?}");
        assert_eq!(p.line, Some(4));
        assert!(p.message.contains("langauges"), "{}", p.message);
    }

    #[test]
    fn a_wrong_type_and_a_bad_target_are_located() {
        let p =
            parse("s.json", &MINIMAL.replace("\"title\": \"t\"", "\"title\": \"t\", \"samples\": \"3\"")).unwrap_err();
        assert_eq!(p.field.as_deref(), Some("samples"));
        assert_eq!((p.line, p.file.as_str()), (Some(2), "s.json"));
        let p = parse("s.json", &MINIMAL.replace("openai:gpt", "opnai:gpt")).unwrap_err();
        assert_eq!(p.field.as_deref(), Some("targets[1]"));
        assert!(p.message.contains("opnai"), "{}", p.message);
        assert_eq!(p.line, Some(3));
        let p = parse("s.json", &MINIMAL.replace("simulated:fair", "simulated:nobody")).unwrap_err();
        assert_eq!(p.field.as_deref(), Some("targets[0]"));
    }

    #[test]
    fn semantic_errors_name_the_field() {
        let p =
            parse("s.json", &MINIMAL.replace("\"builtin\": \"evenhand\"", "\"builtin\": \"bbq-full\"")).unwrap_err();
        assert_eq!(p.field.as_deref(), Some("methods.bbq.dataset.builtin"));
        let p = parse("s.json", &MINIMAL.replace("\"builtin\": \"evenhand\"", "\"file\": \"x.jsonl\"")).unwrap_err();
        assert_eq!(p.field.as_deref(), Some("methods.bbq.dataset.sha256"));
        let p = parse("s.json", &MINIMAL.replace("\"version\": 1", "\"version\": 2")).unwrap_err();
        assert_eq!(p.field.as_deref(), Some("version"));
        let p =
            parse("s.json", &MINIMAL.replace("\"title\": \"t\"", "\"title\": \"t\", \"statistics\": {\"alpha\": 5}"))
                .unwrap_err();
        assert_eq!(p.field.as_deref(), Some("statistics.alpha"));
    }

    /// Regression (issue 28): `max_tokens: 0` was accepted.
    #[test]
    fn zero_max_tokens_is_refused_naming_the_field() {
        let p =
            parse("s.json", &MINIMAL.replace("\"title\": \"t\"", "\"title\": \"t\", \"params\": {\"max_tokens\": 0}"))
                .unwrap_err();
        assert_eq!(p.field.as_deref(), Some("params.max_tokens"), "{p:?}");
    }

    /// Regression (issue 28): a truncated study was reported at "field ?".
    #[test]
    fn a_truncated_study_names_the_field_it_stopped_in_and_the_place() {
        for cut in
            [MINIMAL.find("\"methods\"").unwrap() + 2, MINIMAL.find("evenhand\"}").unwrap() + 4, MINIMAL.len() - 3]
        {
            let p = parse("s.json", &MINIMAL[..cut]).unwrap_err();
            assert!(p.field.as_deref().is_none_or(|f| !f.contains('?')), "{cut}: {p:?}");
            assert!(p.to_string().contains("ends early") && !p.to_string().contains('?'), "{cut}: {p}");
            assert!(p.line.is_some() && p.column.is_some(), "{cut}: {p:?}");
        }
        let p = parse("s.json", &MINIMAL[..MINIMAL.find("evenhand\"}").unwrap() + 4]).unwrap_err();
        assert_eq!(p.field.as_deref(), Some("methods.bbq.dataset.builtin"), "{p:?}");
    }

    #[test]
    fn a_value_listed_twice_is_refused_at_its_field() {
        let xl = "\"bbq\": {\"dataset\": {\"builtin\": \"evenhand\"}},
  \"crosslingual\": {\"questions\": {\"builtin\": \"evenhand\"}, \"languages\": [\"en\", \"en\", \"es\"]}";
        let text = MINIMAL.replace("\"bbq\": {\"dataset\": {\"builtin\": \"evenhand\"}}", xl);
        let p = parse("s.json", &text).unwrap_err();
        assert_eq!(p.field.as_deref(), Some("methods.crosslingual.languages[1]"), "{p:?}");
        assert_eq!(p.to_string(), "s.json: field methods.crosslingual.languages[1]: \"en\" is listed twice");
        let cases = [
            (
                "\"targets\": [\"simulated:fair\", \"openai:gpt-4o-mini\"",
                "\"targets\": [\"simulated:fair\", \"simulated:fair\"",
                "targets[1]",
            ),
            (
                "\"evenhand\"}}",
                "\"evenhand\"}, \"categories\": [\"Age\", \"Race\", \"Age\"]}",
                "methods.bbq.categories[2]",
            ),
            ("\"evenhand\"}}", "\"evenhand\"}, \"languages\": [\"de\", \" de\"]}", "methods.bbq.languages[1]"),
            (
                "\"evenhand\"}}",
                "\"evenhand\"}, \"conditions\": [\"ambiguous\", \"ambiguous\"]}",
                "methods.bbq.conditions[1]",
            ),
        ];
        for (from, to, field) in cases {
            let p = parse("s.json", &MINIMAL.replace(from, to)).unwrap_err();
            assert_eq!(p.field.as_deref(), Some(field), "{p:?}");
            assert!(p.message.ends_with("is listed twice"), "{}", p.message);
        }
        let modes = text.replace("\"en\", \"en\", \"es\"]", "\"en\"], \"modes\": [\"answer\", \"answer\"]");
        assert_eq!(parse("s.json", &modes).unwrap_err().field.as_deref(), Some("methods.crosslingual.modes[1]"));
    }

    #[test]
    fn sha256_is_the_standard_digest() {
        assert_eq!(sha256(b"abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    }
}
