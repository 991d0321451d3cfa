use std::fs;
use std::path::{Path, PathBuf};

use super::*;
use crate::recovery::test_support::{lock, root};

/// Every file under `dir` (relative path → bytes), for byte-for-byte comparisons.
pub(crate) fn tree(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut files = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(next) = pending.pop() {
        for entry in fs::read_dir(&next).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                files.push((path.strip_prefix(dir).unwrap().to_path_buf(), b"<dir>".to_vec()));
                pending.push(path);
            } else {
                files.push((path.strip_prefix(dir).unwrap().to_path_buf(), fs::read(&path).unwrap()));
            }
        }
    }
    files.sort();
    files
}

pub(crate) fn sample_data(dir: &Path) {
    fs::create_dir_all(dir.join("store/wiki")).unwrap();
    fs::create_dir_all(dir.join("offline")).unwrap();
    fs::write(dir.join("store/relay.db"), b"database bytes").unwrap();
    fs::write(dir.join("store/wiki/doc.pdf"), vec![7u8; 10_000]).unwrap();
    fs::write(dir.join("offline/queue.db"), b"pending").unwrap();
    fs::write(dir.join("desktop.json"), b"{}").unwrap();
}

fn plenty(_: &Path) -> std::io::Result<u64> {
    Ok(u64::MAX)
}

#[test]
fn the_free_space_rule_is_twice_the_data_plus_the_margin() {
    assert!(snapshot_space_ok(0, SNAPSHOT_MARGIN_BYTES));
    assert!(!snapshot_space_ok(0, SNAPSHOT_MARGIN_BYTES - 1));
    assert!(snapshot_space_ok(100, SNAPSHOT_MARGIN_BYTES + 200));
    assert!(!snapshot_space_ok(100, SNAPSHOT_MARGIN_BYTES + 199));
    assert!(!snapshot_space_ok(u64::MAX / 2 + 1, u64::MAX));
}

#[test]
fn a_snapshot_copies_store_and_offline_byte_for_byte_and_is_marked_complete() {
    let (tmp, root) = root();
    let data = tmp.path().join("data");
    sample_data(&data);
    let txn = TransactionId::fresh();
    let manifest = take_snapshot(&root, &lock(&root), &data, &txn, &plenty).unwrap();
    assert_eq!(manifest.items.iter().map(|i| i.name.as_str()).collect::<Vec<_>>(), ["store", "offline"]);
    let copy = root.snapshot_dir(&txn).join(DATA_DIR_NAME);
    assert_eq!(tree(&copy.join("store")), tree(&data.join("store")));
    assert_eq!(tree(&copy.join("offline")), tree(&data.join("offline")));
    assert!(!copy.join("desktop.json").exists(), "settings beside the data are not snapshotted");
    assert_eq!(read_snapshot(&root, &txn).unwrap(), manifest);
    let leftovers: Vec<_> = fs::read_dir(root.snapshots_dir()).unwrap().collect();
    assert_eq!(leftovers.len(), 1, "only the activated snapshot");
}

#[test]
fn too_little_free_space_refuses_before_copying_anything() {
    let (tmp, root) = root();
    let data = tmp.path().join("data");
    sample_data(&data);
    let data_bytes = 14 + 10_000 + 7;
    let probe = move |_: &Path| Ok(2 * data_bytes + SNAPSHOT_MARGIN_BYTES - 1);
    let txn = TransactionId::fresh();
    assert!(matches!(take_snapshot(&root, &lock(&root), &data, &txn, &probe), Err(RecoveryIoError::InsufficientSpace)));
    assert_eq!(fs::read_dir(root.snapshots_dir()).unwrap().count(), 0);
    let exact = move |_: &Path| Ok(2 * data_bytes + SNAPSHOT_MARGIN_BYTES);
    take_snapshot(&root, &lock(&root), &data, &txn, &exact).unwrap();
}

#[test]
fn links_and_special_files_in_the_data_refuse_the_snapshot() {
    let (tmp, root) = root();
    let data = tmp.path().join("data");
    sample_data(&data);
    std::os::unix::fs::symlink("/etc/passwd", data.join("store/link")).unwrap();
    let txn = TransactionId::fresh();
    assert!(matches!(
        take_snapshot(&root, &lock(&root), &data, &txn, &plenty),
        Err(RecoveryIoError::LinkOrSpecialFile)
    ));
    fs::remove_file(data.join("store/link")).unwrap();
    let fifo = std::ffi::CString::new(data.join("offline/fifo").to_str().unwrap()).unwrap();
    // SAFETY: a valid NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr(), 0o600) }, 0);
    assert!(matches!(
        take_snapshot(&root, &lock(&root), &data, &txn, &plenty),
        Err(RecoveryIoError::LinkOrSpecialFile)
    ));
    assert_eq!(fs::read_dir(root.snapshots_dir()).unwrap().count(), 0, "no partial copy left");
}

#[test]
fn a_running_server_holding_the_data_lock_refuses_the_snapshot() {
    let (tmp, root) = root();
    let data = tmp.path().join("data");
    sample_data(&data);
    let _server = crate::dir_lock::lock(&data).unwrap();
    let txn = TransactionId::fresh();
    assert!(matches!(take_snapshot(&root, &lock(&root), &data, &txn, &plenty), Err(RecoveryIoError::DataInUse)));
}

#[test]
fn a_changed_or_incomplete_snapshot_is_not_proved() {
    let (tmp, root) = root();
    let data = tmp.path().join("data");
    sample_data(&data);
    let txn = TransactionId::fresh();
    take_snapshot(&root, &lock(&root), &data, &txn, &plenty).unwrap();
    let copy = root.snapshot_dir(&txn).join(DATA_DIR_NAME);
    fs::write(copy.join("store/extra"), b"x").unwrap();
    assert!(matches!(read_snapshot(&root, &txn), Err(RecoveryIoError::InvalidSnapshot("copy_changed"))));
    fs::remove_file(copy.join("store/extra")).unwrap();
    read_snapshot(&root, &txn).unwrap();
    fs::remove_file(root.snapshot_dir(&txn).join(COMPLETE_NAME)).unwrap();
    assert!(matches!(read_snapshot(&root, &txn), Err(RecoveryIoError::InvalidSnapshot("incomplete"))));
}
