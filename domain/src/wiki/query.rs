//! Which wiki search queries are worth running. [`check_query`] trims the text, refuses an empty
//! query and one longer than [`MAX_QUERY_CHARS`] code points, splits it into tokens
//! (`[\p{L}\p{N}][\p{L}\p{N}._:/-]*`, a letter or digit followed by letters, digits and
//! `. _ : / -`), and requires at least one token that is not a function word ("the", "of", …),
//! so a query made only of glue words or punctuation never reaches the index. It refuses to
//! normalize, rank or search: the server's search engine does that with the tokens it gets.

use std::sync::OnceLock;

use regex::Regex;
use thiserror::Error;

pub use super::limits::MAX_QUERY_CHARS;

/// Words ignored when deciding whether a query is eligible (compared case-insensitively).
pub const FUNCTION_WORDS: [&str; 18] =
    ["a", "an", "and", "are", "as", "at", "be", "by", "for", "from", "in", "is", "of", "on", "or", "the", "to", "with"];

/// A refused search query. Messages never echo the query.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum QueryError {
    #[error("Type something to search for.")]
    Empty,
    #[error("Search text must be at most 120 characters long.")]
    TooLong,
    #[error("Search text must contain a word or a number.")]
    NoTerms,
    #[error("Search text must contain a word other than common words like \"the\" or \"of\".")]
    OnlyFunctionWords,
}

impl QueryError {
    /// A stable, machine-readable code (`snake_case`).
    pub fn code(&self) -> &'static str {
        match self {
            QueryError::Empty => "empty_query",
            QueryError::TooLong => "query_too_long",
            QueryError::NoTerms => "no_search_terms",
            QueryError::OnlyFunctionWords => "only_function_words",
        }
    }
}

impl crate::problem::HttpProblem for QueryError {
    fn status(&self) -> u16 {
        400
    }

    fn code(&self) -> &'static str {
        QueryError::code(self)
    }
}

/// An eligible query: the trimmed text and its tokens in order, as typed (case kept).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SearchQuery {
    /// The query with surrounding whitespace removed.
    pub text: String,
    /// Every token, function words included, in the order they appear.
    pub tokens: Vec<String>,
}

/// Whether `token` is one of [`FUNCTION_WORDS`] (case-insensitive).
pub fn is_function_word(token: &str) -> bool {
    !token.is_empty() && FUNCTION_WORDS.contains(&token.to_lowercase().as_str())
}

/// The tokens of `text`: maximal runs that start with a letter or digit and go on with letters,
/// digits and `. _ : / -`.
pub fn tokens(text: &str) -> Vec<&str> {
    static TOKEN: OnceLock<Regex> = OnceLock::new();
    let token = TOKEN.get_or_init(|| Regex::new(r"[\p{L}\p{N}][\p{L}\p{N}._:/-]*").expect("a valid pattern"));
    token.find_iter(text).map(|m| m.as_str()).collect()
}

/// Checks a query typed into the wiki search; see the module doc for the rules.
pub fn check_query(raw: &str) -> Result<SearchQuery, QueryError> {
    let text = raw.trim();
    if text.is_empty() {
        return Err(QueryError::Empty);
    }
    if text.chars().count() > MAX_QUERY_CHARS {
        return Err(QueryError::TooLong);
    }
    let found = tokens(text);
    if found.is_empty() {
        return Err(QueryError::NoTerms);
    }
    if found.iter().all(|t| is_function_word(t)) {
        return Err(QueryError::OnlyFunctionWords);
    }
    Ok(SearchQuery { text: text.to_string(), tokens: found.into_iter().map(str::to_string).collect() })
}

#[cfg(test)]
#[path = "query_tests.rs"]
mod tests;
