use std::fs;

use domain::updater::ReleaseFingerprint;

use super::*;
use crate::recovery::catalog::{write_catalog, Candidate};
use crate::recovery::snapshot::tests::{sample_data, tree};
use crate::recovery::test_support::{add_runtime, build, fingerprint, lock, root, runtime_names};

fn plenty(_: &Path) -> std::io::Result<u64> {
    Ok(u64::MAX)
}

/// A catalog with `current` and a candidate for `release`, both runtimes on disk.
fn with_candidate(root: &ManagedRoot, release: ReleaseFingerprint) -> Catalog {
    let current = add_runtime(root, "v1-0-0-aaaaaaaa", b"current", 1_000);
    let candidate = add_runtime(root, "v1-1-0-bbbbbbbb", b"candidate", 0);
    let mut catalog = Catalog::with_current(current);
    catalog.candidate = Some(Candidate {
        build: candidate.build,
        marker_sha512: candidate.marker_sha512,
        transaction: TransactionId::fresh(),
        source_build: catalog.current.build.clone(),
        release,
        attempts: 0,
        snapshot: None,
    });
    catalog
}

#[test]
fn bootstrap_needs_exactly_one_verified_runtime() {
    let (_tmp, root) = root();
    let held = lock(&root);
    assert!(matches!(bootstrap(&root, &held, 5), Err(RecoveryIoError::NoCatalog)));
    let only = add_runtime(&root, "v1-0-0-aaaaaaaa", b"runtime", 0);
    fs::create_dir(root.runtimes_dir().join(".partial-0123456789abcdef0123456789abcdef")).unwrap();
    let catalog = bootstrap(&root, &held, 5).unwrap();
    assert_eq!(catalog.current, CatalogBuild { promoted_at_ms: 5, ..only });
    assert_eq!(read_catalog(&root).unwrap(), Some(catalog));
    assert!(matches!(bootstrap(&root, &held, 6), Err(RecoveryIoError::NoCatalog)), "never over a catalog");
}

#[test]
fn bootstrap_refuses_two_runtimes_or_a_changed_executable() {
    let (_tmp, root) = root();
    let held = lock(&root);
    add_runtime(&root, "v1-0-0-aaaaaaaa", b"runtime", 0);
    add_runtime(&root, "v1-1-0-bbbbbbbb", b"other", 0);
    assert!(matches!(bootstrap(&root, &held, 5), Err(RecoveryIoError::NoCatalog)));
    fs::remove_dir_all(root.runtimes_dir().join("v1-1-0-bbbbbbbb")).unwrap();
    fs::write(root.runtimes_dir().join("v1-0-0-aaaaaaaa/relay-desktop"), b"changed").unwrap();
    assert!(matches!(bootstrap(&root, &held, 5), Err(RecoveryIoError::RuntimeMismatch)));
    assert_eq!(read_catalog(&root).unwrap(), None);
}

#[test]
fn unreferenced_runtimes_or_snapshots_make_the_state_unprovable_and_cleanup_does_nothing() {
    let (_tmp, root) = root();
    let held = lock(&root);
    let catalog = Catalog::with_current(add_runtime(&root, "v1-0-0-aaaaaaaa", b"runtime", 0));
    fs::create_dir(root.runtimes_dir().join(".trash-0123456789abcdef0123456789abcdef")).unwrap();
    check_disk(&root, &catalog, None).unwrap();
    add_runtime(&root, "v0-9-0-99999999", b"stray", 0);
    assert!(matches!(check_disk(&root, &catalog, None), Err(RecoveryIoError::InvalidCatalog("unreferenced_runtime"))));
    assert!(cleanup_leftovers(&root, &held, &catalog).is_err());
    assert_eq!(runtime_names(&root).len(), 3, "nothing removed while unprovable");
    fs::remove_dir_all(root.runtimes_dir().join("v0-9-0-99999999")).unwrap();
    fs::create_dir(root.snapshot_dir(&TransactionId::fresh())).unwrap();
    assert!(matches!(check_disk(&root, &catalog, None), Err(RecoveryIoError::InvalidCatalog("unreferenced_snapshot"))));
}

#[test]
fn cleanup_removes_only_recognized_leftovers() {
    let (_tmp, root) = root();
    let held = lock(&root);
    let catalog = Catalog::with_current(add_runtime(&root, "v1-0-0-aaaaaaaa", b"runtime", 0));
    fs::create_dir(root.runtimes_dir().join(".trash-0123456789abcdef0123456789abcdef")).unwrap();
    fs::create_dir(root.snapshots_dir().join(".partial-0123456789abcdef0123456789abcdef")).unwrap();
    cleanup_leftovers(&root, &held, &catalog).unwrap();
    assert_eq!(runtime_names(&root), ["v1-0-0-aaaaaaaa"]);
    assert_eq!(fs::read_dir(root.snapshots_dir()).unwrap().count(), 0);
}

#[test]
fn promotion_moves_the_source_to_the_front_and_retains_at_most_three_predecessors() {
    let (_tmp, root) = root();
    let held = lock(&root);
    let mut catalog = with_candidate(&root, fingerprint("1.1.0", 'b'));
    catalog.predecessors = vec![
        add_runtime(&root, "v0-3-0-33333333", b"p3", 300),
        add_runtime(&root, "v0-2-0-22222222", b"p2", 200),
        add_runtime(&root, "v0-1-0-11111111", b"p1", 100),
    ];
    write_catalog(&root, &held, &catalog).unwrap();
    let terminal = promote(&root, &held, &catalog, 5_000).unwrap();
    assert_eq!(terminal.current.build.as_str(), "v1-1-0-bbbbbbbb");
    assert_eq!(terminal.current.promoted_at_ms, 5_000);
    let kept: Vec<&str> = terminal.predecessors.iter().map(|p| p.build.as_str()).collect();
    assert_eq!(kept, ["v1-0-0-aaaaaaaa", "v0-3-0-33333333", "v0-2-0-22222222"]);
    assert_eq!(read_catalog(&root).unwrap(), Some(terminal));
    assert_eq!(runtime_names(&root), ["v0-2-0-22222222", "v0-3-0-33333333", "v1-0-0-aaaaaaaa", "v1-1-0-bbbbbbbb"]);
    assert!(!root.settlement_path().exists());
}

#[test]
fn rollback_restores_the_data_removes_the_candidate_and_quarantines_its_release() {
    let (tmp, root) = root();
    let held = lock(&root);
    let data = tmp.path().join("data");
    sample_data(&data);
    let release = fingerprint("1.1.0", 'b');
    let catalog = with_candidate(&root, release);
    write_catalog(&root, &held, &catalog).unwrap();
    let (catalog, _) = transition_snapshot(&root, &held, &catalog, &data);
    let before = tree(&data);
    fs::write(data.join("store/relay.db"), b"junk from the candidate").unwrap();
    let terminal = roll_back(&root, &held, &catalog, &data, Outcome::Rollback).unwrap();
    assert_eq!(terminal.candidate, None);
    assert!(terminal.quarantine.contains(&release.version, &release.commit));
    assert_eq!(tree(&data), before);
    assert_eq!(runtime_names(&root), ["v1-0-0-aaaaaaaa"]);
    assert_eq!(fs::read_dir(root.snapshots_dir()).unwrap().count(), 0);
    assert!(!root.settlement_path().exists() && !root.restore_journal_path().exists());
}

fn transition_snapshot(
    root: &ManagedRoot,
    held: &RecoveryLock,
    catalog: &Catalog,
    data: &Path,
) -> (Catalog, crate::recovery::snapshot::SnapshotManifest) {
    snapshot_for_candidate(root, held, catalog, data, &plenty).unwrap()
}

#[test]
fn a_discarded_candidate_is_removed_without_quarantine() {
    let (tmp, root) = root();
    let held = lock(&root);
    let catalog = with_candidate(&root, fingerprint("1.1.0", 'b'));
    write_catalog(&root, &held, &catalog).unwrap();
    let terminal = roll_back(&root, &held, &catalog, &tmp.path().join("data"), Outcome::Discard).unwrap();
    assert!(terminal.quarantine.entries().is_empty());
    assert_eq!(runtime_names(&root), ["v1-0-0-aaaaaaaa"]);
}

#[test]
fn reconcile_finishes_a_decided_outcome_found_in_the_pre_state() {
    let (tmp, root) = root();
    let held = lock(&root);
    let data = tmp.path().join("data");
    sample_data(&data);
    let catalog = with_candidate(&root, fingerprint("1.1.0", 'b'));
    write_catalog(&root, &held, &catalog).unwrap();
    let (catalog, _) = transition_snapshot(&root, &held, &catalog, &data);
    let before = tree(&data);
    fs::write(data.join("store/junk"), b"junk").unwrap();
    let intent = intent_for(&catalog, Outcome::Rollback).unwrap();
    write_settlement(&root, &held, &intent).unwrap();
    assert_eq!(reconcile(&root, &held, &data, 9).unwrap(), Reconciled::Finished(Outcome::Rollback));
    assert_eq!(tree(&data), before);
    let after = read_catalog(&root).unwrap().unwrap();
    assert!(after.candidate.is_none() && after.quarantine.entries().len() == 1);
    assert_eq!(reconcile(&root, &held, &data, 9).unwrap(), Reconciled::Nothing);
}

#[test]
fn reconcile_finishes_the_cleanup_of_an_activated_promotion() {
    let (tmp, root) = root();
    let held = lock(&root);
    let catalog = with_candidate(&root, fingerprint("1.1.0", 'b'));
    write_catalog(&root, &held, &catalog).unwrap();
    let intent = intent_for(&catalog, Outcome::Promote).unwrap();
    write_settlement(&root, &held, &intent).unwrap();
    let (terminal, _) = promoted(&catalog, 2_000).unwrap();
    write_catalog(&root, &held, &terminal).unwrap();
    fs::create_dir(root.snapshot_dir(&intent.transaction)).unwrap();
    let data = tmp.path().join("data");
    assert_eq!(reconcile(&root, &held, &data, 9).unwrap(), Reconciled::Cleaned(Outcome::Promote));
    assert!(!root.settlement_path().exists());
    assert!(!root.snapshot_dir(&intent.transaction).exists());
    assert_eq!(read_catalog(&root).unwrap(), Some(terminal));
}

#[test]
fn reconcile_discards_a_promotion_whose_target_changed() {
    let (tmp, root) = root();
    let held = lock(&root);
    let catalog = with_candidate(&root, fingerprint("1.1.0", 'b'));
    write_catalog(&root, &held, &catalog).unwrap();
    write_settlement(&root, &held, &intent_for(&catalog, Outcome::Promote).unwrap()).unwrap();
    fs::write(root.runtimes_dir().join("v1-1-0-bbbbbbbb/relay-desktop"), b"tampered").unwrap();
    assert_eq!(reconcile(&root, &held, &tmp.path().join("data"), 9).unwrap(), Reconciled::DiscardedPromotion);
    assert_eq!(read_catalog(&root).unwrap(), Some(catalog), "the candidate stays to fail normally");
}

#[test]
fn reconcile_refuses_an_intent_the_catalog_cannot_explain_and_touches_nothing() {
    let (tmp, root) = root();
    let held = lock(&root);
    let catalog = with_candidate(&root, fingerprint("1.1.0", 'b'));
    write_catalog(&root, &held, &catalog).unwrap();
    let mut intent = intent_for(&catalog, Outcome::Rollback).unwrap();
    intent.transaction = TransactionId::fresh();
    write_settlement(&root, &held, &intent).unwrap();
    let data = tmp.path().join("data");
    assert!(matches!(reconcile(&root, &held, &data, 9), Err(RecoveryIoError::InvalidSettlement("mismatch"))));
    assert_eq!(read_catalog(&root).unwrap(), Some(catalog.clone()));
    assert!(root.settlement_path().exists());
    assert_eq!(runtime_names(&root).len(), 2);

    // A rollback intent whose release is not quarantined in a candidate-free catalog.
    let mut terminal = catalog.clone();
    terminal.candidate = None;
    write_catalog(&root, &held, &terminal).unwrap();
    intent.transaction = catalog.candidate.as_ref().unwrap().transaction.clone();
    write_settlement(&root, &held, &intent).unwrap();
    fs::remove_dir_all(root.runtime_dir(&build("v1-1-0-bbbbbbbb"))).unwrap();
    assert!(matches!(reconcile(&root, &held, &data, 9), Err(RecoveryIoError::InvalidSettlement("mismatch"))));
    assert!(root.settlement_path().exists());
}
