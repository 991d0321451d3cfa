//! Paired devices and signed privileged commands over HTTP: a pairing code from `relay admin
//! pair-device`, pairing a key derived from a seed, reauthentication, and envelopes signed with
//! a fresh request id. It holds no server state; the server decides every outcome.

use serde_json::{json, Value};

use domain::envelope::{payload_hash, sign_envelope, Envelope};

use crate::process::admin_cli;
use crate::relay::Relay;
use crate::web::client;

/// A device paired through `POST /api/relay/privileged/pair`: its signing key and the ids and
/// role the server answered with.
pub struct Device {
    pub secret: [u8; 32],
    pub jwk: domain::envelope::PublicJwk,
    pub account_id: String,
    pub device_id: String,
    pub role: String,
}

/// Asks `relay admin pair-device --as actor --for target` (actor's password on stdin) for a
/// pairing code and returns it as printed (`ABCD-EFGH`).
pub fn pairing_code(relay: &Relay, actor: &str, actor_pw: &str, target: &str) -> String {
    let (ok, out) =
        admin_cli(&relay.data_dir, &["pair-device", "--as", actor, "--for", target], &format!("{actor_pw}\n"));
    assert!(ok, "relay admin pair-device failed: {out}");
    out.split_whitespace().find(|w| w.len() == 9 && w.as_bytes()[4] == b'-').expect("code in output").to_string()
}

/// Submits a pairing code for `username` with a key derived from `seed`; the error is the
/// status and body of a refusal.
pub async fn pair(relay: &Relay, token: &str, username: &str, code: &str, seed: u8) -> Result<Device, (u16, Value)> {
    let mut secret = [seed; 32];
    secret[0] = 1;
    let jwk = domain::envelope::public_jwk_from_secret(&secret).unwrap();
    let res = client()
        .post(relay.url("/api/relay/privileged/pair"))
        .header("Authorization", token)
        .json(&json!({"username": username, "code": code, "publicJwk": jwk, "label": "test laptop", "hostname": "laptop-1"}))
        .send()
        .await
        .unwrap();
    let status = res.status().as_u16();
    let body: Value = res.json().await.unwrap();
    if status != 200 {
        return Err((status, body));
    }
    Ok(Device {
        secret,
        jwk,
        account_id: body["accountId"].as_str().unwrap().into(),
        device_id: body["deviceId"].as_str().unwrap().into(),
        role: body["role"].as_str().unwrap().into(),
    })
}

/// `POST /api/relay/privileged/reauth` for a paired device; returns the status and JSON body
/// (`proof` on success).
pub async fn reauth(relay: &Relay, token: &str, d: &Device, password: &str) -> (u16, Value) {
    let res = client()
        .post(relay.url("/api/relay/privileged/reauth"))
        .header("Authorization", token)
        .json(&json!({"accountId": d.account_id, "deviceId": d.device_id, "password": password}))
        .send()
        .await
        .unwrap();
    let status = res.status().as_u16();
    (status, res.json().await.unwrap_or(Value::Null))
}

/// Runs one command signed by `d`'s key with a fresh request id (and the expected revision,
/// when the command needs one); returns the status and body.
pub async fn signed_command(
    relay: &Relay,
    token: &str,
    d: &Device,
    name: &str,
    payload: Value,
    revision: Option<i64>,
) -> (u16, Value) {
    let env = signed_envelope(d, name, payload, revision);
    let res = client()
        .post(relay.url("/api/relay/privileged/execute"))
        .header("Authorization", token)
        .json(&env)
        .send()
        .await
        .unwrap();
    let status = res.status().as_u16();
    (status, res.json().await.unwrap_or(Value::Null))
}

/// An envelope for `name` signed by `d`'s key, with a fresh request id and a 60 s lifetime.
pub fn signed_envelope(d: &Device, name: &str, payload: Value, revision: Option<i64>) -> Envelope {
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_millis() as i64;
    let mut env = Envelope {
        version: 1,
        command: name.into(),
        payload_hash: payload_hash(&payload).unwrap(),
        payload,
        request_id: format!("request-{}-{:08}", now, next_request_number()),
        account_id: d.account_id.clone(),
        device_id: d.device_id.clone(),
        role_claim: d.role.clone(),
        expected_revision: revision,
        issued_at: now,
        expires_at: now + 60_000,
        signature: String::new(),
    };
    sign_envelope(&mut env, &d.secret).unwrap();
    env
}

fn next_request_number() -> u32 {
    use std::sync::atomic::{AtomicU32, Ordering};
    static NEXT: AtomicU32 = AtomicU32::new(1);
    NEXT.fetch_add(1, Ordering::SeqCst)
}
