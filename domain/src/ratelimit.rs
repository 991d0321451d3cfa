//! Token-bucket rate limiting with no clock of its own: every call takes `now_ms`, so the
//! same rules run identically in production and in tests. This module owns the bucket
//! arithmetic (refill, retry-after), a single [`TokenBucket`], and [`KeyedLimiter`], the one
//! reusable limiter for per-key limits (per IP, per account, ...) optionally combined with a
//! global bucket, with a bounded number of tracked keys. Time moving backwards never adds
//! tokens and never panics; it is treated as "no time has passed". Limiters that must survive a
//! restart export a [`LimiterSnapshot`] (only partly drained buckets, so it stays small) and are
//! rebuilt from one; restored values are clamped, so a damaged snapshot can never add tokens.

use std::collections::HashMap;
use std::hash::Hash;

/// `retry_after_ms` reported when a bucket can never refill (refill rate of zero, or a
/// capacity below one token). Half of `u64::MAX` so callers can add it to a timestamp
/// without overflowing.
pub const NEVER_MS: u64 = u64::MAX / 2;

/// Tolerance for floating-point drift in token arithmetic.
const EPSILON: f64 = 1e-9;

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BucketConfig {
    /// Maximum (and initial) number of tokens.
    pub capacity: f64,
    /// Tokens added per second. Zero means the bucket never refills.
    pub refill_per_sec: f64,
}

impl BucketConfig {
    /// Non-finite or negative values are treated as zero.
    fn sanitized(self) -> (f64, f64) {
        let clean = |v: f64| if v.is_finite() && v > 0.0 { v } else { 0.0 };
        (clean(self.capacity), clean(self.refill_per_sec))
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Decision {
    Allowed,
    Denied { retry_after_ms: u64 },
}

impl Decision {
    pub fn is_allowed(&self) -> bool {
        matches!(self, Decision::Allowed)
    }

    /// Whole seconds for a `Retry-After` header: `ceil(ms / 1000)`, at least 1 when denied,
    /// 0 when allowed.
    pub fn retry_after_secs(&self) -> u64 {
        match self {
            Decision::Allowed => 0,
            Decision::Denied { retry_after_ms } => retry_after_ms.div_ceil(1000).max(1),
        }
    }

    /// Denied if either is denied; the wait is the longer of the two.
    pub fn combine(self, other: Decision) -> Decision {
        match (self, other) {
            (Decision::Allowed, Decision::Allowed) => Decision::Allowed,
            (Decision::Allowed, denied) | (denied, Decision::Allowed) => denied,
            (Decision::Denied { retry_after_ms: a }, Decision::Denied { retry_after_ms: b }) => {
                Decision::Denied { retry_after_ms: a.max(b) }
            }
        }
    }
}

/// A bucket's persisted state: tokens left as of `last_ms` (wall-clock milliseconds).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BucketState {
    pub tokens: f64,
    pub last_ms: u64,
}

/// What a [`KeyedLimiter`] must remember across a restart: its partly drained key buckets (at
/// most `max_keys`) and its global bucket when that is not full.
#[derive(Debug, Clone, PartialEq)]
pub struct LimiterSnapshot<K> {
    pub global: Option<BucketState>,
    pub keys: Vec<(K, BucketState)>,
}

impl<K> Default for LimiterSnapshot<K> {
    fn default() -> Self {
        LimiterSnapshot { global: None, keys: Vec::new() }
    }
}

#[derive(Debug, Clone)]
pub struct TokenBucket {
    config: BucketConfig,
    tokens: f64,
    last_ms: u64,
}

impl TokenBucket {
    /// A full bucket as of `now_ms`.
    pub fn new(config: BucketConfig, now_ms: u64) -> Self {
        TokenBucket { config, tokens: config.sanitized().0, last_ms: now_ms }
    }

    /// A bucket restored from persisted state. Tokens are clamped to `0..=capacity` (a
    /// non-finite value counts as empty), so a damaged record can only be stricter.
    pub fn restored(config: BucketConfig, state: BucketState) -> Self {
        let capacity = config.sanitized().0;
        let tokens = if state.tokens.is_finite() { state.tokens.clamp(0.0, capacity) } else { 0.0 };
        TokenBucket { config, tokens, last_ms: state.last_ms }
    }

    /// The state to persist.
    pub fn state(&self) -> BucketState {
        BucketState { tokens: self.tokens, last_ms: self.last_ms }
    }

    /// Whether one token is available at `now_ms`, without taking it.
    pub fn peek(&self, now_ms: u64) -> Decision {
        self.decide(self.tokens(now_ms))
    }

    /// Takes one token if one is available at `now_ms`.
    pub fn try_take(&mut self, now_ms: u64) -> Decision {
        self.refill(now_ms);
        let decision = self.decide(self.tokens);
        if decision.is_allowed() {
            self.tokens = (self.tokens - 1.0).max(0.0);
        }
        decision
    }

    /// Tokens available at `now_ms` (fractional; capped at capacity).
    pub fn tokens(&self, now_ms: u64) -> f64 {
        let (capacity, rate) = self.config.sanitized();
        // saturating_sub: a clock that went backwards counts as no elapsed time.
        let elapsed_ms = now_ms.saturating_sub(self.last_ms) as f64;
        (self.tokens + elapsed_ms * rate / 1000.0).min(capacity)
    }

    pub fn is_full(&self, now_ms: u64) -> bool {
        self.tokens(now_ms) + EPSILON >= self.config.sanitized().0
    }

    fn refill(&mut self, now_ms: u64) {
        self.tokens = self.tokens(now_ms);
        // Never move `last_ms` backwards, or a later call would count the same time twice.
        self.last_ms = self.last_ms.max(now_ms);
    }

    fn decide(&self, tokens: f64) -> Decision {
        if tokens + EPSILON >= 1.0 {
            return Decision::Allowed;
        }
        let (capacity, rate) = self.config.sanitized();
        if rate <= 0.0 || capacity + EPSILON < 1.0 {
            return Decision::Denied { retry_after_ms: NEVER_MS };
        }
        let wait = ((1.0 - tokens) / rate * 1000.0 - EPSILON).ceil();
        Decision::Denied {
            // `as` saturates for huge values; NEVER_MS is the ceiling either way.
            retry_after_ms: (wait as u64).clamp(1, NEVER_MS),
        }
    }
}

#[derive(Debug, Clone)]
struct Entry {
    bucket: TokenBucket,
    /// Value of the limiter's touch counter when this key was last used.
    touched: u64,
}

/// Per-key buckets plus an optional global bucket. Bounded: at most `max_keys` keys are tracked; when full,
/// keys whose buckets have refilled completely are evicted first, then the least recently touched key.
///
/// Untracked keys behave as full buckets, so evicting a full bucket loses nothing; evicting a
/// partially drained one (only when every tracked bucket is partially drained) forgives that
/// key. A denied request never starts tracking a new key. Admitting a new key while full
/// costs O(`max_keys`); every other operation is O(1).
#[derive(Debug, Clone)]
pub struct KeyedLimiter<K: Hash + Eq + Clone> {
    per_key: BucketConfig,
    global: Option<TokenBucket>,
    keys: HashMap<K, Entry>,
    max_keys: usize,
    touch_counter: u64,
}

impl<K: Hash + Eq + Clone> KeyedLimiter<K> {
    /// `max_keys` of 0 is treated as 1.
    pub fn new(per_key: BucketConfig, global: Option<BucketConfig>, max_keys: usize) -> Self {
        KeyedLimiter {
            per_key,
            // A bucket that is full at time 0 is full at every later time, so the global
            // bucket needs no "creation time".
            global: global.map(|config| TokenBucket::new(config, 0)),
            keys: HashMap::new(),
            max_keys: max_keys.max(1),
            touch_counter: 0,
        }
    }

    /// Denied if either the key's bucket or the global bucket is empty; the retry-after is
    /// the larger of the two waits. Never mutates.
    pub fn peek(&self, key: &K, now_ms: u64) -> Decision {
        let key_decision = match self.keys.get(key) {
            Some(entry) => entry.bucket.peek(now_ms),
            None => TokenBucket::new(self.per_key, now_ms).peek(now_ms),
        };
        match &self.global {
            Some(global) => key_decision.combine(global.peek(now_ms)),
            None => key_decision,
        }
    }

    /// Takes a token from the key's bucket and the global bucket only if both allow it; a
    /// denial never consumes from either.
    pub fn try_take(&mut self, key: &K, now_ms: u64) -> Decision {
        self.touch_counter += 1;
        let touched = self.touch_counter;
        if let Some(entry) = self.keys.get_mut(key) {
            entry.touched = touched;
        }
        let decision = self.peek(key, now_ms);
        if !decision.is_allowed() {
            return decision;
        }
        if let Some(global) = &mut self.global {
            global.try_take(now_ms);
        }
        if !self.keys.contains_key(key) {
            self.make_room(now_ms);
            let bucket = TokenBucket::new(self.per_key, now_ms);
            self.keys.insert(key.clone(), Entry { bucket, touched });
        }
        if let Some(entry) = self.keys.get_mut(key) {
            entry.bucket.try_take(now_ms);
        }
        decision
    }

    /// Whether `key` has used none of its budget (untracked, or refilled completely).
    pub fn is_fresh(&self, key: &K, now_ms: u64) -> bool {
        self.keys.get(key).is_none_or(|entry| entry.bucket.is_full(now_ms))
    }

    pub fn tracked_keys(&self) -> usize {
        self.keys.len()
    }

    /// Forgets the key (its bucket is full again), e.g. after a successful login. The global
    /// bucket is not refunded.
    pub fn reset_key(&mut self, key: &K) {
        self.keys.remove(key);
    }

    /// The partly drained buckets (most drained first, at most `max_keys`) and the global
    /// bucket when it is not full: everything a restart would otherwise forgive.
    pub fn snapshot(&self, now_ms: u64) -> LimiterSnapshot<K> {
        let mut keys: Vec<(K, BucketState)> = self
            .keys
            .iter()
            .filter(|(_, entry)| !entry.bucket.is_full(now_ms))
            .map(|(key, entry)| (key.clone(), entry.bucket.state()))
            .collect();
        keys.sort_by(|a, b| a.1.tokens.total_cmp(&b.1.tokens));
        keys.truncate(self.max_keys);
        let global = self.global.as_ref().filter(|g| !g.is_full(now_ms)).map(TokenBucket::state);
        LimiterSnapshot { global, keys }
    }

    /// Adopts a snapshot taken by [`snapshot`](Self::snapshot) (keys beyond `max_keys` are
    /// dropped; values are clamped by [`TokenBucket::restored`]).
    pub fn restore(&mut self, snapshot: LimiterSnapshot<K>) {
        if let (Some(global), Some(state)) = (&mut self.global, snapshot.global) {
            *global = TokenBucket::restored(global.config, state);
        }
        for (key, state) in snapshot.keys.into_iter().take(self.max_keys) {
            self.touch_counter += 1;
            let entry = Entry { bucket: TokenBucket::restored(self.per_key, state), touched: self.touch_counter };
            self.keys.insert(key, entry);
        }
        while self.keys.len() > self.max_keys {
            let oldest = self.keys.iter().min_by_key(|(_, entry)| entry.touched).map(|(key, _)| key.clone());
            match oldest {
                Some(key) => self.keys.remove(&key),
                None => break,
            };
        }
    }

    fn make_room(&mut self, now_ms: u64) {
        if self.keys.len() < self.max_keys {
            return;
        }
        self.keys.retain(|_, entry| !entry.bucket.is_full(now_ms));
        while self.keys.len() >= self.max_keys {
            let oldest = self.keys.iter().min_by_key(|(_, entry)| entry.touched).map(|(key, _)| key.clone());
            match oldest {
                Some(key) => self.keys.remove(&key),
                None => break,
            };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const FIVE_PER_2S: BucketConfig = BucketConfig { capacity: 5.0, refill_per_sec: 0.5 };

    fn denied(ms: u64) -> Decision {
        Decision::Denied { retry_after_ms: ms }
    }

    #[test]
    fn decision_helpers() {
        assert!(Decision::Allowed.is_allowed());
        assert!(!denied(5).is_allowed());
        assert_eq!(Decision::Allowed.retry_after_secs(), 0);
        assert_eq!(denied(0).retry_after_secs(), 1);
        assert_eq!(denied(1).retry_after_secs(), 1);
        assert_eq!(denied(1000).retry_after_secs(), 1);
        assert_eq!(denied(1001).retry_after_secs(), 2);
        assert_eq!(denied(NEVER_MS).retry_after_secs(), NEVER_MS.div_ceil(1000));
    }

    #[test]
    fn burst_then_denial() {
        let mut b = TokenBucket::new(FIVE_PER_2S, 1_000);
        assert_eq!(b.tokens(1_000), 5.0);
        for _ in 0..5 {
            assert_eq!(b.try_take(1_000), Decision::Allowed);
        }
        assert_eq!(b.try_take(1_000), denied(2000));
        assert_eq!(b.peek(1_000), denied(2000));
        assert_eq!(b.tokens(1_000), 0.0);
    }

    #[test]
    fn retry_after_counts_down_and_refill_restores_tokens() {
        let mut b = TokenBucket::new(FIVE_PER_2S, 0);
        for _ in 0..5 {
            b.try_take(0);
        }
        assert_eq!(b.peek(500), denied(1500));
        assert_eq!(b.try_take(500), denied(1500));
        assert_eq!(b.peek(1_999), denied(1));
        assert_eq!(b.peek(2_000), Decision::Allowed);
        assert_eq!(b.try_take(2_000), Decision::Allowed);
        assert_eq!(b.try_take(2_000), denied(2000));
        // Refill is capped at capacity.
        assert_eq!(b.tokens(1_000_000), 5.0);
    }

    #[test]
    fn peek_does_not_consume() {
        let b = TokenBucket::new(FIVE_PER_2S, 0);
        for _ in 0..100 {
            assert!(b.peek(0).is_allowed());
        }
        assert_eq!(b.tokens(0), 5.0);
    }

    #[test]
    fn zero_refill_rate_never_refills() {
        let config = BucketConfig { capacity: 1.0, refill_per_sec: 0.0 };
        let mut b = TokenBucket::new(config, 0);
        assert!(b.try_take(0).is_allowed());
        assert_eq!(b.try_take(10_000_000), denied(NEVER_MS));
        let nothing = BucketConfig { capacity: 0.5, refill_per_sec: 10.0 };
        assert_eq!(TokenBucket::new(nothing, 0).peek(99_999), denied(NEVER_MS));
        let nan = BucketConfig { capacity: f64::NAN, refill_per_sec: f64::NAN };
        assert_eq!(TokenBucket::new(nan, 0).peek(0), denied(NEVER_MS));
    }

    #[test]
    fn clock_going_backwards_adds_nothing_and_does_not_double_count() {
        let mut b = TokenBucket::new(FIVE_PER_2S, 10_000);
        for _ in 0..5 {
            b.try_take(10_000);
        }
        assert_eq!(b.tokens(0), 0.0);
        assert_eq!(b.try_take(0), denied(2000));
        assert_eq!(b.peek(5_000), denied(2000));
        // Going back then forward again only counts time after the latest timestamp seen.
        assert_eq!(b.try_take(11_000), denied(1000));
        assert_eq!(b.try_take(3_000), denied(1000));
        assert_eq!(b.try_take(12_000), Decision::Allowed);
    }

    #[test]
    fn keys_are_isolated() {
        let mut l = KeyedLimiter::new(FIVE_PER_2S, None, 100);
        for _ in 0..5 {
            assert!(l.try_take(&"a", 0).is_allowed());
        }
        assert_eq!(l.try_take(&"a", 0), denied(2000));
        assert!(l.peek(&"b", 0).is_allowed());
        assert!(l.try_take(&"b", 0).is_allowed());
        assert_eq!(l.tracked_keys(), 2);
        assert!(l.peek(&"a", 2_000).is_allowed());
    }

    #[test]
    fn global_bucket_denies_across_keys() {
        let global = BucketConfig { capacity: 3.0, refill_per_sec: 1.0 };
        let mut l = KeyedLimiter::new(FIVE_PER_2S, Some(global), 100);
        for key in ["a", "b", "c"] {
            assert!(l.try_take(&key, 0).is_allowed());
        }
        assert_eq!(l.try_take(&"d", 0), denied(1000));
        assert_eq!(l.peek(&"a", 0), denied(1000));
        assert!(l.try_take(&"d", 1_000).is_allowed());
    }

    #[test]
    fn peek_reports_the_larger_wait() {
        let global = BucketConfig { capacity: 1.0, refill_per_sec: 2.0 };
        let mut l = KeyedLimiter::new(FIVE_PER_2S, Some(global), 10);
        assert!(l.try_take(&1, 0).is_allowed());
        assert_eq!(l.peek(&1, 0), denied(500)); // only the global bucket is empty
        let one_per_2s = BucketConfig { capacity: 1.0, refill_per_sec: 0.5 };
        let mut l = KeyedLimiter::new(one_per_2s, Some(global), 10);
        assert!(l.try_take(&1, 0).is_allowed());
        // Key empty (wait 2000 ms) and global empty (wait 500 ms): the larger wins.
        assert_eq!(l.peek(&1, 0), denied(2000));
        assert_eq!(l.try_take(&1, 0), denied(2000));
        assert_eq!(l.peek(&1, 500), denied(1500)); // global has refilled, key has not
        assert!(l.peek(&2, 500).is_allowed());
    }

    #[test]
    fn denied_take_consumes_from_neither_bucket() {
        let global = BucketConfig { capacity: 2.0, refill_per_sec: 0.0 };
        let mut l = KeyedLimiter::new(FIVE_PER_2S, Some(global), 10);
        assert!(l.try_take(&"a", 0).is_allowed());
        assert!(l.try_take(&"a", 0).is_allowed());
        // Global is now empty: "a" still has 3 tokens and keeps them.
        assert_eq!(l.try_take(&"a", 0), denied(NEVER_MS));
        assert_eq!(l.keys[&"a"].bucket.tokens(0), 3.0);
        // A denied new key is not tracked.
        assert_eq!(l.try_take(&"new", 0), denied(NEVER_MS));
        assert_eq!(l.tracked_keys(), 1);

        // Key empty, global available: the global bucket is untouched.
        let roomy = BucketConfig { capacity: 100.0, refill_per_sec: 0.0 };
        let mut l = KeyedLimiter::new(FIVE_PER_2S, Some(roomy), 10);
        for _ in 0..5 {
            l.try_take(&"a", 0);
        }
        let before = l.global.as_ref().unwrap().tokens(0);
        assert_eq!(before, 95.0);
        for _ in 0..10 {
            assert!(!l.try_take(&"a", 0).is_allowed());
        }
        assert_eq!(l.global.as_ref().unwrap().tokens(0), before);
    }

    #[test]
    fn key_count_is_bounded_and_full_buckets_are_evicted_first() {
        let mut l = KeyedLimiter::new(FIVE_PER_2S, None, 3);
        // "a" drained at t=0; "b" and "c" take one token each later.
        for _ in 0..5 {
            l.try_take(&"a", 0);
        }
        l.try_take(&"b", 1_000);
        l.try_take(&"c", 1_000);
        assert_eq!(l.tracked_keys(), 3);
        // At t=3000, "b" and "c" (one token short, refill 2 s) are full again; "a" is not,
        // even though "a" is the least recently touched key.
        l.try_take(&"d", 3_000);
        assert_eq!(l.tracked_keys(), 2);
        assert!(l.keys.contains_key(&"a"));
        assert!(l.keys.contains_key(&"d"));
        assert_eq!(l.peek(&"a", 3_000), Decision::Allowed);
        assert!(l.keys[&"a"].bucket.tokens(3_000) < 2.0);
    }

    #[test]
    fn least_recently_touched_key_is_evicted_when_none_are_full() {
        let mut l = KeyedLimiter::new(FIVE_PER_2S, None, 3);
        for key in [1, 2, 3] {
            l.try_take(&key, 0);
        }
        l.try_take(&1, 0); // 1 is now more recent than 2 and 3
        l.try_take(&4, 0);
        assert_eq!(l.tracked_keys(), 3);
        assert!(!l.keys.contains_key(&2));
        assert!(l.keys.contains_key(&1) && l.keys.contains_key(&3) && l.keys.contains_key(&4));
        for key in 100..1_000 {
            l.try_take(&key, 0);
            assert!(l.tracked_keys() <= 3);
        }
        // max_keys of zero still tracks one key.
        let mut tiny = KeyedLimiter::new(FIVE_PER_2S, None, 0);
        tiny.try_take(&"x", 0);
        tiny.try_take(&"y", 0);
        assert_eq!(tiny.tracked_keys(), 1);
    }

    #[test]
    fn reset_key_restores_a_full_bucket() {
        let mut l = KeyedLimiter::new(FIVE_PER_2S, None, 10);
        for _ in 0..5 {
            l.try_take(&"ip", 0);
        }
        assert!(!l.peek(&"ip", 0).is_allowed());
        l.reset_key(&"ip");
        assert_eq!(l.tracked_keys(), 0);
        for _ in 0..5 {
            assert!(l.try_take(&"ip", 0).is_allowed());
        }
        l.reset_key(&"unknown");
    }

    #[test]
    fn keyed_limiter_tolerates_clock_going_backwards() {
        let global = BucketConfig { capacity: 2.0, refill_per_sec: 1.0 };
        let mut l = KeyedLimiter::new(FIVE_PER_2S, Some(global), 10);
        assert!(l.try_take(&"a", 10_000).is_allowed());
        assert!(l.try_take(&"a", 10_000).is_allowed());
        assert_eq!(l.try_take(&"a", 0), denied(1000));
        assert_eq!(l.try_take(&"b", 0), denied(1000));
        assert_eq!(l.tracked_keys(), 1);
        assert!(l.try_take(&"b", 11_000).is_allowed());
    }

    #[test]
    fn snapshots_keep_drained_buckets_and_restore_them_without_refilling() {
        let mut limiter = KeyedLimiter::new(FIVE_PER_2S, Some(BucketConfig { capacity: 4.0, refill_per_sec: 0.0 }), 2);
        for _ in 0..3 {
            limiter.try_take(&"a", 1_000);
        }
        limiter.try_take(&"b", 1_000);
        let snap = limiter.snapshot(1_000);
        assert_eq!(snap.global, Some(BucketState { tokens: 0.0, last_ms: 1_000 }));
        assert_eq!(snap.keys.iter().map(|(k, _)| *k).collect::<Vec<_>>(), vec!["a", "b"], "most drained first");

        let mut restarted =
            KeyedLimiter::new(FIVE_PER_2S, Some(BucketConfig { capacity: 4.0, refill_per_sec: 0.0 }), 2);
        assert!(restarted.peek(&"c", 1_000).is_allowed(), "a fresh limiter has a full global bucket");
        restarted.restore(snap);
        assert_eq!(restarted.peek(&"c", 1_000), denied(NEVER_MS), "the spent global budget survived");
        assert!(!restarted.is_fresh(&"a", 1_000));
        assert!(restarted.is_fresh(&"a", 10_000), "restored buckets still refill with time");

        let idle = KeyedLimiter::<&str>::new(FIVE_PER_2S, None, 4);
        assert_eq!(idle.snapshot(0), LimiterSnapshot::default(), "full buckets are not persisted");
    }

    #[test]
    fn damaged_snapshots_can_only_be_stricter() {
        let mut limiter = KeyedLimiter::new(FIVE_PER_2S, None, 1);
        let damaged = LimiterSnapshot {
            global: None,
            keys: vec![
                ("nan", BucketState { tokens: f64::NAN, last_ms: 0 }),
                ("huge", BucketState { tokens: 1e9, last_ms: 0 }),
            ],
        };
        limiter.restore(damaged);
        assert_eq!(limiter.tracked_keys(), 1, "bounded by max_keys");
        assert_eq!(TokenBucket::restored(FIVE_PER_2S, BucketState { tokens: f64::NAN, last_ms: 0 }).tokens(0), 0.0);
        assert_eq!(TokenBucket::restored(FIVE_PER_2S, BucketState { tokens: 1e9, last_ms: 0 }).tokens(0), 5.0);
    }
}
