//! The retention gate and archive pruning. Destructive retention (old operational history and
//! surplus archives) is allowed only while the latest regular archive Relay created is under
//! 24 hours old, still the same file on disk (its fingerprint unchanged) and certified by a
//! disposable verification of that same file, with no failure recorded since. A passing gate
//! yields a [`RetentionPermit`], the only way to ask [`select_for_pruning`] for deletions, so
//! nothing is pruned without a verified replacement. Pruning keeps 10 regular and 3 pre-restore
//! archives, the certified archive and a selected restore source always among them.

use std::collections::HashSet;

use super::health::{FileFingerprint, HealthState};
use super::names::{ArchiveKind, ArchiveName};

/// A restore point must be younger than this to allow retention.
pub const MAX_RESTORE_POINT_AGE_MS: i64 = 24 * 60 * 60 * 1000;
pub const REGULAR_BUDGET: usize = 10;
pub const PRE_RESTORE_BUDGET: usize = 3;

/// Why retention is paused (what the status view says; no file names or errors).
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum RetentionDenied {
    #[error("no backup has been created by Relay yet")]
    NoRestorePoint,
    #[error("the last backup attempt failed")]
    LastAttemptFailed,
    #[error("the latest backup is older than 24 hours")]
    RestorePointStale,
    #[error("the latest backup changed or disappeared on disk")]
    RestorePointChanged,
    #[error("the latest backup has not passed verification")]
    NotVerified,
}

/// Proof that the gate passed: which archive is the certified restore point.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RetentionPermit {
    certified: ArchiveName,
}

impl RetentionPermit {
    /// The latest, verified, unchanged regular archive (never pruned).
    pub fn certified(&self) -> &ArchiveName {
        &self.certified
    }
}

/// Decides whether retention may run at `now_ms`. `observe` returns the current fingerprint
/// of an archive (`None` when it is missing or not a regular non-empty file).
pub fn retention_gate(
    state: &HealthState,
    observe: impl Fn(&ArchiveName) -> Option<FileFingerprint>,
    now_ms: i64,
) -> Result<RetentionPermit, RetentionDenied> {
    let latest = state.last_success.as_ref().ok_or(RetentionDenied::NoRestorePoint)?;
    if state.last_failure.is_some() {
        return Err(RetentionDenied::LastAttemptFailed);
    }
    let age = now_ms.saturating_sub(latest.completed_at);
    if !(0..MAX_RESTORE_POINT_AGE_MS).contains(&age) {
        return Err(RetentionDenied::RestorePointStale);
    }
    let verified = state.last_verified.as_ref().ok_or(RetentionDenied::NotVerified)?;
    if verified.name != latest.name {
        return Err(RetentionDenied::NotVerified);
    }
    let on_disk = observe(&latest.name).ok_or(RetentionDenied::RestorePointChanged)?;
    if on_disk != latest.fingerprint {
        return Err(RetentionDenied::RestorePointChanged);
    }
    if verified.fingerprint != on_disk {
        return Err(RetentionDenied::NotVerified);
    }
    Ok(RetentionPermit { certified: latest.name.clone() })
}

/// Whether a cycle must create a backup: whenever the gate does not pass.
pub fn backup_needed(
    state: &HealthState,
    observe: impl Fn(&ArchiveName) -> Option<FileFingerprint>,
    now_ms: i64,
) -> bool {
    retention_gate(state, observe, now_ms).is_err()
}

/// How many archives of each kind pruning keeps. `Default` is 10 regular and 3 pre-restore.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PruneBudgets {
    pub regular: usize,
    pub pre_restore: usize,
}

impl Default for PruneBudgets {
    fn default() -> Self {
        PruneBudgets { regular: REGULAR_BUDGET, pre_restore: PRE_RESTORE_BUDGET }
    }
}

/// The archives to delete among `archives` (the listing of `backups/`, ours only). Per kind,
/// protected archives (the certified one and `restore_source`) are kept first, then the newest
/// by the time in their names until the budget is used; the rest are returned, oldest last.
pub fn select_for_pruning(
    archives: &[ArchiveName],
    permit: &RetentionPermit,
    restore_source: Option<&ArchiveName>,
    budgets: PruneBudgets,
) -> Vec<ArchiveName> {
    let protected: HashSet<&ArchiveName> = std::iter::once(&permit.certified).chain(restore_source).collect();
    let mut unique: Vec<&ArchiveName> = archives.iter().collect::<HashSet<_>>().into_iter().collect();
    unique.sort_by(|a, b| b.created_ms().cmp(&a.created_ms()).then_with(|| b.as_str().cmp(a.as_str())));
    let mut doomed = Vec::new();
    for (kind, budget) in [(ArchiveKind::Regular, budgets.regular), (ArchiveKind::PreRestore, budgets.pre_restore)] {
        let of_kind: Vec<&ArchiveName> = unique.iter().copied().filter(|a| a.kind() == kind).collect();
        let mut kept = of_kind.iter().filter(|a| protected.contains(*a)).count();
        for archive in of_kind {
            if protected.contains(archive) {
                continue;
            }
            if kept < budget {
                kept += 1;
            } else {
                doomed.push(archive.clone());
            }
        }
    }
    doomed
}

#[cfg(test)]
#[path = "retention_tests.rs"]
mod tests;
