//! The pure rules of the wiki (knowledge base) publisher: the size, count and text limits the
//! server and the desktop share ([`limits`]); how a PDF upload is planned into 4 MiB chunks, how
//! one uploaded chunk is checked against its upload, which files a batch may hold and how an
//! upload moves through its states ([`upload`]); which search queries are worth running
//! ([`query`]); how a page's text is normalized and cut into overlapping search passages under the
//! index budgets ([`passages`]); how a checked query becomes a safe SQLite FTS5 `MATCH`
//! expression, how a hit matched, its highlighted excerpt and the result limits
//! ([`search_expr`]); how category names are normalized, which category may never be deleted
//! and which document types exist ([`category`]); which file names could mislead a reader and how
//! a stored one is shown ([`file_name`]); and the typed `wiki.*` privileged commands
//! ([`command`]). It refuses to perform IO, read a clock, parse PDFs, run searches or decide
//! storage: the server's wiki actor does the file and index work and the writes, and passes
//! every size, identifier, text and instant in.

pub mod category;
pub mod command;
pub mod file_name;
pub mod limits;
pub mod passages;
pub mod query;
pub mod search_expr;
pub mod upload;

pub use category::{
    can_delete, check_delete, normalize_category_name, CategoryError, CategoryName, DocumentType, UNCATEGORIZED_KEY,
};
pub use file_name::{display_file_name, is_format_char, is_reserved_device_name};
pub use passages::{
    build_document_passages, build_passages, heading_for_page, join_page_items, normalize_for_search, NormalizedSpan,
    NormalizedText, OutlineEntry, PageItems, Passage, PassageBudget, PassageError, PassageHeading, PassageLimits,
};
pub use query::{check_query, is_function_word, QueryError, SearchQuery, FUNCTION_WORDS};
pub use search_expr::{
    clamp_result_limit, common_word_count_limit, excerpt, fts_match_expression, is_common_word, match_kind,
    quote_fts_string, result_limit, Excerpt, MatchKind, SearchScope, SearchTerms,
};
pub use upload::{
    check_batch, check_chunk, check_file_name, check_pdf_signature, expected_chunk_bytes, is_sha256_hex, next,
    ChunkClaim, ChunkError, TransitionError, UploadBinding, UploadError, UploadEvent, UploadPlan, UploadState,
    INVALID_CHUNK_MESSAGE, PDF_SIGNATURE,
};

/// Whether a character is refused in names a person authors (file names, category names): any
/// control character (C0, DEL, C1) and the Unicode line and paragraph separators.
pub(crate) fn is_forbidden_char(c: char) -> bool {
    c.is_control() || c == '\u{2028}' || c == '\u{2029}'
}
