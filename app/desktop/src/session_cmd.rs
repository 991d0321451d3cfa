//! Sign-in for auxiliary windows (the on-call popout and friends). The main window, once signed
//! in, hands its app-user token to the shell (`share_session`, main window only; `null` on sign
//! out); an auxiliary window asks for it (`aux_session`, auxiliary windows only) together with
//! the server URL, so a popout opens signed in instead of asking for the passphrase again. The
//! token lives only in this process's memory, is shape-checked and bounded before it is kept,
//! and is never logged. The passphrase itself never reaches an auxiliary window. The paired
//! laptop (`laptop_cmd`) sends its requests with the same token, and a sign-out ends its session
//! and, on the server PC, every local Administration session (`admin_cmd`).

use std::sync::Mutex;

use serde::Serialize;

use crate::bridge::{Access, BridgeError, Command};

/// `share_session`: the main window hands over (or, with `null`, withdraws) its token.
pub const SHARE_SESSION: Command = Command::new("share_session", Access::MainOnly);
/// `aux_session`: an auxiliary window borrows the server URL and the main window's token.
pub const AUX_SESSION: Command = Command::new("aux_session", Access::AuxOnly);

/// Longest token accepted from the main window, in bytes.
pub const MAX_TOKEN_LEN: usize = 4096;

/// Managed state: the main window's current token, if it is signed in.
#[derive(Default)]
pub struct SharedSession(Mutex<Option<String>>);

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AuxSession {
    pub server_url: String,
    /// `None` while the main window is signed out: the popout then shows its own sign-in.
    pub token: Option<String>,
}

/// A bearer token as Relay issues it: three dot-separated base64url parts, bounded.
pub fn check_token(token: &str) -> Result<(), BridgeError> {
    let parts: Vec<&str> = token.split('.').collect();
    let shaped = token.len() <= MAX_TOKEN_LEN
        && parts.len() == 3
        && parts
            .iter()
            .all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_'));
    if shaped {
        Ok(())
    } else {
        Err(BridgeError::Invalid("not a Relay session token".into()))
    }
}

impl SharedSession {
    /// Keeps (or, with `None`, drops) the main window's token.
    pub fn share(&self, token: Option<String>) -> Result<(), BridgeError> {
        if let Some(t) = &token {
            check_token(t)?;
        }
        *self.0.lock().unwrap_or_else(|p| p.into_inner()) = token;
        Ok(())
    }

    /// The main window's token, for requests the shell makes on its behalf (the paired laptop's).
    pub fn token(&self) -> Option<String> {
        self.0.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }

    /// What an auxiliary window gets: the server URL and the main window's token, if any.
    pub fn for_aux(&self, server_url: &str) -> AuxSession {
        let token = self.0.lock().unwrap_or_else(|p| p.into_inner()).clone();
        AuxSession { server_url: server_url.to_string(), token }
    }
}

mod commands {
    use tauri::{State, Webview};

    use super::*;
    use crate::bridge::{caller, Bridge};

    #[tauri::command]
    pub async fn share_session<R: tauri::Runtime>(
        webview: Webview<R>,
        bridge: State<'_, Bridge>,
        shared: State<'_, SharedSession>,
        laptop: State<'_, std::sync::Arc<crate::laptop_cmd::LaptopState>>,
        admin: State<'_, crate::admin_cmd::AdminSession>,
        token: Option<String>,
    ) -> Result<(), BridgeError> {
        caller(SHARE_SESSION, &webview, &bridge)?;
        if token.is_none() {
            // Signing out of Relay (disconnecting) also ends the paired laptop's session and the
            // server PC's Administration sessions.
            laptop.end_session();
            crate::admin_cmd::end_on_relay_sign_out(&bridge, &admin).await;
        }
        shared.share(token)
    }

    #[tauri::command]
    pub async fn aux_session<R: tauri::Runtime>(
        webview: Webview<R>,
        bridge: State<'_, Bridge>,
        shared: State<'_, SharedSession>,
    ) -> Result<AuxSession, BridgeError> {
        caller(AUX_SESSION, &webview, &bridge)?;
        Ok(shared.for_aux(&bridge.connection_info().server_url))
    }
}

pub use commands::*;

#[cfg(test)]
mod tests {
    use super::*;

    const TOKEN: &str = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJyZWxheSJ9.c2lnbmF0dXJlLWJ5dGVz";

    #[test]
    fn aux_windows_get_the_main_token_only_while_it_is_signed_in() {
        let shared = SharedSession::default();
        assert_eq!(shared.for_aux("http://127.0.0.1:8090").token, None);
        shared.share(Some(TOKEN.into())).unwrap();
        assert_eq!(
            shared.for_aux("http://127.0.0.1:8090"),
            AuxSession { server_url: "http://127.0.0.1:8090".into(), token: Some(TOKEN.into()) }
        );
        shared.share(None).unwrap();
        assert_eq!(shared.for_aux("http://127.0.0.1:8090").token, None, "sign-out drops it");
    }

    #[test]
    fn only_token_shaped_values_are_kept() {
        let shared = SharedSession::default();
        shared.share(Some(TOKEN.into())).unwrap();
        for bad in [
            "",
            "abc",
            "a.b",
            "a.b.c.d",
            "a..c",
            "a.b c.d",
            "correct horse battery staple",
            &format!("a.{}.c", "b".repeat(MAX_TOKEN_LEN)),
        ] {
            assert!(matches!(shared.share(Some(bad.to_string())), Err(BridgeError::Invalid(_))), "{bad:?}");
        }
        assert_eq!(shared.for_aux("x").token.as_deref(), Some(TOKEN), "a refused value leaves the kept token alone");
    }

    #[test]
    fn aux_session_serializes_camel_case() {
        let v =
            serde_json::to_value(AuxSession { server_url: "http://h:1".into(), token: Some(TOKEN.into()) }).unwrap();
        assert_eq!(v, serde_json::json!({"serverUrl": "http://h:1", "token": TOKEN}));
    }
}
