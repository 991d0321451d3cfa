use std::fs;

use super::*;
use crate::recovery::catalog::{write_catalog, Catalog};
use crate::recovery::marker::MARKER_NAME;
use crate::recovery::test_support::{add_runtime, build, lock, root};

const CURRENT: &str = "v2-0-0-bbbbbbbb";
const RETAINED: &str = "v1-0-0-aaaaaaaa";

fn layout() -> (tempfile::TempDir, ManagedRoot, Catalog) {
    let (tmp, root) = root();
    let current = add_runtime(&root, CURRENT, b"current build", 20);
    let retained = add_runtime(&root, RETAINED, b"retained build", 10);
    let catalog = Catalog { predecessors: vec![retained], ..Catalog::with_current(current) };
    write_catalog(&root, &lock(&root), &catalog).unwrap();
    (tmp, root, catalog)
}

fn staged(tmp: &tempfile::TempDir, bytes: &[u8]) -> std::path::PathBuf {
    let path = tmp.path().join(format!("staged-{}", fsutil::random_hex(4)));
    fs::write(&path, bytes).unwrap();
    path
}

fn exe(root: &ManagedRoot, id: &str) -> std::path::PathBuf {
    root.runtime_dir(&build(id)).join(EXECUTABLE_NAME)
}

fn files_in(root: &ManagedRoot, id: &str) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(root.runtime_dir(&build(id)))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into())
        .collect();
    names.sort();
    names
}

#[test]
fn a_changed_or_missing_executable_is_put_back_from_the_release_and_nothing_else_changes() {
    let (tmp, root, catalog) = layout();
    let marker_before = fs::read(root.runtime_dir(&build(RETAINED)).join(MARKER_NAME)).unwrap();
    fs::write(exe(&root, RETAINED), b"tampered").unwrap();
    let subject = repair_subject(&root, &build(RETAINED)).unwrap();
    assert!(!subject.intact);
    assert_eq!((subject.version.as_str(), subject.commit.len()), ("1.0.0", 40));

    let outcome = repair_runtime(&root, &lock(&root), &build(RETAINED), &staged(&tmp, b"retained build")).unwrap();
    assert_eq!(outcome, RepairOutcome::Repaired);
    assert_eq!(fs::read(exe(&root, RETAINED)).unwrap(), b"retained build");
    let mode = fs::metadata(exe(&root, RETAINED)).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o700);
    assert!(repair_subject(&root, &build(RETAINED)).unwrap().intact);
    assert_eq!(read_catalog(&root).unwrap().unwrap(), catalog, "the catalog is never written");
    assert_eq!(fs::read(root.runtime_dir(&build(RETAINED)).join(MARKER_NAME)).unwrap(), marker_before);
    assert_eq!(files_in(&root, RETAINED), [MARKER_NAME, EXECUTABLE_NAME]);

    fs::remove_file(exe(&root, CURRENT)).unwrap();
    let outcome = repair_runtime(&root, &lock(&root), &build(CURRENT), &staged(&tmp, b"current build")).unwrap();
    assert_eq!(outcome, RepairOutcome::Repaired, "the current build is repaired the same way");
}

#[test]
fn an_intact_runtime_is_left_alone() {
    let (tmp, root, _) = layout();
    let before = fs::metadata(exe(&root, RETAINED)).unwrap().modified().unwrap();
    let outcome = repair_runtime(&root, &lock(&root), &build(RETAINED), &staged(&tmp, b"anything")).unwrap();
    assert_eq!(outcome, RepairOutcome::AlreadyIntact);
    assert_eq!(fs::metadata(exe(&root, RETAINED)).unwrap().modified().unwrap(), before);
}

#[test]
fn other_bytes_an_unknown_build_or_an_unprovable_marker_repair_nothing() {
    let (tmp, root, _) = layout();
    fs::write(exe(&root, RETAINED), b"tampered").unwrap();
    let lock = lock(&root);
    let wrong = repair_runtime(&root, &lock, &build(RETAINED), &staged(&tmp, b"another build")).unwrap_err();
    assert!(matches!(wrong, RecoveryIoError::RepairRefused("digest_mismatch")), "{wrong:?}");
    assert_eq!(fs::read(exe(&root, RETAINED)).unwrap(), b"tampered");
    assert_eq!(files_in(&root, RETAINED), [MARKER_NAME, EXECUTABLE_NAME], "no temporary file is left");

    let unknown = repair_runtime(&root, &lock, &build("v0-1-0-cccccccc"), &staged(&tmp, b"x")).unwrap_err();
    assert!(matches!(unknown, RecoveryIoError::RepairRefused("not_retained")), "{unknown:?}");

    let link = tmp.path().join("link");
    std::os::unix::fs::symlink(staged(&tmp, b"retained build"), &link).unwrap();
    assert!(repair_runtime(&root, &lock, &build(RETAINED), &link).is_err(), "a staged link is refused");

    let marker = root.runtime_dir(&build(RETAINED)).join(MARKER_NAME);
    fs::write(&marker, fs::read_to_string(&marker).unwrap().replace("1.0.0", "1.0.1")).unwrap();
    let unprovable = repair_runtime(&root, &lock, &build(RETAINED), &staged(&tmp, b"retained build")).unwrap_err();
    assert!(matches!(unprovable, RecoveryIoError::RepairRefused("marker_unusable")), "{unprovable:?}");
    assert_eq!(fs::read(exe(&root, RETAINED)).unwrap(), b"tampered");
}

#[test]
fn a_repair_interrupted_before_its_rename_leaves_a_temp_file_the_next_repair_removes() {
    let (tmp, root, _) = layout();
    fs::write(exe(&root, RETAINED), b"tampered").unwrap();
    let leftover = root.runtime_dir(&build(RETAINED)).join(format!("{REPAIR_TEMP_PREFIX}0123456789abcdef"));
    fs::write(&leftover, b"half").unwrap();
    repair_runtime(&root, &lock(&root), &build(RETAINED), &staged(&tmp, b"retained build")).unwrap();
    assert!(!leftover.exists());
    assert_eq!(files_in(&root, RETAINED), [MARKER_NAME, EXECUTABLE_NAME]);
}
