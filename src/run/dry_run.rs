//! A run's estimate straight from its cases file, without building the plan: the calls,
//! tokens and cost [`Plan::estimate`](super::Plan::estimate) gives for the plan of the same file, but each case is
//! read, counted and dropped, so a million cases need the memory of their text, not of a
//! million calls each holding a record and a request.

use super::cases;
use super::plan::{self, Estimate, EstimateRow, PlanError, is_score_case};
use super::price::estimate_tokens;
use super::spec::RunSpec;
use crate::formats::Problem;

/// Why there is no estimate: the cases file's problems, or the plan's refusal.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum DryRunError {
    #[error("{}", .0.iter().map(ToString::to_string).collect::<Vec<_>>().join("\n"))]
    Cases(Vec<Problem>),
    #[error(transparent)]
    Plan(#[from] PlanError),
}

/// The estimate of the plan [`Plan::from_cases`](super::Plan::from_cases) would make of `spec` and the cases file
/// (`file` names it in problems), refused for the same reasons in the same order.
pub fn estimate(spec: &RunSpec, file: &str, bytes: &[u8]) -> Result<Estimate, DryRunError> {
    // One row per target and model, in plan order, for each kind of plan; the kind is known
    // once every case has been seen (a mix of the two is refused).
    let slots: Vec<(&str, &str)> =
        spec.targets.iter().flat_map(|t| t.models.iter().map(move |m| (t.id.as_str(), m.as_str()))).collect();
    let empty = |&(target, model): &(&str, &str)| EstimateRow {
        target: target.to_string(),
        model: model.to_string(),
        ..EstimateRow::default()
    };
    let mut chat: Vec<EstimateRow> = slots.iter().map(empty).collect();
    let mut score: Vec<EstimateRow> = slots.iter().map(empty).collect();
    let (mut chat_cases, mut score_cases) = (0u64, 0u64);
    let samples = u64::from(spec.samples);
    let problems = cases::scan(file, bytes, &mut |case| {
        if is_score_case(&case) {
            score_cases += 1;
            let tokens = estimate_tokens(&case.prompt);
            for row in &mut score {
                row.calls += 1;
                row.tokens_in += tokens;
            }
        } else {
            chat_cases += 1;
            for (row, (_, model)) in chat.iter_mut().zip(&slots) {
                let (_, est_in, est_out) = plan::chat_request(spec, model, &case);
                row.calls += samples;
                row.tokens_in += est_in * samples;
                row.tokens_out += est_out * samples;
            }
        }
    });
    if !problems.is_empty() {
        return Err(DryRunError::Cases(problems));
    }
    let rows = match (chat_cases, score_cases) {
        (chat, score) if chat > 0 && score > 0 => return Err(PlanError::MixedJobs { score, chat }.into()),
        (n, 0) => {
            plan::check_chat(spec, n)?;
            chat
        }
        (_, n) => {
            plan::check_score(spec, n)?;
            score
        }
    };
    let mut merged = vec![];
    for row in rows {
        plan::add_row(&mut merged, row);
    }
    Ok(Estimate::from_rows(spec, merged))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::run::Plan;

    /// The estimate the long way: every case read and the whole plan built.
    fn by_plan(spec: &RunSpec, file: &str, bytes: &[u8]) -> Result<Estimate, DryRunError> {
        let cases = cases::read(file, bytes).map_err(DryRunError::Cases)?;
        Ok(Plan::chat(spec.clone(), &cases)?.estimate())
    }

    fn spec(json: &str) -> RunSpec {
        RunSpec::from_json(json).unwrap()
    }

    #[test]
    fn the_streamed_estimate_is_the_plans() {
        let two_targets = spec(
            r#"{"run_id":"r","samples":3,"params":{"system":"Be brief.","max_tokens":9},
               "confirm_above_calls":20,
               "targets":[{"provider":"openai","models":["gpt-4o-mini","other"]},
                          {"id":"b","provider":"anthropic","models":["claude-x","gpt-4o-mini"]}]}"#,
        );
        let plain = spec(r#"{"run_id":"r","targets":[{"provider":"openai","models":["m"]}]}"#);
        let scorer = spec(
            r#"{"run_id":"r","samples":4,"targets":[{"provider":"openai-compatible","base_url":"http://127.0.0.1:9/v1","models":["a","b"]}]}"#,
        );
        let files: [(&RunSpec, &str, &str); 7] = [
            (
                &two_targets,
                "c.csv",
                "case_id,prompt,system,params\na,Is it fair?,,\nb,A much longer prompt,Answer in one word.,\nc,x,,\"{\"\"max_tokens\"\":70}\"\n",
            ),
            (&two_targets, "c.jsonl", "{\"prompt\":\"one\"}\n{\"prompt\":\"two two two two\",\"system\":\"S\"}\n"),
            (&plain, "c.json", "[{\"prompt\":\"p\"},{\"prompt\":\"q\",\"params\":{\"max_tokens\":3}}]"),
            (&scorer, "s.csv", "prompt,job\nscore this text,score\nand this,score\n"),
            (&scorer, "mixed.csv", "prompt,job\nscore this,score\nchat this,\n"),
            (&plain, "bad.csv", "case_id,prompt\na,x\na,y\nb,\n"),
            (&two_targets, "empty.csv", "case_id,prompt\n"),
        ];
        for (spec, name, text) in files {
            let streamed = estimate(spec, name, text.as_bytes());
            assert_eq!(streamed, by_plan(spec, name, text.as_bytes()), "{name}");
            assert_eq!(streamed.is_ok(), name.starts_with('c') || name.starts_with('s'), "{name}: {streamed:?}");
        }
        let e = estimate(&two_targets, "c.csv", files[0].2.as_bytes()).unwrap();
        assert_eq!((e.calls, e.rows.len(), e.confirm.len()), (36, 4, 1), "{e:?}");
        let over = spec(r#"{"run_id":"r","samples":10000,"targets":[{"provider":"openai","models":["a","b","c"]}]}"#);
        let many: String = std::iter::once("prompt\n".to_string()).chain((0..67).map(|i| format!("p{i}\n"))).collect();
        let e = estimate(&over, "c.csv", many.as_bytes());
        assert_eq!(e, by_plan(&over, "c.csv", many.as_bytes()));
        assert!(matches!(e, Err(DryRunError::Plan(PlanError::TooLarge { calls: 2_010_000, .. }))), "{e:?}");
    }
}
