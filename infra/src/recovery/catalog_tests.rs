use std::os::unix::fs::PermissionsExt;

use super::*;
use crate::recovery::test_support::{add_runtime, fingerprint, lock, root};

fn hash(c: char) -> String {
    c.to_string().repeat(128)
}

fn txn() -> String {
    "0f8fad5b-d9cb-469f-a165-70867728950e".into()
}

/// A valid catalog's JSON: current, two predecessors, a candidate, one quarantined release.
fn valid() -> serde_json::Value {
    serde_json::json!({
        "protocol": 1,
        "current": {"build": "v1-2-0-aaaaaaaa", "markerSha512": hash('a'), "promotedAtMs": 300},
        "predecessors": [
            {"build": "v1-1-0-bbbbbbbb", "markerSha512": hash('b'), "promotedAtMs": 200},
            {"build": "v1-0-0-cccccccc", "markerSha512": hash('c'), "promotedAtMs": 100}
        ],
        "candidate": {
            "build": "v1-3-0-dddddddd", "markerSha512": hash('d'), "transaction": txn(),
            "sourceBuild": "v1-2-0-aaaaaaaa", "release": format!("v1.3.0@{}", "d".repeat(40)),
            "attempts": 1, "snapshot": txn()
        },
        "quarantine": [format!("v1.2.5@{}", "e".repeat(40))]
    })
}

fn parse(value: &serde_json::Value) -> Result<Catalog, RecoveryIoError> {
    Catalog::parse(value.to_string().as_bytes())
}

fn reason(value: &serde_json::Value) -> &'static str {
    match parse(value) {
        Err(RecoveryIoError::InvalidCatalog(reason)) => reason,
        other => panic!("expected an invalid catalog, got {other:?}"),
    }
}

#[test]
fn a_valid_catalog_parses_and_round_trips() {
    let catalog = parse(&valid()).unwrap();
    assert_eq!(catalog.current.build.as_str(), "v1-2-0-aaaaaaaa");
    assert_eq!(catalog.predecessors.len(), 2);
    assert_eq!(catalog.candidate.as_ref().unwrap().attempts, 1);
    assert_eq!(Catalog::parse(&catalog.to_json()).unwrap(), catalog);
}

#[test]
fn unknown_keys_at_any_level_invalidate_the_catalog() {
    let mut top = valid();
    top["extra"] = serde_json::json!(true);
    assert_eq!(reason(&top), "json");
    let mut nested = valid();
    nested["candidate"]["note"] = serde_json::json!("x");
    assert_eq!(reason(&nested), "json");
    let mut in_list = valid();
    in_list["predecessors"][0]["healthy"] = serde_json::json!(true);
    assert_eq!(reason(&in_list), "json");
}

#[test]
fn duplicate_keys_invalidate_the_catalog() {
    let text = valid().to_string();
    let top = text.replacen('{', &format!(r#"{{"current":{},"#, valid()["current"]), 1);
    assert!(matches!(Catalog::parse(top.as_bytes()), Err(RecoveryIoError::InvalidCatalog("json"))), "{top}");
    let nested = text.replacen(r#""attempts":1"#, r#""attempts":1,"attempts":0"#, 1);
    assert_ne!(nested, text);
    assert!(matches!(Catalog::parse(nested.as_bytes()), Err(RecoveryIoError::InvalidCatalog("json"))));
}

#[test]
fn a_build_listed_twice_or_too_many_predecessors_invalidate_the_catalog() {
    let mut twice = valid();
    twice["predecessors"][1]["build"] = serde_json::json!("v1-1-0-bbbbbbbb");
    assert_eq!(reason(&twice), "duplicate_build");
    let mut candidate_is_current = valid();
    candidate_is_current["candidate"]["build"] = serde_json::json!("v1-2-0-aaaaaaaa");
    assert_eq!(reason(&candidate_is_current), "duplicate_build");
    let mut four = valid();
    four["predecessors"] = serde_json::json!([
        {"build": "v0-4-0-00000004", "markerSha512": hash('1'), "promotedAtMs": 40},
        {"build": "v0-3-0-00000003", "markerSha512": hash('2'), "promotedAtMs": 30},
        {"build": "v0-2-0-00000002", "markerSha512": hash('3'), "promotedAtMs": 20},
        {"build": "v0-1-0-00000001", "markerSha512": hash('4'), "promotedAtMs": 10}
    ]);
    assert_eq!(reason(&four), "too_many_predecessors");
}

#[test]
fn malformed_ids_hashes_transactions_and_fingerprints_invalidate_the_catalog() {
    let cases: [(&str, &str, serde_json::Value, &str); 8] = [
        ("current", "build", serde_json::json!("V1-UPPER"), "build_id"),
        ("current", "markerSha512", serde_json::json!(hash('A')), "marker_sha512"),
        ("current", "markerSha512", serde_json::json!("ab"), "marker_sha512"),
        ("candidate", "transaction", serde_json::json!(txn().to_uppercase()), "transaction"),
        // A version-1 UUID.
        ("candidate", "transaction", serde_json::json!("0f8fad5b-d9cb-169f-a165-70867728950e"), "transaction"),
        ("candidate", "release", serde_json::json!("v1.3.0@dddd"), "release"),
        ("candidate", "snapshot", serde_json::json!("not-a-uuid"), "snapshot"),
        ("candidate", "sourceBuild", serde_json::json!("v1-1-0-bbbbbbbb"), "candidate_source"),
    ];
    for (section, key, value, expected) in cases {
        let mut catalog = valid();
        catalog[section][key] = value;
        assert_eq!(reason(&catalog), expected, "{section}.{key}");
    }
}

#[test]
fn inconsistent_candidates_timestamps_and_quarantine_invalidate_the_catalog() {
    let mut attempts = valid();
    attempts["candidate"]["attempts"] = serde_json::json!(3);
    assert_eq!(reason(&attempts), "candidate_attempts");
    let mut foreign_snapshot = valid();
    foreign_snapshot["candidate"]["snapshot"] = serde_json::json!("1f8fad5b-d9cb-469f-a165-70867728950e");
    assert_eq!(reason(&foreign_snapshot), "candidate_snapshot");
    let mut quarantined = valid();
    quarantined["quarantine"] = serde_json::json!([format!("v1.3.0@{}", "d".repeat(40))]);
    assert_eq!(reason(&quarantined), "candidate_quarantined");
    let mut order = valid();
    order["predecessors"][0]["promotedAtMs"] = serde_json::json!(300);
    assert_eq!(reason(&order), "promotion_order");
    let mut long = valid();
    long["quarantine"] = serde_json::json!((0..21).map(|n| format!("v0.0.{n}@{}", "e".repeat(40))).collect::<Vec<_>>());
    assert_eq!(reason(&long), "quarantine");
    let mut repeated = valid();
    repeated["quarantine"] =
        serde_json::json!([format!("v1.2.5@{}", "e".repeat(40)), format!("v1.2.5@{}", "e".repeat(40))]);
    assert_eq!(reason(&repeated), "quarantine");
    let mut protocol = valid();
    protocol["protocol"] = serde_json::json!(2);
    assert_eq!(reason(&protocol), "protocol");
    let mut huge = valid();
    huge["current"]["build"] = serde_json::json!("a".repeat(70_000));
    assert_eq!(reason(&huge), "too_large");
}

#[test]
fn writes_are_atomic_owner_only_and_refuse_an_invalid_catalog() {
    let (_tmp, root) = root();
    let current = add_runtime(&root, "v1-0-0-aaaaaaaa", b"runtime", 10);
    let held = lock(&root);
    let mut catalog = Catalog::with_current(current);
    write_catalog(&root, &held, &catalog).unwrap();
    assert_eq!(read_catalog(&root).unwrap(), Some(catalog.clone()));
    let mode = std::fs::metadata(root.catalog_path()).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600);
    let names: Vec<String> = std::fs::read_dir(root.recovery_dir())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(names.iter().all(|name| !name.contains(".tmp-")), "{names:?}");

    let before = std::fs::read(root.catalog_path()).unwrap();
    catalog.candidate = Some(Candidate {
        build: catalog.current.build.clone(),
        marker_sha512: hash('a'),
        transaction: TransactionId::fresh(),
        source_build: catalog.current.build.clone(),
        release: fingerprint("1.1.0", 'a'),
        attempts: 0,
        snapshot: None,
    });
    assert!(matches!(write_catalog(&root, &held, &catalog), Err(RecoveryIoError::InvalidCatalog("duplicate_build"))));
    assert_eq!(std::fs::read(root.catalog_path()).unwrap(), before);
}

#[test]
fn a_linked_catalog_is_refused() {
    let (tmp, root) = root();
    std::fs::write(tmp.path().join("elsewhere.json"), valid().to_string()).unwrap();
    std::os::unix::fs::symlink(tmp.path().join("elsewhere.json"), root.catalog_path()).unwrap();
    assert!(matches!(read_catalog(&root), Err(RecoveryIoError::Symlink)));
}

#[test]
fn fresh_transactions_are_valid_uuid_v4() {
    let txn = TransactionId::fresh();
    assert_eq!(TransactionId::parse(txn.as_str()), Some(txn.clone()));
    assert_ne!(TransactionId::fresh(), txn);
}
