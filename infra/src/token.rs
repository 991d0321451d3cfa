//! App-user auth tokens. Tokens are JWT-shaped (so the PocketBase SDK's client-side expiry
//! check works) and signed with HMAC-SHA-256 under a per-installation key kept in the secrets
//! folder. Each token carries an expiry and a credential generation derived from the current
//! passphrase, so changing the passphrase invalidates every outstanding token. A token issued
//! to a Relay Web browser also carries its web session's binding (`webSession`, a random value
//! that is neither the cookie nor the logical id): such a token verifies only where that binding
//! is expected (the gateway, beside that session's cookie), never where none is (the data API).
//! A token from a password sign-in carries that sign-in's id (`signIn`, random), and every
//! refresh of it carries the same id: the sign-in id and the web-session binding are the
//! token's logical session (`Claims::logical_session`), which per-session limits and presence
//! key on, so minting a new token never starts a new session (only signing in again does).
//! Signatures are compared in constant time; anything malformed is simply invalid.

use base64::engine::general_purpose::URL_SAFE_NO_PAD as B64;
use base64::Engine;
use hmac::{Hmac, KeyInit, Mac};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

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
    /// The Relay Web session this token is bound to; absent on data-API tokens.
    #[serde(default, rename = "webSession", skip_serializing_if = "Option::is_none")]
    pub web_session: Option<String>,
    /// The password sign-in this token descends from (random per sign-in, kept by refresh);
    /// absent on web-session tokens, whose binding identifies their session.
    #[serde(default, rename = "signIn", skip_serializing_if = "Option::is_none")]
    pub sign_in: Option<String>,
}

/// Which logical session a token belongs to, as an opaque digest (never the binding or
/// sign-in id itself): a Relay Web session (every token `/web/api/connection` hands out beside
/// it) or a password sign-in (every token refreshed from it). Limits and presence key on it.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct LogicalSession(String);

impl LogicalSession {
    fn digest(kind: &str, value: &str) -> LogicalSession {
        let digest = Sha256::digest(format!("relay-logical-session:{kind}:{value}").as_bytes());
        LogicalSession(hex(&digest[..16]))
    }

    /// The session of every token bound to this Relay Web session binding.
    pub fn of_web_session(binding: &str) -> LogicalSession {
        LogicalSession::digest("web", binding)
    }

    /// The session of every token descending from this password sign-in.
    pub fn of_sign_in(sign_in: &str) -> LogicalSession {
        LogicalSession::digest("sign-in", sign_in)
    }

    /// A token issued before tokens carried their sign-in: it is its own session.
    pub fn of_token(token: &str) -> LogicalSession {
        LogicalSession::digest("token", token)
    }

    /// The digest as text (32 hex digits).
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Display for LogicalSession {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl Claims {
    /// The token's logical session: its web session, else its sign-in; `None` for a token
    /// issued before tokens carried a sign-in (the caller then uses [`LogicalSession::of_token`]).
    pub fn logical_session(&self) -> Option<LogicalSession> {
        match (self.web_session.as_deref(), self.sign_in.as_deref()) {
            (Some(binding), _) => Some(LogicalSession::of_web_session(binding)),
            (None, Some(sign_in)) => Some(LogicalSession::of_sign_in(sign_in)),
            (None, None) => None,
        }
    }
}

/// What a token is issued for: a password sign-in (the data API; refreshes keep its id) or a
/// Relay Web session (its binding; valid only beside that session's cookie).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TokenLineage<'a> {
    SignIn(&'a str),
    WebSession(&'a str),
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
    /// A web-session token on the data API, a data-API token on the gateway, or a token of
    /// another web session.
    #[error("token not valid here")]
    WrongSurface,
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

    /// Issues a token for the app user that expires `ttl_secs` after `now_ms`, carrying its
    /// sign-in id or bound to a Relay Web session (`lineage`).
    pub fn issue(&self, now_ms: i64, ttl_secs: i64, cgen: &str, lineage: TokenLineage<'_>) -> String {
        let (web_session, sign_in) = match lineage {
            TokenLineage::SignIn(id) => (None, Some(id.to_string())),
            TokenLineage::WebSession(binding) => (Some(binding.to_string()), None),
        };
        let iat = now_ms / 1000;
        let claims = Claims {
            id: APP_USER_ID.into(),
            kind: "auth".into(),
            collection_id: USERS_COLLECTION_ID.into(),
            exp: iat + ttl_secs,
            iat,
            refreshable: true,
            cgen: cgen.into(),
            web_session,
            sign_in,
        };
        let payload = serde_json::to_vec(&claims).unwrap_or_default();
        let input = format!("{}.{}", B64.encode(HEADER), B64.encode(payload));
        let sig = self.mac(&input).finalize().into_bytes();
        format!("{input}.{}", B64.encode(sig))
    }

    /// Verifies signature, expiry, credential generation and the surface: `web_session` is the
    /// binding the caller expects (`None` on the data API), and the token's must equal it.
    pub fn verify(
        &self,
        token: &str,
        now_ms: i64,
        cgen: &str,
        web_session: Option<&str>,
    ) -> Result<Claims, TokenError> {
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
        let same_surface = match (claims.web_session.as_deref(), web_session) {
            (None, None) => true,
            (Some(bound), Some(expected)) => bool::from(bound.as_bytes().ct_eq(expected.as_bytes())),
            _ => false,
        };
        if !same_surface {
            return Err(TokenError::WrongSurface);
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
        let t = signer.issue(1_000_000, 60, &g, TokenLineage::SignIn("sign-in-1"));
        assert_eq!(t.split('.').count(), 3);
        let c = signer.verify(&t, 1_000_000 + 59_999, &g, None).unwrap();
        assert_eq!((c.exp, c.id.as_str()), (1_060, APP_USER_ID));
        assert_eq!(signer.verify(&t, 1_060_000, &g, None), Err(TokenError::Expired));
    }

    #[test]
    fn tampering_other_keys_and_old_credentials_fail() {
        let signer = TokenSigner::new(vec![7; 32]);
        let g = credential_generation("passphrase-1");
        let t = signer.issue(0, 600, &g, TokenLineage::SignIn("sign-in-1"));
        assert_eq!(TokenSigner::new(vec![8; 32]).verify(&t, 0, &g, None), Err(TokenError::BadSignature));
        assert_eq!(
            signer.verify(&t, 0, &credential_generation("passphrase-2"), None),
            Err(TokenError::StaleCredential)
        );
        let parts: Vec<&str> = t.split('.').collect();
        let forged = B64.encode(br#"{"id":"relayappuser001","type":"auth","collectionId":"x","exp":9999999999,"iat":0,"refreshable":true,"cgen":"00"}"#);
        assert_eq!(
            signer.verify(&format!("{}.{forged}.{}", parts[0], parts[2]), 0, &g, None),
            Err(TokenError::BadSignature)
        );
        for bad in ["", "a.b", "a.b.c.d", "x.y.z", &"a".repeat(MAX_TOKEN_LEN + 1)] {
            assert!(signer.verify(bad, 0, &g, None).is_err(), "{bad}");
        }
        assert!(!format!("{signer:?}").contains('7'));
    }

    #[test]
    fn web_session_tokens_verify_only_beside_their_own_binding() {
        let signer = TokenSigner::new(vec![7; 32]);
        let g = credential_generation("passphrase-1");
        let web = signer.issue(0, 600, &g, TokenLineage::WebSession("binding-a"));
        let data_api = signer.issue(0, 600, &g, TokenLineage::SignIn("sign-in-1"));
        assert_eq!(signer.verify(&web, 0, &g, Some("binding-a")).unwrap().web_session.as_deref(), Some("binding-a"));
        assert_eq!(signer.verify(&web, 0, &g, None), Err(TokenError::WrongSurface), "web token on the data API");
        assert_eq!(signer.verify(&web, 0, &g, Some("binding-b")), Err(TokenError::WrongSurface), "another session");
        assert_eq!(
            signer.verify(&data_api, 0, &g, Some("binding-a")),
            Err(TokenError::WrongSurface),
            "data-API token on the gateway"
        );
        assert!(signer.verify(&data_api, 0, &g, None).unwrap().web_session.is_none());
        assert!(!data_api
            .split('.')
            .nth(1)
            .map(|p| String::from_utf8(B64.decode(p).unwrap()).unwrap())
            .unwrap()
            .contains("webSession"));
    }

    #[test]
    fn the_logical_session_survives_new_tokens_but_not_a_new_sign_in() {
        let signer = TokenSigner::new(vec![7; 32]);
        let g = credential_generation("passphrase-1");
        let session_of = |lineage, now_ms| {
            let token = signer.issue(now_ms, 600, &g, lineage);
            let binding = match lineage {
                TokenLineage::WebSession(binding) => Some(binding),
                TokenLineage::SignIn(_) => None,
            };
            signer.verify(&token, now_ms, &g, binding).unwrap().logical_session().unwrap()
        };
        let first = session_of(TokenLineage::SignIn("sign-in-1"), 0);
        assert_eq!(session_of(TokenLineage::SignIn("sign-in-1"), 5_000), first, "a refreshed token");
        assert_ne!(session_of(TokenLineage::SignIn("sign-in-2"), 5_000), first, "a new sign-in");
        let web = session_of(TokenLineage::WebSession("binding-a"), 0);
        assert_eq!(session_of(TokenLineage::WebSession("binding-a"), 9_000), web, "a new connection token");
        assert_ne!(session_of(TokenLineage::WebSession("binding-b"), 0), web, "another web session");
        assert_ne!(LogicalSession::of_web_session("x"), LogicalSession::of_sign_in("x"), "kinds never collide");
        assert_eq!(first.as_str().len(), 32);
        assert!(!first.as_str().contains("sign-in-1") && !web.to_string().contains("binding-a"), "digests only");
        let legacy: Claims = serde_json::from_value(serde_json::json!({"id": APP_USER_ID, "type": "auth",
            "collectionId": USERS_COLLECTION_ID, "exp": 1, "iat": 0, "refreshable": true, "cgen": "00"}))
        .unwrap();
        assert_eq!(legacy.logical_session(), None, "older tokens fall back to their own digest");
    }
}
