//! The wiki's limits, with the legacy numbers (Relay's `src/shared/knowledge.ts`,
//! `knowledgeSearch.ts` and the security model): PDF and chunk sizes, batch size, upload
//! retention, page and outline bounds, the lengths of stored texts, the search bounds and the
//! text extraction budgets. It holds constants only; the rules that apply them live in the
//! sibling modules and in the server's wiki actor. Lengths are in characters (Unicode code
//! points) unless a constant says UTF-16 units.

/// One mebibyte.
const MIB: u64 = 1024 * 1024;

/// Largest PDF accepted (bytes): 50 MiB.
pub const MAX_PDF_BYTES: u64 = 50 * MIB;
/// Smallest PDF accepted (bytes): the five bytes of the `%PDF-` signature.
pub const MIN_PDF_BYTES: u64 = 5;
/// Size of every upload chunk but the last (bytes): 4 MiB. The chunk hook refuses any other
/// `chunkSize`.
pub const UPLOAD_CHUNK_BYTES: u64 = 4 * MIB;
/// Most PDFs in one upload batch.
pub const MAX_FILES_PER_BATCH: usize = 100;
/// How long an unpublished upload (and its batch) is kept after its last activity: 7 days.
pub const UPLOAD_RETENTION_MS: i64 = 7 * 24 * 3600 * 1000;
/// Most times the desktop retries one chunk before the upload fails.
pub const UPLOAD_MAX_RETRIES: u32 = 8;
/// Most chunks the desktop sends at the same time.
pub const UPLOAD_CONCURRENCY: usize = 2;
/// Most pages a published PDF may have.
pub const MAX_PAGES: u32 = 1_000;
/// Most nodes in a document outline (table of contents).
pub const MAX_OUTLINE_NODES: usize = 500;
/// Longest outline label (characters).
pub const MAX_OUTLINE_LABEL_CHARS: usize = 240;
/// Longest category name (characters, after normalization).
pub const MAX_CATEGORY_NAME_CHARS: usize = 120;
/// Longest document title (characters).
pub const MAX_TITLE_CHARS: usize = 240;
/// Longest PDF file name (characters).
pub const MAX_FILE_NAME_CHARS: usize = 240;
/// Longest `sourceKey` (characters).
pub const MAX_SOURCE_KEY_CHARS: usize = 512;
/// Longest link URL (characters).
pub const MAX_LINK_URL_CHARS: usize = 4_096;
/// Largest cover image (bytes; PNG): 2 MiB.
pub const MAX_COVER_PNG_BYTES: u64 = 2 * MIB;

/// Version of the search index layout; passages indexed under another version are rebuilt.
pub const SEARCH_INDEX_VERSION: u32 = 1;
/// Longest search query (Unicode code points, after trimming).
pub const MAX_QUERY_CHARS: usize = 120;
/// Most results of a search across the whole library.
pub const SEARCH_GLOBAL_RESULTS: usize = 20;
/// Most results of a search inside one document.
pub const SEARCH_DOCUMENT_RESULTS: usize = 50;
/// Length a passage is cut near (characters, at a word boundary).
pub const PASSAGE_TARGET_CHARS: usize = 900;
/// Longest passage (characters).
pub const PASSAGE_MAX_CHARS: usize = 1_600;
/// How far the next passage starts before the end of the previous one (characters).
pub const PASSAGE_OVERLAP_CHARS: usize = 120;
/// Longest passage heading id (characters).
pub const MAX_HEADING_ID_CHARS: usize = 200;
/// Longest passage heading (characters): an outline label.
pub const MAX_HEADING_CHARS: usize = MAX_OUTLINE_LABEL_CHARS;
/// Longest result excerpt (characters).
pub const MAX_EXCERPT_CHARS: usize = 280;
/// Most passages in the whole search index.
pub const MAX_SEARCH_PASSAGES: usize = 100_000;
/// Most indexed text across the library (bytes): 128 MiB.
pub const MAX_SEARCH_TEXT_BYTES: u64 = 128 * MIB;

/// Most text extracted from one page (UTF-16 code units).
pub const MAX_PAGE_TEXT_UTF16: usize = 250_000;
/// Most text extracted from one document (UTF-16 code units).
pub const MAX_DOCUMENT_TEXT_UTF16: usize = 8_000_000;
/// Most text items extracted from one document.
pub const MAX_TEXT_ITEMS: usize = 1_000_000;
/// Heap of the extraction worker (bytes): 256 MiB.
pub const EXTRACTION_WORKER_HEAP_BYTES: u64 = 256 * MIB;

#[cfg(test)]
#[path = "limits_tests.rs"]
mod tests;
