//! Every distribution function Evenhand uses, over a grid of arguments (tails, tiny and huge
//! degrees of freedom, p near 0 and 1), as f64 bit patterns. tests/golden_distributions.rs
//! pins them natively in tests/golden/distributions.json; tests/web_distributions.rs computes
//! the same grid in Chromium and must find the same bits.

use evenhand::rng;
use evenhand::stats::mcnemar::{Convention, Method, Table, mcnemar};
use evenhand::stats::{chisq, fdist, normal, proportion, student};

/// Arguments are named with `{:?}`, Rust's shortest round-trip form, the same on every target.
pub fn grid() -> Vec<(String, f64)> {
    let mut out: Vec<(String, f64)> = vec![];
    let mut put = |name: String, v: f64| out.push((name, v));

    let zs = [
        -40.0, -38.5, -30.0, -20.0, -10.0, -8.3, -5.0, -3.0, -1.96, -1.0, -0.5, -1e-10, 0.0, 1e-10, 0.5, 1.0, 1.96,
        3.0, 5.0, 8.3, 10.0, 20.0, 30.0, 38.5, 40.0,
    ];
    for z in zs {
        put(format!("normal::cdf({z:?})"), normal::cdf(z));
        put(format!("normal::pdf({z:?})"), normal::pdf(z));
        put(format!("normal::two_sided_p({z:?})"), normal::two_sided_p(z));
    }
    let ps = [
        1e-300,
        1e-100,
        1e-20,
        1e-12,
        1e-6,
        1e-3,
        0.01,
        0.025,
        0.05,
        0.1,
        0.3,
        0.5,
        0.7,
        0.9,
        0.95,
        0.975,
        0.99,
        0.999,
        1.0 - 1e-6,
        1.0 - 1e-12,
        1.0 - f64::EPSILON,
    ];
    for p in ps {
        put(format!("normal::quantile({p:?})"), normal::quantile(p));
    }

    let tiny_to_huge = [0.1, 0.5, 1.0, 2.0, 3.0, 4.5, 10.0, 30.0, 100.0, 1e3, 1e5, 1e7];
    for df in tiny_to_huge {
        let xs = [1e-10, 1e-3, 0.5, 1.0, 3.841_458_820_694_124, 10.0, 50.0, 300.0, 1e4, 0.9 * df, df, 1.1 * df];
        for x in xs {
            put(format!("chisq::sf({x:?}, {df:?})"), chisq::sf(x, df));
        }
        for t in [-30.0, -2.0, 1e-8, 0.3, 1.0, 1.96, 2.5, 6.0, 40.0, 1e4, 1e10] {
            put(format!("student::sf({t:?}, {df:?})"), student::sf(t, df));
        }
        for p in [1e-12, 1e-6, 1e-3, 0.025, 0.1, 0.4, 0.6, 0.9, 0.975, 0.995, 1.0 - 1e-6] {
            put(format!("student::quantile({p:?}, {df:?})"), student::quantile(p, df));
        }
    }

    for d1 in [1.0, 2.0, 5.0, 30.0, 1e3] {
        for d2 in [1.0, 3.0, 10.0, 100.0, 1e4, 1e6] {
            for f in [1e-8, 0.1, 1.0, 2.5, 10.0, 1e3, 1e8] {
                put(format!("fdist::sf({f:?}, {d1:?}, {d2:?})"), fdist::sf(f, d1, d2));
            }
        }
    }
    for (a, b) in [(0.5, 0.5), (0.5, 3e4), (2.0, 7.0), (40.0, 60.0), (1e3, 1e3)] {
        for x in [1e-12, 1e-4, 0.2, 0.5, 0.8, 1.0 - 1e-9] {
            put(format!("fdist::beta_inc({a:?}, {b:?}, {x:?})"), fdist::beta_inc(a, b, x));
        }
    }

    // The binomial (McNemar's exact and mid-p tails), the chi-square with 1 df through erfc,
    // and the odds ratio's log-scale interval.
    let tables: [(u64, u64); 14] = [
        (0, 0),
        (0, 1),
        (1, 5),
        (3, 3),
        (10, 25),
        (0, 60),
        (100, 140),
        (1_000, 1_100),
        (512, 1_536),
        (25_000, 25_500),
        (500_000, 510_000),
        (10_000_000, 10_005_000),
        (1_000_000_000, 1_000_040_000),
        (7, 1_000_000),
    ];
    for (b, c) in tables {
        let t = Table::new(0, b, c, 0).expect("counts below 2^53");
        for method in [Method::Exact, Method::MidP, Method::Chi2, Method::Chi2Cc] {
            let r = mcnemar(&t, method, Convention::Statsmodels);
            put(format!("mcnemar::{method:?}({b}, {c}).p"), r.p_value);
            if method == Method::Exact {
                put(format!("mcnemar::{method:?}({b}, {c}).odds_ratio_low"), r.odds_ratio_low.unwrap_or(f64::NAN));
                put(format!("mcnemar::{method:?}({b}, {c}).odds_ratio_high"), r.odds_ratio_high.unwrap_or(f64::NAN));
            }
        }
    }

    for (k, n) in [(0, 1), (1, 3), (17, 40), (999, 1000), (123_456, 1_000_000)] {
        for confidence in [0.5, 0.9, 0.95, 0.99, 0.999_999] {
            let w = proportion::wilson(k, n, confidence).expect("k <= n");
            put(format!("wilson({k}, {n}, {confidence:?}).low"), w.low);
            put(format!("wilson({k}, {n}, {confidence:?}).high"), w.high);
        }
    }

    let mut r = rng::rng_for(2026, &[b"distributions"]);
    for i in 0..20 {
        put(format!("rng::standard_normal #{i}"), rng::standard_normal(&mut r));
    }
    out
}

/// The grid as the golden file's text: one `[name, bits, value]` row per line (bits as 16 hex
/// digits; the value only to read; NaN and infinities as null, which JSON lacks).
pub fn render(grid: &[(String, f64)]) -> String {
    let rows: Vec<String> = grid
        .iter()
        .map(|(name, v)| {
            let value = if v.is_finite() { serde_json::json!(v) } else { serde_json::Value::Null };
            format!("  [{}, \"{:016x}\", {}]", serde_json::json!(name), v.to_bits(), value)
        })
        .collect();
    format!("[\n{}\n]\n", rows.join(",\n"))
}

/// Every way `grid` differs from the golden file's text, one line each; empty when the bits agree.
pub fn differences(grid: &[(String, f64)], golden: &str) -> Vec<String> {
    let pinned: Vec<(String, String, serde_json::Value)> = match serde_json::from_str(golden) {
        Ok(rows) => rows,
        Err(e) => return vec![format!("the golden file does not parse: {e}")],
    };
    let mut out = vec![];
    if pinned.len() != grid.len() {
        out.push(format!("the golden file has {} values, the grid {}", pinned.len(), grid.len()));
    }
    for ((name, v), (pinned_name, bits, value)) in grid.iter().zip(&pinned) {
        let here = format!("{:016x}", v.to_bits());
        if name != pinned_name {
            out.push(format!("{name}: the golden file has {pinned_name} here"));
        } else if &here != bits {
            out.push(format!("{name} = {v:?} ({here}), pinned {value} ({bits})"));
        }
    }
    out
}
