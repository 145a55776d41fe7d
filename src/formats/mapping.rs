//! Which column of a file feeds which record field. Files written by Evenhand map by name;
//! other tools' files map through aliases, or through a mapping the user picks in the page.

use crate::record::{FIELDS, Field};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Record field name -> the file's header.
pub type ColumnMapping = BTreeMap<String, String>;

fn normalise(header: &str) -> String {
    header.trim().trim_start_matches('\u{feff}').to_lowercase().replace([' ', '-'], "_")
}

/// The field a header names, by exact name first, then by alias.
pub fn field_for_header(header: &str) -> Option<&'static Field> {
    let h = normalise(header);
    FIELDS.iter().find(|f| f.name == h).or_else(|| FIELDS.iter().find(|f| f.aliases.contains(&h.as_str())))
}

/// The mapping guessed from headers: each field takes the first header that names it.
pub fn suggest(headers: &[String]) -> ColumnMapping {
    let mut mapping = ColumnMapping::new();
    for header in headers {
        if let Some(field) = field_for_header(header) {
            mapping.entry(field.name.to_string()).or_insert_with(|| header.clone());
        }
    }
    mapping
}

/// The required fields a mapping leaves unmapped.
pub fn missing_required(mapping: &ColumnMapping) -> Vec<&'static str> {
    FIELDS.iter().filter(|f| f.required && !mapping.contains_key(f.name)).map(|f| f.name).collect()
}

/// What the page needs to ask the user for a mapping.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MappingRequest {
    pub file: String,
    pub headers: Vec<String>,
    pub suggested: ColumnMapping,
    pub missing: Vec<String>,
    /// The first rows, so the user sees what each column holds.
    pub preview: Vec<Vec<String>>,
}
