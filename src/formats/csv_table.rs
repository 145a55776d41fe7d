//! The record table as CSV: read through the csv crate (BOM or not, CRLF or LF, quoted
//! fields with newlines, delimiter sniffed), written with spreadsheet formulas neutralised.
//! Every other CSV table of the crate is read through the same [`reader`] set-up.

use super::mapping::{self, ColumnMapping, MappingRequest};
use super::row::{self, Cell};
use super::{LoadError, Loaded, Problem};
use crate::record::{FIELDS, Field, Kind, Record};

/// Characters that make a spreadsheet treat a cell as a formula.
const FORMULA_START: [char; 6] = ['=', '+', '-', '@', '\t', '\r'];

fn needs_guard(cell: &str) -> bool {
    let mut chars = cell.chars();
    match chars.next() {
        Some(c) if FORMULA_START.contains(&c) => true,
        // A leading quote before a trigger is doubled so that reading back is lossless.
        Some('\'') => matches!(chars.next(), Some(c) if c == '\'' || FORMULA_START.contains(&c)),
        _ => false,
    }
}

/// Prefixes `'` to a text cell a spreadsheet would run as a formula, and closes any
/// bidirectional embedding or isolate the cell leaves open, so that it cannot reorder the
/// cells after it on the line (the closers stay in the cell when it is read back).
pub fn guard(cell: &str) -> String {
    let cell = crate::text::bidi::closed(cell);
    if needs_guard(&cell) { format!("'{cell}") } else { cell.into_owned() }
}

/// [`guard`] for tables whose columns carry no type (LangBiTe's reports, the requirement
/// summaries): a cell that reads as a number is a number, and no spreadsheet runs "-0.5".
pub fn guard_unless_number(cell: &str) -> String {
    if cell.parse::<f64>().is_ok() { cell.to_string() } else { guard(cell) }
}

/// Undoes [`guard`].
pub fn unguard(cell: &str) -> &str {
    match cell.strip_prefix('\'') {
        Some(rest) if needs_guard(rest) => rest,
        _ => cell,
    }
}

/// The delimiter of the header line: the most frequent of comma, tab and semicolon outside quotes.
pub fn sniff_delimiter(text: &str) -> u8 {
    let mut counts = [(b',', 0usize), (b'\t', 0), (b';', 0)];
    let mut quoted = false;
    for b in text.bytes() {
        match b {
            b'"' => quoted = !quoted,
            b'\n' if !quoted => break,
            _ if !quoted => {
                for (d, n) in counts.iter_mut() {
                    if *d == b {
                        *n += 1;
                    }
                }
            }
            _ => {}
        }
    }
    let (best, n) = counts.iter().copied().fold((b',', 0), |acc, c| if c.1 > acc.1 { c } else { acc });
    if n == 0 { b',' } else { best }
}

/// Whether a table's rows may have another number of cells than its header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RowLength {
    /// Any number: the reader reports ragged rows itself (or pads them), rather than the csv
    /// crate failing the row.
    Ragged,
    /// As many cells as the header, else the row is a CSV error (LangBiTe's reports, which
    /// pandas writes rectangular).
    AsHeader,
}

/// The one CSV reader set-up of the crate: the first row is the header, fields are quoted
/// with `"` and a doubled `""` inside, CRLF or LF ends a row, and cells are not trimmed (each
/// reader trims what it compares, so a table's text survives as written). The delimiter is
/// the caller's: [`sniff_delimiter`] for user tables, `,` for formats that fix it.
///
/// A quoted field that never closes is refused here, before any row is read (see
/// [`unclosed_quote`]); `file` names the file in that error.
pub fn reader<'t>(file: &str, text: &'t str, delimiter: u8, rows: RowLength) -> Result<csv::Reader<&'t [u8]>, Problem> {
    if let Some(line) = unclosed_quote(text, delimiter) {
        return Err(unclosed_problem(file, line));
    }
    Ok(unchecked_reader(text, delimiter, rows))
}

/// [`reader`] without the quote check, for a caller that scanned the quotes already.
fn unchecked_reader(text: &str, delimiter: u8, rows: RowLength) -> csv::Reader<&[u8]> {
    csv::ReaderBuilder::new()
        .delimiter(delimiter)
        .has_headers(true)
        .flexible(rows == RowLength::Ragged)
        .from_reader(text.as_bytes())
}

fn unclosed_problem(file: &str, line: u64) -> Problem {
    Problem::new(
        file,
        "a quoted field opens here and is never closed, so every later row would be read into this one cell; \
         close the quote (a quote inside a quoted field is written twice: \"\")",
    )
    .at_line(line)
}

/// The line where a quoted field opens without ever closing, if one does. The csv crate reads
/// such a field to the end of the file without a word (an unterminated quote in row 2 made rows
/// 3, 4, ... part of its last cell), so every table reader checks this first. The scan follows
/// the reader's rules: a field is quoted only when `"` is its first byte, `""` inside it is a
/// literal quote, and a quote anywhere else is literal text.
pub fn unclosed_quote(text: &str, delimiter: u8) -> Option<u64> {
    scan_quotes(text, delimiter).unclosed
}

/// A quoted cell may hold line breaks, but one that runs over this many lines is more likely
/// a stray quote that closed by chance far below, taking the rows between into one cell.
pub const LONG_QUOTE_LINES: u64 = 100;

/// What [`scan_quotes`] found.
#[derive(Debug, Default, PartialEq)]
pub struct Quotes {
    /// The line where a quoted field opens and never closes.
    pub unclosed: Option<u64>,
    /// (line where it opens, lines it spans) of each closed quoted field longer than
    /// [`LONG_QUOTE_LINES`] lines.
    pub long: Vec<(u64, u64)>,
}

/// Scans the quoting of a table's text (see [`unclosed_quote`] for the rules).
pub fn scan_quotes(text: &str, delimiter: u8) -> Quotes {
    let bytes = text.as_bytes();
    let mut found = Quotes::default();
    let (mut line, mut opened) = (1u64, 0u64);
    let (mut in_quotes, mut field_start) = (false, true);
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if b == b'\n' {
            line += 1;
        }
        if in_quotes {
            if b == b'"' {
                if bytes.get(i + 1) == Some(&b'"') {
                    i += 1;
                } else {
                    in_quotes = false;
                    if line - opened + 1 > LONG_QUOTE_LINES {
                        found.long.push((opened, line - opened + 1));
                    }
                }
            }
        } else if b == b'"' && field_start {
            (in_quotes, opened, field_start) = (true, line, false);
        } else {
            field_start = b == delimiter || b == b'\n' || b == b'\r';
        }
        i += 1;
    }
    found.unclosed = in_quotes.then_some(opened);
    found
}

fn long_quote_warning(file: &str, (opened, lines): (u64, u64)) -> Problem {
    Problem::new(
        file,
        format!(
            "a quoted cell opens here and runs over {lines} lines; if that is not one long text, a quote is \
             missing or stray and the rows in between were read into this cell"
        ),
    )
    .at_line(opened)
}

/// Refuses a header that names one column twice (`template_id,template_id`): reading on would
/// keep one column's value per row and drop the other's without a word. A field given by two
/// columns under different names (`model` and its alias `model_name`) loads, the first column
/// filling the field and the other kept as an extra column, with a warning saying so (our own
/// tables are exempt: they carry `instance` beside `prompt` on purpose).
fn ambiguous_columns(file: &str, headers: &[String]) -> Result<Vec<Problem>, Problem> {
    for (i, h) in headers.iter().enumerate() {
        if let Some(first) = headers[..i].iter().position(|x| x.trim() == h.trim() && !h.trim().is_empty()) {
            return Err(Problem::new(
                file,
                format!(
                    "the column {:?} appears twice (columns {} and {}); one of its values per row would be dropped, so remove or rename one",
                    h.trim(),
                    first + 1,
                    i + 1
                ),
            )
            .at_line(1)
            .at_column(i as u64 + 1));
        }
    }
    let mut warnings = vec![];
    if headers.iter().any(|h| h == "format_version") {
        return Ok(warnings);
    }
    let mut seen: Vec<(&str, usize)> = vec![];
    for (i, h) in headers.iter().enumerate() {
        let Some(f) = mapping::field_for_header(h) else { continue };
        match seen.iter().find(|(name, _)| *name == f.name) {
            Some(&(_, first)) => warnings.push(
                Problem::new(
                    file,
                    format!(
                        "columns {:?} and {:?} both name the field {}: {:?} fills it and {:?} is kept as an extra column",
                        headers[first], h, f.name, headers[first], h
                    ),
                )
                .at_line(1)
                .at_column(i as u64 + 1),
            ),
            None => seen.push((f.name, i)),
        }
    }
    Ok(warnings)
}

fn csv_problem(file: &str, err: &csv::Error) -> Problem {
    let p = Problem::new(file, format!("CSV: {err}"));
    match err.position() {
        Some(pos) => p.at_line(pos.line()),
        None => p,
    }
}

/// Reads a record table from CSV text. Without `mapping`, columns map by name and alias; if
/// that leaves a required field unmapped, the caller gets a [`MappingRequest`] instead.
pub fn read(file: &str, text: &str, mapping: Option<&ColumnMapping>) -> Result<Loaded, LoadError> {
    read_into(Loaded::new(file, "csv", true), text, mapping)
}

/// [`read`] into `loaded`, which keeps the records or only counts them.
pub(super) fn read_into(mut loaded: Loaded, text: &str, mapping: Option<&ColumnMapping>) -> Result<Loaded, LoadError> {
    let file = &*loaded.file.clone();
    let delimiter = sniff_delimiter(text);
    // One scan of the quoting serves both the unclosed-quote check and the long-cell warnings
    // (a pass over the whole text, slow byte by byte in wasm).
    let quotes = scan_quotes(text, delimiter);
    if let Some(line) = quotes.unclosed {
        return Err(LoadError::Syntax(unclosed_problem(file, line)));
    }
    let mut rdr = unchecked_reader(text, delimiter, RowLength::Ragged);
    let headers: Vec<String> = rdr
        .headers()
        .map_err(|e| LoadError::Syntax(csv_problem(file, &e)))?
        .iter()
        .map(|h| h.trim_start_matches('\u{feff}').to_string())
        .collect();
    if headers.iter().all(|h| h.trim().is_empty()) {
        // Not "empty": the file has a first row, only its names are blank.
        return Err(LoadError::Syntax(
            Problem::new(file, "the header row has no column names; expected names such as record_id,prompt,response")
                .at_line(1),
        ));
    }
    let alias_warnings = ambiguous_columns(file, &headers).map_err(LoadError::Syntax)?;
    let mapping = match mapping {
        Some(m) => check_mapping(file, m, &headers)?,
        None => {
            let suggested = mapping::suggest(&headers);
            let missing = mapping::missing_required(&suggested);
            if !missing.is_empty() {
                let preview = rdr
                    .records()
                    .take(3)
                    .filter_map(Result::ok)
                    .map(|r| r.iter().map(String::from).collect())
                    .collect();
                return Err(LoadError::NeedsMapping(MappingRequest {
                    file: file.to_string(),
                    headers,
                    suggested,
                    missing: missing.into_iter().map(String::from).collect(),
                    preview,
                }));
            }
            suggested
        }
    };
    // Column index per mapped field; the remaining columns are kept as extras.
    let columns: Vec<(&Field, usize)> = FIELDS
        .iter()
        .filter_map(|f| mapping.get(f.name).and_then(|h| headers.iter().position(|x| x == h)).map(|i| (f, i)))
        .collect();
    let extras: Vec<usize> = (0..headers.len()).filter(|i| !columns.iter().any(|(_, c)| c == i)).collect();
    let ours = columns.iter().any(|(f, _)| f.name == "format_version");
    let has = |name: &str| columns.iter().any(|(f, _)| f.name == name);

    loaded.warnings.extend(alias_warnings);
    // Long quoted cells are warned about in line order among the rows' own warnings.
    let mut long_quotes = quotes.long.into_iter().peekable();
    // One row buffer for the whole file, where the records() iterator copies each row out
    // into a new one; `n` counts bad rows too, as that iterator's enumerate() did.
    let mut bytes = csv::ByteRecord::new();
    for n in 0.. {
        match rdr.read_byte_record(&mut bytes) {
            Ok(true) => {}
            Ok(false) => break,
            Err(e) => {
                // The reader has moved past the bad row.
                loaded.errors.push(csv_problem(file, &e));
                continue;
            }
        }
        let line = bytes.position().map(|p| p.line()).unwrap_or(n as u64 + 2);
        while let Some(q) = long_quotes.next_if(|q| q.0 < line) {
            loaded.warnings.push(long_quote_warning(file, q));
        }
        let Some(row) = Cells::of(&bytes) else {
            loaded.errors.push(Problem::new(file, "expected UTF-8 text, found an invalid byte").at_line(line));
            continue;
        };
        if row.iter().all(|c| c.trim().is_empty()) {
            continue;
        }
        // A row with too few or too many cells is misaligned (a cut-off file, a stray
        // delimiter): reading it anyway would put values under the wrong columns. It is an
        // error and the row is not loaded, so it is counted as dropped, never half-read.
        // Trailing empty cells (a spreadsheet's "a,b,c,,") hold nothing to misplace: a warning.
        if row.len() > headers.len() && row.iter().skip(headers.len()).all(|c| c.trim().is_empty()) {
            loaded.warnings.push(
                Problem::new(
                    file,
                    format!(
                        "expected {} columns as in the header, found {} (the extra cells are empty)",
                        headers.len(),
                        row.len()
                    ),
                )
                .at_line(line),
            );
        } else if row.len() != headers.len() {
            let why = if row.len() < headers.len() { "the row is cut short" } else { "a stray delimiter?" };
            loaded.errors.push(
                Problem::new(
                    file,
                    format!(
                        "expected {} columns as in the header, found {} ({why}); row not loaded",
                        headers.len(),
                        row.len()
                    ),
                )
                .at_line(line),
            );
            continue;
        }
        let mut rec = Record { format_version: 1, ..Record::default() };
        let mut bad = false;
        for (field, i) in &columns {
            let raw = row.get(*i).unwrap_or("");
            // An empty cell gives every field its default, which `rec` already holds; skipping
            // it saves a conversion per empty cell (a third of a typical row's cells), whose
            // match on the field's name is a chain of string comparisons, slow in wasm.
            // (tests/records.rs: empty_cells_read_as_defaults pins the equivalence.)
            if raw.is_empty() {
                continue;
            }
            let cell = if ours && field.kind == Kind::Text { unguard(raw) } else { raw };
            if let Err(e) = row::set_field(&mut rec, field, Cell::Text(cell)) {
                bad = true;
                let header = &headers[*i];
                let name = if header == field.name {
                    field.name.to_string()
                } else {
                    format!("{} (column \"{header}\")", field.name)
                };
                loaded
                    .errors
                    .push(Problem::new(file, e.message()).at_line(line).at_column(*i as u64 + 1).in_field(name));
            }
        }
        if bad {
            continue;
        }
        // An empty cell in an extra column means "not set": rows share one header.
        for &i in &extras {
            let value = row.get(i).unwrap_or("");
            if value.is_empty() {
                continue;
            }
            let value = if ours { unguard(value) } else { value };
            rec.extra.insert(headers[i].clone(), value.to_string());
        }
        row::complete(&mut rec, n + 1, &has);
        loaded.push(rec, line);
    }
    loaded.warnings.extend(long_quotes.map(|q| long_quote_warning(file, q)));
    Ok(loaded.finish())
}

/// One row's cells as text. `StringRecord` checks every row as UTF-8 again, cell by cell when
/// it is not all ASCII, a byte at a time in wasm; the row's buffer is checked here once, with
/// simdutf8, and cut at the cells' bounds. The csv reader cuts the file's text, already checked
/// whole ([`super::decode`]), only at ASCII bytes (delimiters, quotes, line ends), so each
/// cell's bounds fall between characters.
struct Cells<'r> {
    row: &'r csv::ByteRecord,
    text: &'r str,
}

impl<'r> Cells<'r> {
    /// None when the row's bytes are not UTF-8 (not from a checked text).
    fn of(row: &'r csv::ByteRecord) -> Option<Cells<'r>> {
        Some(Cells { row, text: simdutf8::basic::from_utf8(row.as_slice()).ok()? })
    }

    fn len(&self) -> usize {
        self.row.len()
    }

    fn get(&self, i: usize) -> Option<&'r str> {
        self.text.get(self.row.range(i)?)
    }

    fn iter(&self) -> impl Iterator<Item = &'r str> + '_ {
        (0..self.len()).map(|i| self.get(i).unwrap_or(""))
    }
}

fn check_mapping(file: &str, mapping: &ColumnMapping, headers: &[String]) -> Result<ColumnMapping, LoadError> {
    for (field, header) in mapping {
        if crate::record::field(field).is_none() {
            return Err(LoadError::Mapping(Problem::new(
                file,
                format!("the mapping names an unknown record field \"{field}\""),
            )));
        }
        if !headers.contains(header) {
            return Err(LoadError::Mapping(
                Problem::new(file, format!("the mapping uses a column \"{header}\" that the file does not have"))
                    .in_field(field.clone()),
            ));
        }
    }
    let missing = mapping::missing_required(mapping);
    if !missing.is_empty() {
        return Err(LoadError::Mapping(Problem::new(
            file,
            format!("the mapping must give a column for: {}", missing.join(", ")),
        )));
    }
    Ok(mapping.clone())
}

/// Writes the record table as CSV (comma, LF, header first). Text cells that a spreadsheet
/// would run as formulas are prefixed with `'`; the reader removes the prefix again.
pub fn write(records: &[Record]) -> String {
    let extra_names: Vec<&String> = {
        let mut names: Vec<&String> = records.iter().flat_map(|r| r.extra.keys()).collect();
        names.sort();
        names.dedup();
        names
    };
    let mut w = csv::WriterBuilder::new().from_writer(vec![]);
    let header = FIELDS.iter().map(|f| f.name).chain(extra_names.iter().map(|s| s.as_str()));
    // Writing to a Vec cannot fail.
    let _ = w.write_record(header);
    for rec in records {
        let cells = FIELDS
            .iter()
            .map(|f| {
                let text = row::field_text(rec, f);
                if f.kind == Kind::Text { guard(&text) } else { text }
            })
            .chain(extra_names.iter().map(|n| guard(rec.extra.get(*n).map(String::as_str).unwrap_or(""))));
        let _ = w.write_record(cells);
    }
    String::from_utf8(w.into_inner().unwrap_or_default()).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_reader_set_up_keeps_cells_and_checks_row_length_on_request() {
        let text = "a;b\n\" x \";\"y;\"\"z\"\"\"\n1;2;3\n";
        let rows = |length| {
            reader("t.csv", text, b';', length).unwrap().records().map(|r| r.map(|r| r.len())).collect::<Vec<_>>()
        };
        let mut ragged = reader("t.csv", text, sniff_delimiter(text), RowLength::Ragged).unwrap();
        let first = ragged.records().next().unwrap().unwrap();
        assert_eq!((&first[0], &first[1]), (" x ", "y;\"z\""), "quotes undone, spaces kept");
        assert!(rows(RowLength::Ragged).iter().all(Result::is_ok));
        let strict = rows(RowLength::AsHeader);
        assert!(strict[0].is_ok() && strict[1].is_err(), "{strict:?}");
    }

    #[test]
    fn an_unclosed_quote_is_found_at_the_line_it_opens() {
        assert_eq!(unclosed_quote("id,r\n1,\"ok\"\n2,\"multi\nline\"\n", b','), None);
        assert_eq!(unclosed_quote("id,r\n1,\"say \"\"hi\"\"\"\n", b','), None, "doubled quotes are literal");
        assert_eq!(unclosed_quote("id,r\n1,5\" tall\n", b','), None, "a quote inside an unquoted field is literal");
        assert_eq!(unclosed_quote("id,r\n1,hello\n2,\"unterminated\n3,a\n4,b\n", b','), Some(3));
        assert_eq!(unclosed_quote("id;r\r\n1;\"x\r\n", b';'), Some(2));
        assert_eq!(unclosed_quote("\"id,r\n", b','), Some(1));
    }

    #[test]
    fn a_quoted_cell_over_many_lines_is_warned_about_at_the_line_it_opens() {
        let body = "x\n".repeat(120);
        let text = format!("record_id,response\nr1,ok\nr2,\"{body}\"\nr3,\"two\nlines\"\nr4,ok\n");
        let loaded = read("r.csv", &text, None).unwrap();
        assert_eq!(loaded.records.len(), 4, "still loaded: it may be one long text");
        let w: Vec<_> = loaded.warnings.iter().map(|w| (w.line, w.message.contains("runs over 121 lines"))).collect();
        assert_eq!(w, vec![(Some(3), true)], "{:?}", loaded.warnings);
        assert_eq!(scan_quotes(&text, b',').long, vec![(3, 121)]);
        assert!(scan_quotes("a\n\"x\ny\"\n", b',').long.is_empty());
    }

    #[test]
    fn every_reader_refuses_an_unclosed_quote_instead_of_swallowing_the_rest() {
        // Issue 15, defect 1: this loaded as one record whose response held the two later rows.
        let text = "record_id,prompt,response\n1,hello,\"unterminated\n2,a,b\n3,c,d\n";
        let Err(LoadError::Syntax(p)) = read("r.csv", text, None) else { panic!("accepted") };
        assert_eq!((p.file.as_str(), p.line), ("r.csv", Some(2)));
        assert!(p.message.contains("never closed"), "{p}");
    }
}
