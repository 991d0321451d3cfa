//! The paired-device side of Relay's privileged protocol, shared by `relay device` and the
//! desktop's paired laptop: generating a P-256 signing key, the app-user sign-in with the
//! connection passphrase, redeeming a pairing code (`POST /api/relay/privileged/pair`), a
//! fresh-password proof (`POST /api/relay/privileged/reauth`), building and signing a canonical
//! envelope for one command and posting it (`POST /api/relay/privileged/execute`), and one Wiki
//! upload chunk with its signed `wiki.upload.chunk` claim (`POST /api/relay/wiki/chunks`: the raw
//! bytes as the body, the claim's envelope in `X-Relay-Envelope`). Requests go
//! through the Relay-peer HTTP policy's client (deadline, no redirects) and answers are read
//! under a size cap. A refusal keeps the server's status, `data.code`, message and Retry-After so
//! callers map it themselves; nothing here logs or echoes a password, code, token, proof or key,
//! and no error message carries a URL.

use std::time::Duration;

use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD as B64};
use base64::Engine;
use serde::Serialize;
use serde_json::{json, Value};

use domain::canonical::sha256_hex;
use domain::envelope::{payload_hash, public_jwk_from_secret, sign_envelope, Envelope, PublicJwk, ENVELOPE_VERSION};

use crate::http::HttpPolicy;

/// A chunk's bytes, shared without copying between the tries of one chunk.
pub use bytes::Bytes;

/// Lifetime given to envelopes a device signs (the server accepts at most 90 s).
pub const ENVELOPE_LIFETIME_MS: i64 = 60_000;
/// Largest answer read from the privileged routes.
const MAX_ANSWER_BYTES: usize = 1024 * 1024;
/// Longest Retry-After honoured, in seconds.
const MAX_RETRY_AFTER_SECS: u64 = 3600;

#[derive(Debug, thiserror::Error)]
pub enum DeviceClientError {
    /// The server answered with a refusal; `code` is the body's `data.code` ("" when absent).
    #[error("{status}: {message} [{code}]")]
    Refused { status: u16, code: String, message: String, retry_after_secs: Option<u64> },
    #[error("the Relay server could not be reached")]
    Network,
    #[error("the Relay server's answer does not have the expected shape")]
    Protocol,
    #[error("{0}")]
    Key(&'static str),
}

impl DeviceClientError {
    /// The server's refusal code, if the server refused.
    pub fn code(&self) -> Option<&str> {
        match self {
            DeviceClientError::Refused { code, .. } => Some(code),
            _ => None,
        }
    }
}

/// What the pairing route answers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Paired {
    pub account_id: String,
    pub device_id: String,
    pub role: String,
}

/// A fresh-password proof and when it expires (epoch ms).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Proof {
    pub proof: String,
    pub expires_ms: i64,
}

/// The identity an envelope is signed for.
#[derive(Debug, Clone, Copy)]
pub struct Signer<'a> {
    pub account_id: &'a str,
    pub device_id: &'a str,
    pub role: &'a str,
    pub secret: &'a [u8; 32],
}

/// A fresh P-256 secret scalar (retried in the negligible case it is not a valid key).
pub fn new_device_secret() -> Result<[u8; 32], DeviceClientError> {
    for _ in 0..8 {
        let bytes = crate::ids::random_bytes(32);
        let mut secret = [0u8; 32];
        secret.copy_from_slice(&bytes);
        if public_jwk_from_secret(&secret).is_ok() {
            return Ok(secret);
        }
    }
    Err(DeviceClientError::Key("could not generate a signing key"))
}

/// The public half of `secret`.
pub fn public_jwk(secret: &[u8; 32]) -> Result<PublicJwk, DeviceClientError> {
    public_jwk_from_secret(secret).map_err(|_| DeviceClientError::Key("invalid signing key"))
}

/// The text form a secret scalar is stored in (base64url).
pub fn encode_secret(secret: &[u8; 32]) -> String {
    B64.encode(secret)
}

/// Decodes a stored secret scalar and checks it is the key of `fingerprint`.
pub fn decode_secret(encoded: &str, fingerprint: &str) -> Result<[u8; 32], DeviceClientError> {
    let secret: [u8; 32] = B64
        .decode(encoded.trim())
        .ok()
        .and_then(|b| b.try_into().ok())
        .ok_or(DeviceClientError::Key("corrupt device key"))?;
    if public_jwk(&secret)?.fingerprint() != fingerprint {
        return Err(DeviceClientError::Key("the stored device key does not match the key file's fingerprint"));
    }
    Ok(secret)
}

/// A signed envelope for `command` with a fresh request id, valid for `ENVELOPE_LIFETIME_MS`.
pub fn signed_envelope(
    signer: Signer<'_>,
    command: &str,
    payload: Value,
    expected_revision: Option<i64>,
    now_ms: i64,
) -> Result<Envelope, DeviceClientError> {
    let mut envelope = Envelope {
        version: ENVELOPE_VERSION,
        command: command.to_string(),
        payload_hash: payload_hash(&payload).map_err(|_| DeviceClientError::Key("the payload cannot be hashed"))?,
        payload,
        request_id: crate::ids::client_id(),
        account_id: signer.account_id.to_string(),
        device_id: signer.device_id.to_string(),
        role_claim: signer.role.to_string(),
        expected_revision,
        issued_at: now_ms,
        expires_at: now_ms + ENVELOPE_LIFETIME_MS,
        signature: String::new(),
    };
    sign_envelope(&mut envelope, signer.secret).map_err(|_| DeviceClientError::Key("could not sign the request"))?;
    Ok(envelope)
}

/// The upload and batch a chunk belongs to, and its place in the upload's plan.
#[derive(Debug, Clone, Copy)]
pub struct ChunkOf<'a> {
    pub upload_id: &'a str,
    pub batch_id: &'a str,
    pub index: u32,
}

/// The signed `wiki.upload.chunk` claim for exactly `bytes`: its index, length and SHA-256.
pub fn chunk_envelope(
    signer: Signer<'_>,
    chunk: ChunkOf<'_>,
    bytes: &[u8],
    now_ms: i64,
) -> Result<Envelope, DeviceClientError> {
    let claim = json!({
        "uploadId": chunk.upload_id,
        "batchId": chunk.batch_id,
        "index": chunk.index,
        "byteSize": bytes.len(),
        "checksum": sha256_hex(bytes),
    });
    signed_envelope(signer, "wiki.upload.chunk", claim, None, now_ms)
}

/// The `X-Relay-Envelope` header value: the envelope's JSON in standard base64.
pub fn envelope_header(envelope: &Envelope) -> Result<String, DeviceClientError> {
    serde_json::to_vec(envelope).map(|json| STANDARD.encode(json)).map_err(|_| DeviceClientError::Protocol)
}

/// What the chunk route answers: the upload's state after this chunk (the last chunk's answer is
/// the assembled and extracted state, `ready` or `failed` with its reason).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChunkProgress {
    pub upload_id: String,
    pub state: String,
    pub stored_chunks: u32,
    pub chunk_count: u32,
    pub error: Option<String>,
}

impl ChunkProgress {
    fn from_answer(answer: &Value) -> Result<ChunkProgress, DeviceClientError> {
        let count = |k: &str| answer[k].as_u64().and_then(|n| u32::try_from(n).ok()).ok_or(DeviceClientError::Protocol);
        Ok(ChunkProgress {
            upload_id: answer["uploadId"].as_str().ok_or(DeviceClientError::Protocol)?.to_string(),
            state: answer["state"].as_str().filter(|s| !s.is_empty()).ok_or(DeviceClientError::Protocol)?.to_string(),
            stored_chunks: count("storedChunks")?,
            chunk_count: count("chunkCount")?,
            error: answer["error"].as_str().map(String::from),
        })
    }
}

/// A Relay server's privileged routes, reached as a paired (or pairing) device.
#[derive(Clone)]
pub struct DeviceClient {
    http: reqwest::Client,
    origin: String,
}

impl DeviceClient {
    /// `origin` must already be a validated server origin (`domain::server_url`).
    pub fn new(origin: &str, timeout: Duration) -> Result<DeviceClient, DeviceClientError> {
        let policy = HttpPolicy { timeout, ..HttpPolicy::relay_peer() };
        let http = policy.build().map_err(|_| DeviceClientError::Network)?.reqwest().clone();
        Ok(DeviceClient { http, origin: origin.trim_end_matches('/').to_string() })
    }

    /// The app-user token for the connection passphrase (what the CLI signs in with).
    pub async fn app_token(&self, passphrase: &str) -> Result<String, DeviceClientError> {
        let body = json!({ "identity": "relay", "password": passphrase });
        let answer = self.post("/api/collections/users/auth-with-password", None, &body).await?;
        answer["token"].as_str().map(String::from).ok_or(DeviceClientError::Protocol)
    }

    /// Redeems `code` for `jwk` on behalf of `username`.
    pub async fn pair(
        &self,
        token: &str,
        username: &str,
        code: &str,
        jwk: &PublicJwk,
        label: &str,
        hostname: &str,
    ) -> Result<Paired, DeviceClientError> {
        let body =
            json!({ "username": username, "code": code, "publicJwk": jwk, "label": label, "hostname": hostname });
        let answer = self.post("/api/relay/privileged/pair", Some(token), &body).await?;
        let text = |k: &str| answer[k].as_str().map(String::from);
        Ok(Paired {
            account_id: text("accountId").ok_or(DeviceClientError::Protocol)?,
            device_id: text("deviceId").ok_or(DeviceClientError::Protocol)?,
            role: text("role").unwrap_or_default(),
        })
    }

    /// A single-use fresh-password proof for the paired account and device.
    pub async fn reauth(
        &self,
        token: &str,
        account_id: &str,
        device_id: &str,
        password: &str,
    ) -> Result<Proof, DeviceClientError> {
        let body = json!({ "accountId": account_id, "deviceId": device_id, "password": password });
        let answer = self.post("/api/relay/privileged/reauth", Some(token), &body).await?;
        match (answer["proof"].as_str(), answer["expiresMs"].as_i64()) {
            (Some(proof), Some(expires_ms)) => Ok(Proof { proof: proof.to_string(), expires_ms }),
            _ => Err(DeviceClientError::Protocol),
        }
    }

    /// Posts a signed envelope; the whole answer (`requestId`, `status`, `result`, `replayed`).
    pub async fn execute(&self, token: &str, envelope: &Envelope) -> Result<Value, DeviceClientError> {
        self.post("/api/relay/privileged/execute", Some(token), envelope).await
    }

    /// Posts one chunk's bytes with its signed claim (from [`chunk_envelope`]); the upload's
    /// progress. A busy pipeline is a `Refused` with status 503 and code `busy`.
    pub async fn post_chunk(
        &self,
        token: &str,
        claim: &Envelope,
        bytes: Bytes,
    ) -> Result<ChunkProgress, DeviceClientError> {
        let request = self
            .http
            .post(format!("{}/api/relay/wiki/chunks", self.origin))
            .header("Content-Type", "application/octet-stream")
            .header("Authorization", token)
            .header("X-Relay-Envelope", envelope_header(claim)?)
            .body(bytes);
        ChunkProgress::from_answer(&Self::answer(request).await?)
    }

    async fn post(&self, path: &str, token: Option<&str>, body: &impl Serialize) -> Result<Value, DeviceClientError> {
        let body = serde_json::to_vec(body).map_err(|_| DeviceClientError::Protocol)?;
        let mut request =
            self.http.post(format!("{}{path}", self.origin)).header("Content-Type", "application/json").body(body);
        if let Some(token) = token {
            request = request.header("Authorization", token);
        }
        Self::answer(request).await
    }

    /// Sends `request` and reads its JSON answer under the size cap; a non-2xx answer is a refusal.
    async fn answer(request: reqwest::RequestBuilder) -> Result<Value, DeviceClientError> {
        let res = request.send().await.map_err(|_| DeviceClientError::Network)?;
        let status = res.status().as_u16();
        let retry_after_secs =
            res.headers().get(reqwest::header::RETRY_AFTER).and_then(|v| v.to_str().ok()).and_then(|v| {
                crate::http::headers::parse_retry_after(v, crate::clock::wall_time(), MAX_RETRY_AFTER_SECS)
            });
        if res.content_length().is_some_and(|n| n > MAX_ANSWER_BYTES as u64) {
            return Err(DeviceClientError::Protocol);
        }
        let bytes = res.bytes().await.map_err(|_| DeviceClientError::Network)?;
        if bytes.len() > MAX_ANSWER_BYTES {
            return Err(DeviceClientError::Protocol);
        }
        let answer: Value = serde_json::from_slice(&bytes).unwrap_or(Value::Null);
        if !(200..300).contains(&status) {
            return Err(refusal(status, &answer, retry_after_secs));
        }
        Ok(answer)
    }
}

/// The refusal a non-2xx answer describes.
fn refusal(status: u16, answer: &Value, retry_after_secs: Option<u64>) -> DeviceClientError {
    let reason = reqwest::StatusCode::from_u16(status).ok().and_then(|s| s.canonical_reason()).unwrap_or("");
    DeviceClientError::Refused {
        status,
        code: answer["data"]["code"].as_str().unwrap_or("").to_string(),
        message: answer["message"].as_str().unwrap_or(if reason.is_empty() { "request failed" } else { reason }).into(),
        retry_after_secs,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn new_keys_are_valid_distinct_and_round_trip_through_their_text_form() {
        let (a, b) = (new_device_secret().unwrap(), new_device_secret().unwrap());
        assert_ne!(a, b);
        let jwk = public_jwk(&a).unwrap();
        assert!(jwk.validate().is_ok());
        assert_eq!(decode_secret(&encode_secret(&a), &jwk.fingerprint()).unwrap(), a);
        let other = public_jwk(&b).unwrap().fingerprint();
        assert!(decode_secret(&encode_secret(&a), &other).unwrap_err().to_string().contains("does not match"));
        assert!(decode_secret("not base64!", &jwk.fingerprint()).is_err());
    }

    #[test]
    fn envelopes_are_signed_for_the_binding_and_verify() {
        let secret = new_device_secret().unwrap();
        let signer = Signer { account_id: "a", device_id: "d", role: "publisher", secret: &secret };
        let env = signed_envelope(signer, "wiki.category.create", json!({"name": "x"}), Some(3), 1_000).unwrap();
        assert_eq!((env.role_claim.as_str(), env.expected_revision), ("publisher", Some(3)));
        assert_eq!(env.expires_at - env.issued_at, ENVELOPE_LIFETIME_MS);
        domain::envelope::verify_signature(&env, &public_jwk(&secret).unwrap()).unwrap();
        let again = signed_envelope(signer, "wiki.category.create", json!({"name": "x"}), None, 1_000).unwrap();
        assert_ne!(env.request_id, again.request_id, "a fresh request id each time");
    }

    #[test]
    fn a_chunk_claim_is_signed_for_exactly_that_chunk_and_travels_as_base64_json() {
        let secret = new_device_secret().unwrap();
        let signer = Signer { account_id: "a", device_id: "d", role: "administrator", secret: &secret };
        let bytes = b"%PDF-1.7 chunk bytes";
        let chunk = ChunkOf { upload_id: "up1", batch_id: "batch1", index: 3 };
        let env = chunk_envelope(signer, chunk, bytes, 5_000).unwrap();
        let header = envelope_header(&env).unwrap();
        let decoded: Envelope = serde_json::from_slice(&STANDARD.decode(header).unwrap()).unwrap();
        assert_eq!(decoded.command, "wiki.upload.chunk");
        assert_eq!(
            decoded.payload,
            json!({"uploadId": "up1", "batchId": "batch1", "index": 3, "byteSize": bytes.len(), "checksum": sha256_hex(bytes)})
        );
        assert_eq!((decoded.account_id.as_str(), decoded.device_id.as_str()), ("a", "d"));
        assert!(decoded.payload["index"].is_u64(), "an integer index");
        domain::envelope::verify_signature(&decoded, &public_jwk(&secret).unwrap()).unwrap();
        let parsed = domain::privileged_command::PrivilegedCommand::parse(&decoded.command, &decoded.payload);
        assert!(parsed.is_ok(), "the server's strict payload parse accepts it: {parsed:?}");
        let again = chunk_envelope(signer, chunk, bytes, 5_000).unwrap();
        assert_ne!(env.request_id, again.request_id, "every try is a fresh request");
        let mut tampered = decoded.clone();
        tampered.payload["index"] = json!(4);
        assert!(domain::envelope::verify_signature(&tampered, &public_jwk(&secret).unwrap()).is_err());
    }

    #[test]
    fn a_chunk_answer_is_read_field_by_field() {
        let answer =
            json!({"uploadId": "up1", "state": "failed", "storedChunks": 2, "chunkCount": 2, "error": "malformed-pdf"});
        let progress = ChunkProgress::from_answer(&answer).unwrap();
        assert_eq!(
            (progress.state.as_str(), progress.stored_chunks, progress.error.as_deref()),
            ("failed", 2, Some("malformed-pdf"))
        );
        assert!(ChunkProgress::from_answer(&json!({"uploadId": "up1"})).is_err());
    }

    #[test]
    fn refusals_keep_status_code_message_and_retry_after() {
        let body = json!({"message": "Too many attempts.", "data": {"code": "rate_limited"}});
        match refusal(429, &body, Some(30)) {
            DeviceClientError::Refused { status, code, message, retry_after_secs } => {
                assert_eq!(
                    (status, code.as_str(), message.as_str(), retry_after_secs),
                    (429, "rate_limited", "Too many attempts.", Some(30))
                );
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(refusal(500, &Value::Null, None).code(), Some(""));
        assert_eq!(refusal(401, &Value::Null, None).to_string(), "401: Unauthorized []");
    }
}
