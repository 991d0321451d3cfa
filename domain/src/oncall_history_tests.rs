//! Tests of the on-call board reconstruction: "who was on call for Network at 02:00 last
//! Tuesday?" answered from a sequence of recorded changes.

use super::*;
use crate::time::{format_ms, parse_datetime};
use serde_json::json;

fn ms(wire: &str) -> i64 {
    parse_datetime(wire).unwrap()
}

fn state(team: &str, role: &str, name: &str, order: f64) -> Value {
    json!({"team": team, "role": role, "name": name, "contact": "555-0100", "timeWindow": "24/7",
        "sortOrder": order, "teamId": team.to_lowercase()})
}

/// A history record as the triggers write it.
fn change(at: &str, revision: i64, id: &str, action: &str, before: Value, after: Value) -> Value {
    json!({"id": format!("h{revision}"), "created": format_ms(ms(at)), "revision": revision, "recordId": id,
        "action": action, "stateBefore": before, "stateAfter": after})
}

fn names(board: &[OnCallEntry], team: &str) -> Vec<String> {
    on_call_for(board, team).iter().map(|e| format!("{} {}", e.role, e.name)).collect()
}

/// Network's board over a week: Ada is primary from Monday, Bob takes over on Tuesday at 09:00,
/// a backup is added Wednesday and removed Thursday; Database changes only on Wednesday.
fn week() -> (Vec<OnCallEntry>, Vec<HistoryChange>) {
    let records = [
        change("2026-12-07 08:00:00.000Z", 1, "net1", "create", json!({}), state("Network", "Primary", "Ada", 0.0)),
        change("2026-12-07 08:00:00.000Z", 2, "db1", "create", json!({}), state("Database", "Primary", "Cy", 0.0)),
        change(
            "2026-12-08 09:00:00.000Z",
            3,
            "net1",
            "update",
            state("Network", "Primary", "Ada", 0.0),
            state("Network", "Primary", "Bob", 0.0),
        ),
        change("2026-12-09 10:00:00.000Z", 4, "net2", "create", json!({}), state("Network", "Backup", "Eve", 1.0)),
        change(
            "2026-12-09 10:00:00.000Z",
            5,
            "db1",
            "update",
            state("Database", "Primary", "Cy", 0.0),
            state("Database", "Primary", "Dee", 0.0),
        ),
        change("2026-12-10 11:00:00.000Z", 6, "net2", "delete", state("Network", "Backup", "Eve", 1.0), json!({})),
    ];
    let history: Vec<HistoryChange> = records.iter().map(|r| HistoryChange::from_record(r).unwrap()).collect();
    let current = vec![
        OnCallEntry::from_state("net1", &state("Network", "Primary", "Bob", 0.0)).unwrap(),
        OnCallEntry::from_state("db1", &state("Database", "Primary", "Dee", 0.0)).unwrap(),
    ];
    (current, history)
}

#[test]
fn who_was_on_call_for_network_at_two_last_tuesday() {
    let (current, history) = week();
    let tuesday_2am = ms("2026-12-08 02:00:00.000Z");
    assert_eq!(names(&board_at(&current, &history, tuesday_2am), "Network"), ["Primary Ada"]);
    assert_eq!(names(&current, "Network"), ["Primary Bob"], "today Bob is");
}

#[test]
fn every_moment_of_the_week_shows_the_board_of_that_moment() {
    let (current, history) = week();
    let at = |wire: &str| board_at(&current, &history, ms(wire));
    assert!(at("2026-12-07 07:59:59.999Z").is_empty(), "before the first card nobody was on call");
    assert_eq!(names(&at("2026-12-07 08:00:00.000Z"), "network"), ["Primary Ada"], "a change counts from its instant");
    assert_eq!(names(&at("2026-12-08 09:00:00.000Z"), "Network"), ["Primary Bob"]);
    assert_eq!(names(&at("2026-12-09 12:00:00.000Z"), "Network"), ["Primary Bob", "Backup Eve"], "in sortOrder");
    assert_eq!(names(&at("2026-12-09 12:00:00.000Z"), "Database"), ["Primary Dee"]);
    assert_eq!(names(&at("2026-12-08 12:00:00.000Z"), "Database"), ["Primary Cy"]);
    assert_eq!(names(&at("2026-12-10 11:00:00.000Z"), "Network"), ["Primary Bob"], "Eve was removed Thursday");
    assert_eq!(at("2026-12-31 00:00:00.000Z"), board_at(&current, &[], 0), "after the last change: today's board");
}

#[test]
fn changes_in_the_same_millisecond_are_undone_by_revision() {
    // A row renamed twice in one millisecond: undoing newest first restores the first state.
    let records = [
        change(
            "2026-12-08 09:00:00.000Z",
            7,
            "r",
            "update",
            state("Net", "Primary", "A", 0.0),
            state("Net", "Primary", "B", 0.0),
        ),
        change(
            "2026-12-08 09:00:00.000Z",
            8,
            "r",
            "update",
            state("Net", "Primary", "B", 0.0),
            state("Net", "Primary", "C", 0.0),
        ),
    ];
    let history: Vec<HistoryChange> = records.iter().rev().map(|r| HistoryChange::from_record(r).unwrap()).collect();
    let current = vec![OnCallEntry::from_state("r", &state("Net", "Primary", "C", 0.0)).unwrap()];
    assert_eq!(names(&board_at(&current, &history, ms("2026-12-08 08:00:00.000Z")), "net"), ["Primary A"]);
}

#[test]
fn malformed_history_records_are_skipped_and_legacy_rows_use_the_team_name() {
    assert!(HistoryChange::from_record(&json!({"created": "soon", "recordId": "x", "action": "create"})).is_none());
    assert!(HistoryChange::from_record(
        &json!({"created": "2026-12-08 09:00:00.000Z", "recordId": "x", "action": "merge"})
    )
    .is_none());
    let legacy = OnCallEntry::from_record(&json!({"id": "l", "team": " Network ", "name": "Ada"})).unwrap();
    assert_eq!(legacy.card_key(), "network");
    assert!(OnCallEntry::from_state("x", &json!({})).is_none(), "an empty state is no row");
}

#[test]
fn the_collection_is_server_written_and_client_readable() {
    assert_eq!(ONCALL_HISTORY.writes, Writes::ServerOnly);
    assert_eq!(ONCALL_HISTORY.reads, Reads::All);
    assert!(crate::collections::collection("oncall_history").is_some(), "listed in MANAGED");
}
