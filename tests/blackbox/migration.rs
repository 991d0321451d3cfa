//! Black-box tests of the legacy role-account migration: a valid `relay_operators` roster is
//! converted at server start with ids, device bindings, authority pointers and attribution
//! preserved, and the legacy tables removed; an ambiguous roster defers, changes nothing and
//! keeps privileged commands off.

use diesel::connection::SimpleConnection;
use serde_json::{json, Value};
use support::{admin_cli, client, Relay};

use domain::envelope::{payload_hash, public_jwk_from_secret, sign_envelope, Envelope};

const OWNER_ID: &str = "legacyowner0001";
const ADMIN_ID: &str = "legacyadmin0001";
const PUBLISHER_ID: &str = "legacypubl00001";
const DEVICE_ID: &str = "legacydevice001";
const OWNER_PW: &str = "legacy-owner-password";

fn admin(data: &std::path::Path, args: &[&str]) -> (bool, String) {
    admin_cli(data, args, "")
}

fn seed_legacy(data: &std::path::Path, operators_sql: &str) -> [u8; 32] {
    std::fs::create_dir_all(data).unwrap();
    let dir = infra::datadir::DataDir::open(data).unwrap();
    let (pool, _) = infra::db::open(&dir.db_path(), 1).unwrap();
    let mut secret = [5u8; 32];
    secret[0] = 1;
    let jwk = public_jwk_from_secret(&secret).unwrap();
    let sql = format!(
        "CREATE TABLE relay_operators (id TEXT PRIMARY KEY, username TEXT, displayName TEXT, role TEXT, active INTEGER, passwordHash TEXT);
         {operators_sql}
         CREATE VIEW relay_login_roster AS SELECT id, username, displayName, role, active FROM relay_operators;
         CREATE TABLE relay_operator_devices (id TEXT, operatorId TEXT, publicJwk TEXT, fingerprint TEXT, label TEXT, hostname TEXT, state TEXT);
         INSERT INTO relay_operator_devices VALUES ('{DEVICE_ID}', '{OWNER_ID}', '{}', '{}', 'old laptop', 'laptop-9', 'active');
         INSERT INTO alert_reminders (id, created, updated, revision, title, dueAt, status, createdBy)
           VALUES ('reminder0000001', '2026-01-01 00:00:00.000Z', '2026-01-01 00:00:00.000Z', 1, 'x', '2026-01-02 00:00:00.000Z', 'pending', '{OWNER_ID}');",
        serde_json::to_string(&jwk).unwrap(),
        jwk.fingerprint()
    );
    pool.get().unwrap().batch_execute(&sql).unwrap();
    secret
}

fn has_table(data: &std::path::Path, name: &str) -> bool {
    let (pool, _) = infra::db::open(&data.join("store/relay.db"), 1).unwrap();
    let columns = infra::db::table_columns(&mut pool.get().unwrap(), name).unwrap();
    !columns.is_empty()
}

#[tokio::test]
async fn a_valid_roster_is_converted_with_ids_bindings_and_attribution_preserved() {
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    let hash = infra::password::hash_password(OWNER_PW).unwrap();
    let operators = format!(
        "INSERT INTO relay_operators VALUES ('{OWNER_ID}', 'Ryan', 'Ryan B', 'owner', 1, '{hash}');
         INSERT INTO relay_operators VALUES ('{ADMIN_ID}', 'charles', 'Charles G', 'admin', 1, '$2a$10$legacybcrypthashvalue');
         INSERT INTO relay_operators VALUES ('{PUBLISHER_ID}', 'pat', 'Pat P', 'publisher', 1, NULL);"
    );
    let secret = seed_legacy(&data, &operators);
    let (ok, out) = admin(&data, &["migrate-roles"]);
    assert!(ok && out.contains("Plan: 3 accounts, 1 device bindings"), "dry run plans: {out}");
    assert!(has_table(&data, "relay_operators"), "a dry run changes nothing");

    let relay = Relay::start_in(&data, &[]);
    let token = relay.token().await;
    let (ok, out) = admin(&data, &["list"]);
    assert!(ok, "{out}");
    for line in [format!("{OWNER_ID}  ryan"), format!("{ADMIN_ID}  charles"), format!("{PUBLISHER_ID}  pat")] {
        assert!(out.contains(&line), "{line} in {out}");
    }
    assert!(out.contains("role=owner"), "{out}");
    assert!(
        out.contains("charles") && out.contains("inactive"),
        "a non-Argon2 legacy credential needs a server-local reset: {out}"
    );
    assert!(!out.contains("Ryan Bledsoe"), "no bootstrap accounts after a conversion: {out}");
    assert!(
        !has_table(&data, "relay_operators") && !has_table(&data, "relay_operator_devices"),
        "legacy tables removed"
    );

    // The legacy device binding still works: its key signs for the preserved owner account.
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_millis() as i64;
    let payload = json!({});
    let mut env = Envelope {
        version: 1,
        command: "privileged.probe".into(),
        payload_hash: payload_hash(&payload).unwrap(),
        payload,
        request_id: "migration-probe-0001".into(),
        account_id: OWNER_ID.into(),
        device_id: DEVICE_ID.into(),
        role_claim: "owner".into(),
        expected_revision: None,
        issued_at: now,
        expires_at: now + 60_000,
        signature: String::new(),
    };
    sign_envelope(&mut env, &secret).unwrap();
    let res = client()
        .post(relay.url("/api/relay/privileged/execute"))
        .header("Authorization", &token)
        .json(&env)
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200);
    env.command = "admin.snapshot".into();
    env.request_id = "migration-snapshot-01".into();
    sign_envelope(&mut env, &secret).unwrap();
    let res = client()
        .post(relay.url("/api/relay/privileged/execute"))
        .header("Authorization", &token)
        .json(&env)
        .send()
        .await
        .unwrap();
    let snapshot: Value = res.json().await.unwrap();
    let authority = &snapshot["result"]["authority"];
    assert_eq!(
        (authority["ownerAccountId"].as_str(), authority["publisherAccountId"].as_str()),
        (Some(OWNER_ID), Some(PUBLISHER_ID)),
        "{snapshot}"
    );
    let reminder: Value = relay.get_json(&token, "/api/collections/alert_reminders/records/reminder0000001").await;
    assert_eq!(reminder["createdBy"], OWNER_ID, "attribution preserved");
    assert!(admin(&data, &["verify-audit"]).0);
}

#[tokio::test]
async fn an_ambiguous_roster_defers_and_changes_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    let operators = format!(
        "INSERT INTO relay_operators VALUES ('{OWNER_ID}', 'ryan', 'Ryan', 'owner', 1, NULL);
         INSERT INTO relay_operators VALUES ('{ADMIN_ID}', 'charles', 'Charles', 'owner', 1, NULL);
         INSERT INTO relay_operators VALUES ('{PUBLISHER_ID}', 'pat', 'Pat', 'superuser', 1, NULL);"
    );
    seed_legacy(&data, &operators);
    let relay = Relay::start_in(&data, &[]);
    let token = relay.token().await;
    let res = client()
        .post(relay.url("/api/relay/privileged/execute"))
        .header("Authorization", &token)
        .json(&json!({}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 503, "privileged commands stay off while the migration is deferred");
    let health: Value = relay.get_json(&token, "/api/relay/health").await;
    let err = health["actors"]["privileged"]["lastError"].as_str().unwrap_or_default().to_string();
    assert!(err.contains("deferred"), "{health}");
    let (ok, out) = admin(&data, &["migrate-roles", "--apply"]);
    assert!(!ok && out.contains("MultipleOwners") && out.contains("UnknownRole"), "{out}");
    let (ok, out) = admin(&data, &["list"]);
    assert!(!ok && out.contains("deferred"), "{out}");
    assert!(has_table(&data, "relay_operators"), "the legacy roster is untouched");
}
