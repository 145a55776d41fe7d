//! McNemar against statsmodels 0.15.0 and R's mcnemar.test (shared/ref/stats/reference_vectors.json),
//! against an independent binomial sum on random tables, and through the CLI.

#[path = "common/cli.rs"]
mod cli;
use cli::evenhand;
use evenhand::stats::mcnemar::{Convention, Method, Table, mcnemar};

const REFERENCE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/ref/stats/reference_vectors.json");

/// 1e-12 relative, or 1e-15 absolute near 0.
fn close(got: f64, want: f64) -> bool {
    (got - want).abs() <= (1e-12 * want.abs()).max(1e-15)
}

fn pair(v: &serde_json::Value) -> (f64, f64) {
    (v[0].as_f64().unwrap(), v[1].as_f64().unwrap())
}

#[test]
fn matches_statsmodels_and_r() {
    let Ok(text) = std::fs::read_to_string(REFERENCE) else {
        eprintln!("skipped: {REFERENCE} not found");
        return;
    };
    let json: serde_json::Value = serde_json::from_str(&text).unwrap();
    let cases = json["mcnemar"]["cases"].as_object().unwrap();
    assert!(!cases.is_empty());
    for (name, case) in cases {
        let t = &case["table"];
        let cell = |r: usize, c: usize| t[r][c].as_u64().unwrap();
        let table = Table { n00: cell(0, 0), n01: cell(0, 1), n10: cell(1, 0), n11: cell(1, 1) };
        let results = &case["results"];
        let checks = [
            (Method::Exact, Convention::Statsmodels, pair(&results["exact=True,correction=True"])),
            (Method::Chi2Cc, Convention::Statsmodels, pair(&results["exact=False,correction=True"])),
            (Method::Chi2, Convention::Statsmodels, pair(&results["exact=False,correction=False"])),
            (Method::Chi2Cc, Convention::R, pair(&case["R_mcnemar.test_correct=TRUE"])),
        ];
        for (method, convention, (stat, p)) in checks {
            let r = mcnemar(&table, method, convention);
            let got = r.statistic.unwrap();
            assert!(close(got, stat), "{name} {method:?} {convention:?}: statistic {got} != {stat}");
            assert!(close(r.p_value, p), "{name} {method:?} {convention:?}: p {} != {p}", r.p_value);
        }
    }
}

/// P(X ≤ m) for X ~ Bin(n, ½) by direct summation of C(n, k)·2⁻ⁿ with f64 binomial coefficients
/// built upwards (C(n, k) = C(n, k − 1)·(n − k + 1)/k); fine for n ≤ 1000, where C(n, n/2) < 1e300.
fn naive_cdf(m: u64, n: u64) -> f64 {
    let (mut coef, mut sum) = (1.0f64, 1.0f64);
    for k in 1..=m {
        coef = coef * (n - k + 1) as f64 / k as f64;
        sum += coef;
    }
    sum * 0.5f64.powi(n as i32)
}

fn naive_pmf(m: u64, n: u64) -> f64 {
    let mut coef = 1.0f64;
    for k in 1..=m {
        coef = coef * (n - k + 1) as f64 / k as f64;
    }
    coef * 0.5f64.powi(n as i32)
}

#[test]
fn exact_p_agrees_with_direct_summation_on_random_tables() {
    let mut x = 0x2545_F491_4F6C_DD1Du64;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    for _ in 0..1000 {
        let (b, c) = (next() % 501, next() % 501);
        let table = Table { n00: next() % 100, n01: b, n10: c, n11: next() % 100 };
        let (m, n) = (b.min(c), b + c);
        let exact = mcnemar(&table, Method::Exact, Convention::Statsmodels).p_value;
        let mid = mcnemar(&table, Method::MidP, Convention::Statsmodels).p_value;
        let want = (2.0 * naive_cdf(m, n)).min(1.0);
        let want_mid = (2.0 * naive_cdf(m, n) - naive_pmf(m, n)).min(1.0);
        assert!((exact - want).abs() <= 1e-10 * want, "b={b} c={c}: exact {exact} != {want}");
        assert!((mid - want_mid).abs() <= 1e-10 * want_mid, "b={b} c={c}: mid-p {mid} != {want_mid}");
        assert!((0.0..=1.0).contains(&exact) && (0.0..=1.0).contains(&mid), "b={b} c={c}");
        assert!(mid <= exact, "b={b} c={c}: mid-p {mid} > exact {exact}");
    }
}

#[test]
fn cli_prints_json_and_refuses_bad_tables() {
    let (code, stdout, stderr) = evenhand(&["mcnemar", "--table", "10,5,15,20"]);
    assert_eq!(code, 0, "{stderr}");
    let v: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(v["method"], "exact");
    assert_eq!(v["convention"], "statsmodels");
    assert_eq!((v["b"].as_u64(), v["c"].as_u64()), (Some(5), Some(15)));
    assert_eq!(v["statistic"], 5.0);
    assert!(close(v["p_value"].as_f64().unwrap(), 0.04138946533203125));

    let (code, stdout, _) =
        evenhand(&["mcnemar", "--table", "50,12,12,50", "--method", "chi2-cc", "--convention", "r"]);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(
        (v["method"].as_str(), v["statistic"].as_f64(), v["p_value"].as_f64()),
        (Some("chi2-cc"), Some(0.0), Some(1.0))
    );

    let (code, stdout, _) = evenhand(&["mcnemar", "--table", "3,0,0,4", "--method", "midp"]);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(v["method"], "mid-p");
    assert!(v["odds_ratio"].is_null());

    for bad in ["1,2,3", "1,2,3,4,5", "1,-2,3,4", "a,b,c,d", "1.5,2,3,4", ""] {
        let (code, stdout, stderr) = evenhand(&["mcnemar", "--table", bad]);
        assert_eq!(code, 2, "{bad:?}");
        assert!(stdout.is_empty(), "{bad:?}: {stdout}");
        assert!(stderr.contains("--table") && stderr.contains("four non-negative integers"), "{bad:?}: {stderr}");
    }
    let (code, _, stderr) = evenhand(&["mcnemar", "--table", "1,2,3,4", "--method", "fisher"]);
    assert_eq!(code, 2);
    assert!(stderr.contains("--method"), "{stderr}");
}
