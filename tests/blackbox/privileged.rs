//! Black-box tests of protected identity and signed privileged commands against the real
//! server and the real `relay admin` CLI: pairing rules, every envelope rejection path in the
//! pipeline (shape, lifetime, skew, unknown/revoked device, disabled account, changed role,
//! bad signature, conflicting request-id reuse), owner-only rules, revision and fresh-password
//! requirements, reauth limits, the server PC's budget for `relay admin ... --as` (with and
//! without a running server), password-change revocation, the audit chain, and results over
//! the 4 KiB bound stored (and replayed) only as the truncation marker.

use std::time::{SystemTime, UNIX_EPOCH};

use serde_json::{json, Value};
use support::{admin_cli, client, pair, pairing_code, reauth, Device, Relay};

use domain::envelope::{payload_hash, sign_envelope, Envelope};

const OWNER_PW: &str = "owner-password-0001";
const ADMIN_PW: &str = "admin-password-0002";

fn now_ms() -> i64 {
    SystemTime::now().duration_since(UNIX_EPOCH).unwrap().as_millis() as i64
}

fn admin(relay: &Relay, args: &[&str], stdin: &str) -> (bool, String) {
    admin_cli(&relay.data_dir, args, stdin)
}

fn ok_admin(relay: &Relay, args: &[&str], stdin: &str) -> String {
    let (ok, out) = admin(relay, args, stdin);
    assert!(ok, "relay admin {args:?} failed: {out}");
    out
}

fn envelope(d: &Device, command: &str, payload: Value, request_id: &str) -> Envelope {
    let now = now_ms();
    let mut env = Envelope {
        version: 1,
        command: command.into(),
        payload_hash: payload_hash(&payload).unwrap(),
        payload,
        request_id: request_id.into(),
        account_id: d.account_id.clone(),
        device_id: d.device_id.clone(),
        role_claim: d.role.clone(),
        expected_revision: None,
        issued_at: now,
        expires_at: now + 60_000,
        signature: String::new(),
    };
    sign_envelope(&mut env, &d.secret).unwrap();
    env
}

async fn execute_raw(relay: &Relay, token: &str, body: Vec<u8>) -> (u16, Value) {
    let res = client()
        .post(relay.url("/api/relay/privileged/execute"))
        .header("Authorization", token)
        .header("Content-Type", "application/json")
        .body(body)
        .send()
        .await
        .unwrap();
    let status = res.status().as_u16();
    (status, res.json().await.unwrap_or(Value::Null))
}

async fn execute(relay: &Relay, token: &str, env: &Envelope) -> (u16, Value) {
    execute_raw(relay, token, serde_json::to_vec(env).unwrap()).await
}

fn code_of(body: &Value) -> &str {
    body["data"]["code"].as_str().unwrap_or("")
}

fn rid(n: u32) -> String {
    format!("request-{n:08}-abcdefgh")
}

/// Owner `ryan` active with a paired device; Administrator `charles` active with a paired device.
async fn setup(relay: &Relay, token: &str) -> (Device, Device) {
    ok_admin(relay, &["set-password", "--username", "ryan"], &format!("{OWNER_PW}\n"));
    ok_admin(relay, &["activate", "--username", "ryan"], "");
    ok_admin(relay, &["set-password", "--username", "charles"], &format!("{ADMIN_PW}\n"));
    ok_admin(relay, &["activate", "--username", "charles"], "");
    let code = pairing_code(relay, "ryan", OWNER_PW, "ryan");
    let owner = pair(relay, token, "ryan", &code, 7).await.expect("owner pairs");
    let code = pairing_code(relay, "charles", ADMIN_PW, "charles");
    let admin = pair(relay, token, "charles", &code, 9).await.expect("admin pairs");
    assert_eq!((owner.role.as_str(), admin.role.as_str()), ("owner", "administrator"));
    (owner, admin)
}

#[tokio::test]
async fn bootstrap_accounts_have_no_usable_credential() {
    let relay = Relay::start();
    let out = ok_admin(&relay, &["list"], "");
    assert!(out.contains("ryan") && out.contains("charles"), "{out}");
    assert_eq!(out.matches("inactive").count(), 2, "{out}");
    assert_eq!(out.matches("Not configured").count(), 2, "{out}");
    let (ok, out) = admin(&relay, &["activate", "--username", "ryan"], "");
    assert!(!ok, "no activation without a password: {out}");
    let (ok, _) = admin(&relay, &["set-password", "--username", "ryan"], "short\n");
    assert!(!ok, "password policy enforced");
    let (ok, out) = admin(&relay, &["pair-device", "--as", "ryan", "--for", "ryan"], "anything-long-enough\n");
    assert!(!ok && out.contains("invalid username or password"), "{out}");
}

#[test]
fn relay_admin_works_on_a_data_directory_no_server_has_opened() {
    let fresh = tempfile::tempdir().unwrap();
    // The one-connection pool once waited 30 s for a second connection at bootstrap, then failed.
    let (ok, out) = support::admin_cli(fresh.path(), &["list"], "");
    assert!(ok && out.contains("ryan") && out.contains("charles"), "{out}");
    let (ok, out) =
        support::admin_cli(fresh.path(), &["set-password", "--username", "ryan"], "a fresh owner password\n");
    assert!(ok, "{out}");
    let (ok, out) = support::admin_cli(fresh.path(), &["activate", "--username", "ryan"], "");
    assert!(ok, "{out}");
}

/// Five wrong `relay admin pair-device --as ryan` passwords in `data_dir` are checked; the right
/// one then waits: the server PC's budget is spent.
fn guess_as_the_owner_until_the_budget_is_spent(data_dir: &std::path::Path) {
    let pair = ["pair-device", "--as", "ryan", "--for", "ryan"];
    for _ in 0..5 {
        let (ok, out) = admin_cli(data_dir, &pair, "wrong-password-0009\n");
        assert!(!ok && out.contains("invalid username or password"), "{out}");
    }
    let (ok, out) = admin_cli(data_dir, &pair, &format!("{OWNER_PW}\n"));
    assert!(!ok && out.contains("too many attempts"), "the right password waits too: {out}");
}

#[tokio::test]
async fn relay_admin_as_checks_spend_the_server_pcs_budget_through_the_running_server() {
    let relay = Relay::start();
    ok_admin(&relay, &["set-password", "--username", "ryan"], &format!("{OWNER_PW}\n"));
    ok_admin(&relay, &["activate", "--username", "ryan"], "");
    guess_as_the_owner_until_the_budget_is_spent(&relay.data_dir);
}

#[test]
fn relay_admin_as_checks_spend_the_server_pcs_budget_without_a_server() {
    let dir = tempfile::tempdir().unwrap();
    assert!(admin_cli(dir.path(), &["set-password", "--username", "ryan"], &format!("{OWNER_PW}\n")).0);
    assert!(admin_cli(dir.path(), &["activate", "--username", "ryan"], "").0);
    guess_as_the_owner_until_the_budget_is_spent(dir.path());
}

#[tokio::test]
async fn signed_commands_run_and_every_rejection_path_is_enforced() {
    let relay = Relay::start();
    let token = relay.token().await;
    let (owner, admin_dev) = setup(&relay, &token).await;

    let (status, body) = execute(&relay, &token, &envelope(&owner, "privileged.probe", json!({}), &rid(1))).await;
    assert_eq!((status, body["result"]["role"].as_str()), (200, Some("owner")), "{body}");
    let (status, snapshot) = execute(&relay, &token, &envelope(&owner, "admin.snapshot", json!({}), &rid(100))).await;
    assert_eq!(status, 200);
    let devices = snapshot["result"]["devices"].as_array().unwrap();
    let mine = devices.iter().find(|d| d["id"] == owner.device_id.as_str()).unwrap();
    let fingerprint = owner.jwk.fingerprint();
    assert_eq!(mine["fingerprintSuffix"].as_str(), Some(&fingerprint[fingerprint.len() - 8..]));
    let text = snapshot.to_string();
    assert!(!text.contains(&owner.jwk.x) && !text.contains("argon2"), "no key material or hashes: {text}");
    assert!(text.contains("\"password\":\"Configured\""));

    // A matching retry is idempotent; a conflicting reuse of the id is refused.
    let (status, body) = execute(&relay, &token, &envelope(&owner, "privileged.probe", json!({}), &rid(1))).await;
    assert_eq!((status, body["replayed"].as_bool()), (200, Some(true)), "{body}");
    let (status, body) = execute(&relay, &token, &envelope(&owner, "admin.snapshot", json!({}), &rid(1))).await;
    assert_eq!((status, code_of(&body)), (409, "request_conflict"), "{body}");

    // Shape, size, hash, lifetime and skew.
    let (status, body) = execute_raw(&relay, &token, b"{\"not\":\"an envelope\"}".to_vec()).await;
    assert_eq!((status, code_of(&body)), (400, "invalid_envelope"), "{body}");
    let mut tampered = envelope(&owner, "privileged.probe", json!({"x": 1}), &rid(2));
    tampered.payload = json!({"x": 2});
    assert_eq!(execute(&relay, &token, &tampered).await.0, 400);
    let mut expired = envelope(&owner, "privileged.probe", json!({}), &rid(3));
    expired.issued_at = now_ms() - 120_000;
    expired.expires_at = now_ms() - 60_000;
    sign_envelope(&mut expired, &owner.secret).unwrap();
    assert_eq!(execute(&relay, &token, &expired).await.0, 400);
    let mut long = envelope(&owner, "privileged.probe", json!({}), &rid(4));
    long.expires_at = long.issued_at + 91_000;
    sign_envelope(&mut long, &owner.secret).unwrap();
    assert_eq!(execute(&relay, &token, &long).await.0, 400);
    let mut future = envelope(&owner, "privileged.probe", json!({}), &rid(5));
    future.issued_at = now_ms() + 120_000;
    future.expires_at = future.issued_at + 60_000;
    sign_envelope(&mut future, &owner.secret).unwrap();
    assert_eq!(execute(&relay, &token, &future).await.0, 400);
    let confirm = envelope(&owner, "privileged.reauth.confirm", json!({}), &rid(6));
    assert_eq!(execute(&relay, &token, &confirm).await.0, 400, "remote envelopes cannot carry the confirm command");
    let (status, _) = execute_raw(&relay, &token, vec![b' '; 17 * 1024]).await;
    assert_eq!(status, 413);

    // Signature, claims, devices and accounts.
    let mut forged = envelope(&owner, "privileged.probe", json!({}), &rid(7));
    sign_envelope(&mut forged, &admin_dev.secret).unwrap();
    let (status, body) = execute(&relay, &token, &forged).await;
    assert_eq!((status, code_of(&body)), (401, "bad_signature"), "{body}");
    let mut claim = envelope(&owner, "privileged.probe", json!({}), &rid(8));
    claim.role_claim = "administrator".into();
    sign_envelope(&mut claim, &owner.secret).unwrap();
    let (status, body) = execute(&relay, &token, &claim).await;
    assert_eq!((status, code_of(&body)), (409, "role_changed"), "{body}");
    let mut unknown = envelope(&owner, "privileged.probe", json!({}), &rid(9));
    unknown.device_id = "zzzzzzzzzzzzzzz".into();
    sign_envelope(&mut unknown, &owner.secret).unwrap();
    let (status, body) = execute(&relay, &token, &unknown).await;
    assert_eq!((status, code_of(&body)), (403, "device_unavailable"), "{body}");
    let mut crossed = envelope(&owner, "privileged.probe", json!({}), &rid(10));
    crossed.device_id = admin_dev.device_id.clone();
    sign_envelope(&mut crossed, &owner.secret).unwrap();
    assert_eq!(
        code_of(&execute(&relay, &token, &crossed).await.1),
        "device_unavailable",
        "device bound to another account"
    );

    // Owner-only rules are enforced in the handler, whatever the caller's role claim says.
    let create_admin = json!({"username": "dana", "displayName": "Dana", "kind": "administrator"});
    let (status, body) =
        execute(&relay, &token, &envelope(&admin_dev, "accounts.create", create_admin.clone(), &rid(11))).await;
    assert_eq!((status, code_of(&body)), (403, "forbidden"), "{body}");
    let create_pub = json!({"username": "pat", "displayName": "Pat", "kind": "publisher"});
    let (status, body) = execute(&relay, &token, &envelope(&admin_dev, "accounts.create", create_pub, &rid(12))).await;
    assert_eq!(status, 200, "Administrators may manage the Publisher: {body}");
    let publisher_id = body["result"]["accountId"].as_str().unwrap().to_string();
    let (status, _) = execute(&relay, &token, &envelope(&owner, "accounts.create", create_admin, &rid(13))).await;
    assert_eq!(status, 200, "the Owner may create Administrators");
    let owner_devices = json!({"deviceId": owner.device_id});
    let (status, body) =
        execute(&relay, &token, &envelope(&admin_dev, "devices.revoke", owner_devices, &rid(14))).await;
    assert_eq!(
        (status, code_of(&body)),
        (403, "forbidden"),
        "Administrators cannot revoke the Owner's devices: {body}"
    );

    // Authority changes need the current revision and a fresh, single-use password proof.
    let assign = |proof: Option<&str>| {
        let mut p = json!({"accountId": publisher_id});
        if let Some(proof) = proof {
            p["reauthProof"] = json!(proof);
        }
        p
    };
    let (status, body) = execute(&relay, &token, &envelope(&owner, "publisher.assign", assign(None), &rid(15))).await;
    assert_eq!((status, code_of(&body)), (409, "stale_revision"), "{body}");
    let mut env = envelope(&owner, "publisher.assign", assign(None), &rid(16));
    env.expected_revision = Some(1);
    sign_envelope(&mut env, &owner.secret).unwrap();
    let (status, body) = execute(&relay, &token, &env).await;
    assert_eq!((status, code_of(&body)), (403, "reauth_required"), "{body}");
    let (status, body) = reauth(&relay, &token, &owner, OWNER_PW).await;
    assert_eq!(status, 200, "{body}");
    let proof = body["proof"].as_str().unwrap().to_string();
    let mut env = envelope(&owner, "publisher.assign", assign(Some(&proof)), &rid(17));
    env.expected_revision = Some(0);
    sign_envelope(&mut env, &owner.secret).unwrap();
    assert_eq!(code_of(&execute(&relay, &token, &env).await.1), "stale_revision");
    let mut env = envelope(&owner, "publisher.assign", assign(Some(&proof)), &rid(18));
    env.expected_revision = Some(1);
    sign_envelope(&mut env, &owner.secret).unwrap();
    let (status, body) = execute(&relay, &token, &env).await;
    assert_eq!((status, body["result"]["revision"].as_i64()), (200, Some(2)), "{body}");
    let mut again = envelope(&owner, "publisher.assign", assign(Some(&proof)), &rid(19));
    again.expected_revision = Some(2);
    sign_envelope(&mut again, &owner.secret).unwrap();
    assert_eq!(code_of(&execute(&relay, &token, &again).await.1), "reauth_required", "proofs are single use");

    // Revocation, deactivation and password change take effect on the next request.
    ok_admin(&relay, &["revoke-device", "--as", "ryan", "--device", &admin_dev.device_id], &format!("{OWNER_PW}\n"));
    let (status, body) = execute(&relay, &token, &envelope(&admin_dev, "privileged.probe", json!({}), &rid(20))).await;
    assert_eq!((status, code_of(&body)), (403, "device_unavailable"), "{body}");
    ok_admin(&relay, &["set-password", "--username", "ryan"], "a-brand-new-password\n");
    let (status, body) = execute(&relay, &token, &envelope(&owner, "privileged.probe", json!({}), &rid(21))).await;
    assert_eq!((status, code_of(&body)), (403, "device_unavailable"), "password change revoked the device: {body}");

    let out = ok_admin(&relay, &["verify-audit"], "");
    assert!(out.contains("intact"), "{out}");
}

#[tokio::test]
async fn commands_are_typed_extra_fields_and_unknown_commands_are_refused() {
    let relay = Relay::start();
    let token = relay.token().await;
    let (owner, _) = setup(&relay, &token).await;
    let rename = |extra: Option<Value>| {
        let mut p = json!({"accountId": owner.account_id, "displayName": "Ryan"});
        if let Some(extra) = extra {
            p["unexpected"] = extra;
        }
        p
    };
    let (status, body) =
        execute(&relay, &token, &envelope(&owner, "accounts.rename", rename(Some(json!(1))), &rid(1))).await;
    assert_eq!((status, code_of(&body)), (400, "invalid_input"), "an extra payload field: {body}");
    let (status, body) = execute(
        &relay,
        &token,
        &envelope(&owner, "accounts.setActive", json!({"accountId": owner.account_id, "active": "yes"}), &rid(2)),
    )
    .await;
    assert_eq!((status, code_of(&body)), (400, "invalid_input"), "a wrongly typed field: {body}");
    let (status, body) = execute(&relay, &token, &envelope(&owner, "wiki.purge", json!({}), &rid(3))).await;
    assert_eq!((status, code_of(&body)), (403, "forbidden"), "a command without a variant is unknown: {body}");
    // Server-local commands are refused in a signed envelope, even for the Owner.
    let set_password = json!({"accountId": owner.account_id, "password": "an envelope-borne password"});
    let (status, body) =
        execute(&relay, &token, &envelope(&owner, "accounts.setPassword", set_password, &rid(4))).await;
    assert_eq!((status, code_of(&body)), (403, "forbidden"), "a password never travels in an envelope: {body}");
    let pairing = json!({"accountId": owner.account_id, "label": "remote"});
    let (status, body) = execute(&relay, &token, &envelope(&owner, "pairing.start", pairing, &rid(5))).await;
    assert_eq!((status, code_of(&body)), (403, "forbidden"), "pairing codes are issued on the server PC: {body}");
    // Refused before the request id was claimed: the id is still free for a valid request.
    let (status, body) = execute(&relay, &token, &envelope(&owner, "accounts.rename", rename(None), &rid(1))).await;
    assert_eq!((status, body["result"]["renamed"].as_bool()), (200, Some(true)), "{body}");
    let (status, body) = execute(&relay, &token, &envelope(&owner, "audit.verify", json!({}), &rid(6))).await;
    assert_eq!((status, body["result"]["ok"].as_bool()), (200, Some(true)), "the audit check runs signed too: {body}");
}

#[tokio::test]
async fn disabled_accounts_and_pairing_limits() {
    let relay = Relay::start();
    let token = relay.token().await;
    let (_owner, admin_dev) = setup(&relay, &token).await;
    ok_admin(&relay, &["deactivate", "--username", "charles"], "");
    let (status, body) = execute(&relay, &token, &envelope(&admin_dev, "privileged.probe", json!({}), &rid(1))).await;
    assert_eq!((status, code_of(&body)), (403, "account_unavailable"), "{body}");
    let (ok, out) = admin(&relay, &["deactivate", "--username", "ryan"], "");
    assert!(!ok && out.contains("Owner"), "the Owner cannot be deactivated: {out}");

    let code = pairing_code(&relay, "ryan", OWNER_PW, "ryan");
    for attempt in 0..5 {
        let err = pair(&relay, &token, "ryan", "AAAA-AAAA", 20 + attempt).await.err().expect("wrong code fails");
        assert_eq!((err.0, code_of(&err.1)), (400, "pairing_invalid"));
    }
    let err = pair(&relay, &token, "ryan", &code, 30).await.err().expect("locked after five failures");
    assert_eq!(code_of(&err.1), "pairing_invalid");
    let code = pairing_code(&relay, "ryan", OWNER_PW, "ryan");
    let err = pair(&relay, &token, "charles", &code, 31).await.err().expect("codes are account-bound");
    assert_eq!(code_of(&err.1), "pairing_invalid");
    pair(&relay, &token, "ryan", &code, 32).await.expect("the right account pairs");
    let err = pair(&relay, &token, "ryan", &code, 33).await.err().expect("single use");
    assert_eq!(code_of(&err.1), "pairing_invalid");

    for path in ["/api/relay/privileged/pair", "/api/relay/privileged/reauth", "/api/relay/privileged/execute"] {
        let res = client().post(relay.url(path)).json(&json!({})).send().await.unwrap();
        assert_eq!(res.status(), 401, "{path} needs the app token first");
    }
}

#[tokio::test]
async fn reauth_is_bounded_and_rate_limited() {
    let relay = Relay::start();
    let token = relay.token().await;
    let (owner, _) = setup(&relay, &token).await;
    let big = json!({"accountId": owner.account_id, "deviceId": owner.device_id, "password": "x".repeat(5000)});
    let res = client()
        .post(relay.url("/api/relay/privileged/reauth"))
        .header("Authorization", &token)
        .json(&big)
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 413, "4 KiB body limit");
    for _ in 0..5 {
        let (status, body) = reauth(&relay, &token, &owner, "wrong-password-xyz").await;
        assert_eq!((status, code_of(&body)), (401, "invalid_credentials"));
    }
    let res = client()
        .post(relay.url("/api/relay/privileged/reauth"))
        .header("Authorization", &token)
        .json(&json!({"accountId": owner.account_id, "deviceId": owner.device_id, "password": OWNER_PW}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 429);
    assert!(res.headers().get("retry-after").is_some());
}

#[tokio::test]
async fn signed_payloads_are_never_stored_or_exposed() {
    let mut relay = Relay::start();
    let token = relay.token().await;
    let (owner, _) = setup(&relay, &token).await;
    let marker = "payload-marker-7f3a9c";
    let env =
        envelope(&owner, "accounts.rename", json!({"accountId": owner.account_id, "displayName": marker}), &rid(1));
    let (status, body) = execute(&relay, &token, &env).await;
    assert_eq!(status, 200, "{body}");
    let env = envelope(&owner, "privileged.probe", json!({"note": "secret-note-5521"}), &rid(2));
    assert_eq!(execute(&relay, &token, &env).await.0, 200);
    for table in ["relay_privileged_requests", "relay_privileged_accounts", "relay_devices", "relay_audit_log"] {
        let res = client()
            .get(relay.url(&format!("/api/collections/{table}/records")))
            .header("Authorization", &token)
            .send()
            .await
            .unwrap();
        assert_eq!(res.status(), 404, "{table} is not reachable through the record API");
    }
    relay.stop();
    let db = std::fs::read(relay.data_dir.join("store/relay.db")).unwrap();
    let wal = std::fs::read(relay.data_dir.join("store/relay.db-wal")).unwrap_or_default();
    for bytes in [&db, &wal] {
        assert!(!bytes.windows(16).any(|w| w == b"secret-note-5521"), "the signed body is not persisted");
    }

    assert!(ok_admin(&relay, &["verify-audit"], "").contains("intact"));
    let (pool, _) = infra::db::open(&relay.data_dir.join("store/relay.db"), 1).unwrap();
    use diesel::connection::SimpleConnection;
    pool.get()
        .unwrap()
        .batch_execute("UPDATE relay_audit_log SET entry = json_set(entry, '$.outcome', 'edited') WHERE seq = 2")
        .unwrap();
    drop(pool);
    let (ok, out) = admin(&relay, &["verify-audit"], "");
    assert!(!ok && out.contains("entry 2"), "an edited entry is detected: {out}");
}

/// The text stored for request `id` (what a retry with that id is answered from).
fn stored_result(relay: &Relay, id: &str) -> Option<String> {
    use diesel::prelude::*;
    use infra::privileged::schema::relay_privileged_requests as requests;
    let (pool, _) = infra::db::open(&relay.data_dir.join("store/relay.db"), 1).unwrap();
    let mut conn = pool.get().unwrap();
    requests::table.find(id).select(requests::result).first::<Option<String>>(&mut conn).unwrap()
}

#[tokio::test]
async fn results_over_the_bound_are_stored_and_replayed_as_the_truncation_marker() {
    use actors::privileged::service::MAX_RESULT_BYTES;
    let mut relay = Relay::start();
    let token = relay.token().await;
    let (owner, _) = setup(&relay, &token).await;
    let snapshot = |n| envelope(&owner, "admin.snapshot", json!({}), &rid(n));

    // Within the bound the stored outcome is the result itself, and a retry gets it back.
    let (status, small) = execute(&relay, &token, &snapshot(1)).await;
    assert_eq!(status, 200, "{small}");
    assert!(small["result"].to_string().len() <= MAX_RESULT_BYTES);
    let (_, replay) = execute(&relay, &token, &snapshot(1)).await;
    assert_eq!((&replay["replayed"], &replay["result"]), (&json!(true), &small["result"]), "kept whole");

    // admin.snapshot lists every account: 40 more with 100-character display names are over 4 KiB.
    for n in 0..40 {
        let name = format!("{n:03} {}", "x".repeat(96));
        let create = json!({"username": format!("admin{n}"), "displayName": name, "kind": "administrator"});
        let (status, body) = execute(&relay, &token, &envelope(&owner, "accounts.create", create, &rid(100 + n))).await;
        assert_eq!(status, 200, "{body}");
    }
    let (status, big) = execute(&relay, &token, &snapshot(2)).await;
    assert_eq!(status, 200, "{big}");
    assert!(big["result"].to_string().len() > MAX_RESULT_BYTES, "the result really is over the bound");
    assert_eq!(big["result"]["accounts"].as_array().unwrap().len(), 42, "the caller gets the whole result once");

    // What is kept (and replayed) is the documented marker: valid JSON, within the bound.
    let (status, replay) = execute(&relay, &token, &snapshot(2)).await;
    assert_eq!(status, 200, "{replay}");
    assert_eq!((&replay["replayed"], &replay["result"]), (&json!(true), &json!({"truncated": true})));
    relay.stop();
    let stored = stored_result(&relay, &rid(2)).expect("a finished request keeps an outcome");
    assert!(stored.len() <= MAX_RESULT_BYTES, "stored {} bytes", stored.len());
    assert_eq!(serde_json::from_str::<Value>(&stored).unwrap(), json!({"truncated": true}));
    assert_eq!(serde_json::from_str::<Value>(&stored_result(&relay, &rid(1)).unwrap()).unwrap(), small["result"]);
}

#[test]
fn relay_admin_creates_accounts_and_assigns_the_publisher_with_the_role_rules() {
    let fresh = tempfile::tempdir().unwrap();
    let dir = fresh.path();
    for (user, pw) in [("ryan", "owner password 0001\n"), ("charles", "admin password 0002\n")] {
        assert!(support::admin_cli(dir, &["set-password", "--username", user], pw).0);
        assert!(support::admin_cli(dir, &["activate", "--username", user], "").0);
    }
    let create = |actor: &str, username: &str, kind: &str, pw: &str| {
        let args = ["create-account", "--as", actor, "--username", username, "--display-name", "Dana", "--kind", kind];
        support::admin_cli(dir, &args, pw)
    };
    let (ok, out) = create("charles", "dana", "administrator", "admin password 0002\n");
    assert!(!ok && out.contains("not permitted"), "only the Owner creates Administrators: {out}");
    let (ok, out) = create("ryan", "dana", "administrator", "wrong password 0001\n");
    assert!(!ok && out.contains("invalid username or password"), "{out}");
    let (ok, out) = create("charles", "pat", "publisher", "admin password 0002\n");
    assert!(ok, "Administrators manage the Publisher: {out}");
    let assign = ["assign-publisher", "--as", "charles", "--username", "pat"];
    let (ok, out) = support::admin_cli(dir, &assign, "admin password 0002\n");
    assert!(ok, "{out}");
    let (ok, out) = support::admin_cli(dir, &["list"], "");
    let pat = out.lines().find(|l| l.contains("pat")).unwrap_or_default().to_string();
    assert!(ok && pat.contains("publisher"), "{out}");
    let (ok, out) = create("ryan", "quinn", "publisher", "owner password 0001\n");
    assert!(ok, "{out}");
    let (ok, out) = support::admin_cli(
        dir,
        &["assign-publisher", "--as", "ryan", "--username", "charles"],
        "owner password 0001\n",
    );
    assert!(!ok && out.contains("only a Publisher account can be assigned"), "{out}");
    let (ok, out) =
        support::admin_cli(dir, &["assign-publisher", "--as", "ryan", "--username", "quinn"], "owner password 0001\n");
    assert!(ok, "the Owner reassigns the Publisher: {out}");
    let (ok, out) = support::admin_cli(dir, &["verify-audit"], "");
    assert!(ok, "{out}");
}
