//! Bounded text extraction from one PDF (runs inside the extraction worker, see
//! [`super::worker`]): [`extract_pdf`] checks the size and the `%PDF-` signature, refuses
//! encrypted files, counts pages (1..=1,000), walks each page's content stream collecting the
//! shown strings and stops the moment a page passes 250,000 UTF-16 units, the document
//! 8,000,000 or the text items 1,000,000, and reads the outline ([`super::outline`]). Every
//! failure is an [`ExtractError`] with a stable code and a fixed text that never quotes the
//! file. It does no IO, keeps no state, and never recurses over the file's object graph (the
//! parser bounds nesting, the outline and page walks are iterative with visited sets); the
//! memory, CPU time and wall clock are bounded by the worker's process limits, not here.

use std::collections::{BTreeMap, HashMap};

use lopdf::content::Content;
use lopdf::{Document, Encoding, LoadOptions, Object, ObjectId};
use serde::{Deserialize, Serialize};

use domain::wiki::limits;

use super::outline::{read_outline, OutlineNode};

/// The budgets of one extraction (the defaults are `domain::wiki::limits`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ExtractLimits {
    pub max_pdf_bytes: u64,
    pub max_pages: u32,
    pub max_page_utf16: usize,
    pub max_document_utf16: usize,
    pub max_text_items: usize,
    pub max_outline_nodes: usize,
    pub max_outline_label_chars: usize,
    /// Largest decompressed stream (object streams while loading, a page's content).
    pub max_stream_bytes: usize,
}

impl Default for ExtractLimits {
    fn default() -> Self {
        ExtractLimits {
            max_pdf_bytes: limits::MAX_PDF_BYTES,
            max_pages: limits::MAX_PAGES,
            max_page_utf16: limits::MAX_PAGE_TEXT_UTF16,
            max_document_utf16: limits::MAX_DOCUMENT_TEXT_UTF16,
            max_text_items: limits::MAX_TEXT_ITEMS,
            max_outline_nodes: limits::MAX_OUTLINE_NODES,
            max_outline_label_chars: limits::MAX_OUTLINE_LABEL_CHARS,
            max_stream_bytes: MAX_STREAM_BYTES,
        }
    }
}

/// Largest decompressed stream read during an extraction: 64 MiB (the worker's address-space
/// limit is the real bound; this one fails early with a clear reason).
pub const MAX_STREAM_BYTES: usize = 64 * 1024 * 1024;

/// What a PDF yields: its page count, the text of each page (in order, one entry per page) and
/// its outline (depth-first, bounded).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ExtractedPdf {
    pub page_count: u32,
    pub pages: Vec<String>,
    pub outline: Vec<OutlineNode>,
    /// Text items (shown strings) counted across the document.
    pub text_items: usize,
}

impl ExtractedPdf {
    /// UTF-16 units across all pages.
    pub fn text_utf16(&self) -> usize {
        self.pages.iter().map(|p| p.encode_utf16().count()).sum()
    }
}

/// Why a PDF yields nothing. The texts are fixed (no file content, no path); [`Self::code`]
/// is the stable code stored with a failed upload.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error, Serialize, Deserialize)]
#[serde(tag = "code", deny_unknown_fields)]
pub enum ExtractError {
    #[serde(rename = "not-pdf")]
    #[error("the file is not a PDF")]
    NotPdf,
    #[serde(rename = "too-large")]
    #[error("the PDF is larger than the Wiki accepts")]
    TooLarge,
    #[serde(rename = "encrypted-pdf")]
    #[error("the PDF is encrypted")]
    Encrypted,
    #[serde(rename = "malformed-pdf")]
    #[error("the PDF is damaged or cannot be read")]
    Malformed,
    #[serde(rename = "too-many-pages")]
    #[error("the PDF has more pages than the Wiki accepts")]
    TooManyPages,
    #[serde(rename = "page-text-limit")]
    #[error("page {page} has more text than the Wiki extracts from one page")]
    PageTextLimit { page: u32 },
    #[serde(rename = "document-text-limit")]
    #[error("the PDF has more text than the Wiki extracts from one document")]
    DocumentTextLimit,
    #[serde(rename = "text-item-limit")]
    #[error("the PDF has more text items than the Wiki extracts from one document")]
    TextItemLimit,
    #[serde(rename = "extraction-timeout")]
    #[error("the extraction did not finish in time and was stopped")]
    Timeout,
    #[serde(rename = "extraction-failed")]
    #[error("the extraction worker failed")]
    WorkerFailed,
    #[serde(rename = "extraction-unavailable")]
    #[error("the extraction could not be run")]
    Unavailable,
}

impl ExtractError {
    /// The stable code (also the `code` field on the worker channel).
    pub fn code(&self) -> &'static str {
        match self {
            ExtractError::NotPdf => "not-pdf",
            ExtractError::TooLarge => "too-large",
            ExtractError::Encrypted => "encrypted-pdf",
            ExtractError::Malformed => "malformed-pdf",
            ExtractError::TooManyPages => "too-many-pages",
            ExtractError::PageTextLimit { .. } => "page-text-limit",
            ExtractError::DocumentTextLimit => "document-text-limit",
            ExtractError::TextItemLimit => "text-item-limit",
            ExtractError::Timeout => "extraction-timeout",
            ExtractError::WorkerFailed => "extraction-failed",
            ExtractError::Unavailable => "extraction-unavailable",
        }
    }
}

/// Extracts page count, page texts and outline from `bytes` within `limits`. A panic inside
/// the parser is contained and reported as [`ExtractError::Malformed`].
pub fn extract_pdf(bytes: &[u8], limits: &ExtractLimits) -> Result<ExtractedPdf, ExtractError> {
    if bytes.len() as u64 > limits.max_pdf_bytes {
        return Err(ExtractError::TooLarge);
    }
    domain::wiki::upload::check_pdf_signature(bytes).map_err(|_| ExtractError::NotPdf)?;
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| extract_loaded(bytes, limits)))
        .unwrap_or(Err(ExtractError::Malformed))
}

fn extract_loaded(bytes: &[u8], limits: &ExtractLimits) -> Result<ExtractedPdf, ExtractError> {
    let options = LoadOptions { max_decompressed_size: Some(limits.max_stream_bytes), ..LoadOptions::default() };
    let doc = Document::load_mem_with_options(bytes, options).map_err(|e| match e {
        lopdf::Error::Decryption(_)
        | lopdf::Error::InvalidPassword
        | lopdf::Error::UnsupportedSecurityHandler(_)
        | lopdf::Error::AlreadyEncrypted => ExtractError::Encrypted,
        _ => ExtractError::Malformed,
    })?;
    // Refused even when an empty user password opens it: the Wiki stores no encrypted PDFs.
    if doc.trailer.has(b"Encrypt") || doc.was_encrypted() {
        return Err(ExtractError::Encrypted);
    }
    let page_ids = page_ids(&doc, limits.max_pages)?;
    let mut budget = TextBudget::new(limits);
    let mut pages = Vec::with_capacity(page_ids.len());
    for (index, page_id) in page_ids.iter().enumerate() {
        pages.push(page_text(&doc, *page_id, index as u32 + 1, &mut budget)?);
    }
    let page_index: HashMap<ObjectId, u32> = page_ids.iter().enumerate().map(|(i, id)| (*id, i as u32)).collect();
    let outline = read_outline(&doc, &page_index, limits);
    Ok(ExtractedPdf { page_count: page_ids.len() as u32, pages, outline, text_items: budget.items })
}

/// Most page-tree nodes (pages and intermediate nodes) visited before a file is malformed.
const MAX_PAGE_TREE_NODES: usize = 100_000;

/// The pages in document order: an iterative walk of the page tree from the catalog's
/// `/Pages` with a visited set, so a node listed twice or a tree that contains itself adds
/// nothing. More than `max_pages` pages is [`ExtractError::TooManyPages`]; none, a missing
/// page or a missing content stream (a damaged or truncated file) is [`ExtractError::Malformed`].
fn page_ids(doc: &Document, max_pages: u32) -> Result<Vec<ObjectId>, ExtractError> {
    let root = doc
        .catalog()
        .and_then(|c| c.get(b"Pages"))
        .and_then(Object::as_reference)
        .map_err(|_| ExtractError::Malformed)?;
    let mut pages = Vec::new();
    let mut visited = std::collections::HashSet::new();
    let mut stack = vec![root];
    while let Some(id) = stack.pop() {
        if !visited.insert(id) {
            continue;
        }
        if visited.len() > MAX_PAGE_TREE_NODES {
            return Err(ExtractError::Malformed);
        }
        let node = doc.get_dictionary(id).map_err(|_| ExtractError::Malformed)?;
        match node.get(b"Kids") {
            Ok(kids) => {
                let kids =
                    doc.dereference(kids).ok().and_then(|(_, k)| k.as_array().ok()).ok_or(ExtractError::Malformed)?;
                stack.extend(kids.iter().rev().filter_map(|k| k.as_reference().ok()));
            }
            Err(_) => {
                if pages.len() == max_pages as usize {
                    return Err(ExtractError::TooManyPages);
                }
                let contents_present =
                    doc.get_page_contents(id).iter().all(|c| doc.get_object(*c).is_ok_and(|o| o.as_stream().is_ok()));
                if !contents_present {
                    return Err(ExtractError::Malformed);
                }
                pages.push(id);
            }
        }
    }
    if pages.is_empty() {
        return Err(ExtractError::Malformed);
    }
    Ok(pages)
}

/// The running counts checked after every appended piece of text.
struct TextBudget<'a> {
    limits: &'a ExtractLimits,
    document_utf16: usize,
    items: usize,
}

impl<'a> TextBudget<'a> {
    fn new(limits: &'a ExtractLimits) -> Self {
        TextBudget { limits, document_utf16: 0, items: 0 }
    }
}

/// One page's text being collected, with its page-level count.
struct PageText<'b, 'a> {
    budget: &'b mut TextBudget<'a>,
    page: u32,
    text: String,
    utf16: usize,
    pending_separator: Option<char>,
}

impl PageText<'_, '_> {
    /// Appends one shown string (one text item), after the pending separator if there is
    /// text before it that does not end in whitespace.
    fn push_item(&mut self, item: &str) -> Result<(), ExtractError> {
        self.budget.items += 1;
        if self.budget.items > self.budget.limits.max_text_items {
            return Err(ExtractError::TextItemLimit);
        }
        if item.is_empty() {
            return Ok(());
        }
        if let Some(separator) = self.pending_separator.take() {
            if self.text.chars().next_back().is_some_and(|last| !last.is_whitespace()) {
                self.push_char(separator)?;
            }
        }
        for c in item.chars() {
            let c = if c.is_control() { ' ' } else { c };
            self.push_char(c)?;
        }
        Ok(())
    }

    /// Notes a separator to put before the next item (a line break wins over a space), so a
    /// separator is only counted when text follows it.
    fn separate(&mut self, separator: char) {
        if self.pending_separator != Some('\n') {
            self.pending_separator = Some(separator);
        }
    }

    fn push_char(&mut self, c: char) -> Result<(), ExtractError> {
        let units = c.len_utf16();
        self.utf16 += units;
        if self.utf16 > self.budget.limits.max_page_utf16 {
            return Err(ExtractError::PageTextLimit { page: self.page });
        }
        self.budget.document_utf16 += units;
        if self.budget.document_utf16 > self.budget.limits.max_document_utf16 {
            return Err(ExtractError::DocumentTextLimit);
        }
        self.text.push(c);
        Ok(())
    }
}

/// The text of page `page` (1-based): the strings its content stream shows, in stream order,
/// with a space or a line break where the text position moves. Unreadable fonts fall back to
/// byte-per-character decoding and an unparsable content stream yields no text for that page
/// (the page still counts).
fn page_text(doc: &Document, page_id: ObjectId, page: u32, budget: &mut TextBudget) -> Result<String, ExtractError> {
    let max_stream = budget.limits.max_stream_bytes;
    let content = match doc.get_page_content_with_limit(page_id, max_stream) {
        Ok(bytes) => bytes,
        Err(lopdf::Error::Decompress(_)) => return Err(ExtractError::PageTextLimit { page }),
        Err(_) => Vec::new(),
    };
    let operations = match Content::decode(&content) {
        Ok(content) => content.operations,
        Err(_) => {
            tracing::debug!(page, "a page's content stream could not be parsed; it yields no text");
            Vec::new()
        }
    };
    drop(content);
    let encodings: BTreeMap<Vec<u8>, Encoding> = doc
        .get_page_fonts(page_id)
        .unwrap_or_default()
        .into_iter()
        .filter_map(|(name, font)| font.get_font_encoding_with_limit(doc, max_stream).ok().map(|e| (name, e)))
        .collect();
    let mut out = PageText { budget, page, text: String::new(), utf16: 0, pending_separator: None };
    let mut encoding: Option<&Encoding> = None;
    for operation in &operations {
        match operation.operator.as_str() {
            "Tf" => {
                encoding = operation.operands.first().and_then(|o| o.as_name().ok()).and_then(|n| encodings.get(n));
            }
            "Tj" => show(&mut out, encoding, operation.operands.first())?,
            "'" => {
                out.separate('\n');
                show(&mut out, encoding, operation.operands.first())?;
            }
            "\"" => {
                out.separate('\n');
                show(&mut out, encoding, operation.operands.get(2))?;
            }
            "TJ" => {
                let Some(Object::Array(parts)) = operation.operands.first() else { continue };
                for part in parts {
                    match part {
                        Object::String(..) => show(&mut out, encoding, Some(part))?,
                        // A large negative adjustment is how PDFs space words.
                        Object::Integer(_) | Object::Real(_) if part.as_float().unwrap_or(0.0) < -200.0 => {
                            out.separate(' ')
                        }
                        _ => {}
                    }
                }
            }
            "T*" | "ET" => out.separate('\n'),
            "Td" | "TD" => {
                let moves_down = operation.operands.get(1).and_then(|o| o.as_float().ok()).is_some_and(|y| y != 0.0);
                out.separate(if moves_down { '\n' } else { ' ' })
            }
            "Tm" => out.separate(' '),
            _ => {}
        }
    }
    Ok(out.text)
}

/// Decodes one shown string with the current font's encoding (bytes as Latin-1 when the font
/// or its encoding is unknown) and appends it as one text item.
fn show(out: &mut PageText, encoding: Option<&Encoding>, operand: Option<&Object>) -> Result<(), ExtractError> {
    let Some(Object::String(bytes, _)) = operand else { return Ok(()) };
    let decoded = encoding.and_then(|e| Document::decode_text(e, bytes).ok());
    match decoded {
        Some(text) => out.push_item(&text),
        None => out.push_item(&bytes.iter().map(|&b| b as char).collect::<String>()),
    }
}

#[cfg(test)]
#[path = "extract_tests.rs"]
mod tests;
