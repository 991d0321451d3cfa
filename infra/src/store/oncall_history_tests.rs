//! On-call history (migration `2026-12-07-000001_oncall_history`): every change of an `oncall` row
//! records exactly one `oncall_history` row in the same transaction, whatever the write path; a
//! refused or rolled-back write records none; retention prunes the history like other history.

use serde_json::{json, Value};

use domain::collections::ONCALL;
use domain::oncall_history::{HistoryChange, ONCALL_HISTORY};
use domain::record::RecordError;
use domain::retention::OPERATIONAL_RETENTION;
use domain::time::format_ms;
use domain::validation::{validate_write, WriteMode};

use super::tests::store;
use super::{create_in, select_in, BatchedChange, BatchedWrite, PreparedReplay, RecordStore, ReplayOutcome};

const DAY: i64 = 24 * 60 * 60 * 1000;

fn history(s: &RecordStore) -> Vec<Value> {
    let mut conn = s.conn().unwrap();
    select_in(&mut conn, &ONCALL_HISTORY, "1 = 1", &[], "\"revision\"", 1000).unwrap()
}

fn create(s: &RecordStore, body: Value, now_ms: i64) -> Value {
    s.create(&ONCALL, &validate_write(&ONCALL, &body, WriteMode::Create).unwrap(), now_ms).unwrap()
}

fn update(id: &str, body: Value, now_ms: i64) -> BatchedWrite {
    let write = validate_write(&ONCALL, &body, WriteMode::Update).unwrap();
    BatchedWrite { spec: &ONCALL, change: BatchedChange::Update { id: id.into(), write }, now_ms }
}

fn ada() -> Value {
    json!({"team": "Network", "role": "Primary", "name": "Ada", "contact": "555-0100", "timeWindow": "24/7",
        "sortOrder": 0, "teamId": "network"})
}

#[test]
fn each_write_records_exactly_one_change_with_its_states() {
    let (_t, s) = store();
    let row = create(&s, ada(), 1_000);
    let id = row["id"].as_str().unwrap();
    let rows = history(&s);
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0]["action"], "create");
    assert_eq!(rows[0]["recordId"], row["id"]);
    assert_eq!((&rows[0]["teamId"], &rows[0]["team"]), (&json!("network"), &json!("Network")));
    assert_eq!(rows[0]["created"], format_ms(1_000), "the change's time is the write's server time");
    assert_eq!(rows[0]["stateBefore"], json!({}));
    assert_eq!(rows[0]["stateAfter"]["name"], "Ada");
    assert!(rows[0]["revision"].as_i64() > row["revision"].as_i64(), "the history row draws its own revision");

    let outcomes = s.write_batch(&[update(id, json!({"name": "Bob"}), 2_000)]).unwrap();
    assert!(outcomes[0].is_ok());
    s.write_batch(&[update(id, json!({"name": "Bob"}), 3_000)]).unwrap()[0].as_ref().unwrap();
    let rows = history(&s);
    assert_eq!(rows.len(), 2, "a resave that changes no board field records nothing");
    assert_eq!(rows[1]["action"], "update");
    assert_eq!((&rows[1]["stateBefore"]["name"], &rows[1]["stateAfter"]["name"]), (&json!("Ada"), &json!("Bob")));

    s.delete(&ONCALL, id).unwrap();
    let rows = history(&s);
    assert_eq!(rows.len(), 3);
    assert_eq!(rows[2]["action"], "delete");
    assert_eq!((&rows[2]["stateBefore"]["name"], &rows[2]["stateAfter"]), (&json!("Bob"), &json!({})));
    assert!(rows.iter().all(|r| HistoryChange::from_record(r).is_some()), "the domain reads every row");
}

#[test]
fn a_refused_or_rolled_back_write_records_nothing() {
    let (_t, s) = store();
    let row = create(&s, ada(), 1_000);
    let id = row["id"].as_str().unwrap();
    // A batch: the update of a missing row is refused, the other write commits with its change.
    let outcomes = s
        .write_batch(&[
            update("missing00000000", json!({"name": "X"}), 2_000),
            update(id, json!({"role": "Lead"}), 2_000),
        ])
        .unwrap();
    assert_eq!(outcomes[0], Err(RecordError::NotFound));
    assert!(outcomes[1].is_ok());
    assert_eq!(history(&s).len(), 2, "the create and the accepted update only");

    // A transaction that changes the board and then fails leaves neither the change nor its history.
    let mut conn = s.conn().unwrap();
    let failed: Result<(), diesel::result::Error> = conn.immediate_transaction(|c| {
        create_in(c, &ONCALL, &ada(), 3_000).unwrap();
        Err(diesel::result::Error::RollbackTransaction)
    });
    assert!(failed.is_err());
    drop(conn);
    assert_eq!(history(&s).len(), 2);

    // An offline replay against a record that changed meanwhile is refused: no history row.
    let stale = json!({"collection": "oncall", "action": "update", "recordId": id,
        "expectedUpdated": row["updated"], "expectedFingerprint": domain::offline::record_fingerprint(&row).unwrap(),
        "data": {"name": "Stale"}});
    let change = domain::offline::replay::parse_replay_change(&stale).unwrap();
    let write = change.data.as_ref().map(|d| validate_write(change.spec, d, WriteMode::Update).unwrap());
    let out = s.replay_offline(&[PreparedReplay { change, write }], 4_000).unwrap();
    assert!(matches!(out[0], ReplayOutcome::Conflict { .. }), "{out:?}");
    assert_eq!(history(&s).len(), 2);
}

#[test]
fn retention_drops_history_older_than_its_window_and_keeps_the_rest() {
    let (_t, s) = store();
    let now = 1_000 * DAY;
    let days = domain::oncall_history::RETENTION_DAYS;
    create(&s, ada(), now - (days + 1) * DAY);
    create(&s, ada(), now - (days - 1) * DAY);
    let plan = OPERATIONAL_RETENTION.iter().find(|p| p.collection == "oncall_history").expect("a retention plan");
    let deleted = s.apply_retention(&ONCALL_HISTORY, plan.steps, now).unwrap();
    assert_eq!(deleted.len(), 1);
    assert_eq!(deleted[0]["created"], format_ms(now - (days + 1) * DAY));
    assert_eq!(history(&s).len(), 1);
    assert_eq!(select_in(&mut s.conn().unwrap(), &ONCALL, "1 = 1", &[], "id", 10).unwrap().len(), 2, "rows stay");
}

#[test]
fn imports_and_accepted_offline_replays_are_recorded_like_any_write() {
    let (_t, s) = store();
    let plan = domain::import::plan_import("oncall", &[ada(), json!({"team": "Storage", "name": "Cy"})]).unwrap();
    s.import(&plan, false, 1_000).unwrap();
    assert!(history(&s).is_empty(), "a preview writes nothing");
    s.import(&plan, true, 1_000).unwrap();
    let rows = history(&s);
    assert_eq!(rows.iter().map(|r| r["action"].as_str().unwrap()).collect::<Vec<_>>(), ["create", "create"]);

    let row = s.get(&ONCALL, rows[0]["recordId"].as_str().unwrap()).unwrap();
    let seen = json!({"collection": "oncall", "action": "update", "recordId": row["id"],
        "expectedUpdated": row["updated"], "expectedFingerprint": domain::offline::record_fingerprint(&row).unwrap(),
        "data": {"name": "Offline"}});
    let change = domain::offline::replay::parse_replay_change(&seen).unwrap();
    let write = change.data.as_ref().map(|d| validate_write(change.spec, d, WriteMode::Update).unwrap());
    let out = s.replay_offline(&[PreparedReplay { change, write }], 2_000).unwrap();
    assert!(matches!(out[0], ReplayOutcome::Updated(_)), "{out:?}");
    let rows = history(&s);
    assert_eq!(rows.len(), 3);
    assert_eq!((&rows[2]["action"], &rows[2]["stateAfter"]["name"]), (&json!("update"), &json!("Offline")));
}
