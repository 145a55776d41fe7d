//! `evenhand crosslingual --nli-model-dir DIR`: the zero-shot NLI refusal detector (the
//! evenhand-models crate, natively) over the loaded answers, before the analysis. Its P(refuse)
//! per answer goes into the records' `nli_p_refuse` column with the rule and the model (name,
//! commit where the catalogue pins one, weights' sha256 and whether it was pinned), so the
//! core decides from the column as it would from an upload, and `--detector nli` makes it
//! decide the figures.

use super::{Failure, note};
use evenhand::crosslingual::nli::NliBatch;
use evenhand::crosslingual::session::Session;
use evenhand_models::catalogue::{self, MODELS, Model, Purpose};
use evenhand_models::nli::NliDetector;
use evenhand_models::zeroshot::Rule;
use evenhand_models::{ModelError, ModelFiles};
use std::path::Path;

/// The catalogue NLI model `name`, or an error listing them.
pub fn catalogue_model(name: &str) -> Result<&'static Model, Failure> {
    catalogue::find(name).filter(|m| m.purpose == Purpose::Nli).ok_or_else(|| {
        let names: Vec<_> = MODELS.iter().filter(|m| m.purpose == Purpose::Nli).map(|m| m.name).collect();
        Failure::new(format!("--nli-model: expected one of {}, found {name:?}", names.join(", ")))
    })
}

/// Runs the detector over every answered response of the session; returns how many records
/// got a probability.
pub fn fill(s: &mut Session, dir: &Path, model: Option<&str>, rule: &str) -> Result<usize, Failure> {
    let rule = Rule::parse(rule).map_err(|e| Failure::new(format!("--nli-rule: {e}")))?;
    let model = model.map(catalogue_model).transpose()?;
    let detector = NliDetector::load(ModelFiles::read_dir(dir, model)?, rule)?;
    let label = detector.record_label(model, &super::embed::dir_name(dir));
    if detector.classifier().provenance().iter().any(|(_, v)| !v.is_pinned()) {
        note(format_args!("{label}: {}", evenhand_models::pin::UNVERIFIED));
    }
    let items = s.nli_items()?;
    let answers: Vec<(&str, &str)> = items.iter().map(|i| (i.text.as_str(), i.language.as_str())).collect();
    let mut last = 0;
    let verdicts = detector
        .detect(&answers, |done| {
            if done - last >= 256 || done == answers.len() {
                note(format_args!("NLI: {done}/{} answers", answers.len()));
                last = done;
            }
        })
        .map_err(|e| match e {
            ModelError::Language { item, .. } => Failure::new(format!("record {:?}: {e}", items[item - 1].id)),
            e => e.into(),
        })?;
    let batch = NliBatch {
        model: label,
        rule: rule.name(),
        ids: items.iter().map(|i| i.id.clone()).collect(),
        p_refuse: verdicts.iter().map(|v| v.p_refuse).collect(),
    };
    Ok(s.add_nli(&batch)?)
}
