//! The updater actor's decisions that need no actor, as pure functions over instants the actor
//! reads from its injected clock: whether an on-demand check may go out now or how long the
//! caller must wait ([`check_gate`]: one on-demand check per interval, never before GitHub's
//! `Retry-After`), when the next periodic check is due ([`next_check_in_ms`]), until when GitHub
//! must not be asked after a rate limit ([`github_not_before_ms`]), and which entries of the
//! updates root are abandoned staging ([`abandoned_staging`], `domain::updater::staging_cleanup`
//! per entry, links and files never), and whether the release notes are refreshed after a
//! check ([`notes_refresh_due`]). It performs no IO and keeps no state.

use domain::updater::{staging_cleanup, StagingCleanup, StagingDirName};
use infra::updater::RootEntry;

/// Why a check may not go out now, and for how many whole seconds (at least 1).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CheckRefusal {
    /// The previous on-demand check was too recent.
    OnDemandTooSoon { retry_after_secs: u64 },
    /// GitHub asked Relay to wait.
    GitHubWait { retry_after_secs: u64 },
}

fn whole_secs(ms: i64) -> u64 {
    (ms.max(1) as u64).div_ceil(1000)
}

/// Whether an on-demand check may go out at `now_ms`: GitHub's wait first (it binds every
/// check), then at most one on-demand check per `interval_ms` since `last_on_demand_ms`.
pub fn check_gate(
    now_ms: i64,
    last_on_demand_ms: Option<i64>,
    interval_ms: i64,
    github_not_before_ms: Option<i64>,
) -> Result<(), CheckRefusal> {
    if let Some(wait) = github_not_before_ms.map(|at| at - now_ms).filter(|wait| *wait > 0) {
        return Err(CheckRefusal::GitHubWait { retry_after_secs: whole_secs(wait) });
    }
    if let Some(wait) = last_on_demand_ms.map(|last| last + interval_ms - now_ms).filter(|wait| *wait > 0) {
        return Err(CheckRefusal::OnDemandTooSoon { retry_after_secs: whole_secs(wait) });
    }
    Ok(())
}

/// The instant before which GitHub must not be asked again after it rate-limited a check:
/// its `Retry-After`, or `default_wait_ms` when it named none.
pub fn github_not_before_ms(now_ms: i64, retry_after_secs: Option<u64>, default_wait_ms: i64) -> i64 {
    let wait_ms =
        retry_after_secs.map_or(default_wait_ms, |secs| secs.saturating_mul(1000).min(i64::MAX as u64) as i64);
    now_ms.saturating_add(wait_ms.max(0))
}

/// Milliseconds until the next periodic check: one `interval_ms` from now, or later when GitHub
/// asked Relay to wait longer than that.
pub fn next_check_in_ms(now_ms: i64, interval_ms: i64, github_not_before_ms: Option<i64>) -> i64 {
    let waited = github_not_before_ms.map_or(0, |at| at - now_ms);
    interval_ms.max(waited).max(1)
}

/// Whether the release notes are refreshed after a successful check at `now_ms`: after a
/// scheduled check always, after an on-demand one only when the last refresh started at least
/// `interval_ms` ago (or never).
pub fn notes_refresh_due(now_ms: i64, last_started_ms: Option<i64>, on_demand: bool, interval_ms: i64) -> bool {
    !on_demand || last_started_ms.is_none_or(|last| now_ms.saturating_sub(last) >= interval_ms)
}

/// The staging directories to remove from the updates root at `now_ms`: real directories (not
/// links, not files) whose name the domain recognizes, not in `in_use`, and abandoned by the
/// domain's 24-hour rule. An entry without a modification time is kept (its age is unproven).
pub fn abandoned_staging(entries: &[RootEntry], now_ms: i64, in_use: &[StagingDirName]) -> Vec<StagingDirName> {
    let Ok(now_ms) = u64::try_from(now_ms) else {
        return Vec::new();
    };
    entries
        .iter()
        .filter(|entry| entry.is_dir)
        .filter_map(|entry| {
            let name = StagingDirName::parse(&entry.name).ok()?;
            let modified_ms = entry.modified_ms?;
            let active = in_use.iter().find(|used| **used == name);
            // `active` covers one name per call; any other in-use name is kept below.
            let decision = staging_cleanup(&entry.name, modified_ms, now_ms, active);
            (decision == StagingCleanup::Remove && !in_use.contains(&name)).then_some(name)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use domain::updater::recovery::STAGING_ABANDONED_AFTER_MS;
    use domain::updater::Version;

    const NOW: i64 = 1_800_000_000_000;
    const DAY: u64 = STAGING_ABANDONED_AFTER_MS;

    #[test]
    fn an_on_demand_check_goes_out_once_per_interval() {
        assert_eq!(check_gate(NOW, None, 60_000, None), Ok(()));
        assert_eq!(
            check_gate(NOW + 10_000, Some(NOW), 60_000, None),
            Err(CheckRefusal::OnDemandTooSoon { retry_after_secs: 50 })
        );
        assert_eq!(
            check_gate(NOW + 59_999, Some(NOW), 60_000, None),
            Err(CheckRefusal::OnDemandTooSoon { retry_after_secs: 1 })
        );
        assert_eq!(check_gate(NOW + 60_000, Some(NOW), 60_000, None), Ok(()));
    }

    #[test]
    fn githubs_wait_binds_before_the_on_demand_interval() {
        let not_before = github_not_before_ms(NOW, Some(120), 60_000);
        assert_eq!(not_before, NOW + 120_000);
        assert_eq!(
            check_gate(NOW + 61_000, Some(NOW), 60_000, Some(not_before)),
            Err(CheckRefusal::GitHubWait { retry_after_secs: 59 })
        );
        assert_eq!(check_gate(NOW + 120_000, Some(NOW), 60_000, Some(not_before)), Ok(()));
        assert_eq!(github_not_before_ms(NOW, None, 60_000), NOW + 60_000, "no Retry-After: the default wait");
        assert_eq!(github_not_before_ms(NOW, Some(u64::MAX), 60_000), i64::MAX, "saturates");
    }

    #[test]
    fn the_periodic_check_waits_for_github_when_it_asked_for_longer() {
        assert_eq!(next_check_in_ms(NOW, 900_000, None), 900_000);
        assert_eq!(next_check_in_ms(NOW, 900_000, Some(NOW + 3_600_000)), 3_600_000);
        assert_eq!(next_check_in_ms(NOW, 900_000, Some(NOW - 5)), 900_000);
    }

    #[test]
    fn notes_refresh_after_every_scheduled_check_and_rarely_on_demand() {
        assert!(notes_refresh_due(NOW, Some(NOW), false, 900_000), "a scheduled check always refreshes");
        assert!(notes_refresh_due(NOW, None, true, 900_000));
        assert!(!notes_refresh_due(NOW + 899_999, Some(NOW), true, 900_000));
        assert!(notes_refresh_due(NOW + 900_000, Some(NOW), true, 900_000));
    }

    fn staging(version: Version, last_byte: u8) -> StagingDirName {
        let mut random = [0u8; 16];
        random[15] = last_byte;
        StagingDirName::from_random(version, random)
    }

    fn entry(name: &str, is_dir: bool, age_ms: Option<u64>) -> RootEntry {
        RootEntry { name: name.into(), is_dir, modified_ms: age_ms.map(|age| NOW as u64 - age) }
    }

    #[test]
    fn only_old_recognized_directories_not_in_use_are_abandoned() {
        let old = staging(Version::new(1, 3, 0), 1);
        let fresh = staging(Version::new(1, 3, 0), 2);
        let held = staging(Version::new(1, 2, 9), 3);
        let link = staging(Version::new(1, 2, 8), 4);
        let file = staging(Version::new(1, 2, 7), 5);
        let unknown_age = staging(Version::new(1, 2, 6), 6);
        let entries = [
            entry(&old.to_string(), true, Some(DAY)),
            entry(&fresh.to_string(), true, Some(DAY - 1)),
            entry(&held.to_string(), true, Some(2 * DAY)),
            entry(&link.to_string(), false, Some(2 * DAY)),
            entry(&file.to_string(), false, Some(2 * DAY)),
            entry(&unknown_age.to_string(), true, None),
            entry("v1.3.0-not-a-uuid", true, Some(2 * DAY)),
            entry("notes", true, Some(2 * DAY)),
            entry(".hidden", true, Some(2 * DAY)),
        ];
        assert_eq!(abandoned_staging(&entries, NOW, &[held]), vec![old]);
        assert_eq!(abandoned_staging(&entries, NOW, &[]), vec![old, held]);
        assert_eq!(abandoned_staging(&entries, -1, &[]), vec![], "an instant before the epoch proves nothing");
    }
}
