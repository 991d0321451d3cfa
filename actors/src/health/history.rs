//! The bounded queue-depth history behind the health view's sparklines: a fixed ring of
//! [`BUCKETS`] buckets of [`BUCKET_MS`] each (10 minutes), every bucket holding the largest
//! depth reported during its 20 seconds. Time comes in as milliseconds from the caller's
//! injected clock; the ring never grows, and a bucket is reused once its slot comes round again.
//! Pure: no actor, no clock, no IO.

/// Width of one bucket.
pub const BUCKET_MS: i64 = 20_000;
/// Buckets kept: 30 × 20 s = the last 10 minutes.
pub const BUCKETS: usize = 30;

/// One actor's recent queue depths.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QueueHistory {
    /// `(bucket number, max depth)` per slot; the bucket number tells a live slot from a stale one.
    slots: [Option<(i64, usize)>; BUCKETS],
}

impl Default for QueueHistory {
    fn default() -> Self {
        QueueHistory { slots: [None; BUCKETS] }
    }
}

fn bucket_of(now_ms: i64) -> i64 {
    now_ms.div_euclid(BUCKET_MS)
}

fn slot_of(bucket: i64) -> usize {
    bucket.rem_euclid(BUCKETS as i64) as usize
}

impl QueueHistory {
    /// Records a reported depth at `now_ms`: the bucket keeps the largest depth it has seen; a
    /// slot still holding an older bucket is overwritten.
    pub fn record(&mut self, now_ms: i64, depth: usize) {
        let bucket = bucket_of(now_ms);
        let slot = &mut self.slots[slot_of(bucket)];
        *slot = match *slot {
            Some((b, max)) if b == bucket => Some((b, max.max(depth))),
            Some((b, _)) if b > bucket => *slot, // a report from the past (clock stepped back): ignore
            _ => Some((bucket, depth)),
        };
    }

    /// The last [`BUCKETS`] buckets ending with the one holding `now_ms`, oldest first; `None`
    /// where nothing was reported.
    pub fn series(&self, now_ms: i64) -> Vec<Option<usize>> {
        let current = bucket_of(now_ms);
        (current - BUCKETS as i64 + 1..=current)
            .map(|bucket| match self.slots[slot_of(bucket)] {
                Some((b, max)) if b == bucket => Some(max),
                _ => None,
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const T0: i64 = 1_800_000_000_000; // a multiple of BUCKET_MS

    #[test]
    fn a_bucket_keeps_the_largest_depth_of_its_twenty_seconds() {
        let mut h = QueueHistory::default();
        h.record(T0, 3);
        h.record(T0 + 5_000, 9);
        h.record(T0 + 19_999, 1);
        let s = h.series(T0 + 19_999);
        assert_eq!(s.len(), BUCKETS);
        assert_eq!(s[BUCKETS - 1], Some(9));
        assert!(s[..BUCKETS - 1].iter().all(Option::is_none));
    }

    #[test]
    fn buckets_roll_over_and_the_series_stays_ten_minutes_long() {
        let mut h = QueueHistory::default();
        h.record(T0, 7);
        h.record(T0 + BUCKET_MS, 2);
        let s = h.series(T0 + BUCKET_MS);
        assert_eq!(&s[BUCKETS - 2..], &[Some(7), Some(2)]);
        // 29 buckets later the first report is the oldest one shown; one more and it is gone.
        let oldest_shown = T0 + (BUCKETS as i64 - 1) * BUCKET_MS;
        assert_eq!(h.series(oldest_shown)[0], Some(7));
        assert_eq!(h.series(oldest_shown + BUCKET_MS)[0], Some(2));
        assert!(!h.series(oldest_shown + BUCKET_MS).contains(&Some(7)));
        assert_eq!(h.series(oldest_shown + BUCKET_MS).len(), BUCKETS);
    }

    #[test]
    fn hours_of_reports_never_grow_it_and_a_reused_slot_starts_fresh() {
        let mut h = QueueHistory::default();
        for i in 0..10_000i64 {
            h.record(T0 + i * 2_000, (i % 50) as usize);
        }
        let now = T0 + 9_999 * 2_000;
        let s = h.series(now);
        assert_eq!(s.len(), BUCKETS);
        assert!(s.iter().all(Option::is_some), "every bucket of the last 10 minutes had reports");
        // A slot whose bucket was 10 minutes ago is overwritten, not maxed with the old value.
        let mut h = QueueHistory::default();
        h.record(T0, 40);
        h.record(T0 + BUCKETS as i64 * BUCKET_MS, 1);
        assert_eq!(h.series(T0 + BUCKETS as i64 * BUCKET_MS)[BUCKETS - 1], Some(1));
    }

    #[test]
    fn a_silent_actor_shows_gaps_and_a_report_from_the_past_is_ignored() {
        let mut h = QueueHistory::default();
        h.record(T0, 4);
        let s = h.series(T0 + 3 * BUCKET_MS);
        assert_eq!(&s[BUCKETS - 4..], &[Some(4), None, None, None]);
        h.record(T0 + BUCKETS as i64 * BUCKET_MS, 1);
        h.record(T0, 99); // same slot, older bucket
        assert_eq!(h.series(T0 + BUCKETS as i64 * BUCKET_MS)[BUCKETS - 1], Some(1));
    }
}
