//! How a PDF page's text becomes search passages. [`join_page_items`] / [`PageItems`] join the
//! extracted text items of one page (each item's text, then one space when the item ends a line);
//! [`normalize_for_search`] folds text for matching (grapheme clusters, then NFKC, then
//! lowercase, then whitespace and control runs collapsed to one space, trimmed) and keeps, for
//! every normalized piece, the source bytes it came from; [`build_passages`] cuts a page into
//! passages of about [`PASSAGE_TARGET_CHARS`] characters at word boundaries (never more than
//! [`PASSAGE_MAX_CHARS`] raw or normalized characters, never inside a grapheme cluster unless the
//! cluster alone is absurdly long), each next passage starting at the word start at or before
//! [`PASSAGE_OVERLAP_CHARS`] characters before the previous end, and labels each passage with the
//! last outline node that starts on or before its page; [`build_document_passages`] and
//! [`PassageBudget`] enforce the index budgets ([`MAX_SEARCH_PASSAGES`] passages,
//! [`MAX_SEARCH_TEXT_BYTES`] of passage text). It refuses to extract PDFs, touch the index, rank
//! or search: the server's wiki actor extracts the items and writes the passages it gets here.

use std::ops::Range;

use thiserror::Error;
use unicode_normalization::UnicodeNormalization;
use unicode_segmentation::UnicodeSegmentation;

pub use super::limits::{
    MAX_HEADING_CHARS, MAX_HEADING_ID_CHARS, MAX_SEARCH_PASSAGES, MAX_SEARCH_TEXT_BYTES, PASSAGE_MAX_CHARS,
    PASSAGE_OVERLAP_CHARS, PASSAGE_TARGET_CHARS,
};

/// Grapheme clusters with more code points than this (only seen in crafted text: a letter under
/// thousands of combining marks) are normalized one code point at a time, so that no single
/// piece can outgrow a passage or an excerpt.
pub const MAX_CLUSTER_CODE_POINTS: usize = 32;

/// A refused document: its passages would break an index budget. Messages never echo text.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum PassageError {
    #[error("The document has too many search passages (the limit is {limit}).")]
    TooManyPassages { limit: usize },
    #[error("The document has too much searchable text (the limit is {limit_bytes} bytes).")]
    TextTooLarge { limit_bytes: u64 },
}

impl PassageError {
    /// A stable, machine-readable code (`snake_case`).
    pub fn code(&self) -> &'static str {
        match self {
            PassageError::TooManyPassages { .. } => "too_many_passages",
            PassageError::TextTooLarge { .. } => "search_text_too_large",
        }
    }
}

/// One piece of normalized text and the source it came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NormalizedSpan {
    /// Byte range in [`NormalizedText::text`].
    pub normalized: Range<usize>,
    /// Byte range in the source text.
    pub source: Range<usize>,
    /// Whether this is a run of whitespace (or control characters) collapsed to one space.
    pub is_space: bool,
}

/// Text folded for matching, with the way back to the source.
///
/// The spans tile `text` in order; consecutive spans are also adjacent in the source, from the
/// first to the last non-space character (leading and trailing whitespace has no span). A span
/// that is not a space is one grapheme cluster (or one code point of an over-long cluster).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct NormalizedText {
    /// The normalized text: NFKC, lowercase, single spaces, trimmed.
    pub text: String,
    spans: Vec<NormalizedSpan>,
}

impl NormalizedText {
    /// The spans, in text order.
    pub fn spans(&self) -> &[NormalizedSpan] {
        &self.spans
    }

    /// The source byte range covering every span that overlaps `normalized` (a byte range of
    /// `text`), or `None` when no span does (an empty or out-of-range request).
    pub fn source_range(&self, normalized: Range<usize>) -> Option<Range<usize>> {
        let first = self.spans.partition_point(|s| s.normalized.end <= normalized.start);
        let end = self.spans.partition_point(|s| s.normalized.start < normalized.end);
        if first >= end {
            return None;
        }
        Some(self.spans[first].source.start..self.spans[end - 1].source.end)
    }
}

/// Whether a normalized character separates words (it is dropped or collapsed to one space).
fn is_separator(c: char) -> bool {
    c.is_whitespace() || c.is_control()
}

/// Normalizes `source` for search: each grapheme cluster is NFKC-normalized and lowercased
/// (Unicode default lowercase, as en-US: "STRASSE" becomes "strasse" and "Straße" "straße", so
/// the two do not match each other), then runs of whitespace and control characters become one
/// space and the ends are trimmed. Whitespace produced inside one cluster is collapsed the same
/// way but stays part of that cluster's span.
pub fn normalize_for_search(source: &str) -> NormalizedText {
    let mut out = NormalizedText { text: String::with_capacity(source.len()), spans: Vec::new() };
    let mut pending_space: Option<Range<usize>> = None;
    for (start, cluster) in source.grapheme_indices(true) {
        if cluster.len() > MAX_CLUSTER_CODE_POINTS && cluster.chars().count() > MAX_CLUSTER_CODE_POINTS {
            for (offset, c) in cluster.char_indices() {
                let at = start + offset;
                push_unit(&mut out, &mut pending_space, at..at + c.len_utf8(), &cluster[offset..offset + c.len_utf8()]);
            }
        } else {
            push_unit(&mut out, &mut pending_space, start..start + cluster.len(), cluster);
        }
    }
    out
}

/// Appends one cluster (or code point) to `out`, flushing a pending space before content.
fn push_unit(out: &mut NormalizedText, pending_space: &mut Option<Range<usize>>, source: Range<usize>, unit: &str) {
    let folded = unit.nfkc().collect::<String>().to_lowercase();
    let mut content = String::with_capacity(folded.len());
    let mut gap = false;
    for c in folded.chars() {
        if is_separator(c) {
            gap = !content.is_empty();
        } else {
            if gap {
                content.push(' ');
                gap = false;
            }
            content.push(c);
        }
    }
    if content.is_empty() {
        match pending_space {
            Some(run) => run.end = source.end,
            None if !out.text.is_empty() => *pending_space = Some(source),
            None => {}
        }
        return;
    }
    if let Some(run) = pending_space.take() {
        let at = out.text.len();
        out.text.push(' ');
        out.spans.push(NormalizedSpan { normalized: at..at + 1, source: run, is_space: true });
    }
    let at = out.text.len();
    out.text.push_str(&content);
    out.spans.push(NormalizedSpan { normalized: at..out.text.len(), source, is_space: false });
}

/// The text of one page, joined from its extracted text items: each item's text followed by one
/// space when the item ends a line (pdf.js `str` + `' '` if `hasEOL`), nothing between others.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PageItems {
    text: String,
    utf16_len: usize,
    items: usize,
}

impl PageItems {
    /// Appends one text item.
    pub fn push(&mut self, text: &str, has_eol: bool) {
        self.text.push_str(text);
        self.utf16_len += text.encode_utf16().count();
        if has_eol {
            self.text.push(' ');
            self.utf16_len += 1;
        }
        self.items += 1;
    }

    /// The joined text so far.
    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// Length of the joined text in UTF-16 code units, the unit of the extraction budgets.
    pub fn utf16_len(&self) -> usize {
        self.utf16_len
    }

    /// How many items were pushed.
    pub fn item_count(&self) -> usize {
        self.items
    }

    /// The joined text.
    pub fn into_text(self) -> String {
        self.text
    }
}

/// Joins a page's text items `(text, has_eol)`; see [`PageItems`].
pub fn join_page_items<'a>(items: impl IntoIterator<Item = (&'a str, bool)>) -> String {
    let mut page = PageItems::default();
    for (text, has_eol) in items {
        page.push(text, has_eol);
    }
    page.into_text()
}

/// One node of a document outline, flattened in document order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OutlineEntry {
    /// The label shown in the table of contents.
    pub title: String,
    /// The page the node points at, from 0.
    pub page_index: u32,
    /// Nesting level, 0 for top-level nodes.
    pub depth: u32,
}

/// The outline node a passage belongs to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PassageHeading {
    /// Stable id: the node's position path ("2.1.3": third child of the first child of the second
    /// top-level node), or `n<index>` (its index in the flat outline) when the path would be
    /// longer than [`MAX_HEADING_ID_CHARS`].
    pub id: String,
    /// The node's label, whitespace collapsed, cut to [`MAX_HEADING_CHARS`] characters.
    pub title: String,
}

/// The heading of page `page_index` (from 0): the last outline node, in outline order, whose
/// page index is at or before it.
pub fn heading_for_page(outline: &[OutlineEntry], page_index: u32) -> Option<PassageHeading> {
    let index = outline.iter().rposition(|entry| entry.page_index <= page_index)?;
    let mut path: Vec<usize> = Vec::new();
    for entry in &outline[..=index] {
        let level = usize::try_from(entry.depth).unwrap_or(usize::MAX).min(path.len());
        path.truncate(level + 1);
        if path.len() == level + 1 {
            path[level] += 1;
        } else {
            path.push(1);
        }
    }
    let mut id = path.iter().map(usize::to_string).collect::<Vec<_>>().join(".");
    if id.chars().count() > MAX_HEADING_ID_CHARS {
        id = format!("n{index}");
    }
    let title = outline[index].title.split(is_separator).filter(|w| !w.is_empty()).collect::<Vec<_>>().join(" ");
    Some(PassageHeading { id, title: cut_at_cluster(&title, MAX_HEADING_CHARS).to_string() })
}

/// The longest prefix of `text` of at most `max_chars` characters that ends on a grapheme
/// cluster boundary (or on a character boundary when the first cluster alone is too long).
fn cut_at_cluster(text: &str, max_chars: usize) -> &str {
    let mut end = 0;
    let mut chars = 0;
    for (start, cluster) in text.grapheme_indices(true) {
        let n = cluster.chars().count();
        if chars + n > max_chars {
            return if end == 0 { cut_chars(text, max_chars) } else { &text[..end] };
        }
        chars += n;
        end = start + cluster.len();
    }
    text
}

/// The first `max_chars` characters of `text`.
pub(crate) fn cut_chars(text: &str, max_chars: usize) -> &str {
    match text.char_indices().nth(max_chars) {
        Some((at, _)) => &text[..at],
        None => text,
    }
}

/// How passages are cut (characters). The default is the legacy 900 / 1,600 / 120.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PassageLimits {
    /// Length a passage is cut near, at a word boundary (raw characters).
    pub target_chars: usize,
    /// Longest passage, raw and normalized (characters); clamped to at least 1.
    pub max_chars: usize,
    /// How far back from the previous end the next passage starts, at least (raw characters).
    pub overlap_chars: usize,
}

impl Default for PassageLimits {
    fn default() -> Self {
        PassageLimits {
            target_chars: PASSAGE_TARGET_CHARS,
            max_chars: PASSAGE_MAX_CHARS,
            overlap_chars: PASSAGE_OVERLAP_CHARS,
        }
    }
}

/// One search passage of a page, in the shape of a `knowledge_search_chunks` row.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Passage {
    /// The page, from 1.
    pub page_number: u32,
    /// The passage on its page, from 1.
    pub passage_number: u32,
    /// [`PassageHeading::id`] of the page's heading, if the outline has one.
    pub heading_id: Option<String>,
    /// [`PassageHeading::title`] of the page's heading, if the outline has one.
    pub heading: Option<String>,
    /// The page text the passage covers, as extracted (at most `max_chars` characters).
    pub text: String,
    /// The normalized form of `text` (at most `max_chars` characters).
    pub normalized_text: String,
    /// Where `normalized_text` starts in the page's normalized text (characters).
    pub normalized_start: usize,
    /// Where `normalized_text` ends in the page's normalized text (characters, exclusive).
    pub normalized_end: usize,
}

/// The spans of a normalized page with prefix sums of their raw and normalized lengths.
struct Layout<'a> {
    normalized: &'a NormalizedText,
    raw_before: Vec<usize>,
    norm_before: Vec<usize>,
    limits: PassageLimits,
}

impl Layout<'_> {
    fn len(&self) -> usize {
        self.normalized.spans.len()
    }

    fn is_space(&self, i: usize) -> bool {
        self.normalized.spans.get(i).is_some_and(|s| s.is_space)
    }

    fn raw_chars(&self, from: usize, to: usize) -> usize {
        self.raw_before[to] - self.raw_before[from]
    }

    fn fits(&self, from: usize, to: usize) -> bool {
        self.raw_chars(from, to) <= self.limits.max_chars
            && self.norm_before[to] - self.norm_before[from] <= self.limits.max_chars
    }

    /// A passage may end at `end` when the span before it is not a space.
    fn is_cut(&self, end: usize) -> bool {
        end > 0 && end <= self.len() && !self.is_space(end - 1)
    }

    fn is_word_end(&self, end: usize) -> bool {
        self.is_cut(end) && (end == self.len() || self.is_space(end))
    }

    fn is_word_start(&self, at: usize) -> bool {
        at < self.len() && !self.is_space(at) && (at == 0 || self.is_space(at - 1))
    }

    /// Where the passage starting at `start` ends: the last word end within the target, else the
    /// first word end after it within the maximum, else a hard cut at the maximum. The end is
    /// always after `previous_end` when the caller made room for that.
    fn passage_end(&self, start: usize, previous_end: usize) -> usize {
        let n = self.len();
        let mut max_end = start + 1;
        while max_end < n && self.fits(start, max_end + 1) {
            max_end += 1;
        }
        if max_end == n && self.raw_chars(start, n) <= self.limits.target_chars {
            return n;
        }
        let lower = previous_end.max(start);
        let word_ends = || (lower + 1..=max_end).filter(|&e| self.is_word_end(e));
        let within_target = word_ends().rev().find(|&e| self.raw_chars(start, e) <= self.limits.target_chars);
        if let Some(end) = within_target.or_else(|| word_ends().next()) {
            return end;
        }
        (lower + 1..=max_end)
            .rev()
            .find(|&e| self.is_cut(e))
            .or_else(|| (start + 1..=max_end).rev().find(|&e| self.is_cut(e)))
            .unwrap_or(start + 1)
    }

    /// Where the passage after `start..end` starts: the last word start at least the overlap
    /// before `end` (else the first word start after `start`), moved forward until the passage
    /// can reach past `end`; else the first span after `end`. Always after `start`.
    fn next_start(&self, start: usize, end: usize) -> usize {
        let n = self.len();
        let resume = (end..n).find(|&i| !self.is_space(i)).unwrap_or(n);
        let reach = (resume + 1).min(n);
        let word_starts = (start + 1..end).filter(|&w| self.is_word_start(w));
        let overlapping = word_starts.clone().rev().find(|&w| self.raw_chars(w, end) >= self.limits.overlap_chars);
        let first = overlapping.or_else(|| word_starts.clone().next());
        match first {
            Some(first) => word_starts.filter(|&w| w >= first).find(|&w| self.fits(w, reach)).unwrap_or(resume),
            None => resume,
        }
    }
}

/// Cuts one page into passages; see the module doc. `page_number` is from 1 (page 0 is read as
/// page 1 for the heading). An empty or whitespace-only page has no passages.
pub fn build_passages(
    page_number: u32,
    page_text: &str,
    outline: &[OutlineEntry],
    limits: &PassageLimits,
) -> Vec<Passage> {
    let normalized = normalize_for_search(page_text);
    if normalized.spans.is_empty() {
        return Vec::new();
    }
    let limits = PassageLimits { max_chars: limits.max_chars.max(1), ..*limits };
    let mut raw_before = Vec::with_capacity(normalized.spans.len() + 1);
    let mut norm_before = Vec::with_capacity(normalized.spans.len() + 1);
    let (mut raw, mut norm) = (0, 0);
    raw_before.push(0);
    norm_before.push(0);
    for span in &normalized.spans {
        raw += page_text[span.source.clone()].chars().count();
        norm += normalized.text[span.normalized.clone()].chars().count();
        raw_before.push(raw);
        norm_before.push(norm);
    }
    let layout = Layout { normalized: &normalized, raw_before, norm_before, limits };
    let heading = heading_for_page(outline, page_number.saturating_sub(1));
    let mut passages = Vec::new();
    let (mut start, mut previous_end) = (0, 0);
    loop {
        let end = layout.passage_end(start, previous_end);
        let spans = &normalized.spans[start..end];
        let (first, last) = (&spans[0], &spans[spans.len() - 1]);
        let text = cut_chars(&page_text[first.source.start..last.source.end], limits.max_chars);
        let normalized_text =
            cut_chars(&normalized.text[first.normalized.start..last.normalized.end], limits.max_chars);
        let normalized_start = layout.norm_before[start];
        passages.push(Passage {
            page_number,
            passage_number: u32::try_from(passages.len() + 1).unwrap_or(u32::MAX),
            heading_id: heading.as_ref().map(|h| h.id.clone()),
            heading: heading.as_ref().map(|h| h.title.clone()),
            text: text.to_string(),
            normalized_text: normalized_text.to_string(),
            normalized_start,
            normalized_end: normalized_start + normalized_text.chars().count(),
        });
        if end >= layout.len() {
            return passages;
        }
        let next = layout.next_start(start, end);
        if next >= layout.len() {
            return passages;
        }
        (start, previous_end) = (next, end);
    }
}

/// The index budgets a set of passages must fit: at most `max_passages` passages and
/// `max_text_bytes` bytes of passage `text` (UTF-8). The default is the legacy 100,000 passages
/// and 128 MiB. Start it from what the index already holds with [`PassageBudget::with_used`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PassageBudget {
    max_passages: usize,
    max_text_bytes: u64,
    passages: usize,
    text_bytes: u64,
}

impl Default for PassageBudget {
    fn default() -> Self {
        PassageBudget::new(MAX_SEARCH_PASSAGES, MAX_SEARCH_TEXT_BYTES)
    }
}

impl PassageBudget {
    /// An empty budget with these bounds.
    pub fn new(max_passages: usize, max_text_bytes: u64) -> Self {
        PassageBudget { max_passages, max_text_bytes, passages: 0, text_bytes: 0 }
    }

    /// The same budget with `passages` passages and `text_bytes` bytes already spent.
    pub fn with_used(self, passages: usize, text_bytes: u64) -> Self {
        PassageBudget { passages, text_bytes, ..self }
    }

    /// Passages admitted so far.
    pub fn passages(&self) -> usize {
        self.passages
    }

    /// Bytes of passage text admitted so far.
    pub fn text_bytes(&self) -> u64 {
        self.text_bytes
    }

    /// Admits `passages` whole, or refuses them and leaves the budget unchanged.
    pub fn admit(&mut self, passages: &[Passage]) -> Result<(), PassageError> {
        let count = self.passages.saturating_add(passages.len());
        if count > self.max_passages {
            return Err(PassageError::TooManyPassages { limit: self.max_passages });
        }
        let added: u64 = passages.iter().map(|p| p.text.len() as u64).fold(0, u64::saturating_add);
        let bytes = self.text_bytes.saturating_add(added);
        if bytes > self.max_text_bytes {
            return Err(PassageError::TextTooLarge { limit_bytes: self.max_text_bytes });
        }
        (self.passages, self.text_bytes) = (count, bytes);
        Ok(())
    }
}

/// Cuts every page of a document (`(page_number from 1, page text)`) into passages, stopping at
/// the first page that would break `budget`.
pub fn build_document_passages<'a>(
    pages: impl IntoIterator<Item = (u32, &'a str)>,
    outline: &[OutlineEntry],
    limits: &PassageLimits,
    budget: &mut PassageBudget,
) -> Result<Vec<Passage>, PassageError> {
    let mut all = Vec::new();
    for (page_number, text) in pages {
        let page = build_passages(page_number, text, outline, limits);
        budget.admit(&page)?;
        all.extend(page);
    }
    Ok(all)
}

#[cfg(test)]
#[path = "passages_tests.rs"]
mod tests;
