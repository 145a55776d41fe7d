//! The probe sets and reference tables shipped in datasets/divergence, read through
//! [`crate::builtin`]. Sources and licenses: datasets/divergence/README.md.

use super::DivergenceError;
use super::analysis::Assigned;
use super::probes::ProbeSet;
use super::reference::{Reference, Shape};

pub const PROBE_SETS: [&str; 2] = ["pl-western", "de-western"];

pub const REFERENCES: [&str; 4] = ["pl_cities.tsv", "de_cities.tsv", "us_cities.tsv", "us_first_names.tsv"];

/// The text of the built-in probe set `id`.
pub fn probe_set_text(id: &str) -> Result<&'static str, DivergenceError> {
    if !PROBE_SETS.contains(&id) {
        return Err(DivergenceError::Setting(format!(
            "no built-in probe set {id:?}; expected one of {}",
            PROBE_SETS.join(", ")
        )));
    }
    crate::builtin::text(&format!("divergence/probes/{id}.json")).map_err(|e| DivergenceError::Setting(e.to_string()))
}

pub fn probe_set(id: &str) -> Result<ProbeSet, DivergenceError> {
    let text = probe_set_text(id)?;
    Ok(ProbeSet::parse(&format!("datasets/divergence/probes/{id}.json"), text)?.0)
}

pub fn reference(file: &str) -> Result<Reference, DivergenceError> {
    if !REFERENCES.contains(&file) {
        return Err(DivergenceError::Setting(format!("no built-in reference table {file:?}")));
    }
    let text = crate::builtin::text(&format!("divergence/references/{file}"))
        .map_err(|e| DivergenceError::Setting(e.to_string()))?;
    Reference::load(&format!("datasets/divergence/references/{file}"), text.as_bytes(), Some(Shape::Table), None)
}

/// The shipped references a probe set names, per aspect and culture.
pub fn references_for(set: &ProbeSet) -> Result<Vec<Assigned>, DivergenceError> {
    let mut out = vec![];
    for a in &set.aspects {
        for (culture, source) in &a.references {
            if let Some(file) = &source.file {
                out.push(Assigned { aspect: a.id.clone(), culture: culture.clone(), reference: reference(file)? });
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shipped_sets_parse_and_their_references_load() {
        for id in PROBE_SETS {
            let set = probe_set(id).unwrap();
            assert!(set.aspects.iter().any(|a| a.id == "first_names") && set.aspects.iter().any(|a| a.id == "cities"));
            let refs = references_for(&set).unwrap();
            assert_eq!(refs.len(), 3, "{id}: cities both sides and the US names");
            for r in &refs {
                assert!(r.reference.problems.is_empty(), "{:?}", r.reference.problems);
            }
        }
        let pl = probe_set("pl-western").unwrap();
        assert!(pl.aspects.iter().all(|a| a.contexts.len() >= 20));
        // Row counts stated in the README.
        let rows = |f: &str| reference(f).unwrap().entries.len();
        assert_eq!(
            (rows("pl_cities.tsv"), rows("de_cities.tsv"), rows("us_cities.tsv"), rows("us_first_names.tsv")),
            (363, 1139, 1000, 17045)
        );
        assert!(probe_set("fr-western").unwrap_err().to_string().contains("pl-western"));
    }
}
