//! Black-box tests of alert threads (issue #38 item 7b) against the real `relay` binary: two
//! signed-in clients continue one alert's thread and get UPDATE #1 and #2 from the server (the
//! numbers a client sends are ignored), sends racing into one thread get distinct numbers, the
//! thread and its event times read back through the record API, and an unknown thread is
//! refused as a validation error on `threadId`.

use serde_json::{json, Value};
use support::{client, Relay};

async fn send(relay: &Relay, token: &str, body: Value) -> reqwest::Response {
    client()
        .post(relay.url("/api/collections/alert_history/records"))
        .header("Authorization", token)
        .json(&body)
        .send()
        .await
        .unwrap()
}

async fn sent(relay: &Relay, token: &str, body: Value) -> Value {
    let res = send(relay, token, body).await;
    assert_eq!(res.status(), 200, "send");
    res.json().await.unwrap()
}

#[tokio::test]
async fn two_clients_continue_one_thread_with_server_numbers() {
    let relay = Relay::start();
    let (first_client, second_client) = (relay.token().await, relay.token().await);
    let first = sent(
        &relay,
        &first_client,
        json!({"severity": "ISSUE", "subject": "VPN down", "sender": "NOC", "eventStart": "2026-12-07T15:00:00Z",
               "timeZone": "America/Chicago"}),
    )
    .await;
    let thread = first["id"].as_str().unwrap().to_string();
    assert_eq!((first["threadId"].as_str(), first["updateNumber"].as_i64()), (Some(thread.as_str()), Some(0)));

    // The second client finds the thread's last send through the record API and continues it,
    // claiming a number of its own that the server ignores.
    let filter = format!("threadId = '{thread}'");
    let listed = relay
        .get_json(
            &second_client,
            &format!("/api/collections/alert_history/records?sort=-updateNumber&filter={}", urlencode(&filter)),
        )
        .await;
    assert_eq!(listed["items"][0]["eventStart"], "2026-12-07 15:00:00.000Z");
    let update = sent(
        &relay,
        &second_client,
        json!({"severity": "ISSUE", "subject": "VPN down", "sender": "Service Desk", "threadId": thread, "updateNumber": 7}),
    )
    .await;
    assert_eq!((update["threadId"].as_str(), update["updateNumber"].as_i64()), (Some(thread.as_str()), Some(1)));
    assert_eq!(update["sender"], "Service Desk");

    let next =
        sent(&relay, &first_client, json!({"severity": "RESOLVED", "subject": "VPN up", "threadId": thread})).await;
    assert_eq!(next["updateNumber"], 2);

    // Two sends racing into the thread: distinct, consecutive numbers.
    let (a, b) = tokio::join!(
        sent(&relay, &first_client, json!({"subject": "race", "threadId": thread})),
        sent(&relay, &second_client, json!({"subject": "race", "threadId": thread})),
    );
    let mut raced = [a["updateNumber"].as_i64().unwrap(), b["updateNumber"].as_i64().unwrap()];
    raced.sort_unstable();
    assert_eq!(raced, [3, 4]);

    let listed = relay
        .get_json(&first_client, &format!("/api/collections/alert_history/records?filter={}", urlencode(&filter)))
        .await;
    assert_eq!(listed["totalItems"], 5, "one thread, one row per send");
}

#[tokio::test]
async fn an_unknown_thread_is_refused_on_thread_id() {
    let relay = Relay::start();
    let token = relay.token().await;
    let res = send(&relay, &token, json!({"subject": "x", "threadId": "nosuchthread000"})).await;
    assert_eq!(res.status(), 400);
    let body: Value = res.json().await.unwrap();
    assert_eq!(body["data"]["threadId"]["code"], "validation_unknown_alert_thread", "{body}");
    let listed = relay.get_json(&token, "/api/collections/alert_history/records").await;
    assert_eq!(listed["totalItems"], 0);
}

fn urlencode(s: &str) -> String {
    s.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' => (b as char).to_string(),
            _ => format!("%{b:02X}"),
        })
        .collect()
}
