//! Actor-level tests of realtime delivery, topic matching, slow-subscriber dropping, and the
//! connection limits (per source, authentication deadline on the manual clock, global cap with
//! eviction of unauthenticated streams, queued bytes, duplicate topics). No test sleeps.

use std::net::{IpAddr, Ipv4Addr};

use super::*;
use crate::testkit::TestCtx;
use tokio::sync::mpsc::error::TryRecvError;

fn record(id: &str) -> Arc<Value> {
    Arc::new(serde_json::json!({"id": id, "collectionName": "contacts", "name": "Ada"}))
}

fn publish(collection: &'static str, id: &str) -> Publish {
    Publish { collection, action: Action::Create, record: record(id) }
}

fn ip(last: u8) -> IpAddr {
    IpAddr::V4(Ipv4Addr::new(192, 0, 2, last))
}

fn limits(buffer_frames: usize) -> RealtimeLimits {
    RealtimeLimits { buffer_frames, ..RealtimeLimits::default() }
}

fn text(frame: Frame) -> String {
    String::from_utf8(frame.to_vec()).unwrap()
}

async fn connect_from(rt: &Addr<RealtimeActor>, source: IpAddr) -> Result<(String, FrameReceiver), RecordError> {
    let Connected { client_id: id, mut frames } = rt.send(Connect { source }).await.unwrap()?;
    let hello = text(frames.recv().await.unwrap());
    assert_eq!(hello, format!("id:{id}\nevent:PB_CONNECT\ndata:{{\"clientId\":\"{id}\"}}\n\n"));
    Ok((id, frames))
}

async fn connect(rt: &Addr<RealtimeActor>) -> (String, FrameReceiver) {
    connect_from(rt, ip(1)).await.unwrap()
}

async fn subscribe(rt: &Addr<RealtimeActor>, id: &str, topics: &[&str]) -> Result<(), RecordError> {
    let subscriptions = topics.iter().map(|t| t.to_string()).collect();
    rt.send(SetSubscriptions { client_id: id.to_string(), subscriptions }).await.unwrap()
}

/// Whether `frames` has ended (the actor dropped its side).
fn ended(frames: &mut FrameReceiver) -> bool {
    matches!(frames.try_recv(), Err(TryRecvError::Disconnected))
}

#[actix_rt::test]
async fn delivers_matching_events_only() {
    let rt = RealtimeActor::new(TestCtx::at(0).ctx(), limits(8)).start();
    let (a, mut rx_a) = connect(&rt).await;
    let (b, mut rx_b) = connect(&rt).await;
    subscribe(&rt, &a, &["contacts/*"]).await.unwrap();
    subscribe(&rt, &b, &["servers/*"]).await.unwrap();
    rt.send(publish("contacts", "abcdefghij12345")).await.unwrap();
    let got = text(rx_a.recv().await.unwrap());
    assert!(got.starts_with(&format!("id:{a}\nevent:contacts/*\ndata:{{\"action\":\"create\"")), "{got}");
    assert!(got.contains("\"name\":\"Ada\"") && got.ends_with("}\n\n"), "{got}");
    assert!(rx_b.try_recv().is_err(), "servers subscriber must not get contacts events");
    let unknown = rt.send(SetSubscriptions { client_id: "nope".into(), subscriptions: vec![] }).await.unwrap();
    assert_eq!(unknown, Err(RecordError::NotFound));
    let bad = subscribe(&rt, &a, &["contacts/../x"]).await;
    assert!(matches!(bad, Err(RecordError::BadRequest(_))));
}

#[actix_rt::test]
async fn unknown_topics_are_ignored_and_the_known_ones_still_deliver() {
    let rt = RealtimeActor::new(TestCtx::at(0).ctx(), limits(8)).start();
    let (a, mut rx) = connect(&rt).await;
    subscribe(&rt, &a, &["contacts/*", "nosuch/*"]).await.unwrap();
    rt.send(publish("contacts", "abcdefghij12345")).await.unwrap();
    assert!(text(rx.recv().await.unwrap()).contains("event:contacts/*\n"));
}

#[actix_rt::test]
async fn each_event_body_is_rendered_once_and_shared() {
    let rt = RealtimeActor::new(TestCtx::at(0).ctx(), limits(8)).start();
    let (a, mut rx_a) = connect(&rt).await;
    let (b, mut rx_b) = connect(&rt).await;
    subscribe(&rt, &a, &["contacts/*", "contacts/abcdefghij12345"]).await.unwrap();
    subscribe(&rt, &b, &["contacts/*"]).await.unwrap();
    rt.send(publish("contacts", "abcdefghij12345")).await.unwrap();
    let frames = [rx_a.recv().await.unwrap(), rx_a.recv().await.unwrap(), rx_b.recv().await.unwrap()];
    for f in &frames[1..] {
        assert_eq!(f.body.as_ptr(), frames[0].body.as_ptr(), "one shared buffer, not a copy per frame");
    }
    let events: Vec<String> = frames.iter().map(|f| String::from_utf8(f.head.to_vec()).unwrap()).collect();
    assert!(events[0].contains("event:contacts/*\n") && events[1].contains("event:contacts/abcdefghij12345\n"));
    assert!(events[2].starts_with(&format!("id:{b}\n")));
}

#[actix_rt::test]
async fn slow_subscriber_is_dropped_without_blocking_the_publisher() {
    let rt = RealtimeActor::new(TestCtx::at(0).ctx(), limits(4)).start();
    let (slow, _rx_slow_never_read) = connect(&rt).await;
    let (fast, mut rx_fast) = connect(&rt).await;
    for id in [&slow, &fast] {
        subscribe(&rt, id, &["contacts/*"]).await.unwrap();
    }
    let mut received = 0;
    for _ in 0..20 {
        rt.send(publish("contacts", "abcdefghij12345")).await.unwrap();
        while rx_fast.try_recv().is_ok() {
            received += 1;
        }
    }
    let stats = rt.send(GetStats).await.unwrap();
    assert_eq!(stats, RealtimeStats { clients: 1, dropped_slow: 1 });
    assert_eq!(received, 20, "the healthy subscriber still got every event");
    assert_eq!(subscribe(&rt, &slow, &[]).await, Err(RecordError::NotFound));
}

/// The review's amplification scenario: 100 clients × 100 copies of `alert_history/*`, then one
/// ~49 KB record. Duplicates count once and each subscriber's queue stays under its byte bound.
#[actix_rt::test]
async fn duplicate_topics_and_large_records_stay_within_the_byte_bound() {
    let buffer_bytes = 128 * 1024;
    let limits = RealtimeLimits { buffer_bytes, ..RealtimeLimits::default() };
    let rt = RealtimeActor::new(TestCtx::at(0).ctx(), limits).start();
    let dupes = ["alert_history/*"; MAX_SUBSCRIPTIONS];
    let mut clients = Vec::new();
    for i in 0..100u8 {
        let (id, rx) = connect_from(&rt, ip(i)).await.unwrap();
        subscribe(&rt, &id, &dupes).await.unwrap();
        clients.push(rx);
    }
    let big = Arc::new(serde_json::json!({"id": "abcdefghij12345", "message": "x".repeat(49_000)}));
    let event = || Publish { collection: "alert_history", action: Action::Create, record: big.clone() };
    rt.send(event()).await.unwrap();
    for rx in &clients {
        let queued = rx.queued_bytes();
        assert!((49_000..60_000).contains(&queued), "one frame per client, not one per duplicate: {queued}");
    }
    for _ in 0..4 {
        rt.send(event()).await.unwrap();
    }
    assert_eq!(rt.send(GetStats).await.unwrap(), RealtimeStats { clients: 0, dropped_slow: 100 });
    for rx in &mut clients {
        assert!(rx.queued_bytes() <= buffer_bytes, "{}", rx.queued_bytes());
        assert!(rx.queued_bytes() >= 2 * 49_000, "the bound, not the frame count, dropped them");
        let mut frames = 0;
        while rx.try_recv().is_ok() {
            frames += 1;
        }
        assert_eq!((frames, rx.queued_bytes()), (2, 0));
    }
}

#[actix_rt::test]
async fn closed_connections_are_removed() {
    let rt = RealtimeActor::new(TestCtx::at(0).ctx(), limits(4)).start();
    let (id, rx) = connect(&rt).await;
    subscribe(&rt, &id, &["contacts/*"]).await.unwrap();
    drop(rx);
    rt.send(publish("contacts", "abcdefghij12345")).await.unwrap();
    assert_eq!(rt.send(GetStats).await.unwrap().clients, 0);
    let (_id, rx) = connect(&rt).await;
    drop(rx);
    rt.send(Sweep).await.unwrap();
    assert_eq!(rt.send(GetStats).await.unwrap().clients, 0, "a sweep forgets closed streams without writing");
}

#[actix_rt::test]
async fn each_source_is_capped_and_closed_streams_free_their_slot() {
    let limits = RealtimeLimits { max_per_source: 3, ..RealtimeLimits::default() };
    let rt = RealtimeActor::new(TestCtx::at(0).ctx(), limits).start();
    let mut open = Vec::new();
    for _ in 0..3 {
        open.push(connect_from(&rt, ip(7)).await.unwrap());
    }
    let refused = connect_from(&rt, ip(7)).await.err();
    assert!(matches!(refused, Some(RecordError::RateLimited { .. })), "{refused:?}");
    connect_from(&rt, ip(8)).await.expect("another source is not affected");
    open.pop();
    connect_from(&rt, ip(7)).await.expect("a dropped stream frees its slot at once");
}

#[actix_rt::test]
async fn streams_that_do_not_authenticate_in_time_are_closed() {
    let t = TestCtx::at(0);
    let limits = RealtimeLimits { auth_deadline_ms: 3_000, ..RealtimeLimits::default() };
    let rt = RealtimeActor::new(t.ctx(), limits).start();
    let (_idle, mut idle_rx) = connect(&rt).await;
    let (signed_in, mut signed_in_rx) = connect(&rt).await;
    t.clock.advance_ms(2_000);
    let (_late, mut late_rx) = connect(&rt).await;
    subscribe(&rt, &signed_in, &[]).await.unwrap();
    rt.send(Sweep).await.unwrap();
    assert!(!ended(&mut idle_rx), "still inside the deadline");
    t.clock.advance_ms(1_000);
    rt.send(Sweep).await.unwrap();
    assert!(ended(&mut idle_rx), "closed at the deadline");
    assert!(!ended(&mut signed_in_rx), "an authenticated stream stays, even with no topics");
    assert!(!ended(&mut late_rx), "a later stream has its own deadline");
    assert_eq!(rt.send(GetStats).await.unwrap().clients, 2);
}

#[actix_rt::test]
async fn a_full_server_evicts_unauthenticated_streams_so_signed_in_clients_are_not_starved() {
    let t = TestCtx::at(0);
    let limits = RealtimeLimits { max_clients: 4, max_per_source: 4, ..RealtimeLimits::default() };
    let rt = RealtimeActor::new(t.ctx(), limits).start();
    let (user, mut user_rx) = connect_from(&rt, ip(1)).await.unwrap();
    subscribe(&rt, &user, &["contacts/*"]).await.unwrap();
    let mut flood = Vec::new();
    for _ in 0..3 {
        t.clock.advance_ms(10);
        flood.push(connect_from(&rt, ip(66)).await.unwrap());
    }
    let (newcomer, _newcomer_rx) = connect_from(&rt, ip(2)).await.expect("a new client gets in when full");
    assert!(ended(&mut flood[0].1), "the oldest unauthenticated stream made room");
    assert!(!ended(&mut flood[1].1));
    subscribe(&rt, &newcomer, &["contacts/*"]).await.unwrap();
    let mut late = Vec::new();
    for _ in 0..2 {
        let (id, rx) = connect_from(&rt, ip(3)).await.unwrap();
        subscribe(&rt, &id, &[]).await.unwrap();
        late.push(rx);
    }
    assert!(ended(&mut flood[1].1) && ended(&mut flood[2].1));
    assert_eq!(rt.send(GetStats).await.unwrap().clients, 4);
    rt.send(publish("contacts", "abcdefghij12345")).await.unwrap();
    assert!(text(user_rx.recv().await.unwrap()).contains("event:contacts/*"), "the signed-in client kept its stream");
    let all_authenticated = connect_from(&rt, ip(4)).await.err();
    assert_eq!(all_authenticated, Some(RecordError::Unavailable), "authenticated streams are never evicted");
}

#[actix_rt::test]
async fn close_all_ends_every_stream() {
    let rt = RealtimeActor::new(TestCtx::at(0).ctx(), limits(4)).start();
    let (_a, mut rx_a) = connect(&rt).await;
    let (_b, mut rx_b) = connect(&rt).await;
    rt.send(CloseAll).await.unwrap();
    assert!(rx_a.recv().await.is_none(), "stream ended");
    assert!(rx_b.recv().await.is_none(), "stream ended");
    assert_eq!(rt.send(GetStats).await.unwrap().clients, 0);
}

#[actix_rt::test]
async fn a_record_hidden_by_the_read_rule_is_delivered_as_an_id_only_deletion() {
    let rt = RealtimeActor::new(TestCtx::at(0).ctx(), limits(8)).start();
    let (a, mut rx) = connect(&rt).await;
    subscribe(&rt, &a, &["wiki_documents/*"]).await.unwrap();
    let doc = |state: &str| {
        Arc::new(serde_json::json!({"id": "abcdefghij12345", "collectionName": "wiki_documents",
            "title": "Core router runbook", "lifecycleState": state}))
    };
    rt.send(Publish { collection: "wiki_documents", action: Action::Update, record: doc("active") }).await.unwrap();
    let visible = text(rx.recv().await.unwrap());
    assert!(visible.contains("\"action\":\"update\"") && visible.contains("Core router runbook"), "{visible}");
    rt.send(Publish { collection: "wiki_documents", action: Action::Update, record: doc("trashed") }).await.unwrap();
    let hidden = text(rx.recv().await.unwrap());
    assert!(hidden.contains("\"action\":\"delete\"") && hidden.contains("abcdefghij12345"), "{hidden}");
    assert!(
        !hidden.contains("Core router runbook") && !hidden.contains("trashed"),
        "no field of a hidden record: {hidden}"
    );
}

fn big_event(id: &str, bytes: usize) -> Publish {
    let record = Arc::new(serde_json::json!({"id": id, "message": "x".repeat(bytes)}));
    Publish { collection: "alert_history", action: Action::Create, record }
}

/// Issue #39.4: a stream whose writer took a frame and stalled (the peer stopped reading) still
/// holds that frame; it counts against the subscriber's byte bound, so the stalled subscriber is
/// dropped once it would hold more, while one that asks for each next frame gets every event.
#[actix_rt::test]
async fn a_frame_held_by_a_stalled_writer_counts_against_the_byte_bound() {
    let limits = RealtimeLimits { buffer_bytes: 300_000, ..RealtimeLimits::default() };
    let rt = RealtimeActor::new(TestCtx::at(0).ctx(), limits).start();
    let (stalled_id, mut stalled) = connect_from(&rt, ip(1)).await.unwrap();
    let (healthy_id, mut healthy) = connect_from(&rt, ip(2)).await.unwrap();
    for id in [&stalled_id, &healthy_id] {
        subscribe(&rt, id, &["alert_history/*"]).await.unwrap();
    }
    rt.send(big_event("abcdefghij00001", 200_000)).await.unwrap();
    // The stalled writer takes the first frame and never asks for another.
    let held = stalled.recv().await.unwrap().len();
    assert_eq!(stalled.queued_bytes(), held, "the frame being written stays counted");
    let mut received = 0;
    while healthy.try_recv().is_ok() {
        received += 1;
    }
    for n in 2..=4 {
        rt.send(big_event(&format!("abcdefghij0000{n}"), 200_000)).await.unwrap();
        while healthy.try_recv().is_ok() {
            received += 1;
        }
    }
    assert_eq!(received, 4, "the subscriber that asks for each next frame gets every event");
    assert_eq!(rt.send(GetStats).await.unwrap(), RealtimeStats { clients: 1, dropped_slow: 1 });
    assert!(ended(&mut stalled), "the stalled stream is ended");
}

/// A frame handed to the writer stays counted until the writer asks for the next one, and a
/// receiver that is dropped gives back what it held.
#[actix_rt::test]
async fn a_frame_being_written_stays_counted_until_the_next_is_asked_for() {
    let rt = RealtimeActor::new(TestCtx::at(0).ctx(), limits(8)).start();
    let (id, mut rx) = connect(&rt).await;
    subscribe(&rt, &id, &["alert_history/*"]).await.unwrap();
    assert!(rx.try_recv().is_err());
    assert_eq!(rx.queued_bytes(), 0);
    rt.send(big_event("abcdefghij12345", 50_000)).await.unwrap();
    let frame = rx.recv().await.unwrap();
    assert_eq!(rx.queued_bytes(), frame.len(), "still being written");
    assert!(rx.try_recv().is_err());
    assert_eq!(rx.queued_bytes(), 0);
    rt.send(big_event("abcdefghij12346", 50_000)).await.unwrap();
    rt.send(big_event("abcdefghij12347", 50_000)).await.unwrap();
    let counter = rx.pending.clone();
    assert!(counter.get() > 100_000);
    drop(rx);
    assert_eq!(counter.get(), 0, "a dropped receiver gives back queued and in-flight bytes");
}
