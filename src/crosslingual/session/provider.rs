//! The session's side of runs through providers (see [`crate::crosslingual::runs`]): the chat
//! cases out, the responses to embed out and their vectors back, the judge's cases out and
//! its replies back. Records of a run come back through [`Session::use_records`] or
//! [`Session::load_records`].

use super::{CasesRequest, MAX_CALLS, Session, SessionError};
use crate::crosslingual::{plan, runs};
use crate::formats;
use crate::record::Record;

impl Session {
    /// The chat cases of a provider run over the question set (see [`runs::chat_cases`]).
    pub fn run_cases(&self, r: &CasesRequest) -> Result<Vec<Record>, SessionError> {
        let (_, set) = self.set.as_ref().ok_or(SessionError::NoQuestions)?;
        let cases = plan::plan(set, &r.languages, &r.modes)?;
        if cases.len() > MAX_CALLS {
            return Err(SessionError::Invalid(format!("{} cases planned; at most {MAX_CALLS}", cases.len())));
        }
        Ok(runs::chat_cases(&cases))
    }

    /// The responses to embed: (id, text), those without a vector yet.
    pub fn embed_items(&self) -> Result<Vec<runs::EmbedItem>, SessionError> {
        self.embed_items_of(false)
    }

    /// The responses to embed; with `all`, every answered response, vector or not.
    pub fn embed_items_of(&self, all: bool) -> Result<Vec<runs::EmbedItem>, SessionError> {
        if self.data.records.is_empty() {
            return Err(SessionError::NoData);
        }
        runs::embed_items(&self.data, all).map_err(SessionError::Invalid)
    }

    /// The texts to embed as JSONL, one `{"id", "text"}` per line: what `evenhand run --embed`
    /// and the Run tab read ([`crate::run::embed_texts`]).
    pub fn embed_texts_jsonl(&self, all: bool) -> Result<String, SessionError> {
        let items = self.embed_items_of(all)?;
        if items.is_empty() {
            let why =
                if all { "no response has an answer to embed" } else { "every answered response has a vector already" };
            return Err(SessionError::Invalid(why.into()));
        }
        let mut out = String::new();
        for item in items {
            out.push_str(&serde_json::json!({"id": item.id, "text": item.text}).to_string());
            out.push('\n');
        }
        Ok(out)
    }

    /// The vectors of an embedding run in place of any earlier ones (vectors of two models
    /// cannot be compared). All or nothing: on an error the earlier vectors stay.
    pub fn replace_embeddings(&mut self, batch: &runs::EmbeddingBatch) -> Result<usize, SessionError> {
        if self.data.records.is_empty() {
            return Err(SessionError::NoData);
        }
        let mut fresh = self.data.clone();
        for (r, e) in fresh.records.iter_mut().zip(fresh.embeddings.iter_mut()) {
            *e = None;
            r.extra.remove(runs::EMBEDDING_MODEL_COLUMN);
        }
        let n = runs::attach_batch(&mut fresh, batch).map_err(SessionError::Invalid)?;
        // Same records, so an uploaded distance matrix still fits them.
        self.data = fresh;
        self.perm_run = None;
        self.permanova = None;
        Ok(n)
    }

    /// Vectors from an embedding run; returns how many records got one.
    pub fn add_embeddings(&mut self, batch: &runs::EmbeddingBatch) -> Result<usize, SessionError> {
        if self.data.records.is_empty() {
            return Err(SessionError::NoData);
        }
        let n = runs::attach_batch(&mut self.data, batch).map_err(SessionError::Invalid)?;
        self.perm_run = None;
        self.permanova = None;
        Ok(n)
    }

    /// Drops every vector (to embed again with another model).
    pub fn clear_embeddings(&mut self) {
        for (r, e) in self.data.records.iter_mut().zip(self.data.embeddings.iter_mut()) {
            *e = None;
            r.extra.remove(runs::EMBEDDING_MODEL_COLUMN);
        }
        self.perm_run = None;
        self.permanova = None;
    }

    /// The LLM judge's calls, one per answered response.
    pub fn judge_cases(&self) -> Result<Vec<Record>, SessionError> {
        if self.data.records.is_empty() {
            return Err(SessionError::NoData);
        }
        Ok(runs::judge_cases(&self.data))
    }

    /// A judge run's records: each reply becomes its record's judge verdict.
    pub fn apply_judge(&mut self, name: &str, records: &[Record]) -> Result<runs::JudgeSummary, SessionError> {
        if self.data.records.is_empty() {
            return Err(SessionError::NoData);
        }
        let s = runs::apply_judge(&mut self.data, name, records, &self.lexicon);
        if s.judge_records == 0 {
            return Err(SessionError::Invalid(format!(
                "{name}: no judge record (method {}, column {}) in it",
                runs::JUDGE_METHOD,
                runs::JUDGED_COLUMN
            )));
        }
        Ok(s)
    }

    /// A judge run's record file (CSV, JSONL or JSON).
    pub fn load_judge(&mut self, name: &str, bytes: &[u8]) -> Result<runs::JudgeSummary, SessionError> {
        let loaded = formats::load(name, bytes, None).map_err(|e| SessionError::File(e.to_string()))?;
        self.apply_judge(name, &loaded.records)
    }
}
