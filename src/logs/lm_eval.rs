//! EleutherAI's lm-evaluation-harness: the per-sample file `--log_samples` writes
//! (`samples_<task>_<time>.jsonl`, one object per document: `doc_id`, `doc`, `target`,
//! `arguments`, `resps`, `filtered_resps`, `filter`, `metrics`, the hashes, and the task's
//! per-document metric values), read with the results JSON of the same run
//! (`results_<time>.json`: the model and its arguments, the seeds, the task versions and the
//! reported figures) when it is given.
//!
//! For multiple-choice tasks each choice is one log-likelihood request: `arguments` holds the
//! context and the choice's continuation, `filtered_resps` its `[log-likelihood, is_greedy]`.
//! The prediction is the argmax of the log-likelihoods (lm-eval's `acc`); where the task
//! reports `acc_norm`, the argmax of the log-likelihoods divided by each choice's length in
//! characters is kept beside it, as lm-eval computes it. The harness writes the numbers as text
//! in current versions and as numbers in older ones; both are read.

use super::{Harness, Log, LogError, Problems, Reported, Sample, argmax, parse_json, parse_text, text_of};
use serde_json::Value;

/// The harness versions whose files this reader knows (`lm_eval_version` in the results).
const KNOWN_MAJOR_MINOR: &str = "0.4";

/// `samples_<task>_<time>.jsonl` -> (task, time).
fn samples_name(file: &str) -> Option<(&str, &str)> {
    let base = file.rsplit(['/', '\\']).next()?;
    let stem = base.strip_prefix("samples_")?.strip_suffix(".jsonl")?;
    stem.rsplit_once('_')
}

/// `results_<time>.json` -> time.
fn results_time(file: &str) -> Option<&str> {
    file.rsplit(['/', '\\']).next()?.strip_prefix("results_")?.strip_suffix(".json")
}

/// Which of the results files belongs to a samples file: the one of the same time, else the
/// only one given.
pub fn companion_for(samples: &str, results: &[&str]) -> Option<usize> {
    let time = samples_name(samples).map(|(_, t)| t);
    results.iter().position(|r| time.is_some() && results_time(r) == time).or_else(|| (results.len() == 1).then_some(0))
}

/// A number lm-eval may write as text ("-2.5") or as a number.
fn number(v: &Value) -> Option<f64> {
    match v {
        Value::Number(n) => n.as_f64(),
        Value::String(s) => s.trim().parse().ok(),
        _ => None,
    }
}

/// The continuations of the requests, in request order: `arguments` is a list of argument
/// lists in older versions and `{"gen_args_0": {"arg_0": context, "arg_1": continuation}}` now.
fn continuations(arguments: &Value) -> Option<Vec<(String, String)>> {
    let pair = |args: Vec<&Value>| -> Option<(String, String)> {
        Some((args.first().map(|v| text_of(v))?, args.get(1).map(|v| text_of(v)).unwrap_or_default()))
    };
    match arguments {
        Value::Array(reqs) => reqs.iter().map(|r| pair(r.as_array()?.iter().collect())).collect(),
        Value::Object(reqs) => {
            let mut keyed: Vec<(usize, &Value)> = reqs
                .iter()
                .map(|(k, v)| Some((k.strip_prefix("gen_args_")?.parse().ok()?, v)))
                .collect::<Option<_>>()?;
            keyed.sort_by_key(|(i, _)| *i);
            keyed
                .into_iter()
                .map(|(_, r)| {
                    let args = r.as_object()?;
                    let mut a: Vec<(usize, &Value)> = args
                        .iter()
                        .map(|(k, v)| Some((k.strip_prefix("arg_")?.parse().ok()?, v)))
                        .collect::<Option<_>>()?;
                    a.sort_by_key(|(i, _)| *i);
                    pair(a.into_iter().map(|(_, v)| v).collect())
                })
                .collect()
        }
        _ => None,
    }
}

/// The log-likelihood of each request: `filtered_resps` is `[[ll, greedy], ...]`, `resps`
/// `[[[ll, greedy]], ...]`.
fn loglikelihoods(v: &Value) -> Option<Vec<f64>> {
    v.as_array()?
        .iter()
        .map(|r| {
            let mut r = r;
            // Unwrap the per-request list `resps` adds around each pair.
            while let Some(inner) = r.as_array().and_then(|a| a.first()).filter(|f| f.is_array()) {
                r = inner;
            }
            match r {
                Value::Array(pair) => pair.first().and_then(number),
                other => number(other),
            }
        })
        .collect()
}

/// Reads a samples file, with the results JSON of its run when given.
pub fn read_samples(file: &str, bytes: &[u8], companion: Option<(&str, &[u8])>) -> Result<Log, LogError> {
    let mut p = Problems::new(file);
    let text = match crate::formats::decode(file, bytes) {
        Ok(t) => t,
        Err(e) => {
            p.push("", 0, "", e.to_string());
            return p.finish(Log::default());
        }
    };
    let task = samples_name(file).map(|(t, _)| t.to_string()).unwrap_or_default();
    let mut log = Log {
        file: file.into(),
        harness: Some(Harness::LmEval),
        task: task.clone(),
        format_version: "samples JSONL".into(),
        ..Log::default()
    };
    match companion {
        Some((name, results)) => read_results(name, results, &mut log)?,
        None => {
            // lm-eval writes into <output_path>/<model name, sanitised>/: the folder names the model.
            let folder = file.rsplit(['/', '\\']).nth(1).filter(|f| !f.is_empty() && *f != ".");
            log.model = folder.map_or_else(|| "lm-eval model".to_string(), String::from);
            log.notes.push(format!(
                "no results JSON was given with {file}: the model is named {:?} after {}, and lm-eval's own figures are not shown",
                log.model,
                if folder.is_some() { "its folder" } else { "nothing in the file" }
            ));
        }
    }
    let norm = log.reported.iter().any(|r| r.metric == "acc_norm");
    let mut seen = std::collections::HashSet::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let at = i as u64 + 1;
        let Some(v) = parse_text(&mut p, "", at, line) else { continue };
        if let Some(s) = sample(&v, at, &log.model, &task, norm, &mut p) {
            if !seen.insert(s.id.clone()) {
                p.push("", at, "doc_id", format!("doc_id {} is logged twice", s.id));
                continue;
            }
            log.samples.push(s);
        }
    }
    if log.samples.is_empty() && p.is_empty() {
        p.push("", 0, "", "no sample in the file");
    }
    p.finish(log)
}

fn sample(v: &Value, at: u64, model: &str, task: &str, norm: bool, p: &mut Problems) -> Option<Sample> {
    let Some(obj) = v.as_object() else {
        p.push("", at, "", "expected a JSON object");
        return None;
    };
    let mut ok = true;
    let mut need = |name: &str| -> Option<&Value> {
        let found = obj.get(name).filter(|v| !v.is_null());
        if found.is_none() {
            p.push("", at, name, "missing");
            ok = false;
        }
        found
    };
    let id = need("doc_id").map(text_of).unwrap_or_default();
    let doc = need("doc").and_then(Value::as_object).cloned();
    let target = need("target").map(text_of).unwrap_or_default();
    let arguments = need("arguments").cloned();
    let resps = obj.get("filtered_resps").or_else(|| obj.get("resps")).filter(|v| !v.is_null()).cloned();
    if resps.is_none() {
        p.push("", at, "filtered_resps", "missing (and no resps): the sample has no model answers");
        ok = false;
    }
    let metrics: Vec<String> =
        obj.get("metrics").and_then(Value::as_array).map(|m| m.iter().map(text_of).collect()).unwrap_or_default();
    if !ok {
        return None;
    }
    let Some(doc) = doc else {
        p.push("", at, "doc", "expected the dataset row as an object");
        return None;
    };
    let Some(args) = arguments.as_ref().and_then(continuations) else {
        p.push("", at, "arguments", "expected a list of requests, or gen_args_<n> objects of arg_<n>");
        return None;
    };
    let resps = resps.unwrap_or_default();
    let mut s = Sample {
        at: format!("line {at}"),
        id,
        epoch: 1,
        model: model.to_string(),
        task: task.to_string(),
        input: args.first().map(|(c, _)| c.clone()).unwrap_or_default(),
        target: target.clone(),
        fields: doc,
        ..Sample::default()
    };
    for (name, value) in obj {
        if let Some(x) = value.as_f64().filter(|_| metrics.contains(name) || name.starts_with("acc")) {
            s.scores.insert(name.clone(), x);
        }
    }
    // Scored metrics are what make a line a result: a line without any was cut or not scored.
    if !metrics.is_empty() && !metrics.iter().any(|m| obj.contains_key(m)) {
        p.push(
            "",
            at,
            &metrics[0],
            format!("missing: the line lists the metrics {} but carries no value of them", metrics.join(", ")),
        );
        return None;
    }
    let multiple_choice = args.len() > 1 && args.iter().all(|(c, _)| *c == args[0].0);
    if multiple_choice {
        let Some(lls) = loglikelihoods(&resps) else {
            p.push("", at, "filtered_resps", "expected a [log-likelihood, is_greedy] pair per choice");
            return None;
        };
        if lls.len() != args.len() {
            p.push("", at, "filtered_resps", format!("{} log-likelihoods for {} choices", lls.len(), args.len()));
            return None;
        }
        // lm-eval puts its target delimiter (a space) before each choice in the request.
        s.choices = args.iter().map(|(_, cont)| cont.strip_prefix(' ').unwrap_or(cont).to_string()).collect();
        s.prediction = argmax(&lls);
        if norm {
            let normed: Vec<f64> =
                lls.iter().zip(&s.choices).map(|(ll, c)| ll / c.chars().count().max(1) as f64).collect();
            s.prediction_norm = argmax(&normed);
        }
        s.gold = target
            .trim()
            .parse::<usize>()
            .ok()
            .filter(|&g| g < s.choices.len())
            .or_else(|| s.choices.iter().position(|c| c.trim() == target.trim()));
        s.output = s.prediction.map(|i| s.choices[i].clone()).unwrap_or_default();
        s.loglikelihoods = lls;
        s.passed = s.gold.map(|g| s.prediction == Some(g));
    } else {
        // A generation task: the (filtered) response text.
        s.output = resps
            .as_array()
            .and_then(|r| r.first())
            .map(|r| match r {
                Value::Array(a) => a.first().map(text_of).unwrap_or_default(),
                other => text_of(other),
            })
            .unwrap_or_default();
        s.passed = ["exact_match", "acc"].iter().find_map(|m| s.scores.get(*m)).map(|x| *x >= 1.0);
    }
    Some(s)
}

/// The run's model, seeds, versions and reported figures.
fn read_results(name: &str, bytes: &[u8], log: &mut Log) -> Result<(), LogError> {
    let mut p = Problems::new(name);
    let Some(doc) = parse_json(&mut p, "", bytes) else { return p.finish(()) };
    let version = doc.get("lm_eval_version").map(text_of).unwrap_or_default();
    if !version.is_empty() && !version.starts_with(&format!("{KNOWN_MAJOR_MINOR}.")) {
        return Err(LogError::Version {
            file: name.into(),
            harness: Harness::LmEval.title().into(),
            version,
            known: format!("{KNOWN_MAJOR_MINOR}.x"),
        });
    }
    log.tool_version = version;
    let config = doc.get("config");
    let get = |key: &str| config.and_then(|c| c.get(key)).map(text_of).unwrap_or_default();
    let model = get("model");
    if model.is_empty() {
        p.push("", 0, "config.model", "missing");
    }
    let args = config
        .and_then(|c| c.get("model_args"))
        .filter(|a| a.as_object().is_none_or(|o| !o.is_empty()))
        .map(text_of)
        .unwrap_or_default();
    log.model = if args.is_empty() { model } else { format!("{model} ({args})") };
    for key in ["random_seed", "numpy_seed", "torch_seed", "fewshot_seed", "batch_size", "limit"] {
        let v = get(key);
        if !v.is_empty() {
            log.settings.insert(if key == "random_seed" { "seed".into() } else { key.into() }, v);
        }
    }
    if let Some(v) = doc.pointer(&format!("/versions/{}", log.task)) {
        log.settings.insert("task_version".into(), text_of(v));
    }
    if let Some(n) = doc.pointer(&format!("/n-shot/{}", log.task)) {
        log.settings.insert("num_fewshot".into(), text_of(n));
    }
    log.settings.insert("results_file".into(), name.into());
    match doc.pointer(&format!("/results/{}", log.task)).and_then(Value::as_object) {
        Some(figures) => {
            for (key, value) in figures {
                let (metric, _filter) = key.split_once(',').unwrap_or((key, ""));
                if metric.ends_with("_stderr") || metric == "alias" {
                    continue;
                }
                if let Some(v) = number(value) {
                    let stderr = figures.get(&key.replacen(metric, &format!("{metric}_stderr"), 1)).and_then(number);
                    log.reported.push(Reported { task: log.task.clone(), metric: metric.into(), value: v, stderr });
                }
            }
        }
        None => log.notes.push(format!("{name} reports no figures for the task {:?}", log.task)),
    }
    p.finish(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_names_pair_samples_with_their_results() {
        assert_eq!(
            samples_name("out/dummy/samples_bbq_local_2026-11-27T20-55-33.1.jsonl"),
            Some(("bbq_local", "2026-11-27T20-55-33.1"))
        );
        let results = ["a/results_2026-01-01T00-00-00.0.json", "b/results_2026-11-27T20-55-33.1.json"];
        assert_eq!(companion_for("samples_bbq_2026-11-27T20-55-33.1.jsonl", &results), Some(1));
        assert_eq!(companion_for("samples_bbq_2027.jsonl", &results), None);
        assert_eq!(companion_for("whatever.jsonl", &results[..1]), Some(0));
    }

    #[test]
    fn both_argument_layouts_and_text_numbers_are_read() {
        let old: Value = serde_json::from_str(r#"[["ctx", " a"], ["ctx", " b"]]"#).unwrap();
        let new: Value = serde_json::from_str(
            r#"{"gen_args_1": {"arg_0": "ctx", "arg_1": " b"}, "gen_args_0": {"arg_1": " a", "arg_0": "ctx"}}"#,
        )
        .unwrap();
        assert_eq!(continuations(&old), continuations(&new));
        let resps: Value = serde_json::from_str(r#"[[["-1.5", "False"]], [["-0.5", "True"]]]"#).unwrap();
        let filtered: Value = serde_json::from_str(r#"[["-1.5", "False"], [-0.5, true]]"#).unwrap();
        assert_eq!(loglikelihoods(&resps), Some(vec![-1.5, -0.5]));
        assert_eq!(loglikelihoods(&filtered), loglikelihoods(&resps));
    }
}
