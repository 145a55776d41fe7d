//! How much a Parquet file may make us do, decided from its footer before any page is read
//! and checked again while rows come out.
//!
//! A few hundred bytes of Parquet can declare millions of rows (a run-length-encoded column
//! repeats one value for free) or a footer can claim rows its pages do not hold. Reading such
//! a file either grows without end (the JSON Lines text is built in memory) or quietly
//! disagrees with itself. So: every row group's row count must agree with its column chunks,
//! the file's count with its row groups', and the rows, the decompressed bytes and the JSON
//! Lines text are each bounded by a ceiling relative to the file's size (with a floor, so a
//! small honest file is never refused). docs/formats.md states these numbers.

use crate::Error;
use parquet::file::metadata::ParquetMetaData;

/// Rows: at most this many, plus [`ROWS_PER_BYTE`] per byte of the file.
pub const ROWS_FLOOR: u64 = 1 << 16;
pub const ROWS_PER_BYTE: u64 = 64;
/// Decompressed column data (as the footer declares it): at most this, plus
/// [`DECOMPRESSED_PER_BYTE`] bytes per byte of the file.
pub const DECOMPRESSED_FLOOR: u64 = 64 << 20;
pub const DECOMPRESSED_PER_BYTE: u64 = 256;
/// The JSON Lines text made from the rows: at most this, plus [`TEXT_PER_BYTE`] per byte.
pub const TEXT_FLOOR: u64 = 64 << 20;
pub const TEXT_PER_BYTE: u64 = 256;

pub fn ceiling(floor: u64, per_byte: u64, file_bytes: usize) -> u64 {
    floor.saturating_add(per_byte.saturating_mul(file_bytes as u64))
}

/// The footer's counts, checked against each other and against the ceilings. Returns the
/// declared rows of every row group.
pub fn check_footer(meta: &ParquetMetaData, file_bytes: usize) -> Result<Vec<u64>, Error> {
    let max_rows = ceiling(ROWS_FLOOR, ROWS_PER_BYTE, file_bytes);
    let max_unpacked = ceiling(DECOMPRESSED_FLOOR, DECOMPRESSED_PER_BYTE, file_bytes);
    let (mut rows, mut unpacked) = (0u64, 0u64);
    let mut per_group = vec![];
    for (g, group) in meta.row_groups().iter().enumerate() {
        let group_no = g + 1;
        let declared = u64::try_from(group.num_rows())
            .map_err(|_| Error::Rows { group: group_no, message: format!("claims {} rows", group.num_rows()) })?;
        for column in group.columns() {
            // Every row puts at least one value (a null counts) into every leaf column.
            if column.num_values() < group.num_rows() {
                return Err(Error::Rows {
                    group: group_no,
                    message: format!(
                        "claims {declared} rows, but its column chunk {:?} holds {} values",
                        column.column_path().string(),
                        column.num_values()
                    ),
                });
            }
            let size = u64::try_from(column.uncompressed_size()).unwrap_or(u64::MAX);
            unpacked = unpacked.saturating_add(size);
            if unpacked > max_unpacked {
                return Err(Error::Limit {
                    place: format!("row group {group_no}, column chunk {:?}", column.column_path().string()),
                    message: format!(
                        "the column data decompresses to more than {max_unpacked} bytes ({} per byte of this \
                         {file_bytes}-byte file, plus {DECOMPRESSED_FLOOR})",
                        DECOMPRESSED_PER_BYTE
                    ),
                });
            }
        }
        rows = rows.saturating_add(declared);
        if rows > max_rows {
            return Err(Error::Limit {
                place: format!("row group {group_no}"),
                message: format!(
                    "the file declares more than {max_rows} rows ({ROWS_PER_BYTE} per byte of this {file_bytes}-byte \
                     file, plus {ROWS_FLOOR})"
                ),
            });
        }
        per_group.push(declared);
    }
    let total = meta.file_metadata().num_rows();
    if u64::try_from(total).ok() != Some(rows) {
        return Err(Error::Rows {
            group: meta.num_row_groups().max(1),
            message: format!("the footer claims {total} rows in all, but its row groups hold {rows}"),
        });
    }
    Ok(per_group)
}
