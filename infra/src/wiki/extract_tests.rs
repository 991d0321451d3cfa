//! Unit tests of [`extract_pdf`] on generated PDFs ([`crate::wiki::test_pdfs`]): the good
//! case with its outline, every refusal with its code, each text budget, and hostile structure
//! (100,000 nesting levels, reference cycles) that must end within the limits.

use super::*;
use crate::wiki::outline::OutlineNode;
use crate::wiki::test_pdfs;

fn extract(bytes: &[u8]) -> Result<ExtractedPdf, ExtractError> {
    extract_pdf(bytes, &ExtractLimits::default())
}

fn node(title: &str, depth: u32, page_index: Option<u32>) -> OutlineNode {
    OutlineNode { title: title.into(), depth, page_index }
}

#[test]
fn a_multi_page_pdf_yields_its_pages_text_and_outline() {
    let pdf = extract(&test_pdfs::multi_page_with_outline()).unwrap();
    assert_eq!(pdf.page_count, 3);
    assert_eq!(pdf.pages.len(), 3);
    assert_eq!(pdf.pages[0], "Introduction to the NOC runbook\nRead this first.");
    assert_eq!(pdf.pages[2], "Procedures: restart the collector");
    assert_eq!(
        pdf.outline,
        vec![node("Introduction", 0, Some(0)), node("Scope", 1, Some(1)), node("Procedures", 0, Some(2))]
    );
    assert_eq!(pdf.text_items, 4);
}

#[test]
fn an_encrypted_pdf_is_refused() {
    assert_eq!(extract(&test_pdfs::encrypted()), Err(ExtractError::Encrypted));
}

#[test]
fn a_truncated_pdf_is_malformed() {
    assert_eq!(extract(&test_pdfs::truncated()), Err(ExtractError::Malformed));
}

#[test]
fn a_pdf_header_followed_by_garbage_is_malformed() {
    assert_eq!(extract(&test_pdfs::header_then_garbage()), Err(ExtractError::Malformed));
}

#[test]
fn a_file_without_the_signature_is_not_a_pdf() {
    assert_eq!(extract(b"GIF89a not a pdf at all"), Err(ExtractError::NotPdf));
    assert_eq!(extract(b""), Err(ExtractError::NotPdf));
}

#[test]
fn a_file_over_the_size_limit_is_refused_before_parsing() {
    let bytes = test_pdfs::pages(1);
    let limits = ExtractLimits { max_pdf_bytes: bytes.len() as u64 - 1, ..ExtractLimits::default() };
    assert_eq!(extract_pdf(&bytes, &limits), Err(ExtractError::TooLarge));
}

#[test]
fn one_thousand_pages_pass_and_one_thousand_and_one_are_refused() {
    let pdf = extract(&test_pdfs::pages(1_000)).unwrap();
    assert_eq!((pdf.page_count, pdf.pages.len()), (1_000, 1_000));
    assert_eq!(pdf.pages[999], "Page 1000");
    assert_eq!(extract(&test_pdfs::pages(1_001)), Err(ExtractError::TooManyPages));
}

#[test]
fn a_page_with_300000_characters_stops_at_the_page_limit() {
    assert_eq!(extract(&test_pdfs::page_with_chars(300_000)), Err(ExtractError::PageTextLimit { page: 1 }));
    let pdf = extract(&test_pdfs::page_with_chars(200_000)).unwrap();
    assert!(pdf.pages[0].encode_utf16().count() <= limits::MAX_PAGE_TEXT_UTF16);
    assert_eq!(pdf.pages[0].chars().filter(|c| !c.is_whitespace()).count(), 200_000);
}

#[test]
fn the_document_budget_spans_pages() {
    let line = "x".repeat(500);
    let contents: Vec<Vec<u8>> = (0..3).map(|_| test_pdfs::text_content(std::slice::from_ref(&line))).collect();
    let (builder, _) = test_pdfs::document(&contents, "");
    let bytes = builder.finish(1);
    let limits = ExtractLimits { max_document_utf16: 1_200, ..ExtractLimits::default() };
    assert_eq!(extract_pdf(&bytes, &limits), Err(ExtractError::DocumentTextLimit));
    let limits = ExtractLimits { max_document_utf16: 1_500, ..ExtractLimits::default() };
    assert_eq!(extract_pdf(&bytes, &limits).unwrap().text_utf16(), 1_500);
}

#[test]
fn the_text_item_budget_spans_pages() {
    let bytes = test_pdfs::many_text_items(3, 400);
    let limits = ExtractLimits { max_text_items: 1_000, ..ExtractLimits::default() };
    assert_eq!(extract_pdf(&bytes, &limits), Err(ExtractError::TextItemLimit));
    let limits = ExtractLimits { max_text_items: 1_200, ..ExtractLimits::default() };
    assert_eq!(extract_pdf(&bytes, &limits).unwrap().text_items, 1_200);
}

#[test]
fn more_than_a_million_text_items_are_refused_at_the_default_limit() {
    let bytes = test_pdfs::many_text_items(2, 500_001);
    assert_eq!(extract(&bytes), Err(ExtractError::TextItemLimit));
}

#[test]
fn deeply_nested_objects_end_within_the_limits() {
    // 100,000 levels of arrays and of dictionaries: the parser's nesting bound refuses them
    // without exhausting the stack, and the page around them still reads.
    let pdf = extract(&test_pdfs::deeply_nested(100_000)).unwrap();
    assert_eq!(pdf.pages, vec!["Nested".to_string()]);
}

#[test]
fn reference_cycles_end() {
    let pdf = extract(&test_pdfs::reference_cycles()).unwrap();
    assert_eq!(pdf.page_count, 2, "the page tree listing itself adds no page");
    assert_eq!(pdf.pages, vec!["Cycle".to_string(), "Second".to_string()], "looping resources decode as Latin-1");
    assert_eq!(pdf.outline, vec![node("One", 0, Some(0)), node("Two", 0, Some(1))]);
}

#[test]
fn the_outline_is_bounded_in_nodes_and_title_length() {
    let pdf = extract(&test_pdfs::long_outline(600, 300)).unwrap();
    assert_eq!(pdf.outline.len(), limits::MAX_OUTLINE_NODES);
    assert!(pdf.outline.iter().all(|n| n.title.chars().count() == limits::MAX_OUTLINE_LABEL_CHARS));
    assert!(pdf.outline[499].title.starts_with("00499 "), "kept in document order");
}

#[test]
fn every_error_has_a_stable_code_on_the_wire_and_a_fixed_text() {
    let all = [
        ExtractError::NotPdf,
        ExtractError::TooLarge,
        ExtractError::Encrypted,
        ExtractError::Malformed,
        ExtractError::TooManyPages,
        ExtractError::PageTextLimit { page: 7 },
        ExtractError::DocumentTextLimit,
        ExtractError::TextItemLimit,
        ExtractError::Timeout,
        ExtractError::WorkerFailed,
        ExtractError::Unavailable,
    ];
    let mut codes = std::collections::HashSet::new();
    for error in all {
        let wire = serde_json::to_value(&error).unwrap();
        assert_eq!(wire["code"], error.code(), "{error:?}");
        assert_eq!(serde_json::from_value::<ExtractError>(wire).unwrap(), error);
        assert!(codes.insert(error.code()), "unique: {}", error.code());
    }
    assert_eq!(ExtractError::Encrypted.code(), "encrypted-pdf");
    assert_eq!(ExtractError::TooManyPages.code(), "too-many-pages");
    assert_eq!(ExtractError::Timeout.code(), "extraction-timeout");
}
