//! Our own requirement library (datasets/requirements/README.md): one JSON file per language,
//! a superset of what LangBiTe's libraries carry (template id aligned across languages,
//! concern, input and reflection types, prompt, format sentence, oracle in LangBiTe's
//! vocabulary) plus communities with grammatical forms, per-language prefix, delimiter and
//! format sentences, answer words, and a notes field per template.
//!
//! - [`slot`]: the placeholders (`{ROOT}`, `{ROOT:form}`, `{ROOT|m=…|f=…}`).
//! - [`read`]: the reader and its checks (errors and warnings name file, template id and field).
//! - [`instantiate`]: expansion into [`super::expand::Instance`]s, localised composition.

pub mod instantiate;
pub mod read;
pub mod slot;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;

/// The value of a file's `format` key.
pub const FORMAT: &str = "evenhand-requirements/1";

/// One language's library as written in the file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OurLibrary {
    pub format: String,
    /// LangBiTe-style language code (`en_us`, `es_es`, `de_de`, `fr_fr`, `zh_cn`, `hi_in`).
    pub language: String,
    /// Grammatical genders a community may have (`m`, `f`, `n`); empty where nothing agrees.
    #[serde(default)]
    pub genders: Vec<String>,
    /// Form names templates may ask for, besides `base` (which every community has).
    #[serde(default)]
    pub forms: Vec<String>,
    /// Between the parts of a composed prompt: a space, or nothing (Chinese).
    pub separator: String,
    /// The sentence that says how the instance is delimited (used after a prefix).
    pub delimiter: String,
    /// Named task prefixes.
    #[serde(default)]
    pub prefixes: BTreeMap<String, String>,
    /// Named format sentences.
    pub formats: BTreeMap<String, String>,
    /// Named lists of answer beginnings, referenced by `"expected_value": "@name"`.
    #[serde(default)]
    pub answers: BTreeMap<String, Vec<String>>,
    /// Concern to markup root (`sexism` -> `GENDER`).
    pub markups: BTreeMap<String, String>,
    /// Concern to its communities, in order.
    pub communities: BTreeMap<String, Vec<Community>>,
    pub templates: Vec<OurTemplate>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Community {
    /// The same in every language: instances record it, so languages can be compared.
    pub id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gender: Option<String>,
    /// Form name to text; `base` is required.
    pub forms: BTreeMap<String, String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OurTemplate {
    pub id: String,
    pub concern: String,
    pub input_type: String,
    pub reflection_type: String,
    /// Name of a prefix of the file's `prefixes`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prefix: Option<String>,
    pub prompt: String,
    /// Name of a format sentence of the file's `formats`.
    pub format: String,
    /// `expected value` or `same value`.
    pub oracle: String,
    /// LangBiTe's operation object; `expected_value` may be `"@name"` for the file's answers.
    pub oracle_prediction: Value,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub notes: Option<String>,
}

impl OurLibrary {
    /// The oracle prediction with `"@name"` replaced by the named answers (None if unknown).
    pub fn resolved_prediction(&self, t: &OurTemplate) -> Option<Value> {
        let mut p = t.oracle_prediction.clone();
        if let Some(Value::String(s)) = p.get("expected_value")
            && let Some(name) = s.strip_prefix('@')
        {
            let list = self.answers.get(name)?;
            p["expected_value"] = Value::from(list.clone());
        }
        Some(p)
    }
}
