//! The study: one question asked of several models across the four methods, from one JSON
//! document to one report. It sits above the methods (the only module that uses all four);
//! the methods know nothing of it.
//!
//! - [`format`]: the `evenhand-study` v1 document, errors located by line, column and field;
//! - [`profiles`]: the simulated targets' built-in bias profiles;
//! - [`inputs`]: the scenario, data sets, question and probe sets it names, checked by SHA-256;
//! - [`cases`]: its calls as cases for the run engine, the simulated answers, and the way
//!   answered records come back; [`plan`]: calls, tokens and cost per method and target;
//! - [`sections`]: per method, the headline figures, chart and paired comparisons, with the
//!   shared statistics in [`compare`], the refusal detectors' counts in [`detectors`] and the
//!   forest chart in [`chart`], and what became of every planned call in [`calls`];
//! - [`report`]: the report as data (`report.json`), with [`methods_text`]'s prose;
//! - [`budget`]: the work a study asks for, bounded before it starts;
//! - [`html`]: the self-contained HTML report; [`bundle`]: the study bundle and share link;
//! - [`session`]: one open study (the page's and the CLI's); [`targets`]: which target a
//!   record belongs to, and each target's name in the report (unique); [`spec_check`]: a
//!   run spec given for a study checked against it before the first call;
//! - [`example`]: the finished example study the home screen opens;
//! - [`units`]: how the report writes each kind of figure (percent, pp, plain numbers).

pub mod breakdown;
pub mod breakdown_crosslingual;
pub mod budget;
pub mod bundle;
pub mod calls;
pub mod cases;
pub mod chart;
pub mod compare;
pub mod detectors;
pub mod example;
pub mod format;
pub mod handoff;
pub mod html;
pub mod inputs;
pub mod items;
pub mod items_html;
pub mod logs;
pub mod methods_text;
pub mod nli;
pub mod plan;
pub mod profiles;
pub mod report;
pub mod sections;
pub mod session;
pub mod spec_check;
pub mod summary;
pub mod targets;
pub mod tool_files;
pub mod trust;
pub mod trust_html;
pub mod units;

pub use format::Study;
pub use session::Session;

use crate::formats::Problem;
use serde::Serialize;

#[derive(Debug, Clone, PartialEq, thiserror::Error, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum StudyError {
    /// The study document itself: located by file, line, column and field.
    #[error("{problem}")]
    Invalid { problem: Problem },
    #[error("{field}: the study names the file {file:?}; add it first")]
    MissingFile { field: String, file: String },
    #[error(
        "{field}: {file:?} has SHA-256 {found}, but the study names {expected}; a study opens only with exactly its files"
    )]
    Changed { field: String, file: String, expected: String, found: String },
    #[error("{field}: {message}")]
    Input { field: String, message: String },
    #[error("{file}: {message}")]
    Records { file: String, message: String },
    /// A record table whose columns were not recognised: the Upload tool's mapping step asks
    /// the user which column holds each field, then the file is added again with that mapping.
    #[error("{}: the columns need mapping to record fields (missing: {})", .request.file, .request.missing.join(", "))]
    NeedsMapping { request: crate::formats::mapping::MappingRequest },
    #[error("{0}")]
    Bundle(String),
    /// A study whose work is above [`budget`]'s limits.
    #[error("{field}: {message}")]
    TooLarge { field: String, message: String },
    /// A run spec given for the study that asks other calls than the study's.
    #[error("{file}: field {field}: {message}")]
    Spec { file: String, field: String, message: String },
}
