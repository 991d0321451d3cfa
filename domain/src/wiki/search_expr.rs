//! What a checked wiki search query becomes at the index and in a result. [`SearchTerms`]
//! normalizes the query exactly as passages are normalized ([`normalize_for_search`]), splits it
//! into tokens and drops the function words; [`SearchTerms::fts_match_expression`] turns the terms
//! into an SQLite FTS5 `MATCH` expression in which every token is a double-quoted string (inner
//! `"` doubled), only the last token is a prefix (`"tok"*`) and the tokens are joined by `AND`,
//! so nothing the person typed (quotes, `*`, `^`, `:`, `NEAR`, `AND`/`OR`/`NOT`, parentheses,
//! `-`) can act as an operator; [`match_kind`] says how a hit's normalized passage matched;
//! [`excerpt`] cuts at most [`MAX_EXCERPT_CHARS`] characters around the first match on word
//! boundaries and returns highlight ranges (never markup); [`result_limit`] gives the most results
//! for a scope. It refuses to run queries, rank, filter by category or type, or render HTML: the
//! server's search engine does that with what it gets here.

use std::ops::Range;

use super::passages::{normalize_for_search, NormalizedText};
use super::query::{is_function_word, tokens, QueryError, SearchQuery};

pub use super::limits::{MAX_EXCERPT_CHARS, SEARCH_DOCUMENT_RESULTS, SEARCH_GLOBAL_RESULTS};

/// The ellipsis that marks an excerpt cut before the passage's start or end.
pub const ELLIPSIS: char = '\u{2026}';

/// Where a search looks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SearchScope {
    /// Every active document (optionally filtered by category and type).
    AllDocuments,
    /// One document.
    OneDocument,
}

/// A word found in more than this share of all passages is common (see
/// [`SearchTerms::without_common`]); BM25 gives such a word almost no weight.
pub const COMMON_WORD_SHARE: f64 = 0.2;

/// Whether a word found in `passages_with_word` of `total_passages` passages is common.
pub fn is_common_word(passages_with_word: u64, total_passages: u64) -> bool {
    total_passages > 0 && passages_with_word as f64 > COMMON_WORD_SHARE * total_passages as f64
}

/// The fewest passages that make a word common among `total_passages` (`None` when no count
/// can, i.e. an empty index): counting a word's passages may stop there, because
/// [`is_common_word`] gives the same answer for every count from it up.
pub fn common_word_count_limit(total_passages: u64) -> Option<u64> {
    (total_passages > 0).then(|| (COMMON_WORD_SHARE * total_passages as f64).floor() as u64 + 1)
}

/// The most results a search in `scope` returns: 20 across the library, 50 within a document.
pub fn result_limit(scope: SearchScope) -> usize {
    match scope {
        SearchScope::AllDocuments => SEARCH_GLOBAL_RESULTS,
        SearchScope::OneDocument => SEARCH_DOCUMENT_RESULTS,
    }
}

/// A requested result count bounded to `1..=result_limit(scope)`; `None` asks for the limit.
pub fn clamp_result_limit(scope: SearchScope, requested: Option<usize>) -> usize {
    let limit = result_limit(scope);
    requested.map_or(limit, |n| n.clamp(1, limit))
}

/// The normalized terms of a query.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SearchTerms {
    phrase: Vec<String>,
    tokens: Vec<String>,
}

impl SearchTerms {
    /// The terms of a checked query. Normalization can turn a query accepted by `check_query`
    /// into function words only (fullwidth "ＴＨＥ" is "the"): that is refused the same way.
    pub fn from_query(query: &SearchQuery) -> Result<Self, QueryError> {
        let normalized = normalize_for_search(&query.text).text;
        let phrase: Vec<String> = tokens(&normalized).into_iter().map(str::to_string).collect();
        if phrase.is_empty() {
            return Err(QueryError::NoTerms);
        }
        let content: Vec<String> = phrase.iter().filter(|t| !is_function_word(t)).cloned().collect();
        if content.is_empty() {
            return Err(QueryError::OnlyFunctionWords);
        }
        Ok(SearchTerms { phrase, tokens: content })
    }

    /// Every normalized token in order, function words included (the exact phrase).
    pub fn phrase(&self) -> &[String] {
        &self.phrase
    }

    /// The normalized tokens searched for, function words dropped; the last is a prefix.
    pub fn tokens(&self) -> &[String] {
        &self.tokens
    }

    /// The terms without the whole words (never the last, typed-so-far prefix) that `common`
    /// says carry no ranking information, as long as one other term stays: like function words,
    /// a word found in most passages narrows nothing and makes the index read its whole list.
    pub fn without_common(&self, common: impl Fn(&str) -> bool) -> SearchTerms {
        let Some((last, rest)) = self.tokens.split_last() else { return self.clone() };
        let mut kept: Vec<String> = rest.iter().filter(|t| !common(t)).cloned().collect();
        kept.push(last.clone());
        SearchTerms { phrase: self.phrase.clone(), tokens: kept }
    }

    /// The FTS5 `MATCH` expression: `"a" AND "b" AND "c"*`.
    pub fn fts_match_expression(&self) -> String {
        let mut expression = String::new();
        for (i, token) in self.tokens.iter().enumerate() {
            if i > 0 {
                expression.push_str(" AND ");
            }
            expression.push_str(&quote_fts_string(token));
        }
        if !self.tokens.is_empty() {
            expression.push('*');
        }
        expression
    }
}

/// The FTS5 `MATCH` expression of a checked query; see [`SearchTerms`].
pub fn fts_match_expression(query: &SearchQuery) -> Result<String, QueryError> {
    SearchTerms::from_query(query).map(|terms| terms.fts_match_expression())
}

/// `text` as an FTS5 string: in double quotes, each inner `"` doubled.
pub fn quote_fts_string(text: &str) -> String {
    format!("\"{}\"", text.replace('"', "\"\""))
}

/// How a hit matched the query, best first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum MatchKind {
    /// The whole phrase (function words included) appears as typed, as whole words.
    Exact,
    /// Every token appears as a whole word.
    Tokens,
    /// Every token but the last appears as a whole word, and a word starts with the last.
    Prefix,
    /// The index matched it by rules of its own (its tokenizer splits or folds differently).
    Fuzzy,
}

impl MatchKind {
    /// The wire name: `exact`, `tokens`, `prefix` or `fuzzy`.
    pub fn as_str(self) -> &'static str {
        match self {
            MatchKind::Exact => "exact",
            MatchKind::Tokens => "tokens",
            MatchKind::Prefix => "prefix",
            MatchKind::Fuzzy => "fuzzy",
        }
    }
}

/// Whether `c` belongs to a word when deciding word boundaries.
fn is_word_char(c: char) -> bool {
    c.is_alphanumeric()
}

/// The byte ranges where `needle` occurs in `haystack` at a word start; with `whole`, only where
/// it also ends at a word end.
fn occurrences(haystack: &str, needle: &str, whole: bool) -> Vec<Range<usize>> {
    let mut found = Vec::new();
    if needle.is_empty() {
        return found;
    }
    let mut previous: Option<char> = None;
    for (at, c) in haystack.char_indices() {
        if !previous.is_some_and(is_word_char) && haystack[at..].starts_with(needle) {
            let end = at + needle.len();
            if !whole || !haystack[end..].chars().next().is_some_and(is_word_char) {
                found.push(at..end);
            }
        }
        previous = Some(c);
    }
    found
}

/// How the normalized passage text `normalized` matches `terms`; see [`MatchKind`].
pub fn match_kind(normalized: &str, terms: &SearchTerms) -> MatchKind {
    if !occurrences(normalized, &terms.phrase.join(" "), true).is_empty() {
        return MatchKind::Exact;
    }
    let Some((last, rest)) = terms.tokens.split_last() else {
        return MatchKind::Fuzzy;
    };
    if !rest.iter().all(|t| !occurrences(normalized, t, true).is_empty()) {
        return MatchKind::Fuzzy;
    }
    if !occurrences(normalized, last, true).is_empty() {
        MatchKind::Tokens
    } else if !occurrences(normalized, last, false).is_empty() {
        MatchKind::Prefix
    } else {
        MatchKind::Fuzzy
    }
}

/// A short piece of a passage with the matched words marked.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Excerpt {
    /// At most [`MAX_EXCERPT_CHARS`] characters, whitespace collapsed, with a leading and/or
    /// trailing [`ELLIPSIS`] where the passage was cut.
    pub text: String,
    /// Character ranges of `text` to highlight: sorted, non-overlapping, non-empty.
    pub highlights: Vec<Range<usize>>,
}

/// The highlighted spans of `normalized` (span index ranges): every whole-word occurrence of a
/// token, and every word starting with the last token (the whole word is marked).
fn highlighted_spans(normalized: &NormalizedText, terms: &SearchTerms) -> Vec<Range<usize>> {
    let text = normalized.text.as_str();
    let mut ranges: Vec<Range<usize>> = Vec::new();
    for (i, token) in terms.tokens.iter().enumerate() {
        let is_last = i + 1 == terms.tokens.len();
        for found in occurrences(text, token, !is_last) {
            let word_end = text[found.end..].find(|c: char| !is_word_char(c)).map_or(text.len(), |n| found.end + n);
            let end = if is_last { word_end } else { found.end };
            let spans = normalized.spans();
            let first = spans.partition_point(|s| s.normalized.end <= found.start);
            let last = spans.partition_point(|s| s.normalized.start < end);
            if first < last {
                ranges.push(first..last);
            }
        }
    }
    merge(ranges)
}

/// Sorts ranges and merges the overlapping or touching ones.
fn merge(mut ranges: Vec<Range<usize>>) -> Vec<Range<usize>> {
    ranges.sort_by_key(|r| (r.start, r.end));
    let mut merged: Vec<Range<usize>> = Vec::with_capacity(ranges.len());
    for range in ranges {
        match merged.last_mut() {
            Some(previous) if range.start <= previous.end => previous.end = previous.end.max(range.end),
            _ => merged.push(range),
        }
    }
    merged
}

/// An excerpt of `text` (a passage's raw or normalized text) for `terms`: whitespace collapsed,
/// at most [`MAX_EXCERPT_CHARS`] characters, starting up to a third of that before the first
/// match at a word start and ending at a word end, with the matches as highlight ranges. Without
/// a match it is the passage's start. Shown characters are the source's, so a raw passage keeps
/// its case; a highlight covers whole grapheme clusters.
pub fn excerpt(text: &str, terms: &SearchTerms) -> Excerpt {
    let normalized = normalize_for_search(text);
    let spans = normalized.spans();
    let shown: Vec<&str> = spans.iter().map(|s| if s.is_space { " " } else { &text[s.source.clone()] }).collect();
    let mut before = Vec::with_capacity(shown.len() + 1);
    before.push(0);
    for piece in &shown {
        before.push(before[before.len() - 1] + piece.chars().count());
    }
    let n = spans.len();
    let width = |from: usize, to: usize| before[to] - before[from];
    let is_space = |i: usize| spans[i].is_space;
    let highlights = highlighted_spans(&normalized, terms);

    let (mut start, mut end) = (0, n);
    if width(0, n) > MAX_EXCERPT_CHARS {
        let room = MAX_EXCERPT_CHARS - 2;
        let anchor = highlights.first().map_or(0, |h| h.start);
        start = (0..=anchor).find(|&s| width(s, anchor) <= room / 3 && (s == 0 || is_space(s - 1))).unwrap_or(anchor);
        end = start;
        while end < n && width(start, end + 1) <= room {
            end += 1;
        }
        if end == n {
            let mut earlier = start;
            while earlier > 0 && width(earlier - 1, n) <= room {
                earlier -= 1;
            }
            start = (earlier..=start).find(|&s| s == 0 || is_space(s - 1)).unwrap_or(start);
        } else if let Some(word_end) = (start + 1..=end).rev().find(|&e| is_space(e) && !is_space(e - 1)) {
            end = word_end;
        }
        while start < end && is_space(start) {
            start += 1;
        }
        while end > start && is_space(end - 1) {
            end -= 1;
        }
        if end == start && start < n {
            end = start + 1;
        }
    }

    let lead = usize::from(start > 0);
    let mut out = String::new();
    if start > 0 {
        out.push(ELLIPSIS);
    }
    let content = MAX_EXCERPT_CHARS - lead - usize::from(end < n);
    let body: String = shown[start..end].concat();
    out.push_str(super::passages::cut_chars(&body, content));
    if end < n {
        out.push(ELLIPSIS);
    }
    let body_chars = body.chars().count().min(content);
    let ranges = highlights
        .iter()
        .filter_map(|h| {
            let (from, to) = (h.start.max(start), h.end.min(end));
            if from >= to {
                return None;
            }
            let (a, b) = (width(start, from).min(body_chars), width(start, to).min(body_chars));
            (a < b).then(|| lead + a..lead + b)
        })
        .collect();
    Excerpt { text: out, highlights: merge(ranges) }
}

#[cfg(test)]
#[path = "search_expr_tests.rs"]
mod tests;
