//! The Dynatrace sync's decisions as pure functions the actor calls: which query a run makes
//! (a full reconciliation when none succeeded within 24 h, else an incremental lookback), which
//! scope the stored settings give, which problem records a run writes (only those whose content
//! changed since the actor last wrote them), which stored problems a complete reconciliation
//! removes (only those inside its window that it no longer returns; a truncated result removes
//! and writes nothing), the `dynatrace_problem_sync` record after a success or a failure, and the
//! subsystem's condition for the health view (not configured: not in use; failing: degraded).

use std::collections::{BTreeSet, HashMap};

use serde_json::{json, Value};

use domain::dynatrace::dql::{incremental_lookback_minutes, Lookback};
use domain::dynatrace::problem::{Problem, ProblemStatus};
use domain::dynatrace::scope::Scope;
use domain::dynatrace::{retry_delay_ms, RECONCILE_INTERVAL_MS};
use domain::time::format_ms;
use domain::work_condition::{ConditionCode, WorkCondition};
use infra::dynatrace::StoredConfig;

/// How far back a reconciliation reads (the DQL's `from:-365d`).
pub const RECONCILE_WINDOW_MS: i64 = 365 * 24 * 3600 * 1000;

/// The sync's own memory across runs (rebuilt from the stored sync record at start).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SyncMemory {
    pub last_success_ms: Option<i64>,
    pub last_reconciled_ms: Option<i64>,
    pub consecutive_failures: u32,
    /// When the data stopped being current (the first failure after a success).
    pub stale_since_ms: Option<i64>,
    pub reconcile_pending: bool,
}

/// The query a run makes.
pub fn lookback(memory: &SyncMemory, now_ms: i64) -> Lookback {
    let due = memory.last_reconciled_ms.is_none_or(|at| now_ms - at >= RECONCILE_INTERVAL_MS);
    if due || memory.reconcile_pending {
        Lookback::Reconcile
    } else {
        Lookback::Minutes(incremental_lookback_minutes(now_ms, memory.last_success_ms))
    }
}

/// The scope the stored settings give: a custom matcher wins over alerting profiles.
pub fn scope_of(config: &StoredConfig) -> Scope {
    match (&config.matcher, config.alerting_profiles.is_empty()) {
        (Some(matcher), _) => Scope::CustomMatcher(matcher.clone()),
        (None, false) => Scope::AlertingProfiles(config.alerting_profiles.clone()),
        (None, true) => Scope::All,
    }
}

/// A stable fingerprint of what a problem record shows (`syncedAt` excluded).
pub fn content_hash(record: &Value) -> String {
    let mut visible = record.clone();
    if let Some(map) = visible.as_object_mut() {
        map.remove("syncedAt");
    }
    domain::canonical::sha256_hex(visible.to_string().as_bytes())
}

/// One problem record to upsert by `problemId`.
#[derive(Debug, Clone, PartialEq)]
pub struct ProblemWrite {
    pub problem_id: String,
    pub body: Value,
    pub hash: String,
}

/// The records of `problems` whose content differs from what was last written (`written`:
/// problem id -> content hash).
pub fn changed_writes(
    problems: &[Problem],
    written: &HashMap<String, String>,
    environment_url: &str,
    now_ms: i64,
) -> Vec<ProblemWrite> {
    problems
        .iter()
        .filter_map(|p| {
            let body = p.to_record(environment_url, now_ms);
            let hash = content_hash(&body);
            let unchanged = written.get(&p.problem_id).is_some_and(|h| *h == hash);
            (!unchanged).then(|| ProblemWrite { problem_id: p.problem_id.clone(), body, hash })
        })
        .collect()
}

/// Stored problems a complete reconciliation no longer returns: out of scope now. Only those
/// that started inside the reconciliation window; older history is pruned (if ever) only behind
/// the backup gate, never here.
pub fn dropped_by_reconcile(stored: &[(String, i64)], returned: &BTreeSet<String>, now_ms: i64) -> Vec<String> {
    stored
        .iter()
        .filter(|(id, start_ms)| *start_ms >= now_ms - RECONCILE_WINDOW_MS && !returned.contains(id))
        .map(|(id, _)| id.clone())
        .collect()
}

/// The sync record while Dynatrace is not configured.
pub fn disabled_record() -> Value {
    json!({"key": "problems", "state": "disabled", "error": "", "consecutiveFailures": 0, "nextRetryAt": ""})
}

/// The condition while no environment URL with a platform token is stored: not in use, and
/// where it is set up.
pub fn not_configured_condition() -> WorkCondition {
    WorkCondition::new(
        ConditionCode::NotConfigured,
        "Dynatrace is not configured: the server has no environment URL with a platform token. On the server PC: `relay dynatrace --data-dir DATA configure` and `set-token`, or Settings → Administration → Dynatrace in the Relay desktop app there.",
    )
}

/// The condition after a failed run (`memory` already counts it): degraded, with the failures
/// in a row and the plain-words error (no URL, no token).
pub fn failing_condition(memory: &SyncMemory, error: &str) -> WorkCondition {
    let runs = match memory.consecutive_failures {
        0 | 1 => "the last sync".to_string(),
        n => format!("{n} syncs in a row"),
    };
    WorkCondition::new(ConditionCode::SyncFailing, &format!("Dynatrace sync failing ({runs}): {error}"))
}

/// The sync record after a successful run.
pub fn success_record(memory: &SyncMemory, scope: &Scope, truncated: bool, open_count: usize, now_ms: i64) -> Value {
    json!({
        "key": "problems",
        "state": "ok",
        "lastAttemptAt": format_ms(now_ms),
        "lastSuccessAt": memory.last_success_ms.map(format_ms).unwrap_or_default(),
        "lastReconciledAt": memory.last_reconciled_ms.map(format_ms).unwrap_or_default(),
        "staleSince": "",
        "nextRetryAt": "",
        "error": if truncated { "The last full check hit Dynatrace's 10,000-result limit; nothing was removed." } else { "" },
        "consecutiveFailures": 0,
        "resultTruncated": truncated,
        "scopeSource": scope.source(),
        "openCount": open_count,
    })
}

/// The sync record after a failed run, and when to retry (`retry_after_ms` from Dynatrace's
/// `Retry-After` is honoured when longer than the ladder).
pub fn failure_record(memory: &SyncMemory, error: &str, retry_after_ms: Option<i64>, now_ms: i64) -> (Value, i64) {
    let delay = retry_delay_ms(memory.consecutive_failures).max(retry_after_ms.unwrap_or(0));
    let next = now_ms + delay;
    let text: String = error.chars().take(domain::dynatrace::MAX_ERROR_CHARS).collect();
    let record = json!({
        "key": "problems",
        "state": "error",
        "lastAttemptAt": format_ms(now_ms),
        "staleSince": memory.stale_since_ms.map(format_ms).unwrap_or_default(),
        "nextRetryAt": format_ms(next),
        "error": text,
        "consecutiveFailures": memory.consecutive_failures,
    });
    (record, delay)
}

/// Open problems among `problems`.
pub fn open_count(problems: &[Problem]) -> usize {
    problems.iter().filter(|p| p.status == ProblemStatus::Open).count()
}

#[cfg(test)]
mod tests {
    use super::*;

    const DAY: i64 = 24 * 3600 * 1000;

    #[test]
    fn a_reconciliation_runs_first_then_daily_and_incremental_runs_between() {
        let now = 1_000 * DAY;
        let mut memory = SyncMemory::default();
        assert_eq!(lookback(&memory, now), Lookback::Reconcile, "nothing reconciled yet");
        memory.last_reconciled_ms = Some(now - DAY + 60_000);
        memory.last_success_ms = Some(now - 60_000);
        assert_eq!(lookback(&memory, now), Lookback::Minutes(10), "minimum lookback");
        memory.last_reconciled_ms = Some(now - DAY);
        assert_eq!(lookback(&memory, now), Lookback::Reconcile, "24 h later");
        memory.last_reconciled_ms = Some(now - 60_000);
        memory.reconcile_pending = true;
        assert_eq!(lookback(&memory, now), Lookback::Reconcile, "a scope change asks for one");
    }

    #[test]
    fn a_matcher_wins_over_profiles() {
        let mut config = StoredConfig { alerting_profiles: vec!["NOC".into()], ..Default::default() };
        assert_eq!(scope_of(&config), Scope::AlertingProfiles(vec!["NOC".into()]));
        config.matcher = Some("event.name == \"x\"".into());
        assert_eq!(scope_of(&config), Scope::CustomMatcher("event.name == \"x\"".into()));
        assert_eq!(scope_of(&StoredConfig::default()), Scope::All);
    }

    #[test]
    fn only_problems_inside_the_window_that_a_complete_reconcile_misses_are_dropped() {
        let now = 1_000 * DAY;
        let stored =
            vec![("kept".to_string(), now - DAY), ("gone".into(), now - 2 * DAY), ("old".into(), now - 400 * DAY)];
        let returned: BTreeSet<String> = ["kept".to_string()].into();
        assert_eq!(dropped_by_reconcile(&stored, &returned, now), vec!["gone".to_string()]);
    }

    #[test]
    fn a_failure_backs_off_and_honours_a_longer_retry_after() {
        let memory = SyncMemory { consecutive_failures: 1, stale_since_ms: Some(5), ..Default::default() };
        let (record, delay) = failure_record(&memory, &"x".repeat(900), None, 1_000);
        assert_eq!(delay, retry_delay_ms(1));
        assert_eq!(record["error"].as_str().unwrap().chars().count(), domain::dynatrace::MAX_ERROR_CHARS);
        let (_, delay) = failure_record(&memory, "rate limited", Some(3_600_000), 1_000);
        assert_eq!(delay, 3_600_000);
    }

    #[test]
    fn content_hash_ignores_the_sync_time() {
        let a = json!({"problemId": "p", "title": "t", "syncedAt": "1"});
        let b = json!({"problemId": "p", "title": "t", "syncedAt": "2"});
        assert_eq!(content_hash(&a), content_hash(&b));
        assert_ne!(content_hash(&a), content_hash(&json!({"problemId": "p", "title": "u"})));
    }
}
