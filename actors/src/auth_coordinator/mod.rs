//! The client-side app-user auth coordinator (desktop client mode, paired laptops). Concurrent
//! consumers asking for a token for the same server and passphrase share ONE in-flight
//! sign-in; each receives its own validated, in-memory token snapshot. Completed snapshots are
//! served for 4 s and then dropped; entries are keyed by a digest of the credential under a
//! process-random salt (the passphrase itself is never a map key); `Clear` forgets everything
//! on configuration or server lifecycle changes; a definitive credential rejection stops the
//! retries at once so the server's failed-login budget is not spent.

use std::collections::HashMap;
use std::time::Duration;

use actix::prelude::*;
use base64::engine::general_purpose::URL_SAFE_NO_PAD as B64;
use base64::Engine;
use serde_json::Value;
use sha2::{Digest, Sha256};
use tokio::sync::oneshot;

use infra::clock::SharedClock;
use infra::http::HttpPolicy;

/// How long a completed snapshot is shared.
pub const SNAPSHOT_TTL_MS: i64 = 4_000;
pub const MAX_ENTRIES: usize = 16;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RetryPolicy {
    pub attempts: u32,
    pub delay: Duration,
    pub timeout: Duration,
}

impl Default for RetryPolicy {
    /// The legacy numbers: 4 attempts, 750 ms apart, 15 s each.
    fn default() -> Self {
        RetryPolicy { attempts: 4, delay: Duration::from_millis(750), timeout: Duration::from_secs(15) }
    }
}

/// A validated app-user token for one server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TokenSnapshot {
    pub token: String,
    /// Token expiry, seconds since the epoch (from its payload).
    pub expires_at: i64,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CoordinatorError {
    #[error("the server rejected the passphrase")]
    Rejected,
    #[error("the server is unreachable")]
    Unreachable,
    #[error("the server sent an invalid token")]
    InvalidToken,
    #[error("sign-in was cancelled by a configuration change")]
    Cancelled,
    #[error("too many different servers at once")]
    Busy,
}

/// A token for `server` signed in with `passphrase`: shared with a sign-in already in flight for
/// the same pair, or served from the 4 s cache.
#[derive(Message)]
#[rtype(result = "Result<TokenSnapshot, CoordinatorError>")]
pub struct ObtainToken {
    pub server: String,
    pub passphrase: String,
}

/// Forgets every cached token and in-flight sign-in (configuration or server lifecycle changed).
#[derive(Message)]
#[rtype(result = "()")]
pub struct Clear;

/// Counts of sign-ins sent and finished, cached and in flight (tests and diagnostics).
#[derive(Message)]
#[rtype(result = "CoordinatorStats")]
pub struct GetStats;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct CoordinatorStats {
    /// Sign-in requests actually sent to servers.
    pub sign_ins_started: u64,
    pub cached: usize,
    pub in_flight: usize,
    /// Sign-ins whose answer came back (used or, after a `Clear`, discarded).
    pub sign_ins_finished: u64,
}

/// A sign-in's answer, delivered back to the actor; ignored when `generation` is stale.
#[derive(Message)]
#[rtype(result = "()")]
struct Completed {
    key: String,
    generation: u64,
    result: Result<TokenSnapshot, CoordinatorError>,
}

type Waiter = oneshot::Sender<Result<TokenSnapshot, CoordinatorError>>;

pub struct AuthCoordinator {
    salt: Vec<u8>,
    http: reqwest::Client,
    clock: SharedClock,
    policy: RetryPolicy,
    cached: HashMap<String, (TokenSnapshot, i64)>,
    in_flight: HashMap<String, Vec<Waiter>>,
    /// Bumped by `Clear`, so results of sign-ins started before it are discarded.
    generation: u64,
    sign_ins_started: u64,
    sign_ins_finished: u64,
}

impl AuthCoordinator {
    pub fn new(clock: SharedClock, policy: RetryPolicy) -> AuthCoordinator {
        let http = HttpPolicy { timeout: policy.timeout, ..HttpPolicy::relay_peer() }
            .build()
            .expect("HTTP client")
            .reqwest()
            .clone();
        AuthCoordinator {
            salt: infra::ids::random_bytes(32),
            http,
            clock,
            policy,
            cached: HashMap::new(),
            in_flight: HashMap::new(),
            generation: 0,
            sign_ins_started: 0,
            sign_ins_finished: 0,
        }
    }

    fn key(&self, server: &str, passphrase: &str) -> String {
        let mut h = Sha256::new();
        h.update(&self.salt);
        h.update(server.as_bytes());
        h.update([0u8]);
        h.update(passphrase.as_bytes());
        h.finalize().iter().map(|b| format!("{b:02x}")).collect()
    }
}

/// Checks the token's shape and expiry before anyone relies on it.
pub fn validate_token(token: &str, now_ms: i64) -> Result<TokenSnapshot, CoordinatorError> {
    let parts: Vec<&str> = token.split('.').collect();
    if parts.len() != 3 || token.len() > 4096 {
        return Err(CoordinatorError::InvalidToken);
    }
    let payload: Value = B64
        .decode(parts[1])
        .ok()
        .and_then(|b| serde_json::from_slice(&b).ok())
        .ok_or(CoordinatorError::InvalidToken)?;
    let exp = payload["exp"].as_i64().ok_or(CoordinatorError::InvalidToken)?;
    if exp * 1000 <= now_ms {
        return Err(CoordinatorError::InvalidToken);
    }
    Ok(TokenSnapshot { token: token.to_string(), expires_at: exp })
}

async fn sign_in(
    http: reqwest::Client,
    server: String,
    passphrase: String,
    policy: RetryPolicy,
    clock: SharedClock,
) -> Result<TokenSnapshot, CoordinatorError> {
    let url = format!("{}/api/collections/users/auth-with-password", server.trim_end_matches('/'));
    let body = serde_json::json!({ "identity": "relay", "password": passphrase });
    let mut last = CoordinatorError::Unreachable;
    for attempt in 0..policy.attempts.max(1) {
        if attempt > 0 {
            tokio::time::sleep(policy.delay).await;
        }
        match http.post(&url).json(&body).send().await {
            Ok(res) if res.status().is_success() => {
                let reply: Value = res.json().await.map_err(|_| CoordinatorError::InvalidToken)?;
                let token = reply["token"].as_str().ok_or(CoordinatorError::InvalidToken)?;
                return validate_token(token, clock.now_ms());
            }
            // A definitive rejection: retrying would only spend the failed-login budget.
            Ok(res) if matches!(res.status().as_u16(), 400 | 401 | 403) => return Err(CoordinatorError::Rejected),
            Ok(_) | Err(_) => last = CoordinatorError::Unreachable,
        }
    }
    Err(last)
}

impl Actor for AuthCoordinator {
    type Context = Context<Self>;
}

impl Handler<ObtainToken> for AuthCoordinator {
    type Result = ResponseFuture<Result<TokenSnapshot, CoordinatorError>>;
    fn handle(&mut self, msg: ObtainToken, ctx: &mut Context<Self>) -> Self::Result {
        let now = self.clock.now_ms();
        self.cached.retain(|_, (_, at)| now - *at < SNAPSHOT_TTL_MS);
        let key = self.key(&msg.server, &msg.passphrase);
        if let Some((snapshot, _)) = self.cached.get(&key) {
            let snapshot = snapshot.clone();
            return Box::pin(async move { Ok(snapshot) });
        }
        let (tx, rx) = oneshot::channel();
        if let Some(waiters) = self.in_flight.get_mut(&key) {
            waiters.push(tx);
        } else {
            if self.in_flight.len() >= MAX_ENTRIES {
                return Box::pin(async { Err(CoordinatorError::Busy) });
            }
            self.in_flight.insert(key.clone(), vec![tx]);
            self.sign_ins_started += 1;
            let (generation, me) = (self.generation, ctx.address());
            let work = sign_in(self.http.clone(), msg.server, msg.passphrase, self.policy, self.clock.clone());
            actix::spawn(async move {
                let result = work.await;
                me.do_send(Completed { key, generation, result });
            });
        }
        Box::pin(async move { rx.await.unwrap_or(Err(CoordinatorError::Cancelled)) })
    }
}

impl Handler<Completed> for AuthCoordinator {
    type Result = ();
    fn handle(&mut self, msg: Completed, _: &mut Context<Self>) {
        self.sign_ins_finished += 1;
        if msg.generation != self.generation {
            return;
        }
        let waiters = self.in_flight.remove(&msg.key).unwrap_or_default();
        if let Ok(snapshot) = &msg.result {
            if self.cached.len() < MAX_ENTRIES {
                self.cached.insert(msg.key, (snapshot.clone(), self.clock.now_ms()));
            }
        }
        for waiter in waiters {
            let _ = waiter.send(msg.result.clone());
        }
    }
}

impl Handler<Clear> for AuthCoordinator {
    type Result = ();
    fn handle(&mut self, _: Clear, _: &mut Context<Self>) {
        self.generation += 1;
        self.cached.clear();
        for (_, waiters) in self.in_flight.drain() {
            for waiter in waiters {
                let _ = waiter.send(Err(CoordinatorError::Cancelled));
            }
        }
    }
}

impl Handler<GetStats> for AuthCoordinator {
    type Result = MessageResult<GetStats>;
    fn handle(&mut self, _: GetStats, _: &mut Context<Self>) -> Self::Result {
        MessageResult(CoordinatorStats {
            sign_ins_started: self.sign_ins_started,
            cached: self.cached.len(),
            in_flight: self.in_flight.len(),
            sign_ins_finished: self.sign_ins_finished,
        })
    }
}

#[cfg(test)]
mod tests;
