//! The budgets in front of protected password checks. Checks from LAN addresses (Relay Web
//! protected sign-in and password confirmation, paired laptops' reauthentication) go through
//! `domain::signin_guard::SignInGuard` with the reauthentication numbers of
//! [`PrivilegedLimits`](super::PrivilegedLimits): a source that has not failed recently may always
//! try, so other addresses' failures never lock the Owner out, while failing sources are held
//! back by their own, their network's (/24 or /48) and the global budget. The server PC's own
//! checks (the control socket's CLI commands, `relay admin ... --as` included, the Administration
//! screen) have a separate budget under [`LOCAL_SOURCE`] that LAN failures never touch and that
//! spends no LAN budget; `relay admin` with no server running spends the same budget in the store
//! ([`check_on_server_pc_in_store`]). Only wrong
//! passwords count; a refused attempt never reaches the password check. LAN refusals are logged
//! at most once per source a minute (30 lines a minute in all) with a count of the suppressed
//! ones. Both budgets are kept in the store under their own scopes; the scope of the earlier
//! single limiter (addresses, its global bucket and the local budget under `::1`) is read as the
//! LAN sources and global budget and the local budget, so an upgrade forgives nothing.

use std::net::IpAddr;

use domain::ratelimit::{BucketConfig, KeyedLimiter, LimiterSnapshot};
use domain::signin_guard::{source_key, LogThrottle, SignInGuard, SignInLimits, SignInSnapshot};
use infra::rate_limits::{RateLimitStore, ScopeSnapshot};

use super::{limited, PrivError};
use crate::kit::{PersistedLimits, SubsystemCtx};

/// The limiter key of server-local password checks (sign-in and reconfirmation on the server
/// PC, the control socket's CLI commands): one budget, apart from every LAN address.
pub const LOCAL_SOURCE: IpAddr = IpAddr::V6(std::net::Ipv6Addr::LOCALHOST);

/// Store scopes: LAN sources with the LAN global budget (the scope the earlier single limiter
/// used), LAN networks, and the server PC's budget.
const SCOPE_REAUTH: &str = "privileged.reauth";
const SCOPE_REAUTH_NETWORKS: &str = "privileged.reauth.network";
const SCOPE_LOCAL: &str = "privileged.local";

/// Refused LAN attempts log one line per source per minute (with a count of the rest)...
const REFUSAL_LOG_WINDOW_SECS: f64 = 60.0;
/// ...and at most this many lines a minute in all.
const REFUSAL_LOG_PER_MIN: f64 = 30.0;

#[derive(Debug, Clone)]
pub struct ReauthGuard {
    lan_limits: SignInLimits,
    lan: SignInGuard,
    local: KeyedLimiter<IpAddr>,
    refusal_log: LogThrottle,
}

impl ReauthGuard {
    pub fn new(lan_limits: SignInLimits, local: BucketConfig) -> ReauthGuard {
        ReauthGuard {
            lan_limits,
            lan: SignInGuard::new(lan_limits),
            local: KeyedLimiter::new(local, None, 1),
            refusal_log: LogThrottle::new(REFUSAL_LOG_WINDOW_SECS, REFUSAL_LOG_PER_MIN, lan_limits.max_tracked),
        }
    }

    /// A password check from the LAN address `source`: `RateLimited` before the password is
    /// looked at while the guard holds the source back; a wrong password counts against the
    /// source, its network and the global budget, a right one clears the source's own failures.
    pub fn check_from_lan<T>(
        &mut self,
        source: IpAddr,
        now: u64,
        check: impl FnOnce() -> Result<T, PrivError>,
    ) -> Result<T, PrivError> {
        let decision = self.lan.check(source, now);
        if !decision.is_allowed() {
            if let Some(suppressed) = self.refusal_log.admit(source, now) {
                tracing::warn!(%source, suppressed, "protected password check refused: too many failed attempts");
            }
            return Err(PrivError::RateLimited { retry_after_secs: decision.retry_after_secs() });
        }
        let result = check();
        match &result {
            Ok(_) => self.lan.record_success(source),
            Err(PrivError::InvalidCredentials) => self.lan.record_failure(source, now),
            Err(_) => {}
        }
        result
    }

    /// A password check on the server PC behind its own budget (once it is spent, the right
    /// password waits too).
    pub fn check_on_server_pc<T>(
        &mut self,
        now: u64,
        check: impl FnOnce() -> Result<T, PrivError>,
    ) -> Result<T, PrivError> {
        limited(&mut self.local, LOCAL_SOURCE, now, is_wrong_password, check)
    }

    /// Adopts the budgets a previous run left in the store, the earlier single limiter's
    /// snapshot included.
    pub fn restore(&mut self, persisted: &PersistedLimits, ctx: &SubsystemCtx, actor: &'static str) {
        let sources: LimiterSnapshot<IpAddr> = persisted.load(SCOPE_REAUTH, ctx, actor);
        let mut local: LimiterSnapshot<IpAddr> = persisted.load(SCOPE_LOCAL, ctx, actor);
        let (legacy_local, lan): (Vec<_>, Vec<_>) = sources.keys.into_iter().partition(|(key, _)| *key == LOCAL_SOURCE);
        adopt_legacy_local(&mut local, legacy_local);
        let lan = lan.into_iter().map(|(key, state)| (source_key(key), state)).collect();
        let snapshot = SignInSnapshot {
            sources: LimiterSnapshot { global: None, keys: lan },
            networks: persisted.load(SCOPE_REAUTH_NETWORKS, ctx, actor),
            global: sources.global,
        };
        self.lan.restore(snapshot, self.lan_limits);
        self.local.restore(local);
    }

    /// The budgets' store scopes as of `now`.
    pub fn scopes(&self, now: u64) -> Vec<ScopeSnapshot> {
        let lan = self.lan.snapshot(now);
        let sources = LimiterSnapshot { global: lan.global, keys: lan.sources.keys };
        vec![
            ScopeSnapshot::new(SCOPE_REAUTH, &sources),
            ScopeSnapshot::new(SCOPE_REAUTH_NETWORKS, &lan.networks),
            ScopeSnapshot::new(SCOPE_LOCAL, &self.local.snapshot(now)),
        ]
    }
}

/// Only wrong passwords spend a budget.
fn is_wrong_password(e: &PrivError) -> bool {
    matches!(e, PrivError::InvalidCredentials)
}

/// The earlier single limiter kept the server PC's budget under `::1` among the LAN sources: it is
/// the server PC's budget while the local scope holds none.
fn adopt_legacy_local(local: &mut LimiterSnapshot<IpAddr>, legacy: Vec<(IpAddr, domain::ratelimit::BucketState)>) {
    if local.keys.is_empty() {
        local.keys = legacy;
    }
}

/// A password check on the server PC with no privileged actor running (`relay admin` while no
/// server runs): the server PC's budget is read from `store` (as a starting server reads it),
/// spent or kept like [`ReauthGuard::check_on_server_pc`], and written back before the answer,
/// so failures count across CLI runs and a server started later adopts them. A store that
/// cannot be read or written refuses the check (`Internal`).
pub fn check_on_server_pc_in_store<T>(
    store: &RateLimitStore,
    config: BucketConfig,
    now: u64,
    check: impl FnOnce() -> Result<T, PrivError>,
) -> Result<T, PrivError> {
    let unavailable = |e: infra::db::DbError| {
        tracing::error!(error = %e, "the server PC's password budget is not readable");
        PrivError::Internal
    };
    let mut local: LimiterSnapshot<IpAddr> = store.load(SCOPE_LOCAL).map_err(unavailable)?;
    if local.keys.is_empty() {
        let sources: LimiterSnapshot<IpAddr> = store.load(SCOPE_REAUTH).map_err(unavailable)?;
        adopt_legacy_local(&mut local, sources.keys.into_iter().filter(|(key, _)| *key == LOCAL_SOURCE).collect());
    }
    let mut limiter = KeyedLimiter::new(config, None, 1);
    limiter.restore(local);
    let result = limited(&mut limiter, LOCAL_SOURCE, now, is_wrong_password, check);
    store.save(&[ScopeSnapshot::new(SCOPE_LOCAL, &limiter.snapshot(now))]).map_err(unavailable)?;
    result
}
