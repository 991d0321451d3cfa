//! Roll-ups over the providers' snapshots: the worst-of display state (outage > unknown >
//! degraded > operational) per provider and overall, the posture the Status tab's cards show,
//! and the poll cadence (every 5 minutes while all is quiet, every 60 s while any feed failed or
//! any warning/error item was published within 7 days).

use serde::Serialize;

use super::{ProviderSnapshot, Severity, RECENT_WINDOW_MS};

/// Poll interval while every feed is healthy and quiet.
pub const HEALTHY_INTERVAL_MS: i64 = 5 * 60_000;
/// Poll interval while any feed errored or any provider reports recent trouble.
pub const DEGRADED_INTERVAL_MS: i64 = 60_000;

/// One provider's display state, ordered from best to worst.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum DisplayState {
    Operational,
    Degraded,
    Unknown,
    Outage,
}

/// A provider's state: an error item -> outage; a failed feed -> unknown; a warning -> degraded.
pub fn provider_state(snapshot: &ProviderSnapshot) -> DisplayState {
    let worst_item = snapshot.items.iter().map(|i| i.severity).fold(DisplayState::Operational, |acc, s| {
        acc.max(match s {
            Severity::Error => DisplayState::Outage,
            Severity::Warning => DisplayState::Degraded,
            Severity::Info | Severity::Resolved => DisplayState::Operational,
        })
    });
    if snapshot.error.is_some() {
        worst_item.max(DisplayState::Unknown)
    } else {
        worst_item
    }
}

/// What the posture cards show.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Posture {
    pub active_issues: usize,
    pub impacted_providers: usize,
    pub total_providers: usize,
    pub worst: DisplayState,
    pub quiet_providers: usize,
}

pub fn posture(snapshots: &[ProviderSnapshot]) -> Posture {
    let states: Vec<DisplayState> = snapshots.iter().map(provider_state).collect();
    Posture {
        active_issues: snapshots.iter().flat_map(|s| &s.items).filter(|i| i.severity.is_active()).count(),
        impacted_providers: states
            .iter()
            .filter(|s| matches!(s, DisplayState::Outage | DisplayState::Degraded))
            .count(),
        total_providers: snapshots.len(),
        worst: states.iter().copied().max().unwrap_or(DisplayState::Operational),
        quiet_providers: states.iter().filter(|s| **s == DisplayState::Operational).count(),
    }
}

/// Whether the next poll should come sooner: any feed failed, or any warning/error item was
/// published within the last 7 days (items without a date count as recent).
pub fn is_degraded(snapshots: &[ProviderSnapshot], now_ms: i64) -> bool {
    snapshots.iter().any(|s| {
        s.error.is_some()
            || s.items
                .iter()
                .any(|i| i.severity.is_active() && i.pub_date.is_none_or(|at| now_ms - at <= RECENT_WINDOW_MS))
    })
}

/// Milliseconds until the next scheduled poll.
pub fn next_poll_in_ms(snapshots: &[ProviderSnapshot], now_ms: i64) -> i64 {
    if is_degraded(snapshots, now_ms) {
        DEGRADED_INTERVAL_MS
    } else {
        HEALTHY_INTERVAL_MS
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::status_feeds::{ProviderId, StatusItem};

    fn item(severity: Severity, pub_date: Option<i64>) -> StatusItem {
        StatusItem {
            id: format!("{severity:?}"),
            provider: ProviderId::Github,
            title: "t".into(),
            description: String::new(),
            pub_date,
            link: String::new(),
            severity,
            affected_scopes: vec![],
        }
    }

    fn snap(items: Vec<StatusItem>, error: Option<&str>) -> ProviderSnapshot {
        ProviderSnapshot { provider: ProviderId::Github, items, error: error.map(str::to_string), last_success: None }
    }

    #[test]
    fn worst_of_order_is_outage_unknown_degraded_operational() {
        assert_eq!(provider_state(&snap(vec![], None)), DisplayState::Operational);
        assert_eq!(provider_state(&snap(vec![item(Severity::Warning, None)], None)), DisplayState::Degraded);
        assert_eq!(provider_state(&snap(vec![item(Severity::Warning, None)], Some("timeout"))), DisplayState::Unknown);
        assert_eq!(provider_state(&snap(vec![item(Severity::Error, None)], Some("timeout"))), DisplayState::Outage);
        assert_eq!(
            provider_state(&snap(vec![item(Severity::Resolved, None), item(Severity::Info, None)], None)),
            DisplayState::Operational
        );
    }

    #[test]
    fn posture_counts_issues_and_providers() {
        let all = [
            snap(vec![item(Severity::Error, None), item(Severity::Warning, None)], None),
            snap(vec![], Some("timeout")),
            snap(vec![item(Severity::Resolved, None)], None),
        ];
        let p = posture(&all);
        assert_eq!((p.active_issues, p.impacted_providers, p.total_providers, p.quiet_providers), (2, 1, 3, 1));
        assert_eq!(p.worst, DisplayState::Outage);
    }

    #[test]
    fn cadence_speeds_up_on_errors_and_recent_trouble_only() {
        let now = 100 * RECENT_WINDOW_MS;
        assert_eq!(next_poll_in_ms(&[snap(vec![item(Severity::Info, Some(now))], None)], now), HEALTHY_INTERVAL_MS);
        assert_eq!(next_poll_in_ms(&[snap(vec![], Some("x"))], now), DEGRADED_INTERVAL_MS);
        assert_eq!(
            next_poll_in_ms(&[snap(vec![item(Severity::Warning, Some(now - 1000))], None)], now),
            DEGRADED_INTERVAL_MS
        );
        let old = now - RECENT_WINDOW_MS - 1;
        assert_eq!(next_poll_in_ms(&[snap(vec![item(Severity::Error, Some(old))], None)], now), HEALTHY_INTERVAL_MS);
    }
}
