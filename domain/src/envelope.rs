//! Signed request envelopes: the typed, canonical wire form of every remote privileged
//! request, and step 1 (shape, size, version, payload hash, forbidden commands, clock skew,
//! expiry, lifetime) and step 4 (P-256 JWK validation, RFC 7638 fingerprint, ECDSA P-256 /
//! SHA-256 signature) of the server pipeline. It also owns the client-side signer used by the
//! `relay device` CLI (deterministic RFC 6979, so no RNG is needed). Loading accounts/devices,
//! deriving capabilities and claiming request ids are the caller's steps 2, 3, 5 and 6; see
//! `docs/signed-envelopes.md`. No IO, no clock: callers pass `now_ms`.

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine as _;
use p256::ecdsa::signature::{Signer as _, Verifier as _};
use p256::ecdsa::{Signature, SigningKey, VerifyingKey};
use serde_json::Value;

use crate::canonical::{canonical_json, sha256_hex, write_string};

pub const ENVELOPE_VERSION: u32 = 1;
pub const MAX_ENVELOPE_BYTES: usize = 16 * 1024;
pub const MAX_PAYLOAD_BYTES: usize = 8 * 1024;
pub const MAX_LIFETIME_MS: i64 = 90_000;
pub const MAX_CLOCK_SKEW_MS: i64 = 30_000;
pub const SIGNING_CONTEXT: &str = "relay-signed-envelope-v1";
/// Commands that remote (device-signed) envelopes may never carry.
pub const REMOTE_FORBIDDEN_COMMANDS: &[&str] = &["privileged.reauth.confirm"];
/// Role claims an envelope may carry. The claim is checked against the role derived from the
/// records (see `roles::effective_role`); it never grants anything by itself.
pub const ROLE_CLAIMS: &[&str] = &["owner", "administrator", "publisher"];
/// Maximum length of `command`.
pub const MAX_COMMAND_LEN: usize = 64;
/// Length of a base64url (no padding) encoding of a 64-byte `r || s` signature.
pub const SIGNATURE_B64_LEN: usize = 86;

#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Envelope {
    pub version: u32,
    pub command: String,
    /// Parsed strictly: duplicate object keys anywhere in the payload are rejected (Malformed),
    /// so every component that reads the body sees the same value.
    #[serde(deserialize_with = "strict::deserialize")]
    pub payload: Value,
    pub payload_hash: String,
    pub request_id: String,
    pub account_id: String,
    pub device_id: String,
    pub role_claim: String,
    pub expected_revision: Option<i64>,
    pub issued_at: i64,
    pub expires_at: i64,
    pub signature: String,
}

/// Envelope rejections. Messages never echo submitted values, so they are safe to return to
/// the caller and to log.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum EnvelopeError {
    #[error("signed request is too large")]
    TooLarge,
    #[error("signed request is not a well-formed envelope")]
    Malformed,
    #[error("unsupported envelope version")]
    UnsupportedVersion,
    #[error("invalid envelope field: {0}")]
    BadField(&'static str),
    #[error("payload hash does not match the payload")]
    PayloadHashMismatch,
    #[error("command is not allowed in a signed request")]
    ForbiddenCommand,
    #[error("signed request is not valid yet (check the device clock)")]
    NotYetValid,
    #[error("signed request has expired")]
    Expired,
    #[error("signed request lifetime is invalid or too long")]
    LifetimeTooLong,
    #[error("signature verification failed")]
    BadSignature,
    #[error("device key is invalid")]
    BadKey,
}

/// Step 1 of the server pipeline: shape (deny unknown fields, field formats), size, version,
/// payload hash, forbidden commands, clock skew (`issued_at <= now + MAX_CLOCK_SKEW_MS`),
/// expiry (`now < expires_at`), lifetime (`0 < expires_at - issued_at <= MAX_LIFETIME_MS`).
///
/// Checks run in that order and the first failure is returned. The signature is only checked
/// for shape here; [`verify_signature`] needs the device key loaded in step 2.
pub fn parse_envelope(raw: &[u8], now_ms: i64) -> Result<Envelope, EnvelopeError> {
    if raw.len() > MAX_ENVELOPE_BYTES {
        return Err(EnvelopeError::TooLarge);
    }
    let env: Envelope = serde_json::from_slice(raw).map_err(|_| EnvelopeError::Malformed)?;
    if env.version != ENVELOPE_VERSION {
        return Err(EnvelopeError::UnsupportedVersion);
    }
    check_fields(&env)?;
    let canonical_payload = canonical_json(&env.payload).map_err(|_| EnvelopeError::BadField("payload"))?;
    if canonical_payload.len() > MAX_PAYLOAD_BYTES {
        return Err(EnvelopeError::TooLarge);
    }
    // The payload sits one level below the envelope object, so it must also fit the signing form.
    signing_bytes(&env).map_err(|_| EnvelopeError::BadField("payload"))?;
    if sha256_hex(canonical_payload.as_bytes()) != env.payload_hash {
        return Err(EnvelopeError::PayloadHashMismatch);
    }
    if REMOTE_FORBIDDEN_COMMANDS.contains(&env.command.as_str()) {
        return Err(EnvelopeError::ForbiddenCommand);
    }
    if env.issued_at > now_ms.saturating_add(MAX_CLOCK_SKEW_MS) {
        return Err(EnvelopeError::NotYetValid);
    }
    if now_ms >= env.expires_at {
        return Err(EnvelopeError::Expired);
    }
    match env.expires_at.checked_sub(env.issued_at) {
        Some(life) if life > 0 && life <= MAX_LIFETIME_MS => {}
        _ => return Err(EnvelopeError::LifetimeTooLong),
    }
    Ok(env)
}

fn check_fields(env: &Envelope) -> Result<(), EnvelopeError> {
    if !is_valid_command(&env.command) {
        return Err(EnvelopeError::BadField("command"));
    }
    if !env.payload.is_object() {
        return Err(EnvelopeError::BadField("payload"));
    }
    if !is_lower_hex_64(&env.payload_hash) {
        return Err(EnvelopeError::BadField("payloadHash"));
    }
    let rid = env.request_id.as_bytes();
    if !(16..=64).contains(&rid.len()) || !rid.iter().all(|b| b.is_ascii_alphanumeric() || *b == b'_' || *b == b'-') {
        return Err(EnvelopeError::BadField("requestId"));
    }
    if !is_record_id(&env.account_id) {
        return Err(EnvelopeError::BadField("accountId"));
    }
    if !is_record_id(&env.device_id) {
        return Err(EnvelopeError::BadField("deviceId"));
    }
    if !ROLE_CLAIMS.contains(&env.role_claim.as_str()) {
        return Err(EnvelopeError::BadField("roleClaim"));
    }
    if env.expected_revision.is_some_and(|r| r < 0) {
        return Err(EnvelopeError::BadField("expectedRevision"));
    }
    if env.signature.len() != SIGNATURE_B64_LEN || decode_signature(&env.signature).is_none() {
        return Err(EnvelopeError::BadField("signature"));
    }
    Ok(())
}

/// `^[a-z][a-z0-9]*(\.[a-z][a-zA-Z0-9]*){1,3}$`, at most [`MAX_COMMAND_LEN`] bytes.
pub fn is_valid_command(command: &str) -> bool {
    if command.len() > MAX_COMMAND_LEN {
        return false;
    }
    let mut segments = command.split('.');
    let first = segments.next().unwrap_or("");
    let first_ok = first.as_bytes().first().is_some_and(u8::is_ascii_lowercase)
        && first.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit());
    let mut rest = 0;
    for seg in segments {
        rest += 1;
        if !(seg.as_bytes().first().is_some_and(u8::is_ascii_lowercase)
            && seg.bytes().all(|b| b.is_ascii_alphanumeric()))
        {
            return false;
        }
    }
    first_ok && (1..=3).contains(&rest)
}

/// PocketBase record ids: `^[a-z0-9]{15}$`.
pub fn is_record_id(s: &str) -> bool {
    s.len() == 15 && s.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
}

fn is_lower_hex_64(s: &str) -> bool {
    s.len() == 64 && s.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

/// Strict base64url-nopad decode of an 86-character signature into 64 bytes. The decoder
/// rejects padding, non-alphabet characters and non-zero trailing bits, so every signature
/// has exactly one accepted spelling.
fn decode_signature(s: &str) -> Option<[u8; 64]> {
    if s.len() != SIGNATURE_B64_LEN {
        return None;
    }
    let bytes = URL_SAFE_NO_PAD.decode(s).ok()?;
    bytes.try_into().ok()
}

/// The exact bytes that are signed: `SIGNING_CONTEXT + "\n" +` canonical JSON of the envelope
/// object without the `"signature"` member (`expectedRevision` included as `null` when absent).
pub fn signing_bytes(env: &Envelope) -> Result<Vec<u8>, EnvelopeError> {
    let mut v = serde_json::to_value(env).map_err(|_| EnvelopeError::Malformed)?;
    match v.as_object_mut() {
        Some(map) => map.remove("signature"),
        None => return Err(EnvelopeError::Malformed),
    };
    let body = canonical_json(&v).map_err(|_| EnvelopeError::BadField("payload"))?;
    let mut out = Vec::with_capacity(SIGNING_CONTEXT.len() + 1 + body.len());
    out.extend_from_slice(SIGNING_CONTEXT.as_bytes());
    out.push(b'\n');
    out.extend_from_slice(body.as_bytes());
    Ok(out)
}

/// `sha256_hex(canonical_json(payload))`.
pub fn payload_hash(payload: &Value) -> Result<String, EnvelopeError> {
    let c = canonical_json(payload).map_err(|_| EnvelopeError::BadField("payload"))?;
    Ok(sha256_hex(c.as_bytes()))
}

/// Public key as an EC P-256 JWK `{kty:"EC", crv:"P-256", x, y}` (base64url, no padding,
/// 32-byte coordinates). Extra JWK members (`ext`, `key_ops`, ...) are ignored when
/// deserializing and are not part of the fingerprint.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct PublicJwk {
    pub kty: String,
    pub crv: String,
    pub x: String,
    pub y: String,
}

impl PublicJwk {
    /// Checks `kty`/`crv`, strict 43-character base64url coordinates of 32 bytes each, and that
    /// the point is on the P-256 curve.
    pub fn validate(&self) -> Result<(), EnvelopeError> {
        self.verifying_key().map(|_| ())
    }

    /// RFC 7638 thumbprint: base64url-nopad(SHA-256 of `{"crv":..,"kty":..,"x":..,"y":..}`).
    pub fn fingerprint(&self) -> String {
        let mut s = String::from("{\"crv\":");
        write_string(&mut s, &self.crv);
        s.push_str(",\"kty\":");
        write_string(&mut s, &self.kty);
        s.push_str(",\"x\":");
        write_string(&mut s, &self.x);
        s.push_str(",\"y\":");
        write_string(&mut s, &self.y);
        s.push('}');
        use sha2::Digest as _;
        URL_SAFE_NO_PAD.encode(sha2::Sha256::digest(s.as_bytes()))
    }

    fn verifying_key(&self) -> Result<VerifyingKey, EnvelopeError> {
        if self.kty != "EC" || self.crv != "P-256" {
            return Err(EnvelopeError::BadKey);
        }
        let coord = |c: &str| -> Result<[u8; 32], EnvelopeError> {
            if c.len() != 43 {
                return Err(EnvelopeError::BadKey);
            }
            let b = URL_SAFE_NO_PAD.decode(c).map_err(|_| EnvelopeError::BadKey)?;
            b.try_into().map_err(|_| EnvelopeError::BadKey)
        };
        let mut sec1 = [0u8; 65];
        sec1[0] = 0x04;
        sec1[1..33].copy_from_slice(&coord(&self.x)?);
        sec1[33..].copy_from_slice(&coord(&self.y)?);
        VerifyingKey::from_sec1_bytes(&sec1).map_err(|_| EnvelopeError::BadKey)
    }

    fn from_verifying_key(vk: &VerifyingKey) -> Result<PublicJwk, EnvelopeError> {
        let point = vk.to_sec1_point(false);
        let bytes = point.as_bytes();
        if bytes.len() != 65 || bytes[0] != 0x04 {
            return Err(EnvelopeError::BadKey);
        }
        Ok(PublicJwk {
            kty: "EC".into(),
            crv: "P-256".into(),
            x: URL_SAFE_NO_PAD.encode(&bytes[1..33]),
            y: URL_SAFE_NO_PAD.encode(&bytes[33..]),
        })
    }
}

/// ECDSA P-256 / SHA-256 verification of `signature` over [`signing_bytes`]. The signature is
/// base64url-nopad of the 64-byte fixed `r || s` form; DER is rejected (wrong length). Both low
/// and high S are accepted, because WebCrypto and Node do not normalize S; the resulting
/// malleability is harmless because replay protection and idempotency key on the request id and
/// the signed bytes, never on the signature string (see `docs/signed-envelopes.md`).
pub fn verify_signature(env: &Envelope, key: &PublicJwk) -> Result<(), EnvelopeError> {
    let vk = key.verifying_key()?;
    let raw = decode_signature(&env.signature).ok_or(EnvelopeError::BadSignature)?;
    let sig = Signature::from_slice(&raw).map_err(|_| EnvelopeError::BadSignature)?;
    let msg = signing_bytes(env)?;
    vk.verify(&msg, &sig).map_err(|_| EnvelopeError::BadSignature)
}

/// For clients (the `relay device` CLI): sign with a P-256 secret key given as 32 raw scalar
/// bytes. Deterministic (RFC 6979), so it needs no RNG. Refuses to sign an envelope whose
/// `payload_hash` does not match its payload, since the server would reject it anyway.
pub fn sign_envelope(env: &mut Envelope, secret_scalar: &[u8; 32]) -> Result<(), EnvelopeError> {
    let sk = SigningKey::from_slice(secret_scalar).map_err(|_| EnvelopeError::BadKey)?;
    if payload_hash(&env.payload)? != env.payload_hash {
        return Err(EnvelopeError::PayloadHashMismatch);
    }
    let msg = signing_bytes(env)?;
    let sig: Signature = sk.try_sign(&msg).map_err(|_| EnvelopeError::BadKey)?;
    env.signature = URL_SAFE_NO_PAD.encode(sig.to_bytes());
    Ok(())
}

/// The public JWK for a 32-byte secret scalar (rejects zero and scalars `>= n`).
pub fn public_jwk_from_secret(secret_scalar: &[u8; 32]) -> Result<PublicJwk, EnvelopeError> {
    let sk = SigningKey::from_slice(secret_scalar).map_err(|_| EnvelopeError::BadKey)?;
    PublicJwk::from_verifying_key(sk.verifying_key())
}

/// A `serde_json::Value` deserializer that rejects duplicate object keys (serde_json's own
/// `Value` silently keeps the last one).
mod strict {
    use serde::de::{self, Deserializer, MapAccess, SeqAccess, Visitor};
    use serde_json::{Map, Number, Value};
    use std::fmt;

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Value, D::Error> {
        d.deserialize_any(StrictVisitor)
    }

    struct Strict(Value);

    impl<'de> de::Deserialize<'de> for Strict {
        fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            d.deserialize_any(StrictVisitor).map(Strict)
        }
    }

    struct StrictVisitor;

    impl<'de> Visitor<'de> for StrictVisitor {
        type Value = Value;

        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("a JSON value without duplicate object keys")
        }
        fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
            Ok(Value::Bool(v))
        }
        fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
            Ok(Value::Number(v.into()))
        }
        fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
            Ok(Value::Number(v.into()))
        }
        fn visit_f64<E>(self, v: f64) -> Result<Value, E> {
            // Kept so canonicalization reports the float as a bad payload field.
            Ok(Number::from_f64(v).map_or(Value::Null, Value::Number))
        }
        fn visit_str<E>(self, v: &str) -> Result<Value, E> {
            Ok(Value::String(v.to_string()))
        }
        fn visit_string<E>(self, v: String) -> Result<Value, E> {
            Ok(Value::String(v))
        }
        fn visit_unit<E>(self) -> Result<Value, E> {
            Ok(Value::Null)
        }
        fn visit_none<E>(self) -> Result<Value, E> {
            Ok(Value::Null)
        }
        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
            let mut out = Vec::new();
            while let Some(Strict(v)) = seq.next_element()? {
                out.push(v);
            }
            Ok(Value::Array(out))
        }
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
            let mut out = Map::new();
            while let Some(k) = map.next_key::<String>()? {
                let Strict(v) = map.next_value()?;
                if out.insert(k, v).is_some() {
                    return Err(de::Error::custom("duplicate key"));
                }
            }
            Ok(Value::Object(out))
        }
    }
}

#[cfg(test)]
#[path = "envelope_tests.rs"]
mod tests;
