//! The status-feeds actor's pure bookkeeping: folding one poll's results into each provider's
//! state (a failed feed keeps its last good items and records the error), deciding which
//! `cloud_status` records must be written (only those whose content hash changed), the
//! subsystem's condition (degraded while any feed fails: "14 of 17 feeds failing: <error>"), and
//! reading the stored records back at start. No actor, no IO: the actor calls these and sends the
//! writes.

use std::collections::{BTreeMap, HashSet};

use serde_json::{json, Value};

use domain::status_feeds::{feed_error_message, ProviderId, ProviderSnapshot, StatusItem};
use domain::time::{format_ms, parse_datetime};
use domain::work_condition::{ConditionCode, WorkCondition};
use infra::status_feeds::ProviderPoll;

/// What the actor knows of one provider.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProviderState {
    pub snapshot: ProviderSnapshot,
    /// The last poll attempt (epoch ms).
    pub checked_at: Option<i64>,
    /// The content hash of what the store holds (`None`: nothing stored yet).
    pub stored_hash: Option<String>,
}

/// One `cloud_status` record to upsert, keyed by provider.
#[derive(Debug, Clone, PartialEq)]
pub struct StatusWrite {
    pub provider: ProviderId,
    pub hash: String,
    pub body: Value,
}

/// The record body for a provider's state.
pub fn record_body(state: &ProviderState, hash: &str) -> Value {
    let snapshot = &state.snapshot;
    json!({
        "provider": snapshot.provider.as_str(),
        "items": snapshot.items,
        "error": snapshot.error.clone().unwrap_or_default(),
        "checkedAt": state.checked_at.map(format_ms).unwrap_or_default(),
        "lastSuccessAt": snapshot.last_success.map(format_ms).unwrap_or_default(),
        "contentHash": hash,
    })
}

/// Folds `polls` taken at `now_ms` into `states`. Returns the providers polled successfully
/// (the fresh observations) and the writes whose content changed.
pub fn apply_polls(
    states: &mut BTreeMap<ProviderId, ProviderState>,
    polls: Vec<ProviderPoll>,
    now_ms: i64,
) -> (HashSet<ProviderId>, Vec<StatusWrite>) {
    let mut fresh = HashSet::new();
    let mut writes = Vec::new();
    for poll in polls {
        let state = states.entry(poll.provider).or_insert_with(|| ProviderState {
            snapshot: ProviderSnapshot::empty(poll.provider),
            checked_at: None,
            stored_hash: None,
        });
        state.checked_at = Some(now_ms);
        let was = state.snapshot.error.clone();
        match poll.outcome {
            Ok(items) => {
                fresh.insert(poll.provider);
                state.snapshot.items = items;
                state.snapshot.error = None;
                state.snapshot.last_success = Some(now_ms);
            }
            Err(message) => state.snapshot.error = Some(feed_error_message(&message)),
        }
        log_state_change(poll.provider, was.as_deref(), state.snapshot.error.as_deref());
        let hash = state.snapshot.content_hash();
        if state.stored_hash.as_deref() != Some(hash.as_str()) {
            writes.push(StatusWrite { provider: poll.provider, body: record_body(state, &hash), hash });
        }
    }
    (fresh, writes)
}

/// Degraded while any known feed fails: how many of how many, with the first failing feed's
/// error (in provider order; the health actor redacts and bounds the reason). `None` when all
/// feeds were read.
pub fn feeds_condition(states: &BTreeMap<ProviderId, ProviderState>) -> Option<WorkCondition> {
    let mut errors = states.values().filter_map(|s| s.snapshot.error.as_deref());
    let first = errors.next()?;
    let failing = 1 + errors.count();
    let total = states.len();
    let reason = format!("{failing} of {total} feeds failing: {first}");
    let count = |n: usize| u32::try_from(n).unwrap_or(u32::MAX);
    Some(WorkCondition::new(ConditionCode::FeedsFailing, &reason).counting(count(failing), count(total)))
}

/// What changed in a provider's health, if anything worth a log line: failures are logged once
/// when they start or change, and recovery once (a feed failing every minute for a day is one
/// line, not 1,440).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FeedLogLine {
    Failing(String),
    Recovered,
}

pub fn feed_log_line(was: Option<&str>, now: Option<&str>) -> Option<FeedLogLine> {
    match (was, now) {
        (_, Some(now)) if was != Some(now) => Some(FeedLogLine::Failing(now.to_string())),
        (Some(_), None) => Some(FeedLogLine::Recovered),
        _ => None,
    }
}

fn log_state_change(provider: ProviderId, was: Option<&str>, now: Option<&str>) {
    match feed_log_line(was, now) {
        Some(FeedLogLine::Failing(error)) => {
            tracing::warn!(provider = provider.as_str(), error = %error, "status feed failing");
        }
        Some(FeedLogLine::Recovered) => tracing::info!(provider = provider.as_str(), "status feed recovered"),
        None => {}
    }
}

/// A stored `cloud_status` record read back; `None` for a record that does not parse (it is
/// then rewritten by the next poll).
pub fn state_from_record(record: &Value) -> Option<ProviderState> {
    let provider = ProviderId::parse(record["provider"].as_str()?)?;
    let items: Vec<StatusItem> = serde_json::from_value(record["items"].clone()).ok()?;
    let text = |field: &str| record[field].as_str().filter(|s| !s.is_empty()).map(str::to_string);
    let time = |field: &str| text(field).and_then(|t| parse_datetime(&t).ok());
    Some(ProviderState {
        snapshot: ProviderSnapshot { provider, items, error: text("error"), last_success: time("lastSuccessAt") },
        checked_at: time("checkedAt"),
        stored_hash: text("contentHash"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use domain::status_feeds::Severity;

    fn item(id: &str) -> StatusItem {
        StatusItem {
            id: id.into(),
            provider: ProviderId::Github,
            title: "Degraded Actions".into(),
            description: String::new(),
            pub_date: Some(1),
            link: String::new(),
            severity: Severity::Warning,
            affected_scopes: vec![],
        }
    }

    fn ok(items: Vec<StatusItem>) -> ProviderPoll {
        ProviderPoll { provider: ProviderId::Github, outcome: Ok(items) }
    }

    fn failed(message: &str) -> ProviderPoll {
        ProviderPoll { provider: ProviderId::Github, outcome: Err(message.into()) }
    }

    /// Marks every write as stored, as the actor does after the store confirms it.
    fn store(states: &mut BTreeMap<ProviderId, ProviderState>, writes: &[StatusWrite]) {
        for w in writes {
            states.get_mut(&w.provider).unwrap().stored_hash = Some(w.hash.clone());
        }
    }

    #[test]
    fn an_unchanged_poll_writes_nothing() {
        let mut states = BTreeMap::new();
        let (fresh, writes) = apply_polls(&mut states, vec![ok(vec![item("a")])], 10);
        assert!(fresh.contains(&ProviderId::Github));
        assert_eq!(writes.len(), 1);
        store(&mut states, &writes);
        let (_, writes) = apply_polls(&mut states, vec![ok(vec![item("a")])], 20);
        assert!(writes.is_empty(), "same items, same hash: no write");
        assert_eq!(states[&ProviderId::Github].checked_at, Some(20));
        let (_, writes) = apply_polls(&mut states, vec![ok(vec![item("b")])], 30);
        assert_eq!(writes.len(), 1);
    }

    #[test]
    fn a_failed_poll_keeps_the_last_good_items_and_records_the_error() {
        let mut states = BTreeMap::new();
        let (_, writes) = apply_polls(&mut states, vec![ok(vec![item("a")])], 10);
        store(&mut states, &writes);
        let (fresh, writes) = apply_polls(&mut states, vec![failed(&"timed out ".repeat(100))], 20);
        assert!(fresh.is_empty());
        let state = &states[&ProviderId::Github];
        assert_eq!(state.snapshot.items, vec![item("a")]);
        assert_eq!(state.snapshot.last_success, Some(10));
        assert_eq!(state.snapshot.error.as_ref().unwrap().chars().count(), 500);
        assert_eq!(writes.len(), 1, "the error is visible, so it is stored");
        assert_eq!(writes[0].body["items"][0]["id"], "a");
        store(&mut states, &writes);
        let (_, writes) = apply_polls(&mut states, vec![failed(&"timed out ".repeat(100))], 30);
        assert!(writes.is_empty(), "the same failure again writes nothing");
    }

    #[test]
    fn the_condition_counts_failing_feeds_with_the_first_error_and_clears_when_all_are_read() {
        let mut states = BTreeMap::new();
        let polls = |outcome: fn(ProviderId) -> Result<Vec<StatusItem>, String>| {
            [ProviderId::Aws, ProviderId::Github, ProviderId::Jira]
                .into_iter()
                .map(|provider| ProviderPoll { provider, outcome: outcome(provider) })
                .collect::<Vec<_>>()
        };
        apply_polls(
            &mut states,
            polls(|p| if p == ProviderId::Jira { Ok(vec![]) } else { Err("connection refused".into()) }),
            10,
        );
        let condition = feeds_condition(&states).unwrap();
        assert_eq!(condition.code, ConditionCode::FeedsFailing);
        assert_eq!((condition.failing, condition.total), (Some(2), Some(3)));
        assert_eq!(condition.reason, "2 of 3 feeds failing: connection refused");
        apply_polls(&mut states, polls(|_| Ok(vec![])), 20);
        assert_eq!(feeds_condition(&states), None);
    }

    #[test]
    fn stored_records_read_back_to_the_same_state() {
        let mut states = BTreeMap::new();
        let (_, writes) = apply_polls(&mut states, vec![ok(vec![item("a")])], 1_800_000_000_000);
        store(&mut states, &writes);
        let read = state_from_record(&writes[0].body).unwrap();
        assert_eq!(read, states[&ProviderId::Github]);
        assert!(state_from_record(&json!({"provider": "nope", "items": []})).is_none());
        assert!(state_from_record(&json!({"provider": "aws", "items": [{"bogus": 1}]})).is_none());
    }

    #[test]
    fn a_failing_feed_is_logged_when_it_starts_or_changes_and_once_when_it_recovers() {
        use super::{feed_log_line, FeedLogLine};
        assert_eq!(feed_log_line(None, None), None);
        assert_eq!(feed_log_line(None, Some("timed out")), Some(FeedLogLine::Failing("timed out".into())));
        assert_eq!(feed_log_line(Some("timed out"), Some("timed out")), None, "the same failure again is quiet");
        assert_eq!(feed_log_line(Some("timed out"), Some("HTTP 503")), Some(FeedLogLine::Failing("HTTP 503".into())));
        assert_eq!(feed_log_line(Some("HTTP 503"), None), Some(FeedLogLine::Recovered));
    }
}
