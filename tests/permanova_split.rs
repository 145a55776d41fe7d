//! A PERMANOVA job's permutations split into ranges, each counted by its own job (as the
//! page's workers do) and absorbed into one, give `permanova()`'s result bit for bit, for any
//! split and order; ranges outside the job, overlapping ones and impossible counts are
//! refused with a typed error and leave the job as it was.

use evenhand::stats::distance::{Distance, DistanceMatrix};
use evenhand::stats::multivariate::{MultivariateError, Vectors};
use evenhand::stats::permanova::{Counts, Input, Options, PermanovaJob, Progress, permanova};
use evenhand::stats::permanova_query::PermanovaQuery;
use evenhand::stats::permdisp::Center;

const P: usize = 999;

/// Points with a weak group effect, so both tests count some permutations and miss others.
fn data(n: usize, dim: usize, shift: f64) -> (Vectors, Vec<String>) {
    let mut rng = evenhand::rng::rng_for(5, &[b"split"]);
    let (mut values, mut labels) = (vec![], vec![]);
    for i in 0..n {
        let g = i % 2;
        for k in 0..dim {
            let spread = if g == 1 { 1.0 + shift / 10.0 } else { 1.0 };
            values.push(spread * evenhand::rng::standard_normal(&mut rng) + if k == 0 && g == 1 { shift } else { 0.0 });
        }
        labels.push(format!("g{g}"));
    }
    (Vectors::from_flat(dim, values).unwrap(), labels)
}

fn options() -> Options {
    Options { permutations: P, seed: 17, permdisp: Center::Centroid }
}

/// Counts every range in a job of its own and absorbs them, in the order given, into another.
fn split(input: Input<'_>, labels: &[String], ranges: &[(usize, usize)]) -> evenhand::stats::permanova::Permanova {
    let mut whole = PermanovaJob::new(input, labels, options()).unwrap();
    for &(first, end) in ranges {
        let worker = PermanovaJob::new(input, labels, options()).unwrap();
        let counts = worker.count(first, end).unwrap();
        assert_eq!(worker.progress().done, 0, "count leaves its job unchanged");
        whole.absorb(counts).unwrap();
    }
    whole.result().unwrap()
}

#[test]
fn any_split_gives_the_bits_of_one_run() {
    let (x, labels) = data(300, 12, 0.12);
    let dm = DistanceMatrix::from_vectors(&x, Distance::Cosine).unwrap();
    let inputs = [
        Input::Vectors(&x, Distance::Euclidean),
        Input::Vectors(&x, Distance::Chord),
        Input::Vectors(&x, Distance::Cosine),
        Input::Matrix(&dm),
    ];
    let splits: [&[(usize, usize)]; 5] = [
        &[(0, P)],
        &[(0, 1), (1, 500), (500, P)],
        &[(500, P), (0, 1), (1, 500)],
        &[(0, 37), (37, 38), (38, 64), (64, 129), (129, 998), (998, P)],
        &[(700, 701), (0, 3), (3, 700), (701, 702), (702, P)],
    ];
    for input in inputs {
        let one = permanova(input, &labels, options()).unwrap();
        assert!(0 < one.exceedances && one.exceedances < P, "PERMANOVA counts some: {}", one.exceedances);
        assert!(0 < one.permdisp.exceedances && one.permdisp.exceedances < P, "{}", one.permdisp.exceedances);
        for ranges in splits {
            let r = split(input, &labels, ranges);
            assert_eq!(r, one, "{} {ranges:?}", one.path);
            assert_eq!((r.f.to_bits(), r.permdisp.f.to_bits()), (one.f.to_bits(), one.permdisp.f.to_bits()));
        }
    }
}

#[test]
fn the_flat_request_builds_the_same_job() {
    // What the page's workers receive: a query and its numbers.
    let (x, labels) = data(200, 7, 0.1);
    let values: Vec<f64> = (0..x.len()).flat_map(|i| x.row(i).to_vec()).collect();
    let query: PermanovaQuery = serde_json::from_value(serde_json::json!({
        "groups": labels, "dim": 7, "distance": "chord", "permutations": P, "seed": 17
    }))
    .unwrap();
    let back: PermanovaQuery = serde_json::from_value(serde_json::to_value(&query).unwrap()).unwrap();
    assert_eq!(back, query, "the query survives a round trip through JSON");
    let mut whole = back.job(values.clone()).unwrap();
    for (first, end) in [(0, 400), (400, P)] {
        whole.absorb(query.job(values.clone()).unwrap().count(first, end).unwrap()).unwrap();
    }
    assert_eq!(whole.result().unwrap(), permanova(Input::Vectors(&x, Distance::Chord), &labels, options()).unwrap());
}

#[test]
fn bad_ranges_are_refused_and_change_nothing() {
    let (x, labels) = data(60, 3, 0.3);
    let input = Input::Vectors(&x, Distance::Euclidean);
    let mut job = PermanovaJob::new(input, &labels, options()).unwrap();
    assert_eq!(job.count(0, P + 1), Err(MultivariateError::OutsideJob { first: 0, end: P + 1, total: P }));
    assert_eq!(job.count(10, 9), Err(MultivariateError::OutsideJob { first: 10, end: 9, total: P }));
    let c = |first, end| job_counts(input, &labels, first, end);
    job.absorb(c(100, 200)).unwrap();
    assert_eq!(
        job.absorb(c(150, 250)),
        Err(MultivariateError::Overlap { first: 150, end: 250, counted_first: 100, counted_end: 200 })
    );
    assert_eq!(
        job.absorb(c(0, 101)),
        Err(MultivariateError::Overlap { first: 0, end: 101, counted_first: 100, counted_end: 200 })
    );
    assert!(matches!(job.absorb(c(100, 200)), Err(MultivariateError::Overlap { .. })), "the same range twice");
    let beyond = Counts { first: 990, end: 1005, permanova: 0, permdisp: 0 };
    assert_eq!(job.absorb(beyond), Err(MultivariateError::OutsideJob { first: 990, end: 1005, total: P }));
    let inflated = Counts { first: 300, end: 310, permanova: 11, permdisp: 0 };
    assert_eq!(job.absorb(inflated), Err(MultivariateError::TooManyExceedances { first: 300, end: 310, found: 11 }));
    assert_eq!(job.progress(), Progress { done: 100, total: P }, "refusals change nothing");
    assert!(matches!(job.result(), Err(MultivariateError::Unfinished { done: 100, total: P })));
    // An empty range is no work; the rest, then advance over the gaps, completes the job.
    job.absorb(c(500, 500)).unwrap();
    job.absorb(c(600, P)).unwrap();
    assert_eq!(job.advance(usize::MAX), Progress { done: 599, total: P }, "advance fills 0..100 first");
    assert_eq!(job.advance(usize::MAX), Progress { done: P, total: P }, "then 200..600");
    let full = job_counts(input, &labels, 0, P);
    assert!(matches!(job.absorb(full), Err(MultivariateError::Overlap { .. })), "counted twice");
    assert_eq!(job.result().unwrap(), permanova(input, &labels, options()).unwrap());
}

fn job_counts(input: Input<'_>, labels: &[String], first: usize, end: usize) -> Counts {
    PermanovaJob::new(input, labels, options()).unwrap().count(first, end).unwrap()
}
