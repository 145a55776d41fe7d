//! Inspect logs (UK AI Security Institute's inspect_ai): the `.eval` archive (a zip of
//! `header.json`, `samples/<id>_epoch_<n>.json`, `summaries.json`, `_journal/...`) and the `.json`
//! log (one document: `version`, `status`, `eval`, `plan`, `results`, `stats`, `samples`). Log
//! format versions 1 and 2 are read; any other is refused with its number. A sample's epochs are
//! samples of their own (`epoch`); its scores are read per scorer, with Inspect's letter values
//! taken as it takes them (C = 1, I = 0, P = 0.5, N = 0).

use super::{Harness, Log, LogError, Problems, Reported, Sample, parse_json, text_of};
use serde_json::{Map, Value};
use std::io::{Cursor, Read};

/// The log format versions this reader knows.
const VERSIONS: [u64; 2] = [1, 2];

/// A zip whose members include Inspect's header or journal.
pub fn is_eval_zip(bytes: &[u8]) -> bool {
    match zip::ZipArchive::new(Cursor::new(bytes)) {
        Ok(z) => z.file_names().flatten().any(|n| n == "header.json" || n == "_journal/start.json"),
        // A cut archive has no central directory: its first local header still names a member.
        Err(_) => {
            let head = &bytes[..bytes.len().min(512)];
            [&b"_journal/start.json"[..], b"header.json", b"samples/"]
                .iter()
                .any(|name| head.windows(name.len()).any(|w| w == *name))
        }
    }
}

/// Reads an `.eval` archive.
pub fn read_eval(file: &str, bytes: &[u8]) -> Result<Log, LogError> {
    let mut p = Problems::new(file);
    let mut zip = match zip::ZipArchive::new(Cursor::new(bytes)) {
        Ok(z) => z,
        Err(e) => {
            p.push("", 0, "", format!("not a complete zip archive (a cut or damaged .eval file?): {e}"));
            return p.finish(Log::default());
        }
    };
    let names: Vec<String> = zip.file_names().flatten().map(String::from).collect();
    if !names.iter().any(|n| n == "header.json") {
        let why = if names.iter().any(|n| n == "_journal/start.json") {
            "no header.json: the run had not finished when this file was copied (Inspect writes header.json at the end)"
        } else {
            "no header.json"
        };
        p.push("", 0, "header.json", why);
        return p.finish(Log::default());
    }
    let limit = 64 * (bytes.len() as u64) + (1 << 20);
    let mut member = |name: &str, p: &mut Problems| -> Option<Value> {
        match read_member(&mut zip, name, limit) {
            Ok(buf) => parse_json(p, name, &buf),
            Err(e) => {
                p.push(name, 0, "", format!("cannot be read from the archive: {e}"));
                None
            }
        }
    };
    let Some(header) = member("header.json", &mut p) else { return p.finish(Log::default()) };
    let mut log = header_log(file, "header.json", &header, &mut p)?;
    let mut sample_names: Vec<(String, String, u32)> = names
        .iter()
        .filter_map(|n| {
            let stem = n.strip_prefix("samples/")?.strip_suffix(".json")?;
            let (id, epoch) = stem.rsplit_once("_epoch_")?;
            Some((n.clone(), id.to_string(), epoch.parse().ok()?))
        })
        .collect();
    sort_samples(&mut sample_names);
    let primary = primary_scorer(&header);
    for (name, _, _) in &sample_names {
        if let Some(v) = member(name, &mut p)
            && let Some(s) = sample(&v, name, 0, &log.model, &primary, &mut p)
        {
            log.samples.push(s);
        }
    }
    finish(log, &header, p)
}

/// A member's bytes: deflated or stored ones through the zip crate, Zstandard ones decoded
/// here. `limit` caps what a member may inflate to (a damaged size field, or a bomb).
fn read_member(zip: &mut zip::ZipArchive<Cursor<&[u8]>>, name: &str, limit: u64) -> Result<Vec<u8>, String> {
    let method = zip.by_name_raw(name.as_bytes()).map_err(|e| e.to_string())?.compression();
    let mut buf = vec![];
    if method == zip::CompressionMethod::ZSTD {
        let mut raw = zip.by_name_raw(name.as_bytes()).map_err(|e| e.to_string())?;
        let (size, crc) = (raw.size(), raw.crc32());
        if size > limit {
            return Err(format!("declares {size} bytes, far more than the archive could hold"));
        }
        let mut compressed = vec![];
        raw.read_to_end(&mut compressed).map_err(|e| e.to_string())?;
        let decoder =
            ruzstd::decoding::StreamingDecoder::new(compressed.as_slice()).map_err(|e| format!("Zstandard: {e}"))?;
        decoder.take(limit + 1).read_to_end(&mut buf).map_err(|e| format!("Zstandard: {e}"))?;
        if buf.len() as u64 != size || crc32fast::hash(&buf) != crc {
            return Err(format!(
                "its data does not match its size or CRC-32 ({} bytes read, {size} declared): a damaged archive",
                buf.len()
            ));
        }
        return Ok(buf);
    }
    let mut f = zip.by_name(name).map_err(|e| e.to_string())?;
    if f.size() > limit {
        return Err(format!("declares {} bytes, far more than the archive could hold", f.size()));
    }
    f.read_to_end(&mut buf).map_err(|e| e.to_string())?;
    Ok(buf)
}

/// Reads a `.json` log.
pub fn read_json(file: &str, bytes: &[u8]) -> Result<Log, LogError> {
    let mut p = Problems::new(file);
    let Some(doc) = parse_json(&mut p, "", bytes) else { return p.finish(Log::default()) };
    let mut log = header_log(file, "", &doc, &mut p)?;
    let primary = primary_scorer(&doc);
    match doc.get("samples") {
        Some(Value::Array(items)) => {
            for (i, v) in items.iter().enumerate() {
                if let Some(s) = sample(v, "", i, &log.model, &primary, &mut p) {
                    log.samples.push(s);
                }
            }
        }
        None | Some(Value::Null) => {}
        Some(_) => p.push("", 0, "samples", "expected a list of samples"),
    }
    finish(log, &doc, p)
}

fn finish(mut log: Log, doc: &Value, p: Problems) -> Result<Log, LogError> {
    if log.samples.is_empty() && p.is_empty() {
        log.notes.push(
            "the log has no samples (written with --no-log-samples?): only its reported figures can be shown".into(),
        );
    }
    if let Some(total) = doc.pointer("/results/total_samples").and_then(Value::as_u64) {
        let epochs = doc.pointer("/eval/config/epochs").and_then(Value::as_u64).unwrap_or(1).max(1);
        if (log.samples.len() as u64) < total * epochs && !log.samples.is_empty() {
            log.notes.push(format!(
                "the log holds {} sample(s) of the {} the run scored",
                log.samples.len(),
                total * epochs
            ));
        }
    }
    p.finish(log)
}

/// Numeric order of ids and epochs where they are numbers, so that 10 follows 9.
fn sort_samples(names: &mut [(String, String, u32)]) {
    names.sort_by(|a, b| {
        let key = |id: &str| id.parse::<u64>().map_or((1, 0, id.to_string()), |n| (0, n, String::new()));
        key(&a.1).cmp(&key(&b.1)).then(a.2.cmp(&b.2))
    });
}

/// The log's version, status, task, model and reported figures.
fn header_log(file: &str, at: &str, doc: &Value, p: &mut Problems) -> Result<Log, LogError> {
    let version = doc.get("version").map(text_of).unwrap_or_default();
    if !doc.get("version").and_then(Value::as_u64).is_some_and(|v| VERSIONS.contains(&v)) {
        return Err(LogError::Version {
            file: file.into(),
            harness: Harness::Inspect.title().into(),
            version: if version.is_empty() { "(none)".into() } else { version },
            known: "1 and 2".into(),
        });
    }
    let eval = doc.get("eval").and_then(Value::as_object);
    if eval.is_none() {
        p.push(at, 0, "eval", "expected the eval object (task, model, dataset)");
    }
    let get = |key: &str| eval.and_then(|e| e.get(key)).map(text_of).unwrap_or_default();
    let mut log = Log {
        file: file.into(),
        harness: Some(Harness::Inspect),
        format_version: version,
        tool_version: doc.pointer("/eval/packages/inspect_ai").map(text_of).unwrap_or_default(),
        task: get("task"),
        model: get("model"),
        ..Log::default()
    };
    if log.model.is_empty() {
        p.push(at, 0, "eval.model", "missing");
    }
    for (key, pointer) in [
        ("epochs", "/eval/config/epochs"),
        ("seed", "/eval/config/seed"),
        ("task_args", "/eval/task_args"),
        ("model_args", "/eval/model_args"),
        ("dataset", "/eval/dataset/name"),
        ("created", "/eval/created"),
    ] {
        if let Some(v) = doc.pointer(pointer).filter(|v| !v.is_null() && v.as_object().is_none_or(|o| !o.is_empty())) {
            log.settings.insert(key.into(), text_of(v));
        }
    }
    let status = doc.get("status").map(text_of).unwrap_or_default();
    match status.as_str() {
        "success" => {}
        "started" => p.push(at, 0, "status", "the run is still going (status \"started\"): its samples are not final"),
        "" => {}
        other => log.notes.push(format!(
            "the run ended with status {other:?}: the samples it finished are read, the others are not in the log"
        )),
    }
    if let Some(scores) = doc.pointer("/results/scores").and_then(Value::as_array) {
        for s in scores {
            let scorer = s.get("name").map(text_of).unwrap_or_default();
            let Some(metrics) = s.get("metrics").and_then(Value::as_object) else { continue };
            let stderr = metrics.get("stderr").and_then(|m| m.get("value")).and_then(Value::as_f64);
            for (name, m) in metrics.iter().filter(|(n, _)| n.as_str() != "stderr") {
                if let Some(value) = m.get("value").and_then(Value::as_f64) {
                    log.reported.push(Reported {
                        task: log.task.clone(),
                        metric: format!("{scorer}/{name}"),
                        value,
                        stderr: if name == "accuracy" { stderr } else { None },
                    });
                }
            }
        }
    }
    Ok(log)
}

/// The scorer whose value decides pass or fail: the first the results list, else the first a
/// sample has (in name order).
fn primary_scorer(doc: &Value) -> String {
    doc.pointer("/results/scores/0/name")
        .or_else(|| doc.pointer("/eval/scorers/0/name"))
        .map(text_of)
        .unwrap_or_default()
}

/// Text of a message's content: a string, or the text parts of a list.
fn content_text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Array(parts) => {
            parts.iter().filter_map(|part| part.get("text").and_then(Value::as_str)).collect::<Vec<_>>().join("\n")
        }
        _ => String::new(),
    }
}

/// Inspect's value of a score as a number: C 1, I 0, P 0.5, N 0; booleans and numbers as they are.
fn score_number(v: &Value) -> Option<f64> {
    match v {
        Value::String(s) => match s.as_str() {
            "C" => Some(1.0),
            "I" | "N" => Some(0.0),
            "P" => Some(0.5),
            other => other.trim().parse().ok(),
        },
        Value::Bool(b) => Some(f64::from(u8::from(*b))),
        Value::Number(n) => n.as_f64(),
        _ => None,
    }
}

/// A letter answer ("B", "ANSWER: B") as an option index.
fn letter_index(text: &str, choices: usize) -> Option<usize> {
    let t = text.trim();
    let t = t.strip_prefix("ANSWER:").map_or(t, str::trim);
    let mut chars = t.chars();
    match (chars.next(), chars.next()) {
        (Some(c @ 'A'..='Z'), None) => Some(c as usize - 'A' as usize).filter(|&i| i < choices),
        _ => None,
    }
}

fn sample(v: &Value, member: &str, index: usize, model: &str, primary: &str, p: &mut Problems) -> Option<Sample> {
    let field = |name: &str| if member.is_empty() { format!("samples[{index}].{name}") } else { name.to_string() };
    let Some(obj) = v.as_object() else {
        p.push(member, 0, field("").trim_end_matches('.'), "expected a sample object");
        return None;
    };
    let mut bad = false;
    let mut need = |name: &str| -> Option<&Value> {
        let found = obj.get(name).filter(|v| !v.is_null());
        if found.is_none() {
            p.push(member, 0, &field(name), "missing");
            bad = true;
        }
        found
    };
    let id = need("id").map(text_of).unwrap_or_default();
    let epoch = need("epoch").and_then(Value::as_u64).unwrap_or(1) as u32;
    let input = match need("input") {
        Some(Value::Array(messages)) => messages
            .iter()
            .filter(|m| m.get("role").and_then(Value::as_str) == Some("user"))
            .map(|m| m.get("content").map(content_text).unwrap_or_default())
            .collect::<Vec<_>>()
            .join("\n"),
        Some(other) => text_of(other),
        None => String::new(),
    };
    let error = obj.get("error").and_then(|e| e.get("message").or(Some(e))).map(text_of).unwrap_or_default();
    let scores_value = obj.get("scores").filter(|v| !v.is_null());
    let scores_obj = match scores_value {
        Some(Value::Object(s)) => Some(s),
        Some(_) => {
            p.push(member, 0, &field("scores"), "expected an object of scorer -> score");
            bad = true;
            None
        }
        None if error.is_empty() => {
            p.push(
                member,
                0,
                &field("scores"),
                "missing: the sample was not scored (the log was written before scoring, or cut)",
            );
            bad = true;
            None
        }
        None => None,
    };
    if bad {
        return None;
    }
    let choices: Vec<String> =
        obj.get("choices").and_then(Value::as_array).map(|c| c.iter().map(text_of).collect()).unwrap_or_default();
    let target = match obj.get("target") {
        Some(Value::Array(t)) => t.iter().map(text_of).collect::<Vec<_>>().join("|"),
        Some(t) => text_of(t),
        None => String::new(),
    };
    let output = obj
        .get("output")
        .and_then(|o| o.pointer("/choices/0/message/content").or_else(|| o.get("completion")))
        .map(content_text)
        .unwrap_or_default();
    let mut s = Sample {
        at: if member.is_empty() { format!("samples[{index}]") } else { member.to_string() },
        gold: letter_index(&target, choices.len()),
        id,
        epoch,
        model: model.to_string(),
        input,
        choices,
        target,
        output,
        fields: obj.get("metadata").and_then(Value::as_object).cloned().unwrap_or_else(Map::new),
        error,
        ..Sample::default()
    };
    if let Some(scores) = scores_obj {
        let primary = if scores.contains_key(primary) { primary } else { scores.keys().next().map_or("", |k| k) };
        for (scorer, score) in scores {
            let value = score.get("value").unwrap_or(&Value::Null);
            match value {
                Value::Object(parts) => {
                    for (k, v) in parts {
                        if let Some(x) = score_number(v) {
                            s.scores.insert(format!("{scorer}/{k}"), x);
                        }
                    }
                }
                other => {
                    if let Some(x) = score_number(other) {
                        s.scores.insert(scorer.clone(), x);
                    }
                }
            }
            if scorer == primary {
                s.passed = match value {
                    Value::String(v) if v == "C" => Some(true),
                    Value::String(v) if v == "I" || v == "N" => Some(false),
                    Value::Bool(b) => Some(*b),
                    Value::Number(n) if n.as_f64() == Some(1.0) => Some(true),
                    Value::Number(n) if n.as_f64() == Some(0.0) => Some(false),
                    _ => None,
                };
                s.reason = score.get("explanation").map(text_of).unwrap_or_default();
                if let Some(answer) = score.get("answer").map(text_of) {
                    s.prediction = letter_index(&answer, s.choices.len());
                }
            }
        }
    }
    if s.prediction.is_none() && !s.choices.is_empty() {
        s.prediction = letter_index(&s.output, s.choices.len());
    }
    Some(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn letters_and_scores_read_as_inspect_reads_them() {
        assert_eq!(letter_index("ANSWER: C", 3), Some(2));
        assert_eq!(letter_index("D", 3), None);
        assert_eq!(letter_index("The answer", 3), None);
        assert_eq!(score_number(&Value::from("P")), Some(0.5));
        assert_eq!(score_number(&Value::from(true)), Some(1.0));
    }

    #[test]
    fn unknown_versions_are_refused_by_number() {
        let e = read_json(
            "x.json",
            br#"{"version": 7, "status": "success", "eval": {"task": "t", "model": "m"}, "samples": []}"#,
        )
        .unwrap_err();
        assert!(matches!(&e, LogError::Version { version, .. } if version == "7"), "{e}");
        assert!(e.to_string().contains("version 7"), "{e}");
    }

    #[test]
    fn a_sample_without_scores_is_refused_where_it_is() {
        let doc = br#"{"version": 2, "status": "success", "eval": {"task": "t", "model": "m"},
            "samples": [{"id": 1, "epoch": 1, "input": "q", "target": "A", "scores": {"s": {"value": "C"}}},
                        {"id": 2, "epoch": 1, "input": "q", "target": "A"}]}"#;
        let e = read_json("x.json", doc).unwrap_err();
        let problems = e.problems();
        assert_eq!(problems.len(), 1, "{problems:?}");
        assert_eq!(problems[0].field.as_deref(), Some("samples[1].scores"));
    }
}
