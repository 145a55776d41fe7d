//! Cultural divergence end to end: the toy reference vector, when the poster's per-context
//! approximation equals the plain (pooled) cross-entropy, the simulated lean recovered by
//! hand, real shipped data, smoothing mass, bootstrap determinism, and the Census loader.

use evenhand::divergence::analysis::{Assigned, Input, ModelData, Settings, analyze};
use evenhand::divergence::bootstrap::Bootstrap;
use evenhand::divergence::logprobs::LogprobRow;
use evenhand::divergence::probes::ProbeSet;
use evenhand::divergence::reference::{Reference, Shape};
use evenhand::divergence::simulate::{self, Lean};
use evenhand::divergence::{Analysis, Smoothing, Unit, builtin};
use evenhand::record::Record;
use evenhand::stats::confidence::Confidence;
use std::path::PathBuf;

fn shared_ref() -> Option<PathBuf> {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/ref");
    if p.is_dir() {
        Some(p)
    } else {
        println!("skipped: ../shared/ref is absent");
        None
    }
}

/// A probe set with one aspect "names" and the given contexts (id, text, culture).
fn probes(contexts: &[(&str, &str, Option<&str>)], fillers: &[&str]) -> ProbeSet {
    let ctx: Vec<serde_json::Value> = contexts
        .iter()
        .map(|(id, text, culture)| serde_json::json!({"id": id, "text": text, "culture": culture}))
        .collect();
    let fil: Vec<serde_json::Value> = fillers.iter().map(|f| serde_json::json!({"base": f})).collect();
    let json = serde_json::json!({"format": "evenhand-divergence-probes", "version": 1, "id": "toy", "language": "pl",
        "aspects": [{"id": "names", "fillers": fil, "contexts": ctx}]});
    ProbeSet::parse("toy.json", &json.to_string()).unwrap().0
}

fn reference(culture: &str, pairs: &[(&str, f64)]) -> Assigned {
    let text: String = std::iter::once("name\tcount".to_string())
        .chain(pairs.iter().map(|(n, w)| format!("{n}\t{w:?}")))
        .collect::<Vec<_>>()
        .join("\n");
    let reference = Reference::load(&format!("{culture}.tsv"), text.as_bytes(), Some(Shape::Table), None).unwrap();
    Assigned { aspect: "names".into(), culture: culture.into(), reference }
}

fn pairs(d: &[(String, f64)]) -> Vec<(&str, f64)> {
    d.iter().map(|(n, p)| (n.as_str(), *p)).collect()
}

fn rows(context: &str, model: &str, m: &[(&str, f64)], offset: f64) -> Vec<LogprobRow> {
    m.iter()
        .map(|(f, p)| LogprobRow {
            context: context.into(),
            filler: f.to_string(),
            logprob: p.ln() + offset,
            model: model.into(),
        })
        .collect()
}

fn settings(smoothing: Smoothing) -> Settings {
    Settings {
        smoothing,
        unit: Unit::Nats,
        bootstrap: Bootstrap { replicates: 200, confidence: Confidence::NINETY_FIVE, seed: 3 },
    }
}

fn run(p: &ProbeSet, refs: &[Assigned], data: ModelData, s: &Settings) -> Analysis {
    analyze(&Input { probes: p, references: refs, data: &data }, s).unwrap()
}

#[test]
fn toy_reference_vector_is_reproduced_in_both_modes() {
    let Some(root) = shared_ref() else { return };
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(root.join("stats/reference_vectors.json")).unwrap()).unwrap();
    let toy = &v["cultural_divergence_toy"];
    let dist = |k: &str| -> Vec<(String, f64)> {
        toy[k].as_object().unwrap().iter().map(|(n, p)| (n.clone(), p.as_f64().unwrap())).collect()
    };
    let (m, l, w) = (dist("M"), dist("L"), dist("W"));
    let p = probes(&[("c1", "Mam na imię {X}.", None)], &[]);
    let refs = vec![reference("local", &pairs(&l)), reference("western", &pairs(&w))];
    let want = toy["CD=H(M,L)-H(M,W)"].as_f64().unwrap();
    let (hl, hw) = (toy["H(M,L)"].as_f64().unwrap(), toy["H(M,W)"].as_f64().unwrap());

    // Scoring: log-probabilities with an arbitrary sentence offset, which normalisation removes.
    let a = run(&p, &refs, ModelData::Logprobs(rows("c1", "toy", &pairs(&m), -17.25)), &settings(Smoothing::None));
    let r = &a.models[0];
    println!("toy: CD {} (reference {want}), H(M,L) {} ({hl}), H(M,W) {} ({hw})", r.cd.value, r.h_local, r.h_western);
    assert!((r.cd.value - want).abs() < 1e-12, "{} vs {want}", r.cd.value);
    assert!((r.h_local - hl).abs() < 1e-12 && (r.h_western - hw).abs() < 1e-12);
    assert!((r.kl_local - r.kl_western - want).abs() < 1e-12, "the KL form");
    assert_eq!(r.pooled_cd, r.cd.value, "one context: the pooled form is the same number");

    // Sampling: ten completions in the proportions of M.
    let records: Vec<Record> = [("Anna", 5), ("Michael", 3), ("Zofia", 2)]
        .iter()
        .flat_map(|(n, k)| std::iter::repeat_n(*n, *k))
        .enumerate()
        .map(|(i, n)| Record {
            case_id: "c1".into(),
            model: "toy".into(),
            sample_index: i as u32,
            response: format!("{n}."),
            ..Record::default()
        })
        .collect();
    let a = run(&p, &refs, ModelData::Records(records), &settings(Smoothing::None));
    assert!((a.models[0].cd.value - want).abs() < 1e-12);
    let bits = Settings { unit: Unit::Bits, ..settings(Smoothing::None) };
    let a = run(&p, &refs, ModelData::Logprobs(rows("c1", "toy", &pairs(&m), 0.0)), &bits);
    assert!((a.models[0].cd.value - want / std::f64::consts::LN_2).abs() < 1e-12, "bits");
}

/// The poster's form (mean over contexts of per-context normalised cross-entropies) and the
/// plain form (one pooled distribution per aspect, contexts weighted by their raw mass)
/// agree when there is one context, when every context has the same distribution, or when
/// every context has the same mass (the same number of samples); they differ otherwise.
#[test]
fn poster_and_pooled_forms_agree_exactly_when_they_should() {
    let p = probes(&[("c1", "Mam na imię {X}.", None), ("c2", "Imię mojej babci to {X}.", None)], &[]);
    let refs = vec![
        reference("local", &[("Anna", 300.0), ("Piotr", 490.0), ("Zofia", 200.0), ("Michael", 10.0)]),
        reference("western", &[("Anna", 100.0), ("Michael", 600.0), ("James", 299.0), ("Zofia", 1.0)]),
    ];
    let s = settings(Smoothing::AddAlpha { alpha: 0.5 });
    let a1 = [("Anna", 0.6), ("Michael", 0.4)];
    let a2 = [("Zofia", 0.1), ("Michael", 0.2), ("James", 0.7)];
    let cd = |data: Vec<LogprobRow>| {
        let a = run(&p, &refs, ModelData::Logprobs(data), &s);
        (a.models[0].cd.value, a.models[0].pooled_cd)
    };
    // Same distribution in both contexts, very different masses: equal.
    let (poster, pooled) = cd([rows("c1", "m", &a1, -3.0), rows("c2", "m", &a1, -40.0)].concat());
    assert!((poster - pooled).abs() < 1e-12, "{poster} {pooled}");
    // Different distributions, the same mass: equal.
    let (poster, pooled) = cd([rows("c1", "m", &a1, -5.0), rows("c2", "m", &a2, -5.0)].concat());
    assert!((poster - pooled).abs() < 1e-12, "{poster} {pooled}");
    // Different distributions and masses: the pooled form leans to the heavier context.
    let (poster, pooled) = cd([rows("c1", "m", &a1, -2.0), rows("c2", "m", &a2, -6.0)].concat());
    assert!((poster - pooled).abs() > 0.05, "{poster} {pooled}");
    let solo = {
        let a = run(&p, &refs, ModelData::Logprobs(rows("c1", "m", &a1, -2.0)), &s);
        a.models[0].aspects[0].contexts[0].cd.value
    };
    let second = run(&p, &refs, ModelData::Logprobs(rows("c2", "m", &a2, -6.0)), &s).models[0].cd.value;
    assert!((poster - (solo + second) / 2.0).abs() < 1e-12, "the poster's form is the plain mean of the contexts");
    let w2 = 1.0 / (1.0 + 4f64.exp());
    assert!((pooled - ((1.0 - w2) * solo + w2 * second)).abs() < 1e-12, "the pooled form weighs by mass");
}

#[test]
fn simulated_lean_is_recovered_by_hand() {
    let fillers = ["Anna", "Piotr", "Zofia", "Michael", "James"];
    let p = probes(
        &[("c1", "Mam na imię {X}.", None), ("c2", "Na liście jest {X}.", None), ("c3", "Dzwoniła {X}.", None)],
        &fillers,
    );
    let l = [("Anna", 300.0), ("Piotr", 490.0), ("Zofia", 200.0), ("Michael", 10.0), ("Krystyna", 50.0)];
    let w = [("Anna", 100.0), ("Michael", 600.0), ("James", 299.0), ("Zofia", 1.0), ("Emma", 400.0)];
    let refs = vec![reference("local", &l), reference("western", &w)];
    let lean = Lean { name: "lean".into(), lean: 0.3, ..Lean::default() };
    let alpha = 0.5;

    // By hand: the lean mixture of the references restricted to the filler table, and both
    // references smoothed with add-0.5 over the union vocabulary (7 names).
    let get = |t: &[(&str, f64)], n: &str| t.iter().find(|x| x.0 == n).map(|x| x.1).unwrap_or(0.0);
    let zl: f64 = fillers.iter().map(|f| get(&l, f)).sum();
    let zw: f64 = fillers.iter().map(|f| get(&w, f)).sum();
    let vocab = 7.0;
    let (tl, tw) = (l.iter().map(|x| x.1).sum::<f64>(), w.iter().map(|x| x.1).sum::<f64>());
    let mut hand = 0.0;
    for f in fillers {
        let m = 0.7 * get(&l, f) / zl + 0.3 * get(&w, f) / zw;
        let xl = (get(&l, f) + alpha) / (tl + alpha * vocab);
        let xw = (get(&w, f) + alpha) / (tw + alpha * vocab);
        hand += m * (xw / xl).ln();
    }
    let s = settings(Smoothing::AddAlpha { alpha });
    let rows = simulate::logprobs(&p, &refs, &lean, 5).unwrap();
    assert_eq!(rows.len(), 15);
    let a = run(&p, &refs, ModelData::Logprobs(rows), &s);
    let got = a.models[0].cd.value;
    println!("simulated lean 0.3: CD {got} nats, by hand {hand}");
    assert!((got - hand).abs() < 1e-12, "{got} vs {hand}");
    assert_eq!(a.models[0].model, "sim:lean");
    assert!(a.simulated);
    // Every context has the same distribution, so the bootstrap over contexts has no spread.
    let (lo, hi) = (a.models[0].cd.low.unwrap(), a.models[0].cd.high.unwrap());
    assert!((lo - got).abs() < 1e-12 && (hi - got).abs() < 1e-12);

    // More lean toward the West, larger CD; jitter spreads the contexts and opens the interval.
    let west = Lean { lean: 0.9, jitter: 0.5, mass_spread: 3.0, ..lean.clone() };
    let a = run(&p, &refs, ModelData::Logprobs(simulate::logprobs(&p, &refs, &west, 5).unwrap()), &s);
    assert!(a.models[0].cd.value > got);
    assert!(a.models[0].cd.high.unwrap() > a.models[0].cd.low.unwrap());
    assert!((a.models[0].cd.value - a.models[0].pooled_cd).abs() > 1e-6, "unequal masses: the two forms differ");

    // Sampling: 4,000 completions per context estimate the same value.
    let many = Lean { samples: 4000, unmatched_rate: 0.05, ..lean };
    let records = simulate::records(&p, &refs, &many, 5).unwrap();
    let a = run(&p, &refs, ModelData::Records(records), &s);
    let r = &a.models[0];
    println!("sampled: CD {} [{:?}, {:?}], unmatched {}", r.cd.value, r.cd.low, r.cd.high, r.samples.unmatched);
    assert!((r.cd.value - hand).abs() < 0.05);
    assert!(r.cd.low.unwrap() < hand && hand < r.cd.high.unwrap(), "the interval covers the truth");
    assert!(r.samples.unmatched > 400 && r.samples.unmatched < 800, "about 5% of 12,000 are counted as unmatched");
    assert_eq!(r.samples.matched + r.samples.unmatched, 12_000);
    let shown = &r.aspects[0].contexts[0].unmatched_texts;
    assert_eq!(shown.len(), 1, "{shown:?}");
    assert_eq!(shown[0].0, "nie wiem, trudno");
}

#[test]
fn shipped_polish_set_with_real_city_data() {
    let p = builtin::probe_set("pl-western").unwrap();
    let refs = builtin::references_for(&p).unwrap();
    let s = Settings { bootstrap: Bootstrap { replicates: 100, ..Bootstrap::default() }, ..Settings::default() };
    let local = Lean { name: "local".into(), lean: 0.0, samples: 30, ..Lean::default() };
    let western = Lean { name: "western".into(), lean: 1.0, samples: 30, ..Lean::default() };
    let mut records = simulate::records(&p, &refs, &local, 1).unwrap();
    records.extend(simulate::records(&p, &refs, &western, 1).unwrap());
    let a = run(&p, &refs, ModelData::Records(records), &s);
    assert_eq!(a.skipped_aspects.len(), 1);
    assert!(a.skipped_aspects[0].reason.contains("PESEL"), "{}", a.skipped_aspects[0].reason);
    let by = |m: &str| a.models.iter().find(|r| r.model == m).unwrap();
    let (l, w) = (by("sim:local"), by("sim:western"));
    println!("pl cities: CD local-leaning {}, western-leaning {}", l.cd.value, w.cd.value);
    assert!(l.cd.value < 0.0 && w.cd.value > 0.0);
    // Every completion was an inflected form (Krakowie, Nowym Jorku, …) and each was matched.
    assert_eq!(l.samples.unmatched + w.samples.unmatched, 0);
    assert_eq!(l.samples.matched, 23 * 30);
    let chart = evenhand::divergence::chart::context_chart(&w.aspects[0].contexts[0], &w.model, "Polish", "Western");
    assert!(chart.starts_with("<svg") && chart.contains("Western reference"));
}

#[test]
fn smoothing_mass_is_reported() {
    let p = probes(&[("c1", "Mam na imię {X}.", None)], &[]);
    let refs = vec![
        reference("local", &[("Anna", 3.0), ("Zofia", 1.0)]),
        reference("western", &[("Anna", 1.0), ("Emma", 3.0)]),
    ];
    // 0.25 of the model's mass is on Xavier, in neither reference; 0.25 on Emma, not local.
    let data = rows("c1", "m", &[("Anna", 0.25), ("Zofia", 0.25), ("Emma", 0.25), ("Xavier", 0.25)], -1.0);
    let a = run(&p, &refs, ModelData::Logprobs(data.clone()), &settings(Smoothing::Floor { epsilon: 1e-3 }));
    let r = &a.models[0];
    assert!((r.model_mass_smoothed_local - 0.5).abs() < 1e-12);
    assert!((r.model_mass_smoothed_western - 0.5).abs() < 1e-12);
    assert_eq!(r.aspects[0].contexts[0].unmatched_texts, vec![("Xavier".to_string(), 1)]);
    let local = a.references.iter().find(|x| x.culture == "local").unwrap();
    assert_eq!(local.vocabulary, 4);
    assert!((local.smoothing_added_mass - 2e-3 / 1.002).abs() < 1e-12);
    let e =
        analyze(&Input { probes: &p, references: &refs, data: &ModelData::Logprobs(data) }, &settings(Smoothing::None));
    assert!(e.unwrap_err().to_string().contains("which the local reference lacks"));
}

#[test]
fn bootstrap_is_deterministic_per_seed() {
    let p = builtin::probe_set("de-western").unwrap();
    let refs = builtin::references_for(&p).unwrap();
    let lean = Lean { name: "x".into(), lean: 0.5, jitter: 1.0, samples: 15, ..Lean::default() };
    let data = ModelData::Records(simulate::records(&p, &refs, &lean, 2).unwrap());
    let s = Settings {
        bootstrap: Bootstrap { replicates: 300, confidence: Confidence::new(0.9).unwrap(), seed: 11 },
        ..Settings::default()
    };
    let json = |s: &Settings| {
        serde_json::to_string(&analyze(&Input { probes: &p, references: &refs, data: &data }, s).unwrap()).unwrap()
    };
    assert_eq!(json(&s), json(&s));
    let other = Settings { bootstrap: Bootstrap { seed: 12, ..s.bootstrap }, ..s };
    assert_ne!(json(&s), json(&other));
}

#[test]
fn census_first_name_lists_load() {
    let Some(root) = shared_ref() else { return };
    let dir = root.join("bbq/supplemental/name_job_data");
    let female = Reference::load(
        "dist.female.first.txt",
        &std::fs::read(dir.join("dist.female.first.txt")).unwrap(),
        None,
        None,
    )
    .unwrap();
    assert_eq!(female.shape, Shape::Census);
    assert_eq!(female.entries.len(), 4275);
    assert_eq!(female.entries[0], ("Mary".to_string(), 2.629));
    assert!(female.problems.is_empty());
    let male =
        Reference::load("dist.male.first.txt", &std::fs::read(dir.join("dist.male.first.txt")).unwrap(), None, None)
            .unwrap();
    assert_eq!(male.entries.len(), 1219);
    assert_eq!(male.entries[0].0, "James");
}

#[test]
fn geonames_alternate_names_match_exonyms_in_completions() {
    let p = probes(&[("c1", "Mieszkam w {X}.", None)], &[]);
    let geo = |id: u32, name: &str, alt: &str, pop: u32| {
        let pop = pop.to_string();
        let id = id.to_string();
        [id.as_str(), name, name, alt, "0", "0", "P", "PPL", "PL", "", "", "", "", "", pop.as_str(), "", "", "", ""]
            .join("\t")
    };
    let text = [geo(1, "Kraków", "Cracow,Krakau,KRK", 800), geo(2, "Gdańsk", "Danzig", 470)].join("\n");
    let local = Reference::load("PL.txt", text.as_bytes(), None, None).unwrap();
    assert_eq!(local.shape, Shape::Geonames);
    let refs = vec![
        Assigned { aspect: "names".into(), culture: "local".into(), reference: local },
        reference("western", &[("Boston", 650.0)]),
    ];
    let records: Vec<Record> = ["Cracow.", "Danzig, dawniej.", "Boston!", "KRK"]
        .iter()
        .enumerate()
        .map(|(i, r)| Record {
            case_id: "c1".into(),
            model: "m".into(),
            sample_index: i as u32,
            response: r.to_string(),
            ..Record::default()
        })
        .collect();
    let a = run(&p, &refs, ModelData::Records(records), &settings(Smoothing::AddAlpha { alpha: 0.5 }));
    let c = &a.models[0].aspects[0].contexts[0];
    assert_eq!(c.n, 3, "Cracow, Danzig and Boston are matched");
    assert_eq!(c.unmatched_texts, vec![("KRK".to_string(), 1)], "codes are not aliases");
    let names: Vec<&str> = c.fillers.iter().filter(|f| f.model > 0.0).map(|f| f.filler.as_str()).collect();
    assert_eq!(names, vec!["Boston", "Kraków", "Gdańsk"], "equal model shares: the larger reference share first");
}
