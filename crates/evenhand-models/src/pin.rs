//! The sha256 rule: a config or tokenizer file is hashed in Rust and compared with its pinned
//! value before a single byte of it is parsed; a weight file is hashed as it streams into its
//! tensors ([`crate::weights`]) and compared after its last byte, before any tensor is used. A file the catalogue could not pin (its
//! commit and hash not reachable from where the catalogue was written) is used on trust, its
//! hash reported, and every output labels it so (the dataset catalogue's rule).

use crate::error::ModelError;
use sha2::{Digest, Sha256};

/// How a file's bytes were accepted.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case", tag = "status")]
pub enum Verdict {
    /// Its sha256 equals the pinned value.
    Pinned { sha256: String },
    /// No pinned value: accepted on trust, its sha256 recorded.
    TrustOnFirstUse { sha256: String },
}

impl Verdict {
    pub fn sha256(&self) -> &str {
        match self {
            Verdict::Pinned { sha256 } | Verdict::TrustOnFirstUse { sha256 } => sha256,
        }
    }

    pub fn is_pinned(&self) -> bool {
        matches!(self, Verdict::Pinned { .. })
    }
}

/// How every output labels a file used without a pinned hash (as the dataset catalogue does).
pub const UNVERIFIED: &str =
    "unverified: not pinned by the model catalogue; its sha256 was recorded on first use (trust on first use)";

pub fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes).iter().map(|b| format!("{b:02x}")).collect()
}

/// Checks `bytes` (named `file` in messages) against `expected`, a lower-case hex sha256.
pub fn check(file: &str, bytes: &[u8], expected: Option<&str>) -> Result<Verdict, ModelError> {
    verdict(file, sha256_hex(bytes), expected)
}

/// The same rule for a sha256 already computed (`found`, lower-case hex), as the streaming
/// weights reader ([`crate::weights`]) computes it chunk by chunk.
pub fn verdict(file: &str, found: String, expected: Option<&str>) -> Result<Verdict, ModelError> {
    match expected {
        None => Ok(Verdict::TrustOnFirstUse { sha256: found }),
        Some(e) if e.eq_ignore_ascii_case(&found) => Ok(Verdict::Pinned { sha256: found }),
        Some(e) => Err(ModelError::HashMismatch { file: file.into(), expected: e.to_ascii_lowercase(), found }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_changed_byte_is_refused_naming_the_file_and_both_hashes() {
        let abc = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";
        assert_eq!(check("m.safetensors", b"abc", Some(abc)).unwrap(), Verdict::Pinned { sha256: abc.into() });
        let e = check("m.safetensors", b"abd", Some(abc)).unwrap_err().to_string();
        assert!(e.starts_with("m.safetensors: sha256 "), "{e}");
        assert!(e.contains(abc) && e.contains(&sha256_hex(b"abd")), "{e}");
        let tofu = check("m.safetensors", b"abc", None).unwrap();
        assert!(!tofu.is_pinned());
        assert_eq!(tofu.sha256(), abc);
    }
}
