use serde_json::{json, Value};

use domain::collections::{collection, CONTACTS, SERVERS};
use domain::offline::record_fingerprint;
use domain::offline::replay::parse_replay_change;
use domain::offline::servers_sync::SyncError;
use domain::record::{ListQuery, RawListParams, RecordError};
use domain::validation::{validate_write, WriteMode};

use super::*;
use crate::store::tests::store;

fn create(s: &RecordStore, collection_name: &str, body: Value, now: i64) -> Value {
    let spec = collection(collection_name).unwrap();
    s.create(spec, &validate_write(spec, &body, WriteMode::Create).unwrap(), now).unwrap()
}

fn seen(record: &Value) -> (String, String) {
    (record["updated"].as_str().unwrap().to_string(), record_fingerprint(record).unwrap())
}

fn prepared(
    collection_name: &str,
    action: &str,
    record: &Value,
    seen: &(String, String),
    data: Option<Value>,
) -> PreparedReplay {
    let mut body = json!({
        "collection": collection_name, "action": action, "recordId": record["id"],
        "expectedUpdated": seen.0, "expectedFingerprint": seen.1,
    });
    if let Some(d) = data {
        body["data"] = d;
    }
    let change = parse_replay_change(&body).unwrap();
    let write = change.data.as_ref().map(|d| validate_write(change.spec, d, WriteMode::Update).unwrap());
    PreparedReplay { change, write }
}

fn conflict_rows(s: &RecordStore) -> Vec<Value> {
    let spec = collection("conflict_log").unwrap();
    s.list(spec, &ListQuery::parse(spec, &RawListParams::default()).unwrap()).unwrap().items
}

#[test]
fn a_change_against_the_record_it_saw_applies() {
    let (_t, s) = store();
    let ada = create(&s, "contacts", json!({"name": "Ada"}), 1_000);
    let bob = create(&s, "contacts", json!({"name": "Bob"}), 1_000);
    let changes = [
        prepared("contacts", "update", &ada, &seen(&ada), Some(json!({"title": "Lead"}))),
        prepared("contacts", "delete", &bob, &seen(&bob), None),
    ];
    let out = s.replay_offline(&changes, 2_000).unwrap();
    assert!(matches!(&out[0], ReplayOutcome::Updated(r) if r["title"] == "Lead" && r["name"] == "Ada"));
    assert!(matches!(&out[1], ReplayOutcome::Deleted(r) if r["id"] == bob["id"]));
    assert_eq!(s.get(&CONTACTS, bob["id"].as_str().unwrap()), Err(RecordError::NotFound));
    assert!(conflict_rows(&s).is_empty());
    // Replaying the delete again succeeds without writing anything.
    let again = s.replay_offline(&changes[1..], 3_000).unwrap();
    assert_eq!(again, vec![ReplayOutcome::AlreadyDeleted]);
}

#[test]
fn a_concurrent_edit_is_a_conflict_that_keeps_the_server_copy() {
    let (_t, s) = store();
    let ada = create(&s, "contacts", json!({"name": "Ada"}), 1_000);
    let before = seen(&ada);
    let id = ada["id"].as_str().unwrap();
    // A peer edits within the same millisecond: `updated` is unchanged, the fingerprint is not.
    let peer = s
        .update(&CONTACTS, id, &validate_write(&CONTACTS, &json!({"title": "Peer"}), WriteMode::Update).unwrap(), 1_000)
        .unwrap();
    assert_eq!(peer["updated"], ada["updated"]);
    let out = s
        .replay_offline(&[prepared("contacts", "update", &ada, &before, Some(json!({"title": "Mine"})))], 2_000)
        .unwrap();
    let ReplayOutcome::Conflict { log: Some(log) } = &out[0] else { panic!("{out:?}") };
    assert_eq!((log["collection"].as_str(), log["recordId"].as_str()), (Some("contacts"), Some(id)));
    assert_eq!(log["overwrittenData"]["title"], "Peer");
    assert_eq!(s.get(&CONTACTS, id).unwrap()["title"], "Peer", "the server copy is untouched");
    let delete = s.replay_offline(&[prepared("contacts", "delete", &ada, &before, None)], 3_000).unwrap();
    assert!(matches!(delete[0], ReplayOutcome::Conflict { log: Some(_) }));
    assert!(s.get(&CONTACTS, id).is_ok(), "a stale delete removes nothing");
    assert_eq!(conflict_rows(&s).len(), 2);
}

#[test]
fn an_update_of_a_deleted_record_conflicts_and_failed_writes_leave_nothing() {
    let (_t, s) = store();
    let gone = create(&s, "oncall_board_settings", json!({"key": "primary"}), 1_000);
    let other = create(&s, "oncall_board_settings", json!({"key": "secondary"}), 1_000);
    let spec = collection("oncall_board_settings").unwrap();
    s.delete(spec, gone["id"].as_str().unwrap()).unwrap();
    let revision_before = create(&s, "contacts", json!({"name": "probe"}), 1_500)["revision"].as_i64().unwrap();
    let out = s
        .replay_offline(
            &[
                prepared("oncall_board_settings", "update", &gone, &seen(&gone), Some(json!({"locked": true}))),
                // Taking a unique key another record holds fails inside its savepoint.
                prepared("oncall_board_settings", "update", &other, &seen(&other), Some(json!({"key": "tertiary"}))),
            ],
            2_000,
        )
        .unwrap();
    assert_eq!(out[0], ReplayOutcome::Conflict { log: None });
    assert!(matches!(&out[1], ReplayOutcome::Updated(r) if r["key"] == "tertiary"));
    let third = create(&s, "oncall_board_settings", json!({"key": "primary"}), 2_500);
    let dup = s
        .replay_offline(
            &[prepared("oncall_board_settings", "update", &third, &seen(&third), Some(json!({"key": "tertiary"})))],
            3_000,
        )
        .unwrap();
    assert!(matches!(&dup[0], ReplayOutcome::Failed(RecordError::Validation(f)) if f.contains_key("key")), "{dup:?}");
    let next = create(&s, "contacts", json!({"name": "probe 2"}), 3_500)["revision"].as_i64().unwrap();
    // Revisions drawn: probe, the applied update, `third`, then this probe: no gap from the failure.
    assert_eq!(next, revision_before + 3);
}

fn server(s: &RecordStore, name: &str) -> Value {
    create(s, "servers", json!({"name": name, "os": "Linux"}), 1_000)
}

fn update_op(record: &Value, data: Value) -> PreparedSync {
    PreparedSync::Update {
        record_id: record["id"].as_str().unwrap().into(),
        expected_fingerprint: record_fingerprint(record).unwrap(),
        write: validate_write(&SERVERS, &data, WriteMode::Update).unwrap(),
    }
}

fn servers(s: &RecordStore) -> Vec<String> {
    let raw = RawListParams { sort: Some("name".into()), ..Default::default() };
    let items = s.list(&SERVERS, &ListQuery::parse(&SERVERS, &raw).unwrap()).unwrap().items;
    items.iter().map(|r| format!("{}:{}", r["name"].as_str().unwrap(), r["os"].as_str().unwrap())).collect()
}

#[test]
fn a_sync_batch_lands_whole_when_every_reviewed_record_is_current() {
    let (_t, s) = store();
    let a = server(&s, "a");
    let b = server(&s, "b");
    let ops = [
        PreparedSync::Create {
            write: validate_write(&SERVERS, &json!({"name": "c", "os": "BSD"}), WriteMode::Create).unwrap(),
        },
        update_op(&a, json!({"os": "Windows"})),
        PreparedSync::Delete {
            record_id: b["id"].as_str().unwrap().into(),
            expected_fingerprint: record_fingerprint(&b).unwrap(),
        },
    ];
    let written = s.sync_servers(&ops, 2_000).unwrap();
    let actions: Vec<Action> = written.iter().map(|(a, _)| *a).collect();
    assert_eq!(actions, vec![Action::Create, Action::Update, Action::Delete]);
    assert_eq!(servers(&s), vec!["a:Windows", "c:BSD"]);
}

#[test]
fn a_stale_record_or_a_failing_write_rolls_the_whole_batch_back() {
    let (_t, s) = store();
    let a = server(&s, "a");
    let b = server(&s, "b");
    let stale_b = b.clone();
    s.update(
        &SERVERS,
        b["id"].as_str().unwrap(),
        &validate_write(&SERVERS, &json!({"comment": "peer"}), WriteMode::Update).unwrap(),
        1_000,
    )
    .unwrap();
    let ops = [update_op(&a, json!({"os": "Windows"})), update_op(&stale_b, json!({"os": "AIX"}))];
    assert_eq!(s.sync_servers(&ops, 2_000).unwrap_err(), SyncError::Conflict);
    let deleted = PreparedSync::Delete {
        record_id: "zzzzzzzzzzzzzzz".into(),
        expected_fingerprint: record_fingerprint(&a).unwrap(),
    };
    assert_eq!(
        s.sync_servers(&[update_op(&a, json!({"os": "Windows"})), deleted], 2_000).unwrap_err(),
        SyncError::Conflict
    );
    assert_eq!(servers(&s), vec!["a:Linux", "b:Linux"], "nothing of a refused batch was written");
}
