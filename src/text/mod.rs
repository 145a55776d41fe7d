//! Text helpers every method shares: folding a response for comparison with an expected
//! answer ([`fold`]), the refusal phrase lexicon ([`refusal`]), the stricter opening rule built
//! on it ([`refusal_opening`]), language codes ([`language`]) and bidirectional controls
//! kept from reaching the text around them ([`bidi`]).

pub mod bidi;
pub mod fold;
pub mod language;
pub mod refusal;
pub mod refusal_opening;

pub use fold::{matches_expected, normalise};
pub use language::primary_language;
