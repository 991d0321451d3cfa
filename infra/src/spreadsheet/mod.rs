//! Reads one sheet of an untrusted Excel `.xlsx` workbook into rows (`domain::spreadsheet`
//! shapes and bounds) with calamine. Before calamine sees the bytes, every archive entry is
//! inflated once into a counting sink, so a workbook that expands past
//! `MAX_EXPANDED_BYTES` (a zip bomb, whatever its entries declare) or holds too many parts is
//! refused without being parsed; calamine then reads those same bytes. Cells are streamed
//! (calamine's cell reader, never a dense range, so a lone cell at XFD1048576 costs nothing)
//! and the row, column, cell, characters-per-cell and total-text bounds are checked as they
//! arrive, before a cell's text is copied: a shared string counts once per cell that reads it
//! but is copied once (`SharedTexts`), so one long string read by many cells is refused
//! instead of multiplied. Formulas are not evaluated: a cell reads as the value Excel last
//! saved for it. Pure CPU and memory work, no files: the caller runs it on a blocking thread.

use std::collections::HashMap;
use std::io::{self, Cursor, Read, Seek, Write};
use std::sync::Arc;

use calamine::{open_workbook_from_rs, DataRef, Reader, Xlsx, XlsxError};
use domain::spreadsheet::{
    cell_name, cell_text_bytes, choose_sheet, number_text, rows_from_cells, SheetCell, SheetRows, SpreadsheetError,
    TextBudget, MAX_ARCHIVE_ENTRIES, MAX_EXPANDED_BYTES, MAX_SHEET_CELLS, MAX_SHEET_COLUMNS, MAX_SHEET_ROWS,
    MAX_WORKBOOK_BYTES,
};

/// The rows of the sheet named `wanted` (ignoring case), else of the only sheet.
pub fn read_sheet(bytes: &[u8], wanted: Option<&str>) -> Result<SheetRows, SpreadsheetError> {
    if bytes.len() > MAX_WORKBOOK_BYTES {
        return Err(SpreadsheetError::TooLarge);
    }
    check_expansion(bytes)?;
    let mut workbook: Xlsx<_> = open_workbook_from_rs(Cursor::new(bytes)).map_err(|e| refusal(e, "workbook"))?;
    let sheet = choose_sheet(&workbook.sheet_names(), wanted)?;
    let cells = read_cells(&mut workbook, &sheet)?;
    rows_from_cells(&sheet, cells)
}

/// Inflates every entry into a counting sink: more than `MAX_EXPANDED_BYTES` in all, or more
/// than `MAX_ARCHIVE_ENTRIES` entries, is refused; so is anything that is not a readable zip.
fn check_expansion(bytes: &[u8]) -> Result<(), SpreadsheetError> {
    let mut archive = zip::ZipArchive::new(Cursor::new(bytes)).map_err(|_| SpreadsheetError::NotAWorkbook)?;
    if archive.len() > MAX_ARCHIVE_ENTRIES {
        return Err(SpreadsheetError::ExpandsTooMuch);
    }
    let mut budget = Budget { left: MAX_EXPANDED_BYTES };
    for index in 0..archive.len() {
        let entry = archive.by_index(index).map_err(|_| SpreadsheetError::Damaged { part: "archive" })?;
        let mut limited = entry.take(budget.left + 1);
        match io::copy(&mut limited, &mut budget) {
            Ok(_) => {}
            Err(e) if e.kind() == io::ErrorKind::FileTooLarge => return Err(SpreadsheetError::ExpandsTooMuch),
            Err(_) => return Err(SpreadsheetError::Damaged { part: "archive" }),
        }
    }
    Ok(())
}

/// A sink that counts down what may still be inflated.
struct Budget {
    left: u64,
}

impl Write for Budget {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match self.left.checked_sub(buf.len() as u64) {
            Some(left) => {
                self.left = left;
                Ok(buf.len())
            }
            None => Err(io::Error::from(io::ErrorKind::FileTooLarge)),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// The sheet's non-empty cells as (row, column, text), refusing out-of-bounds cells, a cell
/// over `MAX_CELL_CHARS` and text past `MAX_SHEET_TEXT_BYTES` as they stream in.
fn read_cells<RS: Read + Seek>(workbook: &mut Xlsx<RS>, sheet: &str) -> Result<Vec<SheetCell>, SpreadsheetError> {
    let mut reader = workbook.worksheet_cells_reader(sheet).map_err(|e| refusal(e, "sheet"))?;
    let mut cells = Vec::new();
    let mut first_row: Option<u32> = None;
    let mut shared = SharedTexts::default();
    let mut budget = TextBudget::default();
    while let Some(cell) = reader.next_cell().map_err(|e| refusal(e, "sheet"))? {
        let (row, column) = cell.get_position();
        let Some(text) = cell_text(cell.get_value(), row, column, &mut shared, &mut budget)? else { continue };
        if column as usize >= MAX_SHEET_COLUMNS {
            return Err(SpreadsheetError::TooManyColumns);
        }
        let first = *first_row.get_or_insert(row);
        if row > first && (row - first) as usize > MAX_SHEET_ROWS {
            return Err(SpreadsheetError::TooManyRows);
        }
        if cells.len() >= MAX_SHEET_CELLS {
            return Err(SpreadsheetError::TooManyCells);
        }
        cells.push((row, column, text));
    }
    Ok(cells)
}

/// The workbook's shared strings as the cells read them: each checked and copied once, on
/// its first reference, then handed out again (with its response size) to every cell that
/// reads it. Keyed by where calamine holds the string, which stays put while the sheet is read.
#[derive(Default)]
struct SharedTexts {
    seen: HashMap<(usize, usize), (Arc<str>, usize)>,
}

impl SharedTexts {
    /// The shared copy of `text` and its response size; refused when it is over the cell limit.
    fn get(&mut self, text: &str, row: u32, column: u32) -> Result<(Arc<str>, usize), SpreadsheetError> {
        let key = (text.as_ptr() as usize, text.len());
        if let Some((shared, bytes)) = self.seen.get(&key) {
            return Ok((shared.clone(), *bytes));
        }
        let bytes = cell_text_bytes(text, row, column)?;
        let shared: Arc<str> = Arc::from(text);
        self.seen.insert(key, (shared.clone(), bytes));
        Ok((shared, bytes))
    }
}

/// What a cell reads as, or `None` when it is empty; an error value is refused with its cell,
/// and so is text over the cell limit or past the sheet's text bound (checked before copying).
fn cell_text(
    value: &DataRef<'_>,
    row: u32,
    column: u32,
    shared: &mut SharedTexts,
    budget: &mut TextBudget,
) -> Result<Option<Arc<str>>, SpreadsheetError> {
    let owned = match value {
        DataRef::Empty => return Ok(None),
        DataRef::SharedString(s) => {
            let (text, bytes) = shared.get(s, row, column)?;
            budget.spend(bytes)?;
            return Ok(Some(text));
        }
        DataRef::String(s) | DataRef::DateTimeIso(s) | DataRef::DurationIso(s) => {
            budget.spend(cell_text_bytes(s, row, column)?)?;
            return Ok(Some(Arc::from(s.as_str())));
        }
        DataRef::Int(i) => i.to_string(),
        DataRef::Float(f) => number_text(*f),
        DataRef::Bool(b) => b.to_string(),
        DataRef::DateTime(d) => match d.as_datetime() {
            Some(at) if d.is_datetime() && at.time() == chrono::NaiveTime::MIN => at.format("%Y-%m-%d").to_string(),
            Some(at) if d.is_datetime() => at.format("%Y-%m-%d %H:%M:%S").to_string(),
            _ => number_text(d.as_f64()),
        },
        DataRef::Error(e) => {
            return Err(SpreadsheetError::CellError { cell: cell_name(row, column), error: e.to_string() })
        }
    };
    budget.spend(cell_text_bytes(&owned, row, column)?)?;
    Ok(Some(Arc::from(owned)))
}

/// A calamine failure as a refusal: not a workbook at all, or a damaged part (the detail is
/// logged, never echoed).
fn refusal(error: XlsxError, part: &'static str) -> SpreadsheetError {
    tracing::info!(part, error = %error, "spreadsheet refused");
    match error {
        XlsxError::Zip(_) => SpreadsheetError::NotAWorkbook,
        XlsxError::WorksheetNotFound(_) => SpreadsheetError::Damaged { part: "sheet list" },
        _ => SpreadsheetError::Damaged { part },
    }
}

#[cfg(test)]
mod tests;
