//! The privileged-commands actor: the server's door to protected identity. It wraps
//! `PrivilegedService` (bootstrap, pairing, reauthentication proofs, the signed-envelope
//! pipeline, server-local sessions) and owns the budgets of password checks (`reauth_guard`: LAN
//! sources under the sign-in guard's rule, the server PC apart) and the pairing limiter, all kept
//! in the store across restarts (`kit::PersistedLimits`). Commands arrive through one message,
//! `run::RunCommand`, and actions outside the command enum through one, `run::Authorize`, both
//! naming the caller's origin (a signed envelope, a session, the CLI). It runs on its own arbiter, so its
//! blocking database work never stalls other actors. Signed bodies are processed in memory and
//! never stored or published.

pub mod admin_ops;
pub mod commands;
pub mod dynatrace_ops;
pub mod error;
pub mod pairing;
pub mod password_check;
mod reauth_guard;
pub mod run;
pub mod service;
pub mod session_ops;
pub mod session_policy;
pub mod sessions;

use std::net::IpAddr;

use actix::prelude::*;
use serde_json::Value;

use domain::envelope::PublicJwk;
use domain::ratelimit::{BucketConfig, KeyedLimiter};
use domain::signin_guard::SignInLimits;

use crate::kit::{guarded, PersistedLimits, Subsystem, SubsystemCtx, FLUSH_INTERVAL};
/// The Wiki's handlers and their hooks live in `crate::wiki`; the service is given them here.
pub use crate::wiki::WikiHooks;
pub use admin_ops::AdminOpError;
pub use dynatrace_ops::DynatraceHooks;
pub use error::PrivError;
use infra::rate_limits::{RateLimitStore, ScopeSnapshot};
use reauth_guard::ReauthGuard;
pub use run::{Authorize, Caller, Cli, CliAdmin, CliScope, NamedCommand, Origin, RunCommand, Session, Signed};
pub use service::{CommandOutcome, FollowUp, PrivilegedService, Readiness};
pub use session_ops::{
    ConfirmBrowserPassword, EndSession, OpenBrowserSession, OpenLocalSession, ReconfirmLocalPassword, SessionStatus,
};
pub use session_policy::SessionKind;
use sessions::SessionTable;

pub const NAME: &str = "privileged";
/// Largest accepted reauthentication body.
pub const MAX_REAUTH_BODY: usize = 4 * 1024;

/// The failure budgets of password checks and pairing codes. `Default`: from LAN addresses 5
/// wrong passwords per source (IPv4 address or IPv6 /64), then one per 30 s; 10 per network
/// (/24 or /48), then one per 10 s; 20 in all, then one per 5 s, the shared budgets holding back
/// only failing sources. On the server PC 5, then one per 30 s. Pairing codes 10 per source,
/// then one per 30 s.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PrivilegedLimits {
    /// Relay Web protected sign-in and confirmation, paired laptops' reauthentication.
    pub reauth: SignInLimits,
    /// The server PC's Administration screen and the control socket's CLI commands.
    pub local: BucketConfig,
    pub pairing_per_source: BucketConfig,
}

impl Default for PrivilegedLimits {
    fn default() -> Self {
        PrivilegedLimits {
            reauth: SignInLimits {
                per_source: BucketConfig { capacity: 5.0, refill_per_sec: 1.0 / 30.0 },
                per_network: BucketConfig { capacity: 10.0, refill_per_sec: 0.1 },
                global: BucketConfig { capacity: 20.0, refill_per_sec: 0.2 },
                max_tracked: 4096,
            },
            local: BucketConfig { capacity: 5.0, refill_per_sec: 1.0 / 30.0 },
            pairing_per_source: BucketConfig { capacity: 10.0, refill_per_sec: 1.0 / 30.0 },
        }
    }
}

/// A laptop's pairing: the account's password and the one-time code from the server PC bind
/// the laptop's public key as a device of that account.
#[derive(Message)]
#[rtype(result = "Result<pairing::PairedDevice, PrivError>")]
pub struct CompletePairing {
    pub username: String,
    pub code: String,
    pub public_jwk: PublicJwk,
    pub label: String,
    pub hostname: String,
    pub source: IpAddr,
}

/// A paired device's reauthentication with the account's password: answers a
/// reauthentication proof's id and expiry (ms), stored; per-source and server-PC budgets apply.
#[derive(Message)]
#[rtype(result = "Result<(String, i64), PrivError>")]
pub struct Reauth {
    pub account_id: String,
    pub device_id: String,
    pub password: String,
    pub source: IpAddr,
}

/// What the server PC's Administration screen may know of its session (never its id).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct LocalSessionView {
    pub username: String,
    pub role: &'static str,
    /// When the session idle-locks (15 minutes after the last privileged command).
    pub lock_at_ms: i64,
}

impl LocalSessionView {
    fn of(session: &sessions::LocalSession) -> LocalSessionView {
        LocalSessionView {
            username: session.username.clone(),
            role: session.role.as_str(),
            lock_at_ms: session.last_activity_ms + session_policy::IDLE_LOCK_MS,
        }
    }
}

/// Clears every local session and every Relay Web protected session (disconnect,
/// reconfiguration).
#[derive(Message)]
#[rtype(result = "()")]
pub struct ClearLocalSessions;

/// A Relay sign-out on the server PC's desktop: ends every local session (the Administration
/// screen's), so Administration asks for a password again. Relay Web protected sessions belong
/// to other people's web sessions and stay.
#[derive(Message)]
#[rtype(result = "()")]
pub struct EndLocalSessions;

pub struct PrivilegedActor {
    service: PrivilegedService,
    reauth_guard: ReauthGuard,
    pairing_limiter: KeyedLimiter<IpAddr>,
    persisted: PersistedLimits,
    /// Both families' sessions: the server PC's, and Relay Web's by web-session binding.
    sessions: SessionTable,
    /// False until bootstrap or migration succeeded; every request is refused meanwhile.
    ready: bool,
    subsystem: SubsystemCtx,
    /// Runs `dynatrace.testConnection` after its authorized step (absent without Dynatrace).
    dynatrace_test: Option<Recipient<crate::dynatrace::TestConnection>>,
}

impl PrivilegedActor {
    pub fn new(subsystem: SubsystemCtx, service: PrivilegedService, limits: PrivilegedLimits) -> Self {
        PrivilegedActor {
            service,
            reauth_guard: ReauthGuard::new(limits.reauth, limits.local),
            pairing_limiter: KeyedLimiter::new(limits.pairing_per_source, None, 4096),
            persisted: PersistedLimits::default(),
            sessions: SessionTable::default(),
            ready: false,
            subsystem,
            dynatrace_test: None,
        }
    }

    /// Lets `dynatrace.testConnection` reach the Dynatrace actor.
    pub fn with_dynatrace_test(mut self, test: Recipient<crate::dynatrace::TestConnection>) -> PrivilegedActor {
        self.dynatrace_test = Some(test);
        self
    }

    /// Finishes a command that needs network work after its authorized step.
    fn follow_up(&self, follow_up: Option<FollowUp>, result: Value) -> ResponseFuture<Result<Value, PrivError>> {
        match follow_up {
            None => Box::pin(async move { Ok(result) }),
            Some(FollowUp::DynatraceTestConnection) => {
                let test = self.dynatrace_test.clone();
                Box::pin(async move {
                    let test =
                        test.ok_or_else(|| PrivError::Invalid("Dynatrace is not available on this server".into()))?;
                    match test.send(crate::dynatrace::TestConnection).await {
                        Ok(Ok(outcome)) => Ok(serde_json::json!({"ok": outcome.ok, "message": outcome.message})),
                        _ => Err(PrivError::Internal),
                    }
                })
            }
        }
    }

    /// A command's answer: its follow-up network work when it has one; a refusal reported first.
    fn respond(&self, run: Result<(Value, Option<FollowUp>), PrivError>) -> ResponseFuture<Result<Value, PrivError>> {
        match run {
            Ok((result, follow_up)) => self.follow_up(follow_up, result),
            Err(e) => {
                self.fail(&e);
                Box::pin(async move { Err(e) })
            }
        }
    }

    fn now(&self) -> u64 {
        self.subsystem.now_ms().max(0) as u64
    }

    /// Keeps the password-check budgets and the pairing limiter in `store` across restarts.
    pub fn persisting(mut self, store: RateLimitStore) -> PrivilegedActor {
        self.persisted = PersistedLimits::new(store);
        self.reauth_guard.restore(&self.persisted, &self.subsystem, NAME);
        let pairing = self.persisted.load(SCOPE_PAIRING, &self.subsystem, NAME);
        self.pairing_limiter.restore(pairing);
        self
    }

    /// Writes the limiters' snapshots when they changed (taken only then: this runs every second).
    fn flush_limits(&mut self) {
        let now = self.now();
        let (reauth, pairing) = (&self.reauth_guard, &self.pairing_limiter);
        self.persisted.flush(&self.subsystem, NAME, || {
            let mut scopes = reauth.scopes(now);
            scopes.push(ScopeSnapshot::new(SCOPE_PAIRING, &pairing.snapshot(now)));
            scopes
        });
    }

    fn check_ready(&self) -> Result<(), PrivError> {
        if self.ready {
            Ok(())
        } else {
            Err(PrivError::NotBootstrapped)
        }
    }

    fn fail(&self, e: &PrivError) {
        if matches!(e, PrivError::Internal) {
            self.subsystem.report_failure(NAME, "privileged store error (see log)");
        }
    }
}

/// Store scope of the persisted pairing limiter (the password budgets' are `reauth_guard`'s).
const SCOPE_PAIRING: &str = "privileged.pairing";

/// Runs `attempt` behind `limiter`: refused while the source's bucket is empty; failures of
/// the kinds in `counted` take a token.
fn limited<T>(
    limiter: &mut KeyedLimiter<IpAddr>,
    source: IpAddr,
    now: u64,
    counted: fn(&PrivError) -> bool,
    attempt: impl FnOnce() -> Result<T, PrivError>,
) -> Result<T, PrivError> {
    let decision = limiter.peek(&source, now);
    if !decision.is_allowed() {
        return Err(PrivError::RateLimited { retry_after_secs: decision.retry_after_secs() });
    }
    let result = attempt();
    if let Err(e) = &result {
        if counted(e) {
            limiter.try_take(&source, now);
        }
    }
    result
}

impl Subsystem for PrivilegedActor {
    const NAME: &'static str = NAME;
    fn subsystem(&self) -> &SubsystemCtx {
        &self.subsystem
    }
    fn queue_depth(&self) -> usize {
        self.sessions.len()
    }
    fn reset(&mut self) {
        self.sessions.clear();
    }
    fn on_start(&mut self, ctx: &mut Context<Self>) {
        ctx.run_interval(FLUSH_INTERVAL, |act, _| act.flush_limits());
        self.ready = match self.service.ensure_ready() {
            Ok(Readiness::Ready) => true,
            Ok(Readiness::Bootstrapped) => {
                tracing::info!("created the bootstrap Administrator accounts (inactive, no credential)");
                true
            }
            Ok(Readiness::Migrated(n)) => {
                tracing::info!(accounts = n, "converted the legacy operator roster to protected accounts");
                true
            }
            Ok(Readiness::Deferred(reasons)) => {
                let reasons = reasons.join("; ");
                tracing::error!(reasons = %reasons, "role-account migration deferred; privileged commands stay off");
                self.subsystem.report_failure(NAME, format!("role-account migration deferred: {reasons}"));
                false
            }
            Err(e) => {
                self.subsystem.report_failure(NAME, format!("privileged start failed: {e}"));
                false
            }
        };
    }
}

crate::subsystem_actor!(PrivilegedActor);

impl Handler<CompletePairing> for PrivilegedActor {
    type Result = Result<pairing::PairedDevice, PrivError>;
    fn handle(&mut self, msg: CompletePairing, ctx: &mut Context<Self>) -> Self::Result {
        self.check_ready()?;
        let now = self.now();
        self.persisted.mark_dirty();
        guarded(self, ctx, |a| {
            let service = &a.service;
            limited(
                &mut a.pairing_limiter,
                msg.source,
                now,
                |e| matches!(e, PrivError::PairingInvalid),
                || service.complete_pairing(&msg.username, &msg.code, &msg.public_jwk, &msg.label, &msg.hostname),
            )
        })
        .unwrap_or(Err(PrivError::Internal))
    }
}

impl Handler<Reauth> for PrivilegedActor {
    type Result = Result<(String, i64), PrivError>;
    fn handle(&mut self, msg: Reauth, ctx: &mut Context<Self>) -> Self::Result {
        self.check_ready()?;
        let now = self.now();
        self.persisted.mark_dirty();
        let result = guarded(self, ctx, |a| {
            let service = &a.service;
            a.reauth_guard
                .check_from_lan(msg.source, now, || service.reauth(&msg.account_id, &msg.device_id, &msg.password))
        })
        .unwrap_or(Err(PrivError::Internal));
        if let Err(e) = &result {
            self.fail(e);
        }
        result
    }
}

impl PrivilegedActor {
    /// A server-local password check behind the server PC's own budget.
    fn authenticate_locally(&mut self, username: &str, password: &str) -> Result<service::Principal, PrivError> {
        let now = self.now();
        self.persisted.mark_dirty();
        let service = &self.service;
        self.reauth_guard.check_on_server_pc(now, || service.authenticate(username, password))
    }
}

impl Handler<ClearLocalSessions> for PrivilegedActor {
    type Result = ();
    fn handle(&mut self, _: ClearLocalSessions, _: &mut Context<Self>) {
        self.sessions.clear();
    }
}

impl Handler<EndLocalSessions> for PrivilegedActor {
    type Result = ();
    fn handle(&mut self, _: EndLocalSessions, _: &mut Context<Self>) {
        self.sessions.of(SessionKind::Local).clear();
    }
}

#[cfg(test)]
mod reauth_guard_tests;
#[cfg(test)]
mod tests;
