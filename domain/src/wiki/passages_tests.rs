//! Search passages: NFKC, lowercase and whitespace folding with the way back to the source, the
//! page item join, the 900 / 1,600 / 120 word-boundary cut, heading choice from the outline, the
//! index budgets, and properties that any Unicode page is cut without panic, within the bounds
//! and always moving forward.

use super::*;
use proptest::prelude::*;

fn outline(entries: &[(&str, u32, u32)]) -> Vec<OutlineEntry> {
    entries.iter().map(|&(title, page_index, depth)| OutlineEntry { title: title.into(), page_index, depth }).collect()
}

/// "w0001 w0002 …": `count` distinct five-character words, one space apart.
fn numbered_words(count: usize) -> String {
    (1..=count).map(|i| format!("w{i:04}")).collect::<Vec<_>>().join(" ")
}

#[test]
fn nfkc_folds_ligatures_fullwidth_forms_and_compatibility_characters() {
    assert_eq!(normalize_for_search("ﬁle ﬂow").text, "file flow");
    assert_eq!(normalize_for_search("ＡＢＣ １２３").text, "abc 123");
    assert_eq!(normalize_for_search("x² ½ ㎒").text, "x2 1⁄2 mhz");
    // Combining sequences are composed: both spellings of "café" fold to the same text.
    assert_eq!(normalize_for_search("Cafe\u{301}").text, normalize_for_search("CAFÉ").text);
    assert_eq!(normalize_for_search("Cafe\u{301}").text, "café");
}

#[test]
fn lowercase_is_the_unicode_default_without_case_folding() {
    assert_eq!(normalize_for_search("Straße").text, "straße");
    assert_eq!(normalize_for_search("STRASSE").text, "strasse");
    assert_eq!(normalize_for_search("\u{1E9E}").text, "ß", "capital sharp s lowercases to ß");
    assert_ne!(normalize_for_search("Straße").text, normalize_for_search("STRASSE").text);
    assert_eq!(normalize_for_search("ΣΟΦΟΣ").text, "σοφοσ", "sigma is lowercased without final-form context");
}

#[test]
fn whitespace_and_control_runs_collapse_to_one_space_and_the_ends_are_trimmed() {
    assert_eq!(normalize_for_search("  a\t\n b \u{3000}\u{a0} c\u{0}d\r\n").text, "a b c d");
    assert_eq!(normalize_for_search(" \n\t\u{3000} ").text, "");
    assert!(normalize_for_search("").spans().is_empty());
}

#[test]
fn spans_map_normalized_bytes_back_to_the_source() {
    let source = "Ａ  ﬁx";
    let normalized = normalize_for_search(source);
    assert_eq!(normalized.text, "a fix");
    let spans: Vec<_> =
        normalized.spans().iter().map(|s| (s.normalized.clone(), s.source.clone(), s.is_space)).collect();
    assert_eq!(spans, [(0..1, 0..3, false), (1..2, 3..5, true), (2..4, 5..8, false), (4..5, 8..9, false)]);
    assert_eq!(normalized.source_range(2..3), Some(5..8), "half a ligature maps to the whole ligature");
    assert_eq!(&source[normalized.source_range(0..5).unwrap()], "Ａ  ﬁx");
    assert_eq!(&source[normalized.source_range(2..5).unwrap()], "ﬁx");
    assert_eq!(normalized.source_range(5..5), None);
    assert_eq!(normalized.source_range(9..12), None);
}

#[test]
fn clusters_stay_whole_unless_absurdly_long() {
    let flag_and_family = "🇫🇷 👨\u{200d}👩\u{200d}👧";
    let normalized = normalize_for_search(flag_and_family);
    assert_eq!(normalized.spans().len(), 3, "flag, space, family: one span per cluster");
    let long = format!("a{}", "\u{301}".repeat(MAX_CLUSTER_CODE_POINTS + 8));
    let spans = normalize_for_search(&long).spans().to_vec();
    assert_eq!(spans.len(), MAX_CLUSTER_CODE_POINTS + 9, "an over-long cluster is split per code point");
    let short = format!("a{}", "\u{301}".repeat(MAX_CLUSTER_CODE_POINTS - 1));
    assert_eq!(normalize_for_search(&short).spans().len(), 1);
}

#[test]
fn page_items_join_with_a_space_only_after_line_ends() {
    let joined = join_page_items([("Hello", false), ("world", true), ("next", false), ("line", true)]);
    assert_eq!(joined, "Helloworld nextline ");
    let mut page = PageItems::default();
    page.push("😀a", false);
    page.push("b", true);
    assert_eq!((page.as_str(), page.utf16_len(), page.item_count()), ("😀ab ", 5, 2));
}

#[test]
fn a_long_page_is_cut_near_the_target_at_spaces_with_an_overlap_of_at_least_120() {
    let page = numbered_words(500);
    assert_eq!(page.len(), 2_999);
    let passages = build_passages(4, &page, &[], &PassageLimits::default());
    // First cut: the last word end at or before 900 is after word 150 (6 × 150 − 1 = 899).
    assert_eq!(passages[0].text.len(), 899);
    assert!(passages[0].text.ends_with("w0150"));
    // Next start: the last word start at or before 899 − 120 = 779 is word 130, at 774.
    assert!(passages[1].text.starts_with("w0130 "));
    let mut previous_end = 0;
    for (i, passage) in passages.iter().enumerate() {
        let start = page.find(&passage.text).unwrap();
        let end = start + passage.text.len();
        assert!(start == 0 || page.as_bytes()[start - 1] == b' ', "starts at a word");
        assert!(end == page.len() || page.as_bytes()[end] == b' ', "ends at a word");
        assert!(passage.text.chars().count() <= PASSAGE_TARGET_CHARS);
        if i > 0 {
            let overlap = previous_end - start;
            assert!((120..=125).contains(&overlap), "overlap {overlap}");
        }
        assert_eq!((passage.page_number, passage.passage_number), (4, i as u32 + 1));
        previous_end = end;
    }
    assert_eq!(previous_end, page.len(), "the last passage reaches the page end");
    assert_eq!(passages.len(), 4);
}

#[test]
fn without_a_word_end_near_the_target_the_cut_is_the_first_word_end_after_it() {
    let page = format!("{} {}", "a".repeat(1_000), "b".repeat(1_000));
    let passages = build_passages(1, &page, &[], &PassageLimits::default());
    assert_eq!(passages[0].text, "a".repeat(1_000));
    assert_eq!(passages[1].text, "b".repeat(1_000), "the next passage starts at the next word");
    assert_eq!(passages.len(), 2);
}

#[test]
fn an_over_long_word_is_hard_cut_at_the_maximum_without_overlap() {
    let page = "x".repeat(4_000);
    let lengths: Vec<usize> =
        build_passages(1, &page, &[], &PassageLimits::default()).iter().map(|p| p.text.len()).collect();
    assert_eq!(lengths, [1_600, 1_600, 800]);
}

#[test]
fn a_short_page_is_one_passage_and_a_blank_page_none() {
    let passages = build_passages(2, "  Reset the VPN.\n ", &[], &PassageLimits::default());
    assert_eq!(passages.len(), 1);
    assert_eq!(passages[0].text, "Reset the VPN.");
    assert_eq!(passages[0].normalized_text, "reset the vpn.");
    assert_eq!((passages[0].normalized_start, passages[0].normalized_end), (0, 14));
    assert!(build_passages(2, "", &[], &PassageLimits::default()).is_empty());
    assert!(build_passages(2, " \n\t\u{3000}", &[], &PassageLimits::default()).is_empty());
}

#[test]
fn a_whitespace_run_longer_than_a_passage_separates_passages() {
    let page = format!("alpha{}beta", " ".repeat(5_000));
    let texts: Vec<String> =
        build_passages(1, &page, &[], &PassageLimits::default()).into_iter().map(|p| p.text).collect();
    assert_eq!(texts, ["alpha", "beta"]);
}

#[test]
fn normalized_text_is_bounded_even_when_normalization_expands() {
    // U+FDFA is one character that NFKC expands to 18.
    let page = "\u{FDFA} ".repeat(400);
    let passages = build_passages(1, &page, &[], &PassageLimits::default());
    let lengths: Vec<usize> = passages.iter().map(|p| p.normalized_text.chars().count()).collect();
    assert!(passages.len() > 1, "{lengths:?}");
    assert!(lengths.iter().all(|&n| n <= PASSAGE_MAX_CHARS), "{lengths:?}");
    // 84 words of 18 + 1 characters fill 1,595; only the last passage is shorter.
    assert!(lengths[..lengths.len() - 1].iter().all(|&n| n == 1_595), "{lengths:?}");
    assert!(passages.iter().all(|p| p.text.chars().count() < PASSAGE_TARGET_CHARS), "the raw text stays short");
}

#[test]
fn normalized_offsets_locate_the_passage_in_the_normalized_page() {
    let page = format!("Ｗ {}", numbered_words(400));
    let whole: Vec<char> = normalize_for_search(&page).text.chars().collect();
    for passage in build_passages(1, &page, &[], &PassageLimits::default()) {
        let slice: String = whole[passage.normalized_start..passage.normalized_end].iter().collect();
        assert_eq!(slice, passage.normalized_text);
        assert_eq!(normalize_for_search(&passage.text).text, passage.normalized_text);
    }
}

#[test]
fn the_heading_is_the_last_outline_node_at_or_before_the_page() {
    let toc = outline(&[("Intro", 0, 0), ("Setup", 2, 0), ("  Network\n  cards ", 2, 1), ("Appendix", 9, 0)]);
    let heading = |page_index| heading_for_page(&toc, page_index).map(|h| (h.id, h.title));
    assert_eq!(heading(0), Some(("1".into(), "Intro".into())));
    assert_eq!(heading(1), Some(("1".into(), "Intro".into())));
    assert_eq!(heading(2), Some(("2.1".into(), "Network cards".into())));
    assert_eq!(heading(8), Some(("2.1".into(), "Network cards".into())));
    assert_eq!(heading(9), Some(("3".into(), "Appendix".into())));
    assert_eq!(heading_for_page(&outline(&[("Later", 5, 0)]), 4), None);
    assert_eq!(heading_for_page(&[], 0), None);

    let passages = build_passages(3, "Plug in the cable.", &toc, &PassageLimits::default());
    assert_eq!(passages[0].heading_id.as_deref(), Some("2.1"), "page 3 is page index 2");
    assert_eq!(passages[0].heading.as_deref(), Some("Network cards"));
    assert_eq!(build_passages(1, "x", &[], &PassageLimits::default())[0].heading, None);
}

#[test]
fn heading_ids_follow_the_tree_and_stay_bounded() {
    let toc = outline(&[("A", 0, 0), ("A1", 0, 1), ("A1a", 0, 2), ("A2", 0, 1), ("B", 0, 0), ("B-skip", 0, 3)]);
    let ids: Vec<String> = (0..toc.len()).map(|i| heading_for_page(&toc[..=i], 0).unwrap().id).collect();
    assert_eq!(ids, ["1", "1.1", "1.1.1", "1.2", "2", "2.1"], "a depth jump nests one level");
    let deep: Vec<OutlineEntry> =
        (0..150).map(|d| OutlineEntry { title: "x".into(), page_index: 0, depth: d }).collect();
    assert_eq!(heading_for_page(&deep[..100], 0).unwrap().id.len(), 199);
    assert_eq!(heading_for_page(&deep, 0).unwrap().id, "n149", "paths over 200 characters use the index");
    let long_title = outline(&[(&"é".repeat(300), 0, 0)]);
    assert_eq!(heading_for_page(&long_title, 0).unwrap().title.chars().count(), MAX_HEADING_CHARS);
}

#[test]
fn the_budget_refuses_too_many_passages_or_too_much_text_and_stays_unchanged() {
    let passages = build_passages(1, &numbered_words(500), &[], &PassageLimits::default());
    assert_eq!(passages.len(), 4);
    let bytes: u64 = passages.iter().map(|p| p.text.len() as u64).sum();

    let mut budget = PassageBudget::new(6, u64::MAX);
    budget.admit(&passages).unwrap();
    assert_eq!(budget.admit(&passages), Err(PassageError::TooManyPassages { limit: 6 }));
    assert_eq!((budget.passages(), budget.text_bytes()), (4, bytes));

    let mut budget = PassageBudget::new(100, bytes - 1);
    assert_eq!(budget.admit(&passages), Err(PassageError::TextTooLarge { limit_bytes: bytes - 1 }));
    assert_eq!(budget.passages(), 0);

    let mut full = PassageBudget::default().with_used(MAX_SEARCH_PASSAGES - 3, 0);
    assert_eq!(full.admit(&passages).unwrap_err().code(), "too_many_passages");
    let mut heavy = PassageBudget::default().with_used(0, MAX_SEARCH_TEXT_BYTES - 10);
    assert_eq!(heavy.admit(&passages).unwrap_err().code(), "search_text_too_large");
}

#[test]
fn a_document_is_cut_page_by_page_within_its_budget() {
    let first = numbered_words(500);
    let pages = [(1, first.as_str()), (2, "   "), (3, "Last page.")];
    let mut budget = PassageBudget::default();
    let passages = build_document_passages(pages, &[], &PassageLimits::default(), &mut budget).unwrap();
    let numbers: Vec<(u32, u32)> = passages.iter().map(|p| (p.page_number, p.passage_number)).collect();
    assert_eq!(numbers, [(1, 1), (1, 2), (1, 3), (1, 4), (3, 1)]);
    assert_eq!(budget.passages(), 5);
    let mut small = PassageBudget::new(4, u64::MAX);
    let refused = build_document_passages(pages, &[], &PassageLimits::default(), &mut small);
    assert_eq!(refused, Err(PassageError::TooManyPassages { limit: 4 }));
}

/// Text made of words and separators, with a fair share of multi-byte and expanding characters.
fn wordy_text() -> impl Strategy<Value = String> {
    proptest::collection::vec(
        prop_oneof![
            4 => "[a-z]{1,12}",
            1 => "[a-z]{200,1800}",
            1 => "[ \t\n]{1,3}",
            1 => " {100,2000}",
            1 => "[\u{FDFA}ﬁé\u{301}😀Ａ\u{0}]{1,40}",
            1 => any::<String>(),
        ],
        0..60,
    )
    .prop_map(|parts| parts.join(" "))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn normalization_never_panics_and_leaves_single_inner_spaces(text in any::<String>()) {
        let normalized = normalize_for_search(&text);
        prop_assert!(!normalized.text.starts_with(' ') && !normalized.text.ends_with(' '));
        prop_assert!(!normalized.text.contains("  "));
        let mut at = 0;
        for span in normalized.spans() {
            prop_assert_eq!(span.normalized.start, at);
            at = span.normalized.end;
            prop_assert!(text.get(span.source.clone()).is_some());
        }
        prop_assert_eq!(at, normalized.text.len());
    }

    #[test]
    fn any_page_is_cut_within_bounds_and_always_moves_forward(page in wordy_text()) {
        let passages = build_passages(1, &page, &[], &PassageLimits::default());
        prop_assert!(passages.len() <= page.chars().count());
        let mut previous: Option<&Passage> = None;
        for passage in &passages {
            prop_assert!(passage.text.chars().count() <= PASSAGE_MAX_CHARS);
            prop_assert!(passage.normalized_text.chars().count() <= PASSAGE_MAX_CHARS);
            prop_assert!(!passage.normalized_text.is_empty());
            if let Some(previous) = previous {
                prop_assert!(passage.normalized_start > previous.normalized_start);
                prop_assert!(passage.normalized_end > previous.normalized_end);
                prop_assert_eq!(passage.passage_number, previous.passage_number + 1);
            }
            previous = Some(passage);
        }
    }

    #[test]
    fn tiny_or_odd_limits_still_terminate_and_move_forward(
        page in wordy_text(),
        target in 0usize..40,
        max in 0usize..60,
        overlap in 0usize..100,
    ) {
        let limits = PassageLimits { target_chars: target, max_chars: max, overlap_chars: overlap };
        let passages = build_passages(1, &page, &[], &limits);
        for pair in passages.windows(2) {
            prop_assert!(pair[1].normalized_start > pair[0].normalized_start);
            prop_assert!(pair[1].normalized_end > pair[0].normalized_end);
        }
        for passage in &passages {
            prop_assert!(passage.text.chars().count() <= max.max(1));
            prop_assert!(passage.normalized_text.chars().count() <= max.max(1));
        }
    }
}
