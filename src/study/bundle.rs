//! A study's exports besides the report: the bundle (the study, the input files it names, every
//! record and a manifest, in one JSON file that rebuilds the same report anywhere) and the share
//! link: the study alone, deflated into a URL fragment (`s1.`), enough to rebuild a study whose
//! targets are all simulated; for any other, the whole bundle deflated (`b1.`) when it fits a
//! link's practical size, and otherwise no link: the receiver needs the bundle file.

use super::format::{Study, sha256};
use super::session::RecordSource;
use super::{Session, StudyError};
use base64::Engine;
use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;

pub const FORMAT: &str = "evenhand-study-bundle";
pub const VERSION: u32 = 1;
const SHARE_PREFIX: &str = "s1.";
const BUNDLE_PREFIX: &str = "b1.";
/// The longest link made (characters of the fragment). A fragment never reaches a server, so
/// servers' limits on a URL (8 KB and less) do not apply; browsers keep and show links of this
/// length whole, and chat and mail programs carry them.
pub const LINK_LIMIT: usize = 32_000;
/// Far above any real link; stops a crafted fragment from inflating into a huge buffer.
const MAX_INFLATED: usize = 1 << 20;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Manifest {
    pub records: usize,
    pub by_method: BTreeMap<String, usize>,
    /// SHA-256 of the records as written in this bundle (compact JSON array).
    pub records_sha256: String,
    pub sources: Vec<Source>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Source {
    pub name: String,
    pub origin: super::session::Origin,
    pub records: usize,
    pub sha256: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Bundle {
    pub format: String,
    pub version: u32,
    pub tool_version: String,
    pub study: Study,
    /// The input files the study names, base64.
    #[serde(default)]
    pub files: BTreeMap<String, String>,
    pub records: Vec<Value>,
    pub manifest: Manifest,
    /// Refusal labels given by hand (record id -> refusal), when there are any.
    #[serde(default, skip_serializing_if = "crate::trust::labels::Labels::is_empty")]
    pub labels: crate::trust::labels::Labels,
}

pub fn make(s: &Session) -> Bundle {
    let records: Vec<Value> = s.records.iter().map(|r| Value::Object(crate::formats::row::to_json(r))).collect();
    let mut by_method = BTreeMap::new();
    for r in &s.records {
        *by_method.entry(r.method.clone()).or_default() += 1;
    }
    Bundle {
        format: FORMAT.into(),
        version: VERSION,
        tool_version: crate::VERSION.into(),
        study: s.study.clone(),
        files: s.uploads.iter().map(|(k, v)| (k.clone(), STANDARD.encode(v))).collect(),
        manifest: Manifest {
            records: records.len(),
            by_method,
            records_sha256: sha256(serde_json::to_string(&records).unwrap_or_default().as_bytes()),
            sources: s
                .sources
                .iter()
                .map(|x| Source {
                    name: x.name.clone(),
                    origin: x.origin,
                    records: x.records,
                    sha256: x.sha256.clone(),
                })
                .collect(),
        },
        records,
        labels: s.labels.clone(),
    }
}

/// Opens a bundle: the study, its files and its records, checked against the manifest.
pub fn open(file: &str, text: &str) -> Result<Session, StudyError> {
    let bad = |m: String| StudyError::Bundle(format!("{file}: {m}"));
    let value: Value = serde_json::from_str(text.trim_start_matches('\u{feff}'))
        .map_err(|e| bad(format!("line {}, column {}: not JSON: {e}", e.line(), e.column())))?;
    let format = value.get("format").and_then(Value::as_str).unwrap_or("");
    if format != FORMAT {
        return Err(bad(format!("field format: expected \"{FORMAT}\", found {format:?}")));
    }
    let version = value.get("version").and_then(Value::as_u64).unwrap_or(0);
    if version != u64::from(VERSION) {
        return Err(bad(format!("field version: this Evenhand reads study bundle version {VERSION}, found {version}")));
    }
    let b: Bundle =
        serde_path_to_error::deserialize(value).map_err(|e| bad(format!("field {}: {}", e.path(), e.inner())))?;
    let study_text = serde_json::to_string(&b.study).unwrap_or_default();
    let mut s = Session::open(file, &study_text)?;
    for (name, data) in &b.files {
        let bytes = STANDARD.decode(data).map_err(|e| bad(format!("field files.{name}: not base64: {e}")))?;
        s.add_file(name, &bytes)?;
    }
    let records_text = serde_json::to_string(&b.records).unwrap_or_default();
    if sha256(records_text.as_bytes()) != b.manifest.records_sha256 {
        return Err(bad("the records do not match the manifest's records_sha256 (edited or truncated?)".into()));
    }
    let loaded = crate::formats::json_records::read_json(file, &records_text).map_err(|e| bad(e.to_string()))?;
    if let Some(p) = loaded.errors.first() {
        return Err(bad(format!("records: {p}")));
    }
    s.records = loaded.records;
    s.labels = b.labels;
    s.sources = b
        .manifest
        .sources
        .iter()
        .map(|x| RecordSource {
            name: x.name.clone(),
            origin: x.origin,
            records: x.records,
            sha256: x.sha256.clone(),
            repeated: 0,
            held: Default::default(),
        })
        .collect();
    Ok(s)
}

/// The share link's fragment: the study, deflated and base64url-encoded.
pub fn share_fragment(s: &Session) -> String {
    let json = serde_json::to_vec(&s.study).unwrap_or_default();
    format!("{SHARE_PREFIX}{}", URL_SAFE_NO_PAD.encode(miniz_oxide::deflate::compress_to_vec(&json, 9)))
}

/// What a share link of this study does not carry, so that a receiver could not rebuild its
/// report from the link: the answers of each provider target, and each file the study names.
/// Empty when the link rebuilds the report (every target simulated, every input built in).
pub fn share_lacks(s: &Session) -> Vec<String> {
    let mut out: Vec<String> =
        s.study.targets.iter().filter(|t| !t.is_simulated()).map(|t| format!("the answers of {t}")).collect();
    // A fresh session of the same study lists every file it names (none is added there).
    if let Ok(fresh) = Session::open("share link", &serde_json::to_string(&s.study).unwrap_or_default()) {
        out.extend(fresh.missing().into_iter().map(|(field, file)| format!("the file {file} ({field})")));
    }
    // A simulated study's link answers it again, which would drop a local model's verdicts:
    // they travel only inside the records (the bundle, or a bundle link when it fits).
    let nli = crate::crosslingual::detect::NLI_MODEL_COLUMN;
    if s.records.iter().any(|r| r.extra.get(nli).is_some_and(|v| !v.trim().is_empty())) {
        out.push(format!("the NLI detector's verdicts (the records' {nli} columns)"));
    }
    out
}

/// A link that rebuilds the report, or what it could not carry: the study alone when that is
/// enough, else the bundle (study, files, records) deflated when it fits [`LINK_LIMIT`].
pub fn share_link(s: &Session) -> Result<String, Vec<String>> {
    let lacks = share_lacks(s);
    if lacks.is_empty() {
        return Ok(share_fragment(s));
    }
    let json = serde_json::to_vec(&make(s)).unwrap_or_default();
    let link = format!("{BUNDLE_PREFIX}{}", URL_SAFE_NO_PAD.encode(miniz_oxide::deflate::compress_to_vec(&json, 9)));
    if link.len() <= LINK_LIMIT { Ok(link) } else { Err(lacks) }
}

/// Opens a share link; a study whose targets are all simulated and whose inputs are built in
/// is simulated again, which rebuilds the same records and so the same report.
pub fn open_share(fragment: &str) -> Result<Session, StudyError> {
    let bad = |m: &str| StudyError::Bundle(format!("share link: {m}"));
    let fragment = fragment.trim_start_matches('#');
    let (body, bundled) = match (fragment.strip_prefix(SHARE_PREFIX), fragment.strip_prefix(BUNDLE_PREFIX)) {
        (Some(b), _) => (b, false),
        (None, Some(b)) => (b, true),
        _ => return Err(bad(&format!("expected a fragment starting with \"{SHARE_PREFIX}\" or \"{BUNDLE_PREFIX}\""))),
    };
    let packed = URL_SAFE_NO_PAD.decode(body.trim()).map_err(|e| bad(&format!("not valid base64url: {e}")))?;
    let json = miniz_oxide::inflate::decompress_to_vec_with_limit(&packed, MAX_INFLATED)
        .map_err(|_| bad("the fragment does not inflate (truncated link?)"))?;
    let text = String::from_utf8(json).map_err(|_| bad("not UTF-8"))?;
    if bundled {
        return open("share link", &text);
    }
    let mut s = Session::open("share link", &text)?;
    if s.study.targets.iter().all(|t| t.is_simulated()) && s.missing().is_empty() {
        s.simulate()?;
    }
    Ok(s)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::Record;

    #[test]
    fn bundle_and_share_link_rebuild_the_same_report() {
        let s = crate::study::example::session().unwrap();
        let want = serde_json::to_string(&s.report("T").unwrap()).unwrap();
        let text = serde_json::to_string(&make(&s)).unwrap();
        let back = open("b.json", &text).unwrap();
        assert_eq!(serde_json::to_string(&back.report("T").unwrap()).unwrap(), want);
        let link = share_fragment(&s);
        assert!(link.len() < 2000, "link is {} characters", link.len());
        let shared = open_share(&format!("#{link}")).unwrap();
        assert_eq!(serde_json::to_string(&shared.report("T").unwrap()).unwrap(), want);
        let tampered = text.replacen("\"response\":\"", "\"response\":\"x", 1);
        assert!(open("b.json", &tampered).unwrap_err().to_string().contains("records_sha256"));
        assert!(open_share("#s1.AAAA").is_err());
        assert_eq!(share_lacks(&s), Vec::<String>::new());
    }

    #[test]
    fn a_link_names_what_it_cannot_carry() {
        let text = crate::study::example::TEXT.replacen("\"simulated:skewed\"", "\"openai:gpt-4o\"", 1);
        assert_ne!(text, crate::study::example::TEXT, "the example names simulated:skewed");
        let s = Session::open("s.json", &text).unwrap();
        assert_eq!(share_lacks(&s), vec!["the answers of openai:gpt-4o".to_string()]);
        // Without records a link carries the whole (small) bundle, which opens with none.
        let link = share_link(&s).unwrap();
        assert!(link.starts_with(BUNDLE_PREFIX), "{link}");
        let back = open_share(&format!("#{link}")).unwrap();
        assert_eq!(back.study, s.study);
    }

    #[test]
    fn a_provider_study_link_carries_its_records_when_they_fit() {
        let text = crate::study::example::TEXT.replacen("\"simulated:skewed\"", "\"openai:gpt-4o\"", 1);
        let mut s = Session::open("s.json", &text).unwrap();
        // The example's simulated answers, relabelled as the provider's, stand in for a run.
        let sim = crate::study::example::session().unwrap();
        let mut rows: Vec<Record> = sim.records.iter().filter(|r| r.model == "sim:skewed").take(40).cloned().collect();
        for r in &mut rows {
            r.provider = "openai".into();
            r.model = "gpt-4o".into();
        }
        let jsonl = crate::formats::write(&rows, crate::formats::FileFormat::Jsonl);
        s.add_records("run.jsonl", jsonl.as_bytes(), None, super::super::session::Origin::Run).unwrap();
        let link = share_link(&s).unwrap();
        assert!(link.starts_with(BUNDLE_PREFIX) && link.len() <= LINK_LIMIT);
        let back = open_share(&link).unwrap();
        assert_eq!(back.records.len(), s.records.len());
        // Past the limit: no link, and what it would lack.
        let mut big = rows.clone();
        for (i, r) in big.iter_mut().enumerate() {
            r.record_id = format!("big-{i}");
            r.response = (0..2000).map(|j| char::from(b'a' + ((i * 7919 + j * 104_729) % 26) as u8)).collect();
        }
        let many: Vec<Record> = (0..20)
            .flat_map(|k| big.iter().map(move |r| Record { record_id: format!("{}-{k}", r.record_id), ..r.clone() }))
            .collect();
        let jsonl = crate::formats::write(&many, crate::formats::FileFormat::Jsonl);
        s.add_records("more.jsonl", jsonl.as_bytes(), None, super::super::session::Origin::Uploaded).unwrap();
        assert_eq!(share_link(&s).unwrap_err(), vec!["the answers of openai:gpt-4o".to_string()]);
    }
}
