//! Black-box tests of the Relay Web gateway over raw HTTP (reqwest with a cookie jar): binding
//! rules, Host and Origin validation (lookalike names, public IPs, IPv6 forms, ports), cookie
//! attributes, CSRF (missing, stale, foreign), rotation with logical-session survival, resume after a reload, logout,
//! per-session rate limits with Retry-After, browser log ingestion, security headers, no CORS,
//! and the endpoints Relay Web must not have.

use std::sync::Arc;

use reqwest::cookie::CookieStore;
use reqwest::header::HeaderMap;
use serde_json::{json, Value};
use support::{client_from, Relay, PASSPHRASE};

struct Browser {
    http: reqwest::Client,
    base: String,
    origin: String,
    csrf: Option<String>,
    jar: Arc<reqwest::cookie::Jar>,
}

impl Browser {
    fn new(relay: &Relay) -> Browser {
        let base = relay.web.clone().unwrap();
        let port = base.rsplit(':').next().unwrap().to_string();
        let jar = Arc::new(reqwest::cookie::Jar::default());
        let http = reqwest::Client::builder()
            .cookie_provider(jar.clone())
            .timeout(std::time::Duration::from_secs(10))
            .build()
            .unwrap();
        Browser { http, base, origin: format!("http://localhost:{port}"), csrf: None, jar }
    }

    fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base.replace("127.0.0.1", "localhost"))
    }

    async fn post(&self, path: &str, body: Value) -> reqwest::Response {
        let mut req = self.http.post(self.url(path)).header("Origin", &self.origin).json(&body);
        if let Some(csrf) = &self.csrf {
            req = req.header("X-Relay-CSRF", csrf);
        }
        req.send().await.unwrap()
    }

    async fn sign_in(&mut self) -> reqwest::Response {
        let res = self.post("/web/api/session", json!({"passphrase": PASSPHRASE})).await;
        let headers = res.headers().clone();
        let body: Value = res.json().await.unwrap();
        self.csrf = body["csrfToken"].as_str().map(String::from);
        rebuild(headers, body)
    }

    async fn app_token(&self) -> (u16, Value) {
        let res = self.post("/web/api/connection", json!({})).await;
        (res.status().as_u16(), res.json().await.unwrap_or(Value::Null))
    }
}

/// Re-wraps an already-read response body so callers can inspect headers and JSON.
fn rebuild(headers: HeaderMap, body: Value) -> reqwest::Response {
    let mut builder = http::Response::builder().status(200);
    for (k, v) in headers.iter() {
        builder = builder.header(k, v);
    }
    reqwest::Response::from(builder.body(body.to_string()).unwrap())
}

fn cookie_header(res: &reqwest::Response) -> String {
    res.headers().get("set-cookie").and_then(|v| v.to_str().ok()).unwrap_or("").to_string()
}

#[tokio::test]
async fn the_gateway_binds_only_with_direct_lan_access() {
    let tmp = tempfile::tempdir().unwrap();
    let relay = Relay::start_bound(&tmp.path().join("data"), "127.0.0.1", &["--web", "--web-port", "0"]);
    assert!(relay.web.is_none(), "no gateway on a loopback-only server");
    let relay = Relay::start_web();
    assert!(relay.web.is_some());
}

#[tokio::test]
async fn host_header_spoofing_is_refused() {
    let relay = Relay::start_web();
    let b = Browser::new(&relay);
    let port = b.origin.rsplit(':').next().unwrap().to_string();
    let raw = reqwest::Client::new();
    let hostname = hostname::get().unwrap().into_string().unwrap().to_ascii_lowercase();
    for host in [
        format!("localhost:{port}"),
        format!("127.0.0.1:{port}"),
        format!("[::1]:{port}"),
        format!("{hostname}:{port}"),
    ] {
        let res = raw.get(b.url("/api/health")).header("Host", &host).send().await.unwrap();
        assert_eq!(res.status(), 200, "{host}");
    }
    for host in [
        format!("evil.example:{port}"),
        format!("localhost.evil.example:{port}"),
        format!("{hostname}.evil.example:{port}"),
        format!("8.8.8.8:{port}"),
        format!("203.0.113.9:{port}"),
        format!("localhost:{}", port.parse::<u16>().unwrap().wrapping_add(1)),
        format!("0177.0.0.1:{port}"),
        format!("2130706433:{port}"),
        format!("[::ffff:127.0.0.1]:{port}"),
        format!("[2001:db8::1]:{port}"),
        format!("localhost.:{port}"),
        "".to_string(),
        // Without a port a Host means port 80, which is not this gateway.
        "localhost".to_string(),
        "127.0.0.1".to_string(),
        hostname.clone(),
    ] {
        let res = raw.get(b.url("/")).header("Host", &host).send().await.unwrap();
        assert_eq!(res.status(), 421, "{host:?}");
        assert_eq!(res.headers()["x-frame-options"], "DENY", "headers on refusals too");
    }
}

#[tokio::test]
async fn origin_is_required_on_writes_and_must_be_this_gateway() {
    let relay = Relay::start_web();
    let b = Browser::new(&relay);
    let url = b.url("/web/api/session");
    let body = json!({"passphrase": PASSPHRASE});
    let res = b.http.post(&url).json(&body).send().await.unwrap();
    assert_eq!(res.status(), 403, "missing Origin");
    for origin in
        ["http://evil.example", "null", "http://localhost:1", "https://localhost", &b.origin.replace("http", "https")]
    {
        let res = b.http.post(&url).header("Origin", origin).json(&body).send().await.unwrap();
        assert_eq!(res.status(), 403, "{origin}");
    }
    let res = b.http.get(b.url("/api/health")).header("Origin", "http://evil.example").send().await.unwrap();
    assert_eq!(res.status(), 403, "a foreign Origin is refused on reads too");
    let res = b
        .http
        .post(&url)
        .header("Origin", &b.origin)
        .header("Sec-Fetch-Site", "cross-site")
        .json(&body)
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 403, "cross-site fetch metadata");
    let res = b.http.post(&url).header("Origin", &b.origin).json(&body).send().await.unwrap();
    assert_eq!(res.status(), 200);
    let res = b
        .http
        .request(reqwest::Method::OPTIONS, b.url("/api/collections/contacts/records"))
        .header("Origin", "http://evil.example")
        .header("Access-Control-Request-Method", "POST")
        .send()
        .await
        .unwrap();
    assert!(res.headers().get("access-control-allow-origin").is_none(), "no permissive CORS");
}

#[tokio::test]
async fn sign_in_sets_a_strict_http_only_cookie_and_csrf_guards_every_write() {
    let relay = Relay::start_web();
    let mut a = Browser::new(&relay);
    let res = a.post("/web/api/session", json!({"passphrase": "wrong-passphrase"})).await;
    assert_eq!(res.status(), 400);
    let res = a.sign_in().await;
    let cookie = cookie_header(&res);
    for attr in ["relay_web=", "HttpOnly", "SameSite=Strict", "Path=/", "Max-Age=28800"] {
        assert!(cookie.contains(attr), "{attr} in {cookie}");
    }
    assert!(!cookie.contains("Domain="), "host-only cookie: {cookie}");
    let csrf = a.csrf.clone().unwrap();

    let (status, conn) = a.app_token().await;
    assert_eq!(status, 200);
    let token = conn["token"].as_str().unwrap().to_string();
    let records = a.url("/api/collections/contacts/records");
    let create = |csrf: Option<String>| {
        let mut req = a
            .http
            .post(&records)
            .header("Origin", &a.origin)
            .header("Authorization", &token)
            .json(&json!({"name": "Ada"}));
        if let Some(c) = csrf {
            req = req.header("X-Relay-CSRF", c);
        }
        req.send()
    };
    assert_eq!(create(None).await.unwrap().status(), 403, "missing CSRF");
    assert_eq!(create(Some("forged".into())).await.unwrap().status(), 403, "forged CSRF");
    let mut b = Browser::new(&relay);
    b.sign_in().await;
    assert_eq!(create(b.csrf.clone()).await.unwrap().status(), 403, "another session's CSRF");
    assert_eq!(create(Some(csrf.clone())).await.unwrap().status(), 200);
    let res = a.http.get(&records).header("Authorization", &token).send().await.unwrap();
    assert_eq!(res.status(), 200, "reads need the session and the token, not CSRF");

    let no_session = reqwest::Client::new();
    let res = no_session.get(&records).header("Authorization", &token).send().await.unwrap();
    assert_eq!(res.status(), 401, "a bearer token alone is not enough on the gateway");

    // Rotation: new cookie and CSRF, the old ones stop working, the session continues.
    let old_cookie = a.jar.cookies(&a.url("/").parse().unwrap()).unwrap();
    let res = a.post("/web/api/session/refresh", json!({})).await;
    assert_eq!(res.status(), 200);
    let rotated: Value = res.json().await.unwrap();
    let new_csrf = rotated["csrfToken"].as_str().unwrap().to_string();
    assert_ne!(new_csrf, csrf);
    assert_eq!(create(Some(csrf.clone())).await.unwrap().status(), 403, "stale CSRF after rotation");
    assert_eq!(create(Some(new_csrf.clone())).await.unwrap().status(), 200);
    let stale =
        no_session.get(&records).header("Authorization", &token).header("Cookie", old_cookie).send().await.unwrap();
    assert_eq!(stale.status(), 401, "the pre-rotation cookie is dead");

    // A reload: the page has only the cookie; a same-origin POST gets the CSRF token back (no
    // rotation), a request without this Origin does not.
    a.csrf = None;
    let res = a.post("/web/api/session/resume", json!({})).await;
    assert_eq!(res.status(), 200);
    assert_eq!(res.headers().get("cache-control").and_then(|v| v.to_str().ok()), Some("no-store"));
    let resumed: Value = res.json().await.unwrap();
    assert_eq!(resumed["csrfToken"].as_str(), Some(new_csrf.as_str()), "the live CSRF token, not a new one");
    let bare = a.http.post(a.url("/web/api/session/resume")).send().await.unwrap();
    assert_eq!(bare.status(), 403, "no Origin: refused by the guard");
    let foreign =
        a.http.post(a.url("/web/api/session/resume")).header("Origin", "http://evil.example").send().await.unwrap();
    assert_eq!(foreign.status(), 403, "a foreign Origin: refused");
    let res = no_session.post(a.url("/web/api/session/resume")).header("Origin", &a.origin).send().await.unwrap();
    assert_eq!(res.status(), 204, "no cookie: no session to resume");

    a.csrf = Some(new_csrf);
    let res = a.post("/web/api/session/logout", json!({})).await;
    assert_eq!(res.status(), 204);
    assert!(cookie_header(&res).contains("Max-Age=0"));
    assert_eq!(a.app_token().await.0, 401, "logged out");
    a.csrf = None;
    assert_eq!(a.post("/web/api/session/resume", json!({})).await.status(), 204, "nothing to resume after logout");
}

#[tokio::test]
async fn per_session_rate_limit_answers_429_with_retry_after() {
    let relay = Relay::start_web();
    let mut a = Browser::new(&relay);
    a.sign_in().await;
    let url = a.url("/api/relay/presence");
    let mut limited = None;
    for _ in 0..400 {
        let res = a.http.get(&url).send().await.unwrap();
        if res.status() == 429 {
            limited = Some(res);
            break;
        }
    }
    let res = limited.expect("the per-session bucket empties within 400 rapid requests");
    let retry: u64 = res.headers()["retry-after"].to_str().unwrap().parse().unwrap();
    assert!(retry >= 1);
}

#[tokio::test]
async fn browser_logs_are_authenticated_bounded_and_one_record_each() {
    let relay = Relay::start_web();
    let mut a = Browser::new(&relay);
    let res = a.post("/web/api/logs", json!({"level": "warn", "module": "x", "message": "no session"})).await;
    assert_eq!(res.status(), 401);
    a.sign_in().await;
    let marker = "browser-marker-83421";
    let res = a.post("/web/api/logs", json!({"level": "warn", "module": "people<script>", "message": format!("{marker} line one\nforged line\u{2028}two")})).await;
    assert_eq!(res.status(), 204);
    let csrf = a.csrf.take();
    assert_eq!(a.post("/web/api/logs", json!({"level": "info", "message": "x"})).await.status(), 403, "CSRF required");
    a.csrf = csrf;
    let huge = a.post("/web/api/logs", json!({"level": "info", "message": "x".repeat(20_000)})).await;
    assert_eq!(huge.status(), 413);
    // The marker's log line is the signal that the accepted record was written; then it is the only one.
    let logs = relay.wait_for_stderr(marker);
    let lines: Vec<&str> = logs.lines().filter(|l| l.contains(marker)).collect();
    assert_eq!(lines.len(), 1, "{logs}");
    assert!(lines[0].contains("browser: ") && lines[0].contains("\\n") && lines[0].contains("\\u2028"), "{}", lines[0]);
    assert!(lines[0].contains("module=peoplescript") || lines[0].contains("module=\"peoplescript\""), "{}", lines[0]);
    assert!(!logs.lines().any(|l| l.starts_with("forged line")));
}

#[tokio::test]
async fn forbidden_endpoints_are_absent() {
    let relay = Relay::start_web();
    let mut a = Browser::new(&relay);
    a.sign_in().await;
    for (method, path) in [
        ("POST", "/api/collections/users/auth-with-password"),
        ("POST", "/api/relay/privileged/execute"),
        ("POST", "/api/relay/privileged/pair"),
        ("POST", "/api/relay/privileged/reauth"),
        ("POST", "/api/relay/wiki/chunks"),
        ("GET", "/api/backups"),
        ("POST", "/api/backups/restore"),
        ("POST", "/api/relay/offline/replay"),
        ("POST", "/api/relay/config"),
        ("GET", "/api/files"),
        ("POST", "/web/api/push/subscribe"),
        ("GET", "/sw.js"),
        ("GET", "/service-worker.js"),
    ] {
        let req = if method == "GET" {
            a.http.get(a.url(path))
        } else {
            a.http.post(a.url(path)).header("Origin", &a.origin).json(&json!({}))
        };
        let req = match &a.csrf {
            Some(c) => req.header("X-Relay-CSRF", c),
            None => req,
        };
        let res = req.send().await.unwrap();
        assert_eq!(res.status(), 404, "{method} {path} must not exist on Relay Web");
    }
    let res = a.http.get(a.url("/")).send().await.unwrap();
    assert!(res.headers()["content-security-policy"].to_str().unwrap().contains("default-src 'self'"));
    assert!(res.headers().get("service-worker-allowed").is_none());
}

fn assert_security_headers(res: &reqwest::Response, what: &str) {
    let h = res.headers();
    assert!(h.get("content-security-policy").is_some(), "CSP on {what}");
    assert_eq!(h["x-content-type-options"], "nosniff", "{what}");
    assert_eq!(h["x-frame-options"], "DENY", "{what}");
    assert_eq!(h["cache-control"], "no-store", "{what}");
}

#[tokio::test]
async fn api_refusals_carry_the_security_headers() {
    let relay = Relay::start_web();
    let mut b = Browser::new(&relay);
    let records = b.url("/api/collections/contacts/records");
    let res = b.http.get(&records).send().await.unwrap();
    assert_eq!(res.status(), 401);
    assert_security_headers(&res, "401 without a session");
    b.sign_in().await;
    let token = b.app_token().await.1["token"].as_str().unwrap().to_string();
    let res = b
        .http
        .post(&records)
        .header("Origin", &b.origin)
        .header("Authorization", &token)
        .json(&json!({"name": "x"}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 403, "a write without CSRF");
    assert_security_headers(&res, "403 without CSRF");
    let mut limited = None;
    for _ in 0..400 {
        let res = b.http.get(&records).header("Authorization", &token).send().await.unwrap();
        if res.status() == 429 {
            limited = Some(res);
            break;
        }
    }
    let res = limited.expect("the per-session limit answers 429 within 400 reads");
    assert_security_headers(&res, "429");
}

#[tokio::test]
async fn logout_needs_the_csrf_token() {
    let relay = Relay::start_web();
    let mut b = Browser::new(&relay);
    b.sign_in().await;
    let csrf = b.csrf.take();
    let res = b.post("/web/api/session/logout", json!({})).await;
    assert_eq!(res.status(), 403, "a cross-site form cannot log the browser out");
    assert_eq!(b.app_token().await.0, 403, "(still needs CSRF for the connection)");
    b.csrf = csrf;
    assert_eq!(b.app_token().await.0, 200, "the session is still alive");
    let res = b.post("/web/api/session/logout", json!({})).await;
    assert_eq!(res.status(), 204);
    assert_eq!(b.app_token().await.0, 401, "logged out");
}

/// Issue #11.4: a token handed to a browser is bound to its web session.
#[tokio::test]
async fn relay_web_tokens_are_bound_to_their_session() {
    let relay = Relay::start_web();
    let mut a = Browser::new(&relay);
    a.sign_in().await;
    let token_a = a.app_token().await.1["token"].as_str().unwrap().to_string();
    let gateway_records = a.url("/api/collections/contacts/records");
    let read = |browser: &Browser, token: &str| {
        browser.http.get(&gateway_records).header("Authorization", token.to_string()).send()
    };
    assert_eq!(read(&a, &token_a).await.unwrap().status(), 200, "beside its own cookie");

    let data_api = support::client();
    let res = data_api
        .get(relay.url("/api/collections/contacts/records"))
        .header("Authorization", &token_a)
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 401, "a web-session token is refused by the data API listener");
    let res = data_api
        .post(relay.url("/api/collections/users/auth-refresh"))
        .header("Authorization", &token_a)
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 401, "and cannot be renewed there");

    let mut b = Browser::new(&relay);
    b.sign_in().await;
    assert_eq!(read(&b, &token_a).await.unwrap().status(), 401, "session A's token beside session B's cookie");
    let data_api_token = relay.token().await;
    assert_eq!(read(&b, &data_api_token).await.unwrap().status(), 401, "a data-API token on the gateway");

    let stream = a.http.get(a.url("/api/realtime")).header("Authorization", &token_a).send().await.unwrap();
    assert_eq!(stream.status(), 200);
    let res = a.post("/web/api/session/logout", json!({})).await;
    assert_eq!(res.status(), 204);
    assert_eq!(read(&a, &token_a).await.unwrap().status(), 401, "logged out");
    let token_b = b.app_token().await.1["token"].as_str().unwrap().to_string();
    assert_eq!(read(&b, &token_b).await.unwrap().status(), 200);
    assert_eq!(read(&b, &token_a).await.unwrap().status(), 401, "A's token stays dead beside a live cookie");

    // The realtime stream A opened ends with A's session (within the liveness tick), instead of
    // streaming to a logged-out browser until the peer goes away.
    let body = tokio::time::timeout(std::time::Duration::from_secs(10), stream.text()).await;
    let body = body.expect("the gateway stream ends after logout").unwrap();
    assert!(body.contains("PB_CONNECT"), "it was a realtime stream: {body}");
}

/// Issue #39.8: unauthenticated refusals are logged in aggregate. 500 requests with a foreign
/// `Host` to the gateway, 500 with a foreign `Origin`, and 500 to `/api/relay/metrics` with a
/// non-loopback `Host` (all from one source) write one line of each kind, the later ones
/// counted, so requests cannot rotate the log away.
#[tokio::test]
async fn unauthenticated_refusals_are_logged_in_bounded_lines() {
    let relay = Relay::start_web();
    let b = Browser::new(&relay);
    let port = b.origin.rsplit(':').next().unwrap().to_string();
    let raw = client_from(61);
    for _ in 0..500 {
        let res = raw.get(b.url("/")).header("Host", format!("evil.example:{port}")).send().await.unwrap();
        assert_eq!(res.status(), 421);
        let res = raw.get(relay.url("/api/relay/metrics")).header("Host", "rebound.example").send().await.unwrap();
        assert_eq!(res.status(), 403);
        let res = raw.get(b.url("/api/health")).header("Origin", "http://evil.example").send().await.unwrap();
        assert_eq!(res.status(), 403);
    }
    let log = relay.stderr();
    let foreign = log.lines().filter(|l| l.contains("refused a request for a foreign Host")).count();
    let metrics = log.lines().filter(|l| l.contains("metrics request refused")).count();
    assert_eq!(foreign, 1, "500 foreign-Host refusals, {foreign} lines:\n{log}");
    assert_eq!(metrics, 1, "500 metrics refusals, {metrics} lines:\n{log}");
    let cross = log.lines().filter(|l| l.contains("refused a cross-origin request")).count();
    assert_eq!(cross, 1, "500 cross-origin refusals, {cross} lines:\n{log}");
}

/// Cross-Origin-Opener-Policy goes only to hosts a browser treats as trustworthy: on a plain-HTTP
/// LAN name it is ignored and Chromium logs a console error on every page load (issue #38).
#[tokio::test]
async fn the_opener_policy_is_sent_only_where_browsers_honour_it() {
    let relay = Relay::start_web();
    let b = Browser::new(&relay);
    let port = b.origin.rsplit(':').next().unwrap().to_string();
    let hostname = hostname::get().unwrap().into_string().unwrap().to_ascii_lowercase();
    let raw = reqwest::Client::new();
    let local = raw.get(b.url("/")).header("Host", format!("localhost:{port}")).send().await.unwrap();
    assert_eq!(local.headers()["cross-origin-opener-policy"], "same-origin");
    let lan = raw.get(b.url("/")).header("Host", format!("{hostname}.local:{port}")).send().await.unwrap();
    assert_eq!(lan.status(), 200);
    assert!(lan.headers().get("cross-origin-opener-policy").is_none(), "not on a LAN name");
    assert_eq!(lan.headers()["x-frame-options"], "DENY", "the other headers stay");
    let direct = raw.get(relay.url("/")).header("Host", "relay-server.lan:8090").send().await.unwrap();
    assert!(direct.headers().get("cross-origin-opener-policy").is_none(), "nor on the data API by name");
    assert!(direct.headers().get("content-security-policy").is_some());
}

/// Issue #38.5: a browser on the data API is told where Relay Web is (its sign-in does not
/// survive a reload there; Relay Web's does), and that there is none when it is off.
#[tokio::test]
async fn the_data_api_tells_browsers_where_relay_web_is() {
    let relay = Relay::start_web();
    let web_port: u16 = relay.web.clone().unwrap().rsplit(':').next().unwrap().parse().unwrap();
    let body: Value = reqwest::get(relay.url("/api/relay/access")).await.unwrap().json().await.unwrap();
    let hostname = hostname::get().unwrap().into_string().unwrap().to_ascii_lowercase();
    assert_eq!(body, json!({"relayWeb": {"port": web_port, "host": format!("{hostname}.local")}}));
    let without = Relay::start();
    let body: Value = reqwest::get(without.url("/api/relay/access")).await.unwrap().json().await.unwrap();
    assert_eq!(body, json!({"relayWeb": null}));
}
