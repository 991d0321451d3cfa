//! Device pairing. A server-local Owner or Administrator creates an account-bound challenge: an
//! 8-character human code (about 40 bits) whose verifier is an HMAC under a per-challenge
//! 256-bit secret. It expires after 10 minutes, can be redeemed once, and locks after five
//! wrong codes. Redeeming registers only the device's public key and presentation metadata.

use diesel::sqlite::SqliteConnection;
use hmac::{Hmac, KeyInit, Mac};
use sha2::Sha256;
use subtle::ConstantTimeEq;

use domain::envelope::PublicJwk;
use infra::privileged::{self as store, ChallengeRow, DeviceRow};

use super::error::PrivError;

pub const PAIRING_TTL_MS: i64 = 10 * 60_000;
pub const MAX_PAIRING_FAILURES: i64 = 5;
pub const CODE_LEN: usize = 8;
const CODE_ALPHABET: &[u8] = b"ABCDEFGHJKMNPQRSTUVWXYZ23456789";
const MAX_LABEL_LEN: usize = 100;

#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PairingTicket {
    pub challenge_id: String,
    /// Shown to the operator as `XXXX-XXXX`; never stored.
    pub code: String,
    pub expires_ms: i64,
}

#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PairedDevice {
    pub device_id: String,
    pub account_id: String,
    pub fingerprint: String,
    /// The account's effective role now (the device's signed requests must claim it).
    pub role: Option<String>,
}

fn mac(secret: &[u8], code: &str) -> Vec<u8> {
    let mut m = <Hmac<Sha256> as KeyInit>::new_from_slice(secret).expect("any key length");
    m.update(code.as_bytes());
    m.finalize().into_bytes().to_vec()
}

/// Uppercases and removes separators so `abcd-efgh` and `ABCDEFGH` are the same code.
pub fn normalize_code(raw: &str) -> Option<String> {
    let code: String = raw.chars().filter(|c| !matches!(c, '-' | ' ')).map(|c| c.to_ascii_uppercase()).collect();
    (code.len() == CODE_LEN && code.bytes().all(|b| CODE_ALPHABET.contains(&b))).then_some(code)
}

fn clean_text(raw: &str, fallback: &str) -> Result<String, PrivError> {
    let text = raw.trim();
    if text.chars().count() > MAX_LABEL_LEN || text.chars().any(char::is_control) {
        return Err(PrivError::Invalid("label and hostname must be short plain text".into()));
    }
    Ok(if text.is_empty() { fallback.to_string() } else { text.to_string() })
}

pub fn create_challenge(
    conn: &mut SqliteConnection,
    account_id: &str,
    label: &str,
    now_ms: i64,
) -> Result<PairingTicket, PrivError> {
    let label = clean_text(label, "Paired device")?;
    let random = infra::ids::random_bytes(CODE_LEN);
    let code: String = random.iter().map(|b| CODE_ALPHABET[*b as usize % CODE_ALPHABET.len()] as char).collect();
    let secret = infra::ids::random_bytes(32);
    let row = ChallengeRow {
        id: infra::ids::record_id(),
        account_id: account_id.to_string(),
        code_mac: mac(&secret, &code),
        secret,
        label,
        expires_ms: now_ms + PAIRING_TTL_MS,
        failures: 0,
        state: "pending".into(),
        created_ms: now_ms,
    };
    store::insert_challenge(conn, &row)?;
    Ok(PairingTicket {
        challenge_id: row.id,
        code: format!("{}-{}", &code[..4], &code[4..]),
        expires_ms: row.expires_ms,
    })
}

/// Redeems a code for `account_id`. A wrong code counts against the newest pending challenge
/// (committed even though the call fails), so guessing locks the challenge.
pub fn redeem(
    conn: &mut SqliteConnection,
    account_id: &str,
    code: &str,
    jwk: &PublicJwk,
    label: &str,
    hostname: &str,
    now_ms: i64,
) -> Result<PairedDevice, PrivError> {
    let hostname = clean_text(hostname, "unknown-host")?;
    let attempt = conn.immediate_transaction(|c| {
        let pending = store::pending_challenges(c, account_id, now_ms)?;
        let Some(code) = normalize_code(code) else {
            if let Some(newest) = pending.first() {
                store::record_challenge_failure(c, &newest.id, MAX_PAIRING_FAILURES)?;
            }
            return Ok(Err(PrivError::PairingInvalid));
        };
        let matched = pending.iter().find(|ch| bool::from(mac(&ch.secret, &code).ct_eq(&ch.code_mac)));
        let Some(challenge) = matched else {
            if let Some(newest) = pending.first() {
                store::record_challenge_failure(c, &newest.id, MAX_PAIRING_FAILURES)?;
            }
            return Ok(Err(PrivError::PairingInvalid));
        };
        if store::mark_challenge_used(c, &challenge.id)? != 1 {
            return Ok(Err(PrivError::PairingInvalid));
        }
        let label = if label.trim().is_empty() { challenge.label.clone() } else { clean_text(label, "Paired device")? };
        let device = DeviceRow {
            id: infra::ids::record_id(),
            account_id: account_id.to_string(),
            label,
            hostname: hostname.clone(),
            public_jwk: serde_json::to_string(jwk).map_err(|_| PrivError::Internal)?,
            fingerprint: jwk.fingerprint(),
            state: "active".into(),
            revision: 1,
            created_ms: now_ms,
            updated_ms: now_ms,
        };
        match store::insert_device(c, &device) {
            Ok(()) => {}
            Err(diesel::result::Error::DatabaseError(diesel::result::DatabaseErrorKind::UniqueViolation, _)) => {
                return Err(PrivError::Invalid("this key is already paired".into()));
            }
            Err(e) => return Err(e.into()),
        }
        Ok(Ok(PairedDevice {
            device_id: device.id,
            account_id: device.account_id,
            fingerprint: device.fingerprint,
            role: None,
        }))
    })?;
    attempt
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_normalize_and_reject_foreign_characters() {
        assert_eq!(normalize_code("abcd-efgh").as_deref(), Some("ABCDEFGH"));
        assert_eq!(normalize_code(" ABCD EFGH ").as_deref(), Some("ABCDEFGH"));
        for bad in ["ABCD-EFG", "ABCD-EFGHJ", "ABCD-EFG0", "ABCD-EFGI", "ABCD_EFGH", ""] {
            assert!(normalize_code(bad).is_none(), "{bad}");
        }
    }

    #[test]
    fn mac_depends_on_secret_and_code() {
        assert_ne!(mac(b"one", "ABCDEFGH"), mac(b"two", "ABCDEFGH"));
        assert_ne!(mac(b"one", "ABCDEFGH"), mac(b"one", "ABCDEFGJ"));
        assert_eq!(mac(b"one", "ABCDEFGH").len(), 32);
    }
}
