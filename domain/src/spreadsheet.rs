//! Reading an Excel `.xlsx` workbook for the Data Manager import and Servers sync: the bounds
//! every workbook is checked against before and while it is parsed (file size, expanded size,
//! archive entries, rows, columns, characters per cell, text in all), the rows it becomes (one
//! sheet, first non-empty row = the column names, every cell as text like a CSV cell), how the
//! sheet is chosen (the one named after the collection, else the only sheet) and the typed
//! refusals with their HTTP status. Cell texts are shared (`Arc<str>`: a shared string read by
//! many cells is held once) and rows keep only their filled cells, so the rows cost what the
//! cells hold, never rows x columns; the response still writes every row as an object over all
//! columns, and the text bound counts it that way. The parsing itself (calamine) lives in
//! `infra::spreadsheet`.

use std::sync::Arc;

use serde::ser::{SerializeMap, SerializeSeq, SerializeStruct};
use serde::{Serialize, Serializer};

use crate::import::{MAX_IMPORT_BODY_BYTES, MAX_IMPORT_RECORDS};
use crate::problem::HttpProblem;

const MIB: usize = 1024 * 1024;

/// The largest workbook accepted (the Data Manager's import file limit).
pub const MAX_WORKBOOK_BYTES: usize = 25 * MIB;
/// The most the workbook's archive may expand to, all entries together.
pub const MAX_EXPANDED_BYTES: u64 = 128 * MIB as u64;
/// The most entries the workbook's archive may hold.
pub const MAX_ARCHIVE_ENTRIES: usize = 2_000;
/// Data rows below the header row.
pub const MAX_SHEET_ROWS: usize = MAX_IMPORT_RECORDS;
/// Columns with a value in any row.
pub const MAX_SHEET_COLUMNS: usize = 256;
/// Filled cells read from one sheet at most (10,001 rows of 64 values; also bounds a sheet that
/// repeats one cell over and over).
pub const MAX_SHEET_CELLS: usize = (MAX_SHEET_ROWS + 1) * 64;
/// Characters in one cell (Excel's own limit).
pub const MAX_CELL_CHARS: usize = 32_767;
/// The sheet's text as the response writes it (every row an object over all columns, names and
/// texts JSON-escaped), counted per cell before any text is copied: a shared string read by
/// many cells counts once per cell. Rows past this would not fit one import body anyway.
pub const MAX_SHEET_TEXT_BYTES: usize = MAX_IMPORT_BODY_BYTES;
/// Sheet names listed in a "which sheet?" refusal.
const LISTED_SHEETS: usize = 10;

/// One non-empty cell: 0-based row and column and its text (shared, never copied per cell).
pub type SheetCell = (u32, u32, Arc<str>);

/// One sheet's rows: `columns` in sheet order; each row holds its filled cells as (index into
/// `columns`, text) in column order; blank rows are left out. Serialized as
/// `{sheet, columns, rows}` with every row an object holding every column (a blank cell is "").
#[derive(Debug, Clone, PartialEq)]
pub struct SheetRows {
    pub sheet: String,
    pub columns: Vec<String>,
    pub rows: Vec<Vec<(usize, Arc<str>)>>,
}

impl Serialize for SheetRows {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut out = serializer.serialize_struct("SheetRows", 3)?;
        out.serialize_field("sheet", &self.sheet)?;
        out.serialize_field("columns", &self.columns)?;
        out.serialize_field("rows", &RowObjects(self))?;
        out.end()
    }
}

/// The rows as the wire writes them: one object per row over all columns.
struct RowObjects<'a>(&'a SheetRows);

impl Serialize for RowObjects<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut rows = serializer.serialize_seq(Some(self.0.rows.len()))?;
        for cells in &self.0.rows {
            rows.serialize_element(&RowObject { columns: &self.0.columns, cells })?;
        }
        rows.end()
    }
}

struct RowObject<'a> {
    columns: &'a [String],
    cells: &'a [(usize, Arc<str>)],
}

impl Serialize for RowObject<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut row = serializer.serialize_map(Some(self.columns.len()))?;
        let mut filled = self.cells.iter().peekable();
        for (index, name) in self.columns.iter().enumerate() {
            let text = filled.next_if(|(column, _)| *column == index).map_or("", |(_, text)| &**text);
            row.serialize_entry(name, text)?;
        }
        row.end()
    }
}

/// Why a workbook was refused. Nothing is stored either way: reading is all it does.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SpreadsheetError {
    #[error("The workbook must be under {} MB.", MAX_WORKBOOK_BYTES / MIB)]
    TooLarge,
    #[error("The file is not an Excel .xlsx workbook.")]
    NotAWorkbook,
    #[error("The workbook expands to more than {} MB or {MAX_ARCHIVE_ENTRIES} parts; it cannot be read.", MAX_EXPANDED_BYTES / MIB as u64)]
    ExpandsTooMuch,
    #[error("The workbook could not be read: its {part} is damaged.")]
    Damaged { part: &'static str },
    #[error("The workbook has no sheet named \"{wanted}\" and more than one sheet ({found}). Rename the sheet to import or keep only that one.")]
    WhichSheet { wanted: String, found: String },
    #[error("The workbook has no sheets.")]
    NoSheets,
    #[error("The sheet \"{0}\" is empty.")]
    EmptySheet(String),
    #[error("The column \"{0}\" appears more than once.")]
    DuplicateColumn(String),
    #[error("Column {0} has values but no name in the header row.")]
    UnnamedColumn(String),
    #[error("The sheet has more than {MAX_SHEET_ROWS} rows below the header.")]
    TooManyRows,
    #[error("The sheet has values in more than {MAX_SHEET_COLUMNS} columns.")]
    TooManyColumns,
    #[error("The sheet has more than {MAX_SHEET_CELLS} filled cells.")]
    TooManyCells,
    #[error("Cell {cell} holds the spreadsheet error {error}; fix it or clear the cell.")]
    CellError { cell: String, error: String },
    #[error("Cell {0} holds more than {MAX_CELL_CHARS} characters, Excel's own limit for a cell.")]
    CellTooLong(String),
    #[error("The sheet's rows come to more than {} MB of text; split it into smaller sheets.", MAX_SHEET_TEXT_BYTES / MIB)]
    TooMuchText,
}

impl SpreadsheetError {
    /// "Which sheet?" with at most ten of the workbook's sheet names.
    pub fn which_sheet(wanted: &str, names: &[String]) -> SpreadsheetError {
        let mut found = names.iter().take(LISTED_SHEETS).map(|n| format!("\"{n}\"")).collect::<Vec<_>>().join(", ");
        if names.len() > LISTED_SHEETS {
            found.push_str(", …");
        }
        SpreadsheetError::WhichSheet { wanted: wanted.to_string(), found }
    }
}

impl HttpProblem for SpreadsheetError {
    fn status(&self) -> u16 {
        match self {
            SpreadsheetError::TooLarge | SpreadsheetError::ExpandsTooMuch | SpreadsheetError::TooMuchText => 413,
            SpreadsheetError::NotAWorkbook => 415,
            _ => 422,
        }
    }

    fn code(&self) -> &'static str {
        match self {
            SpreadsheetError::TooLarge => "too_large",
            SpreadsheetError::NotAWorkbook => "not_a_workbook",
            SpreadsheetError::ExpandsTooMuch => "expands_too_much",
            SpreadsheetError::Damaged { .. } => "damaged_workbook",
            SpreadsheetError::WhichSheet { .. } => "which_sheet",
            SpreadsheetError::NoSheets => "no_sheets",
            SpreadsheetError::EmptySheet(_) => "empty_sheet",
            SpreadsheetError::DuplicateColumn(_) => "duplicate_column",
            SpreadsheetError::UnnamedColumn(_) => "unnamed_column",
            SpreadsheetError::TooManyRows => "too_many_rows",
            SpreadsheetError::TooManyColumns => "too_many_columns",
            SpreadsheetError::TooManyCells => "too_many_cells",
            SpreadsheetError::CellError { .. } => "cell_error",
            SpreadsheetError::CellTooLong(_) => "cell_too_long",
            SpreadsheetError::TooMuchText => "too_much_text",
        }
    }
}

/// The sheet to read: the one whose trimmed name equals `wanted` ignoring case, else the only
/// sheet; otherwise a refusal naming what was found.
pub fn choose_sheet(names: &[String], wanted: Option<&str>) -> Result<String, SpreadsheetError> {
    let wanted = wanted.map(str::trim).filter(|w| !w.is_empty());
    if let Some(w) = wanted {
        if let Some(hit) = names.iter().find(|n| n.trim().eq_ignore_ascii_case(w)) {
            return Ok(hit.clone());
        }
    }
    match names {
        [] => Err(SpreadsheetError::NoSheets),
        [only] => Ok(only.clone()),
        _ => Err(SpreadsheetError::which_sheet(wanted.unwrap_or("(none given)"), names)),
    }
}

/// The column letters of a 0-based column index: 0 -> A, 25 -> Z, 26 -> AA.
pub fn column_letters(index: u32) -> String {
    let mut n = index as u64 + 1;
    let mut out = Vec::new();
    while n > 0 {
        let rem = ((n - 1) % 26) as u8;
        out.push((b'A' + rem) as char);
        n = (n - 1) / 26;
    }
    out.iter().rev().collect()
}

/// A cell's A1 name from 0-based (row, column).
pub fn cell_name(row: u32, column: u32) -> String {
    format!("{}{}", column_letters(column), row as u64 + 1)
}

/// A number cell as the text an operator sees: whole numbers without ".0" (up to 2^53), others
/// in the shortest form that reads back to the same value (exponent form when very large or
/// small).
pub fn number_text(value: f64) -> String {
    const EXACT: f64 = 9_007_199_254_740_992.0;
    if value.is_finite() && value.fract() == 0.0 && value.abs() <= EXACT {
        format!("{}", value as i64)
    } else {
        format!("{value:?}")
    }
}

/// The bytes `text` takes as a JSON string in the response, quotes and escapes included.
pub fn json_text_bytes(text: &str) -> usize {
    let escaped: usize = text
        .bytes()
        .map(|b| match b {
            b'"' | b'\\' | b'\n' | b'\r' | b'\t' | 0x08 | 0x0c => 2,
            0..=0x1f => 6,
            _ => 1,
        })
        .sum();
    escaped + 2
}

/// One cell's text checked against `MAX_CELL_CHARS` (by bytes first, so a short text is never
/// scanned); answers what it adds to the response, quotes and escapes included.
pub fn cell_text_bytes(text: &str, row: u32, column: u32) -> Result<usize, SpreadsheetError> {
    if text.len() > MAX_CELL_CHARS && text.chars().count() > MAX_CELL_CHARS {
        return Err(SpreadsheetError::CellTooLong(cell_name(row, column)));
    }
    Ok(json_text_bytes(text))
}

/// The sheet's text counted against `MAX_SHEET_TEXT_BYTES` as it is found, refusing as soon as
/// it would pass the bound.
#[derive(Debug, Default)]
pub struct TextBudget {
    spent: usize,
}

impl TextBudget {
    pub fn spend(&mut self, bytes: usize) -> Result<(), SpreadsheetError> {
        self.spent = self.spent.saturating_add(bytes);
        if self.spent > MAX_SHEET_TEXT_BYTES {
            return Err(SpreadsheetError::TooMuchText);
        }
        Ok(())
    }
}

/// Builds the sheet's rows from its non-empty cells, given in any order: the first row holding
/// a value names the columns (trimmed); every later row with a value becomes a row. Checks the
/// row and column bounds, unnamed columns with values, repeated names and the text bound as the
/// response would write it (every row repeats every column name) before any row is built.
pub fn rows_from_cells(sheet: &str, mut cells: Vec<SheetCell>) -> Result<SheetRows, SpreadsheetError> {
    cells.retain(|(_, _, text)| !text.trim().is_empty());
    cells.sort_by_key(|&(row, column, _)| (row, column));
    let Some(&(header_row, _, _)) = cells.first() else {
        return Err(SpreadsheetError::EmptySheet(sheet.to_string()));
    };
    let mut names: Vec<(u32, String)> = Vec::new();
    let mut body = Vec::new();
    for (row, column, text) in cells {
        if column as usize >= MAX_SHEET_COLUMNS {
            return Err(SpreadsheetError::TooManyColumns);
        }
        if (row - header_row) as usize > MAX_SHEET_ROWS {
            return Err(SpreadsheetError::TooManyRows);
        }
        if row == header_row {
            let name = text.trim().to_string();
            if names.iter().any(|(_, n)| *n == name) {
                return Err(SpreadsheetError::DuplicateColumn(name));
            }
            names.push((column, name));
        } else {
            body.push((row, column, text));
        }
    }
    check_text_bound(&names, &body)?;
    let mut rows: Vec<Vec<(usize, Arc<str>)>> = Vec::new();
    let mut current_row = None;
    for (row, column, text) in body {
        let Ok(index) = names.binary_search_by_key(&column, |(c, _)| *c) else {
            return Err(SpreadsheetError::UnnamedColumn(column_letters(column)));
        };
        if current_row != Some(row) {
            current_row = Some(row);
            rows.push(Vec::new());
        }
        if let Some(out) = rows.last_mut() {
            out.push((index, text));
        }
    }
    Ok(SheetRows { sheet: sheet.to_string(), columns: names.into_iter().map(|(_, n)| n).collect(), rows })
}

/// The response's size: each row writes `{"name":"",…}` over all columns, then each filled cell
/// adds its text; refused past `MAX_SHEET_TEXT_BYTES` (before a row is built).
fn check_text_bound(names: &[(u32, String)], body: &[SheetCell]) -> Result<(), SpreadsheetError> {
    let blank_row_bytes: usize = 2 + names.iter().map(|(_, name)| json_text_bytes(name) + 4).sum::<usize>();
    let row_count = body.chunk_by(|a, b| a.0 == b.0).count();
    let mut budget = TextBudget::default();
    budget.spend(row_count.saturating_mul(blank_row_bytes))?;
    for (_, _, text) in body {
        budget.spend(json_text_bytes(text) - 2)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{json, Value};

    fn cells(list: &[(u32, u32, &str)]) -> Vec<SheetCell> {
        list.iter().map(|&(r, c, t)| (r, c, Arc::from(t))).collect()
    }

    /// The rows as the response writes them.
    fn row_objects(sheet: &SheetRows) -> Vec<Value> {
        serde_json::to_value(sheet).unwrap()["rows"].as_array().unwrap().clone()
    }

    #[test]
    fn the_first_row_with_a_value_names_the_columns_and_every_row_holds_every_column() {
        let sheet = rows_from_cells(
            "servers",
            cells(&[
                (4, 1, "web-02"),
                (2, 0, " name "),
                (2, 1, "os"),
                (3, 0, "web-01"),
                (3, 1, "Linux"),
                (4, 0, "web-02"),
            ]),
        )
        .unwrap();
        assert_eq!(sheet.columns, vec!["name", "os"]);
        assert_eq!(sheet.rows.len(), 2);
        assert_eq!(row_objects(&sheet)[0], json!({"name": "web-01", "os": "Linux"}));
        let second = rows_from_cells("s", cells(&[(0, 0, "name"), (0, 1, "os"), (1, 1, "only")])).unwrap();
        assert_eq!(second.rows, vec![vec![(1, Arc::from("only"))]], "a row keeps only its filled cells");
        assert_eq!(
            serde_json::to_value(&second).unwrap(),
            json!({"sheet": "s", "columns": ["name", "os"], "rows": [{"name": "", "os": "only"}]}),
            "the response still writes every column"
        );
    }

    #[test]
    fn a_cell_over_excels_character_limit_is_refused_with_its_name() {
        let at_limit = "é".repeat(MAX_CELL_CHARS);
        assert_eq!(cell_text_bytes(&at_limit, 0, 0), Ok(at_limit.len() + 2), "32,767 two-byte characters pass");
        let over = "a".repeat(MAX_CELL_CHARS + 1);
        assert_eq!(cell_text_bytes(&over, 6, 1), Err(SpreadsheetError::CellTooLong("B7".into())));
        assert_eq!(SpreadsheetError::CellTooLong("B7".into()).status(), 422);
        assert_eq!(json_text_bytes("a\"\n\u{1}é"), 2 + 1 + 2 + 2 + 6 + 2);
    }

    #[test]
    fn the_text_bound_counts_every_cell_and_every_rows_column_names() {
        let long_text = "x".repeat(MAX_CELL_CHARS);
        let rows_needed = MAX_SHEET_TEXT_BYTES / MAX_CELL_CHARS + 1;
        let shared: Arc<str> = Arc::from(long_text.as_str());
        let mut repeated: Vec<SheetCell> = vec![(0, 0, Arc::from("name"))];
        repeated.extend((1..=rows_needed as u32).map(|row| (row, 0, shared.clone())));
        assert_eq!(rows_from_cells("s", repeated), Err(SpreadsheetError::TooMuchText), "one string, many cells");

        let wide_name = "n".repeat(2_000);
        let mut wide: Vec<SheetCell> =
            (0..200).map(|column| (0, column, Arc::from(format!("{column}{wide_name}").as_str()))).collect();
        wide.extend((1..=MAX_SHEET_ROWS as u32).map(|row| (row, 0, Arc::from("1"))));
        assert_eq!(rows_from_cells("s", wide), Err(SpreadsheetError::TooMuchText), "long names repeat per row");

        assert_eq!(SpreadsheetError::TooMuchText.status(), 413);
        assert_eq!(SpreadsheetError::TooMuchText.code(), "too_much_text");
    }

    #[test]
    fn blank_rows_and_whitespace_cells_are_left_out() {
        let sheet = rows_from_cells("s", cells(&[(0, 0, "name"), (1, 0, "  "), (5, 0, "x")])).unwrap();
        assert_eq!(sheet.rows.len(), 1);
        assert_eq!(rows_from_cells("empty", cells(&[(3, 3, " ")])), Err(SpreadsheetError::EmptySheet("empty".into())));
    }

    #[test]
    fn bad_headers_are_refused_with_the_column() {
        let dup = rows_from_cells("s", cells(&[(0, 0, "name"), (0, 1, " name")]));
        assert_eq!(dup, Err(SpreadsheetError::DuplicateColumn("name".into())));
        let unnamed = rows_from_cells("s", cells(&[(0, 0, "name"), (1, 0, "a"), (1, 27, "stray")]));
        assert_eq!(unnamed, Err(SpreadsheetError::UnnamedColumn("AB".into())));
    }

    #[test]
    fn rows_and_columns_are_bounded() {
        let last = MAX_SHEET_ROWS as u32;
        assert!(rows_from_cells("s", cells(&[(1, 0, "name"), (1 + last, 0, "ok")])).is_ok());
        let too_far = rows_from_cells("s", cells(&[(1, 0, "name"), (2 + last, 0, "one too many")]));
        assert_eq!(too_far, Err(SpreadsheetError::TooManyRows));
        let wide = rows_from_cells("s", cells(&[(0, MAX_SHEET_COLUMNS as u32, "x")]));
        assert_eq!(wide, Err(SpreadsheetError::TooManyColumns));
    }

    #[test]
    fn the_sheet_named_after_the_collection_wins_else_the_only_sheet() {
        let names = vec!["Summary".to_string(), " Servers ".to_string()];
        assert_eq!(choose_sheet(&names, Some("servers")), Ok(" Servers ".to_string()));
        assert_eq!(choose_sheet(&["Sheet1".to_string()], Some("servers")), Ok("Sheet1".to_string()));
        let which = choose_sheet(&names, Some("contacts")).unwrap_err();
        assert_eq!(which.code(), "which_sheet");
        assert!(which.to_string().contains("\"Summary\", \" Servers \""), "{which}");
        assert_eq!(choose_sheet(&[], None), Err(SpreadsheetError::NoSheets));
        let many: Vec<String> = (0..12).map(|i| format!("S{i}")).collect();
        assert!(choose_sheet(&many, None).unwrap_err().to_string().contains("\"S9\", …"));
    }

    #[test]
    fn cell_names_and_numbers_read_like_excel() {
        assert_eq!(
            (column_letters(0), column_letters(25), column_letters(26), column_letters(701)),
            ("A".into(), "Z".into(), "AA".into(), "ZZ".into())
        );
        assert_eq!(cell_name(6, 1), "B7");
        assert_eq!(number_text(42.0), "42");
        assert_eq!(number_text(-3.0), "-3");
        assert_eq!(number_text(0.1), "0.1");
        assert_eq!(number_text(1e300), "1e300");
        assert_eq!(number_text(1.5e-7), "1.5e-7");
    }

    #[test]
    fn statuses_separate_size_from_content_problems() {
        assert_eq!(SpreadsheetError::TooLarge.status(), 413);
        assert_eq!(SpreadsheetError::ExpandsTooMuch.status(), 413);
        assert_eq!(SpreadsheetError::NotAWorkbook.status(), 415);
        assert_eq!(SpreadsheetError::CellError { cell: "B7".into(), error: "#DIV/0!".into() }.status(), 422);
    }
}
