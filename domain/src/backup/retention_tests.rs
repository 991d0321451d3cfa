//! The retention gate (fresh, unchanged, verified, no failure; pre-existing files grant
//! nothing) and pruning budgets with the certified archive and the restore source protected.

use super::*;
use crate::backup::health::{FailureText, VerificationOutcome};

const T: i64 = 1_796_216_231_000;
const HOUR: i64 = 3_600_000;

fn regular(i: i64) -> ArchiveName {
    ArchiveName::new(ArchiveKind::Regular, T + i * HOUR, &format!("reg{i:05}")).unwrap()
}
fn safety(i: i64) -> ArchiveName {
    ArchiveName::new(ArchiveKind::PreRestore, T + i * HOUR, &format!("pre{i:05}")).unwrap()
}
fn print(inode: u64) -> FileFingerprint {
    FileFingerprint { size: 10, mtime_ns: 1, ctime_ns: 2, inode }
}

/// A state where `regular(0)` was created and verified at `T`.
fn certified() -> HealthState {
    let mut state = HealthState::default();
    state.begin_attempt(T);
    state.record_created(&regular(0), print(1), T);
    state.record_verification(&regular(0), print(1), VerificationOutcome::Success, T);
    state.record_success(T);
    state
}

fn unchanged(_: &ArchiveName) -> Option<FileFingerprint> {
    Some(print(1))
}

#[test]
fn a_fresh_unchanged_verified_backup_allows_retention() {
    let permit = retention_gate(&certified(), unchanged, T + 23 * HOUR).unwrap();
    assert_eq!(permit.certified(), &regular(0));
    assert!(!backup_needed(&certified(), unchanged, T + HOUR));
}

#[test]
fn each_missing_condition_pauses_retention() {
    let state = certified();
    assert_eq!(retention_gate(&HealthState::default(), unchanged, T), Err(RetentionDenied::NoRestorePoint));
    assert_eq!(retention_gate(&state, unchanged, T + 24 * HOUR), Err(RetentionDenied::RestorePointStale));
    assert_eq!(retention_gate(&state, unchanged, T - 1), Err(RetentionDenied::RestorePointStale), "clock went back");
    assert_eq!(retention_gate(&state, |_| None, T), Err(RetentionDenied::RestorePointChanged), "deleted");
    assert_eq!(retention_gate(&state, |_| Some(print(9)), T), Err(RetentionDenied::RestorePointChanged), "replaced");

    let mut failed = state.clone();
    failed.begin_attempt(T + HOUR);
    failed.record_failure(FailureText::BackupFailed, T + HOUR);
    assert_eq!(retention_gate(&failed, unchanged, T + HOUR), Err(RetentionDenied::LastAttemptFailed));

    let mut unverified = state.clone();
    unverified.last_verified = None;
    assert_eq!(retention_gate(&unverified, unchanged, T), Err(RetentionDenied::NotVerified));

    // A newer backup whose verification failed: the earlier certificate does not cover it.
    let mut newer = state.clone();
    newer.record_created(&regular(1), print(2), T + HOUR);
    newer.record_verification(&regular(1), print(2), VerificationOutcome::Failed, T + HOUR);
    newer.last_failure = None; // even without the failure text
    assert_eq!(retention_gate(&newer, |_| Some(print(2)), T + HOUR), Err(RetentionDenied::NotVerified));

    // Verified as one file, then replaced by another file that the success record also names.
    let mut swapped = state;
    swapped.last_success.as_mut().unwrap().fingerprint = print(5);
    assert_eq!(retention_gate(&swapped, |_| Some(print(5)), T), Err(RetentionDenied::NotVerified));
    assert!(backup_needed(&swapped, |_| Some(print(5)), T));
}

#[test]
fn pre_existing_files_never_grant_retention() {
    // An archive that was already on disk is verified explicitly: it gets a certificate, but
    // Relay did not create it, so there is no restore point and no permission.
    let mut state = HealthState::default();
    state.record_verification(&regular(0), print(1), VerificationOutcome::Success, T);
    assert!(state.last_verified.is_some());
    assert_eq!(retention_gate(&state, unchanged, T), Err(RetentionDenied::NoRestorePoint));
}

fn permit() -> RetentionPermit {
    retention_gate(&certified(), unchanged, T).unwrap()
}

#[test]
fn budgets_keep_ten_regular_and_three_safety_archives() {
    let mut archives: Vec<ArchiveName> = (0..14).map(regular).collect();
    archives.extend((0..5).map(safety));
    let doomed = select_for_pruning(&archives, &permit(), None, PruneBudgets::default());
    // regular(0) is certified, so it stays; the 9 newest others fill the budget.
    let mut expected: Vec<ArchiveName> = (1..=4).rev().map(regular).collect();
    expected.extend([safety(1), safety(0)]);
    assert_eq!(doomed, expected);
    assert!(!doomed.contains(&regular(0)));
}

#[test]
fn the_restore_source_is_kept_even_beyond_the_budget() {
    let archives: Vec<ArchiveName> = (0..6).map(safety).chain((0..3).map(regular)).collect();
    let doomed = select_for_pruning(&archives, &permit(), Some(&safety(0)), PruneBudgets::default());
    assert_eq!(
        doomed,
        vec![safety(3), safety(2), safety(1)],
        "the source counts toward the budget and is never deleted"
    );
    let tight = PruneBudgets { regular: 0, pre_restore: 0 };
    let doomed = select_for_pruning(&archives, &permit(), Some(&regular(2)), tight);
    assert!(!doomed.contains(&regular(0)) && !doomed.contains(&regular(2)), "{doomed:?}");
    assert_eq!(doomed.len(), 7);
}

#[test]
fn nothing_is_pruned_within_budget_and_duplicates_count_once() {
    let archives = vec![regular(0), regular(1), regular(1), safety(0)];
    assert!(select_for_pruning(&archives, &permit(), None, PruneBudgets::default()).is_empty());
    let one = PruneBudgets { regular: 1, pre_restore: 1 };
    assert_eq!(select_for_pruning(&archives, &permit(), None, one), vec![regular(1)]);
}
