//! Black-box realtime tests over raw HTTP: the PocketBase SSE handshake (`PB_CONNECT`), that
//! subscriptions need a token and valid topics, and that create/update/delete events reach a
//! subscriber while other collections' events do not.

#[path = "../support/mod.rs"]
mod support;

use std::time::Duration;

use futures_util::StreamExt;
use serde_json::{json, Value};
use support::{client, sample, Relay};

struct SseReader {
    stream: futures_util::stream::BoxStream<'static, reqwest::Result<bytes::Bytes>>,
    buffer: String,
}

/// One parsed SSE event.
#[derive(Debug)]
struct Event {
    id: String,
    name: String,
    data: Value,
}

impl SseReader {
    async fn open(relay: &Relay) -> SseReader {
        let res = reqwest::Client::new().get(relay.url("/api/realtime")).send().await.unwrap();
        assert_eq!(res.status(), 200);
        assert!(res.headers()["content-type"].to_str().unwrap().starts_with("text/event-stream"));
        SseReader { stream: res.bytes_stream().boxed(), buffer: String::new() }
    }

    /// Next event (skipping comments), or None after `timeout`.
    async fn next(&mut self, timeout: Duration) -> Option<Event> {
        let deadline = tokio::time::Instant::now() + timeout;
        loop {
            while let Some(end) = self.buffer.find("\n\n") {
                let block: String = self.buffer.drain(..end + 2).collect();
                let (mut id, mut name, mut data) = (String::new(), String::new(), String::new());
                for line in block.lines() {
                    if let Some(v) = line.strip_prefix("id:") {
                        id = v.to_string();
                    } else if let Some(v) = line.strip_prefix("event:") {
                        name = v.to_string();
                    } else if let Some(v) = line.strip_prefix("data:") {
                        data = v.to_string();
                    }
                }
                if !name.is_empty() {
                    return Some(Event { id, name, data: serde_json::from_str(&data).unwrap() });
                }
            }
            let chunk = tokio::time::timeout_at(deadline, self.stream.next()).await.ok()??.ok()?;
            self.buffer.push_str(&String::from_utf8_lossy(&chunk));
        }
    }
}

async fn subscribe(relay: &Relay, token: Option<&str>, client_id: &str, topics: &[&str]) -> reqwest::StatusCode {
    let mut req =
        client().post(relay.url("/api/realtime")).json(&json!({"clientId": client_id, "subscriptions": topics}));
    if let Some(t) = token {
        req = req.header("Authorization", t);
    }
    req.send().await.unwrap().status()
}

#[tokio::test]
async fn subscribers_receive_record_events() {
    let relay = Relay::start();
    let token = relay.token().await;
    let mut sse = SseReader::open(&relay).await;
    let hello = sse.next(Duration::from_secs(5)).await.expect("PB_CONNECT");
    assert_eq!(hello.name, "PB_CONNECT");
    let client_id = hello.data["clientId"].as_str().unwrap().to_string();
    assert_eq!(hello.id, client_id);

    assert_eq!(subscribe(&relay, None, &client_id, &["contacts/*"]).await, 401);
    assert_eq!(subscribe(&relay, Some(&token), &client_id, &["users/*"]).await, 400);
    assert_eq!(subscribe(&relay, Some(&token), "unknown-client", &["contacts/*"]).await, 404);
    assert_eq!(subscribe(&relay, Some(&token), &client_id, &["contacts/*"]).await, 204);

    let http = client();
    relay.create(&token, "servers", &sample("servers")).await;
    let base = relay.url("/api/collections/contacts/records");
    let created = relay.create(&token, "contacts", &sample("contacts")).await;
    let id = created["id"].as_str().unwrap();
    let event = sse.next(Duration::from_secs(5)).await.expect("create event");
    assert_eq!(event.name, "contacts/*", "servers events are not delivered to a contacts subscriber");
    assert_eq!(event.data["action"], "create");
    assert_eq!(event.data["record"], created);

    http.patch(format!("{base}/{id}"))
        .header("Authorization", &token)
        .json(&json!({"title": "Lead"}))
        .send()
        .await
        .unwrap();
    let event = sse.next(Duration::from_secs(5)).await.expect("update event");
    assert_eq!((event.data["action"].as_str(), event.data["record"]["title"].as_str()), (Some("update"), Some("Lead")));

    http.delete(format!("{base}/{id}")).header("Authorization", &token).send().await.unwrap();
    let event = sse.next(Duration::from_secs(5)).await.expect("delete event");
    assert_eq!((event.data["action"].as_str(), event.data["record"]["id"].as_str()), (Some("delete"), Some(id)));
}

#[tokio::test]
async fn unauthenticated_streams_receive_no_data() {
    let relay = Relay::start();
    let token = relay.token().await;
    let mut sse = SseReader::open(&relay).await;
    let hello = sse.next(Duration::from_secs(5)).await.expect("PB_CONNECT");
    assert_eq!(hello.name, "PB_CONNECT");
    client()
        .post(relay.url("/api/collections/contacts/records"))
        .header("Authorization", &token)
        .json(&sample("contacts"))
        .send()
        .await
        .unwrap();
    assert!(sse.next(Duration::from_millis(700)).await.is_none(), "no subscription, no events");
}

#[tokio::test]
async fn record_topic_receives_only_that_record() {
    let relay = Relay::start();
    let token = relay.token().await;
    let http = client();
    let base = relay.url("/api/collections/contacts/records");
    let a = relay.create(&token, "contacts", &json!({"name": "A"})).await;
    let b = relay.create(&token, "contacts", &json!({"name": "B"})).await;
    let mut sse = SseReader::open(&relay).await;
    let hello = sse.next(Duration::from_secs(5)).await.unwrap();
    let topic = format!("contacts/{}", b["id"].as_str().unwrap());
    assert_eq!(subscribe(&relay, Some(&token), hello.data["clientId"].as_str().unwrap(), &[&topic]).await, 204);
    for rec in [&a, &b] {
        http.patch(format!("{base}/{}", rec["id"].as_str().unwrap()))
            .header("Authorization", &token)
            .json(&json!({"title": "x"}))
            .send()
            .await
            .unwrap();
    }
    let event = sse.next(Duration::from_secs(5)).await.unwrap();
    assert_eq!(event.name, topic);
    assert_eq!(event.data["record"]["id"], b["id"]);
    assert!(sse.next(Duration::from_millis(500)).await.is_none());
}
