//! Tests of alert threads in the store: server-assigned numbering in the write transaction,
//! concurrent sends to one thread, refused unknown threads, immutable thread fields, and rows
//! written before the migration reading (and continuing) as single-send threads.

use diesel::connection::SimpleConnection;
use diesel::migration::MigrationSource;
use diesel::sqlite::Sqlite;
use diesel_migrations::MigrationHarness;
use domain::alert_threads::UNKNOWN_THREAD_CODE;
use domain::collections::ALERT_HISTORY;
use domain::record::RecordError;
use domain::validation::{validate_write, WriteMode};
use serde_json::{json, Value};

use crate::store::tests::store;
use crate::store::RecordStore;

fn send(s: &RecordStore, body: Value) -> Result<Value, RecordError> {
    s.create(&ALERT_HISTORY, &validate_write(&ALERT_HISTORY, &body, WriteMode::Create)?, 1_000)
}

fn number(record: &Value) -> i64 {
    record["updateNumber"].as_i64().unwrap()
}

#[test]
fn the_server_numbers_a_threads_sends_and_ignores_client_numbers() {
    let (_tmp, s) = store();
    let first = send(&s, json!({"subject": "VPN down", "updateNumber": 5, "threadId": ""})).unwrap();
    let thread = first["id"].as_str().unwrap().to_string();
    assert_eq!(first["threadId"], thread.as_str(), "a first send is its own thread");
    assert_eq!(number(&first), 0);
    let update = send(&s, json!({"subject": "VPN down", "threadId": thread, "updateNumber": 0})).unwrap();
    let again = send(
        &s,
        json!({"subject": "VPN up", "threadId": thread, "eventStart": "2026-12-07 15:00:00.000Z",
               "timeZone": "America/Chicago", "sender": "NOC"}),
    )
    .unwrap();
    assert_eq!((number(&update), number(&again)), (1, 2));
    assert_eq!(again["threadId"], thread.as_str());
    assert_eq!(again["eventStart"], "2026-12-07 15:00:00.000Z");
    assert_eq!(again["timeZone"], "America/Chicago");
    assert_eq!(again["sender"], "NOC");
}

#[test]
fn concurrent_sends_to_one_thread_get_distinct_consecutive_numbers() {
    let tmp = tempfile::tempdir().unwrap();
    let (pool, _) = crate::db::open(&tmp.path().join("relay.db"), 4).unwrap();
    let s = RecordStore::new(pool);
    let thread = send(&s, json!({"subject": "Outage"})).unwrap()["id"].as_str().unwrap().to_string();
    let clients: Vec<_> = (0..4)
        .map(|_| {
            let (s, thread) = (s.clone(), thread.clone());
            std::thread::spawn(move || -> Vec<i64> {
                (0..5).map(|_| number(&send(&s, json!({"subject": "Outage", "threadId": thread})).unwrap())).collect()
            })
        })
        .collect();
    let mut numbers: Vec<i64> = clients.into_iter().flat_map(|c| c.join().unwrap()).collect();
    numbers.sort_unstable();
    assert_eq!(numbers, (1..=20).collect::<Vec<i64>>());
}

#[test]
fn an_unknown_thread_is_refused_with_a_typed_validation_error_and_nothing_is_stored() {
    let (_tmp, s) = store();
    let refused = send(&s, json!({"subject": "x", "threadId": "nosuchthread000"})).unwrap_err();
    match refused {
        RecordError::Validation(fields) => assert_eq!(fields["threadId"].code, UNKNOWN_THREAD_CODE),
        other => panic!("{other:?}"),
    }
    let q = domain::record::ListQuery::parse(&ALERT_HISTORY, &Default::default()).unwrap();
    assert_eq!(s.list(&ALERT_HISTORY, &q).unwrap().total_items, 0);
}

#[test]
fn an_update_never_moves_a_send_to_another_thread_or_number() {
    let (_tmp, s) = store();
    let first = send(&s, json!({"subject": "a"})).unwrap();
    let other = send(&s, json!({"subject": "b"})).unwrap();
    let id = first["id"].as_str().unwrap();
    let patch = json!({"pinned": true, "label": "Template", "threadId": other["id"], "updateNumber": 9});
    let patched = s
        .update(&ALERT_HISTORY, id, &validate_write(&ALERT_HISTORY, &patch, WriteMode::Update).unwrap(), 2_000)
        .unwrap();
    assert_eq!((patched["threadId"].as_str(), number(&patched)), (Some(id), 0));
    assert_eq!(patched["pinned"], true);
}

#[test]
fn rows_from_before_the_migration_read_and_continue_as_single_send_threads() {
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join("relay.db");
    let (pool, _) = crate::db::open(&path, 2).unwrap();
    {
        // Back to the schema before threads, with a row in it, then forward again as an upgrade.
        let mut conn = pool.get().unwrap();
        let threads = MigrationSource::<Sqlite>::migrations(&crate::db::MIGRATIONS)
            .unwrap()
            .into_iter()
            .find(|m| m.name().to_string().ends_with("_alert_threads"))
            .unwrap();
        conn.revert_migration(&threads).unwrap();
        conn.batch_execute(
            "INSERT INTO alert_history (id, created, updated, revision, severity, subject, bodyHtml, sender, \
             recipient, pinned, label) VALUES ('old000000000001', '2026-01-01 00:00:00.000Z', \
             '2026-01-01 00:00:00.000Z', 1, 'ISSUE', 'Old alert', '', 'IT', '', 0, '')",
        )
        .unwrap();
        conn.run_pending_migrations(crate::db::MIGRATIONS).unwrap();
    }
    let s = RecordStore::new(pool);
    let old = s.get(&ALERT_HISTORY, "old000000000001").unwrap();
    assert_eq!((old["threadId"].as_str(), number(&old), old["subject"].as_str()), (Some(""), 0, Some("Old alert")));
    assert_eq!(domain::alert_threads::thread_of(&old), Some("old000000000001"));
    let update = send(&s, json!({"subject": "Old alert", "threadId": "old000000000001"})).unwrap();
    assert_eq!((update["threadId"].as_str(), number(&update)), (Some("old000000000001"), 1));
    let next = send(&s, json!({"subject": "Old alert", "threadId": "old000000000001"})).unwrap();
    assert_eq!(number(&next), 2);
}

#[test]
fn an_import_keeps_exported_threads_on_new_ids_in_their_order() {
    let (_tmp, s) = store();
    // As exported: newest first, ids from another server, one thread of three and a legacy row.
    let exported = [
        json!({"id": "srcb00000000003", "subject": "VPN up", "threadId": "srca00000000001", "updateNumber": 2}),
        json!({"id": "srcb00000000002", "subject": "VPN still down", "threadId": "srca00000000001", "updateNumber": 1}),
        json!({"id": "srca00000000001", "subject": "VPN down", "threadId": "srca00000000001", "updateNumber": 0}),
        json!({"id": "legacy000000001", "subject": "Old notice"}),
    ];
    let plan = domain::import::plan_import("alert_history", &exported).unwrap();
    let outcome = s.import(&plan, true, 5_000).unwrap();
    assert_eq!(outcome.creates, 4);
    let by_subject = |subject: &str| {
        let (_, record) = outcome.written.iter().find(|(_, r)| r["subject"] == subject).unwrap();
        record.clone()
    };
    let first = by_subject("VPN down");
    let thread = first["id"].as_str().unwrap();
    assert_eq!((first["threadId"].as_str(), number(&first)), (Some(thread), 0));
    for (subject, expected) in [("VPN still down", 1), ("VPN up", 2)] {
        let send = by_subject(subject);
        assert_eq!((send["threadId"].as_str(), number(&send)), (Some(thread), expected), "{subject}");
    }
    let legacy = by_subject("Old notice");
    assert_eq!((legacy["threadId"].as_str(), number(&legacy)), (legacy["id"].as_str(), 0));
}
