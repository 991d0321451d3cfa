use std::fs;
use std::os::unix::fs::PermissionsExt;

use super::*;
use crate::recovery::catalog::{write_catalog, Candidate, TransactionId};
use crate::recovery::marker::{RuntimeMarker, MARKER_NAME};
use crate::recovery::test_support::{add_runtime, build, fingerprint, lock, root};

const NOW: u64 = 1_000_000_000;

/// Current `v3` (promoted at 30), predecessors `v2` (20) and `v1` (10).
fn three_builds() -> (tempfile::TempDir, ManagedRoot, Catalog) {
    let (tmp, root) = root();
    let current = add_runtime(&root, "v3-0-0-cccccccc", b"third", 30);
    let v2 = add_runtime(&root, "v2-0-0-bbbbbbbb", b"second", 20);
    let v1 = add_runtime(&root, "v1-0-0-aaaaaaaa", b"first", 10);
    let catalog = Catalog { predecessors: vec![v2, v1], ..Catalog::with_current(current) };
    write_catalog(&root, &lock(&root), &catalog).unwrap();
    (tmp, root, catalog)
}

/// Rewrites `build`'s marker with other data epochs; answers the catalog entry for it.
fn with_epochs(root: &ManagedRoot, entry: &CatalogBuild, server: u32) -> CatalogBuild {
    let path = root.runtime_dir(&entry.build).join(MARKER_NAME);
    let mut marker = RuntimeMarker::parse(&fs::read(&path).unwrap()).unwrap();
    marker.data_epochs = DataEpochs { server, client: 1 };
    let json = marker.to_json();
    fs::write(&path, &json).unwrap();
    CatalogBuild { marker_sha512: fsutil::sha512_hex(&json), ..entry.clone() }
}

fn request_on_disk(root: &ManagedRoot) -> Option<Vec<u8>> {
    fsutil::read_bounded(&root.rollback_request_path(), 4096).unwrap()
}

#[test]
fn a_request_for_a_retained_build_is_applied_once_by_the_next_launcher_start() {
    let (_tmp, root, before) = three_builds();
    let lock = lock(&root);
    let target = build("v1-0-0-aaaaaaaa");
    let request = request_rollback(&root, &lock, &target, NOW).unwrap();
    assert_eq!((request.source.as_str(), request.target.as_str()), ("v3-0-0-cccccccc", "v1-0-0-aaaaaaaa"));
    let mode = fs::metadata(root.rollback_request_path()).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600);
    assert_eq!(read_catalog(&root).unwrap().unwrap(), before, "requesting changes no catalog");
    assert!(recovery_overview(&root).unwrap().unwrap().rollback_requested);

    let RollbackApplied::Applied(after) = apply_rollback_request(&root, &lock, &before, NOW + 5_000).unwrap() else {
        panic!("the request applies")
    };
    assert_eq!(after.current.build, target);
    assert_eq!(after.current.promoted_at_ms, NOW + 5_000);
    let order: Vec<&str> = after.predecessors.iter().map(|p| p.build.as_str()).collect();
    assert_eq!(order, ["v3-0-0-cccccccc", "v2-0-0-bbbbbbbb"], "the old current is the newest predecessor");
    assert_eq!(read_catalog(&root).unwrap().unwrap(), *after);
    assert!(request_on_disk(&root).is_none(), "the request is consumed");
    for id in ["v1-0-0-aaaaaaaa", "v2-0-0-bbbbbbbb", "v3-0-0-cccccccc"] {
        assert!(root.runtime_dir(&build(id)).is_dir(), "{id} is kept: a rollback deletes nothing");
    }
    assert_eq!(apply_rollback_request(&root, &lock, &after, NOW + 6_000).unwrap(), RollbackApplied::NoRequest);
}

#[test]
fn a_rollback_is_refused_and_nothing_written_unless_the_target_is_a_verified_compatible_predecessor() {
    let (_tmp, root, catalog) = three_builds();
    let lock = lock(&root);
    let refusal = |target: &str| request_rollback(&root, &lock, &build(target), NOW).unwrap_err();
    assert!(matches!(refusal("v3-0-0-cccccccc"), RecoveryIoError::RollbackRefused("not_retained")), "current");
    assert!(matches!(refusal("v9-0-0-dddddddd"), RecoveryIoError::RollbackRefused("not_retained")), "unknown");

    fs::write(root.runtime_dir(&build("v2-0-0-bbbbbbbb")).join("relay-desktop"), b"tampered").unwrap();
    assert!(matches!(refusal("v2-0-0-bbbbbbbb"), RecoveryIoError::RollbackRefused("target_unusable")));

    let v1 = with_epochs(&root, &catalog.predecessors[1], 2);
    let epochs = Catalog { predecessors: vec![catalog.predecessors[0].clone(), v1], ..catalog.clone() };
    write_catalog(&root, &lock, &epochs).unwrap();
    assert!(matches!(refusal("v1-0-0-aaaaaaaa"), RecoveryIoError::RollbackRefused("data_epoch_mismatch")));
    let overview = recovery_overview(&root).unwrap().unwrap();
    assert_eq!(overview.predecessors[1].rollback, "data_epoch_mismatch");

    let fresh = add_runtime(&root, "v4-0-0-eeeeeeee", b"candidate", 0);
    let candidate = Candidate {
        build: fresh.build,
        marker_sha512: fresh.marker_sha512,
        transaction: TransactionId::fresh(),
        source_build: catalog.current.build.clone(),
        release: fingerprint("4.0.0", 'e'),
        attempts: 0,
        snapshot: None,
    };
    write_catalog(&root, &lock, &Catalog { candidate: Some(candidate), ..catalog.clone() }).unwrap();
    assert!(matches!(refusal("v2-0-0-bbbbbbbb"), RecoveryIoError::RollbackRefused("candidate_pending")));
    assert!(request_on_disk(&root).is_none(), "no refusal wrote a request");
}

#[test]
fn a_stale_changed_or_malformed_request_is_removed_without_effect() {
    let (_tmp, root, catalog) = three_builds();
    let lock = lock(&root);
    let target = build("v2-0-0-bbbbbbbb");
    let discarded = |now: u64, current: &Catalog| apply_rollback_request(&root, &lock, current, now).unwrap();

    request_rollback(&root, &lock, &target, NOW).unwrap();
    let late = NOW + ROLLBACK_REQUEST_MAX_AGE_MS + 1;
    assert_eq!(discarded(late, &catalog), RollbackApplied::Discarded("request_expired"));
    request_rollback(&root, &lock, &target, NOW).unwrap();
    assert_eq!(discarded(NOW - 120_000, &catalog), RollbackApplied::Discarded("request_expired"), "from the future");

    request_rollback(&root, &lock, &target, NOW).unwrap();
    let moved_on = Catalog { current: catalog.predecessors[0].clone(), predecessors: vec![], ..catalog.clone() };
    assert_eq!(discarded(NOW, &moved_on), RollbackApplied::Discarded("source_changed"));

    let valid = String::from_utf8(request_rollback(&root, &lock, &target, NOW).unwrap().to_json()).unwrap();
    for bad in [
        valid.replacen('{', r#"{"note":"x","#, 1),
        valid.replacen('{', r#"{"targetBuild":"v1-0-0-aaaaaaaa","#, 1),
        valid.replace("\"protocol\": 1", "\"protocol\": 2"),
        valid.replace("v2-0-0-bbbbbbbb", "../../bin"),
        "not json".to_owned(),
    ] {
        fs::write(root.rollback_request_path(), bad.as_bytes()).unwrap();
        assert_eq!(discarded(NOW, &catalog), RollbackApplied::Discarded("invalid_request"), "{bad}");
        assert!(request_on_disk(&root).is_none());
    }
    assert_eq!(read_catalog(&root).unwrap().unwrap(), catalog, "no discarded request changed the catalog");
}

#[test]
fn the_overview_names_each_retained_build_by_its_marker() {
    let (_tmp, root, _) = three_builds();
    let overview = recovery_overview(&root).unwrap().unwrap();
    assert_eq!(overview.current.build, "v3-0-0-cccccccc");
    assert_eq!(overview.current.rollback, "current");
    assert_eq!((overview.current.version.as_str(), overview.current.commit.len()), ("1.0.0", 40));
    let rollbacks: Vec<(&str, &str)> = overview.predecessors.iter().map(|p| (p.build.as_str(), p.rollback)).collect();
    assert_eq!(rollbacks, [("v2-0-0-bbbbbbbb", "available"), ("v1-0-0-aaaaaaaa", "available")]);
    assert!(!overview.candidate_pending && !overview.rollback_requested);
    assert_eq!(overview.quarantined_releases, 0);

    let marker = root.runtime_dir(&build("v2-0-0-bbbbbbbb")).join(MARKER_NAME);
    let edited = fs::read_to_string(&marker).unwrap().replace("1.0.0", "1.0.1");
    fs::write(&marker, edited).unwrap();
    let overview = recovery_overview(&root).unwrap().unwrap();
    assert_eq!(overview.predecessors[0].rollback, "marker_unusable", "a marker that no longer matches the catalog");
    assert_eq!(overview.predecessors[0].version, "", "nothing from an unproven marker is shown");
}
