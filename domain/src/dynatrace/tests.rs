//! Sync cadence rules: the failure back-off ladder, the timing constants the sync actor uses,
//! and the shared text cleaning every stored Dynatrace text goes through.

use super::*;

#[test]
fn failures_back_off_along_the_ladder_up_to_fifteen_minutes() {
    let minutes: Vec<i64> = (0..=6).map(|n| retry_delay_ms(n) / 60_000).collect();
    assert_eq!(minutes, [1, 1, 2, 5, 15, 15, 15]);
    assert_eq!(retry_delay_ms(u32::MAX), 15 * 60_000);
}

#[test]
fn timing_constants_are_as_specified() {
    assert_eq!(POLL_INTERVAL_MS, 60_000);
    assert_eq!(RECONCILE_INTERVAL_MS, 86_400_000);
    assert_eq!(
        (QUERY_REQUEST_TIMEOUT_MS, PER_REQUEST_DEADLINE_MS, OVERALL_QUERY_DEADLINE_MS),
        (12_000, 15_000, 60_000)
    );
    assert_eq!(POLL_EVERY_MS, 250);
}

#[test]
fn stored_text_loses_control_characters_and_is_cut() {
    assert_eq!(clean_text("  a\tb\r\nc\u{0}d\u{7f}e\u{9b}f\u{2028}g  ", 100), "a b  cdef g");
    assert_eq!(clean_text("héllo wörld", 7), "héllo w");
    assert_eq!(clean_text("abc   def", 5), "abc", "no trailing space after the cut");
    assert_eq!(bounded_error(&format!("line\none {}", "x".repeat(600))).chars().count(), MAX_ERROR_CHARS);
    assert_eq!(bounded_error("a\n\n b"), "a b");
}
