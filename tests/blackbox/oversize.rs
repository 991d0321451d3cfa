//! Black-box tests of the one error path for oversized bodies: every route that takes a body,
//! on the data API and on the Relay Web gateway, answers a body over its limit with 413 and the
//! JSON error body (`{status: 413, message, data}`), never actix's plain-text refusal.

use serde_json::{json, Value};
use support::{client, Relay};

const KIB: usize = 1024;

/// A JSON object body of at least `bytes` bytes.
fn json_of(bytes: usize) -> Vec<u8> {
    format!("{{\"x\":\"{}\"}}", "a".repeat(bytes)).into_bytes()
}

/// Sends `body` and asserts the 413 problem answer.
async fn assert_too_large(req: reqwest::RequestBuilder, what: &str, body: Vec<u8>) {
    let res = req.header("Content-Type", "application/json").body(body).send().await.unwrap();
    assert_eq!(res.status(), 413, "{what}");
    let ct = res.headers().get("content-type").and_then(|v| v.to_str().ok()).unwrap_or("").to_string();
    assert!(ct.starts_with("application/json"), "{what}: content-type {ct}");
    assert!(res.headers().get("retry-after").is_none(), "{what}");
    let body: Value = res.json().await.unwrap();
    assert_eq!(body["status"], 413, "{what}: {body}");
    assert_eq!(body["message"], "Request entity too large.", "{what}: {body}");
    assert!(body["data"].is_object(), "{what}: {body}");
}

#[tokio::test]
async fn every_data_api_route_answers_an_oversized_body_with_the_json_problem() {
    let relay = Relay::start();
    let token = relay.token().await;
    let routes: &[(&str, &str, usize)] = &[
        ("POST", "/api/collections/users/auth-with-password", 512 * KIB),
        ("POST", "/api/collections/contacts/records", 1024 * KIB),
        ("PATCH", "/api/collections/contacts/records/abc", 1024 * KIB),
        ("POST", "/api/realtime", 512 * KIB),
        ("POST", "/api/relay/presence/heartbeat", 512 * KIB),
        ("POST", "/api/relay/import/contacts", 32 * KIB * KIB),
        ("POST", "/api/relay/privileged/pair", 512 * KIB),
        ("POST", "/api/relay/privileged/reauth", 4 * KIB),
        ("POST", "/api/relay/privileged/execute", 16 * KIB),
        ("POST", "/api/relay/images/alert-body", 5 * KIB * KIB),
        ("POST", "/api/relay/spreadsheet/rows", 25 * KIB * KIB),
    ];
    for &(method, path, limit) in routes {
        let req = client()
            .request(method.parse().unwrap(), relay.url(path))
            .timeout(std::time::Duration::from_secs(60))
            .header("Authorization", &token);
        assert_too_large(req, &format!("{method} {path}"), json_of(limit + 1)).await;
    }
    // Still served afterwards.
    assert_eq!(relay.create(&token, "contacts", &json!({"name": "after"})).await["name"], "after");
}

#[tokio::test]
async fn every_gateway_route_answers_an_oversized_body_with_the_json_problem() {
    let relay = Relay::start_web();
    let base = relay.web.clone().unwrap().replace("127.0.0.1", "localhost");
    let origin = base.clone();
    let http = client();
    let post = |path: &str| {
        http.post(format!("{base}{path}")).header("Origin", &origin).timeout(std::time::Duration::from_secs(60))
    };

    assert_too_large(post("/web/api/session"), "sign-in", json_of(512 * KIB + 1)).await;

    let support::WebSession { cookie, csrf, token } = support::web_session(&base).await;
    let routes: &[(&str, usize)] = &[
        ("/web/api/logs", 16 * KIB),
        ("/api/collections/contacts/records", 1024 * KIB),
        ("/api/realtime", 512 * KIB),
        ("/api/relay/presence/heartbeat", 512 * KIB),
        ("/api/relay/import/contacts", 32 * KIB * KIB),
        ("/api/relay/images/alert-body", 5 * KIB * KIB),
        ("/api/relay/spreadsheet/rows", 25 * KIB * KIB),
    ];
    for &(path, limit) in routes {
        let req = post(path).header("Cookie", &cookie).header("X-Relay-CSRF", &csrf).header("Authorization", &token);
        assert_too_large(req, path, json_of(limit + 1)).await;
    }
}
