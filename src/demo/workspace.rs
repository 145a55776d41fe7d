//! What one open analysis holds: its records, where they came from, and the analysis
//! settings. A failed load never replaces what is already here.

use crate::demo::analysis::{self, Analysis, AnalysisError, Settings};
use crate::demo::bundle::{self, BundleError};
use crate::demo::chart;
use crate::demo::share::{self, ShareError, ShareState};
use crate::demo::{self, Experiment, ExperimentError};
use crate::formats::{self, ColumnMapping, FileFormat, LoadError, Problem};
use crate::record::{Record, Status};
use crate::run::batch_plan::{ImportReport, Imported};
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
#[allow(clippy::large_enum_variant)] // one per workspace: size does not matter, clarity does
pub enum Source {
    /// A simulated experiment (the demo, or one opened from a share link).
    Simulated {
        experiment: Experiment,
    },
    File {
        name: String,
    },
    Bundle {
        name: String,
    },
}

#[derive(Debug, Clone, Serialize)]
pub struct Workspace {
    pub source: Source,
    pub records: Vec<Record>,
    pub settings: Settings,
}

/// What a load did: how many rows came in, and the rows that did not.
#[derive(Debug, Clone, Serialize)]
pub struct LoadSummary {
    pub file: String,
    pub format: &'static str,
    pub loaded: usize,
    pub errors: Vec<Problem>,
    pub warnings: Vec<Problem>,
}

/// The analysis and its chart, ready to show.
#[derive(Debug, Clone, Serialize)]
pub struct View {
    pub source: Source,
    pub analysis: Analysis,
    pub chart_svg: String,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct RowQuery {
    pub offset: usize,
    pub limit: usize,
    pub status: Option<Status>,
    /// Case-insensitive text to find in the prompt, the response or the case id.
    pub search: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct RowsPage {
    pub total: usize,
    pub offset: usize,
    pub rows: Vec<Record>,
}

#[derive(Debug, Clone, Serialize)]
pub struct BundleSummary {
    pub file: String,
    pub records: usize,
    pub identical: Option<bool>,
    pub records_rebuilt: Option<bool>,
    pub problems: Vec<Problem>,
}

/// What loading a batch's results reports: the batch's own account and the record load's.
#[derive(Debug, Clone, Serialize)]
pub struct BatchLoad {
    pub report: ImportReport,
    pub load: LoadSummary,
}

#[derive(Debug, thiserror::Error, Serialize)]
#[serde(tag = "kind", content = "detail", rename_all = "snake_case")]
pub enum WorkspaceError {
    #[error(transparent)]
    Load(#[from] LoadError),
    #[error(transparent)]
    Experiment(#[from] ExperimentError),
    #[error(transparent)]
    Analysis(#[from] AnalysisError),
    #[error(transparent)]
    Bundle(#[from] BundleError),
    #[error(transparent)]
    Share(#[from] ShareError),
    #[error("{file}: no row could be loaded; the earlier records are kept")]
    NothingLoaded { file: String, errors: Vec<Problem>, warnings: Vec<Problem> },
    #[error("export format: expected csv, jsonl or json, found {0:?}")]
    ExportFormat(String),
    #[error("this analysis came from a file, so a link cannot rebuild it; share a bundle instead")]
    NotShareable,
}

impl Workspace {
    /// The built-in demo: the default experiment on the simulated model.
    pub fn demo() -> Workspace {
        let experiment = Experiment::default();
        let records = demo::run(&experiment).unwrap_or_default();
        Workspace { settings: experiment.analysis.clone(), source: Source::Simulated { experiment }, records }
    }

    pub fn run(&mut self, experiment: Experiment) -> Result<usize, WorkspaceError> {
        let records = demo::run(&experiment)?;
        analysis::analyze(&[], &experiment.analysis)?;
        self.settings = experiment.analysis.clone();
        self.records = records;
        self.source = Source::Simulated { experiment };
        Ok(self.records.len())
    }

    /// Loads a record file. Rows with errors are listed; if no row is good, nothing changes.
    pub fn load(
        &mut self,
        name: &str,
        bytes: &[u8],
        mapping: Option<&ColumnMapping>,
    ) -> Result<LoadSummary, WorkspaceError> {
        let loaded = formats::load(name, bytes, mapping)?;
        if loaded.records.is_empty() {
            return Err(WorkspaceError::NothingLoaded {
                file: name.into(),
                errors: loaded.errors,
                warnings: loaded.warnings,
            });
        }
        let summary = LoadSummary {
            file: name.into(),
            format: loaded.format,
            loaded: loaded.records.len(),
            errors: loaded.errors,
            warnings: loaded.warnings,
        };
        self.records = loaded.records;
        self.source = Source::File { name: name.into() };
        // A file without concerns reads better grouped by model and language.
        self.settings.group_by = if self.records.iter().all(|r| r.concern.is_empty()) {
            vec!["model".into(), "language".into()]
        } else {
            Settings::default().group_by
        };
        Ok(summary)
    }

    /// A provider batch's results, read against its plan, as the workspace's records:
    /// through the record-file reader, so they load exactly as a downloaded file would.
    pub fn load_batch(&mut self, results_name: &str, imported: Imported) -> Result<BatchLoad, WorkspaceError> {
        let jsonl = formats::write(&imported.records, FileFormat::Jsonl);
        let load = self.load(results_name, jsonl.as_bytes(), None)?;
        Ok(BatchLoad { report: imported.report, load })
    }

    pub fn set_settings(&mut self, settings: Settings) -> Result<(), WorkspaceError> {
        analysis::analyze(&[], &settings)?;
        if let Source::Simulated { experiment } = &mut self.source {
            experiment.analysis = settings.clone();
        }
        self.settings = settings;
        Ok(())
    }

    pub fn view(&self) -> Result<View, WorkspaceError> {
        let analysis = analysis::analyze(&self.records, &self.settings)?;
        let chart_svg = chart::pass_rates(&analysis);
        Ok(View { source: self.source.clone(), analysis, chart_svg })
    }

    pub fn rows(&self, q: &RowQuery) -> RowsPage {
        let needle = q.search.to_lowercase();
        let matching: Vec<&Record> = self
            .records
            .iter()
            .filter(|r| q.status.is_none_or(|s| r.status == s))
            .filter(|r| {
                needle.is_empty()
                    || [&r.prompt, &r.response, &r.case_id].iter().any(|t| t.to_lowercase().contains(&needle))
            })
            .collect();
        let limit = if q.limit == 0 { 50 } else { q.limit.min(1000) };
        RowsPage {
            total: matching.len(),
            offset: q.offset,
            rows: matching.into_iter().skip(q.offset).take(limit).cloned().collect(),
        }
    }

    pub fn export(&self, format: &str) -> Result<String, WorkspaceError> {
        let f = match format {
            "csv" => FileFormat::Csv,
            "jsonl" => FileFormat::Jsonl,
            "json" => FileFormat::Json,
            other => return Err(WorkspaceError::ExportFormat(other.into())),
        };
        Ok(formats::write(&self.records, f))
    }

    pub fn bundle(&self) -> Result<String, WorkspaceError> {
        let experiment = match &self.source {
            Source::Simulated { experiment } => Some(experiment.clone()),
            _ => None,
        };
        let b = bundle::make(experiment, &self.records, &self.settings)?;
        Ok(serde_json::to_string_pretty(&b).unwrap_or_default())
    }

    /// Opens a bundle. `fetched` holds the records file when the bundle points to one by URL.
    pub fn open_bundle(
        &mut self,
        name: &str,
        text: &str,
        fetched: Option<(&str, &[u8])>,
    ) -> Result<BundleSummary, WorkspaceError> {
        let b = bundle::parse(name, text)?;
        let fetched = match fetched {
            // An empty or malformed answer (`{}`, `[]`, a page of HTML) is not the bundle's
            // records; opening it as "0 records" would hide that the link is broken.
            Some((file, bytes)) => match formats::load(file, bytes, None)? {
                l if l.records.is_empty() => {
                    return Err(WorkspaceError::NothingLoaded {
                        file: file.into(),
                        errors: l.errors,
                        warnings: l.warnings,
                    });
                }
                l => Some(l.records),
            },
            None => None,
        };
        let r = bundle::reproduce(name, &b, fetched)?;
        let summary = BundleSummary {
            file: name.into(),
            records: r.records.len(),
            identical: r.identical,
            records_rebuilt: r.records_rebuilt,
            problems: r.problems,
        };
        self.records = r.records;
        self.settings = b.analysis.clone();
        self.source = match b.experiment {
            Some(experiment) => Source::Simulated { experiment },
            None => Source::Bundle { name: name.into() },
        };
        Ok(summary)
    }

    /// The URL fragment that rebuilds this analysis, when it is a simulated one.
    pub fn share_fragment(&self) -> Result<String, WorkspaceError> {
        match &self.source {
            Source::Simulated { experiment } => {
                Ok(share::encode(&ShareState { experiment: experiment.clone(), analysis: self.settings.clone() }))
            }
            _ => Err(WorkspaceError::NotShareable),
        }
    }

    pub fn open_share(&mut self, fragment: &str) -> Result<usize, WorkspaceError> {
        let state = share::decode(fragment)?;
        let n = self.run(Experiment { analysis: state.analysis, ..state.experiment })?;
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bad_file_keeps_the_earlier_records() {
        let mut ws = Workspace::demo();
        let before = ws.records.len();
        let err = ws.load("bad.csv", b"response,sample_index\nhello,minus one\n", None).unwrap_err();
        assert!(matches!(err, WorkspaceError::NothingLoaded { ref errors, .. } if errors[0].line == Some(2)));
        assert_eq!(ws.records.len(), before);
        assert!(matches!(ws.source, Source::Simulated { .. }));
    }

    #[test]
    fn share_link_rebuilds_the_same_view() {
        let mut ws = Workspace::demo();
        ws.run(Experiment { seed: 5, samples: 3, ..Experiment::default() }).unwrap();
        let fragment = ws.share_fragment().unwrap();
        let mut other = Workspace::demo();
        other.open_share(&fragment).unwrap();
        assert_eq!(other.records, ws.records);
        assert_eq!(other.view().unwrap().analysis, ws.view().unwrap().analysis);
    }

    #[test]
    fn rows_filter_and_page() {
        let ws = Workspace::demo();
        let refused = ws.rows(&RowQuery { status: Some(Status::Refused), ..Default::default() });
        assert!(refused.total > 0 && refused.rows.iter().all(|r| r.status == Status::Refused));
        let page = ws.rows(&RowQuery { offset: 10, limit: 5, ..Default::default() });
        assert_eq!((page.total, page.rows.len()), (ws.records.len(), 5));
        assert_eq!(page.rows[0], ws.records[10]);
    }
}
