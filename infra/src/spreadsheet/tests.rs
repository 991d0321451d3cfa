//! Workbooks built with rust_xlsxwriter (the format Excel writes), some then altered entry by
//! entry with the zip crate to make the hostile and damaged cases.

use std::io::{Cursor, Read, Write};

use domain::problem::HttpProblem;
use rust_xlsxwriter::{ExcelDateTime, Format, Workbook, Worksheet};
use serde_json::json;

use super::*;
use domain::spreadsheet::{MAX_CELL_CHARS, MAX_SHEET_TEXT_BYTES};

/// A sheet name and what writes its cells.
type SheetFill<'a> = (&'a str, &'a dyn Fn(&mut Worksheet));

fn workbook(sheets: &[SheetFill<'_>]) -> Vec<u8> {
    let mut book = Workbook::new();
    for (name, fill) in sheets {
        let sheet = book.add_worksheet();
        sheet.set_name(*name).unwrap();
        fill(sheet);
    }
    book.save_to_buffer().unwrap()
}

fn servers_sheet(sheet: &mut Worksheet) {
    for (col, name) in ["name", "businessArea", "os", "comment"].iter().enumerate() {
        sheet.write_string(0, col as u16, *name).unwrap();
    }
    sheet.write_string(1, 0, "web-01").unwrap();
    sheet.write_string(1, 1, "Payments").unwrap();
    sheet.write_number(1, 2, 2019).unwrap();
    sheet.write_boolean(1, 3, true).unwrap();
    sheet.write_string(3, 0, "db-01").unwrap();
    sheet.write_number(3, 3, 0.25).unwrap();
    let date = Format::new().set_num_format("yyyy-mm-dd");
    let stamp = Format::new().set_num_format("yyyy-mm-dd hh:mm:ss");
    sheet.write_datetime_with_format(3, 1, ExcelDateTime::from_ymd(2026, 12, 4).unwrap(), &date).unwrap();
    let at = ExcelDateTime::from_ymd(2026, 12, 4).unwrap().and_hms(16, 30, 5).unwrap();
    sheet.write_datetime_with_format(3, 2, at, &stamp).unwrap();
}

/// The workbook's entries with `name` replaced by `edit(old content)`.
fn rewrite_entry(bytes: &[u8], name: &str, edit: impl Fn(String) -> String) -> Vec<u8> {
    let mut source = zip::ZipArchive::new(Cursor::new(bytes)).unwrap();
    let mut out = zip::ZipWriter::new(Cursor::new(Vec::new()));
    for i in 0..source.len() {
        let mut entry = source.by_index(i).unwrap();
        let mut content = Vec::new();
        entry.read_to_end(&mut content).unwrap();
        if entry.name() == name {
            content = edit(String::from_utf8(content).unwrap()).into_bytes();
        }
        out.start_file(entry.name(), zip::write::SimpleFileOptions::default()).unwrap();
        out.write_all(&content).unwrap();
    }
    out.finish().unwrap().into_inner()
}

/// The workbook with one more entry of `size` zero bytes (deflated to almost nothing).
fn with_extra_entry(bytes: &[u8], size: usize) -> Vec<u8> {
    let mut out = zip::ZipWriter::new_append(Cursor::new(bytes.to_vec())).unwrap();
    out.start_file("xl/media/padding.bin", zip::write::SimpleFileOptions::default()).unwrap();
    let chunk = vec![0u8; 1 << 20];
    let mut left = size;
    while left > 0 {
        let n = left.min(chunk.len());
        out.write_all(&chunk[..n]).unwrap();
        left -= n;
    }
    out.finish().unwrap().into_inner()
}

#[test]
fn a_sheet_reads_as_text_rows_like_a_csv() {
    let bytes = workbook(&[("Servers", &servers_sheet)]);
    let sheet = read_sheet(&bytes, Some("servers")).unwrap();
    assert_eq!(sheet.sheet, "Servers");
    assert_eq!(sheet.columns, vec!["name", "businessArea", "os", "comment"]);
    let rows = serde_json::to_value(&sheet).unwrap()["rows"].clone();
    assert_eq!(
        rows,
        json!([
            {"name": "web-01", "businessArea": "Payments", "os": "2019", "comment": "true"},
            {"name": "db-01", "businessArea": "2026-12-04", "os": "2026-12-04 16:30:05", "comment": "0.25"},
        ])
    );
}

#[test]
fn the_named_sheet_wins_and_several_unnamed_sheets_are_refused() {
    let other = |s: &mut Worksheet| {
        s.write_string(0, 0, "summary").unwrap();
    };
    let bytes = workbook(&[("Summary", &other), ("servers", &servers_sheet)]);
    assert_eq!(read_sheet(&bytes, Some("Servers")).unwrap().rows.len(), 2);
    let refused = read_sheet(&bytes, Some("contacts")).unwrap_err();
    assert_eq!(refused.code(), "which_sheet");
    assert!(refused.to_string().contains("\"Summary\", \"servers\""), "{refused}");
    let only = workbook(&[("Sheet1", &servers_sheet)]);
    assert_eq!(read_sheet(&only, Some("servers")).unwrap().sheet, "Sheet1");
}

#[test]
fn a_cell_holding_an_error_value_is_refused_with_its_name() {
    let bytes = workbook(&[("servers", &servers_sheet)]);
    let broken = rewrite_entry(&bytes, "xl/worksheets/sheet1.xml", |xml| {
        let start = xml.find("<c r=\"B2\"").expect("B2 in the sheet");
        let end = start + xml[start..].find("</c>").unwrap() + 4;
        format!("{}<c r=\"B2\" t=\"e\"><v>#DIV/0!</v></c>{}", &xml[..start], &xml[end..])
    });
    let refused = read_sheet(&broken, None).unwrap_err();
    assert_eq!(refused, SpreadsheetError::CellError { cell: "B2".into(), error: "#DIV/0!".into() });
}

#[test]
fn cells_far_out_are_refused_without_building_a_dense_sheet() {
    let far_right = workbook(&[("s", &|s: &mut Worksheet| {
        s.write_string(0, 0, "name").unwrap();
        s.write_string(1, 16_383, "x").unwrap();
    })]);
    assert_eq!(read_sheet(&far_right, None), Err(SpreadsheetError::TooManyColumns));
    let far_down = workbook(&[("s", &|s: &mut Worksheet| {
        s.write_string(0, 0, "name").unwrap();
        s.write_string(1_048_575, 0, "x").unwrap();
    })]);
    assert_eq!(read_sheet(&far_down, None), Err(SpreadsheetError::TooManyRows));
}

#[test]
fn a_workbook_that_inflates_past_the_bound_is_refused_before_parsing() {
    let bytes = workbook(&[("servers", &servers_sheet)]);
    let bomb = with_extra_entry(&bytes, MAX_EXPANDED_BYTES as usize + 1);
    assert!(bomb.len() < 2 << 20, "the bomb is small on the wire ({} bytes)", bomb.len());
    assert_eq!(read_sheet(&bomb, None), Err(SpreadsheetError::ExpandsTooMuch));
    let padded = with_extra_entry(&bytes, 4 << 20);
    assert!(read_sheet(&padded, None).is_ok(), "a workbook within the bound must still read");
}

#[test]
fn what_is_not_a_workbook_is_refused_with_a_typed_error() {
    assert_eq!(read_sheet(b"name,os\nweb-01,Linux\n", None), Err(SpreadsheetError::NotAWorkbook));
    assert_eq!(read_sheet(&vec![0u8; MAX_WORKBOOK_BYTES + 1], None), Err(SpreadsheetError::TooLarge));
    let bytes = workbook(&[("servers", &servers_sheet)]);
    let damaged = rewrite_entry(&bytes, "xl/worksheets/sheet1.xml", |xml| {
        xml.replace("<sheetData>", "<sheetData><row r=\"1\"><c r=\"A1\" t=\"s\"><v>x</v>")
    });
    assert_eq!(read_sheet(&damaged, None).unwrap_err().code(), "damaged_workbook");
    let mut zip_only = zip::ZipWriter::new(Cursor::new(Vec::new()));
    zip_only.start_file("readme.txt", zip::write::SimpleFileOptions::default()).unwrap();
    zip_only.write_all(b"not a workbook").unwrap();
    let zip_only = zip_only.finish().unwrap().into_inner();
    assert!(matches!(
        read_sheet(&zip_only, None),
        Err(SpreadsheetError::NotAWorkbook | SpreadsheetError::Damaged { .. })
    ));
}

/// A one-column sheet ("name", then `cells` rows) whose body cells all read the one shared
/// string, rewritten in `sharedStrings.xml` to `text_len` copies of "x" (deflated to little).
fn one_shared_string_read_by(cells: u32, text_len: usize) -> Vec<u8> {
    let bytes = workbook(&[("s", &|s: &mut Worksheet| {
        s.write_string(0, 0, "name").unwrap();
        for row in 1..=cells {
            s.write_string(row, 0, "SHARED").unwrap();
        }
    })]);
    rewrite_entry(&bytes, "xl/sharedStrings.xml", |xml| {
        assert!(xml.contains("<t>SHARED</t>"), "{xml}");
        xml.replace("<t>SHARED</t>", &format!("<t>{}</t>", "x".repeat(text_len)))
    })
}

#[test]
fn one_long_shared_string_read_by_many_cells_is_refused_before_it_is_copied() {
    let hostile = one_shared_string_read_by(100, 4 << 20);
    assert!(hostile.len() < 16 << 10, "the workbook is small on the wire ({} bytes)", hostile.len());
    check_expansion(&hostile).expect("it passes the expansion bound: the string is stored once");
    let refused = read_sheet(&hostile, None).unwrap_err();
    assert_eq!(refused, SpreadsheetError::CellTooLong("A2".into()));
    assert_eq!((refused.status(), refused.code()), (422, "cell_too_long"));
}

#[test]
fn text_past_the_sheet_bound_is_refused_as_cells_stream_and_shared_text_is_held_once() {
    let cells_needed = (MAX_SHEET_TEXT_BYTES / MAX_CELL_CHARS) as u32 + 1;
    let hostile = one_shared_string_read_by(cells_needed, MAX_CELL_CHARS);
    let refused = read_sheet(&hostile, None).unwrap_err();
    assert_eq!((refused.status(), refused.code()), (413, "too_much_text"));

    let legal = read_sheet(&one_shared_string_read_by(100, MAX_CELL_CHARS), None).unwrap();
    assert_eq!(legal.rows.len(), 100);
    let first = &legal.rows[0][0].1;
    assert_eq!(first.chars().count(), MAX_CELL_CHARS, "Excel's longest cell still reads");
    assert!(legal.rows.iter().all(|row| Arc::ptr_eq(&row[0].1, first)), "one copy for every cell reading it");
}
