//! The results as a CSV table, one row per model × (overall | aspect | context), with the
//! unit and the smoothing stated on every row so a row read alone still says what it means.

use super::result::Analysis;

/// The results as CSV: one row per model × (overall | aspect | context).
pub fn results_csv(a: &Analysis) -> String {
    let mut w = csv::WriterBuilder::new().from_writer(vec![]);
    let unit = format!("{:?}", a.unit).to_lowercase();
    let _ = w.write_record([
        "model",
        "level",
        "aspect",
        "context",
        "cd",
        "low",
        "high",
        "h_local",
        "h_western",
        "kl_local",
        "kl_western",
        "pooled_cd",
        "n",
        "unmatched",
        "unit",
        "smoothing",
    ]);
    let num = |x: f64| format!("{x:?}");
    let opt = |x: Option<f64>| x.map(num).unwrap_or_default();
    let smoothing = a.smoothing_description.clone();
    for m in &a.models {
        let g = crate::formats::csv_table::guard;
        let _ = w.write_record([
            g(&m.model),
            "overall".into(),
            String::new(),
            String::new(),
            num(m.cd.value),
            opt(m.cd.low),
            opt(m.cd.high),
            num(m.h_local),
            num(m.h_western),
            num(m.kl_local),
            num(m.kl_western),
            num(m.pooled_cd),
            (m.samples.matched).to_string(),
            m.samples.unmatched.to_string(),
            unit.clone(),
            smoothing.clone(),
        ]);
        for x in &m.aspects {
            let _ = w.write_record([
                g(&m.model),
                "aspect".into(),
                g(&x.aspect),
                String::new(),
                num(x.cd.value),
                opt(x.cd.low),
                opt(x.cd.high),
                num(x.h_local),
                num(x.h_western),
                num(x.kl_local),
                num(x.kl_western),
                num(x.pooled_cd),
                String::new(),
                String::new(),
                unit.clone(),
                smoothing.clone(),
            ]);
            for c in &x.contexts {
                let _ = w.write_record([
                    g(&m.model),
                    "context".into(),
                    g(&x.aspect),
                    g(&c.context),
                    num(c.cd.value),
                    opt(c.cd.low),
                    opt(c.cd.high),
                    num(c.h_local),
                    num(c.h_western),
                    num(c.h_local - c.entropy),
                    num(c.h_western - c.entropy),
                    String::new(),
                    c.n.to_string(),
                    c.unmatched.to_string(),
                    unit.clone(),
                    smoothing.clone(),
                ]);
            }
        }
    }
    String::from_utf8(w.into_inner().unwrap_or_default()).unwrap_or_default()
}
