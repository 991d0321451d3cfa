//! Attacks 1 to 3 of issue #11 and their victims: bad passwords from many sources beside a clean
//! source signing in, idle unauthenticated realtime streams beside signed-in subscribers, and
//! those subscribers' 100 duplicate `alert_history/*` subscriptions fed ~49 KB records.

use std::sync::Arc;
use std::time::Duration;

use futures_util::StreamExt;
use serde_json::json;
use tokio::time::{Instant, MissedTickBehavior};

use crate::sessions::gateway;
use crate::*;
use support::bench::PASSPHRASE;

pub const FLOOD_CLOSED: &str = "attack 2: idle streams the server closed (auth deadline or eviction)";
pub const RT_BYTES: &str = "attack 3: bytes delivered to the signed-in subscribers";
pub const RT_FRAMES: &str = "attack 3: alert_history frames delivered to the signed-in subscribers";
pub const RT_DROPPED: &str = "signed-in realtime streams the server ended before the client left";
pub const RT_NO_HELLO: &str = "signed-in realtime streams without PB_CONNECT within 5 s";

type Body = futures_util::stream::BoxStream<'static, reqwest::Result<bytes::Bytes>>;

const FRAME: &[u8] = b"event:alert_history/*";

/// What reading a held stream saw.
struct Drained {
    by_server: bool,
    bytes: u64,
    frames: u64,
}

/// Reads a stream until the server ends it or `until`, counting bytes and `alert_history` frames.
async fn drain(body: &mut Body, until: Instant) -> Drained {
    let mut d = Drained { by_server: false, bytes: 0, frames: 0 };
    let mut carry: Vec<u8> = Vec::new();
    loop {
        match tokio::time::timeout_at(until, body.next()).await {
            Err(_) => return d,
            Ok(Some(Ok(chunk))) => {
                d.bytes += chunk.len() as u64;
                carry.extend_from_slice(&chunk);
                d.frames += carry.windows(FRAME.len()).filter(|w| *w == FRAME).count() as u64;
                carry.drain(..carry.len().saturating_sub(FRAME.len() - 1));
            }
            Ok(_) => {
                d.by_server = true;
                return d;
            }
        }
    }
}

/// The client id of `PB_CONNECT` (the first frame's `id:`), read within 5 s.
async fn client_id(body: &mut Body) -> Option<String> {
    let until = Instant::now() + Duration::from_secs(5);
    let mut buf = Vec::new();
    while !buf.windows(2).any(|w| w == b"\n\n") {
        let chunk = tokio::time::timeout_at(until, body.next()).await.ok()??.ok()?;
        buf.extend_from_slice(&chunk);
    }
    let text = String::from_utf8_lossy(&buf);
    text.lines().find_map(|l| l.strip_prefix("id:")).map(|id| id.trim().to_string())
}

/// Attack 1: one source sending a bad password to each sign-in route every 100 ms.
pub async fn bad_passwords(s: Arc<Soak>, host: u8) {
    let http = client_from(host, Some(TIMEOUT));
    let guess = format!("wrong-guess-{host}");
    let api = json!({"identity": "relay", "password": guess});
    let web = json!({"passphrase": guess});
    let mut tick = tokio::time::interval(Duration::from_millis(100));
    tick.set_missed_tick_behavior(MissedTickBehavior::Delay);
    while s.running() {
        tick.tick().await;
        let req = http.post(format!("{}/api/collections/users/auth-with-password", s.base)).json(&api);
        s.call(BAD_API, req).await;
        s.call(BAD_WEB, http.post(format!("{}/web/api/session", s.web)).header("Origin", &s.web).json(&web)).await;
    }
}

/// Attack 1's victim: a clean source (same /24 as the attackers) signing in with the right
/// passphrase every second, on the data API and on Relay Web (then logging out again).
pub async fn prober(s: Arc<Soak>, host: u8) {
    let http = client_from(host, Some(TIMEOUT));
    let body = json!({"identity": "relay", "password": PASSPHRASE});
    while s.sleep(Duration::from_secs(1)).await {
        s.call(PROBE_API, http.post(format!("{}/api/collections/users/auth-with-password", s.base)).json(&body)).await;
        if let Some(session) = s.web_sign_in(PROBE_WEB, &http).await {
            let logout = gateway(&http, reqwest::Method::POST, &s, "/web/api/session/logout", &session);
            s.call(PROBE_LOGOUT, logout.json(&json!({}))).await;
        }
    }
}

/// Attack 2: holds one idle, never-subscribed realtime stream and reopens it 0.5 s after the
/// server ends it (a refusal waits a second). `http` is the source's client, shared by its streams.
pub async fn idle_stream(s: Arc<Soak>, http: reqwest::Client) {
    while s.running() {
        match s.send(FLOOD, http.get(format!("{}/api/realtime", s.base))).await {
            Some(res) if res.status() == 200 => {
                let mut body = res.bytes_stream().boxed();
                if drain(&mut body, s.deadline).await.by_server && s.running() {
                    s.note(FLOOD_CLOSED, 1);
                    s.sleep(Duration::from_millis(500)).await;
                }
            }
            _ => {
                s.sleep(Duration::from_secs(1)).await;
            }
        }
    }
}

/// A signed-in realtime client (attack 2's victim, attack 3's amplifier): connects, subscribes
/// 100 times to `alert_history/*` with a data-API token, reads everything for 15 to 25 s, then
/// leaves and connects again, until the deadline.
pub async fn subscriber(s: Arc<Soak>, http: reqwest::Client, token: String, delay: Duration, seed: u64) {
    if !s.sleep(delay).await {
        return;
    }
    let topics = vec!["alert_history/*"; 100];
    let url = format!("{}/api/realtime", s.base);
    while s.running() {
        let res = match s.send(RT_CONNECT, http.get(&url)).await {
            Some(res) if res.status() == 200 => res,
            _ => {
                s.sleep(Duration::from_secs(1)).await;
                continue;
            }
        };
        let mut body = res.bytes_stream().boxed();
        let Some(id) = client_id(&mut body).await else {
            s.note(RT_NO_HELLO, 1);
            continue;
        };
        let sub = json!({"clientId": id, "subscriptions": topics});
        let req = http.post(&url).timeout(TIMEOUT).header("Authorization", &token).json(&sub);
        if !matches!(s.call(RT_SUBSCRIBE, req).await, Some((204, _))) {
            s.sleep(Duration::from_secs(1)).await;
            continue;
        }
        let until = (Instant::now() + Duration::from_secs(15 + seed % 11)).min(s.deadline);
        let d = drain(&mut body, until).await;
        s.note(RT_BYTES, d.bytes);
        s.note(RT_FRAMES, d.frames);
        if d.by_server && s.running() {
            s.note(RT_DROPPED, 1);
        }
    }
}

/// Attack 3's payload: every 5 s, a burst of 5 `alert_history` records of ~49 KB each.
pub async fn big_records(s: Arc<Soak>, token: String) {
    let http = client_from(1, Some(TIMEOUT));
    let html = format!("<p>{}</p>", "x".repeat(49_000 - 7));
    let body = json!({"severity": "ISSUE", "subject": "soak: large alert", "bodyHtml": html, "pinned": false, "label": "soak"});
    let url = format!("{}/api/collections/alert_history/records", s.base);
    while s.sleep(Duration::from_secs(5)).await {
        for _ in 0..5 {
            s.call(BIG_CREATE, http.post(&url).header("Authorization", &token).json(&body)).await;
        }
    }
}
