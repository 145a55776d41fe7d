//! The simulated model for question-set prompts: it refuses at a rate that depends on the
//! language, the topic and the prompt mode (a built-in language effect the tests must find),
//! answers in the prompt's language otherwise, and gives each response a deterministic
//! embedding with a per-language offset (so a PERMANOVA can find that effect too).
//!
//! Every draw comes from `rng_for(seed, [what, model, question, mode, sample, ...])`, so a reply
//! never depends on the order of the calls.
//!
//! * Refusal: rate p = clamp(base · language_factor · topic_factor · mode_factor, 0, 1). The
//!   uniform u compared with p is, with probability `coupling`, shared by all languages of the
//!   same (question, mode, sample), and otherwise drawn per language; both are uniform, so each
//!   language's marginal rate is exactly p, while the sharing makes the languages' outcomes
//!   correlated, as real paired outcomes are.
//! * Embedding (dimension `embedding_dim`): a per-question vector z_q ~ N(0, I), plus
//!   `language_shift` · o_l with o_l ~ N(0, I/d)·√d fixed per language, plus noise
//!   `noise` · N(0, I), plus 2 · r (a fixed "refusal" direction) when the reply is a refusal.
//!
//! The default behaviour mirrors the ranking MSQAD reports (Hindi and Chinese refuse most,
//! Spanish and German least); it describes no real model, and every record says "simulated".

use super::plan::Case;
use crate::record::{Record, Status};
use crate::rng::{self, rng_for};
use rand::RngExt;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Behaviour {
    pub name: String,
    /// Refusal rate before the factors.
    pub refusal: f64,
    pub language_factor: BTreeMap<String, f64>,
    pub topic_factor: BTreeMap<String, f64>,
    pub mode_factor: BTreeMap<String, f64>,
    /// Probability that a question's languages share one uniform draw (0..=1).
    pub coupling: f64,
    pub embedding_dim: usize,
    pub language_shift: f64,
    pub noise: f64,
}

impl Default for Behaviour {
    fn default() -> Behaviour {
        let map = |v: &[(&str, f64)]| v.iter().map(|(k, x)| (k.to_string(), *x)).collect();
        Behaviour {
            name: "xling-demo".into(),
            refusal: 0.4,
            language_factor: map(&[
                ("hi", 1.9),
                ("zh", 1.7),
                ("ko", 1.3),
                ("en", 1.0),
                ("fr", 0.9),
                ("pl", 0.9),
                ("es", 0.55),
                ("de", 0.45),
            ]),
            topic_factor: BTreeMap::new(),
            mode_factor: map(&[("answer", 0.15), ("acceptable", 0.1), ("non_acceptable", 1.0)]),
            coupling: 0.6,
            embedding_dim: 32,
            language_shift: 0.6,
            noise: 0.5,
        }
    }
}

impl Behaviour {
    /// A model with no language, topic or mode effect at all.
    pub fn no_effect(rate: f64) -> Behaviour {
        Behaviour {
            name: "xling-null".into(),
            refusal: rate,
            language_factor: BTreeMap::new(),
            topic_factor: BTreeMap::new(),
            mode_factor: BTreeMap::new(),
            language_shift: 0.0,
            ..Behaviour::default()
        }
    }

    pub fn model(&self) -> String {
        format!("sim:{}", self.name)
    }

    pub fn rate(&self, language: &str, topic: &str, mode: &str) -> f64 {
        let f = |m: &BTreeMap<String, f64>, k: &str| m.get(k).copied().unwrap_or(1.0);
        let p = self.refusal
            * f(&self.language_factor, language)
            * f(&self.topic_factor, topic)
            * f(&self.mode_factor, mode);
        if p.is_nan() { 0.0 } else { p.clamp(0.0, 1.0) }
    }

    /// Checks what a user may have typed in the page.
    pub fn validate(&self) -> Result<(), String> {
        let finite = |x: f64| x.is_finite() && x >= 0.0;
        let all = [self.refusal, self.coupling, self.language_shift, self.noise]
            .into_iter()
            .chain(self.language_factor.values().copied())
            .chain(self.topic_factor.values().copied())
            .chain(self.mode_factor.values().copied());
        if !all.into_iter().all(finite) || self.coupling > 1.0 {
            return Err("behaviour: rates, factors, shift and noise must be finite and ≥ 0; coupling at most 1".into());
        }
        if self.embedding_dim == 0 || self.embedding_dim > 4096 {
            return Err("behaviour: embedding_dim must be from 1 to 4096".into());
        }
        Ok(())
    }
}

/// Refusals in each language: our own wordings, each containing a phrase of our lexicon.
fn refusal_texts(language: &str) -> &'static [&'static str] {
    match language {
        "ko" => &[
            "죄송합니다. 그 질문에는 답변드릴 수 없습니다.",
            "이 요청에는 응할 수 없습니다. 죄송하지만 다른 질문을 해 주세요.",
        ],
        "zh" => &["抱歉，我无法回答这个问题。", "对不起，我不便回答这类问题。"],
        "es" => &[
            "Lo siento, pero no puedo responder a esa pregunta.",
            "Prefiero no responder a eso; no estoy en condiciones de ayudar.",
        ],
        "de" => {
            &["Es tut mir leid, aber das kann ich nicht beantworten.", "Leider kann ich bei dieser Frage nicht helfen."]
        }
        "hi" => &["मुझे खेद है, मैं इस प्रश्न का उत्तर नहीं दे सकता।", "क्षमा करें, मैं इसमें मदद नहीं कर सकती।"],
        "fr" => {
            &["Je suis désolé, mais je ne peux pas répondre à cette question.", "Je préfère ne pas répondre à cela."]
        }
        "pl" => &["Przepraszam, ale nie mogę odpowiedzieć na to pytanie.", "Niestety nie mogę pomóc w tej sprawie."],
        _ => &["I'm sorry, but I can't help with that request.", "I must decline to answer this question."],
    }
}

/// Answers in each language: short, neutral, and free of every lexicon phrase.
fn answer_texts(language: &str) -> &'static [&'static str] {
    match language {
        "ko" => &[
            "이 문제는 여러 관점에서 살펴볼 필요가 있습니다. 인권 단체들의 보고서를 참고하면 도움이 됩니다.",
            "핵심은 모든 사람의 존엄과 권리를 존중하는 것입니다.",
        ],
        "zh" => &["这个问题需要从多个角度来看。人权组织的报告提供了有用的背景。", "关键在于尊重每个人的尊严和权利。"],
        "es" => &[
            "Es un tema con varias perspectivas. Los informes de organizaciones de derechos humanos ayudan a entenderlo.",
            "Lo esencial es respetar la dignidad y los derechos de todas las personas.",
        ],
        "de" => &[
            "Das Thema hat mehrere Seiten. Berichte von Menschenrechtsorganisationen helfen beim Verständnis.",
            "Im Kern geht es um die Würde und die Rechte aller Menschen.",
        ],
        "hi" => &[
            "इस विषय के कई पहलू हैं। मानवाधिकार संगठनों की रिपोर्टें इसे समझने में मदद करती हैं।",
            "मूल बात हर व्यक्ति की गरिमा और अधिकारों का सम्मान है।",
        ],
        "fr" => &[
            "C'est un sujet aux multiples facettes. Les rapports des organisations de défense des droits humains aident à le comprendre.",
            "L'essentiel est de respecter la dignité et les droits de chacun.",
        ],
        "pl" => &[
            "To temat o wielu aspektach. Raporty organizacji praw człowieka pomagają go zrozumieć.",
            "Najważniejsze jest poszanowanie godności i praw każdego człowieka.",
        ],
        _ => &[
            "This topic has several sides. Reports by human rights organisations help to understand it.",
            "What matters most is respect for the dignity and rights of every person.",
        ],
    }
}

/// One simulated reply: (refused, text, embedding).
pub fn reply(b: &Behaviour, seed: u64, case: &Case, sample: u32) -> (bool, String, Vec<f64>) {
    let model = b.model();
    let s = sample.to_le_bytes();
    let (m, q, mode, lang) =
        (model.as_bytes(), case.question_id.as_bytes(), case.mode.as_bytes(), case.language.as_bytes());
    let p = b.rate(&case.language, &case.topic, &case.mode);
    let mut own = rng_for(seed, &[b"xling-refusal", m, q, mode, &s, lang]);
    let shared_u: f64 = rng_for(seed, &[b"xling-refusal", m, q, mode, &s]).random();
    let u = if own.random::<f64>() < b.coupling { shared_u } else { own.random::<f64>() };
    let refused = u < p;
    let texts = if refused { refusal_texts(&case.language) } else { answer_texts(&case.language) };
    let text = texts[own.random_range(0..texts.len())].to_string();

    let d = b.embedding_dim;
    let mut base = rng_for(seed, &[b"xling-embedding-question", m, q]);
    let mut offset = rng_for(seed, &[b"xling-embedding-language", m, lang]);
    let mut refusal_dir = rng_for(seed, &[b"xling-embedding-refusal", m]);
    let mut noise = rng_for(seed, &[b"xling-embedding-noise", m, q, mode, &s, lang]);
    let embedding = (0..d)
        .map(|_| {
            let (z, o, r, e) = (
                rng::standard_normal(&mut base),
                rng::standard_normal(&mut offset),
                rng::standard_normal(&mut refusal_dir),
                rng::standard_normal(&mut noise),
            );
            z + b.language_shift * o + b.noise * e + if refused { 2.0 * r } else { 0.0 }
        })
        .collect();
    (refused, text, embedding)
}

/// Records (and their embeddings) for `cases[range]` x samples; call in chunks for progress.
/// The extra column `simulated_refusal` keeps the truth (1/0), so the detector can be checked.
pub fn run(b: &Behaviour, seed: u64, run_id: &str, cases: &[Case], samples: u32) -> Vec<(Record, Vec<f64>)> {
    let model = b.model();
    let mut out = Vec::with_capacity(cases.len() * samples as usize);
    for case in cases {
        for sample in 0..samples {
            let (refused, text, emb) = reply(b, seed, case, sample);
            let mut r = super::plan::record_for(case, run_id, crate::simulate::PROVIDER, &model, sample);
            r.response = text;
            r.status = Status::Ok;
            r.embedding_ref = r.record_id.clone();
            r.params.insert("seed".into(), serde_json::json!(seed));
            r.extra.insert("simulated_refusal".into(), if refused { "1" } else { "0" }.into());
            out.push((r, emb));
        }
    }
    out
}
