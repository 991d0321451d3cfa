use std::fs;

use super::*;
use crate::recovery::catalog::Catalog;
use crate::recovery::snapshot::take_snapshot;
use crate::recovery::snapshot::tests::{sample_data, tree};
use crate::recovery::test_support::{add_runtime, lock, root};

fn plenty(_: &Path) -> std::io::Result<u64> {
    Ok(u64::MAX)
}

/// A snapshot of sample data, then the data changed the way a failed candidate might.
/// Relative path → bytes of every file under a directory.
type Tree = Vec<(PathBuf, Vec<u8>)>;

fn snapshotted() -> (tempfile::TempDir, ManagedRoot, PathBuf, TransactionId, Tree) {
    let (tmp, root) = root();
    let data = tmp.path().join("data");
    sample_data(&data);
    fs::remove_dir_all(data.join("offline")).unwrap();
    let txn = TransactionId::fresh();
    take_snapshot(&root, &lock(&root), &data, &txn, &plenty).unwrap();
    let before = tree(&data);
    fs::write(data.join("store/relay.db"), b"migrated by the candidate").unwrap();
    fs::write(data.join("store/junk"), b"junk").unwrap();
    fs::create_dir(data.join("offline")).unwrap();
    fs::write(data.join("offline/new.db"), b"new").unwrap();
    (tmp, root, data, txn, before)
}

#[test]
fn a_restore_puts_the_snapshot_back_exactly_and_keeps_the_displaced_tree_until_proved() {
    let (_tmp, root, data, txn, before) = snapshotted();
    let source = add_runtime(&root, "v1-0-0-aaaaaaaa", b"old", 1);
    let held = lock(&root);
    restore_snapshot(&root, &held, &data, &txn, &source.build).unwrap();
    let mut live = tree(&data);
    live.retain(|(path, _)| !path.starts_with(DISPLACED_NAME) && !path.starts_with(STAGE_NAME));
    assert_eq!(live, before, "store restored, the candidate's offline/ displaced");
    assert_eq!(fs::read(data.join(DISPLACED_NAME).join("store/junk")).unwrap(), b"junk");

    // A catalog that still has a candidate of this transaction proves nothing.
    let mut unproved = Catalog::with_current(source.clone());
    unproved.current.build = domain::updater::BuildId::parse("v9-0-0-99999999").unwrap();
    assert!(finish_restore(&root, &held, &data, &unproved).is_err());
    assert!(data.join(DISPLACED_NAME).exists());

    assert!(finish_restore(&root, &held, &data, &Catalog::with_current(source)).unwrap());
    assert_eq!(tree(&data), before);
    assert!(!root.restore_journal_path().exists());
}

#[test]
fn an_interrupted_swap_rolls_forward_when_run_again() {
    let (_tmp, root, data, txn, before) = snapshotted();
    let source = add_runtime(&root, "v1-0-0-aaaaaaaa", b"old", 1);
    let held = lock(&root);
    restore_snapshot(&root, &held, &data, &txn, &source.build).unwrap();
    // Back to the state between "live → displaced" and "stage → live" for store/.
    fs::rename(data.join("store"), data.join(STAGE_NAME).join("store")).unwrap();
    restore_snapshot(&root, &held, &data, &txn, &source.build).unwrap();
    // Running it again once finished changes nothing.
    restore_snapshot(&root, &held, &data, &txn, &source.build).unwrap();
    finish_restore(&root, &held, &data, &Catalog::with_current(source)).unwrap();
    assert_eq!(tree(&data), before);
}

#[test]
fn an_unexplained_observation_touches_nothing() {
    let (_tmp, root, data, txn, _) = snapshotted();
    let source = add_runtime(&root, "v1-0-0-aaaaaaaa", b"old", 1);
    let held = lock(&root);
    fs::create_dir(data.join(DISPLACED_NAME)).unwrap();
    assert!(matches!(
        restore_snapshot(&root, &held, &data, &txn, &source.build),
        Err(RecoveryIoError::InvalidSnapshot("displaced_without_journal"))
    ));
    assert_eq!(fs::read(data.join("store/junk")).unwrap(), b"junk");
    fs::remove_dir(data.join(DISPLACED_NAME)).unwrap();
    let other = domain::updater::BuildId::parse("v2-0-0-bbbbbbbb").unwrap();
    restore_snapshot(&root, &held, &data, &txn, &source.build).unwrap();
    assert!(matches!(
        restore_snapshot(&root, &held, &data, &txn, &other),
        Err(RecoveryIoError::InvalidSnapshot("journal_mismatch"))
    ));
}
