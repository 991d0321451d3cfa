//! The outbound HTTP policy against the scripted loopback fake upstream: redirects, byte caps,
//! lying lengths, stalls, rate limits, content types, cancellation and origin-only messages.
//! Deadlines are a few hundred milliseconds; every test is bounded by an outer 5 s guard so a
//! missing control fails instead of hanging. No test measures how long anything took.

use std::future::Future;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use fake_upstream::{FakeUpstream, Reply};
use serde::Deserialize;

use super::*;
use crate::clock::ManualClock;

const CAP: u64 = 64 * 1024;

fn policy() -> HttpPolicy {
    HttpPolicy {
        connect_timeout: Duration::from_millis(400),
        timeout: Duration::from_millis(400),
        max_body_bytes: CAP,
        ..HttpPolicy::upstream()
    }
}

fn client() -> HttpClient {
    policy().build().unwrap()
}

fn following(hops: usize) -> HttpClient {
    let redirects = RedirectAllowlist::https_hosts(&["127.0.0.1"]).max_hops(hops);
    HttpPolicy { redirects, ..policy() }.build().unwrap()
}

/// Runs `f`, failing the test if it has not finished within 5 s.
async fn bounded<F: Future>(f: F) -> F::Output {
    tokio::time::timeout(Duration::from_secs(5), f).await.expect("the request hung: its control is missing")
}

async fn get(client: &HttpClient, url: &str) -> Result<HttpResponse, HttpError> {
    bounded(client.execute(client.get(url), &CancellationToken::new())).await
}

fn paths(fake: &FakeUpstream) -> Vec<String> {
    fake.requests().iter().map(|r| r.path().to_string()).collect()
}

#[derive(Debug, Deserialize, PartialEq)]
struct Release {
    tag_name: String,
}

#[tokio::test]
async fn a_plain_json_request_succeeds_and_decodes() {
    let fake = FakeUpstream::start().await;
    fake.route("GET", "/latest", Reply::content("application/vnd.github+json", r#"{"tag_name":"v1.2.3"}"#));
    let got: Release = bounded(client().get_json(&fake.url("/latest"), &CancellationToken::new())).await.unwrap();
    assert_eq!(got, Release { tag_name: "v1.2.3".into() });
    assert_eq!(fake.requests()[0].header("accept"), Some("application/json"));
}

#[tokio::test]
async fn redirects_are_refused_by_default() {
    let fake = FakeUpstream::start().await;
    fake.route("GET", "/a", Reply::redirect(302, "/b")).route("GET", "/b", Reply::json("{}"));
    let err = get(&client(), &fake.url("/a")).await.unwrap_err();
    assert_eq!(err, HttpError::RedirectRefused { origin: fake.base_url(), reason: RedirectRefusal::NotAllowed });
    assert_eq!(paths(&fake), ["/a"]);
}

#[tokio::test]
async fn a_relay_peer_client_returns_the_redirect_unfollowed() {
    let fake = FakeUpstream::start().await;
    fake.route("GET", "/a", Reply::redirect(307, "/b")).route("GET", "/b", Reply::json("{}"));
    let peer = HttpPolicy::relay_peer().build().unwrap();
    let res = bounded(peer.reqwest().get(fake.url("/a")).send()).await.unwrap();
    assert_eq!(res.status().as_u16(), 307);
    assert_eq!(paths(&fake), ["/a"]);
}

#[tokio::test]
async fn a_redirect_to_an_unlisted_host_is_refused() {
    let fake = FakeUpstream::start().await;
    let elsewhere = format!("http://localhost:{}/b", fake.addr().port());
    fake.route("GET", "/a", Reply::redirect(302, &elsewhere)).route("GET", "/b", Reply::json("{}"));
    let err = get(&following(3), &fake.url("/a")).await.unwrap_err();
    let origin = format!("http://localhost:{}", fake.addr().port());
    assert_eq!(err, HttpError::RedirectRefused { origin, reason: RedirectRefusal::NotAllowed });
    assert_eq!(paths(&fake), ["/a"]);
}

#[tokio::test]
async fn listed_redirects_are_followed_up_to_the_hop_cap() {
    let fake = FakeUpstream::start().await;
    fake.route("GET", "/a", Reply::redirect(302, "/b"))
        .route("GET", "/b", Reply::redirect(301, &fake.url("/c")))
        .route("GET", "/c", Reply::json(r#"{"tag_name":"v2.0.0"}"#));
    let res = get(&following(2), &fake.url("/a")).await.unwrap();
    assert_eq!(res.json::<Release>().unwrap().tag_name, "v2.0.0");
    assert_eq!(paths(&fake), ["/a", "/b", "/c"]);

    let fake = FakeUpstream::start().await;
    fake.route("GET", "/a", Reply::redirect(302, "/b"))
        .route("GET", "/b", Reply::redirect(302, "/c"))
        .route("GET", "/c", Reply::redirect(302, "/d"))
        .route("GET", "/d", Reply::json("{}"));
    let err = get(&following(2), &fake.url("/a")).await.unwrap_err();
    assert_eq!(err, HttpError::RedirectRefused { origin: fake.base_url(), reason: RedirectRefusal::TooManyHops });
    assert_eq!(paths(&fake), ["/a", "/b", "/c"]);
}

#[tokio::test]
async fn redirects_with_credentials_or_custom_ports_are_refused() {
    let fake = FakeUpstream::start().await;
    let with_userinfo = format!("http://relay:secret@127.0.0.1:{}/b", fake.addr().port());
    fake.route("GET", "/user", Reply::redirect(302, &with_userinfo))
        .route("GET", "/port", Reply::redirect(302, "https://allowed.example:8443/b"))
        .route("GET", "/plain", Reply::redirect(302, "http://allowed.example/b"))
        .route("GET", "/b", Reply::json("{}"));
    let redirects = RedirectAllowlist::https_hosts(&["127.0.0.1", "allowed.example"]);
    let client = HttpPolicy { redirects, ..policy() }.build().unwrap();
    let cases = [
        ("/user", RedirectRefusal::Userinfo),
        ("/port", RedirectRefusal::CustomPort),
        ("/plain", RedirectRefusal::Scheme),
    ];
    for (path, reason) in cases {
        let err = get(&client, &fake.url(path)).await.unwrap_err();
        assert!(matches!(err, HttpError::RedirectRefused { reason: r, .. } if r == reason), "{path}: {err:?}");
        assert!(!err.to_string().contains("secret"), "{err}");
    }
    assert_eq!(paths(&fake), ["/user", "/port", "/plain"]);
}

#[tokio::test]
async fn a_body_over_the_cap_is_aborted_mid_stream() {
    let fake = FakeUpstream::start().await;
    let huge = 64 * 1024 * 1024;
    fake.route("GET", "/close", Reply::status(200).repeated_body(b'x', huge).without_length()).route(
        "GET",
        "/chunked",
        Reply::status(200).repeated_body(b'x', huge).chunked(),
    );
    for path in ["/close", "/chunked"] {
        let err = get(&client(), &fake.url(path)).await.unwrap_err();
        assert_eq!(err, HttpError::TooLarge { origin: fake.base_url(), limit: CAP }, "{path}");
    }
    let served = fake.wait_for_served(2).await;
    for s in served {
        assert!(!s.completed && s.body_bytes_sent < huge, "the fake must see the client hang up early: {s:?}");
    }
}

#[tokio::test]
async fn a_body_exactly_at_the_cap_is_read() {
    let fake = FakeUpstream::start().await;
    fake.route("GET", "/full", Reply::status(200).repeated_body(b'x', CAP));
    assert_eq!(get(&client(), &fake.url("/full")).await.unwrap().body().len() as u64, CAP);
}

#[tokio::test]
async fn a_declared_length_over_the_cap_is_refused_before_reading() {
    let fake = FakeUpstream::start().await;
    // The body never comes: a client that tried to read it would time out instead.
    fake.route("GET", "/big", Reply::json("{}").declared_length(CAP + 1).stall_after_headers());
    let err = get(&client(), &fake.url("/big")).await.unwrap_err();
    assert_eq!(err, HttpError::TooLarge { origin: fake.base_url(), limit: CAP });
}

#[tokio::test]
async fn a_body_shorter_than_its_declared_length_is_refused() {
    let fake = FakeUpstream::start().await;
    fake.route("GET", "/short", Reply::json("0123456789").declared_length(100));
    let err = get(&client(), &fake.url("/short")).await.unwrap_err();
    assert_eq!(err, HttpError::LengthMismatch { origin: fake.base_url(), declared: 100, received: 10 });
}

#[tokio::test]
async fn headers_then_silence_hit_the_overall_deadline() {
    let fake = FakeUpstream::start().await;
    fake.route("GET", "/stall", Reply::json("{}").declared_length(2).stall_after_headers())
        .route("GET", "/stall-chunked", Reply::json("{}").chunked().stall_after_headers())
        .route("GET", "/slow", Reply::json("{}").delay_before_headers(Duration::from_secs(3)));
    for path in ["/stall", "/stall-chunked", "/slow"] {
        let err = get(&client(), &fake.url(path)).await.unwrap_err();
        assert_eq!(err, HttpError::Timeout { origin: fake.base_url() }, "{path}");
    }
}

#[tokio::test]
async fn rate_limits_carry_retry_after_in_seconds_or_as_a_date() {
    let fake = FakeUpstream::start().await;
    fake.route("GET", "/secs", Reply::status(429).header("Retry-After", "7"))
        .route("GET", "/date", Reply::status(503).header("Retry-After", "Wed, 21 Oct 2015 07:28:00 GMT"))
        .route("GET", "/long", Reply::status(429).header("Retry-After", "999999"))
        .route("GET", "/none", Reply::status(429))
        .route("GET", "/down", Reply::status(503));
    let at = httpdate::parse_http_date("Wed, 21 Oct 2015 07:28:00 GMT").unwrap();
    let now_ms = at.duration_since(std::time::UNIX_EPOCH).unwrap().as_millis() as i64 - 120_000;
    let client = HttpPolicy { clock: ManualClock::new(now_ms), max_retry_after_secs: 600, ..policy() }.build().unwrap();
    let limited =
        |status, retry_after_secs| HttpError::RateLimited { origin: fake.base_url(), status, retry_after_secs };
    assert_eq!(get(&client, &fake.url("/secs")).await.unwrap_err(), limited(429, Some(7)));
    assert_eq!(get(&client, &fake.url("/date")).await.unwrap_err(), limited(503, Some(120)));
    assert_eq!(get(&client, &fake.url("/long")).await.unwrap_err(), limited(429, Some(600)));
    assert_eq!(get(&client, &fake.url("/none")).await.unwrap_err(), limited(429, None));
    let down = get(&client, &fake.url("/down")).await.unwrap_err();
    assert_eq!(down, HttpError::Status { origin: fake.base_url(), status: 503 });
}

#[tokio::test]
async fn only_json_content_types_are_decoded() {
    let fake = FakeUpstream::start().await;
    fake.route("GET", "/html", Reply::content("text/html", r#"{"tag_name":"v1"}"#))
        .route("GET", "/untyped", Reply::status(200).body(r#"{"tag_name":"v1"}"#))
        .route("GET", "/problem", Reply::content("application/problem+json", r#"{"tag_name":"v1"}"#))
        .route("GET", "/shape", Reply::json(r#"{"name":"v1"}"#));
    let c = client();
    let json = |path: &str| {
        let (c, url) = (c.clone(), fake.url(path));
        async move { bounded(c.get_json::<Release>(&url, &CancellationToken::new())).await }
    };
    assert_eq!(json("/html").await.unwrap_err(), HttpError::BadContentType { origin: fake.base_url() });
    assert_eq!(json("/untyped").await.unwrap_err(), HttpError::BadContentType { origin: fake.base_url() });
    assert_eq!(json("/problem").await.unwrap().tag_name, "v1");
    assert_eq!(json("/shape").await.unwrap_err(), HttpError::Decode { origin: fake.base_url() });
}

#[tokio::test]
async fn cancellation_ends_the_request_promptly() {
    let fake = FakeUpstream::start().await;
    fake.route("GET", "/stall", Reply::json("{}").declared_length(2).stall_after_headers());
    let slow = HttpPolicy { timeout: Duration::from_secs(30), ..policy() }.build().unwrap();
    let cancel = CancellationToken::new();
    let trigger = cancel.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(50)).await;
        trigger.cancel();
    });
    let err = bounded(slow.execute(slow.get(&fake.url("/stall")), &cancel)).await.unwrap_err();
    assert_eq!(err, HttpError::Cancelled { origin: fake.base_url() });
    // The fake sees the hang-up once the request is dropped.
    assert!(!fake.wait_for_served(1).await[0].completed);

    let already = CancellationToken::new();
    already.cancel();
    let err = bounded(slow.execute(slow.get(&fake.url("/stall")), &already)).await.unwrap_err();
    assert_eq!(err.code(), "cancelled");
    assert_eq!(fake.requests().len(), 1, "a cancelled request is never sent");
}

#[tokio::test]
async fn connection_failures_and_refused_urls_are_typed() {
    let fake = FakeUpstream::start().await;
    let addr = fake.addr();
    drop(fake);
    tokio::time::sleep(Duration::from_millis(50)).await;
    let err = get(&client(), &format!("http://{addr}/x")).await.unwrap_err();
    assert_eq!(err, HttpError::Connect { origin: format!("http://{addr}") });
    let err = get(&client(), "http://example.com/x").await.unwrap_err();
    assert_eq!(err.code(), "invalid_url");
    assert_eq!(get(&client(), "not a url").await.unwrap_err().code(), "invalid_url");
}

/// A tracing writer that keeps everything written to it.
#[derive(Clone, Default)]
struct Captured(Arc<Mutex<Vec<u8>>>);

impl std::io::Write for Captured {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[tokio::test]
async fn errors_and_logs_name_the_origin_only() {
    let logs = Captured::default();
    let sink = logs.clone();
    let subscriber = tracing_subscriber::fmt()
        .with_max_level(tracing::Level::DEBUG)
        .with_ansi(false)
        .with_writer(move || sink.clone())
        .finish();
    let _guard = tracing::subscriber::set_default(subscriber);

    let fake = FakeUpstream::start().await;
    let secret_redirect = format!("http://127.0.0.1:{}/next/hunter2?token=hunter2", fake.addr().port());
    fake.route("GET", "/secret/hunter2", Reply::content("text/html", "<p>hunter2</p>"))
        .route("GET", "/gone/hunter2", Reply::status(404))
        .route("GET", "/hop/hunter2", Reply::redirect(302, &secret_redirect));
    let mut messages = Vec::new();
    let c = client();
    for path in ["/secret/hunter2?token=hunter2", "/gone/hunter2?token=hunter2", "/hop/hunter2?token=hunter2"] {
        let cancel = CancellationToken::new();
        let err = bounded(c.get_json::<Release>(&fake.url(path), &cancel)).await.unwrap_err();
        messages.push(err.to_string());
    }
    let far = get(&following(1), &fake.url("/hop/hunter2?token=hunter2")).await.unwrap_err();
    messages.push(far.to_string());
    let creds = format!("http://relay:hunter2@127.0.0.1:{}/x", fake.addr().port());
    messages.push(get(&client(), &creds).await.unwrap_err().to_string());
    let logged = String::from_utf8(logs.0.lock().unwrap().clone()).unwrap();
    assert!(logged.contains(&fake.base_url()), "{logged}");
    for text in messages.iter().chain([&logged]) {
        assert!(!text.contains("hunter2") && !text.contains("token"), "leaked: {text}");
    }
    assert!(messages.iter().all(|m| m.contains(&fake.base_url())), "{messages:?}");
}
