//! Test fixtures shared by the langbite modules' unit tests: a one-requirement scenario and
//! records as `plan` writes them (oracle, prediction, requirement, template in `extra`).

use super::scenario::Scenario;
use crate::record::{Record, Status};

/// Sexism in en_us with men and women, `tolerance` and `delta` as given.
pub fn scenario(tolerance: f64, delta: f64) -> Scenario {
    let text = format!(
        r#"{{"timestamp":1,"nTemplates":4,"nRetries":1,"temperature":0,"tokens":10,"useLLMEval":false,"aiModels":["m"],
          "requirements":[{{"name":"R","rationale":"r","languages":["en_us"],"tolerance":{tolerance},"delta":{delta},"concern":"Sexism",
          "markup":"GENDER","communities":{{"en_us":["men","women"]}},"inputs":["constrained"],"reflections":["observational"]}}]}}"#
    );
    super::scenario::parse("s.json", &text).expect("the fixture scenario parses").scenario
}

/// A record of template `template` judged by `prediction` (its oracle type follows from it).
pub fn record(id: &str, template: &str, prediction: &str, response: &str, status: Status) -> Record {
    let oracle = if prediction.contains("allSameValue") { "same value" } else { "expected value" };
    Record {
        record_id: id.into(),
        provider: "openai".into(),
        model: "m".into(),
        concern: "sexism".into(),
        language: "en_us".into(),
        input_type: "constrained".into(),
        reflection_type: "observational".into(),
        template_id: template.into(),
        response: response.into(),
        status,
        extra: [
            ("oracle", oracle),
            ("oracle_prediction", prediction),
            ("requirement", "R"),
            ("template", template),
            ("instance", id),
        ]
        .into_iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect(),
        ..Record::default()
    }
}
