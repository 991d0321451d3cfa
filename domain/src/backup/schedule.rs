//! When the backup cycle runs: the first cycle shortly after start, then daily; after a
//! failure the retry ladder (15 minutes, 1 hour, then every 6 hours); a success returns to
//! daily. Pure functions of the failure count and `now_ms`; the actor owns the timer, and
//! stopping or reconfiguring it cancels pending retries.

/// The first cycle runs this long after start (the store has settled, start-up is not slowed).
pub const FIRST_CYCLE_DELAY_MS: i64 = 2 * 60 * 1000;
/// The normal interval between cycles.
pub const DAILY_MS: i64 = 24 * 60 * 60 * 1000;
/// Delays after the 1st, 2nd and every later consecutive failure.
pub const RETRY_LADDER_MS: [i64; 3] = [15 * 60 * 1000, 60 * 60 * 1000, 6 * 60 * 60 * 1000];

/// How a cycle ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CycleOutcome {
    Success,
    Failure,
}

/// The delay before the next cycle, given the consecutive failures so far (0 = healthy).
pub fn retry_delay_ms(consecutive_failures: u32) -> i64 {
    match consecutive_failures {
        0 => DAILY_MS,
        n => RETRY_LADDER_MS[(n as usize - 1).min(RETRY_LADDER_MS.len() - 1)],
    }
}

/// When the first cycle runs after a start at `now_ms`.
pub fn first_cycle_at(now_ms: i64) -> i64 {
    now_ms.saturating_add(FIRST_CYCLE_DELAY_MS)
}

/// The next cycle's schedule after a cycle ended at `now_ms` with `outcome`, given the
/// consecutive failures before it. Returns the new failure count and when the next cycle runs.
pub fn after_cycle(outcome: CycleOutcome, failures_before: u32, now_ms: i64) -> (u32, i64) {
    let failures = match outcome {
        CycleOutcome::Success => 0,
        CycleOutcome::Failure => failures_before.saturating_add(1),
    };
    (failures, now_ms.saturating_add(retry_delay_ms(failures)))
}

#[cfg(test)]
mod tests {
    use super::*;

    const MIN: i64 = 60 * 1000;

    #[test]
    fn the_ladder_is_15_minutes_1_hour_then_6_hours() {
        let mut now = 1_000_000;
        let mut failures = 0;
        let mut delays = Vec::new();
        for _ in 0..5 {
            let (f, due) = after_cycle(CycleOutcome::Failure, failures, now);
            delays.push((due - now) / MIN);
            failures = f;
            now = due; // the retry runs when due (injected time, no sleeping)
        }
        assert_eq!(delays, vec![15, 60, 360, 360, 360]);
        assert_eq!(failures, 5);
        let (failures, due) = after_cycle(CycleOutcome::Success, failures, now);
        assert_eq!((failures, due - now), (0, DAILY_MS), "success returns to daily");
        let (failures, due) = after_cycle(CycleOutcome::Failure, failures, due);
        assert_eq!((failures, retry_delay_ms(failures)), (1, 15 * MIN), "the ladder starts over");
        assert!(due > now);
    }

    #[test]
    fn first_cycle_is_shortly_after_start_and_never_overflows() {
        assert_eq!(first_cycle_at(0), FIRST_CYCLE_DELAY_MS);
        assert!(FIRST_CYCLE_DELAY_MS < RETRY_LADDER_MS[0]);
        assert_eq!(first_cycle_at(i64::MAX), i64::MAX);
        assert_eq!(after_cycle(CycleOutcome::Failure, u32::MAX, 0), (u32::MAX, 6 * 60 * MIN));
    }
}
