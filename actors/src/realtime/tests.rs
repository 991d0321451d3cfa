//! Actor-level tests of realtime delivery, topic matching and slow-subscriber dropping.

use super::*;
use crate::testkit::TestCtx;

fn record(id: &str) -> Arc<Value> {
    Arc::new(serde_json::json!({"id": id, "collectionName": "contacts", "name": "Ada"}))
}

fn publish(collection: &'static str, id: &str) -> Publish {
    Publish { collection, action: Action::Create, record: record(id) }
}

async fn connect(rt: &Addr<RealtimeActor>, cap: usize) -> (String, mpsc::Receiver<Bytes>) {
    let (tx, mut rx) = mpsc::channel(cap);
    let id = rt.send(Connect { frames: tx }).await.unwrap().unwrap();
    let hello = String::from_utf8(rx.recv().await.unwrap().to_vec()).unwrap();
    assert_eq!(hello, format!("id:{id}\nevent:PB_CONNECT\ndata:{{\"clientId\":\"{id}\"}}\n\n"));
    (id, rx)
}

#[actix_rt::test]
async fn delivers_matching_events_only() {
    let rt = RealtimeActor::new(TestCtx::at(0).ctx()).start();
    let (a, mut rx_a) = connect(&rt, 8).await;
    let (b, mut rx_b) = connect(&rt, 8).await;
    rt.send(SetSubscriptions { client_id: a.clone(), subscriptions: vec!["contacts/*".into()] })
        .await
        .unwrap()
        .unwrap();
    rt.send(SetSubscriptions { client_id: b.clone(), subscriptions: vec!["servers/*".into()] }).await.unwrap().unwrap();
    rt.send(publish("contacts", "abcdefghij12345")).await.unwrap();
    let got = String::from_utf8(rx_a.recv().await.unwrap().to_vec()).unwrap();
    assert!(got.starts_with(&format!("id:{a}\nevent:contacts/*\ndata:{{\"action\":\"create\"")), "{got}");
    assert!(got.contains("\"name\":\"Ada\""));
    assert!(rx_b.try_recv().is_err(), "servers subscriber must not get contacts events");
    let unknown = rt.send(SetSubscriptions { client_id: "nope".into(), subscriptions: vec![] }).await.unwrap();
    assert_eq!(unknown, Err(RecordError::NotFound));
    let bad = rt.send(SetSubscriptions { client_id: a, subscriptions: vec!["users/*".into()] }).await.unwrap();
    assert!(matches!(bad, Err(RecordError::BadRequest(_))));
}

#[actix_rt::test]
async fn slow_subscriber_is_dropped_without_blocking_the_publisher() {
    let rt = RealtimeActor::new(TestCtx::at(0).ctx()).start();
    let (slow, _rx_slow_never_read) = connect(&rt, 4).await;
    let (fast, mut rx_fast) = connect(&rt, 64).await;
    for id in [&slow, &fast] {
        rt.send(SetSubscriptions { client_id: id.clone(), subscriptions: vec!["contacts/*".into()] })
            .await
            .unwrap()
            .unwrap();
    }
    for _ in 0..20 {
        rt.send(publish("contacts", "abcdefghij12345")).await.unwrap();
    }
    let stats = rt.send(GetStats).await.unwrap();
    assert_eq!(stats, RealtimeStats { clients: 1, dropped_slow: 1 });
    let mut received = 0;
    while rx_fast.try_recv().is_ok() {
        received += 1;
    }
    assert_eq!(received, 20, "the healthy subscriber still got every event");
    let gone = rt.send(SetSubscriptions { client_id: slow, subscriptions: vec![] }).await.unwrap();
    assert_eq!(gone, Err(RecordError::NotFound));
}

#[actix_rt::test]
async fn closed_connections_are_removed() {
    let rt = RealtimeActor::new(TestCtx::at(0).ctx()).start();
    let (id, rx) = connect(&rt, 4).await;
    rt.send(SetSubscriptions { client_id: id, subscriptions: vec!["contacts/*".into()] }).await.unwrap().unwrap();
    drop(rx);
    rt.send(publish("contacts", "abcdefghij12345")).await.unwrap();
    assert_eq!(rt.send(GetStats).await.unwrap().clients, 0);
}

#[actix_rt::test]
async fn close_all_ends_every_stream() {
    let rt = RealtimeActor::new(TestCtx::at(0).ctx()).start();
    let (_a, mut rx_a) = connect(&rt, 4).await;
    let (_b, mut rx_b) = connect(&rt, 4).await;
    rt.send(CloseAll).await.unwrap();
    assert!(rx_a.recv().await.is_none(), "stream ended");
    assert!(rx_b.recv().await.is_none(), "stream ended");
    assert_eq!(rt.send(GetStats).await.unwrap().clients, 0);
}
