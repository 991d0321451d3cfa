//! Search query eligibility: trimming, the 120 code point bound counted in characters (not
//! bytes or UTF-16 units), the token shape, function-word-only and punctuation-only refusals,
//! stable codes, and a property that an accepted query is trimmed, bounded and has a content word.

use super::*;
use crate::problem::HttpProblem;
use proptest::prelude::*;

#[test]
fn a_query_is_trimmed_and_split_into_tokens() {
    let query = check_query("  VPN reset  ").unwrap();
    assert_eq!(query.text, "VPN reset");
    assert_eq!(query.tokens, ["VPN", "reset"]);
    assert_eq!(check_query("how to reset the VPN").unwrap().tokens, ["how", "to", "reset", "the", "VPN"]);
}

#[test]
fn tokens_start_with_a_letter_or_digit_and_keep_inner_punctuation() {
    assert_eq!(tokens("https://intra.example/a_b-c:d x.y"), ["https://intra.example/a_b-c:d", "x.y"]);
    assert_eq!(tokens("-flag .hidden _x /etc"), ["flag", "hidden", "x", "etc"]);
    assert_eq!(tokens("v1.2.3, ERR-42; (ticket)"), ["v1.2.3", "ERR-42", "ticket"]);
    assert_eq!(tokens("café Straße 東京 ١٢٣"), ["café", "Straße", "東京", "١٢٣"]);
    assert_eq!(tokens("a+b c#d"), ["a", "b", "c", "d"]);
    assert!(tokens("!!! ... --- ???").is_empty());
}

#[test]
fn empty_and_blank_queries_are_refused() {
    for raw in ["", " ", "\t\n  ", "\u{3000}"] {
        assert_eq!(check_query(raw), Err(QueryError::Empty), "{raw:?}");
    }
}

#[test]
fn the_length_bound_counts_code_points_after_trimming() {
    assert!(check_query(&"x".repeat(120)).is_ok());
    assert_eq!(check_query(&"x".repeat(121)), Err(QueryError::TooLong));
    // Multi-byte characters: 120 of them is 240+ bytes but still within the bound.
    let multi = "é".repeat(120);
    assert_eq!(multi.len(), 240);
    assert!(check_query(&multi).is_ok());
    assert_eq!(check_query(&"é".repeat(121)), Err(QueryError::TooLong));
    let emoji_and_cjk = format!("東{}", "😀".repeat(119));
    assert_eq!(emoji_and_cjk.encode_utf16().count(), 239, "UTF-16 units are not what is counted");
    assert!(check_query(&emoji_and_cjk).is_ok());
    assert_eq!(check_query(&format!("東{}", "😀".repeat(120))), Err(QueryError::TooLong));
    // Surrounding whitespace does not count.
    assert!(check_query(&format!("   {}   ", "a1".repeat(60))).is_ok());
}

#[test]
fn queries_of_only_function_words_are_refused_in_any_case() {
    for raw in [
        "the",
        "THE",
        "of the",
        "To Be Or",
        "a an and are as at be by for from in is of on or the to with",
        "is, of; the!",
    ] {
        assert_eq!(check_query(raw), Err(QueryError::OnlyFunctionWords), "{raw:?}");
    }
    for raw in ["the printer", "ON call", "the 1", "to-do", "the.of"] {
        assert!(check_query(raw).is_ok(), "{raw:?}");
    }
}

#[test]
fn queries_without_any_token_are_refused() {
    for raw in ["!!!", "...", "- / :", "+++ ###"] {
        assert_eq!(check_query(raw), Err(QueryError::NoTerms), "{raw:?}");
    }
}

#[test]
fn function_words_are_matched_whole_and_case_insensitively() {
    assert_eq!(FUNCTION_WORDS.len(), 18);
    assert!(is_function_word("With") && is_function_word("FROM") && is_function_word("a"));
    assert!(!is_function_word("") && !is_function_word("theory") && !is_function_word("ab") && !is_function_word("x"));
}

#[test]
fn errors_have_stable_codes_and_do_not_echo_the_query() {
    let cases = [
        (QueryError::Empty, "empty_query"),
        (QueryError::TooLong, "query_too_long"),
        (QueryError::NoTerms, "no_search_terms"),
        (QueryError::OnlyFunctionWords, "only_function_words"),
    ];
    for (error, code) in cases {
        assert_eq!(error.code(), code);
        assert_eq!(HttpProblem::status(&error), 400);
        assert_eq!(HttpProblem::code(&error), code);
    }
    let refused = check_query(&format!("secret{}", "x".repeat(200))).unwrap_err();
    assert!(!refused.to_string().contains("secret"));
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn an_accepted_query_is_trimmed_bounded_and_has_a_content_word(raw in "\\PC{0,200}") {
        if let Ok(query) = check_query(&raw) {
            prop_assert_eq!(query.text.as_str(), raw.trim());
            prop_assert!(query.text.chars().count() <= MAX_QUERY_CHARS);
            prop_assert!(query.tokens.iter().any(|t| !is_function_word(t)));
        }
    }
}
