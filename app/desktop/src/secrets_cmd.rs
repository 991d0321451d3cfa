//! The bridge commands around the connection passphrase: `connection_info` (mode, server origin,
//! whether a passphrase is available and where remembered secrets go), `reveal_passphrase`
//! (server mode only: the data directory's passphrase), `sign_in` (client mode: through the
//! shared `AuthCoordinator`, with a typed passphrase or, when none is given, the one remembered
//! for this server, which therefore never enters the renderer), `remember_passphrase` and
//! `forget_passphrase` (client mode only). Remembered passphrases live in `infra::secret_store`
//! (the OS secret store; a development build may fall back to an owner-only file; a packaged
//! build refuses plaintext), one entry per server origin. All are main-window-only, and a
//! passphrase is validated before it is stored or sent.

use domain::secret_policy::{passphrase_entry, SecretStorage};
use infra::secret_store::{SecretStore, SecretStoreError};
use serde::Serialize;

use crate::bridge::{check_passphrase_payload, Access, BridgeError, Command, ConnectionInfo, SignedIn};

/// `connection_info`: mode, server origin, passphrase availability and secret storage.
pub const CONNECTION_INFO: Command = Command::new("connection_info", Access::MainOnly);
/// `reveal_passphrase`: server mode only, the data directory's passphrase.
pub const REVEAL_PASSPHRASE: Command = Command::new("reveal_passphrase", Access::MainOnly);
/// `remember_passphrase`: client mode only, into the secret store.
pub const REMEMBER_PASSPHRASE: Command = Command::new("remember_passphrase", Access::MainOnly);
/// `forget_passphrase`: client mode only.
pub const FORGET_PASSPHRASE: Command = Command::new("forget_passphrase", Access::MainOnly);
/// `sign_in`: client mode only, through the `AuthCoordinator`.
pub const SIGN_IN: Command = Command::new("sign_in", Access::MainOnly);

/// Managed state: the store chosen at start and, in client mode, the server's entry name.
pub struct Secrets {
    store: SecretStore,
    /// `Some` in client mode: where this server's remembered passphrase lives.
    client_entry: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DesktopConnectionInfo {
    #[serde(flatten)]
    pub base: ConnectionInfo,
    /// Where `remember_passphrase` keeps secrets on this machine.
    pub secret_storage: SecretStorage,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Remembered {
    pub storage: SecretStorage,
}

fn store_error(e: SecretStoreError) -> BridgeError {
    tracing::warn!(target: "relay::security", error = %e, "remembered passphrase operation failed");
    match e {
        SecretStoreError::Invalid => BridgeError::Invalid("invalid passphrase".into()),
        other => BridgeError::Unavailable(other.to_string()),
    }
}

impl Secrets {
    /// `client_origin` is the validated server origin in client mode, `None` in server mode.
    pub fn new(store: SecretStore, client_origin: Option<&str>) -> Result<Secrets, String> {
        let client_entry = client_origin.map(passphrase_entry).transpose().map_err(|e| e.to_string())?;
        Ok(Secrets { store, client_entry })
    }

    fn entry(&self) -> Result<&str, BridgeError> {
        self.client_entry
            .as_deref()
            .ok_or_else(|| BridgeError::Unavailable("remembering a passphrase is for client mode".into()))
    }

    /// The remembered passphrase for this client's server, if any. A stored value that no longer
    /// passes the passphrase rules is treated as absent.
    fn remembered(&self) -> Result<Option<String>, BridgeError> {
        let Some(entry) = self.client_entry.as_deref() else { return Ok(None) };
        let value = self.store.get(entry).map_err(store_error)?;
        Ok(value.filter(|p| check_passphrase_payload(p).is_ok()))
    }

    pub fn is_client(&self) -> bool {
        self.client_entry.is_some()
    }

    /// `base` with what the secret store adds: in client mode a passphrase is available when one
    /// is remembered for this server.
    pub fn connection_info(&self, mut base: ConnectionInfo) -> DesktopConnectionInfo {
        if self.is_client() {
            base.passphrase_available = matches!(self.remembered(), Ok(Some(_)));
        }
        DesktopConnectionInfo { base, secret_storage: self.store.storage() }
    }

    /// Client mode: the passphrase `sign_in` uses: the typed one (validated), else the one
    /// remembered for this server.
    pub fn passphrase_for_sign_in(&self, typed: Option<String>) -> Result<String, BridgeError> {
        if let Some(p) = typed {
            check_passphrase_payload(&p)?;
            return Ok(p);
        }
        if !self.is_client() {
            return Err(BridgeError::Unavailable("sign_in is for client mode".into()));
        }
        self.remembered()?.ok_or_else(|| BridgeError::Unavailable("no passphrase is remembered".into()))
    }

    pub fn remember(&self, passphrase: &str) -> Result<Remembered, BridgeError> {
        let entry = self.entry()?;
        check_passphrase_payload(passphrase)?;
        let storage = self.store.set(entry, passphrase).map_err(store_error)?;
        tracing::info!(target: "relay::security", storage = ?storage, "connection passphrase remembered");
        Ok(Remembered { storage })
    }

    pub fn forget(&self) -> Result<(), BridgeError> {
        let entry = self.entry()?;
        self.store.delete(entry).map_err(store_error)?;
        tracing::info!(target: "relay::security", "remembered connection passphrase forgotten");
        Ok(())
    }
}

mod commands {
    use tauri::{State, Webview};

    use super::*;
    use crate::bridge::{caller, Bridge};

    /// Secret-store calls block (D-Bus): keep them off the async workers.
    async fn blocking<T: Send + 'static>(
        f: impl FnOnce() -> Result<T, BridgeError> + Send + 'static,
    ) -> Result<T, BridgeError> {
        tauri::async_runtime::spawn_blocking(f)
            .await
            .unwrap_or_else(|_| Err(BridgeError::Unavailable("secret store task failed".into())))
    }

    #[tauri::command]
    pub async fn connection_info<R: tauri::Runtime>(
        webview: Webview<R>,
        bridge: State<'_, Bridge>,
        secrets: State<'_, std::sync::Arc<Secrets>>,
    ) -> Result<DesktopConnectionInfo, BridgeError> {
        caller(CONNECTION_INFO, &webview, &bridge)?;
        let (secrets, base) = (secrets.inner().clone(), bridge.connection_info());
        blocking(move || Ok(secrets.connection_info(base))).await
    }

    #[tauri::command]
    pub async fn reveal_passphrase<R: tauri::Runtime>(
        webview: Webview<R>,
        bridge: State<'_, Bridge>,
        secrets: State<'_, std::sync::Arc<Secrets>>,
    ) -> Result<String, BridgeError> {
        caller(REVEAL_PASSPHRASE, &webview, &bridge)?;
        if secrets.is_client() {
            // A remembered passphrase stays in the shell: `sign_in` without one uses it.
            return Err(BridgeError::Unavailable(
                "client mode signs in with the remembered passphrase via sign_in".into(),
            ));
        }
        tracing::info!(target: "relay::security", "passphrase revealed to the main window");
        bridge.passphrase()
    }

    /// Client mode: signs in through the `AuthCoordinator` with `passphrase`, or with the
    /// remembered one when `passphrase` is null; returns the app-user token.
    #[tauri::command]
    pub async fn sign_in<R: tauri::Runtime>(
        webview: Webview<R>,
        bridge: State<'_, Bridge>,
        secrets: State<'_, std::sync::Arc<Secrets>>,
        passphrase: Option<String>,
    ) -> Result<SignedIn, BridgeError> {
        caller(SIGN_IN, &webview, &bridge)?;
        let secrets = secrets.inner().clone();
        let passphrase = blocking(move || secrets.passphrase_for_sign_in(passphrase)).await?;
        bridge.sign_in(&passphrase).await
    }

    #[tauri::command]
    pub async fn remember_passphrase<R: tauri::Runtime>(
        webview: Webview<R>,
        bridge: State<'_, Bridge>,
        secrets: State<'_, std::sync::Arc<Secrets>>,
        passphrase: String,
    ) -> Result<Remembered, BridgeError> {
        caller(REMEMBER_PASSPHRASE, &webview, &bridge)?;
        let secrets = secrets.inner().clone();
        blocking(move || secrets.remember(&passphrase)).await
    }

    #[tauri::command]
    pub async fn forget_passphrase<R: tauri::Runtime>(
        webview: Webview<R>,
        bridge: State<'_, Bridge>,
        secrets: State<'_, std::sync::Arc<Secrets>>,
    ) -> Result<(), BridgeError> {
        caller(FORGET_PASSPHRASE, &webview, &bridge)?;
        let secrets = secrets.inner().clone();
        blocking(move || secrets.forget()).await
    }
}

pub use commands::*;

#[cfg(test)]
mod tests;
