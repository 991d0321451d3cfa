//! App-user auth tokens. Tokens are JWT-shaped (so the PocketBase SDK's client-side expiry
//! check works) and signed with HMAC-SHA-256 under a per-installation key kept in the secrets
//! folder. Each token carries an expiry and a credential generation derived from the current
//! passphrase, so changing the passphrase invalidates every outstanding token. Signatures are
//! compared in constant time; anything malformed is simply invalid.

use base64::engine::general_purpose::URL_SAFE_NO_PAD as B64;
use base64::Engine;
use hmac::{Hmac, KeyInit, Mac};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

pub const APP_USER_ID: &str = "relayappuser001";
pub const USERS_COLLECTION_ID: &str = "_pb_users_auth_";
const HEADER: &str = r#"{"alg":"HS256","typ":"JWT"}"#;
/// Tokens longer than this are rejected before any decoding work.
pub const MAX_TOKEN_LEN: usize = 2048;

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Claims {
    pub id: String,
    #[serde(rename = "type")]
    pub kind: String,
    #[serde(rename = "collectionId")]
    pub collection_id: String,
    /// Expiry, seconds since the epoch.
    pub exp: i64,
    /// Issued at, seconds since the epoch.
    pub iat: i64,
    pub refreshable: bool,
    /// Credential generation: tokens from an older passphrase never verify.
    pub cgen: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum TokenError {
    #[error("malformed token")]
    Malformed,
    #[error("bad signature")]
    BadSignature,
    #[error("token expired")]
    Expired,
    #[error("token from an older credential")]
    StaleCredential,
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// A short, non-reversible fingerprint of the passphrase used as the token generation.
pub fn credential_generation(passphrase: &str) -> String {
    let digest = Sha256::digest(format!("relay-credential-generation:{passphrase}").as_bytes());
    hex(&digest[..8])
}

pub struct TokenSigner {
    key: Vec<u8>,
}

impl std::fmt::Debug for TokenSigner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("TokenSigner([REDACTED])")
    }
}

impl TokenSigner {
    pub fn new(key: Vec<u8>) -> TokenSigner {
        TokenSigner { key }
    }

    fn mac(&self, signing_input: &str) -> Hmac<Sha256> {
        let mut mac = <Hmac<Sha256> as KeyInit>::new_from_slice(&self.key).expect("HMAC accepts any key length");
        mac.update(signing_input.as_bytes());
        mac
    }

    /// Issues a token for the app user that expires `ttl_secs` after `now_ms`.
    pub fn issue(&self, now_ms: i64, ttl_secs: i64, cgen: &str) -> String {
        let iat = now_ms / 1000;
        let claims = Claims {
            id: APP_USER_ID.into(),
            kind: "auth".into(),
            collection_id: USERS_COLLECTION_ID.into(),
            exp: iat + ttl_secs,
            iat,
            refreshable: true,
            cgen: cgen.into(),
        };
        let payload = serde_json::to_vec(&claims).unwrap_or_default();
        let input = format!("{}.{}", B64.encode(HEADER), B64.encode(payload));
        let sig = self.mac(&input).finalize().into_bytes();
        format!("{input}.{}", B64.encode(sig))
    }

    /// Verifies signature, expiry and credential generation.
    pub fn verify(&self, token: &str, now_ms: i64, cgen: &str) -> Result<Claims, TokenError> {
        if token.len() > MAX_TOKEN_LEN {
            return Err(TokenError::Malformed);
        }
        let mut parts = token.split('.');
        let (h, p, s) = match (parts.next(), parts.next(), parts.next(), parts.next()) {
            (Some(h), Some(p), Some(s), None) => (h, p, s),
            _ => return Err(TokenError::Malformed),
        };
        let sig = B64.decode(s).map_err(|_| TokenError::Malformed)?;
        self.mac(&format!("{h}.{p}")).verify_slice(&sig).map_err(|_| TokenError::BadSignature)?;
        if B64.decode(h).ok().as_deref() != Some(HEADER.as_bytes()) {
            return Err(TokenError::Malformed);
        }
        let claims: Claims = serde_json::from_slice(&B64.decode(p).map_err(|_| TokenError::Malformed)?)
            .map_err(|_| TokenError::Malformed)?;
        if claims.kind != "auth" || claims.id != APP_USER_ID {
            return Err(TokenError::Malformed);
        }
        if now_ms / 1000 >= claims.exp {
            return Err(TokenError::Expired);
        }
        if claims.cgen != cgen {
            return Err(TokenError::StaleCredential);
        }
        Ok(claims)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn issued_tokens_verify_until_expiry() {
        let signer = TokenSigner::new(vec![7; 32]);
        let g = credential_generation("passphrase-1");
        let t = signer.issue(1_000_000, 60, &g);
        assert_eq!(t.split('.').count(), 3);
        let c = signer.verify(&t, 1_000_000 + 59_999, &g).unwrap();
        assert_eq!((c.exp, c.id.as_str()), (1_060, APP_USER_ID));
        assert_eq!(signer.verify(&t, 1_060_000, &g), Err(TokenError::Expired));
    }

    #[test]
    fn tampering_other_keys_and_old_credentials_fail() {
        let signer = TokenSigner::new(vec![7; 32]);
        let g = credential_generation("passphrase-1");
        let t = signer.issue(0, 600, &g);
        assert_eq!(TokenSigner::new(vec![8; 32]).verify(&t, 0, &g), Err(TokenError::BadSignature));
        assert_eq!(signer.verify(&t, 0, &credential_generation("passphrase-2")), Err(TokenError::StaleCredential));
        let parts: Vec<&str> = t.split('.').collect();
        let forged = B64.encode(br#"{"id":"relayappuser001","type":"auth","collectionId":"x","exp":9999999999,"iat":0,"refreshable":true,"cgen":"00"}"#);
        assert_eq!(signer.verify(&format!("{}.{forged}.{}", parts[0], parts[2]), 0, &g), Err(TokenError::BadSignature));
        for bad in ["", "a.b", "a.b.c.d", "x.y.z", &"a".repeat(MAX_TOKEN_LEN + 1)] {
            assert!(signer.verify(bad, 0, &g).is_err(), "{bad}");
        }
        assert!(!format!("{signer:?}").contains('7'));
    }
}
