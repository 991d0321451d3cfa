//! HTTP clients and sign-ins as the server's callers do them: a bounded client (optionally from
//! another loopback source address), the data API's password sign-in, and a Relay Web browser
//! session (cookie, CSRF token, then the renderer's app token). Black-box tests use the
//! panicking forms; benches and the soak count refusals with [`web_sign_in`].

use std::time::Duration;

use serde_json::{json, Value};

use crate::relay::PASSPHRASE;

/// A client whose every request gives up after 10 s.
pub fn client() -> reqwest::Client {
    reqwest::Client::builder().timeout(Duration::from_secs(10)).build().unwrap()
}

/// A client whose connections come from `127.0.0.<host>` (every loopback address reaches a
/// server bound to 127.0.0.1 or 0.0.0.0), so tests can play many sources on this machine.
pub fn client_from(host: u8) -> reqwest::Client {
    let source = std::net::IpAddr::from([127, 0, 0, host]);
    reqwest::Client::builder().timeout(Duration::from_secs(10)).local_address(source).build().unwrap()
}

/// A signed-in Relay Web browser session: the cookie pair, the CSRF token and the app token the
/// gateway hands to the renderer.
#[derive(Clone)]
pub struct WebSession {
    pub cookie: String,
    pub csrf: String,
    pub token: String,
}

/// Signs in to the Relay Web gateway at `base` (sent with `Origin: base`) and asks for the
/// renderer's app-user connection.
pub async fn web_session(base: &str) -> WebSession {
    let res = client()
        .post(format!("{base}/web/api/session"))
        .header("Origin", base)
        .json(&json!({"passphrase": PASSPHRASE}))
        .send()
        .await
        .expect("web sign-in");
    assert_eq!(res.status(), 200, "web sign-in");
    let cookie = res.headers()["set-cookie"].to_str().unwrap().split(';').next().unwrap().to_string();
    let csrf = res.json::<Value>().await.unwrap()["csrfToken"].as_str().unwrap().to_string();
    let conn: Value = client()
        .post(format!("{base}/web/api/connection"))
        .header("Origin", base)
        .header("Cookie", &cookie)
        .header("X-Relay-CSRF", &csrf)
        .send()
        .await
        .expect("web connection")
        .json()
        .await
        .unwrap();
    let token = conn["token"].as_str().expect("app token").to_string();
    WebSession { cookie, csrf, token }
}

/// Signs in on the data API (`auth-with-password` as `relay`) and returns the app token.
pub async fn api_token(http: &reqwest::Client, base: &str) -> String {
    let res = http
        .post(format!("{base}/api/collections/users/auth-with-password"))
        .json(&json!({"identity": "relay", "password": PASSPHRASE}))
        .send()
        .await
        .expect("sign-in request");
    let body: Value = res.json().await.expect("sign-in answer");
    body["token"].as_str().expect("app token").to_string()
}

/// Signs in to the gateway at `web` (with `Origin: web`) and fetches the app connection. The
/// error is the HTTP status that refused it (0 for a transport error or a malformed answer).
pub async fn web_sign_in(http: &reqwest::Client, web: &str, passphrase: &str) -> Result<WebSession, u16> {
    let res = http
        .post(format!("{web}/web/api/session"))
        .header("Origin", web)
        .json(&json!({"passphrase": passphrase}))
        .send()
        .await
        .map_err(|_| 0u16)?;
    if res.status() != 200 {
        return Err(res.status().as_u16());
    }
    let cookie = res.headers().get("set-cookie").and_then(|c| c.to_str().ok()).and_then(|c| c.split(';').next());
    let cookie = cookie.ok_or(0u16)?.to_string();
    let csrf = res.json::<Value>().await.map_err(|_| 0u16)?["csrfToken"].as_str().ok_or(0u16)?.to_string();
    let res = http
        .post(format!("{web}/web/api/connection"))
        .header("Origin", web)
        .header("Cookie", &cookie)
        .header("X-Relay-CSRF", &csrf)
        .send()
        .await
        .map_err(|_| 0u16)?;
    if res.status() != 200 {
        return Err(res.status().as_u16());
    }
    let token = res.json::<Value>().await.map_err(|_| 0u16)?["token"].as_str().ok_or(0u16)?.to_string();
    Ok(WebSession { cookie, csrf, token })
}
