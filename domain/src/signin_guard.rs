//! The failed-sign-in guard: who may try a passphrase now. Three budgets count failures only:
//! per source (an IPv4 address, or an IPv6 /64, since one host owns a whole /64), per network
//! (an IPv4 /24 or an IPv6 /48) and global. The rule that keeps operators in: a source that has
//! not failed recently (its own budget is full) is always allowed to try, whatever other sources
//! did; the network and global budgets stop only sources that are failing themselves. So
//! guessing spread over many addresses is bounded by one guess per fresh address plus the
//! network and global budgets, and the correct passphrase from a clean address always gets
//! through. Pure rules over `now_ms`; the auth actor owns the state and persists its
//! [`SignInSnapshot`] so a restart does not refill an attacker's budget. [`LogThrottle`] bounds the
//! log lines refused attempts produce (one per source per window, with a count of the rest).

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

use crate::ratelimit::{BucketConfig, BucketState, Decision, KeyedLimiter, LimiterSnapshot, TokenBucket};

/// The budgets. `Default` keeps the legacy per-source numbers (5 failures, then one per 10 s)
/// and global numbers (50, then one per second), and adds 20 failures per network (then one
/// per 2 s).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SignInLimits {
    pub per_source: BucketConfig,
    pub per_network: BucketConfig,
    pub global: BucketConfig,
    /// Sources (and networks) tracked at once; bounded memory under address-spraying.
    pub max_tracked: usize,
}

impl Default for SignInLimits {
    fn default() -> Self {
        SignInLimits {
            per_source: BucketConfig { capacity: 5.0, refill_per_sec: 0.1 },
            per_network: BucketConfig { capacity: 20.0, refill_per_sec: 0.5 },
            global: BucketConfig { capacity: 50.0, refill_per_sec: 1.0 },
            max_tracked: 4096,
        }
    }
}

/// The identity a source's budget is kept under: the IPv4 address (IPv4-mapped IPv6 included),
/// or the IPv6 /64.
pub fn source_key(ip: IpAddr) -> IpAddr {
    match canonical(ip) {
        IpAddr::V6(v6) => IpAddr::V6(mask_v6(v6, 64)),
        v4 => v4,
    }
}

/// The network a source belongs to: its IPv4 /24 or IPv6 /48.
pub fn network_key(ip: IpAddr) -> IpAddr {
    match canonical(ip) {
        IpAddr::V4(v4) => {
            let [a, b, c, _] = v4.octets();
            IpAddr::V4(Ipv4Addr::new(a, b, c, 0))
        }
        IpAddr::V6(v6) => IpAddr::V6(mask_v6(v6, 48)),
    }
}

fn canonical(ip: IpAddr) -> IpAddr {
    match ip {
        IpAddr::V6(v6) => v6.to_ipv4_mapped().map(IpAddr::V4).unwrap_or(IpAddr::V6(v6)),
        v4 => v4,
    }
}

fn mask_v6(ip: Ipv6Addr, prefix: u32) -> Ipv6Addr {
    Ipv6Addr::from(u128::from(ip) & (u128::MAX << (128 - prefix)))
}

/// The guard's state worth keeping across a restart (partly drained budgets only).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SignInSnapshot {
    pub sources: LimiterSnapshot<IpAddr>,
    pub networks: LimiterSnapshot<IpAddr>,
    pub global: Option<BucketState>,
}

#[derive(Debug, Clone)]
pub struct SignInGuard {
    sources: KeyedLimiter<IpAddr>,
    networks: KeyedLimiter<IpAddr>,
    global: TokenBucket,
}

impl SignInGuard {
    pub fn new(limits: SignInLimits) -> SignInGuard {
        SignInGuard {
            sources: KeyedLimiter::new(limits.per_source, None, limits.max_tracked),
            networks: KeyedLimiter::new(limits.per_network, None, limits.max_tracked),
            global: TokenBucket::new(limits.global, 0),
        }
    }

    /// May `ip` try a passphrase now? Never mutates.
    pub fn check(&self, ip: IpAddr, now_ms: u64) -> Decision {
        let source = source_key(ip);
        let own = self.sources.peek(&source, now_ms);
        if !own.is_allowed() || self.sources.is_fresh(&source, now_ms) {
            return own;
        }
        self.networks.peek(&network_key(ip), now_ms).combine(self.global.peek(now_ms))
    }

    /// Counts a failed attempt against the source, its network and the global budget.
    pub fn record_failure(&mut self, ip: IpAddr, now_ms: u64) {
        self.sources.try_take(&source_key(ip), now_ms);
        self.networks.try_take(&network_key(ip), now_ms);
        self.global.try_take(now_ms);
    }

    pub fn snapshot(&self, now_ms: u64) -> SignInSnapshot {
        SignInSnapshot {
            sources: self.sources.snapshot(now_ms),
            networks: self.networks.snapshot(now_ms),
            global: Some(self.global.state()).filter(|_| !self.global.is_full(now_ms)),
        }
    }

    /// Adopts a persisted snapshot (bounded and clamped like every restore).
    pub fn restore(&mut self, snapshot: SignInSnapshot, limits: SignInLimits) {
        self.sources.restore(snapshot.sources);
        self.networks.restore(snapshot.networks);
        if let Some(global) = snapshot.global {
            self.global = TokenBucket::restored(limits.global, global);
        }
    }

    /// A correct passphrase clears the source's own failures (not the shared budgets).
    pub fn record_success(&mut self, ip: IpAddr) {
        self.sources.reset_key(&source_key(ip));
    }
}

/// Bounds log lines for refused attempts: the first refusal of a source in each window is
/// logged, later ones are counted and reported with the next logged line; a global budget caps
/// the lines from address-spraying.
#[derive(Debug, Clone)]
pub struct LogThrottle {
    per_source: KeyedLimiter<IpAddr>,
    suppressed: u64,
}

impl LogThrottle {
    /// One line per source per `window_secs`, at most `global_per_min` lines a minute overall.
    pub fn new(window_secs: f64, global_per_min: f64, max_tracked: usize) -> LogThrottle {
        let per_source = BucketConfig { capacity: 1.0, refill_per_sec: 1.0 / window_secs.max(1.0) };
        let global = BucketConfig { capacity: global_per_min, refill_per_sec: global_per_min / 60.0 };
        LogThrottle { per_source: KeyedLimiter::new(per_source, Some(global), max_tracked), suppressed: 0 }
    }

    /// `Some(n)` when this event should be logged, `n` being the events suppressed since the
    /// last logged one; `None` when it is counted instead.
    pub fn admit(&mut self, ip: IpAddr, now_ms: u64) -> Option<u64> {
        if self.per_source.try_take(&source_key(ip), now_ms).is_allowed() {
            Some(std::mem::take(&mut self.suppressed))
        } else {
            self.suppressed += 1;
            None
        }
    }
}

#[cfg(test)]
#[path = "signin_guard_tests.rs"]
mod tests;
