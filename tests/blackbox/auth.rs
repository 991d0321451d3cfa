//! Black-box tests of app-user authentication: sign-in with the shared passphrase, PocketBase
//! error bodies, token refresh, and failed-login rate limiting with 429 + Retry-After.

#[path = "../support/mod.rs"]
mod support;

use serde_json::{json, Value};
use support::{client, Relay, PASSPHRASE};

async fn login(relay: &Relay, identity: &str, password: &str) -> reqwest::Response {
    client()
        .post(relay.url("/api/collections/users/auth-with-password"))
        .json(&json!({"identity": identity, "password": password}))
        .send()
        .await
        .unwrap()
}

#[tokio::test]
async fn sign_in_returns_a_jwt_shaped_token_and_record() {
    let relay = Relay::start();
    let res = login(&relay, "relay", PASSPHRASE).await;
    assert_eq!(res.status(), 200);
    let body: Value = res.json().await.unwrap();
    let token = body["token"].as_str().unwrap();
    assert_eq!(token.split('.').count(), 3);
    assert_eq!(body["record"]["collectionName"], "users");
    assert!(body["record"].get("password").is_none());

    let res = client()
        .post(relay.url("/api/collections/users/auth-refresh"))
        .header("Authorization", token)
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200);
    let refreshed: Value = res.json().await.unwrap();
    assert!(refreshed["token"].as_str().is_some());
    let res = client()
        .post(relay.url("/api/collections/users/auth-refresh"))
        .header("Authorization", "nope")
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 401);
}

#[tokio::test]
async fn wrong_credentials_get_a_pocketbase_error() {
    let relay = Relay::start();
    for (identity, password) in [("relay", "wrong-passphrase"), ("admin@relay.app", PASSPHRASE)] {
        let res = login(&relay, identity, password).await;
        assert_eq!(res.status(), 400);
        let body: Value = res.json().await.unwrap();
        assert_eq!(body, json!({"status": 400, "message": "Failed to authenticate.", "data": {}}));
    }
    let res = client()
        .post(relay.url("/api/collections/users/auth-with-password"))
        .header("Content-Type", "application/json")
        .body("{\"identity\": 5}")
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 400);
}

#[tokio::test]
async fn repeated_bad_logins_get_429_with_retry_after() {
    let relay = Relay::start();
    for attempt in 0..5 {
        assert_eq!(login(&relay, "relay", "guess").await.status(), 400, "attempt {attempt}");
    }
    let res = login(&relay, "relay", "guess").await;
    assert_eq!(res.status(), 429);
    let retry: u64 = res.headers()["retry-after"].to_str().unwrap().parse().unwrap();
    assert!((1..=10).contains(&retry), "retry-after {retry}");
    let body: Value = res.json().await.unwrap();
    assert_eq!(body["status"], 429);
    let res = login(&relay, "relay", PASSPHRASE).await;
    assert_eq!(res.status(), 429, "the limit applies before the passphrase is checked");
    let stderr = relay.stderr();
    assert!(stderr.contains("too many failed attempts"), "{stderr}");
    assert!(!stderr.contains("guess"), "attempted passwords are never logged");
}
