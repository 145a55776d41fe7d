//! Which target a record belongs to, and the name the report gives each target.
//!
//! Records are keyed by target (provider and model), not by model name alone: `openai:gpt-4o`
//! and `openai-compatible:gpt-4o` are two targets whose answers must not be pooled, and
//! `simulated:fair` beside `openai:sim:fair` must not count the simulated records twice.
//! A target's report name is its records' model name (`gpt-4o`, `sim:fair`) when no other
//! target shares it, and the whole target (`openai:gpt-4o`) when one does: made unique rather
//! than refused, because one model served by two providers is a fair thing to compare.

use super::format::{Study, TargetName};

/// Each target of the study with its report name, in study order; no two names are equal.
pub fn names(study: &Study) -> Vec<(TargetName, String)> {
    let shared = |t: &TargetName| study.targets.iter().filter(|u| u.record_model() == t.record_model()).count() > 1;
    study.targets.iter().map(|t| (t.clone(), if shared(t) { t.to_string() } else { t.record_model() })).collect()
}

/// The report name of a record answered by `provider` and `model`. The target with exactly
/// that provider and model, else the only target of that model name (records from a harness
/// or another tool carry their own provider label), else a name of its own: the model, or
/// `provider:model` when the model name alone would fall on a target. A simulated target
/// takes only its own simulated records, and simulated records only a simulated target.
pub fn name_of(names: &[(TargetName, String)], provider: &str, model: &str) -> String {
    let simulated = provider == crate::simulate::PROVIDER;
    if let Some((_, n)) = names
        .iter()
        .find(|(t, _)| t.record_model() == model && (t.provider == provider || (simulated && t.is_simulated())))
    {
        return n.clone();
    }
    let same_model: Vec<&(TargetName, String)> = names.iter().filter(|(t, _)| t.record_model() == model).collect();
    if let [(t, n)] = same_model[..]
        && !simulated
        && !t.is_simulated()
    {
        return n.clone();
    }
    if !provider.is_empty() && names.iter().any(|(t, n)| n == model || t.record_model() == model) {
        format!("{provider}:{model}")
    } else {
        model.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn study(targets: &[&str]) -> Study {
        let t: Vec<String> = targets.iter().map(|t| format!("{t:?}")).collect();
        let text = format!(
            r#"{{"format": "evenhand-study", "version": 1, "title": "t", "targets": [{}],
                "methods": {{"bbq": {{"dataset": {{"builtin": "evenhand"}}}}}}}}"#,
            t.join(", ")
        );
        super::super::format::parse("s.json", &text).unwrap()
    }

    #[test]
    fn two_providers_of_one_model_are_two_names() {
        let n = names(&study(&["openai:gpt-4o", "openai-compatible:gpt-4o", "anthropic:claude"]));
        let shown: Vec<&str> = n.iter().map(|(_, n)| n.as_str()).collect();
        assert_eq!(shown, ["openai:gpt-4o", "openai-compatible:gpt-4o", "claude"]);
        assert_eq!(name_of(&n, "openai", "gpt-4o"), "openai:gpt-4o");
        assert_eq!(name_of(&n, "openai-compatible", "gpt-4o"), "openai-compatible:gpt-4o");
        // A harness's records of an unshared model go to its target, as before.
        assert_eq!(name_of(&n, "lm-eval", "claude"), "claude");
        // Of a shared one they cannot be placed: a name of their own, on no target.
        assert_eq!(name_of(&n, "lm-eval", "gpt-4o"), "lm-eval:gpt-4o");
        assert_eq!(name_of(&n, "", "gpt-4o"), "gpt-4o");
    }

    #[test]
    fn a_simulated_profile_and_a_provider_model_of_its_name_stay_apart() {
        let n = names(&study(&["simulated:fair", "openai:sim:fair"]));
        assert_eq!(name_of(&n, "simulated", "sim:fair"), "simulated:fair");
        assert_eq!(name_of(&n, "openai", "sim:fair"), "openai:sim:fair");
        let alone = names(&study(&["simulated:fair"]));
        assert_eq!(name_of(&alone, "simulated", "sim:fair"), "sim:fair");
        assert_eq!(name_of(&alone, "openai", "sim:fair"), "openai:sim:fair");
    }
}
