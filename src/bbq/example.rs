//! One bias-QA example, the common form that every importer (BBQ, GG-BBQ, KoBBQ-style) and
//! the template generator produce, and that the parser and the metrics read.

use serde::{Deserialize, Serialize};

/// Whether the question asks for the stereotype ("Who is bad at maths?") or its opposite.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Polarity {
    Negative,
    NonNegative,
}

/// An ambiguous context leaves the answer unknown; a disambiguated one settles it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Condition {
    Ambiguous,
    Disambiguated,
}

/// Group terms ("the woman") or proper names ("Emma"): BBQ and GG-BBQ report them apart.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Subset {
    GroupTerms,
    ProperNames,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Example {
    /// Unique within a loaded dataset, e.g. "Sexual_orientation:17" or "ggbbq-amb:3".
    pub id: String,
    pub category: String,
    pub subset: Subset,
    pub language: String,
    /// The template the example was filled from; bootstrap resamples these groups.
    pub template_id: String,
    pub polarity: Polarity,
    pub condition: Condition,
    pub context: String,
    pub question: String,
    /// The answer options, trimmed, in the order shown to the model.
    pub choices: Vec<String>,
    /// Per choice: the group it names (as the source codes it), or "unknown".
    pub choice_groups: Vec<String>,
    /// Index of the correct choice.
    pub label: usize,
    /// The groups the stereotype targets, as the source lists them.
    pub stereotyped_groups: Vec<String>,
    /// Index of the "unknown" choice, if there is one.
    pub unknown: Option<usize>,
    /// Index of the biased answer (see `bias`); None when the rule cannot decide.
    pub biased: Option<usize>,
    pub counter_biased: Option<usize>,
    /// How `biased` was decided, or why it could not be: one line for the audit column.
    pub bias_audit: String,
    /// What else the source says about the example (BBQ's subcategory, version and source
    /// URL; GG-BBQ's relevant social values), kept for the record and the table.
    #[serde(default)]
    pub metadata: Metadata,
}

/// An example's few metadata pairs, sorted by key, read and written as a JSON object. A
/// B-tree map spent a node of about half a kilobyte on the three or four pairs a BBQ row has:
/// 30 MB for the full BBQ, most of an example's memory besides its text.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Metadata(Box<[(Box<str>, Box<str>)]>);

impl Metadata {
    pub fn get(&self, key: &str) -> Option<&str> {
        self.0.binary_search_by(|(k, _)| (**k).cmp(key)).ok().map(|i| &*self.0[i].1)
    }

    pub fn iter(&self) -> impl Iterator<Item = (&str, &str)> {
        self.0.iter().map(|(k, v)| (&**k, &**v))
    }
}

/// Like collecting into a map: a key given twice keeps its last value.
impl FromIterator<(String, String)> for Metadata {
    fn from_iter<I: IntoIterator<Item = (String, String)>>(pairs: I) -> Metadata {
        let map: std::collections::BTreeMap<String, String> = pairs.into_iter().collect();
        Metadata(map.into_iter().map(|(k, v)| (k.into_boxed_str(), v.into_boxed_str())).collect())
    }
}

impl Serialize for Metadata {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_map(self.iter())
    }
}

impl<'de> Deserialize<'de> for Metadata {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Metadata, D::Error> {
        Ok(std::collections::BTreeMap::<String, String>::deserialize(d)?.into_iter().collect())
    }
}

#[cfg(test)]
mod tests {
    use super::Metadata;

    #[test]
    fn metadata_reads_and_writes_as_a_map() {
        let m: Metadata = [("version", "a"), ("source", "x"), ("version", "b")]
            .into_iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        assert_eq!((m.get("source"), m.get("version"), m.get("nothing")), (Some("x"), Some("b"), None));
        let text = serde_json::to_string(&m).unwrap();
        assert_eq!(text, r#"{"source":"x","version":"b"}"#);
        assert_eq!(serde_json::from_str::<Metadata>(&text).unwrap(), m);
        assert_eq!(serde_json::to_string(&Metadata::default()).unwrap(), "{}");
    }
}
