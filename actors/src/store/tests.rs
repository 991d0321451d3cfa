//! Store actor tests over a real SQLite file: routing, validation leaving data untouched,
//! realtime publication of committed writes, and upserts. No test proves an absence by sleeping:
//! "nothing was published" is shown by a later write's event arriving next (events go out in
//! commit order), "nothing was merged" by the writer's answers to the merge steps.

use serde_json::json;

use domain::record::RawListParams;
use domain::search_merge::MergePolicy;
use infra::import_body::RawRecords;

use super::*;
use crate::realtime::{Connect, Connected, FrameReceiver, RealtimeActor, SetSubscriptions};
use crate::system::start_server as start;
use crate::testkit::relay_config;

async fn subscribe(rt: &Addr<RealtimeActor>) -> FrameReceiver {
    let source = std::net::Ipv4Addr::LOCALHOST.into();
    let Connected { client_id: id, frames: mut rx } = rt.send(Connect { source }).await.unwrap().unwrap();
    rx.recv().await.unwrap();
    rt.send(SetSubscriptions { client_id: id, subscriptions: vec!["contacts/*".into()] }).await.unwrap().unwrap();
    rx
}

#[actix_rt::test]
async fn writes_validate_persist_and_publish() {
    let tmp = tempfile::tempdir().unwrap();
    let h = start(relay_config(tmp.path())).unwrap();
    let mut rx = subscribe(&h.realtime).await;
    let created = h
        .store
        .send(CreateRecord { collection: "contacts".into(), body: json!({"name": "Ada", "email": "ada@x.io"}) })
        .await
        .unwrap()
        .unwrap();
    let id = created["id"].as_str().unwrap().to_string();
    let frame = String::from_utf8(rx.recv().await.unwrap().to_vec()).unwrap();
    assert!(frame.contains("\"action\":\"create\"") && frame.contains(&id), "{frame}");

    let bad =
        h.store.send(UpdateRecord { collection: "contacts".into(), id: id.clone(), body: json!({"email": "nope"}) });
    assert!(matches!(bad.await.unwrap(), Err(RecordError::Validation(_))));
    let stored = h.store.send(GetRecord { collection: "contacts".into(), id: id.clone() }).await.unwrap().unwrap();
    assert_eq!(stored, created, "a rejected update leaves the record untouched");

    let unknown = h.store.send(ListRecords { collection: "users".into(), params: Default::default() }).await.unwrap();
    assert_eq!(unknown.unwrap_err(), RecordError::UnknownCollection);
    // Events go out in commit order, so anything published for the rejected update would come
    // before the delete's: the next frame being the delete proves nothing was.
    h.store.send(DeleteRecord { collection: "contacts".into(), id: id.clone() }).await.unwrap().unwrap();
    let frame = String::from_utf8(rx.recv().await.unwrap().to_vec()).unwrap();
    assert!(frame.contains("\"action\":\"delete\"") && frame.contains(&id), "nothing for a rejected write: {frame}");
}

#[actix_rt::test]
async fn upsert_by_key_creates_then_updates() {
    let tmp = tempfile::tempdir().unwrap();
    let h = start(relay_config(tmp.path())).unwrap();
    // Seen "now" by the test clock, so the presence actor's pruning sweep leaves the row alone.
    let seen = domain::time::format_ms(1_800_000_000_000);
    let body = |host: &str| json!({"sessionId": "s-1", "hostname": host, "mode": "client", "lastSeen": seen});
    let up = |host: &str| UpsertByKey {
        collection: "client_presence",
        key_field: "sessionId",
        key_value: "s-1".into(),
        body: body(host),
    };
    let a = h.store.send(up("one")).await.unwrap().unwrap();
    let b = h.store.send(up("two")).await.unwrap().unwrap();
    assert_eq!(a["id"], b["id"]);
    assert_eq!(b["hostname"], "two");
    let page = h
        .store
        .send(ListRecords { collection: "client_presence".into(), params: Default::default() })
        .await
        .unwrap()
        .unwrap();
    assert_eq!(page.total_items, 1);
}

#[actix_rt::test]
async fn large_imports_publish_one_reload_event() {
    let tmp = tempfile::tempdir().unwrap();
    let h = start(relay_config(tmp.path())).unwrap();
    let mut rx = subscribe(&h.realtime).await;
    let records: Vec<Value> = (0..MAX_PER_RECORD_IMPORT_EVENTS + 50)
        .map(|i| json!({"name": format!("P{i}"), "email": format!("p{i}@x.io")}))
        .collect();
    let records = RawRecords::from_values(&records);
    let report =
        h.store.send(ImportRecords { collection: "contacts".into(), records, apply: true }).await.unwrap().unwrap();
    assert_eq!((report.applied, report.creates), (true, MAX_PER_RECORD_IMPORT_EVENTS + 50));
    let frame = String::from_utf8(rx.recv().await.unwrap().to_vec()).unwrap();
    assert!(frame.contains("\"action\":\"reload\"") && frame.contains("\"collectionName\":\"contacts\""), "{frame}");

    // In commit order: any further event of the large import would come before this write's.
    let small = RawRecords::from_values(&[json!({"name": "Solo", "email": "solo@x.io"})]);
    h.store.send(ImportRecords { collection: "contacts".into(), records: small, apply: true }).await.unwrap().unwrap();
    let frame = String::from_utf8(rx.recv().await.unwrap().to_vec()).unwrap();
    assert!(
        frame.contains("\"action\":\"create\"") && frame.contains("Solo"),
        "exactly one event for the whole import: {frame}"
    );
}

#[actix_rt::test]
async fn database_size_is_answered_by_the_store_and_grows_with_writes() {
    let tmp = tempfile::tempdir().unwrap();
    let h = start(relay_config(tmp.path())).unwrap();
    let before = h.store.send(DatabaseSize).await.unwrap().unwrap();
    assert!(before.pages_bytes > 0, "{before:?}");
    for i in 0..50 {
        let body = json!({"name": format!("Contact {i}"), "title": "x".repeat(900)});
        h.store.send(CreateRecord { collection: "contacts".into(), body }).await.unwrap().unwrap();
    }
    let after = h.store.send(DatabaseSize).await.unwrap().unwrap();
    assert!(after.total_bytes() > before.total_bytes(), "{before:?} -> {after:?}");
}

#[actix_rt::test]
async fn concurrent_writes_are_grouped_but_answered_and_published_one_by_one() {
    let tmp = tempfile::tempdir().unwrap();
    let h = start(relay_config(tmp.path())).unwrap();
    let mut rx = subscribe(&h.realtime).await;
    // Sent together, so all but the first wait while the writer works and go in groups.
    let sends: Vec<_> = (0..3 * MAX_GROUP)
        .map(|i| {
            let body = match i % 10 {
                3 => json!({"name": format!("P{i}"), "email": "not an email"}),
                7 => json!({"id": "samesamesame123", "name": format!("P{i}")}),
                _ => json!({"name": format!("P{i}")}),
            };
            let collection = if i % 10 == 9 { "client_presence" } else { "contacts" };
            h.store.send(CreateRecord { collection: collection.into(), body })
        })
        .collect();
    let mut created = Vec::new();
    for (i, send) in sends.into_iter().enumerate() {
        match (i % 10, send.await.unwrap()) {
            (3, Err(RecordError::Validation(errors))) => assert!(errors.contains_key("email")),
            (7, Ok(record)) if i == 7 => created.push(record),
            (7, Err(RecordError::Validation(errors))) => assert!(errors.contains_key("id"), "{errors:?}"),
            (9, Err(RecordError::Forbidden)) => {}
            (0..=8, Ok(record)) => {
                assert_eq!(record["name"], format!("P{i}"), "each write gets its own record");
                created.push(record);
            }
            (_, other) => panic!("write {i}: {other:?}"),
        }
    }
    let mut published = Vec::new();
    for _ in 0..created.len() {
        let frame = String::from_utf8(rx.recv().await.unwrap().to_vec()).unwrap();
        let data = frame.lines().find_map(|line| line.strip_prefix("data:")).expect("an SSE data line");
        let event: Value = serde_json::from_str(data.trim()).unwrap();
        published.push(event["record"]["revision"].as_i64().unwrap());
    }
    let page = h
        .store
        .send(ListRecords {
            collection: "contacts".into(),
            params: RawListParams { per_page: Some("500".into()), ..Default::default() },
        })
        .await
        .unwrap()
        .unwrap();
    assert_eq!(page.total_items as usize, created.len(), "exactly the accepted writes are stored");
    let mut stored: Vec<i64> = created.iter().map(|r| r["revision"].as_i64().unwrap()).collect();
    stored.sort();
    assert!(stored.windows(2).all(|w| w[1] == w[0] + 1), "refused writes leave no revision gaps: {stored:?}");
    assert_eq!(published, stored, "one event per accepted write, in commit order");
    // A later write's event is the next one: anything for a refused write would have come first.
    let after = CreateRecord { collection: "contacts".into(), body: json!({"name": "After"}) };
    let after = h.store.send(after).await.unwrap().unwrap();
    let frame = String::from_utf8(rx.recv().await.unwrap().to_vec()).unwrap();
    assert!(frame.contains(after["id"].as_str().unwrap()), "and none for a refused one: {frame}");
}

/// Segments of the contacts search index, read through a second pool on the same file.
fn contact_segments(store: &infra::store::RecordStore) -> u32 {
    let index = domain::search::index_for(&domain::collections::CONTACTS, "name").unwrap();
    store.search_segments(index).unwrap()
}

/// Polls (bounded: 500 looks, 20 ms apart) until the contacts index holds `want` segments.
async fn wait_for_segments(store: &infra::store::RecordStore, want: u32) -> u32 {
    let mut seen = contact_segments(store);
    for _ in 0..500 {
        if seen == want {
            break;
        }
        actix_rt::time::sleep(std::time::Duration::from_millis(20)).await;
        seen = contact_segments(store);
    }
    seen
}

#[actix_rt::test]
async fn the_search_index_is_merged_when_writes_are_quiet_and_a_trickle_waits_for_the_interval() {
    let tmp = tempfile::tempdir().unwrap();
    let mut config = relay_config(tmp.path());
    config.search_merge = MergePolicy {
        tick: std::time::Duration::from_millis(20),
        quiet_ticks: 2,
        interval_ticks: 1_000_000,
        fragmented_segments: 4,
        max_steps_per_round: 10_000,
    };
    let h = start(config).unwrap();
    let (pool, _) = infra::db::open(&tmp.path().join("relay.db"), 1).unwrap();
    let look = infra::store::RecordStore::new(pool);
    let create =
        |i: usize| CreateRecord { collection: "contacts".into(), body: json!({"name": format!("Person {i}")}) };
    let person_1 = || ListRecords {
        collection: "contacts".into(),
        params: RawListParams { filter: Some("name ~ 'Person 1'".into()), ..Default::default() },
    };
    // One write at a time: each its own transaction, so the index fragments.
    for i in 0..200 {
        h.store.send(create(i)).await.unwrap().unwrap();
    }
    let before = h.store.send(person_1()).await.unwrap().unwrap();
    assert_eq!(wait_for_segments(&look, 1).await, 1, "merged into one segment once writes were quiet");
    let after = h.store.send(person_1()).await.unwrap().unwrap();
    assert_eq!((after.total_items, after.items), (before.total_items, before.items), "the same answer");

    // A single write after the round: two segments, below the fragmented mark, and the interval
    // (a million ticks) has not passed, so they stay.
    h.store.send(create(200)).await.unwrap().unwrap();
    assert_eq!(contact_segments(&look), 2);
    // Two answered steps after the write: at least one was decided on the index as it is now.
    let before = h.store.send(search_merge::GetMergeAnswers).await.unwrap();
    let mut now = before;
    for _ in 0..500 {
        if now.merged + now.not_yet + now.clean >= before.merged + before.not_yet + before.clean + 2 {
            break;
        }
        actix_rt::time::sleep(std::time::Duration::from_millis(20)).await;
        now = h.store.send(search_merge::GetMergeAnswers).await.unwrap();
    }
    assert!(now.not_yet >= before.not_yet + 2, "the policy was asked and said not yet: {before:?} -> {now:?}");
    assert_eq!(now.merged, before.merged, "nothing merged: {before:?} -> {now:?}");
    assert_eq!(contact_segments(&look), 2, "a trickle of writes waits for the interval");

    // A burst fragments the index past the mark: merged at the next quiet moment regardless.
    for i in 201..260 {
        h.store.send(create(i)).await.unwrap().unwrap();
    }
    assert_eq!(wait_for_segments(&look, 1).await, 1, "a fragmented index is merged without waiting");
    let last = h.store.send(person_1()).await.unwrap().unwrap();
    assert_eq!(last.total_items, 111, "Person 1, 10-19, 100-199");
}

#[actix_rt::test]
async fn the_checkpointer_copies_the_wal_into_the_database_file() {
    let tmp = tempfile::tempdir().unwrap();
    let h = start(relay_config(tmp.path())).unwrap();
    let path = tmp.path().join("relay.db");
    let file_len = || std::fs::metadata(&path).unwrap().len();
    // Let the start-up writes settle into the file first.
    let mut settled = file_len();
    for _ in 0..50 {
        actix_rt::time::sleep(CHECKPOINT_TICK * 2).await;
        if file_len() == settled {
            break;
        }
        settled = file_len();
    }
    // About 1,000 pages of notes: below the connections' own checkpoint backstop, so only the
    // checkpointer moves them into the file.
    let note: String = (0..6_000).map(|i| char::from(b'a' + (i * 7 % 26) as u8)).collect();
    for i in 0..400 {
        let body = json!({"title": format!("Note {i}"), "content": note});
        h.store.send(CreateRecord { collection: "standalone_notes".into(), body }).await.unwrap().unwrap();
    }
    let mut grown = file_len();
    for _ in 0..200 {
        if grown > settled + 2_000_000 {
            break;
        }
        actix_rt::time::sleep(CHECKPOINT_TICK).await;
        grown = file_len();
    }
    assert!(grown > settled + 2_000_000, "the database file took the WAL's pages: {settled} -> {grown}");
}
