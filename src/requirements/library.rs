//! LangBiTe's template libraries: tab-separated files named `.csv`
//! (UTF-8, CRLF, no quoting, first line a header) and the `LangBiTeForAPI` JSON prompt form.
//!
//! Upstream reads columns by position. We read them by header name (current and legacy names)
//! and fall back to the upstream position for a column whose name is not found, with a
//! warning. Empty cells are `None` as pandas makes them; in the JSON form an empty
//! `task_prefix` stays `Some("")`, as upstream (it then gets the delimiter sentence).
//! [`write_tsv`] writes a library back byte for byte as read.

use crate::formats::Problem;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Upstream column order, with the legacy header names accepted for each position.
const COLUMNS: [(&str, &str); 9] = [
    ("prompt_id", ""),
    ("concern", ""),
    ("input_type", "prompt_type"),
    ("reflection_type", "assessment_type"),
    ("task_prefix", ""),
    ("prompt", ""),
    ("output_formatting", ""),
    ("oracle", ""),
    ("oracle_prediction", ""),
];

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Template {
    /// 1-based line of the file (JSON form: 1-based index in the list).
    pub row: usize,
    pub id: String,
    pub concern: String,
    /// `constrained` / `verbose`; the legacy `open` / `adversarial` are mapped.
    pub input_type: String,
    /// The input type cell as written (legacy value included), for writing back.
    pub input_type_raw: String,
    pub reflection_type: String,
    pub task_prefix: Option<String>,
    pub prompt: String,
    pub output_formatting: Option<String>,
    pub oracle: String,
    /// The cell as written, and its parse when it is JSON.
    pub oracle_prediction_raw: String,
    pub oracle_prediction: Option<Value>,
    /// Cells after the ninth (en_us has `source`), as written.
    pub extra: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Library {
    pub file: String,
    pub language: String,
    pub header: Vec<String>,
    /// Some row uses the legacy `open` / `adversarial`.
    pub legacy_values: bool,
    /// Line ending as read (upstream's files: CRLF) and whether the file ended with one
    /// (upstream's do not), so that [`write_tsv`] gives the bytes back.
    pub crlf: bool,
    pub final_newline: bool,
    pub templates: Vec<Template>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Loaded {
    pub library: Library,
    /// What upstream would crash on (invalid oracle JSON, unknown oracle type, short rows).
    pub errors: Vec<Problem>,
    /// Defects upstream sends to the model silently.
    pub warnings: Vec<Problem>,
}

#[derive(Debug, thiserror::Error)]
pub enum LibraryError {
    #[error("{0}: the library is empty (expected a header line)")]
    Empty(String),
    #[error("{file}: not UTF-8 text: {message}")]
    Encoding { file: String, message: String },
    #[error("{file}:{line}:{column}: not valid JSON: {message}")]
    Json { file: String, line: usize, column: usize, message: String },
    #[error("{file}: expected a JSON list of template objects")]
    NotAList { file: String },
}

/// Reads a tab-separated library for `language`.
pub fn read_tsv(file: &str, language: &str, bytes: &[u8]) -> Result<Loaded, LibraryError> {
    let text = std::str::from_utf8(bytes)
        .map_err(|e| LibraryError::Encoding { file: file.to_string(), message: e.to_string() })?;
    let mut warnings = vec![];
    let text = match text.strip_prefix('\u{feff}') {
        Some(rest) => {
            warnings.push(Problem::new(
                file,
                "starts with a byte-order mark; upstream would read it into the first header",
            ));
            rest
        }
        None => text,
    };
    let crlf = text.split('\n').next().is_some_and(|h| h.ends_with('\r')) || !text.contains('\n');
    let final_newline = text.ends_with('\n');
    let mut lines = text.split('\n').map(|l| l.strip_suffix('\r').unwrap_or(l));
    let header: Vec<String> = match lines.next() {
        Some(h) if !h.is_empty() => h.split('\t').map(str::to_string).collect(),
        _ => return Err(LibraryError::Empty(file.to_string())),
    };
    let rows: Vec<(usize, Vec<String>)> = lines
        .enumerate()
        .filter(|(_, l)| !l.is_empty())
        .map(|(i, l)| (i + 2, l.split('\t').map(str::to_string).collect()))
        .collect();
    let mut loaded = build(file, language, header, rows, false, warnings);
    loaded.library.crlf = crlf;
    loaded.library.final_newline = final_newline;
    Ok(loaded)
}

/// Reads the JSON prompt form: a list of objects whose keys are the column names, in column order.
pub fn read_json(file: &str, language: &str, text: &str) -> Result<Loaded, LibraryError> {
    let rows: Vec<OrderedRow> = serde_json::from_str(text).map_err(|e| {
        if e.is_data() {
            LibraryError::NotAList { file: file.to_string() }
        } else {
            LibraryError::Json { file: file.to_string(), line: e.line(), column: e.column(), message: e.to_string() }
        }
    })?;
    let header: Vec<String> = rows.first().map(|r| r.0.iter().map(|(k, _)| k.clone()).collect()).unwrap_or_default();
    if header.is_empty() {
        return Err(LibraryError::Empty(file.to_string()));
    }
    let cells = rows
        .into_iter()
        .enumerate()
        .map(|(i, r)| {
            let cells =
                r.0.into_iter()
                    .map(|(_, v)| match v {
                        Value::String(s) => s,
                        Value::Null => String::new(),
                        other => other.to_string(),
                    })
                    .collect();
            (i + 1, cells)
        })
        .collect();
    Ok(build(file, language, header, cells, true, vec![]))
}

/// A JSON object with its keys in file order (serde_json's map sorts them).
struct OrderedRow(Vec<(String, Value)>);

impl<'de> Deserialize<'de> for OrderedRow {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = OrderedRow;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a template object")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<OrderedRow, A::Error> {
                let mut out = vec![];
                while let Some(entry) = map.next_entry::<String, Value>()? {
                    out.push(entry);
                }
                Ok(OrderedRow(out))
            }
        }
        d.deserialize_map(V)
    }
}

fn build(
    file: &str,
    language: &str,
    header: Vec<String>,
    rows: Vec<(usize, Vec<String>)>,
    json_form: bool,
    mut warnings: Vec<Problem>,
) -> Loaded {
    let mut errors = vec![];
    let mut positions = [0usize; 9];
    for (pos, (name, legacy)) in COLUMNS.iter().enumerate() {
        let found = header.iter().position(|h| h == name || (!legacy.is_empty() && h == legacy));
        positions[pos] = found.unwrap_or(pos);
        match found {
            Some(at) if at != pos => warnings.push(Problem::new(
                file,
                format!("column {name} is at position {} but upstream reads position {} by position", at + 1, pos + 1),
            )),
            None => warnings.push(Problem::new(
                file,
                format!("no column named {name}; reading position {} as upstream does", pos + 1),
            )),
            _ => {}
        }
    }
    let mut legacy_values = false;
    let mut templates = vec![];
    for (row, cells) in rows {
        let at = |pos: usize| cells.get(positions[pos]).cloned().unwrap_or_default();
        if cells.len() < 9 {
            errors.push(
                Problem::new(file, format!("expected at least 9 cells, found {}", cells.len())).at_line(row as u64),
            );
            continue;
        }
        let opt = |s: String| if s.is_empty() && !json_form { None } else { Some(s) };
        let mut input_type = at(2).to_lowercase();
        match input_type.as_str() {
            "open" => (input_type, legacy_values) = ("constrained".into(), true),
            "adversarial" => (input_type, legacy_values) = ("verbose".into(), true),
            "constrained" | "verbose" => {}
            other => warnings.push(
                Problem::new(
                    file,
                    format!("unknown input type {other:?} (expected constrained or verbose); never selected"),
                )
                .at_line(row as u64)
                .in_field("input_type"),
            ),
        }
        let reflection_type = at(3).to_lowercase();
        if !matches!(reflection_type.as_str(), "observational" | "utopian") {
            warnings.push(
                Problem::new(file, format!("unknown reflection type {reflection_type:?}; never selected"))
                    .at_line(row as u64)
                    .in_field("reflection_type"),
            );
        }
        let oracle = at(7);
        if oracle != "expected value" && oracle != "same value" {
            errors.push(
                Problem::new(file, format!("expected \"expected value\" or \"same value\", found {oracle:?}"))
                    .at_line(row as u64)
                    .in_field("oracle"),
            );
        }
        let raw = at(8);
        let prediction = match serde_json::from_str::<Value>(&raw) {
            Ok(v) => Some(v),
            Err(e) => {
                errors.push(
                    Problem::new(file, format!("not valid JSON ({e}); upstream crashes on load"))
                        .at_line(row as u64)
                        .in_field("oracle_prediction"),
                );
                None
            }
        };
        let task_prefix = opt(at(4));
        if json_form && task_prefix.as_deref() == Some("") {
            warnings.push(
                Problem::new(file, "empty task_prefix: in the JSON form upstream still adds the delimiter sentence")
                    .at_line(row as u64)
                    .in_field("task_prefix"),
            );
        }
        let used: Vec<usize> = positions.to_vec();
        let extra = (0..cells.len()).filter(|i| !used.contains(i)).map(|i| cells[i].clone()).collect();
        templates.push(Template {
            row,
            id: at(0),
            concern: at(1),
            input_type,
            input_type_raw: at(2),
            reflection_type,
            task_prefix,
            prompt: at(5),
            output_formatting: opt(at(6)),
            oracle,
            oracle_prediction_raw: raw,
            oracle_prediction: prediction,
            extra,
        });
    }
    let library = Library {
        file: file.to_string(),
        language: language.to_string(),
        header,
        legacy_values,
        crlf: true,
        final_newline: false,
        templates,
    };
    Loaded { library, errors, warnings }
}

/// Writes a library as LangBiTe's tab-separated form: the header and line endings as read
/// (CRLF and no final newline for a library that did not come from a file).
pub fn write_tsv(lib: &Library) -> String {
    let mut lines = vec![lib.header.join("\t")];
    for t in &lib.templates {
        let mut cells = vec![
            t.id.as_str(),
            &t.concern,
            &t.input_type_raw,
            &t.reflection_type,
            t.task_prefix.as_deref().unwrap_or(""),
            &t.prompt,
            t.output_formatting.as_deref().unwrap_or(""),
            &t.oracle,
            &t.oracle_prediction_raw,
        ];
        cells.extend(t.extra.iter().map(String::as_str));
        lines.push(cells.join("\t"));
    }
    let eol = if lib.crlf { "\r\n" } else { "\n" };
    let mut out = lines.join(eol);
    if lib.final_newline {
        out.push_str(eol);
    }
    out
}

/// Writes the JSON prompt form, keys in column order.
pub fn write_json(lib: &Library) -> String {
    let names: Vec<&str> = COLUMNS.iter().map(|(n, _)| *n).collect();
    let extra_names: Vec<String> = lib.header.iter().skip(9).cloned().collect();
    let rows: Vec<String> = lib
        .templates
        .iter()
        .map(|t| {
            let values = [
                t.id.as_str(),
                &t.concern,
                &t.input_type,
                &t.reflection_type,
                t.task_prefix.as_deref().unwrap_or(""),
                &t.prompt,
                t.output_formatting.as_deref().unwrap_or(""),
                &t.oracle,
                &t.oracle_prediction_raw,
            ];
            let mut fields: Vec<String> = names.iter().zip(values).map(|(k, v)| pair(k, v)).collect();
            for (i, v) in t.extra.iter().enumerate() {
                let name = extra_names.get(i).cloned().unwrap_or_else(|| format!("column_{}", 10 + i));
                fields.push(pair(&name, v));
            }
            format!("{{{}}}", fields.join(", "))
        })
        .collect();
    format!("[\n{}\n]\n", rows.join(",\n"))
}

fn pair(k: &str, v: &str) -> String {
    format!("{}: {}", Value::from(k), Value::from(v))
}
