//! The auth actor: app-user sign-in with the shared connection passphrase, token verification
//! and refresh. It owns the token signer, the passphrase fingerprint and the failed-sign-in
//! guard (`domain::signin_guard`: per source, per network and global failure budgets, where
//! only failing sources are held back by the shared ones): a source the guard holds back gets
//! `RateLimited` with a retry time before its guess is even checked, and each failed attempt is
//! counted. Refusal log lines are throttled per source with a count of the suppressed ones.
//! Passphrase comparison is constant-time over SHA-256 digests. Each password sign-in gets a
//! random sign-in id that its token and every refresh of it carry; verifying a token answers
//! its logical session (`infra::token::LogicalSession`: that sign-in, or the Relay Web session
//! the token is bound to), which per-session limits and presence key on.

use std::net::IpAddr;

use actix::prelude::*;
use serde_json::{json, Value};
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

use domain::ratelimit::Decision;
use domain::ratelimit::LimiterSnapshot;
use domain::record::RecordError;
use domain::signin_guard::{LogThrottle, SignInGuard, SignInLimits, SignInSnapshot};
use infra::rate_limits::{RateLimitStore, ScopeSnapshot};
use infra::token::{
    credential_generation, Claims, LogicalSession, TokenLineage, TokenSigner, APP_USER_ID, USERS_COLLECTION_ID,
};

use crate::kit::{guarded, PersistedLimits, Subsystem, SubsystemCtx, FLUSH_INTERVAL};

pub const NAME: &str = "auth";
/// The app user's login identity (PocketBase's username); the legacy email is accepted too.
pub const APP_IDENTITY: &str = "relay";
pub const APP_IDENTITY_EMAIL: &str = "relay@relay.app";
pub const MAX_IDENTITY_LEN: usize = 256;
pub const MAX_PASSWORD_LEN: usize = 1024;
/// Refused and failed sign-ins log one line per source per minute (with a count of the rest)...
const REFUSAL_LOG_WINDOW_SECS: f64 = 60.0;
/// ...and at most this many lines a minute in all.
const REFUSAL_LOG_PER_MIN: f64 = 30.0;

#[derive(Debug, Clone)]
pub struct AuthSettings {
    pub passphrase: String,
    pub token_key: Vec<u8>,
    pub token_ttl_secs: i64,
    pub limits: SignInLimits,
}

/// `POST /api/collections/users/auth-with-password`.
#[derive(Message)]
#[rtype(result = "Result<Value, RecordError>")]
pub struct Login {
    pub identity: String,
    pub password: String,
    pub source: IpAddr,
}

/// Checks an `Authorization` token. `web_session` is the binding of the Relay Web session whose
/// cookie came with the request (gateway), or `None` on the data API: a token verifies only on
/// the surface it was issued for. Answers the token's logical session.
#[derive(Message)]
#[rtype(result = "Result<LogicalSession, RecordError>")]
pub struct VerifyToken {
    pub token: String,
    pub web_session: Option<String>,
}

/// `POST /api/collections/users/auth-refresh` (data API only): a valid data-API token buys a
/// fresh one of the same sign-in; a web-session token is refused (its browser re-fetches
/// through its session).
#[derive(Message)]
#[rtype(result = "Result<Value, RecordError>")]
pub struct RefreshToken {
    pub token: String,
}

/// Issues an app-user token for an already-authenticated Relay Web session (server-internal;
/// no HTTP route reaches it directly), bound to that session's `web_session` binding. `ttl_secs`
/// is capped at the configured token lifetime.
#[derive(Message)]
#[rtype(result = "Value")]
pub struct IssueToken {
    pub ttl_secs: i64,
    pub web_session: String,
}

/// Verifies a passphrase without issuing anything (Relay Web sign-in), under the same
/// failed-attempt limits as app-user sign-in.
#[derive(Message)]
#[rtype(result = "Result<(), RecordError>")]
pub struct CheckPassphrase {
    pub password: String,
    pub source: IpAddr,
}

/// Replaces the passphrase; every token issued under the old one stops verifying.
#[derive(Message)]
#[rtype(result = "()")]
pub struct SetPassphrase {
    pub passphrase: String,
}

pub struct AuthActor {
    settings: AuthSettings,
    signer: TokenSigner,
    passphrase_digest: [u8; 32],
    cgen: String,
    guard: SignInGuard,
    /// Log lines for failed guesses and for refusals, throttled separately.
    failure_log: LogThrottle,
    refusal_log: LogThrottle,
    /// The guard's state in the store, so a restart does not refill an attacker's budget.
    persisted: PersistedLimits,
    subsystem: SubsystemCtx,
}

/// Store scopes of the sign-in guard's three budgets.
const SCOPE_SOURCES: &str = "signin.source";
const SCOPE_NETWORKS: &str = "signin.network";
const SCOPE_GLOBAL: &str = "signin.global";

fn digest(s: &str) -> [u8; 32] {
    let d = Sha256::digest(s.as_bytes());
    let mut out = [0u8; 32];
    out.copy_from_slice(&d);
    out
}

impl AuthActor {
    pub fn new(subsystem: SubsystemCtx, settings: AuthSettings) -> AuthActor {
        let limits = settings.limits;
        AuthActor {
            signer: TokenSigner::new(settings.token_key.clone()),
            passphrase_digest: digest(&settings.passphrase),
            cgen: credential_generation(&settings.passphrase),
            guard: SignInGuard::new(limits),
            failure_log: LogThrottle::new(REFUSAL_LOG_WINDOW_SECS, REFUSAL_LOG_PER_MIN, limits.max_tracked),
            refusal_log: LogThrottle::new(REFUSAL_LOG_WINDOW_SECS, REFUSAL_LOG_PER_MIN, limits.max_tracked),
            settings,
            persisted: PersistedLimits::default(),
            subsystem,
        }
    }

    /// Keeps the failed-sign-in budgets in `store`: adopts what a previous run left there and
    /// writes changes back (`kit::PersistedLimits`).
    pub fn persisting(mut self, store: RateLimitStore) -> AuthActor {
        self.persisted = PersistedLimits::new(store);
        let (persisted, ctx) = (&self.persisted, &self.subsystem);
        let snapshot = SignInSnapshot {
            sources: persisted.load(SCOPE_SOURCES, ctx, NAME),
            networks: persisted.load(SCOPE_NETWORKS, ctx, NAME),
            global: persisted.load::<String>(SCOPE_GLOBAL, ctx, NAME).global,
        };
        self.guard.restore(snapshot, self.settings.limits);
        self
    }

    /// Writes the guard's snapshot when it changed (taken only then: this runs every second).
    fn flush_limits(&mut self) {
        let now = self.now().max(0) as u64;
        let guard = &self.guard;
        self.persisted.flush(&self.subsystem, NAME, || {
            let snapshot = guard.snapshot(now);
            let global = LimiterSnapshot::<String> { global: snapshot.global, keys: Vec::new() };
            vec![
                ScopeSnapshot::new(SCOPE_SOURCES, &snapshot.sources),
                ScopeSnapshot::new(SCOPE_NETWORKS, &snapshot.networks),
                ScopeSnapshot::new(SCOPE_GLOBAL, &global),
            ]
        });
    }

    fn now(&self) -> i64 {
        self.subsystem.now_ms()
    }

    fn auth_response(&self, sign_in: &str) -> Value {
        self.auth_response_with(self.settings.token_ttl_secs, TokenLineage::SignIn(sign_in))
    }

    fn auth_response_with(&self, ttl_secs: i64, lineage: TokenLineage<'_>) -> Value {
        let token = self.signer.issue(self.now(), ttl_secs, &self.cgen, lineage);
        json!({
            "token": token,
            "record": {
                "id": APP_USER_ID,
                "collectionId": USERS_COLLECTION_ID,
                "collectionName": "users",
                "username": APP_IDENTITY,
                "verified": true,
                "emailVisibility": false,
                "created": "2026-01-01 00:00:00.000Z",
                "updated": "2026-01-01 00:00:00.000Z",
            }
        })
    }

    fn rate_limited(decision: Decision) -> RecordError {
        RecordError::RateLimited { retry_after_secs: decision.retry_after_secs() }
    }

    fn login(&mut self, msg: Login) -> Result<Value, RecordError> {
        let now = self.now().max(0) as u64;
        let decision = self.guard.check(msg.source, now);
        if !decision.is_allowed() {
            if let Some(suppressed) = self.refusal_log.admit(msg.source, now) {
                tracing::warn!(source = %msg.source, suppressed, "sign-in refused: too many failed attempts");
            }
            return Err(Self::rate_limited(decision));
        }
        let identity_ok = msg.identity.len() <= MAX_IDENTITY_LEN
            && (msg.identity == APP_IDENTITY || msg.identity.eq_ignore_ascii_case(APP_IDENTITY_EMAIL));
        let password_ok =
            msg.password.len() <= MAX_PASSWORD_LEN && bool::from(digest(&msg.password).ct_eq(&self.passphrase_digest));
        self.persisted.mark_dirty();
        if identity_ok && password_ok {
            self.guard.record_success(msg.source);
            return Ok(self.auth_response(&infra::ids::client_id()));
        }
        self.guard.record_failure(msg.source, now);
        if let Some(suppressed) = self.failure_log.admit(msg.source, now) {
            tracing::warn!(source = %msg.source, suppressed, "sign-in failed");
        }
        Err(RecordError::InvalidCredentials)
    }

    fn verify(&self, token: &str, web_session: Option<&str>) -> Result<Claims, RecordError> {
        let token = token.strip_prefix("Bearer ").unwrap_or(token).trim();
        self.signer.verify(token, self.now(), &self.cgen, web_session).map_err(|_| RecordError::Unauthorized)
    }

    fn logical_session(&self, token: &str, web_session: Option<&str>) -> Result<LogicalSession, RecordError> {
        let claims = self.verify(token, web_session)?;
        Ok(claims.logical_session().unwrap_or_else(|| LogicalSession::of_token(token.trim())))
    }
}

impl Subsystem for AuthActor {
    const NAME: &'static str = NAME;
    fn subsystem(&self) -> &SubsystemCtx {
        &self.subsystem
    }
    fn on_start(&mut self, ctx: &mut Context<Self>) {
        ctx.run_interval(FLUSH_INTERVAL, |act, _| act.flush_limits());
    }
}

crate::subsystem_actor!(AuthActor);

impl Handler<Login> for AuthActor {
    type Result = Result<Value, RecordError>;
    fn handle(&mut self, msg: Login, ctx: &mut Context<Self>) -> Self::Result {
        guarded(self, ctx, |a| a.login(msg)).unwrap_or(Err(RecordError::Internal))
    }
}

impl Handler<VerifyToken> for AuthActor {
    type Result = Result<LogicalSession, RecordError>;
    fn handle(&mut self, msg: VerifyToken, _: &mut Context<Self>) -> Self::Result {
        self.logical_session(&msg.token, msg.web_session.as_deref())
    }
}

impl Handler<RefreshToken> for AuthActor {
    type Result = Result<Value, RecordError>;
    fn handle(&mut self, msg: RefreshToken, _: &mut Context<Self>) -> Self::Result {
        let claims = self.verify(&msg.token, None)?;
        // A token from before tokens carried their sign-in starts one here.
        let sign_in = claims.sign_in.unwrap_or_else(infra::ids::client_id);
        Ok(self.auth_response(&sign_in))
    }
}

impl Handler<IssueToken> for AuthActor {
    type Result = MessageResult<IssueToken>;
    fn handle(&mut self, msg: IssueToken, _: &mut Context<Self>) -> Self::Result {
        let ttl_secs = msg.ttl_secs.clamp(1, self.settings.token_ttl_secs);
        MessageResult(self.auth_response_with(ttl_secs, TokenLineage::WebSession(&msg.web_session)))
    }
}

impl Handler<CheckPassphrase> for AuthActor {
    type Result = Result<(), RecordError>;
    fn handle(&mut self, msg: CheckPassphrase, _: &mut Context<Self>) -> Self::Result {
        let login = Login { identity: APP_IDENTITY.into(), password: msg.password, source: msg.source };
        self.login(login).map(|_| ())
    }
}

impl Handler<SetPassphrase> for AuthActor {
    type Result = ();
    fn handle(&mut self, msg: SetPassphrase, _: &mut Context<Self>) {
        self.passphrase_digest = digest(&msg.passphrase);
        self.cgen = credential_generation(&msg.passphrase);
        self.settings.passphrase = msg.passphrase;
    }
}

#[cfg(test)]
mod tests;
