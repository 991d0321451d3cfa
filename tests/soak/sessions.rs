//! The 1,000 Relay Web sessions doing normal work, and attack 4 of issue #11: each session signs
//! in (spread over the first 5 s), then every 1 to 3 s reads contacts (70 %), creates one (15 %)
//! or updates its own (14 %) through the gateway with cookie, CSRF header, Origin and app token,
//! or (1 %) logs out, tries its old app token on the gateway (with its own old cookie and with a
//! live session's cookie) and on the data API (read and auth-refresh), and signs in again.

use std::sync::Arc;
use std::time::Duration;

use reqwest::Method;
use serde_json::{json, Value};

use crate::*;
use support::bench::WebSession;

/// A small xorshift64* generator: think times and choices, reproducible per session.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) % n
    }
}

/// A gateway request as the Relay Web renderer sends it: Origin, session cookie, CSRF header and
/// the app token.
pub fn gateway(
    http: &reqwest::Client,
    method: Method,
    s: &Soak,
    path: &str,
    w: &WebSession,
) -> reqwest::RequestBuilder {
    http.request(method, format!("{}{path}", s.web))
        .header("Origin", &s.web)
        .header("Cookie", &w.cookie)
        .header("X-Relay-CSRF", &w.csrf)
        .header("Authorization", &w.token)
}

/// Signs in with the right passphrase, retrying each second until it works or the run ends.
async fn sign_in(s: &Soak, http: &reqwest::Client) -> Option<WebSession> {
    loop {
        if let Some(session) = s.web_sign_in(WEB_SIGNIN, http).await {
            return Some(session);
        }
        if !s.sleep(Duration::from_secs(1)).await {
            return None;
        }
    }
}

/// Attack 4: logs `w` out, then tries its app token everywhere it must now be refused.
async fn logout_and_probe(s: &Soak, http: &reqwest::Client, w: &WebSession, witness: &WebSession) {
    let logout = gateway(http, Method::POST, s, "/web/api/session/logout", w).json(&json!({}));
    if !matches!(s.call(LOGOUT, logout).await, Some((204, _))) {
        return;
    }
    let read = "/api/collections/contacts/records?perPage=1";
    s.call(OLD_OWN, gateway(http, Method::GET, s, read, w)).await;
    let beside_live = WebSession { token: w.token.clone(), ..witness.clone() };
    s.call(OLD_OTHER, gateway(http, Method::GET, s, read, &beside_live)).await;
    s.call(OLD_API, http.get(format!("{}{read}", s.base)).header("Authorization", &w.token)).await;
    let refresh = http.post(format!("{}/api/collections/users/auth-refresh", s.base));
    s.call(OLD_REFRESH, refresh.header("Authorization", &w.token)).await;
}

/// One browser session for the whole run.
pub async fn web_user(s: Arc<Soak>, http: reqwest::Client, i: u64, witness: Arc<WebSession>) {
    let mut rng = Rng(i.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
    if !s.sleep(Duration::from_millis(rng.below(5000))).await {
        return;
    }
    let Some(mut w) = sign_in(&s, &http).await else { return };
    let mut mine: Option<String> = None;
    while s.sleep(Duration::from_millis(1000 + rng.below(2000))).await {
        let roll = rng.below(100);
        if roll < 1 {
            logout_and_probe(&s, &http, &w, &witness).await;
            match sign_in(&s, &http).await {
                Some(fresh) => w = fresh,
                None => return,
            }
            continue;
        }
        let res = if roll < 71 {
            let list = "/api/collections/contacts/records?perPage=30&sort=-created";
            s.call(WEB_READ, gateway(&http, Method::GET, &s, list, &w)).await
        } else if roll < 86 || mine.is_none() {
            let body = json!({"name": format!("Soak {i}"), "email": format!("soak{i}@example.com"), "title": "NOC"});
            let res = s
                .call(WEB_CREATE, gateway(&http, Method::POST, &s, "/api/collections/contacts/records", &w).json(&body))
                .await;
            if let Some((200, body)) = &res {
                mine = serde_json::from_slice::<Value>(body).ok().and_then(|v| v["id"].as_str().map(String::from));
            }
            res
        } else {
            let path = format!("/api/collections/contacts/records/{}", mine.as_deref().unwrap_or(""));
            let body = json!({"title": format!("Lead {}", rng.below(1000))});
            s.call(WEB_UPDATE, gateway(&http, Method::PATCH, &s, &path, &w).json(&body)).await
        };
        if matches!(res, Some((401, _))) {
            // The app token lapsed (15 min): fetch a new one through the session, as the UI does.
            let conn = gateway(&http, Method::POST, &s, "/web/api/connection", &w);
            match s.call(WEB_REFETCH, conn).await {
                Some((200, body)) => {
                    let token =
                        serde_json::from_slice::<Value>(&body).ok().and_then(|v| v["token"].as_str().map(String::from));
                    w.token = token.unwrap_or_default();
                }
                _ => match sign_in(&s, &http).await {
                    Some(fresh) => w = fresh,
                    None => return,
                },
            }
        }
    }
}
