//! Search expressions: normalized, quoted, ANDed tokens with only the last as a prefix, whatever
//! FTS5 syntax is typed; match kinds; excerpts bounded to 280 characters, cut on words, with
//! highlight ranges; the result limits; and properties that any input gives a well-formed
//! expression and a bounded, well-ordered excerpt.

use super::*;
use crate::wiki::query::check_query;
use proptest::prelude::*;

fn terms(raw: &str) -> SearchTerms {
    SearchTerms::from_query(&check_query(raw).unwrap()).unwrap()
}

fn expression(raw: &str) -> String {
    fts_match_expression(&check_query(raw).unwrap()).unwrap()
}

/// The quoted strings of a well-formed expression (`"a" AND "b"*`), or `None` when anything
/// outside the quotes is not the expected ` AND ` separators and the final `*`.
fn quoted_strings(expression: &str) -> Option<Vec<String>> {
    let mut strings = Vec::new();
    let mut rest = expression;
    loop {
        if !strings.is_empty() {
            rest = rest.strip_prefix(" AND ")?;
        }
        let mut chars = rest.strip_prefix('"')?.char_indices().peekable();
        let mut string = String::new();
        let close = loop {
            let (at, c) = chars.next()?;
            if c == '"' {
                if chars.peek().is_some_and(|&(_, next)| next == '"') {
                    chars.next();
                    string.push('"');
                    continue;
                }
                break at;
            }
            string.push(c);
        };
        strings.push(string);
        rest = &rest[1 + close + 1..];
        if rest == "*" {
            return Some(strings);
        }
    }
}

#[test]
fn tokens_are_normalized_quoted_anded_and_only_the_last_is_a_prefix() {
    assert_eq!(expression("VPN reset"), r#""vpn" AND "reset"*"#);
    assert_eq!(expression("how to reset the VPN"), r#""how" AND "reset" AND "vpn"*"#);
    assert_eq!(expression("Ｖｐｎ ﬁrewall"), r#""vpn" AND "firewall"*"#);
    assert_eq!(expression("ERR-42 v1.2.3"), r#""err-42" AND "v1.2.3"*"#);
    assert_eq!(expression("printer"), r#""printer"*"#);
}

#[test]
fn fts5_syntax_typed_by_a_person_never_acts_as_an_operator() {
    assert_eq!(expression(r#"foo" OR bar*"#), r#""foo" AND "bar"*"#, "OR is a function word and dropped");
    assert_eq!(
        expression("NEAR(vpn dns) NOT ^proxy col:x -y"),
        r#""near" AND "vpn" AND "dns" AND "not" AND "proxy" AND "col:x" AND "y"*"#
    );
    assert_eq!(expression("(a AND b)"), r#""b"*"#);
    for raw in [r#"" OR "x"#, "*:^()", "a\"\"b", "NOT NOT", "x -- y", "col : \"v\""] {
        if let Ok(query) = check_query(raw) {
            if let Ok(expr) = fts_match_expression(&query) {
                assert!(quoted_strings(&expr).is_some(), "{raw:?} gave {expr:?}");
            }
        }
    }
}

#[test]
fn quotes_inside_a_string_are_doubled() {
    assert_eq!(quote_fts_string(r#"a"b"#), r#""a""b""#);
    assert_eq!(quoted_strings(r#""a""b" AND "c"*"#), Some(vec![r#"a"b"#.to_string(), "c".to_string()]));
    assert_eq!(quoted_strings(r#""a" OR "c"*"#), None, "the checker refuses a bare operator");
}

#[test]
fn a_query_that_normalizes_to_function_words_only_is_refused() {
    let query = check_query("ＴＨＥ ＯＦ").unwrap();
    assert_eq!(SearchTerms::from_query(&query), Err(QueryError::OnlyFunctionWords));
    let typed = SearchQuery { text: "!!!".into(), tokens: vec![] };
    assert_eq!(fts_match_expression(&typed), Err(QueryError::NoTerms));
}

#[test]
fn terms_keep_the_phrase_and_drop_function_words_from_the_tokens() {
    let t = terms("Reset the VPN");
    assert_eq!(t.phrase(), ["reset", "the", "vpn"]);
    assert_eq!(t.tokens(), ["reset", "vpn"]);
}

#[test]
fn match_kinds_rank_exact_then_tokens_then_prefix() {
    let passage = "to reset the vpn client, open settings. then restart.";
    assert_eq!(match_kind(passage, &terms("reset the VPN")), MatchKind::Exact);
    assert_eq!(match_kind(passage, &terms("open settings")), MatchKind::Exact, "trailing punctuation is a boundary");
    assert_eq!(match_kind(passage, &terms("VPN reset")), MatchKind::Tokens);
    assert_eq!(match_kind(passage, &terms("vpn cli")), MatchKind::Prefix);
    assert_eq!(match_kind(passage, &terms("cli vpn")), MatchKind::Fuzzy, "only the last token is a prefix");
    assert_eq!(match_kind(passage, &terms("vpn resetting")), MatchKind::Fuzzy);
    assert_eq!(match_kind(passage, &terms("pen")), MatchKind::Fuzzy, "a token must start a word");
    assert_eq!(MatchKind::Exact.as_str(), "exact");
    assert!(MatchKind::Exact < MatchKind::Tokens && MatchKind::Tokens < MatchKind::Prefix);
}

#[test]
fn a_short_excerpt_is_the_whole_text_with_highlights_in_characters() {
    let e = excerpt("Résumé:\n  Reset the VPN ﬁrst", &terms("vpn reset fi"));
    assert_eq!(e.text, "Résumé: Reset the VPN ﬁrst");
    let marked: Vec<String> =
        e.highlights.iter().map(|r| e.text.chars().skip(r.start).take(r.len()).collect()).collect();
    assert_eq!(marked, ["Reset", "VPN", "ﬁrst"], "raw case kept; the prefix marks its whole word");
    assert_eq!(e.highlights, [8..13, 18..21, 22..26]);
}

#[test]
fn a_long_excerpt_is_cut_on_words_around_the_first_match() {
    let words: Vec<String> = (1..=300).map(|i| format!("w{i:03}")).collect();
    let text = format!("{} needle {}", words[..150].join(" "), words[150..].join(" "));
    let e = excerpt(&text, &terms("needle"));
    let chars: Vec<char> = e.text.chars().collect();
    assert!(chars.len() <= MAX_EXCERPT_CHARS && chars.len() > MAX_EXCERPT_CHARS - 8);
    assert_eq!((chars[0], chars[1], chars[chars.len() - 1]), (ELLIPSIS, 'w', ELLIPSIS));
    assert!(chars[chars.len() - 2].is_ascii_digit(), "cut after a whole word");
    let body: String = chars[1..chars.len() - 1].iter().collect();
    assert!(text.contains(&body), "the excerpt is a whole-word slice of the text");
    let [mark] = &e.highlights[..] else { panic!("one highlight: {:?}", e.highlights) };
    let marked: String = chars[mark.clone()].iter().collect();
    assert_eq!(marked, "needle");
    assert!((80..=100).contains(&mark.start), "about a third of the room comes before the match: {mark:?}");
}

#[test]
fn without_a_match_the_excerpt_is_the_start_and_a_match_near_the_end_pulls_it_back() {
    let text = (1..=200).map(|i| format!("w{i:03}")).collect::<Vec<_>>().join(" ");
    let start = excerpt(&text, &terms("absent"));
    assert!(start.text.starts_with("w001 ") && start.text.ends_with(ELLIPSIS));
    assert!(start.highlights.is_empty());
    let end = excerpt(&text, &terms("w200"));
    assert!(end.text.starts_with(ELLIPSIS) && end.text.ends_with("w200"));
    assert!(end.text.chars().count() > MAX_EXCERPT_CHARS - 8, "the room before the end is used");
    assert_eq!(excerpt("", &terms("x")), Excerpt::default());
}

#[test]
fn result_limits_are_20_across_the_library_and_50_in_a_document() {
    assert_eq!(result_limit(SearchScope::AllDocuments), 20);
    assert_eq!(result_limit(SearchScope::OneDocument), 50);
    assert_eq!(clamp_result_limit(SearchScope::AllDocuments, None), 20);
    assert_eq!(clamp_result_limit(SearchScope::AllDocuments, Some(500)), 20);
    assert_eq!(clamp_result_limit(SearchScope::OneDocument, Some(0)), 1);
    assert_eq!(clamp_result_limit(SearchScope::OneDocument, Some(7)), 7);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn any_accepted_query_gives_quoted_anded_tokens_with_one_final_prefix(
        raw in prop_oneof![any::<String>(), "[a-zA-Z\"*^:() \\-]{1,60}", "(NEAR|AND|OR|NOT|\"|\\*|\\^|:|\\(|\\)|-|x|\u{FF02}| ){1,30}"],
    ) {
        if let Ok(query) = check_query(&raw) {
            if let Ok(terms) = SearchTerms::from_query(&query) {
                let expr = terms.fts_match_expression();
                let strings = quoted_strings(&expr);
                prop_assert!(strings.is_some(), "{:?} gave {:?}", raw, expr);
                prop_assert_eq!(strings.unwrap(), terms.tokens().to_vec());
                prop_assert_eq!(expr.matches('*').count() - terms.tokens().iter().map(|t| t.matches('*').count()).sum::<usize>(), 1);
            }
        }
    }

    #[test]
    fn any_excerpt_is_bounded_with_sorted_disjoint_highlights(
        text in prop_oneof![any::<String>(), "([a-z]{1,9}[ .\n]){0,400}"],
        raw in "[a-z]{1,4}( [a-z]{1,4}){0,3}",
    ) {
        if let Ok(terms) = check_query(&raw).and_then(|q| SearchTerms::from_query(&q)) {
            let e = excerpt(&text, &terms);
            let length = e.text.chars().count();
            prop_assert!(length <= MAX_EXCERPT_CHARS);
            let mut previous_end = 0;
            for range in &e.highlights {
                prop_assert!(range.start < range.end && range.end <= length);
                prop_assert!(range.start >= previous_end);
                previous_end = range.end;
            }
            let _ = match_kind(&text, &terms);
        }
    }
}

#[test]
fn common_whole_words_are_dropped_but_never_the_prefix_or_the_last_remaining_term() {
    let terms = SearchTerms::from_query(&check_query("router vpn failov").unwrap()).unwrap();
    let common = |t: &str| t == "router" || t == "failov";
    assert_eq!(terms.without_common(common).fts_match_expression(), "\"vpn\" AND \"failov\"*");
    let everything = |_: &str| true;
    assert_eq!(terms.without_common(everything).fts_match_expression(), "\"failov\"*", "the prefix always stays");
    let nothing = |_: &str| false;
    assert_eq!(terms.without_common(nothing), terms);
    assert!(is_common_word(21, 100));
    assert!(!is_common_word(20, 100));
    assert!(!is_common_word(5, 0));
}

#[test]
fn a_word_count_may_stop_at_the_common_word_limit() {
    assert_eq!(common_word_count_limit(0), None);
    for total in [1u64, 4, 5, 6, 99, 100, 101, 104, 105, 100_000, 100_003] {
        let limit = common_word_count_limit(total).unwrap();
        assert!(is_common_word(limit, total), "{limit} of {total}");
        assert!(!is_common_word(limit - 1, total), "{} of {total}", limit - 1);
    }
}
