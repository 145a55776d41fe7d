//! LangBiTe compatibility: its scenario JSON, its template libraries and its expansion of
//! templates into prompt instances, read and reproduced as upstream does (HEAD `ec46b85`,
//! as docs/guide-requirements.md describes), with every quirk either kept in `compat` mode or
//! reported as a warning.
//!
//! - [`scenario`]: the scenario JSON (current and legacy forms) into typed structs, validated;
//!   [`extension`]: our superset's `evenhand` key (seed, samples, targets, judge, statistics).
//! - [`library`]: the tab-separated template libraries and the JSON prompt form, read and written.
//! - [`placeholder`]: placeholder tokens and the library audit (misspelt, foreign, unbraced).
//! - [`expand`]: template selection (seeded), markup expansion and prompt composition.
//! - [`ourlib`]: our own library format (grammatical forms, localised composition) and its expansion.
//! - [`plan`]: instances x models x samples as pending records of the record table.
//! - [`session`]: the page's Requirements tab over all of the above; [`simulate`] its seeded model.
//! - [`reanalysis`]: LangBiTe's global report read again with intervals.

pub mod answer;
pub mod chart;
mod check;
pub mod community;
pub mod crosslang;
pub mod evaluate;
pub mod expand;
pub mod extension;
#[cfg(test)]
mod fixtures;
pub mod group;
pub mod judge;
pub mod library;
pub mod oracle;
pub mod ourlib;
pub mod outcome;
pub mod placeholder;
pub mod plan;
pub mod reanalysis;
pub mod reports;
pub mod scenario;
pub mod session;
pub mod simulate;
pub mod summary;

/// The markup root of each concern in LangBiTe's libraries and examples,
/// used to audit a library when no scenario says otherwise.
pub const DEFAULT_MARKUPS: [(&str, &str); 8] = [
    ("ageism", "AGE"),
    ("lgtbiqphobia", "SEXUAL_ORIENTATION"),
    ("politics", "POLITICAL_VIEW"),
    ("racism", "SKIN_COLOR"),
    ("religion", "RELIGION"),
    ("sexism", "GENDER"),
    ("sexism_ambiguity", "PRONOUN"),
    ("xenophobia", "COUNTRY"),
];
