//! Reference distributions: name counts and city populations, read from the table shapes
//! people have. Every loader returns (name, weight) rows; weights are counts, populations or
//! percentages (Census), made into probabilities later. Rows with a problem are listed with
//! file, line and column, and the good rows load; a file with no good row is an error.
//!
//! Shapes ([`Shape`]):
//! - `table`: CSV/TSV with a header; the name and weight columns are found by name
//!   (name, filler, first_name, city, imie, … / count, weight, population, n, births, liczba, …)
//!   or given by a [`Columns`] mapping. Our shipped references are tables.
//! - `ssa`: US Social Security Administration yearly files `yobYYYY.txt`: `name,sex,count`,
//!   no header. Both sexes of a name add up.
//! - `census`: the US Census 1990 first-name lists (`dist.female.first`): fixed-width
//!   `NAME  FREQ%  CUMULATIVE%  RANK`; the weight is the frequency in percent.
//! - `geonames`: GeoNames dumps (`cities15000.txt`, `PL.txt`): tab-separated, 19 columns,
//!   no header; name in column 2, population in column 15; rows with population 0 are skipped.
//! - `pesel`: the Polish PESEL first-name statistics from dane.gov.pl ("Lista imion
//!   występujących w rejestrze PESEL"): CSV with a header holding a first-name column
//!   (`IMIĘ_PIERWSZE`, `IMIĘ PIERWSZE` or `IMIĘ`) and a count column (`LICZBA_WYSTĄPIEŃ` or
//!   `LICZBA`), optionally `PŁEĆ`; headers match after case and diacritic folding, the
//!   delimiter is sniffed (comma or semicolon). Upper-case names are shown capitalised.

use super::DivergenceError;
use super::normalise::key;
use crate::formats::Problem;
use crate::formats::csv_table::{self, RowLength, sniff_delimiter};
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Shape {
    Table,
    Ssa,
    Census,
    Geonames,
    Pesel,
}

impl Shape {
    pub fn parse(text: &str) -> Option<Shape> {
        Some(match text.trim().to_ascii_lowercase().as_str() {
            "table" | "csv" | "tsv" => Shape::Table,
            "ssa" => Shape::Ssa,
            "census" => Shape::Census,
            "geonames" => Shape::Geonames,
            "pesel" => Shape::Pesel,
            _ => return None,
        })
    }

    /// Recognises a shape from the first line.
    pub fn detect(text: &str) -> Shape {
        let first = text.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
        let tabs: Vec<&str> = first.split('\t').collect();
        if tabs.len() >= 15 && tabs[0].trim().parse::<u64>().is_ok() {
            return Shape::Geonames;
        }
        let commas: Vec<&str> = first.split(',').collect();
        if commas.len() == 3 && matches!(commas[1].trim(), "F" | "M") && commas[2].trim().parse::<u64>().is_ok() {
            return Shape::Ssa;
        }
        let words: Vec<&str> = first.split_whitespace().collect();
        if words.len() == 4 && words[1..].iter().all(|w| w.parse::<f64>().is_ok()) {
            return Shape::Census;
        }
        if key(first).contains("imie") {
            return Shape::Pesel;
        }
        Shape::Table
    }
}

/// Which columns of a `table` hold the name and the weight (header names).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Columns {
    pub name: Option<String>,
    pub weight: Option<String>,
}

const NAME_HEADERS: [&str; 12] = [
    "name",
    "filler",
    "first name",
    "firstname",
    "given name",
    "city",
    "imie",
    "imie pierwsze",
    "vorname",
    "nombre",
    "nazwa",
    "miasto",
];
const WEIGHT_HEADERS: [&str; 12] = [
    "count",
    "weight",
    "population",
    "n",
    "births",
    "frequency",
    "freq",
    "liczba",
    "liczba wystapien",
    "number",
    "anzahl",
    "total",
];

/// One loaded reference table.
#[derive(Debug, Clone, Serialize)]
pub struct Reference {
    pub file: String,
    pub shape: Shape,
    /// (name as written, weight), weights finite and > 0; repeated names are summed later.
    pub entries: Vec<(String, f64)>,
    pub problems: Vec<Problem>,
    /// (other spelling, name): GeoNames alternate names in Latin script, for exonyms such as
    /// Warsaw/Warszawa. Used after every table and reference name, so they never override one.
    #[serde(skip)]
    pub aliases: Vec<(String, String)>,
}

impl Reference {
    pub fn total(&self) -> f64 {
        self.entries.iter().map(|e| e.1).sum()
    }

    /// Reads a reference; `shape` None means detect it from the first line.
    pub fn load(
        file: &str,
        bytes: &[u8],
        shape: Option<Shape>,
        columns: Option<&Columns>,
    ) -> Result<Reference, DivergenceError> {
        let text = crate::formats::decode(file, bytes).map_err(|e| DivergenceError::input(file, e.to_string()))?;
        if text.trim().is_empty() {
            return Err(DivergenceError::input(file, "the reference file is empty"));
        }
        let shape = shape.unwrap_or_else(|| Shape::detect(text));
        let mut r = Reference { file: file.to_string(), shape, entries: vec![], problems: vec![], aliases: vec![] };
        match shape {
            Shape::Table => r.read_table(text, columns, false)?,
            Shape::Pesel => r.read_table(text, columns, true)?,
            Shape::Ssa => r.read_ssa(text),
            Shape::Census => r.read_census(text),
            Shape::Geonames => r.read_geonames(text),
        }
        if r.entries.is_empty() {
            let first = r.problems.first().map(|p| format!(" First problem: {p}")).unwrap_or_default();
            return Err(DivergenceError::input(
                file,
                format!("no row of this {:?} reference could be read ({} problem(s)).{first}", shape, r.problems.len()),
            ));
        }
        Ok(r)
    }

    fn bad(&mut self, line: u64, column: u64, field: &str, message: String) {
        self.problems.push(Problem::new(&self.file, message).at_line(line).at_column(column).in_field(field));
    }

    /// A weight cell: a finite number >= 0 (thousands separators of the PESEL exports allowed).
    fn weight(&mut self, cell: &str, line: u64, column: u64, field: &str) -> Option<f64> {
        let cleaned: String = cell.trim().chars().filter(|c| !matches!(c, ' ' | '\u{a0}' | '_')).collect();
        match cleaned.parse::<f64>() {
            Ok(w) if w.is_finite() && w >= 0.0 => Some(w),
            _ => {
                self.bad(line, column, field, format!("expected a non-negative number, found {:?}", cell.trim()));
                None
            }
        }
    }

    fn push(&mut self, name: &str, weight: f64, line: u64, column: u64) {
        let name = name.trim();
        if name.is_empty() {
            self.bad(line, column, "name", "expected a name, found an empty cell".into());
        } else if weight > 0.0 {
            self.entries.push((name.to_string(), weight));
        }
    }

    fn read_table(&mut self, text: &str, columns: Option<&Columns>, pesel: bool) -> Result<(), DivergenceError> {
        let delimiter = sniff_delimiter(text);
        let mut rdr =
            csv_table::reader(&self.file, text, delimiter, RowLength::Ragged).map_err(DivergenceError::Input)?;
        let headers: Vec<String> = rdr
            .headers()
            .map_err(|e| DivergenceError::Input(Problem::new(&self.file, format!("CSV header: {e}")).at_line(1)))?
            .iter()
            .map(str::to_string)
            .collect();
        let find = |wanted: &Option<String>, known: &[&str], what: &str| -> Result<usize, DivergenceError> {
            let pos = match wanted {
                Some(w) => headers.iter().position(|h| key(h) == key(w)),
                None => known.iter().find_map(|k| headers.iter().position(|h| key(h) == *k)),
            };
            pos.ok_or_else(|| {
                let asked = wanted
                    .as_ref()
                    .map(|w| format!("the column {w:?}"))
                    .unwrap_or_else(|| format!("a {what} column ({})", known.join(", ")));
                DivergenceError::Input(
                    Problem::new(&self.file, format!("expected {asked}; the header has: {}", headers.join(", ")))
                        .at_line(1)
                        .in_field(what),
                )
            })
        };
        let none = Columns::default();
        let cols = columns.unwrap_or(&none);
        let name_col = find(&cols.name, &NAME_HEADERS, "name")?;
        let weight_col = find(&cols.weight, &WEIGHT_HEADERS, "weight")?;
        for row in rdr.records() {
            let row = match row {
                Ok(r) => r,
                Err(e) => {
                    let line = e.position().map(|p| p.line()).unwrap_or(0);
                    self.problems.push(Problem::new(&self.file, format!("CSV: {e}")).at_line(line));
                    continue;
                }
            };
            let line = row.position().map(|p| p.line()).unwrap_or(0);
            let (Some(name), Some(cell)) = (row.get(name_col), row.get(weight_col)) else {
                self.bad(
                    line,
                    (name_col.max(weight_col) + 1) as u64,
                    "weight",
                    format!("expected at least {} cells, found {}", name_col.max(weight_col) + 1, row.len()),
                );
                continue;
            };
            if let Some(w) = self.weight(cell, line, weight_col as u64 + 1, &headers[weight_col]) {
                let shown = if pesel { capitalise(name) } else { name.to_string() };
                self.push(&shown, w, line, name_col as u64 + 1);
            }
        }
        Ok(())
    }

    fn read_ssa(&mut self, text: &str) {
        for (i, l) in text.lines().enumerate() {
            let line = i as u64 + 1;
            if l.trim().is_empty() {
                continue;
            }
            let cells: Vec<&str> = l.split(',').collect();
            if cells.len() != 3 {
                self.bad(line, 1, "row", format!("expected name,sex,count (3 cells), found {} cell(s)", cells.len()));
                continue;
            }
            if !matches!(cells[1].trim(), "F" | "M") {
                self.bad(line, 2, "sex", format!("expected F or M, found {:?}", cells[1].trim()));
                continue;
            }
            if let Some(w) = self.weight(cells[2], line, 3, "count") {
                self.push(cells[0], w, line, 1);
            }
        }
    }

    fn read_census(&mut self, text: &str) {
        for (i, l) in text.lines().enumerate() {
            let line = i as u64 + 1;
            if l.trim().is_empty() {
                continue;
            }
            let words: Vec<&str> = l.split_whitespace().collect();
            if words.len() != 4 {
                self.bad(
                    line,
                    1,
                    "row",
                    format!("expected NAME FREQ CUMULATIVE RANK (4 fields), found {}", words.len()),
                );
                continue;
            }
            if let Some(w) = self.weight(words[1], line, 2, "frequency") {
                self.push(&capitalise(words[0]), w, line, 1);
            }
        }
    }

    fn read_geonames(&mut self, text: &str) {
        for (i, l) in text.lines().enumerate() {
            let line = i as u64 + 1;
            if l.trim().is_empty() {
                continue;
            }
            let cells: Vec<&str> = l.split('\t').collect();
            if cells.len() < 15 {
                self.bad(
                    line,
                    1,
                    "row",
                    format!("expected the GeoNames columns (19, tab-separated), found {}", cells.len()),
                );
                continue;
            }
            if let Some(w) = self.weight(cells[14], line, 15, "population")
                && w > 0.0
            {
                self.push(cells[1], w, line, 2);
                let name = cells[1].trim();
                for alt in
                    cells[2].split(',').chain(cells[3].split(',')).map(str::trim).filter(|a| usable_alias(a, name))
                {
                    self.aliases.push((alt.to_string(), name.to_string()));
                }
            }
        }
    }
}

/// An alternate name worth matching: Latin letters (with diacritics), spaces, hyphens and
/// apostrophes only, at least three letters, not an all-capitals code such as WAW.
fn usable_alias(alt: &str, name: &str) -> bool {
    alt != name
        && alt.chars().filter(|c| c.is_alphabetic()).count() >= 3
        && alt.chars().all(|c| c.is_alphabetic() && (c as u32) < 0x250 || matches!(c, ' ' | '-' | '\'' | '.'))
        && alt.chars().any(|c| c.is_lowercase())
}

/// "ANNA MARIA" -> "Anna Maria"; names already in mixed case stay as they are.
fn capitalise(name: &str) -> String {
    let name = name.trim();
    if name.chars().any(|c| c.is_lowercase()) {
        return name.to_string();
    }
    let mut out = String::with_capacity(name.len());
    let mut start = true;
    for c in name.chars() {
        if start {
            out.extend(c.to_uppercase());
        } else {
            out.extend(c.to_lowercase());
        }
        start = !c.is_alphabetic();
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn load(text: &str, shape: Option<Shape>) -> Result<Reference, DivergenceError> {
        Reference::load("r.txt", text.as_bytes(), shape, None)
    }

    #[test]
    fn each_shape_is_detected_and_read() {
        let ssa = load("Emma,F,100\nNoah,M,90\nEmma,M,5\n", None).unwrap();
        assert_eq!(ssa.shape, Shape::Ssa);
        assert_eq!(ssa.entries.len(), 3);
        assert_eq!(ssa.total(), 195.0);
        let census = load("MARY           2.629  2.629      1\nPATRICIA       1.073  3.702      2\n", None).unwrap();
        assert_eq!(census.shape, Shape::Census);
        assert_eq!(census.entries[0], ("Mary".to_string(), 2.629));
        let row = [
            "1",
            "Kraków",
            "Krakow",
            "Cracow,Krakau",
            "50.0",
            "19.9",
            "P",
            "PPLA",
            "PL",
            "",
            "77",
            "",
            "",
            "",
            "804237",
            "",
            "219",
            "Europe/Warsaw",
            "2024-01-01",
        ];
        let geo = load(&format!("{}\n", row.join("\t")), None).unwrap();
        assert_eq!(geo.shape, Shape::Geonames);
        assert_eq!(geo.entries, vec![("Kraków".to_string(), 804237.0)]);
        let aliases: Vec<&str> = geo.aliases.iter().map(|a| a.0.as_str()).collect();
        assert_eq!(aliases, vec!["Krakow", "Cracow", "Krakau"], "Latin-script alternate names become aliases");
        let pesel =
            load("IMIĘ_PIERWSZE;PŁEĆ;LICZBA_WYSTĄPIEŃ\nANNA;KOBIETA;100\nJAN MARIA;MĘŻCZYZNA;7\n", None).unwrap();
        assert_eq!(pesel.shape, Shape::Pesel);
        assert_eq!(pesel.entries, vec![("Anna".to_string(), 100.0), ("Jan Maria".to_string(), 7.0)]);
        let table = load("city\tpopulation\nGdańsk\t470000\n", None).unwrap();
        assert_eq!(table.shape, Shape::Table);
        assert_eq!(table.entries[0].0, "Gdańsk");
    }

    #[test]
    fn mapped_columns_and_located_errors() {
        let cols = Columns { name: Some("Vorname".into()), weight: Some("Anzahl".into()) };
        let r =
            Reference::load("de.csv", "Vorname,Anzahl,x\nMia,10,\nBen,zehn,\nLea,-1,\n".as_bytes(), None, Some(&cols))
                .unwrap();
        assert_eq!(r.entries, vec![("Mia".to_string(), 10.0)]);
        assert_eq!(r.problems.len(), 2);
        assert_eq!((r.problems[0].line, r.problems[0].column), (Some(3), Some(2)));
        assert!(
            r.problems[0]
                .to_string()
                .contains("de.csv:3:2: field Anzahl: expected a non-negative number, found \"zehn\"")
        );
        let e = Reference::load("x.csv", b"a,b\n1,2\n", Some(Shape::Table), None).unwrap_err().to_string();
        assert!(e.contains("expected a name column") && e.contains("the header has: a, b"), "{e}");
        let e = load("Emma,X,1\n", Some(Shape::Ssa)).unwrap_err().to_string();
        assert!(e.contains("r.txt:1:2: field sex: expected F or M"), "{e}");
        assert!(load("", None).unwrap_err().to_string().contains("empty"));
        let e = Reference::load("b.csv", b"name,count\nA\xff,1\n", None, None).unwrap_err().to_string();
        assert!(e.contains("b.csv:2:2"), "{e}");
        assert!(load("JAMES 3.318 3.318\n", Some(Shape::Census)).unwrap_err().to_string().contains("4 fields"));
        assert!(load("1\tx\n", Some(Shape::Geonames)).unwrap_err().to_string().contains("GeoNames columns"));
    }
}
