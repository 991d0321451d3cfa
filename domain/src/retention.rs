//! Retention of operational history, the destructive clean-up that runs only behind the
//! verified-backup gate (`backup::retention::retention_gate`): each collection's plan is a list
//! of steps applied in order inside one write transaction. Bridge history keeps 30 days, then
//! the newest 100; alert history drops unpinned entries older than 90 days, then keeps the
//! newest 50 unpinned and 100 pinned; the conflict log keeps 90 days; on-call dismissals 7
//! days; Dynatrace problems, their addressed states and notes keep 400 days (past the sync's
//! 365-day reconciliation window, so nothing the sync still sees is dropped); on-call history
//! keeps 400 days, then the newest 50,000 changes (`oncall_history`). Pure data and the
//! cutoff arithmetic; the store executes it.

const DAY_MS: i64 = 24 * 60 * 60 * 1000;

/// Which records a step considers, by the `pinned` flag (collections without it use `Any`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pinned {
    Any,
    Only,
    Not,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RetentionStep {
    /// Delete records created more than `days` ago.
    OlderThan { days: i64, pinned: Pinned },
    /// Keep the newest `keep` records (by creation time, then id); delete the rest.
    KeepNewest { keep: usize, pinned: Pinned },
}

impl RetentionStep {
    /// The creation-time cutoff of an `OlderThan` step at `now_ms`.
    pub fn cutoff_ms(&self, now_ms: i64) -> Option<i64> {
        match self {
            RetentionStep::OlderThan { days, .. } => Some(now_ms.saturating_sub(days.saturating_mul(DAY_MS))),
            RetentionStep::KeepNewest { .. } => None,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RetentionPlan {
    pub collection: &'static str,
    pub steps: &'static [RetentionStep],
}

/// The operational retention, in the order it runs.
pub const OPERATIONAL_RETENTION: [RetentionPlan; 8] = [
    RetentionPlan {
        collection: "bridge_history",
        steps: &[
            RetentionStep::OlderThan { days: 30, pinned: Pinned::Any },
            RetentionStep::KeepNewest { keep: 100, pinned: Pinned::Any },
        ],
    },
    RetentionPlan {
        collection: "alert_history",
        steps: &[
            RetentionStep::OlderThan { days: 90, pinned: Pinned::Not },
            RetentionStep::KeepNewest { keep: 50, pinned: Pinned::Not },
            RetentionStep::KeepNewest { keep: 100, pinned: Pinned::Only },
        ],
    },
    RetentionPlan { collection: "conflict_log", steps: &[RetentionStep::OlderThan { days: 90, pinned: Pinned::Any }] },
    RetentionPlan {
        collection: "oncall_dismissals",
        steps: &[RetentionStep::OlderThan { days: 7, pinned: Pinned::Any }],
    },
    RetentionPlan { collection: "dynatrace_problems", steps: &[DYNATRACE_HISTORY] },
    RetentionPlan { collection: "dynatrace_problem_states", steps: &[DYNATRACE_HISTORY] },
    RetentionPlan { collection: "dynatrace_problem_notes", steps: &[DYNATRACE_HISTORY] },
    RetentionPlan {
        collection: "oncall_history",
        steps: &[
            RetentionStep::OlderThan { days: crate::oncall_history::RETENTION_DAYS, pinned: Pinned::Any },
            RetentionStep::KeepNewest { keep: crate::oncall_history::RETENTION_MAX_ROWS, pinned: Pinned::Any },
        ],
    },
];

/// Dynatrace problem history: longer than the 365-day reconciliation window.
const DYNATRACE_HISTORY: RetentionStep = RetentionStep::OlderThan { days: 400, pinned: Pinned::Any };

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_plan_names_a_managed_collection_and_pinned_steps_only_where_there_is_a_flag() {
        for plan in OPERATIONAL_RETENTION {
            let spec = crate::collections::collection(plan.collection).expect(plan.collection);
            let has_pinned = spec.fields.iter().any(|f| f.name == "pinned");
            for step in plan.steps {
                let pinned = match step {
                    RetentionStep::OlderThan { pinned, .. } | RetentionStep::KeepNewest { pinned, .. } => *pinned,
                };
                assert!(has_pinned || pinned == Pinned::Any, "{}: {step:?}", plan.collection);
            }
        }
    }

    #[test]
    fn cutoffs_are_days_before_now() {
        let step = RetentionStep::OlderThan { days: 7, pinned: Pinned::Any };
        assert_eq!(step.cutoff_ms(10 * DAY_MS), Some(3 * DAY_MS));
        assert_eq!(RetentionStep::KeepNewest { keep: 1, pinned: Pinned::Any }.cutoff_ms(0), None);
    }
}
