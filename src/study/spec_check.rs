//! A run spec given for a study (`evenhand study run --spec`) is checked against the study
//! before the first call: it may say how the study's provider targets are called (base URLs,
//! limits, retries), never which models are asked or how often. A model the study does not
//! name would be paid for and reported; a study target left out would silently disappear; and
//! `samples` other than 1 would ask every case again, since the study's cases carry their own.

use super::StudyError;
use super::format::Study;
use crate::run::RunSpec;

/// Refuses a spec that calls other models than the study's provider targets, leaves one of
/// them out, or asks more than one sample per case. `file` names the spec in the error.
pub fn check(study: &Study, file: &str, spec: &RunSpec) -> Result<(), StudyError> {
    let bad = |field: String, message: String| Err(StudyError::Spec { file: file.into(), field, message });
    if spec.samples != 1 {
        return bad(
            "samples".into(),
            format!(
                "expected 1, found {}: the study's cases carry its own samples ({}), so a spec's would ask each again",
                spec.samples, study.samples
            ),
        );
    }
    let wanted: Vec<String> = study.targets.iter().filter(|t| !t.is_simulated()).map(|t| t.to_string()).collect();
    let mut called = vec![];
    let mut strangers = vec![];
    for (i, t) in spec.targets.iter().enumerate() {
        let provider = serde_json::to_value(t.provider).ok().and_then(|v| v.as_str().map(str::to_string));
        for (j, m) in t.models.iter().enumerate() {
            let name = format!("{}:{m}", provider.as_deref().unwrap_or_default());
            if wanted.contains(&name) {
                called.push(name);
            } else {
                strangers.push((format!("targets[{i}].models[{j}]"), name));
            }
        }
    }
    if let Some((field, _)) = strangers.first() {
        let names: Vec<&str> = strangers.iter().map(|(_, n)| n.as_str()).collect();
        return bad(
            field.clone(),
            format!(
                "the study does not name {}; a spec may only say how the study's own targets are called ({})",
                names.join(", "),
                if wanted.is_empty() { "it has none".to_string() } else { wanted.join(", ") }
            ),
        );
    }
    let missing: Vec<&str> = wanted.iter().filter(|w| !called.contains(w)).map(String::as_str).collect();
    if !missing.is_empty() {
        return bad(
            "targets".into(),
            format!(
                "the study's target(s) {} are missing from the spec: they would never be asked",
                missing.join(", ")
            ),
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn study() -> Study {
        let text = r#"{"format": "evenhand-study", "version": 1, "title": "t",
            "targets": ["simulated:fair", "openai:gpt-4o-mini", "openai-compatible:llama"],
            "methods": {"bbq": {"dataset": {"builtin": "evenhand"}}}}"#;
        super::super::format::parse("s.json", text).unwrap()
    }

    fn spec(targets: &str, samples: u32) -> RunSpec {
        RunSpec::from_json(&format!(r#"{{"targets": {targets}, "samples": {samples}}}"#)).unwrap()
    }

    const BOTH: &str = r#"[{"provider": "openai", "models": ["gpt-4o-mini"]},
        {"provider": "openai-compatible", "base_url": "http://127.0.0.1:9/v1", "models": ["llama"]}]"#;

    #[test]
    fn the_studys_own_targets_pass() {
        check(&study(), "spec.json", &spec(BOTH, 1)).unwrap();
    }

    #[test]
    fn a_stranger_a_missing_target_and_samples_are_refused_at_their_field() {
        let field = |e: StudyError| match e {
            StudyError::Spec { field, message, .. } => (field, message),
            other => panic!("{other:?}"),
        };
        let (f, m) = field(check(&study(), "spec.json", &spec(BOTH, 2)).unwrap_err());
        assert_eq!(f, "samples");
        assert!(m.contains("expected 1, found 2"), "{m}");
        let extra = BOTH.replace("[\"gpt-4o-mini\"]", "[\"gpt-4o-mini\", \"gpt-4o\"]");
        let (f, m) = field(check(&study(), "spec.json", &spec(&extra, 1)).unwrap_err());
        assert_eq!(f, "targets[0].models[1]");
        assert!(m.contains("does not name openai:gpt-4o;"), "{m}");
        let one = r#"[{"provider": "openai", "models": ["gpt-4o-mini"]}]"#;
        let e = check(&study(), "spec.json", &spec(one, 1)).unwrap_err();
        assert!(e.to_string().starts_with("spec.json: field targets: "), "{e}");
        assert!(e.to_string().contains("openai-compatible:llama are missing"), "{e}");
    }
}
