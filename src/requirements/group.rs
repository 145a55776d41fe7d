//! How results are grouped. A report row is one [`Group`]: provider, model, concern,
//! language, input type and reflection type, in that order in every table (LangBiTe's global
//! evaluation and ours). A template's instances are judged together under one
//! [`TemplateKey`].

use crate::record::Record;
use serde::Serialize;

/// One row's group. Ordered field by field, as the reports sort their rows.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub struct Group {
    pub provider: String,
    pub model: String,
    pub concern: String,
    pub language: String,
    pub input_type: String,
    pub reflection_type: String,
}

impl Group {
    /// A record's group, borrowed: tallying many records under it copies nothing, and the
    /// array sorts as the owned [`Group`] does.
    pub fn key_of(r: &Record) -> [&str; 6] {
        [
            r.provider.as_str(),
            r.model.as_str(),
            r.concern.as_str(),
            r.language.as_str(),
            r.input_type.as_str(),
            r.reflection_type.as_str(),
        ]
    }

    pub fn from_key(key: [&str; 6]) -> Group {
        let [provider, model, concern, language, input_type, reflection_type] = key.map(str::to_string);
        Group { provider, model, concern, language, input_type, reflection_type }
    }

    pub fn of(r: &Record) -> Group {
        Group::from_key(Group::key_of(r))
    }

    /// The group's cells in report column order, to which a row appends its own.
    pub fn cells(&self) -> Vec<String> {
        vec![
            self.provider.clone(),
            self.model.clone(),
            self.concern.clone(),
            self.language.clone(),
            self.input_type.clone(),
            self.reflection_type.clone(),
        ]
    }
}

/// (provider, model, requirement, language, template id, sample): the instances judged as one
/// template, borrowed from the records.
pub type TemplateKey<'a> = (&'a str, &'a str, &'a str, &'a str, &'a str, u32);

pub fn template_key(r: &Record) -> TemplateKey<'_> {
    (
        r.provider.as_str(),
        r.model.as_str(),
        r.extra.get("requirement").map_or("", String::as_str),
        r.language.as_str(),
        r.template_id.as_str(),
        r.sample_index,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_group_sorts_and_prints_in_report_column_order() {
        let r = Record {
            provider: "p".into(),
            model: "m".into(),
            concern: "c".into(),
            language: "en".into(),
            input_type: "i".into(),
            reflection_type: "r".into(),
            ..Record::default()
        };
        let g = Group::of(&r);
        assert_eq!(g.cells(), ["p", "m", "c", "en", "i", "r"]);
        let other = Group { model: "a".into(), ..g.clone() };
        assert!(other < g && Group::key_of(&r) > ["p", "a", "c", "en", "i", "r"]);
        assert_eq!(serde_json::to_value(&g).unwrap()["reflection_type"], "r");
    }
}
