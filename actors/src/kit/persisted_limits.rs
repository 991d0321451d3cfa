//! Rate limits that must survive a restart (the security model's "authoritative" limits: failed
//! sign-ins, privileged reauthentication, pairing). An actor that owns such limiters keeps one
//! [`PersistedLimits`]: it loads each limiter's snapshot when the actor is built, marks itself
//! dirty when a limiter changes, and its [`FLUSH_INTERVAL`] timer writes the snapshots of a dirty
//! actor in one transaction (`infra::rate_limits`). So a restart forgives at most the last
//! interval's attempts, and a burst of attempts costs at most one write a second, not one each.
//! A failed write is reported to the health actor and retried on the next tick.

use std::str::FromStr;
use std::time::Duration;

use domain::ratelimit::LimiterSnapshot;
use infra::rate_limits::{RateLimitStore, ScopeSnapshot};

use super::SubsystemCtx;

/// How often a dirty actor writes its limiter snapshots.
pub const FLUSH_INTERVAL: Duration = Duration::from_secs(1);

/// One actor's persistence of its limiters (absent in unit tests that need none).
#[derive(Default)]
pub struct PersistedLimits {
    store: Option<RateLimitStore>,
    dirty: bool,
}

impl PersistedLimits {
    pub fn new(store: RateLimitStore) -> PersistedLimits {
        PersistedLimits { store: Some(store), dirty: false }
    }

    /// The stored snapshot of `scope` (empty without a store; an unreadable table is reported
    /// and treated as empty, which the health view shows).
    pub fn load<K: FromStr>(&self, scope: &str, ctx: &SubsystemCtx, actor: &'static str) -> LimiterSnapshot<K> {
        let Some(store) = &self.store else {
            return LimiterSnapshot::default();
        };
        store.load(scope).unwrap_or_else(|e| {
            tracing::error!(actor, scope, error = %e, "could not load persisted rate limits");
            ctx.report_failure(actor, "could not load persisted rate limits");
            LimiterSnapshot::default()
        })
    }

    pub fn mark_dirty(&mut self) {
        self.dirty = self.store.is_some();
    }

    /// Writes the snapshots `scopes` builds when something changed since the last write.
    pub fn flush(&mut self, ctx: &SubsystemCtx, actor: &'static str, scopes: impl FnOnce() -> Vec<ScopeSnapshot>) {
        let (Some(store), true) = (&self.store, self.dirty) else {
            return;
        };
        match store.save(&scopes()) {
            Ok(()) => self.dirty = false,
            Err(e) => {
                tracing::warn!(actor, error = %e, "could not persist rate limits; retrying");
                ctx.report_failure(actor, "could not persist rate limits");
            }
        }
    }
}
