//! The checked-in OpenAPI description (`docs/openapi.json`) tested against the running server:
//! every documented operation exists on each listener it names and answers with one of its
//! documented status codes, and operations documented for one listener only are absent (404)
//! on the other.

use serde_json::{json, Value};
use support::{client, Relay, PASSPHRASE};

const SPEC: &str = include_str!("../../docs/openapi.json");

struct Surface {
    base: String,
    token: String,
    cookie: Option<String>,
    csrf: Option<String>,
    origin: String,
}

async fn gateway(relay: &Relay) -> Surface {
    let base = relay.web.clone().unwrap().replace("127.0.0.1", "localhost");
    let origin = base.clone();
    let web = support::web_session(&base).await;
    Surface { base, token: web.token, cookie: Some(web.cookie), csrf: Some(web.csrf), origin }
}

fn body_for(path: &str) -> Value {
    match path {
        "/api/collections/users/auth-with-password" => json!({"identity": "relay", "password": PASSPHRASE}),
        "/api/collections/{collection}/records" => json!({"name": "OpenAPI probe"}),
        "/api/collections/{collection}/records/{id}" => json!({"title": "probe"}),
        "/api/realtime" => json!({"clientId": "unknown-client", "subscriptions": []}),
        "/api/relay/presence/heartbeat" => json!({"tabId": "openapi", "hostname": "probe"}),
        "/api/relay/import/{collection}" => json!({"records": [{"name": "x"}]}),
        "/web/api/session" => json!({"passphrase": PASSPHRASE}),
        "/web/api/logs" => json!({"level": "info", "message": "openapi probe"}),
        _ => json!({}),
    }
}

async fn call(s: &Surface, method: &str, path: &str, id: &str) -> u16 {
    let url = format!("{}{}", s.base, path.replace("{collection}", "contacts").replace("{id}", id));
    let http = client();
    let mut req = match method {
        "get" => http.get(&url),
        "post" => http.post(&url).json(&body_for(path)),
        "patch" => http.patch(&url).json(&body_for(path)),
        "delete" => http.delete(&url),
        other => panic!("undocumented method {other}"),
    };
    req = req.header("Authorization", &s.token).header("Origin", &s.origin);
    // Signing in again with the cookie would replace (end) the session the probe relies on.
    if let Some(c) = s.cookie.as_ref().filter(|_| path != "/web/api/session") {
        req = req.header("Cookie", c);
    }
    if let Some(c) = &s.csrf {
        req = req.header("X-Relay-CSRF", c);
    }
    req.send().await.unwrap().status().as_u16()
}

#[tokio::test]
async fn every_documented_operation_exists_and_answers_as_documented() {
    let spec: Value = serde_json::from_str(SPEC).unwrap();
    let relay = Relay::start_web();
    let data = Surface {
        base: relay.base.clone(),
        token: relay.token().await,
        cookie: None,
        csrf: None,
        origin: relay.base.clone(),
    };
    let web = gateway(&relay).await;
    let mut checked = 0;
    // Paths in order, except that refresh goes last: it rotates the probe's cookie and CSRF token.
    let mut paths: Vec<_> = spec["paths"].as_object().unwrap().iter().collect();
    paths.sort_by_key(|(path, _)| *path == "/web/api/session/refresh");
    for (path, ops) in paths {
        for (method, op) in ops.as_object().unwrap() {
            let documented: Vec<u16> =
                op["responses"].as_object().unwrap().keys().map(|k| k.parse().unwrap()).collect();
            let surfaces: Vec<&str> =
                op["x-relay-surfaces"].as_array().unwrap().iter().map(|v| v.as_str().unwrap()).collect();
            if path == "/web/api/session/logout" {
                continue;
            }
            for (name, surface) in [("data-api", &data), ("gateway", &web)] {
                let created: Value = client()
                    .post(format!("{}/api/collections/contacts/records", surface.base))
                    .header("Authorization", &surface.token)
                    .header("Origin", &surface.origin)
                    .header("Cookie", surface.cookie.clone().unwrap_or_default())
                    .header("X-Relay-CSRF", surface.csrf.clone().unwrap_or_default())
                    .json(&json!({"name": "target"}))
                    .send()
                    .await
                    .unwrap()
                    .json()
                    .await
                    .unwrap();
                let id = created["id"]
                    .as_str()
                    .unwrap_or_else(|| panic!("a probe record for {method} {path} on {name} was refused: {created}"))
                    .to_string();
                let status = call(surface, method, path, &id).await;
                if surfaces.contains(&name) {
                    assert!(
                        documented.contains(&status),
                        "{method} {path} on {name} answered {status}, documented {documented:?}"
                    );
                    checked += 1;
                } else {
                    // Absent: 404, or 405 from the static UI service for non-GET methods.
                    assert!(matches!(status, 404 | 405), "{method} {path} must not exist on {name} (got {status})");
                }
            }
        }
    }
    assert!(checked >= 20, "checked {checked}");
}
