//! Prices per million tokens, for the estimate shown before a run and the cost counted
//! during it. The built-in rows are the list prices of the providers' pricing pages
//! (openai.com/api/pricing, anthropic.com/pricing, ai.google.dev/pricing, mistral.ai/pricing)
//! as we recorded them around [`BUILTIN_AS_OF`], not checked since: prices change, so the page
//! lets the user edit every row, and a model without a row is shown as "not priced", never as
//! free.

use serde::{Deserialize, Serialize};

pub const BUILTIN_AS_OF: &str = "2025-06";

/// One row: a model name, or a prefix ending in `*`, with its prices in US dollars.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Price {
    pub model: String,
    pub input_per_million: f64,
    pub output_per_million: f64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PriceTable {
    pub currency: String,
    pub rows: Vec<Price>,
}

impl Default for PriceTable {
    fn default() -> PriceTable {
        PriceTable::builtin()
    }
}

fn row(model: &str, input: f64, output: f64) -> Price {
    Price { model: model.into(), input_per_million: input, output_per_million: output }
}

impl PriceTable {
    pub fn builtin() -> PriceTable {
        PriceTable {
            currency: "USD".into(),
            rows: vec![
                row("gpt-4o-mini*", 0.15, 0.60),
                row("gpt-4o*", 2.50, 10.00),
                row("gpt-4.1-nano*", 0.10, 0.40),
                row("gpt-4.1-mini*", 0.40, 1.60),
                row("gpt-4.1*", 2.00, 8.00),
                row("text-embedding-3-small", 0.02, 0.0),
                row("text-embedding-3-large", 0.13, 0.0),
                row("claude-3-5-haiku*", 0.80, 4.00),
                row("claude-sonnet-4*", 3.00, 15.00),
                row("claude-opus-4*", 15.00, 75.00),
                row("gemini-2.0-flash*", 0.10, 0.40),
                row("gemini-2.5-flash*", 0.30, 2.50),
                row("gemini-2.5-pro*", 1.25, 10.00),
                row("mistral-small*", 0.10, 0.30),
                row("mistral-large*", 2.00, 6.00),
            ],
        }
    }

    /// The row for `model`: an exact name first, then the longest matching prefix.
    pub fn find(&self, model: &str) -> Option<&Price> {
        self.rows.iter().find(|p| p.model == model).or_else(|| {
            self.rows
                .iter()
                .filter_map(|p| {
                    p.model.strip_suffix('*').filter(|pre| model.starts_with(pre)).map(|pre| (pre.len(), p))
                })
                .max_by_key(|(len, _)| *len)
                .map(|(_, p)| p)
        })
    }

    /// The cost of `tokens_in` + `tokens_out` on `model`, if the table prices it.
    pub fn cost(&self, model: &str, tokens_in: u64, tokens_out: u64) -> Option<f64> {
        self.find(model)
            .map(|p| (tokens_in as f64 * p.input_per_million + tokens_out as f64 * p.output_per_million) / 1e6)
    }

    /// Rows with a negative or non-finite price, named, so an edited table cannot mislead.
    pub fn check(&self) -> Result<(), String> {
        match self.rows.iter().find(|p| {
            !(p.input_per_million.is_finite()
                && p.output_per_million.is_finite()
                && p.input_per_million >= 0.0
                && p.output_per_million >= 0.0)
                || p.model.trim().is_empty()
        }) {
            Some(p) => Err(format!("price row {:?}: expected a model name and prices of 0 or more", p.model)),
            None => Ok(()),
        }
    }
}

/// A rough count of the tokens in `text`: one per four bytes of UTF-8, which is close for
/// English and errs high for scripts whose characters take three bytes and about one token.
pub fn estimate_tokens(text: &str) -> u64 {
    (text.len() as u64).div_ceil(4)
}

/// Output tokens assumed per call when no max_tokens is set.
pub const ASSUMED_OUTPUT_TOKENS: u64 = 256;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_longest_prefix_wins_and_unknown_models_are_unpriced() {
        let t = PriceTable::builtin();
        assert_eq!(t.find("gpt-4o-mini-2024-07-18").unwrap().input_per_million, 0.15);
        assert_eq!(t.find("gpt-4o-2024-08-06").unwrap().input_per_million, 2.50);
        assert!(t.cost("llama3", 10, 10).is_none());
        let c = t.cost("gpt-4o-mini", 1_000_000, 1_000_000).unwrap();
        assert!((c - 0.75).abs() < 1e-12);
        assert!(t.check().is_ok());
        let bad = PriceTable { rows: vec![row("x", -1.0, 0.0)], ..t };
        assert!(bad.check().unwrap_err().contains("\"x\""));
        assert_eq!(estimate_tokens("abcde"), 2);
    }
}
