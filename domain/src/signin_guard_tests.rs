//! Sign-in guard rules with explicit times: other sources' failures never lock out a clean
//! source, failing sources are stopped by their own, their network's and the global budget,
//! IPv6 sources are their /64, success clears a source, and log lines are throttled.

use std::net::{IpAddr, Ipv4Addr};

use super::*;

fn v4(a: u8, b: u8, c: u8, d: u8) -> IpAddr {
    IpAddr::V4(Ipv4Addr::new(a, b, c, d))
}

fn fail(guard: &mut SignInGuard, ip: IpAddr, now: u64) -> bool {
    let allowed = guard.check(ip, now).is_allowed();
    if allowed {
        guard.record_failure(ip, now);
    }
    allowed
}

#[test]
fn other_sources_failures_never_lock_out_a_clean_source() {
    let mut guard = SignInGuard::new(SignInLimits::default());
    // The review's reproduction: 10 sources x 5 bad attempts (global budget of 50 spent).
    for s in 0..10 {
        for _ in 0..5 {
            assert!(fail(&mut guard, v4(10, 0, s, 1), 0));
        }
    }
    assert!(!guard.check(v4(10, 0, 0, 1), 0).is_allowed(), "a source that spent its own budget waits");
    assert!(guard.check(v4(10, 0, 0, 2), 0).is_allowed(), "a clean neighbour may still try");
    assert!(guard.check(v4(192, 168, 7, 20), 0).is_allowed(), "a clean source elsewhere may try");
}

#[test]
fn failing_sources_are_bounded_by_the_global_budget() {
    let limits = SignInLimits {
        per_source: BucketConfig { capacity: 100.0, refill_per_sec: 1.0 },
        per_network: BucketConfig { capacity: 100.0, refill_per_sec: 1.0 },
        global: BucketConfig { capacity: 3.0, refill_per_sec: 0.5 },
        max_tracked: 64,
    };
    let mut guard = SignInGuard::new(limits);
    for i in 0..3 {
        assert!(fail(&mut guard, v4(10, 0, i, 1), 0));
    }
    // Each fresh address gets one guess, then the spent global budget stops it.
    assert!(fail(&mut guard, v4(10, 0, 99, 1), 0), "first guess of a fresh address");
    let second = guard.check(v4(10, 0, 99, 1), 0);
    assert_eq!(second, Decision::Denied { retry_after_ms: 2000 });
    assert!(guard.check(v4(10, 0, 0, 1), 0).retry_after_secs() >= 1, "the earlier sources too");
    assert!(guard.check(v4(10, 0, 99, 1), 2000).is_allowed(), "the global budget refills");
}

#[test]
fn failing_sources_are_bounded_by_their_network() {
    let limits = SignInLimits {
        per_source: BucketConfig { capacity: 100.0, refill_per_sec: 1.0 },
        per_network: BucketConfig { capacity: 4.0, refill_per_sec: 0.1 },
        global: BucketConfig { capacity: 1000.0, refill_per_sec: 10.0 },
        max_tracked: 64,
    };
    let mut guard = SignInGuard::new(limits);
    for host in 1..=4 {
        assert!(fail(&mut guard, v4(10, 1, 2, host), 0));
    }
    assert!(!guard.check(v4(10, 1, 2, 1), 0).is_allowed(), "the /24 budget is spent");
    assert!(guard.check(v4(10, 1, 3, 1), 0).is_allowed(), "another /24 is not affected");
    assert!(guard.check(v4(10, 1, 2, 200), 0).is_allowed(), "a clean host in that /24 still may try");
}

#[test]
fn an_ipv6_source_is_its_slash_64() {
    let a: IpAddr = "2001:db8:1:2::1".parse().unwrap();
    let b: IpAddr = "2001:db8:1:2:ffff::9".parse().unwrap();
    let other: IpAddr = "2001:db8:1:3::1".parse().unwrap();
    assert_eq!(source_key(a), source_key(b));
    assert_ne!(source_key(a), source_key(other));
    assert_eq!(network_key(a), network_key(other), "same /48");
    let mapped: IpAddr = "::ffff:10.0.0.7".parse().unwrap();
    assert_eq!(source_key(mapped), v4(10, 0, 0, 7));
    let mut guard = SignInGuard::new(SignInLimits::default());
    for _ in 0..5 {
        assert!(fail(&mut guard, a, 0));
    }
    assert!(!guard.check(b, 0).is_allowed(), "rotating inside the /64 does not reset the budget");
}

#[test]
fn success_clears_the_sources_own_failures() {
    let mut guard = SignInGuard::new(SignInLimits::default());
    let me = v4(192, 168, 1, 5);
    for _ in 0..4 {
        assert!(fail(&mut guard, me, 0));
    }
    guard.record_success(me);
    for _ in 0..5 {
        assert!(fail(&mut guard, me, 0), "a full budget again");
    }
    assert!(!guard.check(me, 0).is_allowed());
}

#[test]
fn refusal_logs_are_one_per_source_per_window_with_a_count() {
    let mut log = LogThrottle::new(60.0, 30.0, 64);
    let me = v4(10, 0, 0, 1);
    assert_eq!(log.admit(me, 0), Some(0));
    for _ in 0..1000 {
        assert_eq!(log.admit(me, 1), None);
    }
    assert_eq!(log.admit(v4(10, 0, 0, 2), 2), Some(1000), "the next line reports what was suppressed");
    assert_eq!(log.admit(me, 60_000), Some(0), "one line per window");
    let mut lines = 0;
    for i in 0..255 {
        if log.admit(v4(172, 16, 0, i), 61_000).is_some() {
            lines += 1;
        }
    }
    assert!(lines <= 30, "a global cap bounds address-spraying: {lines}");
}

#[test]
fn a_restored_guard_keeps_the_failures_it_had() {
    let limits = SignInLimits::default();
    let mut guard = SignInGuard::new(limits);
    let attacker = IpAddr::from([10, 1, 2, 3]);
    for _ in 0..5 {
        guard.record_failure(attacker, 1_000);
    }
    assert!(!guard.check(attacker, 1_000).is_allowed());
    let mut restarted = SignInGuard::new(limits);
    assert!(restarted.check(attacker, 1_000).is_allowed(), "a fresh guard forgives");
    restarted.restore(guard.snapshot(1_000), limits);
    assert_eq!(restarted.check(attacker, 1_000), guard.check(attacker, 1_000), "the restored guard does not");
    assert!(restarted.check(IpAddr::from([10, 9, 9, 9]), 1_000).is_allowed(), "clean sources still get in");
    let snap = restarted.snapshot(1_000);
    assert_eq!(snap.sources.keys.len(), 1);
    assert_eq!(snap.networks.keys.len(), 1);
    assert!(snap.global.is_some());
}
