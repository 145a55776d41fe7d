//! Text helpers every method shares: folding a response for comparison with an expected
//! answer ([`fold`]), the refusal phrase lexicon ([`refusal`]) and language codes
//! ([`language`]).

pub mod fold;
pub mod language;
pub mod refusal;

pub use fold::{matches_expected, normalise};
pub use language::primary_language;
