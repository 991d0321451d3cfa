//! `POST /api/relay/import/{collection}` against the real `relay` binary with hostile bodies
//! (issue #39: a 30 MiB body read whole into `Vec<Value>` took the server from 29 to 588 MB
//! before the 10,000-record check): 10,001 small records, one record over 1 MiB and 30 MiB of
//! tiny records are refused with 413 and their stable codes, 30 MiB of dense records within
//! every bound are planned one at a time; the server's peak RSS (`VmHWM`) rises by less than
//! `MAX_PEAK_RISE_KIB` across all of them, nothing is stored, and a legal import still applies.

use std::time::Duration;

use serde_json::{json, Value};
use support::hostile::import_body_of;
use support::{client, Relay};

const MIB: usize = 1024 * 1024;

/// How much the server's peak RSS may rise across the hostile bodies, each sent alone: the
/// body itself (about 30 MiB, buffered whole by the route's 32 MiB limit) plus one record at a
/// time.
const MAX_PEAK_RISE_KIB: u64 = 64 * 1024;

async fn contact_count(relay: &Relay, token: &str) -> Value {
    relay.get_json(token, "/api/collections/contacts/records?perPage=1").await["totalItems"].clone()
}

#[tokio::test]
async fn oversized_imports_are_refused_with_peak_memory_bounded_and_nothing_stored() {
    let relay = Relay::start();
    let token = relay.token().await;
    relay.create(&token, "contacts", &json!({"name": "Ada", "email": "ada@example.com"})).await;
    let url = relay.url("/api/relay/import/contacts");
    // Long enough for the whole-body parse this replaced (seconds per 30 MiB in a debug build).
    let wait = Duration::from_secs(120);
    let post = |body: Vec<u8>| {
        client()
            .post(&url)
            .header("Authorization", &token)
            .header("Content-Type", "application/json")
            .timeout(wait)
            .body(body)
            .send()
    };
    let preview = json!({"records": [{"name": "Warm", "email": "warm@example.com"}]});
    assert_eq!(post(serde_json::to_vec(&preview).unwrap()).await.unwrap().status(), 200, "warm-up preview");

    let small_records = import_body_of(r#"{"name": "n", "email": "n@example.com"}"#, 10_001);
    let one_large_record = import_body_of(&format!(r#"{{"name": "{}"}}"#, "a".repeat(MIB)), 1);
    let tiny_records = import_body_of("{}", 30 * MIB / 3);
    // 10,000 records of ~3 KiB, each an array of 1,550 zeros: every one a 32-byte `Value`.
    let dense = format!(r#"{{"name": "dense", "tags": [{}]}}"#, vec!["0"; 1_550].join(","));
    let dense_records = import_body_of(&dense, 10_000);
    assert!(dense_records.len() > 29 * MIB && tiny_records.len() > 29 * MIB);

    let peak_before = relay.peak_rss_kib();
    let mut answers = Vec::new();
    for body in [small_records, one_large_record, tiny_records, dense_records] {
        let res = post(body).await.unwrap();
        answers.push((res.status().as_u16(), res.json::<Value>().await.unwrap_or_default()));
    }
    let peak_after = relay.peak_rss_kib();
    eprintln!("server VmHWM {peak_before} KiB before, {peak_after} KiB after the hostile imports");
    assert!(
        peak_after - peak_before < MAX_PEAK_RISE_KIB,
        "peak RSS rose {} KiB (bound {MAX_PEAK_RISE_KIB} KiB)",
        peak_after - peak_before
    );

    let refusal = |i: usize| (answers[i].0, answers[i].1["data"]["code"].clone(), answers[i].1["message"].clone());
    let too_many = json!("At most 10000 records can be imported at once.");
    assert_eq!(refusal(0), (413, json!("too_many_records"), too_many.clone()), "10,001 small records");
    let too_large = json!("Record 1 is larger than 1024 KiB of JSON, the most one imported record may hold.");
    assert_eq!(refusal(1), (413, json!("record_too_large"), too_large), "one record over 1 MiB");
    assert_eq!(refusal(2), (413, json!("too_many_records"), too_many), "30 MiB of tiny records");
    let (status, report) = &answers[3];
    assert_eq!((*status, &report["applied"]), (400, &json!(false)), "dense records are planned: {}", report["total"]);
    assert_eq!(report["errors"][0]["code"], "validation_unknown_field");
    assert_eq!(contact_count(&relay, &token).await, 1, "nothing stored by the refused imports");

    let legal = json!({"apply": true, "records": [{"name": "Bob", "email": "bob@example.com"}, {"name": "Ada L", "email": "ADA@example.com"}]});
    let res = post(serde_json::to_vec(&legal).unwrap()).await.unwrap();
    assert_eq!(res.status(), 200);
    let report: Value = res.json().await.unwrap();
    assert_eq!(
        (report["applied"].clone(), report["creates"].clone(), report["updates"].clone()),
        (json!(true), json!(1), json!(1))
    );
    assert_eq!(contact_count(&relay, &token).await, 2);
}

#[tokio::test]
async fn an_import_body_must_be_json_and_an_object_with_records() {
    let relay = Relay::start();
    let token = relay.token().await;
    let post = |content_type: &str, body: &str| {
        client()
            .post(relay.url("/api/relay/import/contacts"))
            .header("Authorization", &token)
            .header("Content-Type", content_type)
            .body(body.to_string())
            .send()
    };
    let res = post("text/plain", r#"{"records": []}"#).await.unwrap();
    assert_eq!(res.status(), 400);
    assert_eq!(res.json::<Value>().await.unwrap()["message"], "The request body must be application/json.");
    for body in ["[1, 2]", r#"{"apply": true}"#, r#"{"records": [{}"#] {
        let res = post("application/json", body).await.unwrap();
        assert_eq!(res.status(), 400, "{body}");
        let problem: Value = res.json().await.unwrap();
        assert_eq!(
            problem,
            json!({"status": 400, "message": "Failed to load the submitted data due to invalid formatting.", "data": {}})
        );
    }
    let res = post("application/json; charset=utf-8", r#"{"records": [{"name": "Ok"}]}"#).await.unwrap();
    assert_eq!(res.status(), 200, "a preview with a charset parameter");
}
