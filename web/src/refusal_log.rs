//! One throttle for every unauthenticated refusal the HTTP layer logs (a foreign `Host` or a
//! cross-origin request at the Relay Web gateway, a non-loopback `/api/relay/metrics`): the
//! first refusal of a source per minute is logged, later ones are counted and reported as
//! `suppressed` on the next logged line, and at most 30 lines a minute are written overall, so
//! an attacker cannot rotate the security log away with cheap requests. The rule is
//! `domain::signin_guard::LogThrottle`, the one the sign-in refusals use; the clock is the
//! process's monotonic clock. The process keeps one throttle per kind of refusal (a fixed set
//! of names in code), shared by both listeners, so each kind still shows in the log.

use std::collections::HashMap;
use std::net::{IpAddr, Ipv4Addr};
use std::sync::{Mutex, OnceLock};
use std::time::Instant;

use domain::signin_guard::LogThrottle;

/// One line per source per minute...
const WINDOW_SECS: f64 = 60.0;
/// ...and at most this many lines a minute from all sources together.
const LINES_PER_MIN: f64 = 30.0;
/// Sources tracked at once (bounded memory under address spraying).
const MAX_TRACKED: usize = 4096;

/// The kinds of refusal logged through here (one throttle each).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Refusal {
    /// The gateway's `Host` allowlist.
    ForeignHost,
    /// The gateway's `Origin` check.
    CrossOrigin,
    /// `/api/relay/metrics` from anywhere but loopback.
    MetricsNotLoopback,
}

struct Throttles {
    started: Instant,
    by_kind: HashMap<Refusal, LogThrottle>,
}

fn throttles() -> &'static Mutex<Throttles> {
    static THROTTLES: OnceLock<Mutex<Throttles>> = OnceLock::new();
    THROTTLES.get_or_init(|| Mutex::new(Throttles { started: Instant::now(), by_kind: HashMap::new() }))
}

/// Calls `log(suppressed)` when this refusal of `kind` from `source` should be logged
/// (`suppressed`: the refusals of that kind counted since its last logged one); otherwise only
/// counts it. A request without a peer address counts as one unknown source.
pub fn refused(kind: Refusal, source: Option<IpAddr>, log: impl FnOnce(u64)) {
    let source = source.unwrap_or(IpAddr::V4(Ipv4Addr::UNSPECIFIED));
    let admitted = {
        let mut guard = throttles().lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        let now_ms = guard.started.elapsed().as_millis() as u64;
        let throttle =
            guard.by_kind.entry(kind).or_insert_with(|| LogThrottle::new(WINDOW_SECS, LINES_PER_MIN, MAX_TRACKED));
        throttle.admit(source, now_ms)
    };
    if let Some(suppressed) = admitted {
        log(suppressed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    #[test]
    fn many_refusals_from_one_source_write_one_line() {
        let lines = AtomicUsize::new(0);
        let source = Some(IpAddr::V4(Ipv4Addr::new(198, 51, 100, 7)));
        for _ in 0..500 {
            refused(Refusal::CrossOrigin, source, |_| {
                lines.fetch_add(1, Ordering::Relaxed);
            });
        }
        assert_eq!(lines.load(Ordering::Relaxed), 1);
        // Another kind from the same source still gets its own line.
        refused(Refusal::MetricsNotLoopback, source, |_| {
            lines.fetch_add(1, Ordering::Relaxed);
        });
        assert_eq!(lines.load(Ordering::Relaxed), 2);
    }
}
