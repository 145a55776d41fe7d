//! Embedding tables keyed by record id, group files and uploaded distance matrices, each
//! problem located by file, line and column.
//!
//! - Embeddings, CSV: header `id,v0,v1,…` (one number per cell) or `id,embedding` (a JSON
//!   array in one cell). JSONL: one `{"id": …, "embedding": […]}` per line. The id column may
//!   also be called `record_id`. Every vector must have the dimension of the first.
//! - Groups, CSV: columns `id` (or `record_id`) and `group` (or `language`), in any order.
//! - Distance matrix, CSV: a header of a corner cell then the ids; each row an id (the same
//!   ids in the same order) then its distances.
//!
//! A row that cannot be read stops the reading: a test on a silently shortened table would
//! answer a different question.

use super::{Problem, decode};
use crate::stats::distance::DistanceMatrix;
use crate::stats::multivariate::MultivariateError;
use serde::Serialize;
use std::collections::HashMap;

/// Vectors keyed by id, in file order, as one row-major buffer.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct EmbeddingTable {
    pub file: String,
    pub ids: Vec<String>,
    pub dim: usize,
    #[serde(skip)]
    pub values: Vec<f64>,
    /// The line each row came from (for messages about a row later on).
    #[serde(skip)]
    pub lines: Vec<u64>,
}

impl EmbeddingTable {
    /// Places an error about row `i` of these vectors at the row's line and id, in the file's
    /// terms (the statistics count rows from 0 and know nothing of files).
    pub fn locate(&self, e: MultivariateError) -> Problem {
        let at = |row: usize, message: String| {
            let id = self.ids.get(row).map_or(String::new(), |id| format!("id {id:?}: "));
            let p = Problem::new(&self.file, format!("{id}{message}"));
            match self.lines.get(row) {
                Some(&line) => p.at_line(line),
                None => p,
            }
        };
        match e {
            MultivariateError::ZeroVector { row, distance } => {
                at(row, format!("a zero vector has no direction, so the {distance} distance is undefined"))
            }
            MultivariateError::NotFinite { row, column, value } => {
                at(row, format!("component {}: expected a finite number, found {value}", column + 1))
            }
            MultivariateError::Dimension { row, expected, found } => {
                at(row, format!("expected {expected} components (as the first row), found {found}"))
            }
            other => Problem::new(&self.file, other.to_string()),
        }
    }

    pub fn row(&self, i: usize) -> &[f64] {
        &self.values[i * self.dim..(i + 1) * self.dim]
    }

    /// The rows of the given ids, in that order; an unknown id is an error naming it.
    pub fn select(&self, ids: &[&str]) -> Result<Vec<f64>, Problem> {
        let index: HashMap<&str, usize> = self.ids.iter().enumerate().map(|(i, id)| (id.as_str(), i)).collect();
        let mut out = Vec::with_capacity(ids.len() * self.dim);
        for id in ids {
            let &i = index
                .get(id)
                .ok_or_else(|| Problem::new(&self.file, format!("no embedding for record id {id:?}")).in_field("id"))?;
            out.extend_from_slice(self.row(i));
        }
        Ok(out)
    }

    fn push(&mut self, id: String, v: Vec<f64>, line: u64, seen: &mut HashMap<String, u64>) -> Result<(), Problem> {
        let at = |p: Problem| p.at_line(line);
        if id.trim().is_empty() {
            return Err(at(Problem::new(&self.file, "expected a record id, found an empty cell").in_field("id")));
        }
        if let Some(first) = seen.insert(id.clone(), line) {
            return Err(at(
                Problem::new(&self.file, format!("duplicate id {id:?} (first on line {first})")).in_field("id")
            ));
        }
        if self.ids.is_empty() {
            if v.is_empty() {
                return Err(at(Problem::new(&self.file, "expected at least one number, found an empty vector")));
            }
            self.dim = v.len();
        } else if v.len() != self.dim {
            return Err(at(Problem::new(
                &self.file,
                format!("expected {} numbers (the dimension of the first vector), found {}", self.dim, v.len()),
            )
            .in_field("embedding")));
        }
        self.ids.push(id);
        self.values.extend(v);
        self.lines.push(line);
        Ok(())
    }
}

fn number(file: &str, cell: &str, line: u64, column: u64, field: &str) -> Result<f64, Problem> {
    match cell.trim().parse::<f64>() {
        Ok(x) if x.is_finite() => Ok(x),
        _ => Err(Problem::new(file, format!("expected a finite number, found {cell:?}"))
            .at_line(line)
            .at_column(column)
            .in_field(field)),
    }
}

fn csv_rows<'a>(file: &str, text: &'a str) -> Result<(Vec<String>, csv::StringRecordsIntoIter<&'a [u8]>), Problem> {
    let delimiter = super::csv_table::sniff_delimiter(text);
    let mut rdr = super::csv_table::reader(file, text, delimiter, super::csv_table::RowLength::Ragged)?;
    let headers = rdr
        .headers()
        .map_err(|e| Problem::new(file, format!("CSV: {e}")).at_line(1))?
        .iter()
        .map(|h| h.trim().to_string())
        .collect();
    Ok((headers, rdr.into_records()))
}

fn find(headers: &[String], names: &[&str]) -> Option<usize> {
    headers.iter().position(|h| names.iter().any(|n| h.eq_ignore_ascii_case(n)))
}

fn line_of(r: &csv::StringRecord) -> u64 {
    r.position().map_or(0, |p| p.line())
}

/// Reads an embedding table (CSV or JSONL, detected from the content).
pub fn read_embeddings(file: &str, bytes: &[u8]) -> Result<EmbeddingTable, Problem> {
    let text = decode(file, bytes).map_err(|e| Problem::new(file, e.to_string()))?;
    let mut table = EmbeddingTable { file: file.to_string(), ids: vec![], dim: 0, values: vec![], lines: vec![] };
    let mut seen = HashMap::new();
    if text.trim_start().starts_with('{') {
        #[derive(serde::Deserialize)]
        struct Line {
            #[serde(alias = "record_id")]
            id: serde_json::Value,
            embedding: Vec<f64>,
        }
        for (k, l) in text.lines().enumerate() {
            let line = k as u64 + 1;
            if l.trim().is_empty() {
                continue;
            }
            let row: Line = serde_json::from_str(l).map_err(|e| {
                Problem::new(file, format!("expected {{\"id\": …, \"embedding\": [numbers]}}: {e}"))
                    .at_line(line)
                    .at_column(e.column() as u64)
            })?;
            let id = match row.id {
                serde_json::Value::String(s) => s,
                serde_json::Value::Number(n) => n.to_string(),
                other => {
                    return Err(Problem::new(file, format!("expected the id as a string or number, found {other}"))
                        .at_line(line)
                        .in_field("id"));
                }
            };
            table.push(id, row.embedding, line, &mut seen)?;
        }
    } else {
        let (headers, rows) = csv_rows(file, text)?;
        let id_col = find(&headers, &["id", "record_id"]).ok_or_else(|| {
            Problem::new(file, format!("expected an id column (id or record_id), found {headers:?}")).at_line(1)
        })?;
        let json_col = find(&headers, &["embedding"]);
        let value_cols: Vec<usize> = (0..headers.len()).filter(|&c| c != id_col).collect();
        if value_cols.is_empty() {
            return Err(Problem::new(file, "expected value columns (v0, v1, …) or an embedding column").at_line(1));
        }
        for r in rows {
            let r =
                r.map_err(|e| Problem::new(file, format!("CSV: {e}")).at_line(e.position().map_or(0, |p| p.line())))?;
            let line = line_of(&r);
            if r.len() != headers.len() {
                return Err(
                    Problem::new(file, format!("expected {} cells, found {}", headers.len(), r.len())).at_line(line)
                );
            }
            let v = match json_col {
                Some(c) => serde_json::from_str::<Vec<f64>>(&r[c]).map_err(|e| {
                    Problem::new(file, format!("expected a JSON array of numbers: {e}"))
                        .at_line(line)
                        .at_column(c as u64 + 1)
                        .in_field("embedding")
                })?,
                None => value_cols
                    .iter()
                    .map(|&c| number(file, &r[c], line, c as u64 + 1, &headers[c]))
                    .collect::<Result<_, _>>()?,
            };
            table.push(r[id_col].trim().to_string(), v, line, &mut seen)?;
        }
    }
    if table.ids.is_empty() {
        return Err(Problem::new(file, "the file has no vectors"));
    }
    Ok(table)
}

/// Reads `id,group` pairs; a duplicate id is an error.
pub fn read_groups(file: &str, bytes: &[u8]) -> Result<Vec<(String, String)>, Problem> {
    let text = decode(file, bytes).map_err(|e| Problem::new(file, e.to_string()))?;
    let (headers, rows) = csv_rows(file, text)?;
    let id = find(&headers, &["id", "record_id"]);
    let group = find(&headers, &["group", "language"]);
    let (Some(id), Some(group)) = (id, group) else {
        return Err(Problem::new(file, format!("expected columns id and group, found {headers:?}")).at_line(1));
    };
    let mut seen: HashMap<String, u64> = HashMap::new();
    let mut out = vec![];
    for r in rows {
        let r = r.map_err(|e| Problem::new(file, format!("CSV: {e}")).at_line(e.position().map_or(0, |p| p.line())))?;
        let line = line_of(&r);
        let (Some(i), Some(g)) = (r.get(id), r.get(group)) else {
            return Err(
                Problem::new(file, format!("expected {} cells, found {}", headers.len(), r.len())).at_line(line)
            );
        };
        let (i, g) = (i.trim().to_string(), g.trim().to_string());
        if g.is_empty() {
            return Err(Problem::new(file, "expected a group, found an empty cell")
                .at_line(line)
                .at_column(group as u64 + 1)
                .in_field("group"));
        }
        if let Some(first) = seen.insert(i.clone(), line) {
            return Err(Problem::new(file, format!("duplicate id {i:?} (first on line {first})"))
                .at_line(line)
                .in_field("id"));
        }
        out.push((i, g));
    }
    Ok(out)
}

/// The group of each id, in the order of `ids`. An id without a group is an error; ids of
/// the group file that are not in `ids` are returned for a warning.
///
/// An id without a group is reported in the file that gives the id (`source`, at the id's line
/// from `lines` when known): a mistyped id there is the likelier fault than a missing group row.
pub fn labels_for(
    ids: &[String],
    source: (&str, &[u64]),
    groups: &[(String, String)],
    groups_file: &str,
) -> Result<(Vec<String>, Vec<String>), Problem> {
    let map: HashMap<&str, &str> = groups.iter().map(|(i, g)| (i.as_str(), g.as_str())).collect();
    let labels = ids
        .iter()
        .enumerate()
        .map(|(k, id)| {
            map.get(id.as_str()).map(|g| g.to_string()).ok_or_else(|| {
                let p = Problem::new(source.0, format!("id {id:?} has no group in {groups_file}")).in_field("id");
                match source.1.get(k) {
                    Some(&line) => p.at_line(line),
                    None => p,
                }
            })
        })
        .collect::<Result<Vec<_>, _>>()?;
    let known: std::collections::HashSet<&str> = ids.iter().map(String::as_str).collect();
    let unused = groups.iter().filter(|(i, _)| !known.contains(i.as_str())).map(|(i, _)| i.clone()).collect();
    Ok((labels, unused))
}

/// Reads a square distance matrix with ids; values are checked for being numbers here and
/// for being a distance matrix by `stats::distance::DistanceMatrix::from_square`.
/// Reads and validates a distance matrix (square, finite, zero diagonal, non-negative,
/// symmetric, ids unique), every problem at its line and column in the file.
pub fn read_distance_matrix(file: &str, bytes: &[u8]) -> Result<(Vec<String>, DistanceMatrix), Problem> {
    let (ids, rows) = read_square(file, bytes)?;
    let matrix = DistanceMatrix::from_square(&rows).map_err(|e| locate(file, e))?;
    Ok((ids, matrix))
}

fn read_square(file: &str, bytes: &[u8]) -> Result<(Vec<String>, Vec<Vec<f64>>), Problem> {
    let text = decode(file, bytes).map_err(|e| Problem::new(file, e.to_string()))?;
    let (headers, rows) = csv_rows(file, text)?;
    let ids: Vec<String> = headers.iter().skip(1).cloned().collect();
    if ids.is_empty() {
        return Err(Problem::new(file, "expected a header of a corner cell and the ids").at_line(1));
    }
    let mut seen: HashMap<&str, usize> = HashMap::new();
    for (k, id) in ids.iter().enumerate() {
        if let Some(first) = seen.insert(id.as_str(), k) {
            return Err(Problem::new(
                file,
                format!("id {id:?} is in the header twice (columns {} and {})", first + 2, k + 2),
            )
            .at_line(1)
            .at_column(k as u64 + 2));
        }
    }
    let mut matrix = vec![];
    for r in rows {
        let r = r.map_err(|e| Problem::new(file, format!("CSV: {e}")).at_line(e.position().map_or(0, |p| p.line())))?;
        let line = line_of(&r);
        let k = matrix.len();
        if r.len() != headers.len() {
            return Err(
                Problem::new(file, format!("expected {} cells, found {}", headers.len(), r.len())).at_line(line)
            );
        }
        match ids.get(k) {
            Some(want) if want == r[0].trim() => {}
            Some(want) => {
                return Err(Problem::new(
                    file,
                    format!("expected row {} to be id {want:?} (the header's order), found {:?}", k + 1, &r[0]),
                )
                .at_line(line)
                .at_column(1));
            }
            None => {
                return Err(Problem::new(
                    file,
                    format!("expected {} rows (one per id in the header), found more: {:?}", ids.len(), &r[0]),
                )
                .at_line(line)
                .at_column(1));
            }
        }
        let row =
            (1..r.len()).map(|c| number(file, &r[c], line, c as u64 + 1, &headers[c])).collect::<Result<_, _>>()?;
        matrix.push(row);
    }
    if matrix.len() != ids.len() {
        return Err(Problem::new(
            file,
            format!("expected {} rows (one per id in the header), found {}", ids.len(), matrix.len()),
        ));
    }
    Ok((ids, matrix))
}

/// Places a matrix error at its cell in the file, in the file's terms (lines and columns, not
/// matrix indices).
pub fn locate(file: &str, e: MultivariateError) -> Problem {
    let at = |message: String, row: usize, column: usize| {
        Problem::new(file, message).at_line(row as u64 + 2).at_column(column as u64 + 2)
    };
    match e {
        MultivariateError::NotSquare { row, found, n } => {
            Problem::new(file, format!("expected {n} distances in this row, found {found}")).at_line(row as u64 + 2)
        }
        MultivariateError::NotFinite { row, column, value } => {
            at(format!("expected a finite distance, found {value}"), row, column)
        }
        MultivariateError::Diagonal { row, column, value } => {
            at(format!("a response's distance to itself must be 0, found {value}"), row, column)
        }
        MultivariateError::Negative { row, column, value } => {
            at(format!("expected a non-negative distance, found {value}"), row, column)
        }
        MultivariateError::Asymmetric { row, column, a, b } => at(
            format!("{a} here but {b} at line {}, column {}; expected a symmetric matrix", column + 2, row + 2),
            row,
            column,
        ),
        other => Problem::new(file, other.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_all_three_layouts_alike() {
        let a = read_embeddings("e.csv", b"id,v0,v1\nr1,1,2\nr2,3.5,-4\n").unwrap();
        let b = read_embeddings("e.csv", b"\xEF\xBB\xBFid,embedding\nr1,\"[1,2]\"\nr2,\"[3.5,-4]\"\n").unwrap();
        let c = read_embeddings(
            "e.jsonl",
            b"{\"id\":\"r1\",\"embedding\":[1,2]}\n\n{\"id\":\"r2\",\"embedding\":[3.5,-4]}\n",
        )
        .unwrap();
        for t in [&a, &b, &c] {
            assert_eq!(
                (t.ids.clone(), t.dim, t.values.clone()),
                (vec!["r1".into(), "r2".into()], 2, vec![1.0, 2.0, 3.5, -4.0])
            );
        }
        assert_eq!(a.select(&["r2", "r1"]).unwrap(), vec![3.5, -4.0, 1.0, 2.0]);
        assert!(a.select(&["r3"]).unwrap_err().message.contains("r3"));
    }

    #[test]
    fn problems_are_located() {
        let e = read_embeddings("e.csv", b"id,v0,v1\nr1,1,2\nr2,x,3\n").unwrap_err();
        assert_eq!((e.line, e.column, e.field.as_deref()), (Some(3), Some(2), Some("v0")));
        let e = read_embeddings("e.csv", b"id,v0,v1\nr1,1,NaN\n").unwrap_err();
        assert_eq!((e.line, e.column), (Some(2), Some(3)));
        let e =
            read_embeddings("e.jsonl", b"{\"id\":1,\"embedding\":[1,2]}\n{\"id\":2,\"embedding\":[1]}\n").unwrap_err();
        assert_eq!(e.line, Some(2));
        assert!(e.message.contains("expected 2 numbers"), "{e}");
        let e = read_embeddings("e.jsonl", b"{\"id\":1,\"embedding\":[1,2]}\n{\"id\":1,\"embedding\":[1,3]}\n")
            .unwrap_err();
        assert!(e.message.contains("duplicate id \"1\" (first on line 1)"), "{e}");
        let e = read_embeddings("e.csv", b"name,v0\nr1,1\n").unwrap_err();
        assert!(e.message.contains("expected an id column"), "{e}");
        let e = read_groups("g.csv", b"id,group\nr1,en\nr2,\n").unwrap_err();
        assert_eq!((e.line, e.field.as_deref()), (Some(3), Some("group")));
        let groups = read_groups("g.csv", b"group,record_id\nen,r1\nko,r2\nko,r9\n").unwrap();
        let (labels, unused) = labels_for(&["r2".into(), "r1".into()], ("e.csv", &[]), &groups, "g.csv").unwrap();
        assert_eq!((labels, unused), (vec!["ko".to_string(), "en".to_string()], vec!["r9".to_string()]));
        let e = labels_for(&["r7".into()], ("e.csv", &[4]), &groups, "g.csv").unwrap_err();
        assert_eq!(
            (e.file.as_str(), e.line, e.message.as_str()),
            ("e.csv", Some(4), "id \"r7\" has no group in g.csv")
        );
    }

    #[test]
    fn distance_matrix_files() {
        let (ids, m) = read_distance_matrix("d.csv", b",a,b\na,0,1\nb,1,0\n").unwrap();
        assert_eq!((ids, m.condensed()), (vec!["a".to_string(), "b".to_string()], &[1.0][..]));
        let e = read_distance_matrix("d.csv", b",a,b\nb,0,1\na,1,0\n").unwrap_err();
        assert_eq!((e.line, e.column), (Some(2), Some(1)));
        let e = read_distance_matrix("d.csv", b",a,b\na,0,1\n").unwrap_err();
        assert!(e.message.contains("expected 2 rows"), "{e}");
        let e = read_distance_matrix("d.csv", b",a,a\na,0,1\na,1,0\n").unwrap_err();
        assert_eq!((e.line, e.column), (Some(1), Some(3)));
        let e = read_distance_matrix("d.csv", b",a,b\na,0,1\nb,2,0\n").unwrap_err();
        assert_eq!((e.line, e.column), (Some(2), Some(3)));
    }
}
