//! Every page header of a file, read and bounded before the `parquet` crate decodes a page.
//!
//! The footer's counts are checked in [`crate::limits`], but each page carries its own header
//! (Thrift compact protocol) with its own sizes, and the crate trusts them: a header claiming a
//! page of 2 GiB makes it reserve 2 GiB before decompressing a byte. So each column chunk's
//! headers are walked here first, with a reader of our own that allocates nothing: a header is
//! at most [`MAX_HEADER`] bytes, a page lies inside its column chunk, the pages' uncompressed
//! sizes add up to no more than the chunk declares in the footer (already bounded relative to
//! the file's size), a chunk has no more pages than values (plus its dictionary), and its pages'
//! values add up to no more than the chunk declares (a version-2 page's rows to no more than its
//! row group's).

use crate::Error;
use parquet::file::metadata::{ColumnChunkMetaData, ParquetMetaData};

/// A page header's bytes at most: statistics of long text values make them a few kilobytes.
pub const MAX_HEADER: usize = 1 << 20;
/// Nested structs a header may hold (it has three levels; statistics, one more).
const MAX_DEPTH: usize = 8;

const DICTIONARY_PAGE: i64 = 2;
const DATA_PAGE_V2: i64 = 3;

/// What the checks need of one page header.
#[derive(Debug, Default)]
struct Header {
    kind: i64,
    uncompressed: i64,
    compressed: i64,
    values: i64,
    /// Rows (a version-2 data page's header says).
    rows: Option<i64>,
}

/// Walks every column chunk's pages; see the module's documentation.
pub fn check_pages(meta: &ParquetMetaData, bytes: &[u8]) -> Result<(), Error> {
    for (g, group) in meta.row_groups().iter().enumerate() {
        for column in group.columns() {
            check_chunk(bytes, g + 1, group.num_rows(), column)?;
        }
    }
    Ok(())
}

fn check_chunk(bytes: &[u8], group: usize, group_rows: i64, column: &ColumnChunkMetaData) -> Result<(), Error> {
    let name = column.column_path().string();
    let place = |page: usize| format!("row group {group}, column chunk {name:?}, page {page}");
    let bad = |page: usize, message: String| Error::Limit { place: place(page), message };
    // The chunk's bounds were checked against the file by the caller.
    let start = column.dictionary_page_offset().unwrap_or(column.data_page_offset()).max(0) as usize;
    let end = (start + column.compressed_size().max(0) as usize).min(bytes.len());
    let declared_unpacked = column.uncompressed_size().max(0);
    let declared_values = column.num_values().max(0);
    let (mut pos, mut pages, mut unpacked, mut values) = (start, 0usize, 0i64, 0i64);
    while pos < end {
        pages += 1;
        // A dictionary page, and at most one empty data page, besides one page per value.
        if pages as i64 > declared_values.saturating_add(2) {
            let message = format!("the chunk holds more pages than its {declared_values} values (and a dictionary)");
            return Err(bad(pages, message));
        }
        let window = &bytes[pos..end.min(pos.saturating_add(MAX_HEADER))];
        let (h, len) = read_header(window)
            .map_err(|why| bad(pages, format!("its header is unreadable or longer than {MAX_HEADER} bytes ({why})")))?;
        if h.compressed < 0 || h.uncompressed < 0 {
            return Err(bad(pages, "its header claims a negative size".into()));
        }
        let body_end = (pos + len).checked_add(h.compressed as usize).filter(|&e| e <= end);
        let Some(body_end) = body_end else {
            let message = format!("its header claims {} bytes, past the end of its column chunk", h.compressed);
            return Err(bad(pages, message));
        };
        unpacked = unpacked.saturating_add(h.uncompressed);
        if unpacked > declared_unpacked {
            let message = format!(
                "its header claims {} bytes uncompressed, more than its column chunk declares ({declared_unpacked} \
                 in all)",
                h.uncompressed
            );
            return Err(bad(pages, message));
        }
        if h.values < 0 || (h.kind != DICTIONARY_PAGE && values.saturating_add(h.values) > declared_values) {
            let message = format!(
                "its header claims {} values, more than its column chunk declares ({declared_values})",
                h.values
            );
            return Err(bad(pages, message));
        }
        if h.kind != DICTIONARY_PAGE {
            values += h.values;
        }
        if h.kind == DATA_PAGE_V2 && h.rows.is_some_and(|r| r < 0 || r > group_rows) {
            let message =
                format!("its header claims {} rows, more than its row group's {group_rows}", h.rows.unwrap_or(0));
            return Err(bad(pages, message));
        }
        pos = body_end;
    }
    Ok(())
}

/// A page header at the start of `b`, and its length in bytes.
fn read_header(b: &[u8]) -> Result<(Header, usize), &'static str> {
    let mut r = Reader { b, pos: 0 };
    let mut h = Header::default();
    r.fields(0, &mut |r, id, kind| {
        match (id, kind) {
            (1, I32) => h.kind = r.int()?,
            (2, I32) => h.uncompressed = r.int()?,
            (3, I32) => h.compressed = r.int()?,
            // The data, dictionary and version-2 data page headers: values first; a version-2
            // header's field 3 is its rows (a version-1 header's is an encoding).
            (5 | 7 | 8, STRUCT) => {
                let page = id;
                r.fields(1, &mut |r, id, kind| {
                    match (id, kind) {
                        (1, I32) => h.values = r.int()?,
                        (3, I32) if page == 8 => h.rows = Some(r.int()?),
                        _ => r.skip(kind, 2)?,
                    }
                    Ok(())
                })?;
            }
            _ => r.skip(kind, 1)?,
        }
        Ok(())
    })?;
    Ok((h, r.pos))
}

// Thrift compact protocol types.
const TRUE: u8 = 1;
const FALSE: u8 = 2;
const BYTE: u8 = 3;
const I16: u8 = 4;
const I32: u8 = 5;
const I64: u8 = 6;
const DOUBLE: u8 = 7;
const BINARY: u8 = 8;
const LIST: u8 = 9;
const SET: u8 = 10;
const MAP: u8 = 11;
const STRUCT: u8 = 12;
const UUID: u8 = 13;

struct Reader<'a> {
    b: &'a [u8],
    pos: usize,
}

type Field<'f> = dyn FnMut(&mut Reader, i16, u8) -> Result<(), &'static str> + 'f;

impl Reader<'_> {
    fn byte(&mut self) -> Result<u8, &'static str> {
        let v = *self.b.get(self.pos).ok_or("it ends early")?;
        self.pos += 1;
        Ok(v)
    }

    fn varint(&mut self) -> Result<u64, &'static str> {
        let mut v = 0u64;
        for shift in (0..70).step_by(7) {
            let b = self.byte()?;
            if shift == 63 && b > 1 {
                return Err("a number overflows");
            }
            v |= u64::from(b & 0x7f) << shift;
            if b & 0x80 == 0 {
                return Ok(v);
            }
        }
        Err("a number overflows")
    }

    /// A zigzag-encoded integer.
    fn int(&mut self) -> Result<i64, &'static str> {
        let v = self.varint()?;
        Ok((v >> 1) as i64 ^ -((v & 1) as i64))
    }

    fn take(&mut self, n: u64) -> Result<(), &'static str> {
        let end = usize::try_from(n).ok().and_then(|n| self.pos.checked_add(n)).filter(|&e| e <= self.b.len());
        self.pos = end.ok_or("it ends early")?;
        Ok(())
    }

    /// The fields of a struct up to its stop byte, each handed to `each` (which reads or skips it).
    fn fields(&mut self, depth: usize, each: &mut Field) -> Result<(), &'static str> {
        if depth > MAX_DEPTH {
            return Err("it nests too deep");
        }
        let mut id: i16 = 0;
        loop {
            let b = self.byte()?;
            if b == 0 {
                return Ok(());
            }
            let delta = i16::from(b >> 4);
            id = if delta == 0 {
                i16::try_from(self.int()?).map_err(|_| "a field id overflows")?
            } else {
                id.saturating_add(delta)
            };
            each(self, id, b & 0x0f)?;
        }
    }

    /// Skips one value of `kind` (a boolean field's value is in its type).
    fn skip(&mut self, kind: u8, depth: usize) -> Result<(), &'static str> {
        if depth > MAX_DEPTH {
            return Err("it nests too deep");
        }
        match kind {
            TRUE | FALSE => Ok(()),
            BYTE => self.take(1),
            I16 | I32 | I64 => self.varint().map(drop),
            DOUBLE => self.take(8),
            UUID => self.take(16),
            BINARY => {
                let n = self.varint()?;
                self.take(n)
            }
            LIST | SET => {
                let head = self.byte()?;
                let n = if head >> 4 == 15 { self.varint()? } else { u64::from(head >> 4) };
                self.items(n, head & 0x0f, depth)
            }
            MAP => {
                let n = self.varint()?;
                if n == 0 {
                    return Ok(());
                }
                let kinds = self.byte()?;
                if n > (self.b.len() - self.pos) as u64 {
                    return Err("it ends early");
                }
                for _ in 0..n {
                    self.item(kinds >> 4, depth)?;
                    self.item(kinds & 0x0f, depth)?;
                }
                Ok(())
            }
            STRUCT => self.fields(depth + 1, &mut |r, _, kind| r.skip(kind, depth + 1)),
            _ => Err("an unknown field type"),
        }
    }

    fn items(&mut self, n: u64, kind: u8, depth: usize) -> Result<(), &'static str> {
        // Every item takes at least one byte: more items than bytes left is a lie.
        if n > (self.b.len() - self.pos) as u64 {
            return Err("it ends early");
        }
        for _ in 0..n {
            self.item(kind, depth)?;
        }
        Ok(())
    }

    /// One element of a list, set or map: a boolean takes a byte there.
    fn item(&mut self, kind: u8, depth: usize) -> Result<(), &'static str> {
        if kind == TRUE || kind == FALSE { self.take(1) } else { self.skip(kind, depth + 1) }
    }
}
