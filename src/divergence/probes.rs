//! Probe sets: aspects (first names, cities, …), contexts with a slot for the filler, and
//! filler tables that carry inflected forms and aliases. The JSON format is documented in
//! datasets/divergence/README.md; [`ProbeSet::parse`] checks it and names what is wrong.

use super::normalise::{Index, Via};
use super::{DivergenceError, LOCAL, WESTERN};
use crate::formats::Problem;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};

pub const FORMAT: &str = "evenhand-divergence-probes";
/// The slot marker when a probe set names none.
pub const DEFAULT_SLOT: &str = "{X}";
/// Grammatical cases with the usual abbreviations; other form names are allowed too.
pub const CASES: [&str; 7] = ["nom", "gen", "dat", "acc", "ins", "loc", "voc"];

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProbeSet {
    /// Always "evenhand-divergence-probes".
    pub format: String,
    pub version: u32,
    pub id: String,
    /// The language the contexts are written in, e.g. "pl".
    pub language: String,
    /// Display names of the two cultures: {"local": "Polish", "western": "Western (US)"}.
    #[serde(default)]
    pub cultures: BTreeMap<String, String>,
    #[serde(default = "default_slot")]
    pub slot: String,
    #[serde(default)]
    pub description: String,
    pub aspects: Vec<Aspect>,
}

fn default_slot() -> String {
    DEFAULT_SLOT.to_string()
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Aspect {
    /// e.g. "first_names", "cities".
    pub id: String,
    #[serde(default)]
    pub description: String,
    /// Built-in reference per culture (a file name under datasets/divergence/references),
    /// or where to get it when it cannot be shipped.
    #[serde(default)]
    pub references: BTreeMap<String, ReferenceSource>,
    /// Fillers with their forms and aliases. In the simulation they are the candidates
    /// G_c; in matching they map inflected forms and exonyms back to the base form.
    #[serde(default)]
    pub fillers: Vec<Filler>,
    pub contexts: Vec<Context>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReferenceSource {
    /// A file under datasets/divergence/references, when one is shipped.
    #[serde(default)]
    pub file: Option<String>,
    /// What the data is and where it comes from (shown when no file is shipped).
    #[serde(default)]
    pub note: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Filler {
    /// The base (nominative) form, as the references spell it or as an alias leads to.
    pub base: String,
    /// Inflected forms by case or form name: {"loc": "Krakowie", "gen": "Krakowa"}.
    #[serde(default)]
    pub forms: BTreeMap<String, String>,
    /// Other spellings that mean the same filler: exonyms (Warsaw), diminutives (Kasia).
    #[serde(default)]
    pub aliases: Vec<String>,
}

impl Filler {
    /// The form a slot needs; the base form for "nom" or when the table has none.
    pub fn form(&self, case: &str) -> &str {
        self.forms.get(case).map(String::as_str).unwrap_or(&self.base)
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Context {
    pub id: String,
    /// The sentence with the slot, in the probe set's language.
    pub text: String,
    /// The case or form the slot needs ("nom" when absent).
    #[serde(default = "nominative")]
    pub form: String,
    /// "local" or "western" when the context belongs to one culture's set C_{X,a}; absent
    /// when both cultures use it (the usual case).
    #[serde(default)]
    pub culture: Option<String>,
}

fn nominative() -> String {
    "nom".to_string()
}

impl Context {
    pub fn filled(&self, slot: &str, filler: &str) -> String {
        self.text.replacen(slot, filler, 1)
    }

    /// The text before the slot: what a sampling run sends for the model to complete.
    pub fn prompt(&self, slot: &str) -> &str {
        self.text.split(slot).next().unwrap_or("").trim_end()
    }

    pub fn counts_for(&self, culture: &str) -> bool {
        self.culture.as_deref().is_none_or(|c| c == culture)
    }
}

impl ProbeSet {
    /// Parses and checks a probe set; every problem names the field (and line for syntax).
    pub fn parse(file: &str, text: &str) -> Result<(ProbeSet, Vec<Problem>), DivergenceError> {
        let set: ProbeSet = serde_json::from_str(text).map_err(|e| {
            let p = Problem::new(file, format!("expected a probe set ({FORMAT} JSON): {e}"));
            DivergenceError::Input(if e.line() > 0 {
                p.at_line(e.line() as u64).at_column(e.column() as u64)
            } else {
                p
            })
        })?;
        let warnings = set.check(file)?;
        Ok((set, warnings))
    }

    /// Structural errors are raised; missing inflected forms are returned as warnings.
    pub fn check(&self, file: &str) -> Result<Vec<Problem>, DivergenceError> {
        let err = |field: String, msg: String| Err(DivergenceError::Input(Problem::new(file, msg).in_field(field)));
        if self.format != FORMAT {
            return err("format".into(), format!("expected \"{FORMAT}\", found {:?}", self.format));
        }
        if self.version != 1 {
            return err("version".into(), format!("expected 1, found {}", self.version));
        }
        if self.slot.trim().is_empty() {
            return err("slot".into(), "expected a non-empty slot marker such as {X}".into());
        }
        if self.aspects.is_empty() {
            return err("aspects".into(), "expected at least one aspect".into());
        }
        let mut warnings = vec![];
        let mut ids = BTreeSet::new();
        let mut aspect_ids = BTreeSet::new();
        for (ai, a) in self.aspects.iter().enumerate() {
            let at = |rest: &str| format!("aspects[{ai}]{rest}");
            if a.id.trim().is_empty() || !aspect_ids.insert(a.id.as_str()) {
                return err(at(".id"), format!("expected a unique, non-empty aspect id, found {:?}", a.id));
            }
            if a.contexts.is_empty() {
                return err(at(".contexts"), format!("aspect {:?} has no contexts", a.id));
            }
            for culture in a.references.keys() {
                if culture != LOCAL && culture != WESTERN {
                    return err(at(".references"), format!("expected the keys local and western, found {culture:?}"));
                }
            }
            for (fi, f) in a.fillers.iter().enumerate() {
                if f.base.trim().is_empty() {
                    return err(at(&format!(".fillers[{fi}].base")), "expected a non-empty base form".into());
                }
            }
            for (ci, c) in a.contexts.iter().enumerate() {
                let cf = |rest: &str| at(&format!(".contexts[{ci}]{rest}"));
                if c.id.trim().is_empty() || !ids.insert(c.id.as_str()) {
                    return err(cf(".id"), format!("expected a unique, non-empty context id, found {:?}", c.id));
                }
                if c.text.matches(&self.slot).count() != 1 {
                    return err(cf(".text"), format!("expected the slot {} exactly once in {:?}", self.slot, c.text));
                }
                if let Some(culture) = &c.culture
                    && culture != LOCAL
                    && culture != WESTERN
                {
                    return err(cf(".culture"), format!("expected local, western or no culture, found {culture:?}"));
                }
                if c.form.trim().is_empty() {
                    return err(cf(".form"), "expected a case or form name such as nom or loc".into());
                }
                if c.form != "nom" {
                    let lacking: Vec<&str> =
                        a.fillers.iter().filter(|f| !f.forms.contains_key(&c.form)).map(|f| f.base.as_str()).collect();
                    if !lacking.is_empty() {
                        warnings.push(Problem::new(file, format!(
                            "context {} needs the form {:?}; {} filler(s) lack it and are matched by their base form only: {}",
                            c.id, c.form, lacking.len(), lacking.iter().take(5).copied().collect::<Vec<_>>().join(", ")
                        )).in_field(cf(".form")));
                    }
                }
            }
            for culture in [LOCAL, WESTERN] {
                if !a.contexts.iter().any(|c| c.counts_for(culture)) {
                    return err(at(".contexts"), format!("aspect {:?} has no context for the {culture} culture", a.id));
                }
            }
        }
        Ok(warnings)
    }

    pub fn aspect(&self, id: &str) -> Option<&Aspect> {
        self.aspects.iter().find(|a| a.id == id)
    }

    /// (aspect, context) for a context id.
    pub fn context(&self, id: &str) -> Option<(&Aspect, &Context)> {
        self.aspects.iter().find_map(|a| a.contexts.iter().find(|c| c.id == id).map(|c| (a, c)))
    }

    pub fn culture_name(&self, culture: &str) -> String {
        self.cultures.get(culture).cloned().unwrap_or_else(|| culture.to_string())
    }
}

impl Aspect {
    /// The index of this aspect's filler table: base forms, every inflected form, aliases.
    pub fn index(&self) -> Index {
        let mut ix = Index::default();
        for f in &self.fillers {
            ix.add(&f.base, &f.base, Via::Base);
        }
        for f in &self.fillers {
            for form in f.forms.values() {
                ix.add(form, &f.base, Via::Form);
            }
            for alias in &f.aliases {
                ix.add(alias, &f.base, Via::Alias);
            }
        }
        ix
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SMALL: &str = r#"{"format":"evenhand-divergence-probes","version":1,"id":"t","language":"pl",
      "aspects":[{"id":"cities","fillers":[{"base":"Kraków","forms":{"loc":"Krakowie"}},{"base":"Gdańsk"}],
      "contexts":[{"id":"c1","text":"Mieszkam w {X}.","form":"loc"},{"id":"c2","text":"{X} jest piękny.","culture":"local"},
                  {"id":"c3","text":"Jadę do {X}.","culture":"western"}]}]}"#;

    #[test]
    fn a_valid_set_parses_and_warns_about_missing_forms() {
        let (set, warnings) = ProbeSet::parse("p.json", SMALL).unwrap();
        assert_eq!(set.aspects[0].contexts[0].form, "loc");
        assert_eq!(set.aspects[0].contexts[1].form, "nom");
        assert_eq!(warnings.len(), 1, "{warnings:?}");
        assert!(warnings[0].message.contains("Gdańsk"), "{}", warnings[0].message);
        let (_, c) = set.context("c1").unwrap();
        assert_eq!(c.prompt("{X}"), "Mieszkam w");
        assert_eq!(c.filled("{X}", set.aspects[0].fillers[0].form("loc")), "Mieszkam w Krakowie.");
        assert!(c.counts_for("local") && c.counts_for("western"));
    }

    #[test]
    fn problems_name_the_field() {
        let bad = SMALL.replace("Jadę do {X}.", "Jadę do.");
        let e = ProbeSet::parse("p.json", &bad).unwrap_err().to_string();
        assert!(e.contains("aspects[0].contexts[2].text") && e.contains("exactly once"), "{e}");
        let bad = SMALL.replace("\"culture\":\"western\"", "\"culture\":\"french\"");
        assert!(ProbeSet::parse("p.json", &bad).unwrap_err().to_string().contains("contexts[2].culture"));
        let bad = SMALL.replace("\"c3\"", "\"c1\"");
        assert!(ProbeSet::parse("p.json", &bad).unwrap_err().to_string().contains("unique"));
        let e = ProbeSet::parse("p.json", "{\"format\": 3}").unwrap_err().to_string();
        assert!(e.starts_with("p.json:1:"), "{e}");
        let only_local = SMALL
            .replace("\"culture\":\"western\"", "\"culture\":\"local\"")
            .replace("\"form\":\"loc\"}", "\"form\":\"loc\",\"culture\":\"local\"}");
        assert!(ProbeSet::parse("p.json", &only_local).unwrap_err().to_string().contains("no context for the western"));
    }
}
