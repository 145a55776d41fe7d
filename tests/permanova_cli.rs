//! `evenhand permanova`: embeddings or a matrix in, PERMANOVA + PERMDISP JSON out, located errors.

#[path = "common/cli.rs"]
mod cli;
use cli::evenhand;

#[test]
fn embeddings_and_the_equivalent_matrix_give_the_same_f() {
    let dir = std::env::temp_dir().join(format!("evenhand-permanova-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let pts: [[f64; 2]; 6] = [[0.0, 0.1], [0.2, 0.0], [0.1, 0.3], [2.0, 2.1], [2.2, 1.9], [1.8, 2.0]];
    let mut csv = String::from("id,v0,v1\n");
    let mut jsonl = String::new();
    let mut groups = String::from("id,group\n");
    let mut dm = String::from("id");
    for i in 0..6 {
        dm.push_str(&format!(",r{i}"));
    }
    dm.push('\n');
    for (i, p) in pts.iter().enumerate() {
        csv.push_str(&format!("r{i},{},{}\n", p[0], p[1]));
        jsonl.push_str(&format!("{{\"id\":\"r{i}\",\"embedding\":[{},{}]}}\n", p[0], p[1]));
        groups.push_str(&format!("r{i},{}\n", if i < 3 { "en" } else { "ko" }));
        dm.push_str(&format!("r{i}"));
        for q in &pts {
            dm.push_str(&format!(",{}", ((p[0] - q[0]).powi(2) + (p[1] - q[1]).powi(2)).sqrt()));
        }
        dm.push('\n');
    }
    groups.push_str("extra,en\n");
    for (name, text) in [("e.csv", &csv), ("e.jsonl", &jsonl), ("g.csv", &groups), ("d.csv", &dm)] {
        std::fs::write(dir.join(name), text).unwrap();
    }
    let p = |n: &str| dir.join(n).to_str().unwrap().to_string();
    let (code, out, err) =
        evenhand(&["permanova", "--embeddings", &p("e.csv"), "--groups", &p("g.csv"), "--seed", "3"]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("1 ids have no vector"), "{err}");
    let a: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!((a["path"].as_str(), a["n"].as_u64(), a["permutations"].as_u64()), (Some("fast"), Some(6), Some(999)));
    // Six points in two groups of three: 10 distinct splits, the observed one the most extreme,
    // so k is about 999/10 and p about 0.1.
    let p_value = a["p"].as_f64().unwrap();
    assert!(p_value > 0.05 && p_value < 0.2, "{p_value}");
    assert!(a["permdisp"]["f"].as_f64().is_some());
    let (_, out_jsonl, _) =
        evenhand(&["permanova", "--embeddings", &p("e.jsonl"), "--groups", &p("g.csv"), "--seed", "3"]);
    assert_eq!(serde_json::from_str::<serde_json::Value>(&out_jsonl).unwrap(), a);
    let (code, out, err) = evenhand(&["permanova", "--distances", &p("d.csv"), "--groups", &p("g.csv"), "--seed", "3"]);
    assert_eq!(code, 0, "{err}");
    let m: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(m["path"], "matrix");
    let (fa, fm) = (a["f"].as_f64().unwrap(), m["f"].as_f64().unwrap());
    assert!((fa - fm).abs() < 1e-9 * fa, "{fa} vs {fm}");
    assert_eq!(a["exceedances"], m["exceedances"]);
    let (code, _, err) = evenhand(&[
        "permanova",
        "--embeddings",
        &p("e.csv"),
        "--groups",
        &p("g.csv"),
        "--distance",
        "cosine-similarity-bug",
    ]);
    assert_eq!(code, 0);
    assert!(err.contains("BUG REPRODUCED ON PURPOSE"), "{err}");
    // Errors name the file, line and column.
    std::fs::write(dir.join("bad.csv"), "id,v0,v1\nr0,1,2\nr1,1,oops\n").unwrap();
    let (code, _, err) = evenhand(&["permanova", "--embeddings", &p("bad.csv"), "--groups", &p("g.csv")]);
    assert_eq!(code, 2);
    assert!(err.contains("bad.csv:3:3") && err.contains("oops"), "{err}");
    let (code, _, err) =
        evenhand(&["permanova", "--embeddings", &p("e.csv"), "--groups", &p("g.csv"), "--distance", "manhattan"]);
    assert_eq!(code, 2);
    assert!(err.contains("--distance"), "{err}");
    let (code, _, err) =
        evenhand(&["permanova", "--embeddings", &p("e.csv"), "--groups", &p("g.csv"), "--permutations", "0"]);
    assert_eq!(code, 2);
    assert!(err.contains("permutations"), "{err}");
    std::fs::write(dir.join("asym.csv"), "id,r0,r1\nr0,0,1\nr1,2,0\n").unwrap();
    let (code, _, err) = evenhand(&["permanova", "--distances", &p("asym.csv"), "--groups", &p("g.csv")]);
    assert_eq!(code, 2);
    // In the file's terms (line 2, column 3), not the matrix's 0-based row 0, column 1.
    assert!(err.contains("asym.csv:2:3: 1 here but 2 at line 3, column 2"), "{err}");
}

/// Issue 15, defect 5: values that overflow, degenerate cosine input, duplicate ids and
/// 0-based or `Some(..)` messages. Each case is refused with its file, line and column.
#[test]
fn overflowing_degenerate_and_duplicated_inputs_are_refused_where_they_are() {
    let dir = std::env::temp_dir().join(format!("evenhand-permanova-bad-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let files = [
        ("g.csv", "id,group\na1,A\na2,A\na3,A\nb1,B\nb2,B\nb3,B\n"),
        ("g2.csv", "id,group\nr1,A\nr2,B\nr3,B\n"),
        // Finite, but every squared distance overflows.
        (
            "big.csv",
            "id,v0,v1\na1,1e308,1e308\na2,-1e308,1e308\na3,1e308,-1e308\nb1,-1e308,-1e308\nb2,1e308,0\nb3,0,1e308\n",
        ),
        ("same.csv", "id,v0,v1\na1,1,2\na2,1,2\na3,1,2\nb1,1,2\nb2,1,2\nb3,1,2\n"),
        ("zero.csv", "id,v0,v1\na1,1,2\na2,0,0\na3,1,2\nb1,1,2\nb2,3,2\nb3,1,2\n"),
        ("dup.csv", "id,r1,r1,r2\nr1,0,1,2\nr1,1,0,3\nr2,2,3,0\n"),
        ("extra.csv", "id,r1,r2\nr1,0,1\nr2,1,0\nr3,1,1\n"),
    ];
    for (name, text) in files {
        std::fs::write(dir.join(name), text).unwrap();
    }
    let p = |n: &str| dir.join(n).to_str().unwrap().to_string();
    let refused = |args: &[&str]| {
        let (code, out, err) = evenhand(args);
        assert_ne!(code, 0, "accepted {args:?}: {out}");
        err
    };
    let err = refused(&["permanova", "--embeddings", &p("big.csv"), "--groups", &p("g.csv")]);
    assert!(err.contains("big.csv: the sum of squared distances overflows"), "{err}");
    // Identical vectors: Euclidean and cosine now agree that there is nothing to partition.
    for distance in ["euclidean", "chord", "cosine"] {
        let err =
            refused(&["permanova", "--embeddings", &p("same.csv"), "--groups", &p("g.csv"), "--distance", distance]);
        assert!(err.contains("all distances are zero"), "{distance}: {err}");
    }
    let err = refused(&["permanova", "--embeddings", &p("zero.csv"), "--groups", &p("g.csv"), "--distance", "cosine"]);
    assert!(err.contains("zero.csv:3: id \"a2\": a zero vector"), "{err}");
    let err = refused(&["permanova", "--distances", &p("dup.csv"), "--groups", &p("g2.csv")]);
    assert!(err.contains("dup.csv:1:3: id \"r1\" is in the header twice (columns 2 and 3)"), "{err}");
    let err = refused(&["permanova", "--distances", &p("extra.csv"), "--groups", &p("g2.csv")]);
    assert!(err.contains("extra.csv:4:1: expected 2 rows") && !err.contains("Some("), "{err}");
}
