//! Wiki helpers shared by the black-box Wiki tests and the upload benchmark: the Administrator
//! `charles` activated with a password, a laptop paired for him, and one chunk posted to
//! `POST /api/relay/wiki/chunks` with its signed claim in `X-Relay-Envelope`.

use serde_json::Value;

use crate::privileged::{pair, pairing_code, signed_envelope, Device};
use crate::process::admin_cli;
use crate::relay::Relay;
use crate::web::client;

pub const ADMIN_PW: &str = "admin-password-0002";

/// Gives the Administrator `charles` a password and activates him (a new password revokes his
/// laptops, so once per server).
pub fn activate_administrator(relay: &Relay) {
    let (ok, out) = admin_cli(&relay.data_dir, &["set-password", "--username", "charles"], &format!("{ADMIN_PW}\n"));
    assert!(ok, "{out}");
    let (ok, out) = admin_cli(&relay.data_dir, &["activate", "--username", "charles"], "");
    assert!(ok, "{out}");
}

/// A laptop paired for `charles`, its key made from `seed`.
pub async fn administrator_laptop(relay: &Relay, token: &str, seed: u8) -> Device {
    let code = pairing_code(relay, "charles", ADMIN_PW, "charles");
    pair(relay, token, "charles", &code, seed).await.expect("the administrator pairs")
}

/// Lowercase hex SHA-256.
pub fn sha256(bytes: &[u8]) -> String {
    use sha2::{Digest, Sha256};
    Sha256::digest(bytes).iter().map(|b| format!("{b:02x}")).collect()
}

/// The `X-Relay-Envelope` header for a chunk: the signed `wiki.upload.chunk` claim, base64.
pub fn chunk_envelope_header(d: &Device, claim: Value) -> String {
    use base64::Engine;
    let envelope = signed_envelope(d, "wiki.upload.chunk", claim, None);
    base64::engine::general_purpose::STANDARD.encode(serde_json::to_vec(&envelope).unwrap())
}

/// Posts chunk bytes with a signed claim; returns the status and body.
pub async fn post_chunk(relay: &Relay, token: &str, d: &Device, claim: Value, bytes: &[u8]) -> (u16, Value) {
    let res = client()
        .post(relay.url("/api/relay/wiki/chunks"))
        .header("Authorization", token)
        .header("X-Relay-Envelope", chunk_envelope_header(d, claim))
        .body(bytes.to_vec())
        .send()
        .await
        .unwrap();
    let status = res.status().as_u16();
    (status, res.json().await.unwrap_or(Value::Null))
}
