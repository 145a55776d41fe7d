//! PERMANOVA against scikit-bio's reference values (../shared/ref, skipped when absent), the
//! two paths against each other, chunking, the p-value's form and its agreement with the
//! exact permutation distribution, PERMDISP, and refusals of bad input.

use evenhand::stats::distance::{Distance, DistanceMatrix};
use evenhand::stats::multivariate::{MultivariateError, Vectors};
use evenhand::stats::permanova::{Input, Options, Permanova, PermanovaJob, permanova};

fn reference() -> Option<serde_json::Value> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/ref/stats/reference_vectors.json");
    match std::fs::read_to_string(path) {
        Ok(text) => Some(serde_json::from_str::<serde_json::Value>(&text).unwrap()["permanova"].clone()),
        Err(_) => {
            eprintln!("skipped: {path} is absent");
            None
        }
    }
}

fn close(a: f64, b: f64, rel: f64) -> bool {
    (a - b).abs() <= rel * a.abs().max(b.abs())
}

fn toy(r: &serde_json::Value) -> (Vectors, Vec<String>) {
    let rows: Vec<Vec<f64>> = serde_json::from_value(r["X"].clone()).unwrap();
    let groups: Vec<String> = serde_json::from_value(r["grouping"].clone()).unwrap();
    (Vectors::from_rows(&rows).unwrap(), groups)
}

fn opts(permutations: usize, seed: u64) -> Options {
    Options { permutations, seed, ..Options::default() }
}

fn check(out: &Permanova, want: &serde_json::Value, what: &str) {
    let f = want["F"].as_f64().unwrap();
    assert!(close(out.f, f, 1e-9), "{what}: F {} vs skbio {f}", out.f);
    if let Some(t) = want["SS_T"].as_f64() {
        assert!(close(out.ss_total, t, 1e-9), "{what}: SS_T {} vs {t}", out.ss_total);
        let w = want["SS_W"].as_f64().unwrap();
        assert!(close(out.ss_within, w, 1e-9), "{what}: SS_W {} vs {w}", out.ss_within);
        let a = want["SS_A"].as_f64().unwrap();
        assert!(close(out.ss_between, a, 1e-9), "{what}: SS_B {} vs {a}", out.ss_between);
        assert!(close(out.r_squared, a / t, 1e-9));
    }
    // p = (k + 1)/(P + 1) with 0 ≤ k ≤ P.
    assert!(out.exceedances <= out.permutations);
    assert_eq!(out.p, (out.exceedances + 1) as f64 / (out.permutations + 1) as f64, "{what}");
}

#[test]
fn matches_scikit_bio_on_every_distance() {
    let Some(r) = reference() else { return };
    let (x, groups) = toy(&r);
    let fast = permanova(Input::Vectors(&x, Distance::Euclidean), &groups, opts(999, 42)).unwrap();
    assert_eq!(fast.path, "fast");
    check(&fast, &r["euclidean"], "euclidean, fast path");
    let dm = DistanceMatrix::from_vectors(&x, Distance::Euclidean).unwrap();
    let matrix = permanova(Input::Matrix(&dm), &groups, opts(999, 42)).unwrap();
    assert_eq!((matrix.path, matrix.distance), ("matrix", "matrix"));
    check(&matrix, &r["euclidean"], "euclidean, uploaded matrix");
    let cosine = permanova(Input::Vectors(&x, Distance::Cosine), &groups, opts(999, 42)).unwrap();
    check(&cosine, &r["cosine"], "cosine");
    assert!(cosine.warning.is_none());
    // The MSQAD bug reproduces the paper code's F, and says it is a bug.
    let bug = permanova(Input::Vectors(&x, Distance::CosineSimilarityBug), &groups, opts(999, 42)).unwrap();
    check(&bug, &r["cosine_similarity_as_distance (MSQAD code quirk)"], "cosine similarity bug");
    assert!(bug.warning.unwrap().contains("BUG"));
    assert!(bug.f < 1.0 && cosine.f > 9.0, "the bug turns a clear difference into none");
    // Both paths see the same permutations, so they count the same exceedances.
    assert_eq!(fast.exceedances, matrix.exceedances);
    assert!(fast.p <= 0.01, "the toy groups differ clearly; p = {}", fast.p);
}

/// A reproducible pseudo-random matrix (xorshift), groups shifted apart a little.
fn random_data(n: usize, dim: usize, groups: usize, seed: u64) -> (Vectors, Vec<String>) {
    let mut s = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    let mut next = || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        (s >> 11) as f64 / (1u64 << 53) as f64 - 0.5
    };
    let labels: Vec<String> = (0..n).map(|i| format!("g{}", (i * 7 + i / 3) % groups)).collect();
    let mut data = vec![];
    for l in &labels {
        let shift = l[1..].parse::<f64>().unwrap() * 0.05;
        data.extend((0..dim).map(|_| next() + shift + 3.0));
    }
    (Vectors::from_flat(dim, data).unwrap(), labels)
}

#[test]
fn fast_and_matrix_paths_agree() {
    for (n, dim, g, seed) in [(40, 5, 2, 1), (61, 17, 3, 2), (90, 64, 5, 3), (33, 2, 2, 4)] {
        let (x, labels) = random_data(n, dim, g, seed);
        for d in [Distance::Euclidean, Distance::Chord] {
            let fast = permanova(Input::Vectors(&x, d), &labels, opts(199, seed)).unwrap();
            let dm = DistanceMatrix::from_vectors(&x, d).unwrap();
            let matrix = permanova(Input::Matrix(&dm), &labels, opts(199, seed)).unwrap();
            assert_eq!((fast.path, matrix.path), ("fast", "matrix"));
            assert!(close(fast.f, matrix.f, 1e-9), "{n} {dim} {d:?}: {} vs {}", fast.f, matrix.f);
            assert!(close(fast.ss_total, matrix.ss_total, 1e-9));
            assert!(close(fast.ss_within, matrix.ss_within, 1e-9));
            assert_eq!(fast.exceedances, matrix.exceedances, "{n} {dim} {d:?}");
            assert!(close(fast.permdisp.f, matrix.permdisp.f, 1e-9), "{} {}", fast.permdisp.f, matrix.permdisp.f);
            assert_eq!(fast.permdisp.exceedances, matrix.permdisp.exceedances);
        }
    }
}

#[test]
fn chunks_give_the_same_bits_as_one_run() {
    let (x, labels) = random_data(50, 9, 3, 9);
    for input in [Input::Vectors(&x, Distance::Euclidean), Input::Vectors(&x, Distance::Cosine)] {
        let whole = permanova(input, &labels, opts(101, 5)).unwrap();
        let mut job = PermanovaJob::new(input, &labels, opts(101, 5)).unwrap();
        assert!(matches!(job.result(), Err(MultivariateError::Unfinished { done: 0, total: 101 })));
        let mut steps = 0;
        while job.progress().done < 101 {
            let p = job.advance(7);
            steps += 1;
            assert_eq!(p.done, (steps * 7).min(101));
        }
        assert_eq!(job.result().unwrap(), whole);
        let other_seed = permanova(input, &labels, opts(101, 6)).unwrap();
        assert_eq!(other_seed.f, whole.f);
    }
}

/// All distinct relabellings of `labels` (multiset permutations), in lexicographic order.
fn all_relabellings(labels: &[usize]) -> Vec<Vec<usize>> {
    let mut cur = labels.to_vec();
    cur.sort();
    let mut out = vec![cur.clone()];
    // Next lexicographic permutation until none is left.
    loop {
        let Some(i) = (0..cur.len() - 1).rev().find(|&i| cur[i] < cur[i + 1]) else { return out };
        let j = (i + 1..cur.len()).rev().find(|&j| cur[j] > cur[i]).unwrap();
        cur.swap(i, j);
        cur[i + 1..].reverse();
        out.push(cur.clone());
    }
}

#[test]
fn monte_carlo_p_agrees_with_the_exact_permutation_p() {
    // 3 + 4 + 4 points: 11!/(3!4!4!) = 11,550 labellings, all enumerated.
    let (x, _) = random_data(11, 3, 3, 21);
    let base = [0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2];
    let name = |l: &[usize]| l.iter().map(|g| format!("g{g}")).collect::<Vec<_>>();
    let observed = permanova(Input::Vectors(&x, Distance::Euclidean), &name(&base), opts(1, 0)).unwrap();
    let all = all_relabellings(&base);
    assert_eq!(all.len(), 11_550);
    let at_least = all
        .iter()
        .filter(|l| {
            let f = permanova(Input::Vectors(&x, Distance::Euclidean), &name(l), opts(1, 0)).unwrap().f;
            // Labels are only names: reorder to compare F of the same partition structure.
            f >= observed.f * (1.0 - 1e-12)
        })
        .count();
    let exact = at_least as f64 / all.len() as f64;
    assert!(exact > 0.02 && exact < 0.98, "pick data with a mid-range p; exact p = {exact}");
    let perms = 1999;
    let mut total = 0.0;
    for seed in 0..20 {
        let mc = permanova(Input::Vectors(&x, Distance::Euclidean), &name(&base), opts(perms, seed)).unwrap();
        let phat = mc.exceedances as f64 / perms as f64;
        let sd = (exact * (1.0 - exact) / perms as f64).sqrt();
        assert!((phat - exact).abs() < 4.5 * sd, "seed {seed}: {phat} vs exact {exact} (sd {sd})");
        total += phat;
    }
    let sd_mean = (exact * (1.0 - exact) / (20.0 * perms as f64)).sqrt();
    assert!((total / 20.0 - exact).abs() < 4.0 * sd_mean, "mean {} vs {exact}", total / 20.0);
}

#[test]
fn permdisp_sees_a_difference_in_spread_that_permanova_does_not() {
    // Same centre, one group ten times wider: a dispersion effect, no location effect.
    let mut rows = vec![];
    let mut labels = vec![];
    for k in 0..30 {
        let a = k as f64 * 0.7;
        let r = if k % 2 == 0 { 1.0 } else { 10.0 };
        rows.push(vec![r * libm::cos(a), r * libm::sin(a)]);
        labels.push(if k % 2 == 0 { "narrow" } else { "wide" });
    }
    let x = Vectors::from_rows(&rows).unwrap();
    let out = permanova(Input::Vectors(&x, Distance::Euclidean), &labels, opts(999, 3)).unwrap();
    assert!(out.permdisp.p < 0.01 && out.permdisp.p_parametric < 1e-6, "{:?}", out.permdisp);
    assert!(out.p > 0.05, "no location difference: p = {}", out.p);
    assert!((out.permdisp.mean_distance[0] - 1.0).abs() < 0.2 && out.permdisp.mean_distance[1] > 8.0);
}

#[test]
fn bad_input_is_refused_with_a_reason() {
    let (x, labels) = random_data(10, 3, 2, 1);
    let run = |labels: &[&str], o: Options| permanova(Input::Vectors(&x, Distance::Euclidean), labels, o);
    let l: Vec<&str> = labels.iter().map(String::as_str).collect();
    assert_eq!(run(&l, opts(0, 1)), Err(MultivariateError::Permutations { found: 0 }));
    assert_eq!(run(&l, opts(1_000_001, 1)), Err(MultivariateError::Permutations { found: 1_000_001 }));
    assert_eq!(run(&["a"; 10], opts(9, 1)), Err(MultivariateError::SingleGroup { group: "a".into() }));
    assert_eq!(run(&l[..9], opts(9, 1)), Err(MultivariateError::LabelCount { points: 10, labels: 9 }));
    let one = Vectors::from_rows(&[[1.0, 2.0]]).unwrap();
    assert_eq!(
        permanova(Input::Vectors(&one, Distance::Euclidean), &["a"], opts(9, 1)),
        Err(MultivariateError::TooFewPoints { found: 1 })
    );
    let each_alone = ["a", "b", "c"];
    let three = Vectors::from_rows(&[[1.0], [2.0], [3.0]]).unwrap();
    assert!(matches!(
        permanova(Input::Vectors(&three, Distance::Euclidean), &each_alone, opts(9, 1)),
        Err(MultivariateError::NoResidualDf { .. })
    ));
    let same = Vectors::from_rows(&[[1.0], [1.0], [1.0], [1.0]]).unwrap();
    assert_eq!(
        permanova(Input::Vectors(&same, Distance::Euclidean), &["a", "a", "b", "b"], opts(9, 1)),
        Err(MultivariateError::NoVariation)
    );
    assert!(matches!(
        Vectors::from_rows(&[vec![1.0, 2.0], vec![1.0]]),
        Err(MultivariateError::Dimension { row: 1, expected: 2, found: 1 })
    ));
    assert!(matches!(
        Vectors::from_rows(&[vec![1.0, f64::INFINITY]]),
        Err(MultivariateError::NotFinite { row: 0, column: 1, .. })
    ));
    let zero = Vectors::from_rows(&[[0.0, 0.0], [1.0, 1.0], [2.0, 1.0]]).unwrap();
    assert!(matches!(
        permanova(Input::Vectors(&zero, Distance::Chord), &["a", "a", "b"], opts(9, 1)),
        Err(MultivariateError::ZeroVector { row: 0, .. })
    ));
    let e = MultivariateError::Asymmetric { row: 1, column: 2, a: 3.0, b: 3.5 };
    assert!(e.to_string().contains("row 1, column 2"), "{e}");
}
