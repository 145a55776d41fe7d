//! PERMANOVA + PERMDISP give the same bits whatever the number of threads: each
//! permutation's F is computed the same way on any thread and only the counts are summed.
//! Sizes above 256 points exercise more than one k-slice of the matrix product.

use evenhand::stats::distance::{Distance, DistanceMatrix};
use evenhand::stats::multivariate::Vectors;
use evenhand::stats::permanova::{Input, Options, Permanova, PermanovaJob, permanova};
use evenhand::stats::permdisp::Center;

fn data(n: usize, dim: usize, groups: usize) -> (Vectors, Vec<String>) {
    let mut rng = evenhand::rng::rng_for(11, &[b"threads"]);
    let mut values = vec![];
    let mut labels = vec![];
    for i in 0..n {
        let g = i % groups;
        for k in 0..dim {
            values.push(evenhand::rng::standard_normal(&mut rng) + if k == g { 0.15 } else { 0.0 });
        }
        labels.push(format!("g{g}"));
    }
    (Vectors::from_flat(dim, values).unwrap(), labels)
}

fn in_pool<T: Send>(threads: usize, f: impl FnOnce() -> T + Send) -> T {
    rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap().install(f)
}

fn bits(r: &Permanova) -> (u64, u64, usize, u64, usize) {
    (r.f.to_bits(), r.ss_between.to_bits(), r.exceedances, r.permdisp.f.to_bits(), r.permdisp.exceedances)
}

#[test]
fn one_and_two_threads_give_the_same_bits() {
    let options = Options { permutations: 333, seed: 9, permdisp: Center::Centroid };
    for (n, dim, groups) in [(600, 40, 2), (301, 17, 3)] {
        let (x, labels) = data(n, dim, groups);
        let one = in_pool(1, || permanova(Input::Vectors(&x, Distance::Euclidean), &labels, options).unwrap());
        let two = in_pool(2, || permanova(Input::Vectors(&x, Distance::Euclidean), &labels, options).unwrap());
        assert_eq!(one, two, "{n} x {dim}");
        assert_eq!(bits(&one), bits(&two));
        // Chunks of odd sizes on two threads: the same again.
        let chunked = in_pool(2, || {
            let mut job = PermanovaJob::new(Input::Vectors(&x, Distance::Euclidean), &labels, options).unwrap();
            while job.advance(37).done < 333 {}
            job.result().unwrap()
        });
        assert_eq!(bits(&one), bits(&chunked));
        assert!(one.exceedances < 333, "the data have a group effect");
    }
    let (x, labels) = data(300, 8, 2);
    let dm = DistanceMatrix::from_vectors(&x, Distance::Cosine).unwrap();
    let one = in_pool(1, || permanova(Input::Matrix(&dm), &labels, options).unwrap());
    let two = in_pool(2, || permanova(Input::Matrix(&dm), &labels, options).unwrap());
    assert_eq!(bits(&one), bits(&two));
}
