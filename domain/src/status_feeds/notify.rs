//! When a status item deserves a toast. An outage (error item) toasts the first time the server
//! sees it; a degradation (warning item) only once three distinct server observations of it span
//! at least two minutes; planned maintenance, info and resolved items never toast. Each incident
//! is one *episode* (keyed by provider group and item id, so the four Mist regions reporting one
//! notice make one toast) that toasts at most once and ends when the item is no longer active.
//! Episodes already toasted are seeded back after a restart, so a restart does not re-toast;
//! observations of not-yet-toasted degradations are kept in memory only (a restart delays such a
//! toast, never repeats one). A feed that failed this round contributes no observation but keeps
//! its episodes open.

use std::collections::{BTreeMap, HashSet};

use serde::Serialize;

use super::rules::is_planned_maintenance;
use super::{ProviderId, ProviderSnapshot, Severity, StatusItem};

/// Distinct observations a degradation needs before it toasts.
pub const DEGRADATION_OBSERVATIONS: usize = 3;
/// The span those observations must cover.
pub const DEGRADATION_SPAN_MS: i64 = 2 * 60_000;

/// A toast the server publishes (as a `cloud_status_notices` record).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Toast {
    pub episode: String,
    pub provider: ProviderId,
    pub item_id: String,
    pub severity: Severity,
    pub title: String,
}

/// What one observation decided.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Decision {
    /// Episodes that toast now.
    pub toasts: Vec<Toast>,
    /// Toasted episodes that ended with this observation.
    pub ended: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct Episode {
    /// The first and the latest observation times, and how many distinct ones there were.
    first_seen: i64,
    last_seen: i64,
    observations: usize,
    notified: bool,
}

impl Episode {
    fn new(notified: bool) -> Episode {
        Episode { first_seen: 0, last_seen: 0, observations: 0, notified }
    }
}

/// The episode key of an item: `<toast group>:<item id>`.
pub fn episode_key(item: &StatusItem) -> String {
    format!("{}:{}", item.provider.toast_group(), item.id)
}

/// Whether an item can ever toast.
pub fn is_toastable(item: &StatusItem) -> bool {
    item.severity.is_active() && !is_planned_maintenance(&item.title) && !is_planned_maintenance(&item.description)
}

/// The episodes in progress. Owned by the status-feeds actor.
#[derive(Debug, Clone, Default)]
pub struct NotificationTracker {
    episodes: BTreeMap<String, Episode>,
}

impl NotificationTracker {
    /// A tracker that knows which episodes already toasted (the open notices in the store).
    pub fn seeded(already_toasted: impl IntoIterator<Item = String>) -> NotificationTracker {
        let episodes = already_toasted.into_iter().map(|key| (key, Episode::new(true))).collect();
        NotificationTracker { episodes }
    }

    /// Episodes currently open (toasted or pending).
    pub fn open_episodes(&self) -> usize {
        self.episodes.len()
    }

    /// Records one server observation at `now_ms` over every provider's snapshot. `fresh` names
    /// the providers whose poll succeeded this round; only their items count as observed.
    pub fn observe(&mut self, now_ms: i64, snapshots: &[ProviderSnapshot], fresh: &HashSet<ProviderId>) -> Decision {
        let mut decision = Decision::default();
        let mut still_active = HashSet::new();
        for snapshot in snapshots {
            for item in snapshot.items.iter().filter(|i| is_toastable(i)) {
                let key = episode_key(item);
                if !still_active.insert(key.clone()) {
                    continue; // another Mist region reporting the same notice
                }
                let observed = fresh.contains(&snapshot.provider);
                let episode = self.episodes.entry(key.clone()).or_insert(Episode::new(false));
                if episode.notified || !observed {
                    continue;
                }
                if episode.observations == 0 {
                    episode.first_seen = now_ms;
                }
                if episode.observations == 0 || now_ms > episode.last_seen {
                    episode.observations += 1;
                    episode.last_seen = now_ms;
                }
                let due = match item.severity {
                    Severity::Error => true,
                    _ => {
                        episode.observations >= DEGRADATION_OBSERVATIONS
                            && episode.last_seen - episode.first_seen >= DEGRADATION_SPAN_MS
                    }
                };
                if due {
                    episode.notified = true;
                    decision.toasts.push(Toast {
                        episode: key,
                        provider: item.provider,
                        item_id: item.id.clone(),
                        severity: item.severity,
                        title: item.title.clone(),
                    });
                }
            }
        }
        let ended: Vec<String> = self.episodes.keys().filter(|k| !still_active.contains(*k)).cloned().collect();
        for key in ended {
            if self.episodes.remove(&key).is_some_and(|e| e.notified) {
                decision.ended.push(key);
            }
        }
        decision
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MIN: i64 = 60_000;

    fn item(provider: ProviderId, id: &str, severity: Severity, title: &str) -> StatusItem {
        StatusItem {
            id: id.into(),
            provider,
            title: title.into(),
            description: String::new(),
            pub_date: None,
            link: String::new(),
            severity,
            affected_scopes: vec![],
        }
    }

    fn snap(provider: ProviderId, items: Vec<StatusItem>) -> ProviderSnapshot {
        ProviderSnapshot { provider, items, error: None, last_success: Some(0) }
    }

    fn all_fresh() -> HashSet<ProviderId> {
        crate::status_feeds::PROVIDERS.iter().map(|p| p.id).collect()
    }

    #[test]
    fn an_outage_toasts_at_once_and_only_once() {
        let mut t = NotificationTracker::default();
        let s = [snap(ProviderId::Github, vec![item(ProviderId::Github, "a", Severity::Error, "Git down")])];
        let first = t.observe(0, &s, &all_fresh());
        assert_eq!(first.toasts.len(), 1);
        assert_eq!(first.toasts[0].episode, "github:a");
        assert!(t.observe(MIN, &s, &all_fresh()).toasts.is_empty());
        assert!(t.observe(10 * MIN, &s, &all_fresh()).toasts.is_empty());
    }

    #[test]
    fn a_degradation_needs_three_observations_two_minutes_apart() {
        let mut t = NotificationTracker::default();
        let s = [snap(ProviderId::Jira, vec![item(ProviderId::Jira, "d", Severity::Warning, "Slow boards")])];
        assert!(t.observe(0, &s, &all_fresh()).toasts.is_empty());
        assert!(t.observe(0, &s, &all_fresh()).toasts.is_empty(), "the same instant is one observation");
        assert!(t.observe(MIN / 2, &s, &all_fresh()).toasts.is_empty());
        assert!(t.observe(MIN, &s, &all_fresh()).toasts.is_empty(), "three observations spanning 1 min are not enough");
        assert_eq!(t.observe(2 * MIN, &s, &all_fresh()).toasts.len(), 1, "four observations spanning 2 min");
    }

    #[test]
    fn two_observations_over_a_long_span_are_not_enough() {
        let mut t = NotificationTracker::default();
        let s = [snap(ProviderId::Jira, vec![item(ProviderId::Jira, "d", Severity::Warning, "Slow")])];
        assert!(t.observe(0, &s, &all_fresh()).toasts.is_empty());
        assert!(t.observe(30 * MIN, &s, &all_fresh()).toasts.is_empty(), "two observations");
        assert!(t.observe(20 * MIN, &s, &all_fresh()).toasts.is_empty(), "a clock going back is no new observation");
        assert_eq!(t.observe(31 * MIN, &s, &all_fresh()).toasts.len(), 1);
    }

    #[test]
    fn a_degradation_that_becomes_an_outage_toasts_at_once() {
        let mut t = NotificationTracker::default();
        let warn = [snap(ProviderId::Jira, vec![item(ProviderId::Jira, "x", Severity::Warning, "Slow")])];
        let err = [snap(ProviderId::Jira, vec![item(ProviderId::Jira, "x", Severity::Error, "Down")])];
        assert!(t.observe(0, &warn, &all_fresh()).toasts.is_empty());
        let d = t.observe(MIN, &err, &all_fresh());
        assert_eq!(d.toasts[0].severity, Severity::Error);
    }

    #[test]
    fn maintenance_info_and_resolved_never_toast() {
        let mut t = NotificationTracker::default();
        let s = [snap(
            ProviderId::Azure,
            vec![
                item(ProviderId::Azure, "m", Severity::Error, "Planned maintenance: storage outage window"),
                item(ProviderId::Azure, "i", Severity::Info, "FYI"),
                item(ProviderId::Azure, "r", Severity::Resolved, "Fixed"),
            ],
        )];
        for at in 0..10 {
            assert!(t.observe(at * MIN, &s, &all_fresh()).toasts.is_empty());
        }
        assert_eq!(t.open_episodes(), 0);
    }

    #[test]
    fn mist_regions_share_one_episode() {
        let mut t = NotificationTracker::default();
        let s: Vec<ProviderSnapshot> = crate::status_feeds::MIST_REGIONS
            .iter()
            .map(|r| snap(*r, vec![item(*r, "777", Severity::Error, "Mist cloud down")]))
            .collect();
        let d = t.observe(0, &s, &all_fresh());
        assert_eq!(d.toasts.len(), 1);
        assert_eq!(d.toasts[0].episode, "mist:777");
    }

    #[test]
    fn an_episode_ends_when_the_item_goes_and_a_return_toasts_again() {
        let mut t = NotificationTracker::default();
        let on = [snap(ProviderId::Github, vec![item(ProviderId::Github, "a", Severity::Error, "Down")])];
        let off = [snap(ProviderId::Github, vec![item(ProviderId::Github, "a", Severity::Resolved, "Up")])];
        assert_eq!(t.observe(0, &on, &all_fresh()).toasts.len(), 1);
        assert_eq!(t.observe(MIN, &off, &all_fresh()).ended, vec!["github:a".to_string()]);
        assert_eq!(t.observe(2 * MIN, &on, &all_fresh()).toasts.len(), 1);
    }

    #[test]
    fn a_restart_seeded_with_toasted_episodes_does_not_toast_again() {
        let mut t = NotificationTracker::seeded(["github:a".to_string()]);
        let on = [snap(ProviderId::Github, vec![item(ProviderId::Github, "a", Severity::Error, "Down")])];
        assert!(t.observe(0, &on, &all_fresh()).toasts.is_empty());
    }

    #[test]
    fn a_failed_feed_adds_no_observation_but_keeps_its_episode() {
        let mut t = NotificationTracker::default();
        let s = [snap(ProviderId::Jira, vec![item(ProviderId::Jira, "d", Severity::Warning, "Slow")])];
        let none = HashSet::new();
        assert!(t.observe(0, &s, &all_fresh()).toasts.is_empty());
        for at in 1..6 {
            assert!(t.observe(at * MIN, &s, &none).toasts.is_empty(), "stale items are not observations");
        }
        assert_eq!(t.open_episodes(), 1);
        assert!(t.observe(6 * MIN, &s, &all_fresh()).toasts.is_empty(), "two observations only");
        assert_eq!(t.observe(7 * MIN, &s, &all_fresh()).toasts.len(), 1);
    }
}
