//! The zero-shot NLI refusal detector (the evenhand-models crate, natively) over loaded
//! answers, shared by `evenhand crosslingual` and `evenhand evaluate` ([`NliArgs`], flattened
//! into both). Its P(refuse) per answer goes into the records' `nli_p_refuse` column with the
//! rule and the model (name, commit where the catalogue pins one, weights' sha256 and whether
//! it was pinned), so the core decides from the column as it would from an upload, and
//! `--detector nli` makes it decide.
//!
//! `--nli-cascade` is the lexicon-first cascade: the answers the lexicon flags (a phrase, or
//! the provider's refusal) are refusals without the model, which runs on the rest only; the
//! rule column says `cascade:R`. `--nli-cascade-check` runs the model on every answer anyway
//! and prints the cascade's agreement with the model alone (the verdicts are still the
//! cascade's).

use super::{Failure, note};
use evenhand::crosslingual::detect::{CASCADE, cascade_inner};
use evenhand::crosslingual::nli::{NliBatch, NliItem};
use evenhand_models::catalogue::{self, MODELS, Model, Purpose};
use evenhand_models::nli::NliDetector;
use evenhand_models::zeroshot::Rule;
use evenhand_models::{ModelError, ModelFiles};
use std::path::{Path, PathBuf};

#[derive(clap::Args, Debug, Clone)]
pub struct NliArgs {
    /// Run the zero-shot NLI refusal detector from this model folder (config.json,
    /// model.safetensors, tokenizer.json of a BERT, XLM-R or DeBERTa-v2 sequence classifier)
    /// over every answer first: its P(refuse) fills the column nli_p_refuse, compared with the
    /// other detectors, and deciding with --detector nli. Languages: MSQAD's en, ko, zh, es,
    /// de, hi and our own labels for fr, pl, ca.
    #[arg(long)]
    pub nli_model_dir: Option<PathBuf>,
    /// The catalogue NLI model the folder holds (see `evenhand models`): its pinned sha256s are
    /// checked. Without it the files are used on trust and labelled unverified.
    #[arg(long, requires = "nli_model_dir")]
    pub nli_model: Option<String>,
    /// The NLI detector's rule: argmax (MSQAD's code), paper (P(refuse) >= 0.8, the paper's
    /// text) or threshold:P; cascade:RULE is --nli-cascade with RULE.
    #[arg(long, default_value = "argmax", requires = "nli_model_dir")]
    pub nli_rule: String,
    /// The lexicon-first cascade: answers the lexicon flags (or the provider refused) are
    /// refusals without running the model, which decides the rest; the rule column reads
    /// cascade:RULE. Prints how many answers the model was spared.
    #[arg(long, requires = "nli_model_dir")]
    pub nli_cascade: bool,
    /// With --nli-cascade: run the model on the lexicon's answers too and print the cascade's
    /// agreement with the model alone (counts, Cohen's kappa with its 95% interval); the
    /// verdicts stay the cascade's.
    #[arg(long, requires = "nli_cascade")]
    pub nli_cascade_check: bool,
}

/// The catalogue NLI model `name`, or an error listing them.
pub fn catalogue_model(name: &str) -> Result<&'static Model, Failure> {
    catalogue::find(name).filter(|m| m.purpose == Purpose::Nli).ok_or_else(|| {
        let names: Vec<_> = MODELS.iter().filter(|m| m.purpose == Purpose::Nli).map(|m| m.name).collect();
        Failure::new(format!("--nli-model: expected one of {}, found {name:?}", names.join(", ")))
    })
}

/// What a cascade did: answers the lexicon decided, and with --nli-cascade-check the 2x2 of
/// the cascade (rows) against the model alone (columns).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct CascadeCounts {
    pub spared: usize,
    pub model_runs: usize,
    /// Both refusal / only the cascade / only the model / neither.
    pub table: Option<[u64; 4]>,
}

/// Runs the detector over `items` (the answers of [`evenhand::crosslingual::nli::items_of`]);
/// returns the batch to write into the records, and the cascade's counts when it was one.
pub fn run(a: &NliArgs, dir: &Path, items: &[NliItem]) -> Result<(NliBatch, Option<CascadeCounts>), Failure> {
    let (cascade, rule_text) = match cascade_inner(&a.nli_rule) {
        Some(inner) => (true, inner.trim()),
        None => (a.nli_cascade, a.nli_rule.as_str()),
    };
    let rule = Rule::parse(rule_text).map_err(|e| Failure::new(format!("--nli-rule: {e}")))?;
    let model = a.nli_model.as_deref().map(catalogue_model).transpose()?;
    let detector = NliDetector::load(ModelFiles::read_dir(dir, model)?, rule)?;
    let label = detector.record_label(model, &super::embed::dir_name(dir));
    if detector.classifier().provenance().iter().any(|(_, v)| !v.is_pinned()) {
        note(format_args!("{label}: {}", evenhand_models::pin::UNVERIFIED));
    }
    // The cascade spares the model the lexicon's answers unless asked to check it.
    let runs: Vec<&NliItem> = items.iter().filter(|i| !cascade || a.nli_cascade_check || !i.lexicon).collect();
    let answers: Vec<(&str, &str)> = runs.iter().map(|i| (i.text.as_str(), i.language.as_str())).collect();
    let mut last = 0;
    let verdicts = detector
        .detect(&answers, |done| {
            if done - last >= 256 || done == answers.len() {
                note(format_args!("NLI: {done}/{} answers", answers.len()));
                last = done;
            }
        })
        .map_err(|e| match e {
            ModelError::Language { item, .. } => Failure::new(format!("record {:?}: {e}", runs[item - 1].id)),
            e => e.into(),
        })?;
    let counts = cascade.then(|| {
        let spared = items.iter().filter(|i| i.lexicon).count();
        let table = a.nli_cascade_check.then(|| {
            let mut t = [0u64; 4];
            for (item, v) in runs.iter().zip(&verdicts) {
                let by_cascade = item.lexicon || v.refusal;
                t[match (by_cascade, v.refusal) {
                    (true, true) => 0,
                    (true, false) => 1,
                    (false, true) => 2,
                    (false, false) => 3,
                }] += 1;
            }
            t
        });
        CascadeCounts { spared, model_runs: runs.len(), table }
    });
    let batch = NliBatch {
        model: label,
        rule: if cascade { format!("{CASCADE}{}", rule.name()) } else { rule.name() },
        ids: runs.iter().map(|i| i.id.clone()).collect(),
        p_refuse: verdicts.iter().map(|v| v.p_refuse).collect(),
    };
    Ok((batch, counts))
}

/// The cascade's counts on stderr: answers spared, and with the check its agreement with the
/// model alone.
pub fn report(c: &CascadeCounts) {
    if c.table.is_none() {
        note(format_args!(
            "NLI cascade: the lexicon decided {} answers, so the model was spared them; it ran on {}",
            c.spared, c.model_runs
        ));
    }
    if let Some([both, only_cascade, only_model, neither]) = c.table {
        let a = evenhand::stats::agreement::agreement(both, only_cascade, only_model, neither);
        let kappa = match (a.kappa_interval(0.95), a.kappa) {
            (Some(k), _) => format!("kappa {:.3} [{:.3}, {:.3}] (95%)", k.kappa, k.low, k.high),
            _ => "kappa undefined".into(),
        };
        note(format_args!(
            "NLI cascade vs the model alone on {} answers: {both} refusals by both, {only_cascade} by the cascade only, {only_model} by the model only, {neither} by neither; {kappa}; the cascade would have spared the model {} answers",
            a.n, c.spared
        ));
    }
}

/// [`run`] over a cross-lingual session's answers, written into its records; returns how many
/// records got a probability.
pub fn fill(s: &mut evenhand::crosslingual::session::Session, a: &NliArgs, dir: &Path) -> Result<usize, Failure> {
    let items = s.nli_items()?;
    let (batch, counts) = run(a, dir, &items)?;
    if let Some(c) = &counts {
        report(c);
    }
    Ok(s.add_nli(&batch)?)
}
