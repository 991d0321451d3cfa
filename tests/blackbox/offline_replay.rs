//! Guarded offline replay and Servers sync against the real `relay serve` binary: a queued
//! update or delete of every offline-writable collection applies when the record is the one
//! the client saw; a peer edit (even one the client's `updated` already names) is a 409 that
//! keeps the server copy in `conflict_log` and writes nothing; a deleted record's delete
//! succeeds twice; bad changes are refused with their reason and leave data alone; the batch
//! form answers per change; the replay routes are absent from Relay Web and from a server
//! started without them; Servers sync batches land whole or not at all.

use domain::collections::WriteOp;
use domain::offline::record_fingerprint;
use serde_json::{json, Value};
use support::{client, sample, sample_update, web_session, Relay};

const OFFLINE_WRITABLE: &[&str] = domain::offline::OFFLINE_WRITABLE;

async fn post(relay: &Relay, token: &str, path: &str, body: &Value) -> (u16, Value) {
    let res = client().post(relay.url(path)).header("Authorization", token).json(body).send().await.unwrap();
    let status = res.status().as_u16();
    (status, res.json().await.unwrap_or(Value::Null))
}

fn change(collection: &str, action: &str, seen: &Value, data: Option<Value>) -> Value {
    let mut c = json!({
        "collection": collection, "action": action, "recordId": seen["id"],
        "expectedUpdated": seen["updated"], "expectedFingerprint": record_fingerprint(seen).unwrap(),
    });
    if let Some(d) = data {
        c["data"] = d;
    }
    c
}

async fn record(relay: &Relay, token: &str, collection: &str, id: &Value) -> (u16, Value) {
    let url = relay.url(&format!("/api/collections/{collection}/records/{}", id.as_str().unwrap()));
    let res = client().get(url).header("Authorization", token).send().await.unwrap();
    (res.status().as_u16(), res.json().await.unwrap_or(Value::Null))
}

async fn conflicts(relay: &Relay, token: &str) -> Vec<Value> {
    let page = relay.get_json(token, "/api/collections/conflict_log/records?perPage=200").await;
    page["items"].as_array().unwrap().clone()
}

#[tokio::test]
async fn every_offline_collection_replays_and_a_stale_change_conflicts_without_writing() {
    let relay = Relay::start();
    let token = relay.token().await;
    for collection in OFFLINE_WRITABLE {
        let seen = relay.create(&token, collection, &sample(collection)).await;
        let writes = domain::collections::collection(collection).unwrap().writes;
        if !writes.permits(WriteOp::Update) {
            // Append-only (Dynatrace problem notes): replay refuses updates and deletes alike.
            for (action, data) in [("update", Some(json!({"note": "changed"}))), ("delete", None)] {
                let (status, body) =
                    post(&relay, &token, "/api/relay/offline/replay", &change(collection, action, &seen, data)).await;
                assert_eq!(status, 403, "{collection} {action}: {body}");
            }
            assert_eq!(record(&relay, &token, collection, &seen["id"]).await.1, seen, "{collection}: nothing written");
            continue;
        }
        let (update, field) = sample_update(collection);
        let (status, body) = post(
            &relay,
            &token,
            "/api/relay/offline/replay",
            &change(collection, "update", &seen, Some(update.clone())),
        )
        .await;
        assert_eq!((status, &body), (200, &json!({"applied": true})), "{collection}");
        let (_, now) = record(&relay, &token, collection, &seen["id"]).await;
        assert_eq!(now[field], update[field], "{collection}");
        // A change based on the old record is stale: the record is no longer the one it was
        // based on (a delete, or an update where the write rule allows no delete).
        let before = conflicts(&relay, &token).await.len();
        let stale = if writes.permits(WriteOp::Delete) {
            change(collection, "delete", &seen, None)
        } else {
            change(collection, "update", &seen, Some(update.clone()))
        };
        let (status, body) = post(&relay, &token, "/api/relay/offline/replay", &stale).await;
        assert_eq!(status, 409, "{collection}: {body}");
        assert_eq!(body["message"], "The server record changed. The offline change remains queued.");
        assert_eq!(record(&relay, &token, collection, &seen["id"]).await.1, now, "{collection}: nothing written");
        let log = conflicts(&relay, &token).await;
        assert_eq!(log.len(), before + 1);
        let entry = log.iter().find(|e| e["recordId"] == seen["id"]).unwrap();
        assert_eq!((entry["collection"].as_str(), &entry["overwrittenData"]), (Some(*collection), &now));
        if !writes.permits(WriteOp::Delete) {
            // Create/update only (Dynatrace addressed states): a delete is refused.
            let (status, body) =
                post(&relay, &token, "/api/relay/offline/replay", &change(collection, "delete", &now, None)).await;
            assert_eq!(status, 403, "{collection}: {body}");
            assert_eq!(record(&relay, &token, collection, &seen["id"]).await.1, now, "{collection}: still there");
            continue;
        }
        // A delete based on the current record applies, and applies again idempotently.
        for _ in 0..2 {
            let (status, _) =
                post(&relay, &token, "/api/relay/offline/replay", &change(collection, "delete", &now, None)).await;
            assert_eq!(status, 200, "{collection}");
        }
        assert_eq!(record(&relay, &token, collection, &seen["id"]).await.0, 404);
    }
}

#[tokio::test]
async fn the_fingerprint_catches_an_edit_the_timestamp_alone_would_miss() {
    let relay = Relay::start();
    let token = relay.token().await;
    let seen = relay.create(&token, "contacts", &json!({"name": "Ada", "title": "Analyst"})).await;
    let url = relay.url(&format!("/api/collections/contacts/records/{}", seen["id"].as_str().unwrap()));
    let res = client().patch(url).header("Authorization", &token).json(&json!({"title": "Peer"})).send().await.unwrap();
    let peer: Value = res.json().await.unwrap();
    // The client claims the peer's new `updated` but its fingerprint is of the old content:
    // exactly what a same-millisecond peer edit looks like.
    let mut stale = change("contacts", "update", &seen, Some(json!({"title": "Mine"})));
    stale["expectedUpdated"] = peer["updated"].clone();
    let (status, _) = post(&relay, &token, "/api/relay/offline/replay", &stale).await;
    assert_eq!(status, 409);
    assert_eq!(record(&relay, &token, "contacts", &seen["id"]).await.1["title"], "Peer");
}

#[tokio::test]
async fn bad_changes_are_refused_with_their_reason_and_leave_data_alone() {
    let relay = Relay::start();
    let token = relay.token().await;
    let seen = relay.create(&token, "contacts", &json!({"name": "Ada"})).await;
    let cases = [
        (
            change("contacts", "update", &seen, Some(json!({"email": "not-an-email"}))),
            400,
            "The offline change failed record validation.",
        ),
        (
            change("contacts", "update", &seen, Some(json!({"nope": 1}))),
            400,
            "The offline change failed record validation.",
        ),
        (change("contacts", "create", &seen, Some(json!({"name": "x"}))), 400, "Invalid offline replay request."),
        (change("contacts", "delete", &seen, Some(json!({}))), 400, "Invalid offline replay request."),
        (change("users", "delete", &seen, None), 400, "Invalid offline replay request."),
        (change("conflict_log", "delete", &seen, None), 403, "This collection cannot be changed by offline replay."),
        (change("cloud_status", "delete", &seen, None), 403, "This collection cannot be changed by offline replay."),
    ];
    for (body, want_status, want_message) in cases {
        let (status, answer) = post(&relay, &token, "/api/relay/offline/replay", &body).await;
        assert_eq!((status, answer["message"].as_str()), (want_status, Some(want_message)), "{body}");
    }
    let huge = change("contacts", "update", &seen, Some(json!({"name": "x".repeat(300 * 1024)})));
    assert_eq!(post(&relay, &token, "/api/relay/offline/replay", &huge).await.0, 413);
    let res = client()
        .post(relay.url("/api/relay/offline/replay"))
        .json(&change("contacts", "delete", &seen, None))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 401, "the route needs the app token");
    assert_eq!(record(&relay, &token, "contacts", &seen["id"]).await.1, seen, "nothing was written");
    assert!(conflicts(&relay, &token).await.is_empty());
    // The conflict log is the server's: clients cannot forge or erase entries.
    let (status, _) = post(&relay, &token, "/api/collections/conflict_log/records", &sample("conflict_log")).await;
    assert_eq!(status, 403);
}

#[tokio::test]
async fn the_batch_form_answers_each_change_on_its_own() {
    let relay = Relay::start();
    let token = relay.token().await;
    let a = relay.create(&token, "contacts", &json!({"name": "A"})).await;
    let b = relay.create(&token, "contacts", &json!({"name": "B"})).await;
    let stale_b = b.clone();
    let url = relay.url(&format!("/api/collections/contacts/records/{}", b["id"].as_str().unwrap()));
    client().patch(url).header("Authorization", &token).json(&json!({"title": "peer"})).send().await.unwrap();
    let changes = json!({"changes": [
        change("contacts", "update", &a, Some(json!({"title": "mine"}))),
        change("contacts", "update", &stale_b, Some(json!({"title": "mine"}))),
        {"collection": "contacts"},
    ]});
    let (status, body) = post(&relay, &token, "/api/relay/offline/replay/batch", &changes).await;
    assert_eq!(status, 200, "{body}");
    let statuses: Vec<u64> =
        body["results"].as_array().unwrap().iter().map(|r| r["status"].as_u64().unwrap()).collect();
    assert_eq!(statuses, vec![200, 409, 400]);
    assert_eq!(body["results"][0]["applied"], true);
    assert_eq!(record(&relay, &token, "contacts", &a["id"]).await.1["title"], "mine");
    assert_eq!(record(&relay, &token, "contacts", &b["id"]).await.1["title"], "peer");
    let too_many = json!({"changes": vec![change("contacts", "delete", &a, None); 101]});
    assert_eq!(post(&relay, &token, "/api/relay/offline/replay/batch", &too_many).await.0, 400);
    assert_eq!(post(&relay, &token, "/api/relay/offline/replay/batch", &json!({"changes": []})).await.0, 400);
}

#[tokio::test]
async fn replay_is_absent_from_relay_web_and_from_a_server_started_without_it() {
    let relay = Relay::start_web();
    let web = relay.web.clone().unwrap();
    let session = web_session(&web).await;
    let res = client()
        .post(format!("{web}/api/relay/offline/replay"))
        .header("Origin", &web)
        .header("Cookie", &session.cookie)
        .header("X-Relay-CSRF", &session.csrf)
        .header("Authorization", &session.token)
        .json(&json!({}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 404, "Relay Web has no offline queue");
    let tmp = tempfile::tempdir().unwrap();
    let older =
        Relay::start_env(&tmp.path().join("data"), "127.0.0.1", &[], &[("RELAY_TEST_WITHOUT_OFFLINE_REPLAY", "1")]);
    let token = older.token().await;
    let seen = older.create(&token, "contacts", &json!({"name": "Ada"})).await;
    for path in ["/api/relay/offline/replay", "/api/relay/offline/replay/batch"] {
        assert_eq!(post(&older, &token, path, &change("contacts", "delete", &seen, None)).await.0, 404);
    }
}

fn op_update(seen: &Value, data: Value) -> Value {
    json!({"action": "update", "recordId": seen["id"], "expected": seen, "data": data})
}

#[tokio::test]
async fn servers_sync_batches_land_whole_or_not_at_all_on_both_listeners() {
    let relay = Relay::start_web();
    let token = relay.token().await;
    let a = relay.create(&token, "servers", &json!({"name": "a", "os": "Linux"})).await;
    let b = relay.create(&token, "servers", &json!({"name": "b", "os": "Linux"})).await;
    let batch = json!({"operations": [
        {"action": "create", "data": {"name": "c", "os": "BSD", "id": "forgedidforgedi"}},
        op_update(&a, json!({"os": "Windows"})),
        {"action": "delete", "recordId": b["id"], "expected": b},
    ]});
    let (status, body) = post(&relay, &token, "/api/relay/servers/sync", &batch).await;
    assert_eq!(status, 200, "{body}");
    let answers = body.as_array().unwrap();
    assert_eq!(answers.iter().map(|a| a["status"].as_u64().unwrap()).collect::<Vec<_>>(), vec![200, 200, 204]);
    assert_ne!(answers[0]["body"]["id"], "forgedidforgedi", "the server chooses ids");
    let updated_a = answers[1]["body"].clone();
    // A stale reviewed record (the original `a`) stops the whole batch, the create included.
    let stale =
        json!({"operations": [{"action": "create", "data": {"name": "d"}}, op_update(&a, json!({"os": "AIX"}))]});
    let (status, body) = post(&relay, &token, "/api/relay/servers/sync", &stale).await;
    assert_eq!((status, body["message"].as_str()), (409, Some("The Servers list changed after the preview.")));
    let invalid = json!({"operations": [{"action": "create", "data": {"name": "e"}}, op_update(&updated_a, json!({"name": ""}))]});
    let (status, body) = post(&relay, &token, "/api/relay/servers/sync", &invalid).await;
    assert_eq!((status, body["message"].as_str()), (400, Some("The Servers import failed record validation.")));
    assert_eq!(body["data"]["operation"], 1);
    let list = relay.get_json(&token, "/api/collections/servers/records?sort=name").await;
    let names: Vec<&str> = list["items"].as_array().unwrap().iter().map(|r| r["name"].as_str().unwrap()).collect();
    assert_eq!(names, vec!["a", "c"], "refused batches wrote nothing");
    // Relay Web: behind the web session, and its CSRF token like every gateway write.
    let web = relay.web.clone().unwrap();
    let session = web_session(&web).await;
    let sync = |csrf: Option<&str>| {
        let mut req = client()
            .post(format!("{web}/api/relay/servers/sync"))
            .header("Origin", &web)
            .header("Cookie", &session.cookie)
            .header("Authorization", &session.token)
            .json(&json!({"operations": [op_update(&updated_a, json!({"comment": "from the web"}))]}));
        if let Some(token) = csrf {
            req = req.header("X-Relay-CSRF", token);
        }
        req.send()
    };
    assert_eq!(sync(None).await.unwrap().status(), 403);
    assert_eq!(sync(Some(&session.csrf)).await.unwrap().status(), 200);
}
