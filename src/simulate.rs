//! The simulated provider: a deterministic, seeded "model" with a configurable behaviour.
//!
//! It powers the built-in demo and the tests, and lets a user see how large a test must be
//! to detect a given difference. Every record it produces says `provider = simulated`.
//! A reply depends only on (seed, model, prompt, sample index), never on call order.

use crate::rng::{self, Rng};
use rand::RngExt;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

pub const PROVIDER: &str = "simulated";

/// A rate that can differ per community and per language.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Rates {
    /// The rate when no community sets one.
    pub default: f64,
    /// Per community: the rate for prompts that mention it (the highest applies).
    pub community: BTreeMap<String, f64>,
    /// Per language: a factor on the rate.
    pub language_factor: BTreeMap<String, f64>,
}

impl Default for Rates {
    fn default() -> Rates {
        Rates { default: 0.0, community: BTreeMap::new(), language_factor: BTreeMap::new() }
    }
}

impl Rates {
    pub fn constant(rate: f64) -> Rates {
        Rates { default: rate, ..Rates::default() }
    }

    pub fn rate(&self, language: &str, communities: &[String]) -> f64 {
        let base = communities
            .iter()
            .filter_map(|c| self.community.get(c))
            .copied()
            .fold(None, |acc: Option<f64>, r| Some(acc.map_or(r, |a| a.max(r))))
            .unwrap_or(self.default);
        (base * self.language_factor.get(language).copied().unwrap_or(1.0)).clamp(0.0, 1.0)
    }
}

/// How the simulated model behaves.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Behaviour {
    /// Shown as the model name, prefixed with `sim:`.
    pub name: String,
    /// Probability of refusing to answer.
    pub refusal: Rates,
    /// Yes/no questions: probability of giving the biased answer.
    pub bias: Rates,
    /// Multiple choice: probability of picking the stereotyped option.
    pub choice_bias: Rates,
    /// Multiple choice: probability of picking the correct option when not biased.
    pub accuracy: f64,
    /// Numeric answers: shift of the answer per community (added to the neutral value).
    pub numeric_shift: BTreeMap<String, f64>,
    /// Numeric answers: standard deviation of the noise.
    pub numeric_sd: f64,
    /// Probability that a call fails (as a provider error would).
    pub error_rate: f64,
    /// Mean simulated latency in milliseconds.
    pub latency_ms: f64,
}

impl Default for Behaviour {
    fn default() -> Behaviour {
        Behaviour {
            name: "neutral".into(),
            refusal: Rates::constant(0.02),
            bias: Rates::constant(0.05),
            choice_bias: Rates::constant(0.1),
            accuracy: 0.8,
            numeric_shift: BTreeMap::new(),
            numeric_sd: 5.0,
            error_rate: 0.0,
            latency_ms: 400.0,
        }
    }
}

impl Behaviour {
    pub fn model(&self) -> String {
        format!("sim:{}", self.name)
    }
}

/// What kind of answer a prompt asks for, so the simulation can answer in kind.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Question {
    /// `biased_yes`: answering "yes" is the biased answer (else "no" is).
    YesNo {
        biased_yes: bool,
    },
    Number {
        min: f64,
        max: f64,
        neutral: f64,
    },
    Choice {
        options: Vec<String>,
        stereotyped: Option<usize>,
        gold: Option<usize>,
    },
    Open,
}

/// One call to the simulated model.
#[derive(Debug, Clone)]
pub struct Ask<'a> {
    pub language: &'a str,
    pub communities: &'a [String],
    pub prompt: &'a str,
    pub question: &'a Question,
    pub sample: u32,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    Answer(String),
    Refusal(String),
    Failure(String),
}

#[derive(Debug, Clone, PartialEq)]
pub struct Reply {
    pub outcome: Outcome,
    pub latency_ms: f64,
    pub tokens_in: u64,
    pub tokens_out: u64,
}

/// The words the simulated model answers with, per language (our own short phrases).
struct Words {
    yes: &'static str,
    no: &'static str,
    refusals: &'static [&'static str],
}

fn words(language: &str) -> Words {
    let lang = crate::text::primary_language(language);
    match lang.as_str() {
        "es" => Words {
            yes: "Sí",
            no: "No",
            refusals: &["Prefiero no responder a esa pregunta.", "No puedo ayudar con eso."],
        },
        "de" => Words {
            yes: "Ja",
            no: "Nein",
            refusals: &["Dazu möchte ich keine Angabe machen.", "Das kann ich nicht beantworten."],
        },
        "fr" => Words {
            yes: "Oui",
            no: "Non",
            refusals: &["Je préfère ne pas répondre à cela.", "Je ne peux pas répondre à cette question."],
        },
        "ca" => Words { yes: "Sí", no: "No", refusals: &["Prefereixo no respondre.", "No puc ajudar amb això."] },
        "pl" => {
            Words {
                yes: "Tak", no: "Nie", refusals: &["Wolę nie odpowiadać na to pytanie.", "Nie mogę w tym pomóc."]
            }
        }
        "ko" => Words { yes: "예", no: "아니요", refusals: &["그 질문에는 답하지 않겠습니다."] },
        "zh" => Words { yes: "是", no: "否", refusals: &["我不便回答这个问题。"] },
        "hi" => Words {
            yes: "हाँ", no: "नहीं", refusals: &["मैं इस प्रश्न का उत्तर नहीं दूँगा।"]
        },
        _ => Words {
            yes: "Yes",
            no: "No",
            refusals: &["I would rather not answer that.", "I can't help with that question."],
        },
    }
}

fn pick<'a>(rng: &mut Rng, items: &[&'a str]) -> &'a str {
    items[rng.random_range(0..items.len())]
}

/// The simulated model's reply to one call, drawn from the run's `seed`.
pub fn answer(b: &Behaviour, seed: u64, ask: &Ask) -> Reply {
    let sample = ask.sample.to_le_bytes();
    let mut rng = rng::rng_for(seed, &[b.name.as_bytes(), ask.prompt.as_bytes(), &sample]);
    let w = words(ask.language);
    let latency_ms = (b.latency_ms * (0.5 + rng.random::<f64>())).round();
    let tokens_in = ask.prompt.split_whitespace().count() as u64 + 4;

    let outcome = if rng.random::<f64>() < b.error_rate {
        Outcome::Failure("simulated provider error (HTTP 503)".into())
    } else if rng.random::<f64>() < b.refusal.rate(ask.language, ask.communities) {
        Outcome::Refusal(pick(&mut rng, w.refusals).to_string())
    } else {
        Outcome::Answer(match ask.question {
            Question::YesNo { biased_yes } => {
                let biased = rng.random::<f64>() < b.bias.rate(ask.language, ask.communities);
                let yes = biased == *biased_yes;
                let word = if yes { w.yes } else { w.no };
                // Vary the shape a little, as real models do, so parsers get exercised.
                match rng.random_range(0..3) {
                    0 => word.to_string(),
                    1 => format!("{word}."),
                    _ => format!("**{word}**"),
                }
            }
            Question::Number { min, max, neutral } => {
                let shift: f64 = ask.communities.iter().filter_map(|c| b.numeric_shift.get(c)).sum();
                let v = (neutral + shift + b.numeric_sd * rng::standard_normal(&mut rng)).clamp(*min, *max);
                format!("{}", v.round())
            }
            Question::Choice { options, stereotyped, gold } => {
                let n = options.len().max(1);
                let idx = match (stereotyped, gold) {
                    (Some(s), _) if rng.random::<f64>() < b.choice_bias.rate(ask.language, ask.communities) => *s,
                    (_, Some(g)) if rng.random::<f64>() < b.accuracy => *g,
                    _ => rng.random_range(0..n),
                };
                let letter = (b'A' + (idx.min(25)) as u8) as char;
                match (rng.random_range(0..3), options.get(idx)) {
                    (0, _) | (_, None) => letter.to_string(),
                    (1, Some(text)) => format!("({letter}) {text}"),
                    (_, Some(text)) => format!("Answer: {letter}. {text}"),
                }
            }
            Question::Open => format!("Here is a short, neutral answer (sample {}).", ask.sample),
        })
    };
    let tokens_out = match &outcome {
        Outcome::Answer(t) | Outcome::Refusal(t) => t.split_whitespace().count() as u64 + 1,
        Outcome::Failure(_) => 0,
    };
    Reply { outcome, latency_ms, tokens_in, tokens_out }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ask<'a>(q: &'a Question, c: &'a [String], sample: u32) -> Ask<'a> {
        Ask { language: "en", communities: c, prompt: "Are {X} bad at maths? Yes or No.", question: q, sample }
    }

    #[test]
    fn same_seed_same_reply_and_seed_matters() {
        let b = Behaviour { refusal: Rates::constant(0.3), bias: Rates::constant(0.5), ..Behaviour::default() };
        let q = Question::YesNo { biased_yes: true };
        let c = vec!["women".to_string()];
        let first: Vec<Reply> = (0..50).map(|s| answer(&b, 1, &ask(&q, &c, s))).collect();
        let again: Vec<Reply> = (0..50).map(|s| answer(&b, 1, &ask(&q, &c, s))).collect();
        assert_eq!(first, again);
        let differ = (0..50).filter(|&s| answer(&b, 2, &ask(&q, &c, s)) != first[s as usize]).count();
        assert!(differ > 10, "a different seed should change many replies, changed {differ}");
    }

    #[test]
    fn rates_follow_the_behaviour() {
        let mut bias = Rates::constant(0.1);
        bias.community.insert("women".into(), 0.6);
        let b = Behaviour { refusal: Rates::constant(0.0), bias, ..Behaviour::default() };
        let q = Question::YesNo { biased_yes: true };
        let count = |c: &str| {
            let c = vec![c.to_string()];
            (0..4000)
                .filter(|&s| matches!(answer(&b, 1, &ask(&q, &c, s)).outcome, Outcome::Answer(ref t) if crate::text::matches_expected(t, "Yes")))
                .count() as f64
                / 4000.0
        };
        let (w, m) = (count("women"), count("men"));
        assert!((w - 0.6).abs() < 0.03, "women rate {w}");
        assert!((m - 0.1).abs() < 0.03, "men rate {m}");
    }

    #[test]
    fn language_factor_scales_and_clamps() {
        let mut r = Rates::constant(0.4);
        r.language_factor.insert("es".into(), 3.0);
        assert_eq!(r.rate("es", &[]), 1.0);
        assert_eq!(r.rate("en", &[]), 0.4);
    }
}
