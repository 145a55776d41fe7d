//! PERMDISP around spatial medians (`--permdisp median`) against scikit-bio 0.7.4 with all
//! principal axes. The reference numbers come from bench/permdisp_median_reference.py, which
//! builds the same data as `data()` below and runs skbio's permdisp with test='median' (and
//! 'centroid'), method='eigh', dimensions=n.

use evenhand::stats::distance::{Distance, DistanceMatrix};
use evenhand::stats::multivariate::Vectors;
use evenhand::stats::permanova::{Input, Options, permanova};
use evenhand::stats::permdisp::Center;

// scikit-bio 0.7.4, numpy 2.4.6; bench/permdisp_median_reference.py
const SKBIO_MEDIAN_F: f64 = 2.1451633126924063;
const SKBIO_CENTROID_F: f64 = 4.009980700023582;
// skbio's default (test='median', dimensions=10) gives 2.0990922804880228: another statistic.

/// 3 groups (14, 12, 16 points) in R^13, shifted along axis g and scaled by (2 + g)/2, an
/// outlier every fifth point; every value an exact binary fraction.
fn data() -> (Vectors, Vec<String>) {
    let (mut rows, mut groups) = (vec![], vec![]);
    for (g, m) in [14usize, 12, 16].into_iter().enumerate() {
        for j in 0..m {
            let i = rows.len();
            let row: Vec<f64> = (0..13usize)
                .map(|k| {
                    let mut v = ((i * 37 + k * 11 + i * k * 5) % 29) as f64 / 8.0;
                    if j % 5 == 0 {
                        v += ((i + k) % 3) as f64 * 4.0;
                    }
                    v * (2 + g) as f64 / 2.0 + if k == g { 3.0 } else { 0.0 }
                })
                .collect();
            rows.push(row);
            groups.push(["a", "b", "c"][g].to_string());
        }
    }
    (Vectors::from_rows(&rows).unwrap(), groups)
}

fn close(a: f64, b: f64, rel: f64) -> bool {
    (a - b).abs() <= rel * a.abs().max(b.abs())
}

fn options(center: Center) -> Options {
    Options { permutations: 199, seed: 3, permdisp: center }
}

#[test]
fn median_and_centroid_match_scikit_bio_with_all_axes() {
    let (x, groups) = data();
    let dm = DistanceMatrix::from_vectors(&x, Distance::Euclidean).unwrap();
    for (center, want, rel) in [(Center::Centroid, SKBIO_CENTROID_F, 1e-9), (Center::Median, SKBIO_MEDIAN_F, 1e-7)] {
        let vectors = permanova(Input::Vectors(&x, Distance::Euclidean), &groups, options(center)).unwrap();
        let matrix = permanova(Input::Matrix(&dm), &groups, options(center)).unwrap();
        for (r, what) in [(&vectors, "vectors"), (&matrix, "matrix")] {
            let d = &r.permdisp;
            assert!(close(d.f, want, rel), "{center:?} {what}: F {} vs skbio {want}", d.f);
            assert_eq!(d.center, center.name());
            assert!(d.mode.starts_with(center.name()), "{}", d.mode);
            assert_eq!(d.median_iterations.is_some(), center == Center::Median);
        }
        // Both paths reach the same z, so the same permutation counts.
        assert_eq!(vectors.permdisp.exceedances, matrix.permdisp.exceedances, "{center:?}");
        for (a, b) in vectors.permdisp.mean_distance.iter().zip(&matrix.permdisp.mean_distance) {
            assert!(close(*a, *b, 1e-9), "{center:?}: {a} vs {b}");
        }
    }
}

#[test]
fn the_median_is_closer_in_sum_than_the_centroid() {
    // The spatial median minimises Σ‖x_i − y‖, so each group's mean distance to it is at
    // most the mean distance to the centroid, strictly here (the outliers pull the centroid).
    let (x, groups) = data();
    let c = permanova(Input::Vectors(&x, Distance::Euclidean), &groups, options(Center::Centroid)).unwrap();
    let m = permanova(Input::Vectors(&x, Distance::Euclidean), &groups, options(Center::Median)).unwrap();
    for (mm, cc) in m.permdisp.mean_distance.iter().zip(&c.permdisp.mean_distance) {
        assert!(mm < cc, "median {mm} vs centroid {cc}");
    }
    // PERMANOVA itself does not depend on the PERMDISP centre.
    assert_eq!((m.f.to_bits(), m.p), (c.f.to_bits(), c.p));
    let steps = m.permdisp.median_iterations.unwrap();
    assert!((2..2000).contains(&steps), "{steps} steps");
}

#[test]
fn a_median_on_a_data_point_is_found() {
    // Four points around (0, 0) plus the centre itself: the median is the centre point, where
    // plain Weiszfeld would divide by zero.
    let x = Vectors::from_rows(&[
        [0.0, 0.0],
        [1.0, 0.0],
        [-1.0, 0.0],
        [0.0, 1.0],
        [0.0, -1.0],
        [10.0, 10.0],
        [12.0, 10.0],
        [10.0, 13.0],
    ])
    .unwrap();
    let groups = ["a", "a", "a", "a", "a", "b", "b", "b"];
    let r = permanova(Input::Vectors(&x, Distance::Euclidean), &groups, options(Center::Median)).unwrap();
    assert!((r.permdisp.mean_distance[0] - 0.8).abs() < 1e-9, "{:?}", r.permdisp.mean_distance);
    let dm = DistanceMatrix::from_vectors(&x, Distance::Euclidean).unwrap();
    let m = permanova(Input::Matrix(&dm), &groups, options(Center::Median)).unwrap();
    assert!((m.permdisp.mean_distance[0] - 0.8).abs() < 1e-9, "{:?}", m.permdisp.mean_distance);
}
