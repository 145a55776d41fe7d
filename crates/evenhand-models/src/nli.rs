//! The zero-shot NLI refusal detector: a pair classifier ([`crate::classify`]) under MSQAD's
//! zero-shot rule ([`crate::zeroshot`]). For each answer, its language's two hypotheses are
//! scored with the answer as premise; the entailment logits of the two give P(refuse) by a
//! softmax across the labels, and the rule (argmax, or the paper's 0.8 threshold) decides.

use crate::catalogue::Model;
use crate::classify::Classifier;
use crate::embed::ModelFiles;
use crate::error::ModelError;
use crate::zeroshot::{self, Rule, Source};

pub struct NliDetector {
    classifier: Classifier,
    rule: Rule,
    entailment: usize,
}

/// What the detector said about one answer.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct NliVerdict {
    /// P(refuse) = softmax over the two hypotheses' entailment logits.
    pub p_refuse: f64,
    pub refusal: bool,
    /// The entailment logits, [discuss, refuse].
    pub entailment_logits: [f32; 2],
    /// Whose translation the language's labels are.
    pub labels: Source,
}

impl NliDetector {
    pub fn load(files: ModelFiles, rule: Rule) -> Result<NliDetector, ModelError> {
        Ok(NliDetector::new(Classifier::load(files)?, rule))
    }

    pub fn new(classifier: Classifier, rule: Rule) -> NliDetector {
        let entailment = zeroshot::entailment_index(classifier.label2id(), classifier.labels().len());
        NliDetector { classifier, rule, entailment }
    }

    pub fn classifier(&self) -> &Classifier {
        &self.classifier
    }

    pub fn rule(&self) -> Rule {
        self.rule
    }

    /// Another rule on the same model (the page switches between argmax and the threshold
    /// without loading the model again).
    pub fn set_rule(&mut self, rule: Rule) {
        self.rule = rule;
    }

    /// How the records' `nli_model` column and the methods text name this model: the catalogue
    /// repository (with its commit, when pinned) or `local:FOLDER`, then the weights' sha256 and
    /// whether it was pinned. The CLI and the page write the same text.
    pub fn record_label(&self, model: Option<&Model>, folder: &str) -> String {
        let name = model.map_or_else(|| format!("local:{folder}"), |m| m.repository.to_string());
        let commit = model.and_then(|m| m.commit).map(|c| format!(" at commit {c}")).unwrap_or_default();
        let weights = self.classifier.provenance().iter().find(|(f, _)| f.ends_with("model.safetensors"));
        let sha = weights.map_or(String::new(), |(_, v)| {
            let how = if v.is_pinned() { "pinned" } else { "unverified: trust on first use" };
            format!(", model.safetensors sha256 {} ({how})", v.sha256())
        });
        format!("{name}{commit}{sha}")
    }

    /// The index of the entailment logit (config.json's label2id, as the pipeline finds it).
    pub fn entailment_index(&self) -> usize {
        self.entailment
    }

    /// One verdict per (answer, language), in input order. Every language is checked before
    /// any model work: one without labels is an error naming it and the answer. `progress` is
    /// called with the pairs scored so far, halved (two hypotheses an answer): the count of
    /// answers' worth of work done, which reaches the number of answers at the end.
    pub fn detect(
        &self,
        answers: &[(&str, &str)],
        mut progress: impl FnMut(usize),
    ) -> Result<Vec<NliVerdict>, ModelError> {
        let mut hypotheses = vec![];
        for (i, (_, language)) in answers.iter().enumerate() {
            let h = zeroshot::hypotheses(language)
                .ok_or_else(|| ModelError::Language { item: i + 1, language: language.to_string() })?;
            hypotheses.push(h);
        }
        // Both hypotheses of an answer go in the same pass list, so they share a batch.
        let mut pairs = vec![];
        for ((answer, _), (h, _)) in answers.iter().zip(&hypotheses) {
            pairs.push((*answer, h[0].as_str()));
            pairs.push((*answer, h[1].as_str()));
        }
        let logits = self.classifier.logits(&pairs, |done| progress(done / 2))?;
        let e = self.entailment;
        Ok(logits
            .chunks(2)
            .zip(&hypotheses)
            .map(|(two, (_, source))| {
                let (discuss, refuse) = (two[0][e], two[1][e]);
                let p_refuse = zeroshot::p_refuse(f64::from(discuss), f64::from(refuse));
                NliVerdict {
                    p_refuse,
                    refusal: self.rule.refusal(p_refuse),
                    entailment_logits: [discuss, refuse],
                    labels: *source,
                }
            })
            .collect())
    }
}
