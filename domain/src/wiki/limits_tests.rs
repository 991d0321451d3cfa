//! The limits carry the legacy numbers exactly: sizes in bytes, counts, lengths and budgets.

use super::*;

#[test]
fn sizes_are_the_legacy_byte_counts() {
    assert_eq!(MAX_PDF_BYTES, 52_428_800);
    assert_eq!(MIN_PDF_BYTES, 5);
    assert_eq!(UPLOAD_CHUNK_BYTES, 4_194_304);
    assert_eq!(MAX_COVER_PNG_BYTES, 2_097_152);
    assert_eq!(MAX_SEARCH_TEXT_BYTES, 134_217_728);
    assert_eq!(EXTRACTION_WORKER_HEAP_BYTES, 268_435_456);
    assert_eq!(MAX_PDF_BYTES.div_ceil(UPLOAD_CHUNK_BYTES), 13, "a full-size PDF is 13 chunks");
}

#[test]
fn upload_bounds_are_as_specified() {
    assert_eq!(MAX_FILES_PER_BATCH, 100);
    assert_eq!(UPLOAD_RETENTION_MS, 604_800_000);
    assert_eq!((UPLOAD_MAX_RETRIES, UPLOAD_CONCURRENCY), (8, 2));
}

#[test]
fn document_bounds_are_as_specified() {
    assert_eq!(MAX_PAGES, 1_000);
    assert_eq!((MAX_OUTLINE_NODES, MAX_OUTLINE_LABEL_CHARS), (500, 240));
    assert_eq!(MAX_CATEGORY_NAME_CHARS, 120);
    assert_eq!((MAX_TITLE_CHARS, MAX_FILE_NAME_CHARS), (240, 240));
    assert_eq!(MAX_SOURCE_KEY_CHARS, 512);
    assert_eq!(MAX_LINK_URL_CHARS, 4_096);
}

#[test]
fn search_bounds_are_as_specified() {
    assert_eq!(SEARCH_INDEX_VERSION, 1);
    assert_eq!(MAX_QUERY_CHARS, 120);
    assert_eq!((SEARCH_GLOBAL_RESULTS, SEARCH_DOCUMENT_RESULTS), (20, 50));
    assert_eq!((PASSAGE_TARGET_CHARS, PASSAGE_MAX_CHARS, PASSAGE_OVERLAP_CHARS), (900, 1_600, 120));
    assert_eq!(MAX_EXCERPT_CHARS, 280);
    assert_eq!((MAX_HEADING_ID_CHARS, MAX_HEADING_CHARS), (200, 240));
    assert_eq!(MAX_SEARCH_PASSAGES, 100_000);
    const { assert!(PASSAGE_OVERLAP_CHARS < PASSAGE_TARGET_CHARS && PASSAGE_TARGET_CHARS < PASSAGE_MAX_CHARS) };
}

#[test]
fn extraction_budgets_are_as_specified() {
    assert_eq!(MAX_PAGE_TEXT_UTF16, 250_000);
    assert_eq!(MAX_DOCUMENT_TEXT_UTF16, 8_000_000);
    assert_eq!(MAX_TEXT_ITEMS, 1_000_000);
}
