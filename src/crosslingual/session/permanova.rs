//! The session's PERMANOVA family: planned on the embeddings (or, with `matrix: true`, on the
//! uploaded distance matrix), run a test at a time so the page can show progress and cancel,
//! and corrected once the last test is in.

use super::{PermRun, Progress, Session, SessionError};
use crate::crosslingual::distances;
use crate::crosslingual::permanova as perm;

impl Session {
    /// Plans the PERMANOVA family (every language pair, overall and per topic) on the
    /// embeddings; the modes default to the analysis settings' modes.
    pub fn permanova_plan(&mut self, mut s: perm::Settings) -> Result<Progress, SessionError> {
        if self.data.records.is_empty() {
            return Err(SessionError::NoData);
        }
        if !(1..=100_000).contains(&s.permutations) {
            return Err(SessionError::Invalid(format!("permutations: expected 1 to 100000, found {}", s.permutations)));
        }
        if s.modes.is_empty() {
            s.modes = self.settings.modes.clone();
        }
        let tests = match (&self.distances, s.matrix) {
            (_, false) => perm::plan(&self.data, &s),
            (Some(m), true) => distances::plan(&self.data, m, &s),
            (None, true) => return Err(SessionError::Invalid("upload a distance matrix first".into())),
        };
        if tests.is_empty() && s.matrix {
            return Err(SessionError::Invalid(
                "no two languages have responses in the uploaded distance matrix".into(),
            ));
        }
        if tests.is_empty() {
            return Err(SessionError::Invalid(
                "no two languages have response embeddings: run the simulated model or upload embeddings".into(),
            ));
        }
        let total = tests.len();
        self.perm_run = Some(PermRun { settings: s, tests, rows: vec![] });
        Ok(Progress { done: 0, total })
    }

    /// Runs up to `tests` more tests of the planned family; the last one applies the corrections.
    pub fn permanova_step(&mut self, tests: usize) -> Result<Progress, SessionError> {
        let run = self.perm_run.as_mut().ok_or(SessionError::NoRun)?;
        let end = (run.rows.len() + tests.max(1)).min(run.tests.len());
        for t in &run.tests[run.rows.len()..end] {
            let row = match (&self.distances, run.settings.matrix) {
                (Some(m), true) => distances::run(&self.data, m, t, &run.settings),
                _ => perm::run(&self.data, t, &run.settings),
            };
            run.rows.push(row);
        }
        let progress = Progress { done: end, total: run.tests.len() };
        if end == run.tests.len() {
            let run = self.perm_run.take().ok_or(SessionError::NoRun)?;
            let mut section = perm::finish(run.rows, &run.settings, self.settings.alpha);
            if let Some(m) = self.distances.as_ref().filter(|_| run.settings.matrix) {
                section.source = format!("uploaded distance matrix {}", m.file);
            }
            self.permanova = Some(section);
        }
        Ok(progress)
    }

    pub fn permanova_cancel(&mut self) {
        self.perm_run = None;
    }
}
