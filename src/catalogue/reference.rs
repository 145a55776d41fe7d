//! `catalogue:NAME[/FILE]`, the way a method command names a catalogue file instead of a path.

use std::fmt;

pub const PREFIX: &str = "catalogue:";

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reference {
    pub dataset: String,
    /// None: every file of the dataset. File names may themselves hold '/' (MSQAD's
    /// `model/Topic`), so only the first '/' separates the dataset.
    pub file: Option<String>,
}

impl Reference {
    /// Some when `arg` starts with `catalogue:`; an empty name is an error.
    pub fn parse(arg: &str) -> Option<Result<Reference, String>> {
        let rest = arg.strip_prefix(PREFIX)?;
        let (dataset, file) = match rest.split_once('/') {
            Some((d, f)) => (d, Some(f)),
            None => (rest, None),
        };
        Some(match (dataset, file) {
            ("", _) => Err(format!("{arg:?}: expected catalogue:NAME or catalogue:NAME/FILE")),
            (_, Some("")) => Err(format!("{arg:?}: the file name after '/' is empty")),
            (d, f) => Ok(Reference { dataset: d.into(), file: f.map(String::from) }),
        })
    }
}

impl fmt::Display for Reference {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{PREFIX}{}", self.dataset)?;
        if let Some(file) = &self.file {
            write!(f, "/{file}")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::Reference;

    #[test]
    fn names_and_files() {
        assert_eq!(Reference::parse("data/Age.jsonl"), None);
        let r = Reference::parse("catalogue:msqad/gpt-3.5-turbo-0125/Crisis and Conflict").unwrap().unwrap();
        assert_eq!(r.dataset, "msqad");
        assert_eq!(r.file.as_deref(), Some("gpt-3.5-turbo-0125/Crisis and Conflict"));
        assert_eq!(r.to_string(), "catalogue:msqad/gpt-3.5-turbo-0125/Crisis and Conflict");
        assert_eq!(Reference::parse("catalogue:bbq").unwrap().unwrap().file, None);
        assert!(Reference::parse("catalogue:").unwrap().is_err());
        assert!(Reference::parse("catalogue:bbq/").unwrap().is_err());
    }
}
