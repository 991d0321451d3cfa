//! Small text rules shared by the domain: collapsing whitespace runs to single spaces, cutting
//! text to a number of characters on a character boundary, and both at once for the bounded
//! one-line messages (feed errors, Radar errors and cell text) that reach operators.

/// Collapses whitespace runs (newlines included) to one space and trims.
pub fn collapse_whitespace(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Cuts `text` to at most `max` characters on a character boundary.
pub fn truncate_chars(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((at, _)) => text[..at].to_string(),
        None => text.to_string(),
    }
}

/// `text` on one line (whitespace collapsed) and at most `max` characters.
pub fn one_line(text: &str, max: usize) -> String {
    truncate_chars(&collapse_whitespace(text), max)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_collapsed_and_cut_on_character_boundaries() {
        assert_eq!(collapse_whitespace("  a\n\tb  c "), "a b c");
        assert_eq!(truncate_chars("héllo", 2), "hé");
        assert_eq!(truncate_chars("ab", 5), "ab");
        assert_eq!(one_line("x\r\n y  z", 3), "x y");
    }
}
