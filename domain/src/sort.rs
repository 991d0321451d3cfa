//! Parser for PocketBase's `sort` query parameter (`-created,name`): a comma-separated list
//! of plain field names, each optionally prefixed with `-` (descending) or `+` (ascending).
//! This module owns the syntax and the field-count limit only; whether a field exists on a
//! collection is the caller's check. Macros such as `@random` and anything that is not a
//! plain identifier are rejected, so sort keys are always safe to map onto known columns.

use thiserror::Error;

/// Most sort keys accepted in one `sort` parameter.
pub const MAX_SORT_FIELDS: usize = 8;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SortKey {
    pub field: String,
    pub descending: bool,
}

#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum SortError {
    /// Carries the offending segment (trimmed, including any `+`/`-` prefix).
    #[error("invalid sort field {0:?}")]
    InvalidField(String),
    #[error("too many sort fields")]
    TooMany,
}

/// Parses `input`; an empty (or all-whitespace) string means "no sort" and yields an empty vec.
pub fn parse_sort(input: &str) -> Result<Vec<SortKey>, SortError> {
    if input.trim().is_empty() {
        return Ok(Vec::new());
    }
    let mut keys = Vec::new();
    for raw in input.split(',') {
        if keys.len() == MAX_SORT_FIELDS {
            return Err(SortError::TooMany);
        }
        let segment = raw.trim();
        let (descending, field) = match segment.as_bytes().first() {
            Some(b'-') => (true, &segment[1..]),
            Some(b'+') => (false, &segment[1..]),
            _ => (false, segment),
        };
        if !is_identifier(field) {
            return Err(SortError::InvalidField(segment.to_string()));
        }
        keys.push(SortKey { field: field.to_string(), descending });
    }
    Ok(keys)
}

/// `[A-Za-z_][A-Za-z0-9_]*`
fn is_identifier(s: &str) -> bool {
    let mut bytes = s.bytes();
    matches!(bytes.next(), Some(b) if b.is_ascii_alphabetic() || b == b'_')
        && bytes.all(|b| b.is_ascii_alphanumeric() || b == b'_')
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(field: &str, descending: bool) -> SortKey {
        SortKey { field: field.to_string(), descending }
    }

    #[test]
    fn parses_directions() {
        assert_eq!(parse_sort("-created,name").unwrap(), vec![key("created", true), key("name", false)]);
        assert_eq!(parse_sort("+name").unwrap(), vec![key("name", false)]);
        assert_eq!(parse_sort("_a1,-B_2,+c").unwrap(), vec![key("_a1", false), key("B_2", true), key("c", false)]);
    }

    #[test]
    fn trims_whitespace_around_segments() {
        assert_eq!(parse_sort("  -created ,\tname\n").unwrap(), vec![key("created", true), key("name", false)]);
    }

    #[test]
    fn empty_input_is_no_sort() {
        assert_eq!(parse_sort("").unwrap(), vec![]);
        assert_eq!(parse_sort("   ").unwrap(), vec![]);
    }

    #[test]
    fn empty_segments_are_invalid() {
        assert_eq!(parse_sort("a,,b"), Err(SortError::InvalidField(String::new())));
        assert_eq!(parse_sort("a,"), Err(SortError::InvalidField(String::new())));
        assert_eq!(parse_sort(",a"), Err(SortError::InvalidField(String::new())));
        assert_eq!(parse_sort("a, ,b"), Err(SortError::InvalidField(String::new())));
    }

    #[test]
    fn rejects_non_identifiers() {
        for bad in
            ["@random", "-@random", "name;drop", "1abc", "a.b", "a b", "-", "+", "--a", "+-a", "- a", "naïve", "a)"]
        {
            assert_eq!(parse_sort(bad), Err(SortError::InvalidField(bad.trim().to_string())), "{bad}");
        }
        assert_eq!(parse_sort("name,@random"), Err(SortError::InvalidField("@random".into())));
    }

    #[test]
    fn field_count_limit() {
        let fields = |n: usize| (0..n).map(|i| format!("f{i}")).collect::<Vec<_>>().join(",");
        assert_eq!(parse_sort(&fields(MAX_SORT_FIELDS)).unwrap().len(), MAX_SORT_FIELDS);
        assert_eq!(parse_sort(&fields(MAX_SORT_FIELDS + 1)), Err(SortError::TooMany));
        // A huge list is rejected without parsing past the limit.
        assert_eq!(parse_sort(&",".repeat(100_000)), Err(SortError::InvalidField(String::new())));
        assert_eq!(parse_sort(&"a,".repeat(100_000)), Err(SortError::TooMany));
    }
}
