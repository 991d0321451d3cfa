//! The typed bridge between the renderer and Rust: the Tauri commands and the glue they share.
//! Every command is declared once as a `Command` const (its name, one of
//! `registry::COMMANDS`, and its `Access`) and first runs that command's caller check
//! (`Command::authorize`: the webview's own URL must be on exactly the trusted app origin, via
//! `domain::windows::is_trusted_sender`; the window must be "main" or an auxiliary window of an
//! allowlisted route; auxiliary windows may call only the commands marked `AuxOk`), then
//! validates its payload with the domain policies. Refusals are logged with `tracing::warn!` on
//! the `relay::security` target and record only the origin of the offending URL. Registration
//! lives in `registry`.

use std::sync::Mutex;

use domain::external_links::{check_external_link, check_service_desk_link, describe_for_log, LinkKind};
use domain::ratelimit::{BucketConfig, Decision, TokenBucket};
use domain::windows::{is_trusted_sender, AuxDecision, AuxWindows};
use infra::http::HttpPolicy;
use serde::Serialize;

use crate::backend::{Backend, BackendKind};

/// `open_external` budget shared by all windows: 10 links per 2 seconds.
pub const OPEN_EXTERNAL_LIMIT: BucketConfig = BucketConfig { capacity: 10.0, refill_per_sec: 5.0 };
/// Label of the main window; every other label is an auxiliary window.
pub const MAIN_LABEL: &str = "main";
pub const AUX_LABEL_PREFIX: &str = "aux-";

/// The origin the app's own pages are served from by Tauri's custom protocol.
pub fn trusted_origin() -> &'static str {
    if cfg!(any(windows, target_os = "android")) {
        "http://tauri.localhost"
    } else {
        "tauri://localhost"
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Caller {
    Main,
    Aux,
}

/// Which bridge windows may call a command.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    /// The main window only.
    MainOnly,
    /// The main window and the auxiliary windows.
    AuxOk,
    /// Auxiliary windows only (`aux_session`).
    AuxOnly,
}

/// A bridge command as its caller check sees it. Each command module declares one const per
/// command, and the command's first line is `caller(THAT_CONST, ..)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Command {
    /// The name the renderer invokes, one of `registry::COMMANDS`.
    pub name: &'static str,
    pub access: Access,
}

impl Command {
    pub const fn new(name: &'static str, access: Access) -> Command {
        Command { name, access }
    }

    /// This command's caller check (see `check_caller`).
    pub fn authorize(&self, label: &str, frame_url: &str, trusted: &str) -> Result<Caller, BridgeError> {
        check_caller(*self, label, frame_url, trusted)
    }
}

/// `open_external`: any bridge window; shared rate limit, then the external-link policy.
pub const OPEN_EXTERNAL: Command = Command::new("open_external", Access::AuxOk);
/// `open_service_desk`: main window only; the Service Desk link shape policy.
pub const OPEN_SERVICE_DESK: Command = Command::new("open_service_desk", Access::MainOnly);
/// `open_aux_window`: main window only; allowlisted routes, at most `MAX_AUX_WINDOWS`.
pub const OPEN_AUX_WINDOW: Command = Command::new("open_aux_window", Access::MainOnly);
/// `open_dynatrace`: main window only; the Dynatrace popout navigation policy.
pub const OPEN_DYNATRACE: Command = Command::new("open_dynatrace", Access::MainOnly);
/// `health`: any bridge window; the health actor (server mode) or the server's `/api/health`.
pub const HEALTH: Command = Command::new("health", Access::AuxOk);

/// A refused call or payload, as the renderer sees it (`{ code, message }`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, thiserror::Error)]
#[serde(tag = "code", content = "message", rename_all = "camelCase")]
pub enum BridgeError {
    #[error("caller not allowed")]
    Forbidden(String),
    #[error("invalid payload: {0}")]
    Invalid(String),
    #[error("rate limited; retry in {0} s")]
    RateLimited(u64),
    #[error("unavailable: {0}")]
    Unavailable(String),
    /// The server definitively refused the credential.
    #[error("rejected: {0}")]
    Rejected(String),
    /// The server PC's administration session is gone (idle lock, lock, restart): sign in again.
    #[error("locked: {0}")]
    Locked(String),
    /// This administration action needs the password confirmed again first.
    #[error("password required: {0}")]
    PasswordRequired(String),
}

/// Which bridge window `label` is: "main", an auxiliary window of an allowlisted route, or none
/// (e.g. the Dynatrace popout, which has no capability either).
pub fn window_of(label: &str) -> Option<Caller> {
    if label == MAIN_LABEL {
        Some(Caller::Main)
    } else {
        route_of_label(label).map(|_| Caller::Aux)
    }
}

/// The caller check every command runs first. `frame_url` is the calling webview's current URL.
/// Tauri's IPC does not tell frames apart, and the CSP forbids sub-frames (`frame-src 'none'`),
/// so a call from a webview on the trusted origin is treated as its main frame.
pub fn check_caller(command: Command, label: &str, frame_url: &str, trusted: &str) -> Result<Caller, BridgeError> {
    let window = window_of(label);
    let verdict = if !is_trusted_sender(frame_url, true, trusted) {
        Err("untrusted sender")
    } else {
        match (window, command.access) {
            (None, _) => Err("not a bridge window"),
            (Some(Caller::Aux), Access::MainOnly) => Err("auxiliary window may not call this command"),
            (Some(Caller::Main), Access::AuxOnly) => Err("only auxiliary windows may call this command"),
            (Some(caller), _) => Ok(caller),
        }
    };
    verdict.map_err(|reason| {
        tracing::warn!(
            target: "relay::security",
            command = command.name,
            origin = %describe_for_log(frame_url),
            aux = window == Some(Caller::Aux),
            "ipc call refused: {reason}"
        );
        BridgeError::Forbidden(reason.into())
    })
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct OpenedLink {
    /// The normalized URL that was handed to the OS.
    pub url: String,
    pub kind: Option<LinkKind>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ConnectionInfo {
    pub mode: &'static str,
    pub server_url: String,
    /// Whether `reveal_passphrase` can show a passphrase (server mode only).
    pub passphrase_available: bool,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SignedIn {
    pub token: String,
    /// Seconds since the epoch.
    pub expires_at: i64,
}

/// Payload check for `sign_in`: the data-directory passphrase rules (length, no control chars).
pub fn check_passphrase_payload(passphrase: &str) -> Result<(), BridgeError> {
    infra::datadir::validate_passphrase(passphrase).map_err(|_| BridgeError::Invalid("invalid passphrase".into()))
}

/// Shared bridge state (managed by Tauri).
pub struct Bridge {
    pub trusted_origin: String,
    pub backend: Mutex<Option<Backend>>,
    server_url: String,
    passphrase: Option<String>,
    /// Server mode: the running server generation (its actors answer `health`, the backup,
    /// Administration and logo commands); see [`Bridge::live_server`].
    live: Option<crate::backend::SharedLive>,
    coordinator: Option<actix::Addr<actors::auth_coordinator::AuthCoordinator>>,
    /// Client mode: the offline cache, queue and replay.
    offline: Option<actix::Addr<actors::offline_replay::OfflineReplayActor>>,
    http: reqwest::Client,
    links: Mutex<TokenBucket>,
    pub aux: Mutex<AuxWindows>,
}

pub fn now_ms() -> u64 {
    infra::clock::wall_ms()
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

impl Bridge {
    pub fn new(trusted_origin: &str, backend: Option<Backend>) -> Bridge {
        let (server_url, passphrase, live, coordinator, offline) = match backend.as_ref().map(|b| &b.kind) {
            Some(BackendKind::Server { url, passphrase, live, .. }) => {
                (url.clone(), Some(passphrase.clone()), Some(live.clone()), None, None)
            }
            Some(BackendKind::Client { url, coordinator, offline }) => {
                (url.clone(), None, None, Some(coordinator.clone()), offline.clone())
            }
            Some(BackendKind::Setup) | None => (String::new(), None, None, None, None),
        };
        let http = HttpPolicy { timeout: std::time::Duration::from_secs(10), ..HttpPolicy::relay_peer() }
            .build()
            .expect("HTTP client")
            .reqwest()
            .clone();
        Bridge {
            trusted_origin: trusted_origin.to_string(),
            backend: Mutex::new(backend),
            server_url,
            passphrase,
            live,
            coordinator,
            offline,
            http,
            links: Mutex::new(TokenBucket::new(OPEN_EXTERNAL_LIMIT, now_ms())),
            aux: Mutex::new(AuxWindows::new()),
        }
    }

    #[cfg(test)]
    pub fn for_tests(server_url: &str, passphrase: Option<&str>) -> Bridge {
        let mut b = Bridge::new(trusted_origin(), None);
        b.server_url = server_url.into();
        b.passphrase = passphrase.map(Into::into);
        b
    }

    /// Server mode with `live` as its generation slot (`None`: a restore is restarting it).
    #[cfg(test)]
    pub fn for_server_tests(live: crate::backend::SharedLive) -> Bridge {
        let mut b = Bridge::for_tests("http://127.0.0.1:8090", Some("correct horse battery staple"));
        b.live = Some(live);
        b
    }

    /// One token from the external-action budget every OS hand-off shares (`open_external`,
    /// `open_service_desk`), taken before any policy check so a flood of junk spends it too.
    fn take_external_action(&self, action: &'static str, raw: &str, now_ms: u64) -> Result<(), BridgeError> {
        let decision = lock(&self.links).try_take(now_ms);
        if let Decision::Denied { .. } = decision {
            tracing::warn!(target: "relay::security", action, origin = %describe_for_log(raw), "external action rate limited");
            return Err(BridgeError::RateLimited(decision.retry_after_secs()));
        }
        Ok(())
    }

    /// Hands a checked URL to the OS; a failure is logged with the link's origin only.
    fn hand_to_os(
        action: &'static str,
        url: &str,
        open: impl FnOnce(&str) -> Result<(), String>,
    ) -> Result<(), BridgeError> {
        open(url).map_err(|e| {
            tracing::warn!(target: "relay::security", action, origin = %describe_for_log(url), "the OS could not open the link: {e}");
            BridgeError::Unavailable(e)
        })
    }

    /// `open_external`: the shared rate limit, then the external-link policy, then `open`.
    pub fn open_external_with(
        &self,
        raw: &str,
        now_ms: u64,
        open: impl FnOnce(&str) -> Result<(), String>,
    ) -> Result<OpenedLink, BridgeError> {
        self.take_external_action("open_external", raw, now_ms)?;
        let link = check_external_link(raw).map_err(|e| {
            tracing::warn!(target: "relay::security", origin = %describe_for_log(raw), "open_external refused: {e}");
            BridgeError::Invalid(e.to_string())
        })?;
        Self::hand_to_os("open_external", &link.url, open)?;
        Ok(OpenedLink { url: link.url, kind: Some(link.kind) })
    }

    /// `open_service_desk`: the shared rate limit, then the Service Desk shape policy, then
    /// `open`.
    pub fn open_service_desk_with(
        &self,
        raw: &str,
        now_ms: u64,
        open: impl FnOnce(&str) -> Result<(), String>,
    ) -> Result<OpenedLink, BridgeError> {
        self.take_external_action("open_service_desk", raw, now_ms)?;
        let url = check_service_desk_link(raw).map_err(|e| {
            tracing::warn!(target: "relay::security", origin = %describe_for_log(raw), "open_service_desk refused: {e}");
            BridgeError::Invalid(e.to_string())
        })?;
        Self::hand_to_os("open_service_desk", &url, open)?;
        Ok(OpenedLink { url, kind: None })
    }

    /// Records an aux-window request; the caller creates or focuses the window.
    pub fn request_aux(&self, route: &str) -> Result<(&'static str, AuxDecision), BridgeError> {
        let route = domain::windows::check_aux_route(route).map_err(|e| BridgeError::Invalid(e.to_string()))?;
        let decision = lock(&self.aux).open(route).map_err(|e| BridgeError::Invalid(e.to_string()))?;
        Ok((route, decision))
    }

    pub fn forget_aux(&self, route: &str) {
        lock(&self.aux).close(route);
    }

    pub fn connection_info(&self) -> ConnectionInfo {
        ConnectionInfo {
            mode: match (self.is_server_mode(), self.server_url.is_empty()) {
                (true, _) => "server",
                (false, true) => "setup",
                (false, false) => "client",
            },
            server_url: self.server_url.clone(),
            passphrase_available: self.passphrase.is_some(),
        }
    }

    /// Client mode: the offline subsystem's address (`None` in server and setup mode).
    pub fn offline(&self) -> Option<actix::Addr<actors::offline_replay::OfflineReplayActor>> {
        self.offline.clone()
    }

    pub fn passphrase(&self) -> Result<String, BridgeError> {
        self.passphrase.clone().ok_or_else(|| BridgeError::Unavailable("no passphrase in client mode".into()))
    }

    /// Client mode: a validated app-user token for the configured server, through the shared
    /// `AuthCoordinator` (one in-flight sign-in per server and passphrase).
    pub async fn sign_in(&self, passphrase: &str) -> Result<SignedIn, BridgeError> {
        check_passphrase_payload(passphrase)?;
        let coordinator =
            self.coordinator.as_ref().ok_or_else(|| BridgeError::Unavailable("sign_in is for client mode".into()))?;
        let msg = actors::auth_coordinator::ObtainToken {
            server: self.server_url.clone(),
            passphrase: passphrase.to_string(),
        };
        match coordinator.send(msg).await {
            Ok(Ok(t)) => {
                // The offline replay signs its requests with the latest app-user token.
                if let Some(offline) = &self.offline {
                    offline.do_send(actors::offline_replay::UseToken(t.clone()));
                }
                Ok(SignedIn { token: t.token, expires_at: t.expires_at })
            }
            Ok(Err(actors::auth_coordinator::CoordinatorError::Rejected)) => {
                Err(BridgeError::Rejected("the server refused the passphrase".into()))
            }
            Ok(Err(e)) => Err(BridgeError::Unavailable(e.to_string())),
            Err(_) => Err(BridgeError::Unavailable("sign-in coordinator stopped".into())),
        }
    }

    /// Whether this desktop runs the server (its actors may still be restarting).
    pub fn is_server_mode(&self) -> bool {
        self.live.is_some()
    }

    /// Server mode: the running server generation's addresses; `None` while a restore restarts
    /// the server, and outside server mode ([`Bridge::is_server_mode`] tells them apart).
    pub fn live_server(&self) -> Option<crate::backend::LiveServer> {
        self.live.as_ref().and_then(|live| lock(live).clone())
    }

    /// The recovery launcher's data-plane health (`launcher_link`): server mode, the running
    /// server generation's health actor answers with status `ok` (the snapshot `health` shows;
    /// none while a restore restarts the server); client mode, the shell's backend (the actix
    /// thread hosting the sign-in coordinator and the offline replay) is running; the setup
    /// screen has no data plane.
    pub async fn data_plane_healthy(&self) -> bool {
        if self.is_server_mode() {
            let Some(live) = self.live_server() else { return false };
            // The program's health, not its outside work's: a server PC without Internet (status
            // feeds failing) is degraded for the operator but runs, and must not be rolled back.
            return matches!(live.health.send(actors::health::GetHealth).await, Ok(s) if s.program_runs());
        }
        self.coordinator.as_ref().is_some_and(|c| c.connected())
    }

    pub async fn health(&self) -> Result<serde_json::Value, BridgeError> {
        if self.is_server_mode() {
            let addr = self
                .live_server()
                .map(|l| l.health)
                .ok_or_else(|| BridgeError::Unavailable("the server is restarting (a backup restore)".into()))?;
            let snapshot = addr
                .send(actors::health::GetHealth)
                .await
                .map_err(|_| BridgeError::Unavailable("health actor stopped".into()))?;
            return serde_json::to_value(snapshot).map_err(|e| BridgeError::Unavailable(e.to_string()));
        }
        if self.server_url.is_empty() {
            return Err(BridgeError::Unavailable("no server configured".into()));
        }
        let res = self
            .http
            .get(format!("{}/api/health", self.server_url))
            .send()
            .await
            .map_err(|_| BridgeError::Unavailable("server unreachable".into()))?;
        res.json().await.map_err(|_| BridgeError::Unavailable("invalid health reply".into()))
    }
}

/// Payload check for `open_dynatrace`: the Dynatrace popout navigation policy must not block it.
pub fn check_dynatrace_url(raw: &str) -> Result<url::Url, BridgeError> {
    let refused = || {
        tracing::warn!(target: "relay::security", origin = %describe_for_log(raw), "open_dynatrace refused");
        BridgeError::Invalid("not a Dynatrace or Microsoft sign-in URL".into())
    };
    if domain::windows::dynatrace_navigation(raw) == domain::windows::DynatraceNav::Blocked {
        return Err(refused());
    }
    url::Url::parse(raw).map_err(|_| refused())
}

/// Aux window label for a route (`popout/board` → `aux-popout-board`).
pub fn aux_label(route: &str) -> String {
    format!("{AUX_LABEL_PREFIX}{}", route.replace('/', "-"))
}

/// The route an aux window label belongs to.
pub fn route_of_label(label: &str) -> Option<&'static str> {
    domain::windows::AUX_ROUTES.iter().copied().find(|r| aux_label(r) == label)
}

mod commands {
    use tauri::{Manager, State, Webview};

    use super::*;

    /// `command`'s caller check for a call from `webview` (see `check_caller`).
    pub(crate) fn caller<R: tauri::Runtime>(
        command: Command,
        webview: &Webview<R>,
        bridge: &Bridge,
    ) -> Result<Caller, BridgeError> {
        let url = webview.url().map(|u| u.to_string()).unwrap_or_default();
        command.authorize(webview.label(), &url, &bridge.trusted_origin)
    }

    fn open_with_os(url: &str) -> Result<(), String> {
        tauri_plugin_opener::open_url(url, None::<&str>).map_err(|_| "could not start the browser".to_string())
    }

    #[tauri::command]
    pub async fn open_external<R: tauri::Runtime>(
        webview: Webview<R>,
        bridge: State<'_, Bridge>,
        url: String,
    ) -> Result<OpenedLink, BridgeError> {
        caller(OPEN_EXTERNAL, &webview, &bridge)?;
        bridge.open_external_with(&url, now_ms(), open_with_os)
    }

    #[tauri::command]
    pub async fn open_service_desk<R: tauri::Runtime>(
        webview: Webview<R>,
        bridge: State<'_, Bridge>,
        url: String,
    ) -> Result<OpenedLink, BridgeError> {
        caller(OPEN_SERVICE_DESK, &webview, &bridge)?;
        bridge.open_service_desk_with(&url, now_ms(), open_with_os)
    }

    #[tauri::command]
    pub async fn open_aux_window<R: tauri::Runtime>(
        app: tauri::AppHandle<R>,
        webview: Webview<R>,
        bridge: State<'_, Bridge>,
        route: String,
    ) -> Result<String, BridgeError> {
        caller(OPEN_AUX_WINDOW, &webview, &bridge)?;
        let (route, decision) = bridge.request_aux(&route)?;
        let label = aux_label(route);
        if decision == AuxDecision::FocusExisting {
            if let Some(w) = app.get_webview_window(&label) {
                let _ = w.set_focus();
                return Ok(label);
            }
        }
        let url = tauri::WebviewUrl::App(format!("index.html?popout={route}").into());
        let builder = tauri::WebviewWindowBuilder::new(&app, &label, url)
            .title(format!("Relay — {route}"))
            .inner_size(960.0, 800.0)
            .min_inner_size(400.0, 600.0)
            .background_color(tauri::window::Color(13, 17, 23, 255));
        match crate::lockdown::apply(builder, bridge.trusted_origin.clone()).build() {
            Ok(_) => Ok(label),
            Err(e) => {
                bridge.forget_aux(route);
                Err(BridgeError::Unavailable(format!("could not open the window: {e}")))
            }
        }
    }

    #[tauri::command]
    pub async fn open_dynatrace<R: tauri::Runtime>(
        app: tauri::AppHandle<R>,
        webview: Webview<R>,
        bridge: State<'_, Bridge>,
        session: State<'_, crate::dynatrace_cmd::DynatraceSession>,
        url: String,
        key: Option<String>,
    ) -> Result<String, BridgeError> {
        caller(OPEN_DYNATRACE, &webview, &bridge)?;
        let url = check_dynatrace_url(&url)?;
        let key = crate::dynatrace_cmd::check_dashboard_key(key.as_deref())?;
        let label = crate::dynatrace_cmd::popout_label(&key);
        if let Some(w) = app.get_webview_window(&label) {
            let _ = w.navigate(url);
            let _ = w.set_focus();
            return Ok(label);
        }
        let store = session.store_dir().map_err(|e| {
            tracing::warn!(error = %e, "the Dynatrace session store is unusable");
            BridgeError::Unavailable("the Dynatrace session store is unusable".into())
        })?;
        let builder = tauri::WebviewWindowBuilder::new(&app, &label, tauri::WebviewUrl::External(url))
            .title("Relay — Dynatrace")
            .inner_size(1440.0, 900.0)
            .min_inner_size(400.0, 600.0);
        let states = session.states();
        let on_state = {
            let (states, key) = (states.clone(), key.clone());
            move |nav| states.navigated(&key, nav)
        };
        let window =
            crate::lockdown::with_dynatrace_test_probe(crate::lockdown::apply_dynatrace(builder, store, on_state))
                .build()
                .map_err(|e| BridgeError::Unavailable(format!("could not open the window: {e}")))?;
        window.on_window_event(move |event| {
            if matches!(event, tauri::WindowEvent::Destroyed) {
                states.closed(&key);
            }
        });
        Ok(label)
    }

    #[tauri::command]
    pub async fn health<R: tauri::Runtime>(
        webview: Webview<R>,
        bridge: State<'_, Bridge>,
    ) -> Result<serde_json::Value, BridgeError> {
        caller(HEALTH, &webview, &bridge)?;
        bridge.health().await
    }
}

pub use commands::*;

#[cfg(test)]
mod tests {
    use super::*;

    const T: &str = "tauri://localhost";

    fn check(access: Access, label: &str, url: &str) -> Result<Caller, BridgeError> {
        Command::new("x", access).authorize(label, url, T)
    }

    #[test]
    fn caller_check_wires_the_trusted_sender_policy() {
        assert_eq!(check(Access::MainOnly, "main", "tauri://localhost/index.html"), Ok(Caller::Main));
        assert_eq!(check(Access::AuxOk, "aux-oncall", "tauri://localhost/?popout=oncall"), Ok(Caller::Aux));
        for url in [
            "tauri://localhost.evil/",
            "https://evil.example/",
            "http://127.0.0.1:8090/",
            "about:blank",
            "",
            "tauri://user@localhost/",
        ] {
            assert!(matches!(check(Access::AuxOk, "main", url), Err(BridgeError::Forbidden(_))), "{url}");
        }
    }

    #[test]
    fn aux_windows_cannot_call_main_only_commands() {
        assert!(matches!(check(Access::MainOnly, "aux-oncall", "tauri://localhost/"), Err(BridgeError::Forbidden(_))));
        // Any label other than "main" is auxiliary at best, including look-alikes.
        assert!(check(Access::MainOnly, "Main", "tauri://localhost/").is_err());
        assert!(check(Access::MainOnly, "main ", "tauri://localhost/").is_err());
    }

    #[test]
    fn only_main_and_allowlisted_aux_windows_are_bridge_windows() {
        for label in ["Main", "main ", "dynatrace", "aux-", "aux-settings", "aux-popout/board", "aux-oncall ", ""] {
            assert_eq!(window_of(label), None, "{label:?}");
            for access in [Access::MainOnly, Access::AuxOk, Access::AuxOnly] {
                assert_eq!(
                    check(access, label, "tauri://localhost/"),
                    Err(BridgeError::Forbidden("not a bridge window".into())),
                    "{label:?} {access:?}"
                );
            }
        }
        for route in domain::windows::AUX_ROUTES {
            assert_eq!(window_of(&aux_label(route)), Some(Caller::Aux), "{route}");
        }
    }

    #[test]
    fn aux_only_commands_refuse_the_main_window() {
        assert!(matches!(check(Access::AuxOnly, "main", "tauri://localhost/"), Err(BridgeError::Forbidden(_))));
        assert_eq!(check(Access::AuxOnly, "aux-popout-board", "tauri://localhost/?popout=board"), Ok(Caller::Aux));
    }

    #[test]
    fn open_external_validates_and_opens_the_normalized_url() {
        let b = Bridge::for_tests("http://127.0.0.1:8090", None);
        let mut opened = Vec::new();
        let got = b
            .open_external_with("https://WWW.githubstatus.com/incidents/x", 0, |u| {
                opened.push(u.to_string());
                Ok(())
            })
            .unwrap();
        assert_eq!(got.url, "https://www.githubstatus.com/incidents/x");
        assert_eq!(got.kind, Some(LinkKind::StatusPage));
        assert_eq!(opened, ["https://www.githubstatus.com/incidents/x"]);
        for bad in [
            "javascript:alert(1)",
            "https://evil.example/",
            "http://www.githubstatus.com/",
            "https://www.githubstatus.com:444/",
            "https://user@x.com/",
            "file:///etc/passwd",
            "",
        ] {
            let r = b.open_external_with(bad, 0, |_| panic!("must not open {bad}"));
            assert!(matches!(r, Err(BridgeError::Invalid(_))), "{bad}: {r:?}");
        }
    }

    #[test]
    fn open_external_is_rate_limited_ten_per_two_seconds() {
        let b = Bridge::for_tests("", None);
        let start = now_ms();
        let mut count = 0;
        let ok = |_: &str| -> Result<(), String> { Ok(()) };
        for _ in 0..10 {
            b.open_external_with("https://x.com/relay", start, ok).unwrap();
            count += 1;
        }
        assert_eq!(count, 10);
        assert_eq!(b.open_external_with("https://x.com/relay", start, ok), Err(BridgeError::RateLimited(1)));
        // Invalid links spend the budget too, so a flood of junk cannot bypass it.
        assert!(matches!(b.open_external_with("https://evil.example/", start, ok), Err(BridgeError::RateLimited(_))));
        assert!(b.open_external_with("https://x.com/relay", start + 200, ok).is_ok(), "5 tokens per second refill");
        assert!(b.open_external_with("https://x.com/relay", start + 200, ok).is_err());
        for _ in 0..10 {
            b.open_external_with("https://x.com/relay", start + 5_000, ok).unwrap();
        }
    }

    #[test]
    fn open_service_desk_uses_the_service_desk_policy() {
        let b = Bridge::for_tests("", None);
        let r = b.open_service_desk_with("https://servicedesk.corp.example/new?x=1", 0, |_| Ok(())).unwrap();
        assert_eq!(r.url, "https://servicedesk.corp.example/new?x=1");
        for bad in ["http://servicedesk.corp.example/", "https://10.0.0.1/", "https://a.example:8443/", "msteams://x"] {
            assert!(b.open_service_desk_with(bad, 0, |_| panic!("must not open")).is_err(), "{bad}");
        }
    }

    #[test]
    fn the_service_desk_opener_shares_the_external_action_budget() {
        let b = Bridge::for_tests("", None);
        let start = now_ms();
        let ok = |_: &str| -> Result<(), String> { Ok(()) };
        for _ in 0..5 {
            b.open_external_with("https://x.com/relay", start, ok).unwrap();
            b.open_service_desk_with("https://servicedesk.corp.example/new", start, ok).unwrap();
        }
        assert_eq!(
            b.open_service_desk_with("https://servicedesk.corp.example/new", start, ok),
            Err(BridgeError::RateLimited(1)),
            "the Service Desk opener is limited"
        );
        assert_eq!(
            b.open_external_with("https://x.com/relay", start, ok),
            Err(BridgeError::RateLimited(1)),
            "one budget"
        );
        let junk = b.open_service_desk_with("msteams://x", start, |_| panic!("must not open"));
        assert_eq!(junk, Err(BridgeError::RateLimited(1)), "refused links spend it too");
    }

    /// Runs `f` with a subscriber that records every log line.
    fn logs_of(f: impl FnOnce()) -> String {
        #[derive(Clone, Default)]
        struct Sink(std::sync::Arc<Mutex<Vec<u8>>>);
        impl std::io::Write for Sink {
            fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
                lock(&self.0).extend_from_slice(buf);
                Ok(buf.len())
            }
            fn flush(&mut self) -> std::io::Result<()> {
                Ok(())
            }
        }
        let sink = Sink::default();
        let writer = sink.clone();
        let subscriber = tracing_subscriber::fmt().with_writer(move || writer.clone()).with_ansi(false).finish();
        tracing::subscriber::with_default(subscriber, f);
        let bytes = lock(&sink.0).clone();
        String::from_utf8(bytes).unwrap()
    }

    #[test]
    fn os_open_failures_are_logged_with_the_origin_only() {
        let b = Bridge::for_tests("", None);
        let logs = logs_of(|| {
            let r = b.open_service_desk_with("https://servicedesk.corp.example/ticket/SECRET-42?user=ada", 0, |_| {
                Err("could not start the browser".into())
            });
            assert_eq!(r, Err(BridgeError::Unavailable("could not start the browser".into())));
            let r = b.open_external_with("https://x.com/private/path?token=abc", 0, |_| Err("no browser".into()));
            assert_eq!(r, Err(BridgeError::Unavailable("no browser".into())));
        });
        assert!(logs.contains("the OS could not open the link"), "{logs}");
        assert!(logs.contains("servicedesk.corp.example") && logs.contains("x.com"), "origins are logged: {logs}");
        for secret in ["SECRET-42", "user=ada", "/private/path", "token=abc"] {
            assert!(!logs.contains(secret), "{secret} leaked: {logs}");
        }
    }

    #[test]
    fn aux_requests_are_allowlisted_capped_and_focus_existing() {
        let b = Bridge::for_tests("", None);
        assert!(matches!(b.request_aux("settings"), Err(BridgeError::Invalid(_))));
        assert!(matches!(b.request_aux("../oncall"), Err(BridgeError::Invalid(_))));
        assert_eq!(b.request_aux("oncall"), Ok(("oncall", AuxDecision::Open)));
        assert_eq!(b.request_aux("oncall"), Ok(("oncall", AuxDecision::FocusExisting)));
        for r in ["directory", "servers", "assembler", "personnel"] {
            assert_eq!(b.request_aux(r), Ok((r, AuxDecision::Open)));
        }
        assert!(matches!(b.request_aux("popout/board"), Err(BridgeError::Invalid(_))), "sixth window refused");
        b.forget_aux("servers");
        assert_eq!(b.request_aux("popout/board"), Ok(("popout/board", AuxDecision::Open)));
    }

    #[test]
    fn aux_labels_round_trip() {
        for r in domain::windows::AUX_ROUTES {
            assert_eq!(route_of_label(&aux_label(r)), Some(*r));
        }
        assert_eq!(aux_label("popout/board"), "aux-popout-board");
        assert_eq!(route_of_label("main"), None);
    }

    #[test]
    fn connection_info_never_contains_the_passphrase() {
        let b = Bridge::for_tests("http://127.0.0.1:8090", Some("correct horse battery staple"));
        let info = serde_json::to_string(&b.connection_info()).unwrap();
        assert!(!info.contains("horse"), "{info}");
        assert!(info.contains("\"serverUrl\":\"http://127.0.0.1:8090\""));
        assert_eq!(b.passphrase().unwrap(), "correct horse battery staple");
        assert!(Bridge::for_tests("https://r.example", None).passphrase().is_err());
    }

    #[test]
    fn sign_in_payloads_are_checked_before_any_network_use() {
        assert!(matches!(check_passphrase_payload(""), Err(BridgeError::Invalid(_))));
        assert!(matches!(check_passphrase_payload("line\nbreak passphrase"), Err(BridgeError::Invalid(_))));
        assert!(matches!(check_passphrase_payload(&"x".repeat(100_000)), Err(BridgeError::Invalid(_))));
        assert!(check_passphrase_payload("correct horse battery staple").is_ok());
        let b = Bridge::for_tests("https://r.example", None);
        let r = tauri::async_runtime::block_on(b.sign_in("correct horse battery staple"));
        assert!(matches!(r, Err(BridgeError::Unavailable(_))), "no coordinator: {r:?}");
    }

    #[test]
    fn open_dynatrace_payloads_follow_the_popout_policy() {
        assert!(check_dynatrace_url("https://abc12345.live.dynatrace.com/ui").is_ok());
        for bad in ["https://evil.example/", "http://abc.live.dynatrace.com/", "javascript:alert(1)", ""] {
            assert!(matches!(check_dynatrace_url(bad), Err(BridgeError::Invalid(_))), "{bad}");
        }
    }

    #[test]
    fn errors_serialize_with_a_code() {
        let v = serde_json::to_value(BridgeError::RateLimited(2)).unwrap();
        assert_eq!(v, serde_json::json!({"code": "rateLimited", "message": 2}));
    }
}
