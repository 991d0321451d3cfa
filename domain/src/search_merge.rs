//! When the store merges its search indexes' segments (the merging itself is
//! `infra::store::search_merge`): only after the writes have been quiet for a while, so it never
//! competes with a burst of writes; then at most once per interval, so a trickle of single
//! writes does not make the store rewrite a large index after each one, unless the index has
//! become badly fragmented (a bulk load: thousands of small transactions), which is merged at
//! the next quiet moment. Time is counted in ticks of the store actor's timer, so no clock is
//! read. A round, once started, continues step by step until the index is one segment or
//! writes resume.

use std::time::Duration;

/// The timing of search-index merging.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MergePolicy {
    /// How often the store actor looks.
    pub tick: Duration,
    /// Ticks without a write before a round may start.
    pub quiet_ticks: u32,
    /// Least ticks from the end of one round to the start of the next.
    pub interval_ticks: u32,
    /// Segments from which a round starts at the next quiet moment, whatever the interval.
    pub fragmented_segments: u32,
    /// The most merge steps in one round (a bound on the loop; the next round continues).
    pub max_steps_per_round: u32,
}

/// Production timing: look every second, merge after 2 s without writes, at most once a
/// minute unless an index holds 8 segments or more (merging the contacts index of 100,000 rows
/// into one segment took about 30 steps, 180 ms).
pub const MERGE_POLICY: MergePolicy = MergePolicy {
    tick: Duration::from_secs(1),
    quiet_ticks: 2,
    interval_ticks: 60,
    fragmented_segments: 8,
    max_steps_per_round: 10_000,
};

impl Default for MergePolicy {
    fn default() -> Self {
        MERGE_POLICY
    }
}

impl MergePolicy {
    /// Whether a round should start on an index of `segments` segments, `quiet_ticks` after the
    /// last write and `ticks_since_round` after the previous round ended (`None`: no round yet).
    pub fn round_due(&self, segments: u32, quiet_ticks: u32, ticks_since_round: Option<u32>) -> bool {
        let interval_passed = ticks_since_round.is_none_or(|t| t >= self.interval_ticks);
        segments >= 2 && quiet_ticks >= self.quiet_ticks && (interval_passed || segments >= self.fragmented_segments)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_round_needs_quiet_writes_and_the_interval_or_a_fragmented_index() {
        let p = MERGE_POLICY;
        assert!(p.round_due(2, 2, None), "first round once writes are quiet");
        assert!(!p.round_due(2, 1, None), "writes not quiet long enough");
        assert!(!p.round_due(1, 100, None), "one segment: nothing to merge");
        assert!(!p.round_due(0, 100, None), "an empty index");
        assert!(!p.round_due(7, 2, Some(59)), "a trickle of writes waits for the interval");
        assert!(p.round_due(7, 2, Some(60)));
        assert!(p.round_due(8, 2, Some(0)), "a fragmented index is merged at the next quiet moment");
        assert!(!p.round_due(8, 0, Some(100)), "but never during writes");
    }
}
