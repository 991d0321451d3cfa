//! Relay Web browser sessions. A successful web sign-in creates a server-only logical session
//! and hands the browser a random cookie value (HttpOnly, SameSite=Strict) and a CSRF token;
//! neither is the logical id. Sessions end after 1 h idle or 8 h absolute. Refresh rotates the
//! cookie and CSRF values while the logical id keeps rate accounting and revocation. Logout,
//! replacement and expiry destroy the logical record, and any work that was authorized before
//! (an app-token issue awaiting the auth actor) re-checks the record before it takes effect.
//! Each logical session also has a token binding (random, neither cookie nor id): app tokens
//! issued through it carry the binding, so they verify only beside this session's cookie on the
//! gateway, and an `ended` signal that fires when the record is destroyed, so gateway realtime
//! streams close on logout, replacement or expiry.
//! A page reload resumes the session from its cookie (`Resume`): the page gets the current CSRF
//! token again, never a new session.
//! Refusals are `WebError`, whose `HttpProblem` impl is all the gateway needs to answer them.

use std::collections::HashMap;
use std::net::IpAddr;

use actix::prelude::*;
use serde_json::Value;
use subtle::ConstantTimeEq;

use domain::problem::HttpProblem;
use domain::ratelimit::{BucketConfig, KeyedLimiter};
use domain::record::RecordError;

use crate::auth::{AuthActor, CheckPassphrase, IssueToken};
use crate::kit::{Subsystem, SubsystemCtx};

pub const NAME: &str = "web_sessions";

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct WebSessionConfig {
    pub idle_ms: i64,
    pub absolute_ms: i64,
    pub max_sessions: usize,
    /// App tokens handed to browsers live this long (they re-fetch through the session).
    pub token_ttl_secs: i64,
    pub per_session: BucketConfig,
    pub global: BucketConfig,
    pub logs_per_session: BucketConfig,
}

impl Default for WebSessionConfig {
    fn default() -> Self {
        WebSessionConfig {
            idle_ms: 60 * 60_000,
            absolute_ms: 8 * 60 * 60_000,
            max_sessions: 2000,
            token_ttl_secs: 15 * 60,
            per_session: BucketConfig { capacity: 120.0, refill_per_sec: 20.0 },
            global: BucketConfig { capacity: 5000.0, refill_per_sec: 2000.0 },
            logs_per_session: BucketConfig { capacity: 60.0, refill_per_sec: 20.0 },
        }
    }
}

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum WebError {
    #[error("sign in to Relay Web")]
    NoSession,
    #[error("the request is missing a valid CSRF token")]
    Csrf,
    #[error("too many requests; retry in {0} s")]
    RateLimited(u64),
    #[error("too many web sessions")]
    Full,
    #[error("{0}")]
    SignIn(RecordError),
}

/// Gateway refusals carry `data.code`; a failed sign-in answers exactly as the record family
/// (PocketBase) error it wraps.
impl HttpProblem for WebError {
    fn status(&self) -> u16 {
        match self {
            WebError::NoSession => 401,
            WebError::Csrf => 403,
            WebError::RateLimited(_) => 429,
            WebError::Full => 503,
            WebError::SignIn(e) => e.status(),
        }
    }

    fn code(&self) -> &'static str {
        match self {
            WebError::NoSession => "no_session",
            WebError::Csrf => "csrf",
            WebError::RateLimited(_) => "rate_limited",
            WebError::Full => "sessions_full",
            WebError::SignIn(e) => e.code(),
        }
    }

    fn retry_after_secs(&self) -> Option<u64> {
        match self {
            WebError::RateLimited(secs) => Some(*secs),
            WebError::SignIn(e) => e.retry_after_secs(),
            _ => None,
        }
    }

    fn data(&self) -> Value {
        match self {
            WebError::SignIn(e) => e.data(),
            _ => serde_json::json!({ "code": self.code() }),
        }
    }
}

/// Values the browser receives: the cookie (set by the gateway) and the CSRF token (JSON).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Issued {
    pub cookie: String,
    pub csrf: String,
    pub absolute_expiry_ms: i64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RequestKind {
    /// Reads: no CSRF needed.
    Read,
    /// State-changing requests: CSRF required.
    Write,
    /// Browser log ingestion: CSRF required, own budget.
    Log,
}

/// A Relay Web sign-in with the connection passphrase from `source`, under the sign-in guard.
#[derive(Message)]
#[rtype(result = "Result<Issued, WebError>")]
pub struct WebSignIn {
    pub passphrase: String,
    pub source: IpAddr,
    /// A cookie the browser already had: that session is replaced (destroyed).
    pub replaces: Option<String>,
}

/// What an authorized gateway request learns about its session: the binding its app token must
/// carry, and a signal whose `changed()` resolves (with an error) when the session ends.
#[derive(Debug, Clone)]
pub struct WebGrant {
    pub binding: String,
    pub ended: tokio::sync::watch::Receiver<()>,
}

/// Two grants are equal when they belong to the same logical session.
impl PartialEq for WebGrant {
    fn eq(&self, other: &WebGrant) -> bool {
        self.binding == other.binding
    }
}

/// Authorizes one gateway request.
#[derive(Message)]
#[rtype(result = "Result<WebGrant, WebError>")]
pub struct Authorize {
    pub cookie: Option<String>,
    pub csrf: Option<String>,
    pub kind: RequestKind,
}

/// Extends a live session and rotates its CSRF token (the cookie and the current token required).
#[derive(Message)]
#[rtype(result = "Result<Issued, WebError>")]
pub struct Refresh {
    pub cookie: Option<String>,
    pub csrf: Option<String>,
}

/// A page reload: the browser still has the cookie but its in-memory CSRF token is gone. A live
/// session answers with its current CSRF token and expiry (nothing rotates, so other tabs of the
/// same browser keep working); the gateway accepts this only as a same-origin POST (the Origin
/// check), and without CORS no other site can read the answer.
#[derive(Message)]
#[rtype(result = "Result<Issued, WebError>")]
pub struct Resume {
    pub cookie: Option<String>,
}

/// Ends the browser's session (and its Administration session) everywhere.
#[derive(Message)]
#[rtype(result = "Result<(), WebError>")]
pub struct Logout {
    pub cookie: Option<String>,
    /// A live session is ended only with its CSRF token (a cross-site form cannot log a browser
    /// out); without a live session there is nothing to end and logout succeeds.
    pub csrf: Option<String>,
}

/// The ordinary app-user connection for an authenticated browser.
#[derive(Message)]
#[rtype(result = "Result<Value, WebError>")]
pub struct IssueConnection {
    pub cookie: Option<String>,
    pub csrf: Option<String>,
}

/// The number of live Relay Web sessions (metrics and tests).
#[derive(Message)]
#[rtype(result = "usize")]
pub struct CountSessions;

struct Logical {
    cookie: String,
    csrf: String,
    /// Carried by the app tokens issued to this session (`infra::token`).
    binding: String,
    /// Dropped with the record, which ends every receiver handed out in a `WebGrant`.
    ended: tokio::sync::watch::Sender<()>,
    created_ms: i64,
    last_seen_ms: i64,
}

impl Logical {
    fn new(cookie: String, now_ms: i64) -> Logical {
        Logical {
            cookie,
            csrf: token(),
            binding: token(),
            ended: tokio::sync::watch::channel(()).0,
            created_ms: now_ms,
            last_seen_ms: now_ms,
        }
    }
}

pub struct WebSessionActor {
    config: WebSessionConfig,
    auth: Addr<AuthActor>,
    subsystem: SubsystemCtx,
    by_cookie: HashMap<String, String>,
    logical: HashMap<String, Logical>,
    limiter: KeyedLimiter<String>,
    log_limiter: KeyedLimiter<String>,
}

fn token() -> String {
    infra::ids::client_id()
}

impl WebSessionActor {
    pub fn new(subsystem: SubsystemCtx, config: WebSessionConfig, auth: Addr<AuthActor>) -> Self {
        WebSessionActor {
            limiter: KeyedLimiter::new(config.per_session, Some(config.global), config.max_sessions + 16),
            log_limiter: KeyedLimiter::new(config.logs_per_session, None, config.max_sessions + 16),
            config,
            auth,
            subsystem,
            by_cookie: HashMap::new(),
            logical: HashMap::new(),
        }
    }

    fn destroy(&mut self, logical_id: &str) {
        if let Some(l) = self.logical.remove(logical_id) {
            self.by_cookie.remove(&l.cookie);
        }
        self.limiter.reset_key(&logical_id.to_string());
        self.log_limiter.reset_key(&logical_id.to_string());
    }

    fn expired(&self, l: &Logical, now: i64) -> bool {
        now - l.last_seen_ms >= self.config.idle_ms || now - l.created_ms >= self.config.absolute_ms
    }

    fn sweep(&mut self) {
        let now = self.subsystem.now_ms();
        let dead: Vec<String> =
            self.logical.iter().filter(|(_, l)| self.expired(l, now)).map(|(k, _)| k.clone()).collect();
        for id in dead {
            self.destroy(&id);
        }
    }

    /// The live logical session for a cookie (destroying it when expired).
    fn live(&mut self, cookie: Option<&str>) -> Result<String, WebError> {
        let cookie = cookie.ok_or(WebError::NoSession)?;
        let id = self.by_cookie.get(cookie).cloned().ok_or(WebError::NoSession)?;
        let now = self.subsystem.now_ms();
        let expired = self.logical.get(&id).is_none_or(|l| self.expired(l, now));
        if expired {
            self.destroy(&id);
            return Err(WebError::NoSession);
        }
        Ok(id)
    }

    fn check_csrf(&self, id: &str, csrf: Option<&str>) -> Result<(), WebError> {
        let expected = &self.logical.get(id).ok_or(WebError::NoSession)?.csrf;
        match csrf {
            Some(given) if bool::from(given.as_bytes().ct_eq(expected.as_bytes())) => Ok(()),
            _ => Err(WebError::Csrf),
        }
    }

    fn authorize(&mut self, cookie: Option<&str>, csrf: Option<&str>, kind: RequestKind) -> Result<String, WebError> {
        let id = self.live(cookie)?;
        if kind != RequestKind::Read {
            self.check_csrf(&id, csrf)?;
        }
        let now = self.subsystem.now_ms().max(0) as u64;
        let decision = if kind == RequestKind::Log {
            self.log_limiter.try_take(&id, now)
        } else {
            self.limiter.try_take(&id, now)
        };
        if !decision.is_allowed() {
            return Err(WebError::RateLimited(decision.retry_after_secs()));
        }
        if let Some(l) = self.logical.get_mut(&id) {
            l.last_seen_ms = self.subsystem.now_ms();
        }
        Ok(id)
    }

    fn issue(&self, id: &str) -> Issued {
        let l = &self.logical[id];
        Issued {
            cookie: l.cookie.clone(),
            csrf: l.csrf.clone(),
            absolute_expiry_ms: l.created_ms + self.config.absolute_ms,
        }
    }
}

impl Subsystem for WebSessionActor {
    const NAME: &'static str = NAME;
    fn subsystem(&self) -> &SubsystemCtx {
        &self.subsystem
    }
    fn queue_depth(&self) -> usize {
        self.logical.len()
    }
    fn reset(&mut self) {
        self.by_cookie.clear();
        self.logical.clear();
    }
    fn on_start(&mut self, ctx: &mut Context<Self>) {
        ctx.run_interval(std::time::Duration::from_secs(30), |act, _| act.sweep());
    }
}

crate::subsystem_actor!(WebSessionActor);

impl Handler<WebSignIn> for WebSessionActor {
    type Result = ResponseActFuture<Self, Result<Issued, WebError>>;
    fn handle(&mut self, msg: WebSignIn, _: &mut Context<Self>) -> Self::Result {
        let check = self.auth.send(CheckPassphrase { password: msg.passphrase, source: msg.source });
        let replaces = msg.replaces;
        Box::pin(check.into_actor(self).map(move |reply, act, _| {
            reply.map_err(|_| WebError::SignIn(RecordError::Unavailable))?.map_err(WebError::SignIn)?;
            if let Some(old) = replaces.and_then(|c| act.by_cookie.get(&c).cloned()) {
                act.destroy(&old);
            }
            act.sweep();
            if act.logical.len() >= act.config.max_sessions {
                return Err(WebError::Full);
            }
            let now = act.subsystem.now_ms();
            let (id, cookie) = (token(), token());
            act.by_cookie.insert(cookie.clone(), id.clone());
            act.logical.insert(id.clone(), Logical::new(cookie, now));
            Ok(act.issue(&id))
        }))
    }
}

impl Handler<Authorize> for WebSessionActor {
    type Result = Result<WebGrant, WebError>;
    fn handle(&mut self, msg: Authorize, _: &mut Context<Self>) -> Self::Result {
        let id = self.authorize(msg.cookie.as_deref(), msg.csrf.as_deref(), msg.kind)?;
        let l = self.logical.get(&id).ok_or(WebError::NoSession)?;
        Ok(WebGrant { binding: l.binding.clone(), ended: l.ended.subscribe() })
    }
}

impl Handler<Refresh> for WebSessionActor {
    type Result = Result<Issued, WebError>;
    fn handle(&mut self, msg: Refresh, _: &mut Context<Self>) -> Self::Result {
        let id = self.authorize(msg.cookie.as_deref(), msg.csrf.as_deref(), RequestKind::Write)?;
        let (cookie, csrf) = (token(), token());
        let l = self.logical.get_mut(&id).ok_or(WebError::NoSession)?;
        let old = std::mem::replace(&mut l.cookie, cookie.clone());
        l.csrf = csrf;
        self.by_cookie.remove(&old);
        self.by_cookie.insert(cookie, id.clone());
        Ok(self.issue(&id))
    }
}

impl Handler<Resume> for WebSessionActor {
    type Result = Result<Issued, WebError>;
    fn handle(&mut self, msg: Resume, _: &mut Context<Self>) -> Self::Result {
        // Counted and idle-touched like a read: it proves only the cookie.
        let id = self.authorize(msg.cookie.as_deref(), None, RequestKind::Read)?;
        Ok(self.issue(&id))
    }
}

impl Handler<Logout> for WebSessionActor {
    type Result = Result<(), WebError>;
    fn handle(&mut self, msg: Logout, _: &mut Context<Self>) -> Self::Result {
        let Ok(id) = self.live(msg.cookie.as_deref()) else {
            return Ok(());
        };
        self.check_csrf(&id, msg.csrf.as_deref())?;
        self.destroy(&id);
        Ok(())
    }
}

impl Handler<IssueConnection> for WebSessionActor {
    type Result = ResponseActFuture<Self, Result<Value, WebError>>;
    fn handle(&mut self, msg: IssueConnection, _: &mut Context<Self>) -> Self::Result {
        let id = match self.authorize(msg.cookie.as_deref(), msg.csrf.as_deref(), RequestKind::Write) {
            Ok(id) => id,
            Err(e) => return Box::pin(actix::fut::ready(Err(e))),
        };
        let Some(binding) = self.logical.get(&id).map(|l| l.binding.clone()) else {
            return Box::pin(actix::fut::ready(Err(WebError::NoSession)));
        };
        let request = self.auth.send(IssueToken { ttl_secs: self.config.token_ttl_secs, web_session: binding });
        Box::pin(request.into_actor(self).map(move |reply, act, _| {
            let token = reply.map_err(|_| WebError::SignIn(RecordError::Unavailable))?;
            // The session may have ended (logout, replacement, expiry) while the token was being
            // issued: a request authorized before that must not hand out a connection now.
            let now = act.subsystem.now_ms();
            match act.logical.get(&id) {
                Some(l) if !act.expired(l, now) => Ok(token),
                _ => Err(WebError::NoSession),
            }
        }))
    }
}

impl Handler<CountSessions> for WebSessionActor {
    type Result = usize;
    fn handle(&mut self, _: CountSessions, _: &mut Context<Self>) -> usize {
        self.logical.len()
    }
}

#[cfg(test)]
mod tests;
