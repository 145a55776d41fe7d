//! Text helpers every method shares: folding a response for comparison with an expected
//! answer ([`fold`]), the refusal phrase lexicon ([`refusal`]), the stricter opening rule built
//! on it ([`refusal_opening`]) and language codes ([`language`]).

pub mod fold;
pub mod language;
pub mod refusal;
pub mod refusal_opening;

pub use fold::{matches_expected, normalise};
pub use language::primary_language;
