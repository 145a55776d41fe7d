//! The session's PERMANOVA family: planned on the embeddings (or, with `matrix: true`, on the
//! uploaded distance matrix), run a test at a time so the page can show progress and cancel,
//! and corrected once the last test is in.
//!
//! Two ways to run it. [`Session::permanova_step`] runs whole tests here (the CLI, and the
//! page before its worker pool). The page hands each test's permutations to its pool of
//! workers (www/permanova-pool.js): [`Session::permanova_next`] gives out the next test's
//! request (skipped tests on the way are recorded, with why, exactly as a step would), and
//! [`Session::permanova_take`] takes its report back, checks it against the test's own job and
//! counts it. Either way the rows have the same bits.

use super::{PermRun, Progress, Session, SessionError};
use crate::crosslingual::distances;
use crate::crosslingual::permanova::{self as perm, Prepared, Test};
use crate::stats::permanova::Counts;
use crate::stats::permanova_query::PermanovaQuery;
use serde::{Deserialize, Serialize};

/// The next test for the page's workers: `test`, `query` and `values` are None once every test
/// is in (the corrections are then applied).
#[derive(Debug, Serialize)]
pub struct Handout {
    pub done: usize,
    pub total: usize,
    pub test: Option<Test>,
    pub query: Option<PermanovaQuery>,
    /// The numbers of `query` (the facade hands them over as a Float64Array).
    #[serde(skip)]
    pub values: Vec<f64>,
}

/// The part of a worker's report (`stats::permanova::Permanova`) the session checks and
/// counts; the rest of the report is ignored, since the session writes its own.
#[derive(Debug, Clone, Deserialize)]
pub struct Outcome {
    /// None for a non-finite F (JSON has no infinity).
    pub f: Option<f64>,
    pub seed: u64,
    pub permutations: usize,
    pub exceedances: usize,
    pub permdisp: DispersionOutcome,
}

#[derive(Debug, Clone, Deserialize)]
pub struct DispersionOutcome {
    pub f: Option<f64>,
    pub exceedances: usize,
}

/// The same number, or both not finite (written as null).
fn same_bits(reported: Option<f64>, own: f64) -> bool {
    match reported {
        Some(x) => x.to_bits() == own.to_bits(),
        None => !own.is_finite(),
    }
}

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
        self.perm_run = Some(PermRun { settings: s, tests, rows: vec![], out: None });
        Ok(Progress { done: 0, total })
    }

    /// The job of the family's next test, or why it is skipped.
    fn prepare_next(&self) -> Result<Prepared, SessionError> {
        let run = self.perm_run.as_ref().ok_or(SessionError::NoRun)?;
        let t = &run.tests[run.rows.len()];
        Ok(match (&self.distances, run.settings.matrix) {
            (Some(m), true) => distances::prepare(&self.data, m, t, &run.settings),
            _ => perm::prepare(&self.data, t, &run.settings),
        })
    }

    /// Runs up to `tests` more tests of the planned family here (a test handed out and not
    /// taken back first); the last one applies the corrections.
    pub fn permanova_step(&mut self, tests: usize) -> Result<Progress, SessionError> {
        let run = self.perm_run.as_mut().ok_or(SessionError::NoRun)?;
        let end = (run.rows.len() + tests.max(1)).min(run.tests.len());
        if let Some(out) = run.out.take() {
            run.rows.push(out.run());
        }
        while self.perm_run.as_ref().is_some_and(|r| r.rows.len() < end) {
            let row = self.prepare_next()?.run();
            self.perm_run.as_mut().ok_or(SessionError::NoRun)?.rows.push(row);
        }
        Ok(self.finish_if_complete(end))
    }

    /// Hands out the next test that runs: its request for the page's workers. Skipped tests on
    /// the way are recorded; when none is left, the corrections are applied and the handout
    /// carries no test. A test already out is handed out again.
    pub fn permanova_next(&mut self) -> Result<Handout, SessionError> {
        loop {
            let run = self.perm_run.as_ref().ok_or(SessionError::NoRun)?;
            let (done, total) = (run.rows.len(), run.tests.len());
            if done == total {
                self.finish_if_complete(total);
                return Ok(Handout { done, total, test: None, query: None, values: vec![] });
            }
            let prepared = if run.out.is_some() { None } else { Some(self.prepare_next()?) };
            let run = self.perm_run.as_mut().ok_or(SessionError::NoRun)?;
            if let Some(p) = prepared {
                if p.row.skipped.is_some() {
                    run.rows.push(p.finish());
                    continue;
                }
                run.out = Some(p);
            }
            let out = run.out.as_ref().ok_or(SessionError::NoRun)?;
            let (query, values) = out.request().ok_or(SessionError::NoRun)?;
            return Ok(Handout { done, total, test: Some(out.row.test.clone()), query: Some(query), values });
        }
    }

    /// Takes the handed-out test's report back from the page's workers: checked against the
    /// test's own job (same seed, permutations and observed F, so a report of another test or
    /// data is refused) and its counts absorbed; the session writes the row from its own job.
    /// After the last test the corrections are applied. A refused report cancels the run.
    pub fn permanova_take(&mut self, o: Outcome) -> Result<Progress, SessionError> {
        let run = self.perm_run.as_mut().ok_or(SessionError::NoRun)?;
        let mut out = run.out.take().ok_or_else(|| SessionError::Invalid("no PERMANOVA test is out".into()))?;
        let index = run.rows.len();
        let checked = out.job().ok_or(SessionError::NoRun).and_then(|job| {
            let total = job.progress().total;
            let counts =
                Counts { first: 0, end: o.permutations, permanova: o.exceedances, permdisp: o.permdisp.exceedances };
            if o.permutations != total {
                return Err(SessionError::Invalid(format!(
                    "PERMANOVA test {index}: the report has {} permutations, the test {total}",
                    o.permutations
                )));
            }
            job.absorb(counts)?;
            let r = job.result()?;
            if r.seed != o.seed || !same_bits(o.f, r.f) || !same_bits(o.permdisp.f, r.permdisp.f) {
                return Err(SessionError::Invalid(format!(
                    "PERMANOVA test {index}: the report's seed or F is not this test's (another test's data?)"
                )));
            }
            Ok(())
        });
        if let Err(e) = checked {
            self.perm_run = None;
            return Err(e);
        }
        run.rows.push(out.finish());
        let total = run.tests.len();
        Ok(self.finish_if_complete(total))
    }

    /// Progress to `end`; once every test is in, the section with its corrections.
    fn finish_if_complete(&mut self, end: usize) -> Progress {
        let Some(run) = self.perm_run.as_ref() else {
            return Progress { done: end, total: end };
        };
        let progress = Progress { done: run.rows.len(), total: run.tests.len() };
        if run.rows.len() == run.tests.len()
            && let Some(run) = self.perm_run.take()
        {
            let mut section = perm::finish(run.rows, &run.settings, self.settings.alpha);
            if let Some(m) = self.distances.as_ref().filter(|_| run.settings.matrix) {
                section.source = format!("uploaded distance matrix {}", m.file);
            }
            self.permanova = Some(section);
        }
        progress
    }

    pub fn permanova_cancel(&mut self) {
        self.perm_run = None;
    }
}
