//! The library browser: every template of the libraries in use, filtered and searched.

use super::{Session, SessionError};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct BrowseQuery {
    pub language: String,
    pub concern: String,
    pub input_type: String,
    pub reflection_type: String,
    /// Matched, lower-cased, against the template text and id.
    pub text: String,
    /// Rows returned (the total counts every match); 0 means 50.
    pub limit: usize,
}

#[derive(Debug, Serialize)]
pub struct TemplateRow {
    pub language: String,
    pub id: String,
    pub concern: String,
    pub input_type: String,
    pub reflection_type: String,
    pub prompt: String,
    pub oracle: String,
    /// The oracle's prediction JSON, as the library has it.
    pub prediction: String,
}

#[derive(Debug, Serialize)]
pub struct Browse {
    pub total: usize,
    pub rows: Vec<TemplateRow>,
    pub languages: Vec<String>,
    pub concerns: Vec<String>,
    /// "built-in" or the uploaded LangBiTe libraries.
    pub source: String,
}

/// What the built-in library offers the requirements form: per language, each concern's
/// markup and community ids (the ids a scenario lists; the library holds their forms).
#[derive(Debug, Serialize)]
pub struct Catalogue {
    pub languages: Vec<String>,
    pub concerns: Vec<String>,
    pub markups: BTreeMap<String, String>,
    /// language -> concern -> community ids.
    pub communities: BTreeMap<String, BTreeMap<String, Vec<String>>>,
}

impl Session {
    pub fn catalogue(&mut self) -> Result<Catalogue, SessionError> {
        let libs = self.builtin()?;
        let mut markups = BTreeMap::new();
        let mut communities = BTreeMap::new();
        for (lang, (_, lib)) in libs {
            markups.extend(lib.markups.clone());
            communities.insert(
                lang.clone(),
                lib.communities
                    .iter()
                    .map(|(c, list)| (c.clone(), list.iter().map(|m| m.id.clone()).collect()))
                    .collect(),
            );
        }
        Ok(Catalogue {
            languages: libs.keys().cloned().collect(),
            concerns: markups.keys().cloned().collect(),
            markups,
            communities,
        })
    }

    pub fn browse(&mut self, q: &BrowseQuery) -> Result<Browse, SessionError> {
        let views = self.views()?;
        let text = q.text.trim().to_lowercase();
        let limit = if q.limit == 0 { 50 } else { q.limit.min(1000) };
        let mut concerns: Vec<String> =
            views.values().flat_map(|l| l.templates.iter().map(|t| t.concern.clone())).collect();
        concerns.sort();
        concerns.dedup();
        let hits =
            views.iter().flat_map(|(lang, lib)| lib.templates.iter().map(move |t| (lang, t))).filter(|(lang, t)| {
                (q.language.is_empty() || **lang == q.language)
                    && (q.concern.is_empty() || t.concern == q.concern)
                    && (q.input_type.is_empty() || t.input_type == q.input_type)
                    && (q.reflection_type.is_empty() || t.reflection_type == q.reflection_type)
                    && (text.is_empty()
                        || t.prompt.to_lowercase().contains(&text)
                        || t.id.to_lowercase().contains(&text))
            });
        let mut total = 0;
        let mut rows = vec![];
        for (lang, t) in hits {
            total += 1;
            if rows.len() < limit {
                rows.push(TemplateRow {
                    language: lang.clone(),
                    id: t.id.clone(),
                    concern: t.concern.clone(),
                    input_type: t.input_type.clone(),
                    reflection_type: t.reflection_type.clone(),
                    prompt: t.prompt.clone(),
                    oracle: t.oracle.clone(),
                    prediction: t.oracle_prediction.as_ref().map(|p| p.to_string()).unwrap_or_default(),
                });
            }
        }
        let source = if self.uploaded.is_empty() {
            "built-in".to_string()
        } else {
            format!("uploaded LangBiTe libraries ({})", self.uploaded.keys().cloned().collect::<Vec<_>>().join(", "))
        };
        Ok(Browse { total, rows, languages: views.keys().cloned().collect(), concerns, source })
    }
}
