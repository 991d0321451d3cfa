//! The paired laptop (desktop client mode, main window only): pairing this PC as a protected
//! device of its Relay server, the protected session opened with the account password, and the
//! allowlisted privileged commands it signs and sends. The P-256 key is generated here and its
//! secret half lives only in the OS secret store (no plaintext fallback: a missing or damaged
//! key means pairing again); the non-secret binding sits in an owner-only file (`state`). The
//! protocol itself is `infra::device_client`, shared with `relay device`. The renderer learns
//! the pairing state, who is signed in and when the session idle-locks; the password passes
//! through once, and the key, proofs and tokens never leave this process or reach the logs.
//! Server refusals map to `BridgeError`s like the server PC's Administration (`admin_cmd`).
//! Wiki uploads from the laptop (`laptop_wiki_upload`) are in `wiki`.

mod state;
pub mod wiki;

use std::sync::Arc;
use std::time::Duration;

use domain::privileged_command::PrivilegedCommand;
use infra::device_client::{self, DeviceClient, DeviceClientError, Signer};
use serde_json::Value;

use state::{Binding, KeyProblem};
pub use state::{LaptopState, LaptopStatus, OsKeys};

use crate::bridge::{Access, BridgeError, Command};

pub const LAPTOP_STATUS: Command = Command::new("laptop_status", Access::MainOnly);
pub const LAPTOP_PAIR: Command = Command::new("laptop_pair", Access::MainOnly);
pub const LAPTOP_SIGN_IN: Command = Command::new("laptop_sign_in", Access::MainOnly);
pub const LAPTOP_CONFIRM_PASSWORD: Command = Command::new("laptop_confirm_password", Access::MainOnly);
pub const LAPTOP_LOCK: Command = Command::new("laptop_lock", Access::MainOnly);
pub const LAPTOP_COMMAND: Command = Command::new("laptop_command", Access::MainOnly);
pub const LAPTOP_FORGET: Command = Command::new("laptop_forget", Access::MainOnly);

const MAX_USERNAME: usize = 64;
const MAX_PASSWORD: usize = 1024;
const MAX_CODE: usize = 64;
const MAX_LABEL: usize = 100;
/// Deadline of one request to the server.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(15);

const SERVER_PC: &str = "protected sign-in on the server PC is in Settings → Administration";
const NO_STORE: &str = "this PC's secret store is not available, so it cannot keep a signing key";
const SIGN_IN_FIRST: &str = "sign in to Relay first";
const NOT_PAIRED: &str = "This laptop is not paired. Pair it first.";
const REVOKED: &str = "This laptop's pairing was revoked. Pair it again.";
const KEY_GONE: &str = "This laptop's signing key is missing from the secret store. Pair it again.";
const LOCKED: &str = "The protected session locked. Sign in again.";
const CONFIRM: &str = "Confirm your password to continue.";
const ROLE_CHANGED: &str = "This account's role changed. Pair this laptop again.";
const ACCOUNT_UNAVAILABLE: &str = "This account is not active any more. The protected session ended.";

/// What a refusal does to the laptop's state besides the error.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum After {
    Nothing,
    EndSession,
    Revoke,
}

/// A `DeviceClientError` as the renderer sees it, and what it does to the state.
fn refusal(e: &DeviceClientError) -> (BridgeError, After) {
    let DeviceClientError::Refused { status, code, message, retry_after_secs } = e else {
        return (BridgeError::Unavailable(e.to_string()), After::Nothing);
    };
    let answer = match code.as_str() {
        "invalid_credentials" => {
            (BridgeError::Rejected("Wrong password, or the account is not active.".into()), After::Nothing)
        }
        "device_unavailable" => (BridgeError::Locked(REVOKED.into()), After::Revoke),
        "reauth_required" => (BridgeError::PasswordRequired(CONFIRM.into()), After::Nothing),
        "role_changed" => (BridgeError::Locked(ROLE_CHANGED.into()), After::EndSession),
        "account_unavailable" => (BridgeError::Locked(ACCOUNT_UNAVAILABLE.into()), After::EndSession),
        "stale_revision" => {
            (BridgeError::Rejected("The record changed meanwhile; reload and retry.".into()), After::Nothing)
        }
        "pairing_invalid" => {
            (BridgeError::Rejected("The pairing code is wrong or expired. Ask for a new one.".into()), After::Nothing)
        }
        "forbidden" => (BridgeError::Rejected(message.clone()), After::Nothing),
        "invalid_input" | "invalid_envelope" => (BridgeError::Invalid(message.clone()), After::Nothing),
        "bad_signature" => (BridgeError::Locked(KEY_GONE.into()), After::EndSession),
        _ if *status == 429 || code == "rate_limited" => {
            (BridgeError::RateLimited(retry_after_secs.unwrap_or(60)), After::Nothing)
        }
        // The app-user token expired or was withdrawn.
        "" if *status == 401 => (BridgeError::Locked(SIGN_IN_FIRST.into()), After::Nothing),
        _ if *status >= 500 => (BridgeError::Unavailable(message.clone()), After::Nothing),
        _ => (BridgeError::Rejected(message.clone()), After::Nothing),
    };
    tracing::info!(target: "relay::laptop", status, code = %code, "the server refused a protected request");
    answer
}

/// Applies a refusal's consequence and answers its error.
fn settle(state: &LaptopState, e: DeviceClientError) -> BridgeError {
    let (error, after) = refusal(&e);
    match after {
        After::Nothing => {}
        After::EndSession => state.end_session(),
        After::Revoke => state.mark_revoked(),
    }
    error
}

fn check_password(password: &str) -> Result<(), BridgeError> {
    if password.is_empty() || password.len() > MAX_PASSWORD {
        return Err(BridgeError::Invalid("enter your password".into()));
    }
    Ok(())
}

fn origin(state: &LaptopState) -> Result<&str, BridgeError> {
    state.origin.as_deref().ok_or_else(|| BridgeError::Unavailable(SERVER_PC.into()))
}

fn client(origin: &str) -> Result<DeviceClient, BridgeError> {
    DeviceClient::new(origin, REQUEST_TIMEOUT).map_err(|e| BridgeError::Unavailable(e.to_string()))
}

fn token_of(token: Option<String>) -> Result<String, BridgeError> {
    token.ok_or_else(|| BridgeError::Locked(SIGN_IN_FIRST.into()))
}

/// The usable binding: present and not revoked.
fn paired(state: &LaptopState) -> Result<Binding, BridgeError> {
    match state.binding() {
        None => Err(BridgeError::Locked(NOT_PAIRED.into())),
        Some(b) if b.revoked => Err(BridgeError::Locked(REVOKED.into())),
        Some(b) => Ok(b),
    }
}

/// The binding's key; a missing or damaged key forgets the binding (pair again).
fn key_of(state: &LaptopState, binding: &Binding) -> Result<[u8; 32], BridgeError> {
    match state.load_key(binding) {
        Ok(secret) => Ok(secret),
        Err(KeyProblem::StoreUnavailable) => Err(BridgeError::Unavailable(NO_STORE.into())),
        Err(KeyProblem::Gone) => {
            state.end_session();
            let _ = state.remove_binding();
            tracing::warn!(target: "relay::laptop", "the device key is missing or damaged; the pairing is forgotten");
            Err(BridgeError::Locked(KEY_GONE.into()))
        }
    }
}

pub fn status(state: &LaptopState) -> LaptopStatus {
    state.status(|| state.keys().available())
}

/// Runs `f` (secret-store and file work, which may wait on the OS store) off the async workers.
async fn off_thread<T: Send + 'static>(
    state: &Arc<LaptopState>,
    f: impl FnOnce(&LaptopState) -> T + Send + 'static,
) -> Result<T, BridgeError> {
    let state = state.clone();
    tokio::task::spawn_blocking(move || f(&state))
        .await
        .map_err(|_| BridgeError::Unavailable("the laptop's key store check failed".into()))
}

/// Keeps a new pairing: the key in the OS store, then the binding file (the key is removed
/// again when the file cannot be written); a binding for another server goes with its key.
fn keep_pairing(state: &LaptopState, binding: Binding, secret: [u8; 32]) -> Result<LaptopStatus, BridgeError> {
    let entry = LaptopState::key_entry(&binding.server);
    if let Err(e) = state.keys().set(&entry, &device_client::encode_secret(&secret)) {
        tracing::warn!(target: "relay::laptop", error = %e, "the OS store did not keep the device key");
        return Err(BridgeError::Unavailable(NO_STORE.into()));
    }
    state.end_session();
    let replaced = state.bound_server().filter(|s| *s != binding.server);
    if let Err(e) = state.write_binding(&binding) {
        let _ = state.keys().delete(&entry);
        tracing::warn!(target: "relay::laptop", error = %e, "could not write the pairing file");
        return Err(BridgeError::Unavailable("could not save the pairing in the data directory".into()));
    }
    if let Some(old) = replaced {
        // The pairing with the other server is gone with its binding; so is its key.
        let _ = state.keys().delete(&LaptopState::key_entry(&old));
    }
    tracing::info!(target: "relay::laptop", "this laptop is paired");
    Ok(status(state))
}

/// `laptop_pair`: a new key, the code redeemed, then the key and the binding stored.
pub async fn pair(
    state: &Arc<LaptopState>,
    token: Option<String>,
    username: &str,
    code: &str,
    label: &str,
) -> Result<LaptopStatus, BridgeError> {
    let origin = origin(state)?.to_string();
    let (username, code, label) = (username.trim(), code.trim(), label.trim());
    if username.is_empty() || username.len() > MAX_USERNAME || code.is_empty() || code.len() > MAX_CODE {
        return Err(BridgeError::Invalid("enter the username and the pairing code".into()));
    }
    if label.chars().count() > MAX_LABEL {
        return Err(BridgeError::Invalid("the label is too long".into()));
    }
    let token = token_of(token)?;
    if !off_thread(state, |s| s.keys().available()).await? {
        return Err(BridgeError::Unavailable(NO_STORE.into()));
    }
    let secret = device_client::new_device_secret().map_err(|e| BridgeError::Unavailable(e.to_string()))?;
    let jwk = device_client::public_jwk(&secret).map_err(|e| BridgeError::Unavailable(e.to_string()))?;
    let hostname = hostname::get().ok().and_then(|h| h.into_string().ok()).unwrap_or_default();
    let done = client(&origin)?.pair(&token, username, code, &jwk, label, &hostname).await;
    let device = done.map_err(|e| refusal(&e).0)?;
    let binding = Binding {
        version: 1,
        server: origin,
        account_id: device.account_id,
        device_id: device.device_id,
        username: username.to_string(),
        role: device.role,
        fingerprint: jwk.fingerprint(),
        label: label.to_string(),
        revoked: false,
    };
    off_thread(state, move |s| keep_pairing(s, binding, secret)).await?
}

/// `laptop_sign_in`: a fresh-password proof opens the session.
pub async fn sign_in(
    state: &Arc<LaptopState>,
    token: Option<String>,
    password: &str,
) -> Result<LaptopStatus, BridgeError> {
    let origin = origin(state)?.to_string();
    check_password(password)?;
    let binding = paired(state)?;
    let token = token_of(token)?;
    let held = binding.clone();
    off_thread(state, move |s| key_of(s, &held).map(drop)).await??;
    let proof = client(&origin)?
        .reauth(&token, &binding.account_id, &binding.device_id, password)
        .await
        .map_err(|e| settle(state, e))?;
    state.open_session(&binding, proof);
    tracing::info!(target: "relay::laptop", "protected session opened");
    off_thread(state, status).await
}

/// `laptop_confirm_password`: a new proof in the live session.
pub async fn confirm_password(
    state: &Arc<LaptopState>,
    token: Option<String>,
    password: &str,
) -> Result<LaptopStatus, BridgeError> {
    let origin = origin(state)?.to_string();
    check_password(password)?;
    if !state.session_alive(false) {
        return Err(BridgeError::Locked(LOCKED.into()));
    }
    let binding = paired(state)?;
    let token = token_of(token)?;
    let proof = client(&origin)?
        .reauth(&token, &binding.account_id, &binding.device_id, password)
        .await
        .map_err(|e| settle(state, e))?;
    if !state.keep_proof(proof) {
        return Err(BridgeError::Locked(LOCKED.into()));
    }
    off_thread(state, status).await
}

/// The checks `laptop_command` makes before anything is loaded or sent: a live session (touched),
/// a known, parseable command that may run off the server PC, and the held proof when it needs
/// a fresh password (consumed). The payload to sign.
fn prepare(state: &LaptopState, command: &str, mut payload: Value) -> Result<Value, BridgeError> {
    origin(state)?;
    if !state.session_alive(true) {
        return Err(BridgeError::Locked(LOCKED.into()));
    }
    let parsed = PrivilegedCommand::parse(command, &payload).map_err(|e| BridgeError::Invalid(e.to_string()))?;
    if parsed.local_only() {
        return Err(BridgeError::Forbidden("this command runs only on the server PC".into()));
    }
    if parsed.needs_fresh_password() {
        let proof = state.take_proof().ok_or_else(|| BridgeError::PasswordRequired(CONFIRM.into()))?;
        payload["reauthProof"] = Value::String(proof);
    }
    Ok(payload)
}

/// `laptop_command`: one signed command; its `result`.
pub async fn command(
    state: &Arc<LaptopState>,
    token: Option<String>,
    command: &str,
    payload: Value,
    expected_revision: Option<i64>,
) -> Result<Value, BridgeError> {
    let payload = prepare(state, command, payload)?;
    let binding = paired(state)?;
    let token = token_of(token)?;
    let held = binding.clone();
    let secret = off_thread(state, move |s| key_of(s, &held)).await??;
    let signer =
        Signer { account_id: &binding.account_id, device_id: &binding.device_id, role: &binding.role, secret: &secret };
    let envelope = device_client::signed_envelope(signer, command, payload, expected_revision, state.now_ms())
        .map_err(|e| BridgeError::Invalid(e.to_string()))?;
    let answer = client(&binding.server)?.execute(&token, &envelope).await.map_err(|e| settle(state, e))?;
    tracing::info!(target: "relay::laptop", command, "protected command done");
    Ok(answer.get("result").cloned().unwrap_or(Value::Null))
}

/// `laptop_forget`: the key and the binding removed, the session ended.
pub fn forget(state: &LaptopState) -> Result<LaptopStatus, BridgeError> {
    let origin = origin(state)?.to_string();
    state.end_session();
    state.keys().delete(&LaptopState::key_entry(&origin)).map_err(|e| {
        tracing::warn!(target: "relay::laptop", error = %e, "could not remove the device key");
        BridgeError::Unavailable(NO_STORE.into())
    })?;
    state.remove_binding().map_err(BridgeError::Unavailable)?;
    tracing::info!(target: "relay::laptop", "the pairing is forgotten on this laptop");
    Ok(status(state))
}

mod commands {
    use tauri::{State, Webview};

    use super::*;
    use crate::bridge::{caller, Bridge};
    use crate::session_cmd::SharedSession;

    type Laptop<'a> = State<'a, Arc<LaptopState>>;

    #[tauri::command]
    pub async fn laptop_status<R: tauri::Runtime>(
        webview: Webview<R>,
        bridge: State<'_, Bridge>,
        laptop: Laptop<'_>,
    ) -> Result<LaptopStatus, BridgeError> {
        caller(LAPTOP_STATUS, &webview, &bridge)?;
        off_thread(laptop.inner(), status).await
    }

    #[tauri::command]
    #[allow(clippy::too_many_arguments)]
    pub async fn laptop_pair<R: tauri::Runtime>(
        webview: Webview<R>,
        bridge: State<'_, Bridge>,
        laptop: Laptop<'_>,
        shared: State<'_, SharedSession>,
        username: String,
        code: String,
        label: String,
    ) -> Result<LaptopStatus, BridgeError> {
        caller(LAPTOP_PAIR, &webview, &bridge)?;
        pair(laptop.inner(), shared.token(), &username, &code, &label).await
    }

    #[tauri::command]
    pub async fn laptop_sign_in<R: tauri::Runtime>(
        webview: Webview<R>,
        bridge: State<'_, Bridge>,
        laptop: Laptop<'_>,
        shared: State<'_, SharedSession>,
        password: String,
    ) -> Result<LaptopStatus, BridgeError> {
        caller(LAPTOP_SIGN_IN, &webview, &bridge)?;
        sign_in(laptop.inner(), shared.token(), &password).await
    }

    #[tauri::command]
    pub async fn laptop_confirm_password<R: tauri::Runtime>(
        webview: Webview<R>,
        bridge: State<'_, Bridge>,
        laptop: Laptop<'_>,
        shared: State<'_, SharedSession>,
        password: String,
    ) -> Result<LaptopStatus, BridgeError> {
        caller(LAPTOP_CONFIRM_PASSWORD, &webview, &bridge)?;
        confirm_password(laptop.inner(), shared.token(), &password).await
    }

    #[tauri::command]
    pub async fn laptop_lock<R: tauri::Runtime>(
        webview: Webview<R>,
        bridge: State<'_, Bridge>,
        laptop: Laptop<'_>,
    ) -> Result<LaptopStatus, BridgeError> {
        caller(LAPTOP_LOCK, &webview, &bridge)?;
        origin(&laptop)?;
        laptop.end_session();
        off_thread(laptop.inner(), status).await
    }

    #[tauri::command]
    #[allow(clippy::too_many_arguments)]
    pub async fn laptop_command<R: tauri::Runtime>(
        webview: Webview<R>,
        bridge: State<'_, Bridge>,
        laptop: Laptop<'_>,
        shared: State<'_, SharedSession>,
        command: String,
        payload: Value,
        expected_revision: Option<i64>,
    ) -> Result<Value, BridgeError> {
        caller(LAPTOP_COMMAND, &webview, &bridge)?;
        super::command(laptop.inner(), shared.token(), &command, payload, expected_revision).await
    }

    #[tauri::command]
    pub async fn laptop_forget<R: tauri::Runtime>(
        webview: Webview<R>,
        bridge: State<'_, Bridge>,
        laptop: Laptop<'_>,
    ) -> Result<LaptopStatus, BridgeError> {
        caller(LAPTOP_FORGET, &webview, &bridge)?;
        off_thread(laptop.inner(), forget).await?
    }
}

pub use commands::*;

#[cfg(test)]
mod tests;
