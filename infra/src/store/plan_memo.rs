//! A short memory of search terms the index could not narrow. Choosing a `~` term's plan reads
//! the index first (up to one past the candidate limit); for a broad term that read is wasted,
//! because the list then scans, and the read costs about a third of the list. Operators repeat
//! the same search (each keystroke's final term, every client refetching after a realtime
//! event), so the store remembers, for a few seconds, that a term on an index overflowed a given
//! limit and goes straight to the scan while that is known. Only the plan is remembered, never a
//! result: both plans select exactly the same rows (the property tests compare them), so a
//! stale entry can cost time but never change an answer. Bounded in entries and age.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// How long an overflow is trusted; the data may change after it.
pub(crate) const MEMO_TTL: Duration = Duration::from_secs(10);
/// The most terms remembered; when full, expired entries go first, then everything.
pub(crate) const MEMO_ENTRIES: usize = 512;

#[derive(Debug, Clone, Copy)]
struct Overflow {
    /// The index held more than this many candidates for the term.
    more_than: u32,
    seen: Instant,
}

/// Terms (per index table) known to overflow a candidate limit.
pub(crate) struct PlanMemo {
    ttl: Duration,
    overflows: Mutex<HashMap<(&'static str, String), Overflow>>,
    /// How many plans the memo decided (each saved an index read).
    hits: AtomicU64,
    /// How many scans `long_walk` replaced with the index.
    rescues: AtomicU64,
    /// How many newest-first pages `newest_first` served from a term's few candidates, served
    /// along the index in rowid order, and left to the exact plan (in that order).
    newest_first: [AtomicU64; 3],
}

/// What `newest_first` did with a newest-first search.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum NewestFirst {
    /// Served by all of the term's candidates (no more than the page needs).
    Candidates = 0,
    /// Served by the walk along the index in descending rowid order.
    Walked = 1,
    /// Left to the exact plan: the walk could not show its page exact.
    Refused = 2,
}

impl PlanMemo {
    pub(crate) fn new(ttl: Duration) -> PlanMemo {
        PlanMemo {
            ttl,
            overflows: Mutex::new(HashMap::new()),
            hits: AtomicU64::new(0),
            rescues: AtomicU64::new(0),
            newest_first: Default::default(),
        }
    }

    /// Whether `query` on `index` is known, recently, to have more than `limit` candidates.
    pub(crate) fn known_to_overflow(&self, index: &'static str, query: &str, limit: u32) -> bool {
        let overflows = self.overflows.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        let known = overflows
            .get(&(index, query.to_string()))
            .is_some_and(|o| o.more_than >= limit && o.seen.elapsed() < self.ttl);
        if known {
            self.hits.fetch_add(1, Ordering::Relaxed);
        }
        known
    }

    /// How many plans the memo has decided so far.
    #[cfg(test)]
    pub(crate) fn hits(&self) -> u64 {
        self.hits.load(Ordering::Relaxed)
    }

    /// Counts a scan replaced by the index (`long_walk`).
    pub(crate) fn rescued(&self) {
        self.rescues.fetch_add(1, Ordering::Relaxed);
    }

    /// How many scans `long_walk` has replaced so far.
    #[cfg(test)]
    pub(crate) fn rescues(&self) -> u64 {
        self.rescues.load(Ordering::Relaxed)
    }

    /// Counts what `newest_first` did with one list.
    pub(crate) fn newest_first(&self, outcome: NewestFirst) {
        self.newest_first[outcome as usize].fetch_add(1, Ordering::Relaxed);
    }

    /// How many lists `newest_first` served from candidates, served by its walk, and refused.
    #[cfg(test)]
    pub(crate) fn newest_first_counts(&self) -> [u64; 3] {
        self.newest_first.each_ref().map(|n| n.load(Ordering::Relaxed))
    }

    /// Records that `query` on `index` had more than `limit` candidates just now.
    pub(crate) fn overflowed(&self, index: &'static str, query: &str, limit: u32) {
        let mut overflows = self.overflows.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        if overflows.len() >= MEMO_ENTRIES {
            overflows.retain(|_, o| o.seen.elapsed() < self.ttl);
            if overflows.len() >= MEMO_ENTRIES {
                overflows.clear();
            }
        }
        overflows.insert((index, query.to_string()), Overflow { more_than: limit, seen: Instant::now() });
    }

    /// Forgets what `query` on `index` overflowed (it fit under a limit since).
    pub(crate) fn fits(&self, index: &'static str, query: &str) {
        let mut overflows = self.overflows.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        overflows.remove(&(index, query.to_string()));
    }

    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.overflows.lock().unwrap().len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_overflow_answers_for_limits_up_to_its_own_and_only_while_fresh() {
        let memo = PlanMemo::new(Duration::from_millis(200));
        assert!(!memo.known_to_overflow("fts", "\"Person 1\"", 1000));
        memo.overflowed("fts", "\"Person 1\"", 1000);
        assert!(memo.known_to_overflow("fts", "\"Person 1\"", 1000));
        assert!(memo.known_to_overflow("fts", "\"Person 1\"", 500), "more than 1000 is more than 500");
        assert!(!memo.known_to_overflow("fts", "\"Person 1\"", 2000), "a larger limit is not known");
        assert!(!memo.known_to_overflow("other", "\"Person 1\"", 1000), "per index");
        assert!(!memo.known_to_overflow("fts", "\"Person 2\"", 1000), "per term");
        std::thread::sleep(Duration::from_millis(250));
        assert!(!memo.known_to_overflow("fts", "\"Person 1\"", 1000), "expired");
        memo.overflowed("fts", "\"Person 1\"", 1000);
        memo.fits("fts", "\"Person 1\"");
        assert!(!memo.known_to_overflow("fts", "\"Person 1\"", 1000), "forgotten once it fits");
    }

    #[test]
    fn the_memo_stays_bounded() {
        let memo = PlanMemo::new(MEMO_TTL);
        for i in 0..(3 * MEMO_ENTRIES) {
            memo.overflowed("fts", &format!("term {i}"), 10);
            assert!(memo.len() <= MEMO_ENTRIES);
        }
    }
}
