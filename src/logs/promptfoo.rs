//! promptfoo's results file (`promptfoo eval -o results.json`): `evalId`, `results` (format
//! `version`, `timestamp`, `prompts`, `results[]`, `stats`), `config` and `metadata`. Each
//! result is one test (a variable set) under one prompt and one provider: its `provider`,
//! `prompt`, `vars`, `response.output`, `success`, `score`, `gradingResult` (pass, score, reason,
//! the assertions' `componentResults`) and `testCase` (description, metadata). Results versions
//! 2 and 3 are read; any other is refused with its number.

use super::{Harness, Log, LogError, Problems, Reported, Sample, parse_json, text_of};
use serde_json::{Map, Value};

const VERSIONS: [u64; 2] = [2, 3];

/// Metadata keys that name a test's template or group, used as its cluster.
const CLUSTER_KEYS: [&str; 4] = ["template", "template_id", "cluster", "group"];

pub fn read(file: &str, bytes: &[u8]) -> Result<Log, LogError> {
    let mut p = Problems::new(file);
    let Some(doc) = parse_json(&mut p, "", bytes) else { return p.finish(Log::default()) };
    let Some(results) = doc.get("results").and_then(Value::as_object) else {
        p.push("", 0, "results", "expected the results object (version, results, stats)");
        return p.finish(Log::default());
    };
    let version = results.get("version").map(text_of).unwrap_or_default();
    if !results.get("version").and_then(Value::as_u64).is_some_and(|v| VERSIONS.contains(&v)) {
        return Err(LogError::Version {
            file: file.into(),
            harness: Harness::Promptfoo.title().into(),
            version: if version.is_empty() { "(none)".into() } else { version },
            known: "2 and 3".into(),
        });
    }
    let task = doc
        .pointer("/config/description")
        .map(text_of)
        .filter(|d| !d.is_empty())
        .unwrap_or_else(|| "promptfoo eval".into());
    let mut log = Log {
        file: file.into(),
        harness: Some(Harness::Promptfoo),
        format_version: version,
        tool_version: doc.pointer("/metadata/promptfooVersion").map(text_of).unwrap_or_default(),
        task: task.clone(),
        ..Log::default()
    };
    if let Some(id) = doc.get("evalId").map(text_of).filter(|i| !i.is_empty()) {
        log.settings.insert("evalId".into(), id);
    }
    if let Some(stats) = results.get("stats").and_then(Value::as_object) {
        for key in ["successes", "failures", "errors"] {
            if let Some(v) = stats.get(key).and_then(Value::as_f64) {
                log.reported.push(Reported { task: task.clone(), metric: key.into(), value: v, stderr: None });
            }
        }
    }
    let Some(items) = results.get("results").and_then(Value::as_array) else {
        p.push("", 0, "results.results", "expected a list of results");
        return p.finish(log);
    };
    for (i, r) in items.iter().enumerate() {
        if let Some(s) = result(r, i, &mut p) {
            log.samples.push(s);
        }
    }
    let mut seen = std::collections::HashSet::new();
    for s in &log.samples {
        if !seen.insert((s.id.clone(), s.model.clone())) {
            p.push(
                "",
                0,
                &format!("{}.testIdx", s.at),
                format!("test {} under provider {:?} appears twice", s.id, s.model),
            );
        }
    }
    if log.samples.is_empty() && p.is_empty() {
        p.push("", 0, "results.results", "no result in the file");
    }
    p.finish(log)
}

fn result(r: &Value, i: usize, p: &mut Problems) -> Option<Sample> {
    let at = format!("results.results[{i}]");
    let field = |name: &str| format!("{at}.{name}");
    let Some(obj) = r.as_object() else {
        p.push("", 0, &at, "expected a result object");
        return None;
    };
    let model = match obj.get("provider") {
        Some(Value::Object(prov)) => {
            let label = prov.get("label").map(text_of).unwrap_or_default();
            if label.is_empty() { prov.get("id").map(text_of).unwrap_or_default() } else { label }
        }
        Some(Value::String(s)) => s.clone(),
        _ => String::new(),
    };
    let test = obj.get("testIdx").and_then(Value::as_u64);
    let prompt_idx = obj.get("promptIdx").and_then(Value::as_u64);
    let mut ok = true;
    for (name, missing) in
        [("provider", model.is_empty()), ("testIdx", test.is_none()), ("promptIdx", prompt_idx.is_none())]
    {
        if missing {
            p.push("", 0, &field(name), "missing");
            ok = false;
        }
    }
    // `error` also holds a failed assertion's words; failureReason 2 (ERROR) marks a failed call.
    let failed_call = obj.get("failureReason").and_then(Value::as_u64) == Some(2);
    let error = if failed_call { obj.get("error").map(text_of).unwrap_or_default() } else { String::new() };
    let grading = obj.get("gradingResult").filter(|g| !g.is_null());
    let passed = grading
        .and_then(|g| g.get("pass"))
        .and_then(Value::as_bool)
        .or_else(|| obj.get("success").and_then(Value::as_bool));
    if passed.is_none() && error.is_empty() {
        p.push("", 0, &field("gradingResult"), "missing: the result has neither a grading result nor success");
        ok = false;
    }
    if !ok {
        return None;
    }
    let test_case = obj.get("testCase").and_then(Value::as_object);
    let mut fields: Map<String, Value> = obj
        .get("vars")
        .or_else(|| test_case.and_then(|t| t.get("vars")))
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default();
    let metadata = test_case.and_then(|t| t.get("metadata")).and_then(Value::as_object);
    let cluster = metadata
        .and_then(|m| CLUSTER_KEYS.iter().find_map(|k| m.get(*k)))
        .map(text_of)
        .unwrap_or_else(|| format!("test {}", test.unwrap_or(0)));
    if let Some(d) = test_case.and_then(|t| t.get("description")).filter(|d| !d.is_null()) {
        fields.entry("description".to_string()).or_insert_with(|| d.clone());
    }
    if let Some(m) = metadata {
        for (k, v) in m {
            fields.entry(k.clone()).or_insert_with(|| v.clone());
        }
    }
    let output = match obj.get("response").and_then(|r| r.get("output")) {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Null) | None => String::new(),
        Some(other) => other.to_string(),
    };
    let mut scores = std::collections::BTreeMap::new();
    if let Some(x) = obj.get("score").and_then(Value::as_f64) {
        scores.insert("score".to_string(), x);
    }
    if let Some(named) = obj.get("namedScores").and_then(Value::as_object) {
        for (k, v) in named {
            if let Some(x) = v.as_f64() {
                scores.insert(k.clone(), x);
            }
        }
    }
    Some(Sample {
        at,
        // promptIdx counts prompt x provider pairs, so it differs between providers: the
        // prompt's own id (a hash of its template) names the prompt instead.
        id: match obj.get("promptId").map(text_of).filter(|p| !p.is_empty()) {
            Some(prompt) => format!("{}:test{}", &prompt[..prompt.len().min(8)], test.unwrap_or(0)),
            None => format!("test{}", test.unwrap_or(0)),
        },
        epoch: 1,
        model,
        input: obj.get("prompt").and_then(|p| p.get("raw")).map(text_of).unwrap_or_default(),
        output,
        scores,
        passed,
        reason: grading.and_then(|g| g.get("reason")).map(text_of).unwrap_or_default(),
        cluster,
        fields,
        error,
        ..Sample::default()
    })
}
