use serde_json::{json, Value};

use super::replay::{parse_replay_change, ChangeResult, ReplayAction, ReplayError};
use super::servers_sync::{parse_sync_batch, SyncError, SyncOperation};
use super::*;
use crate::problem::HttpProblem;

const VECTORS: &str = include_str!("../../../tests/vectors/record_fingerprints.json");
const FP: &str = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";

#[test]
fn fingerprints_match_the_independent_python_vectors() {
    let vectors: Value = serde_json::from_str(VECTORS).unwrap();
    let cases = vectors["cases"].as_array().unwrap();
    assert!(cases.len() >= 5);
    for case in cases {
        let mut public = case["record"].clone();
        public.as_object_mut().unwrap().remove("expand");
        let text = crate::canonical::canonical_record_json(&public).unwrap();
        assert_eq!(text, case["canonical"].as_str().unwrap(), "{}", case["name"]);
        assert_eq!(record_fingerprint(&case["record"]).unwrap(), case["fingerprint"].as_str().unwrap());
    }
}

#[test]
fn any_change_to_a_record_changes_its_fingerprint_but_key_order_does_not() {
    let a = json!({"id": "abcdefghijklmno", "updated": "2026-12-03 00:00:00.000Z", "revision": 4, "name": "x"});
    let reordered = json!({"name": "x", "revision": 4, "updated": "2026-12-03 00:00:00.000Z", "id": "abcdefghijklmno"});
    assert_eq!(record_fingerprint(&a).unwrap(), record_fingerprint(&reordered).unwrap());
    // Same `updated` (a same-millisecond peer edit), different revision or field: caught.
    for changed in [json!({"revision": 5}), json!({"name": "y"}), json!({"extra": ""})] {
        let mut b = a.clone();
        for (k, v) in changed.as_object().unwrap() {
            b[k] = v.clone();
        }
        assert_ne!(record_fingerprint(&a).unwrap(), record_fingerprint(&b).unwrap(), "{changed}");
    }
    assert!(is_fingerprint(&record_fingerprint(&a).unwrap()));
    assert!(!is_fingerprint(&FP.to_uppercase()) && !is_fingerprint(&FP[1..]));
}

fn change(overrides: Value) -> Value {
    let mut base = json!({
        "collection": "contacts", "action": "update", "recordId": "abcdefghijklmno",
        "expectedUpdated": "2026-12-03 10:00:00.000Z", "expectedFingerprint": FP, "data": {"name": "Ada"},
    });
    for (k, v) in overrides.as_object().unwrap() {
        if v.is_null() {
            base.as_object_mut().unwrap().remove(k);
        } else {
            base[k] = v.clone();
        }
    }
    base
}

#[test]
fn a_well_formed_update_and_delete_parse() {
    let c = parse_replay_change(&change(json!({"data": {"name": "Ada", "id": "x", "created": "y", "updated": "z"}})))
        .unwrap();
    assert_eq!((c.spec.name, c.action, c.record_id.as_str()), ("contacts", ReplayAction::Update, "abcdefghijklmno"));
    assert_eq!(c.data, Some(json!({"name": "Ada"})), "server-maintained keys are dropped");
    let d = parse_replay_change(&change(
        json!({"action": "delete", "data": null, "expectedUpdated": "2026-12-03T10:00:00Z"}),
    ))
    .unwrap();
    assert_eq!((d.action, d.data), (ReplayAction::Delete, None));
}

#[test]
fn every_malformed_change_is_refused_with_its_reason() {
    let invalid = [
        json!({"collection": "users"}),
        json!({"collection": null}),
        json!({"action": "create"}),
        json!({"action": "UPDATE"}),
        json!({"recordId": "ABCDEFGHIJKLMNO"}),
        json!({"recordId": "short"}),
        json!({"expectedUpdated": "yesterday"}),
        json!({"expectedUpdated": format!("2026-12-03 10:00:00.000Z{}", " ".repeat(30))}),
        json!({"expectedFingerprint": "abc"}),
        json!({"expectedFingerprint": FP.to_uppercase()}),
        json!({"data": null}),
        json!({"data": ["name"]}),
        json!({"action": "delete"}),
        json!({"extra": 1}),
        json!({"data": {"note": "x".repeat(MAX_CHANGE_DATA_BYTES)}}),
    ];
    for bad in invalid {
        assert_eq!(parse_replay_change(&change(bad.clone())), Err(ReplayError::Invalid), "{bad}");
    }
    assert_eq!(parse_replay_change(&json!([1])), Err(ReplayError::Invalid));
    for managed_but_not_offline in ["conflict_log", "client_presence", "cloud_status"] {
        let e = parse_replay_change(&change(json!({"collection": managed_but_not_offline}))).unwrap_err();
        assert_eq!((e.clone(), e.status()), (ReplayError::Forbidden, 403));
    }
}

#[test]
fn offline_writable_collections_are_managed_and_client_writable() {
    for name in OFFLINE_WRITABLE {
        let spec = crate::collections::collection(name).unwrap_or_else(|| panic!("{name} is not managed"));
        assert!(spec.writes.permits(crate::collections::WriteOp::Create), "{name}");
    }
    assert!(!is_offline_writable("conflict_log") && !is_offline_writable("cloud_status"));
    assert!(!is_offline_writable("dynatrace_problems") && !is_offline_writable("dynatrace_problem_sync"));
}

#[test]
fn replay_refuses_what_the_collection_write_rule_does_not_permit() {
    let change = |collection: &str, action: &str| {
        let mut body = json!({
            "collection": collection,
            "action": action,
            "recordId": "abcdefghijklmno",
            "expectedUpdated": "2026-12-04 10:00:00.000Z",
            "expectedFingerprint": "0".repeat(64),
        });
        if action == "update" {
            body["data"] = json!({"addressed": true});
        }
        parse_replay_change(&body).map(|_| ())
    };
    assert_eq!(change("dynatrace_problem_states", "update"), Ok(()));
    assert_eq!(change("dynatrace_problem_states", "delete"), Err(ReplayError::Forbidden));
    assert_eq!(change("dynatrace_problem_notes", "update"), Err(ReplayError::Forbidden));
    assert_eq!(change("dynatrace_problem_notes", "delete"), Err(ReplayError::Forbidden));
    assert_eq!(change("notes", "delete"), Ok(()));
}

#[test]
fn change_results_say_applied_or_why_not() {
    assert_eq!(serde_json::to_value(ChangeResult::of(&Ok(()))).unwrap(), json!({"status": 200, "applied": true}));
    let conflict = ChangeResult::of(&Err(ReplayError::Conflict));
    assert_eq!(
        serde_json::to_value(conflict).unwrap(),
        json!({"status": 409, "code": "replay_conflict",
               "message": "The server record changed. The offline change remains queued."})
    );
}

fn reviewed(id: &str) -> Value {
    json!({"id": id, "updated": "2026-12-03 10:00:00.000Z", "name": "db-01", "revision": 3})
}

#[test]
fn sync_batches_parse_and_drop_server_keys() {
    let ops = parse_sync_batch(&json!({"operations": [
        {"action": "create", "data": {"name": "new", "id": "zzzzzzzzzzzzzzz", "created": "x", "expand": {}}},
        {"action": "update", "recordId": "aaaaaaaaaaaaaaa", "expected": reviewed("aaaaaaaaaaaaaaa"), "data": {"os": "Linux"}},
        {"action": "delete", "recordId": "bbbbbbbbbbbbbbb", "expected": reviewed("bbbbbbbbbbbbbbb")},
    ]}))
    .unwrap();
    assert_eq!(ops[0], SyncOperation::Create { data: json!({"name": "new"}) });
    assert!(matches!(&ops[1], SyncOperation::Update { record_id, .. } if record_id == "aaaaaaaaaaaaaaa"));
    assert!(matches!(&ops[2], SyncOperation::Delete { record_id, .. } if record_id == "bbbbbbbbbbbbbbb"));
}

#[test]
fn malformed_sync_batches_are_refused() {
    let a = "aaaaaaaaaaaaaaa";
    let upd = |id: &str, expected: Value| json!({"action": "update", "recordId": id, "expected": expected, "data": {}});
    let bad = [
        json!({}),
        json!({"operations": []}),
        json!({"operations": vec![json!({"action": "create", "data": {}}); MAX_REPLAY_BATCH + 1]}),
        json!({"operations": [], "extra": 1}),
        json!({"operations": [{"action": "upsert", "data": {}}]}),
        json!({"operations": [{"action": "create"}]}),
        json!({"operations": [{"action": "create", "data": {}, "recordId": a}]}),
        json!({"operations": [{"action": "delete", "recordId": a, "expected": reviewed(a), "data": {}}]}),
        json!({"operations": [upd("NOT-AN-ID", reviewed(a))]}),
        json!({"operations": [upd(a, reviewed("bbbbbbbbbbbbbbb"))]}),
        json!({"operations": [upd(a, json!({"id": a}))]}),
        json!({"operations": [upd(a, reviewed(a)), {"action": "delete", "recordId": a, "expected": reviewed(a)}]}),
    ];
    for body in bad {
        let e = parse_sync_batch(&body).unwrap_err();
        assert!(matches!(e, SyncError::Invalid(_)), "{body}: {e:?}");
        assert_eq!(e.status(), 400);
    }
    assert_eq!(SyncError::Conflict.status(), 409);
    assert_eq!(SyncError::Conflict.to_string(), "The Servers list changed after the preview.");
}
