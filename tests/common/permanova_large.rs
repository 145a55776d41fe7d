//! A PERMANOVA fixture past one slice of the group sums (600 points: three slices of 256),
//! shared by the native golden test (tests/golden_permanova.rs) and the browser's check
//! (tests/common/facade.rs), which runs its own kernel (added rows, not the matrix product).

/// 600 points in R^20 in `groups` groups; integer arithmetic only, so the data are exact.
pub fn fixture(groups: usize) -> (usize, Vec<f64>, Vec<String>) {
    let (n, dim) = (600usize, 20usize);
    let mut values = Vec::with_capacity(n * dim);
    let mut labels = Vec::with_capacity(n);
    for i in 0..n {
        let g = (i * 7) % groups;
        for k in 0..dim {
            values.push(((i * 131 + k * 29 + i * k * 3) % 97) as f64 / 16.0 + if k == g { 1.0 } else { 0.0 });
        }
        labels.push(format!("g{g}"));
    }
    (dim, values, labels)
}

/// The query of each case: (groups, distance).
pub const CASES: [(usize, &str); 3] = [(2, "euclidean"), (3, "euclidean"), (3, "chord")];

pub fn query(groups: usize, distance: &str) -> serde_json::Value {
    let (dim, _, labels) = fixture(groups);
    serde_json::json!({"dim": dim, "groups": labels, "distance": distance, "permutations": 199, "seed": 17})
}
