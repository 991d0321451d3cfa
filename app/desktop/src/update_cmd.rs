//! The desktop's update commands (both modes, main window only): `update_status` (the state,
//! with the bytes received while a download runs; the renderer polls it), `update_check`
//! ("Check for updates"), `update_download`, `update_cancel`, `update_prepare` and
//! `update_restart`, and `update_release_notes` (Settings → About: the release notes the
//! updater holds, from its cache or its last fetch, each marked `current` when it is the running
//! version; bodies are bounded, sanitized Markdown text the renderer shows as text nodes). Each is one message to the shell's updater actor (`updater_host`), one
//! explicit step: none starts the next. They take no argument at all: the repository, release,
//! URLs, asset names, paths and the publisher key are build-time constants in the actor's IO,
//! so the renderer can name none of them. `update_restart` re-verifies the prepared executable
//! and returns what was verified (version, commit, SHA-256; the path stays in the shell) with
//! `handedOff: false`: the recovery launcher that would run it is not built, so nothing is
//! executed. Refusals keep the actor's plain message; a setup window, or a desktop whose
//! updater could not start, gets `unavailable`.

use std::time::Duration;

use actix::{Addr, Handler, Message};
use actors::updater::{
    running_version, CancelDownload, CheckNow, ReleaseNotesSnapshot, ReleaseNotesState, RequestRestart, RestartTarget,
    Snapshot, StartDownload, StartPrepare, UpdaterActor, UpdaterError,
};
use domain::updater::{UpdateSnapshot, Version};
use serde::Serialize;

use crate::bridge::{Access, BridgeError, Command};

pub const UPDATE_STATUS: Command = Command::new("update_status", Access::MainOnly);
pub const UPDATE_CHECK: Command = Command::new("update_check", Access::MainOnly);
pub const UPDATE_DOWNLOAD: Command = Command::new("update_download", Access::MainOnly);
pub const UPDATE_CANCEL: Command = Command::new("update_cancel", Access::MainOnly);
pub const UPDATE_PREPARE: Command = Command::new("update_prepare", Access::MainOnly);
pub const UPDATE_RESTART: Command = Command::new("update_restart", Access::MainOnly);
pub const UPDATE_RELEASE_NOTES: Command = Command::new("update_release_notes", Access::MainOnly);

/// The longest a command waits for the actor: a check (8 s discovery), a cancel (until the
/// staging directory is gone) or a restart's re-hash of up to 512 MiB.
pub const REPLY_TIMEOUT: Duration = Duration::from_secs(60);

/// What the Update dialog shows after "Restart": the prepared executable that was verified.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RestartInfo {
    pub version: Version,
    pub commit: String,
    pub executable_sha256: String,
    /// Whether the executable was handed to the recovery launcher (always `false` until it exists).
    pub handed_off: bool,
}

impl From<RestartTarget> for RestartInfo {
    fn from(target: RestartTarget) -> RestartInfo {
        RestartInfo {
            version: target.version,
            commit: target.commit.to_hex(),
            executable_sha256: target.executable_sha256.to_hex(),
            handed_off: false,
        }
    }
}

/// One release's notes as Settings → About shows them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ReleaseNoteInfo {
    pub version: Version,
    pub title: String,
    pub published_at: Option<String>,
    /// Markdown text (bounded, without control characters); never HTML.
    pub body: String,
    /// This is the running version.
    pub current: bool,
}

/// `update_release_notes`' answer: newest version first, and when they were fetched.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ReleaseNotesInfo {
    pub releases: Vec<ReleaseNoteInfo>,
    pub fetched_at_ms: Option<i64>,
}

impl ReleaseNotesInfo {
    /// The actor's notes, each marked `current` when its version is `running`.
    pub fn new(state: ReleaseNotesState, running: Version) -> ReleaseNotesInfo {
        let releases = state
            .releases
            .into_iter()
            .map(|note| ReleaseNoteInfo {
                current: note.version == running,
                version: note.version,
                title: note.title,
                published_at: note.published_at,
                body: note.body,
            })
            .collect();
        ReleaseNotesInfo { releases, fetched_at_ms: state.fetched_at_ms }
    }
}

/// An updater refusal as the renderer sees it: the limits as `rateLimited` (seconds), a step
/// that does not fit the state as `invalid`, the rest as `unavailable`; the message is the
/// actor's plain sentence (no URL, path or header).
pub fn refused(error: UpdaterError) -> BridgeError {
    match error {
        UpdaterError::RateLimited { retry_after_secs } | UpdaterError::GitHubRateLimited { retry_after_secs } => {
            BridgeError::RateLimited(retry_after_secs.max(1))
        }
        UpdaterError::NotAllowed(_) => BridgeError::Invalid(error.to_string()),
        UpdaterError::CheckFailed | UpdaterError::PreparedChanged | UpdaterError::Busy | UpdaterError::Unavailable => {
            BridgeError::Unavailable(error.to_string())
        }
    }
}

fn no_updater() -> BridgeError {
    BridgeError::Unavailable("Updates are not available in this window or on this installation.".into())
}

/// Sends `message` to the updater (bounded by [`REPLY_TIMEOUT`]).
async fn ask<M>(updater: Option<Addr<UpdaterActor>>, message: M) -> Result<M::Result, BridgeError>
where
    M: Message + Send + 'static,
    M::Result: Send,
    UpdaterActor: Handler<M>,
{
    let updater = updater.ok_or_else(no_updater)?;
    match tokio::time::timeout(REPLY_TIMEOUT, updater.send(message)).await {
        Ok(Ok(reply)) => Ok(reply),
        Ok(Err(_)) => Err(BridgeError::Unavailable("The updater stopped.".into())),
        Err(_) => Err(BridgeError::Unavailable("The updater did not answer in time.".into())),
    }
}

/// `update_status`: the current state.
pub async fn status(updater: Option<Addr<UpdaterActor>>) -> Result<UpdateSnapshot, BridgeError> {
    ask(updater, Snapshot).await
}

/// `update_check`: a check now (one per minute; joins a check in flight).
pub async fn check(updater: Option<Addr<UpdaterActor>>) -> Result<UpdateSnapshot, BridgeError> {
    ask(updater, CheckNow).await?.map_err(refused)
}

/// `update_download`: the re-fetch and verified download of the offered release (resolves once
/// it started; `update_status` shows the bytes).
pub async fn download(updater: Option<Addr<UpdaterActor>>) -> Result<UpdateSnapshot, BridgeError> {
    ask(updater, StartDownload).await?.map_err(refused)
}

/// `update_cancel`: resolves once the download's staging directory is gone.
pub async fn cancel(updater: Option<Addr<UpdaterActor>>) -> Result<UpdateSnapshot, BridgeError> {
    ask(updater, CancelDownload).await?.map_err(refused)
}

/// `update_prepare`: starts extracting and checking the downloaded executable.
pub async fn prepare(updater: Option<Addr<UpdaterActor>>) -> Result<UpdateSnapshot, BridgeError> {
    ask(updater, StartPrepare).await?.map_err(refused)
}

/// `update_restart`: re-verifies the prepared executable; executes nothing (no launcher yet).
pub async fn restart(updater: Option<Addr<UpdaterActor>>) -> Result<RestartInfo, BridgeError> {
    let target = ask(updater, RequestRestart).await?.map_err(refused)?;
    tracing::info!(version = %target.version, "prepared update verified; the recovery launcher is not built, nothing runs");
    Ok(RestartInfo::from(target))
}

/// `update_release_notes`: the release notes the updater holds (no request goes out).
pub async fn release_notes(updater: Option<Addr<UpdaterActor>>) -> Result<ReleaseNotesInfo, BridgeError> {
    let state = ask(updater, ReleaseNotesSnapshot).await?;
    Ok(ReleaseNotesInfo::new(state, running_version()))
}

mod commands {
    use tauri::{State, Webview};

    use super::*;
    use crate::bridge::{caller, Bridge};
    use crate::updater_host::UpdaterHost;

    #[tauri::command]
    pub async fn update_status<R: tauri::Runtime>(
        webview: Webview<R>,
        bridge: State<'_, Bridge>,
        host: State<'_, UpdaterHost>,
    ) -> Result<UpdateSnapshot, BridgeError> {
        caller(UPDATE_STATUS, &webview, &bridge)?;
        status(host.addr()).await
    }

    #[tauri::command]
    pub async fn update_check<R: tauri::Runtime>(
        webview: Webview<R>,
        bridge: State<'_, Bridge>,
        host: State<'_, UpdaterHost>,
    ) -> Result<UpdateSnapshot, BridgeError> {
        caller(UPDATE_CHECK, &webview, &bridge)?;
        check(host.addr()).await
    }

    #[tauri::command]
    pub async fn update_download<R: tauri::Runtime>(
        webview: Webview<R>,
        bridge: State<'_, Bridge>,
        host: State<'_, UpdaterHost>,
    ) -> Result<UpdateSnapshot, BridgeError> {
        caller(UPDATE_DOWNLOAD, &webview, &bridge)?;
        download(host.addr()).await
    }

    #[tauri::command]
    pub async fn update_cancel<R: tauri::Runtime>(
        webview: Webview<R>,
        bridge: State<'_, Bridge>,
        host: State<'_, UpdaterHost>,
    ) -> Result<UpdateSnapshot, BridgeError> {
        caller(UPDATE_CANCEL, &webview, &bridge)?;
        cancel(host.addr()).await
    }

    #[tauri::command]
    pub async fn update_prepare<R: tauri::Runtime>(
        webview: Webview<R>,
        bridge: State<'_, Bridge>,
        host: State<'_, UpdaterHost>,
    ) -> Result<UpdateSnapshot, BridgeError> {
        caller(UPDATE_PREPARE, &webview, &bridge)?;
        prepare(host.addr()).await
    }

    #[tauri::command]
    pub async fn update_restart<R: tauri::Runtime>(
        webview: Webview<R>,
        bridge: State<'_, Bridge>,
        host: State<'_, UpdaterHost>,
    ) -> Result<RestartInfo, BridgeError> {
        caller(UPDATE_RESTART, &webview, &bridge)?;
        restart(host.addr()).await
    }

    #[tauri::command]
    pub async fn update_release_notes<R: tauri::Runtime>(
        webview: Webview<R>,
        bridge: State<'_, Bridge>,
        host: State<'_, UpdaterHost>,
    ) -> Result<ReleaseNotesInfo, BridgeError> {
        caller(UPDATE_RELEASE_NOTES, &webview, &bridge)?;
        release_notes(host.addr()).await
    }
}

pub use commands::*;

#[cfg(test)]
mod tests {
    use super::*;
    use domain::updater::{TransitionError, UpdatePhase};

    use crate::updater_host::{tests::offline_io, UpdaterHost};

    const T: &str = "tauri://localhost";

    fn block<F: std::future::Future>(f: F) -> F::Output {
        tauri::async_runtime::block_on(f)
    }

    #[test]
    fn every_update_command_is_main_window_only() {
        let all = [
            UPDATE_STATUS,
            UPDATE_CHECK,
            UPDATE_DOWNLOAD,
            UPDATE_CANCEL,
            UPDATE_PREPARE,
            UPDATE_RESTART,
            UPDATE_RELEASE_NOTES,
        ];
        for command in all {
            assert_eq!(command.access, Access::MainOnly, "{}", command.name);
            assert!(command.authorize("main", "tauri://localhost/index.html", T).is_ok(), "{}", command.name);
            for label in ["aux-oncall", "dynatrace", "Main"] {
                let refused = command.authorize(label, "tauri://localhost/?popout=oncall", T);
                assert!(matches!(refused, Err(BridgeError::Forbidden(_))), "{} from {label}", command.name);
            }
            let foreign = command.authorize("main", "https://evil.example/", T);
            assert!(matches!(foreign, Err(BridgeError::Forbidden(_))), "{}", command.name);
        }
    }

    #[test]
    fn refusals_keep_the_plain_message_and_a_stable_bridge_code() {
        let limited = refused(UpdaterError::RateLimited { retry_after_secs: 42 });
        assert_eq!(limited, BridgeError::RateLimited(42));
        assert_eq!(refused(UpdaterError::GitHubRateLimited { retry_after_secs: 0 }), BridgeError::RateLimited(1));
        assert_eq!(
            refused(UpdaterError::NotAllowed(TransitionError::NothingToDownload)),
            BridgeError::Invalid("No installable update is available to download.".into())
        );
        assert_eq!(
            refused(UpdaterError::CheckFailed),
            BridgeError::Unavailable("The update check did not complete.".into())
        );
        let changed = refused(UpdaterError::PreparedChanged);
        assert!(matches!(&changed, BridgeError::Unavailable(m) if m.contains("download it again")), "{changed:?}");
        let json = serde_json::to_value(refused(UpdaterError::NotAllowed(TransitionError::NotPrepared))).unwrap();
        assert_eq!(
            json,
            serde_json::json!({"code": "invalid", "message": "No prepared update is waiting for a restart."})
        );
    }

    #[test]
    fn without_an_updater_every_command_is_unavailable() {
        let unavailable = |r: Result<serde_json::Value, BridgeError>| matches!(r, Err(BridgeError::Unavailable(_)));
        let json = |v: UpdateSnapshot| serde_json::to_value(v).unwrap();
        assert!(unavailable(block(status(None)).map(json)));
        assert!(unavailable(block(check(None)).map(json)));
        assert!(unavailable(block(download(None)).map(json)));
        assert!(unavailable(block(cancel(None)).map(json)));
        assert!(unavailable(block(prepare(None)).map(json)));
        assert!(unavailable(block(restart(None)).map(|r| serde_json::to_value(r).unwrap())));
        assert!(unavailable(block(release_notes(None)).map(|r| serde_json::to_value(r).unwrap())));
    }

    #[test]
    fn release_notes_are_camel_case_and_mark_the_running_version() {
        let running = Version::parse("1.2.0").unwrap();
        let note = |version: &str, published_at: Option<&str>| domain::updater::ReleaseNote {
            version: Version::parse(version).unwrap(),
            title: format!("Relay {version}"),
            published_at: published_at.map(str::to_owned),
            body: "## Fixes\n- <b>x</b>".into(),
        };
        let state = ReleaseNotesState {
            releases: vec![note("1.3.0", Some("2026-03-01T10:00:02Z")), note("1.2.0", None)],
            fetched_at_ms: Some(1_800_000_000_000),
        };
        let wire = serde_json::to_value(ReleaseNotesInfo::new(state, running)).unwrap();
        assert_eq!(
            wire,
            serde_json::json!({
                "releases": [
                    {"version": "1.3.0", "title": "Relay 1.3.0", "publishedAt": "2026-03-01T10:00:02Z", "body": "## Fixes\n- <b>x</b>", "current": false},
                    {"version": "1.2.0", "title": "Relay 1.2.0", "publishedAt": null, "body": "## Fixes\n- <b>x</b>", "current": true},
                ],
                "fetchedAtMs": 1_800_000_000_000i64,
            })
        );
        let empty = serde_json::to_value(ReleaseNotesInfo::new(ReleaseNotesState::default(), running)).unwrap();
        assert_eq!(empty, serde_json::json!({"releases": [], "fetchedAtMs": null}));
    }

    #[test]
    fn an_updater_without_notes_answers_an_empty_list() {
        let tmp = tempfile::tempdir().unwrap();
        let host = UpdaterHost::with_io(offline_io(tmp.path()));
        let wire = serde_json::to_value(block(release_notes(host.addr())).unwrap()).unwrap();
        assert_eq!(wire, serde_json::json!({"releases": [], "fetchedAtMs": null}));
        host.stop();
    }

    #[test]
    fn each_step_is_refused_until_its_predecessor_happened() {
        let tmp = tempfile::tempdir().unwrap();
        let host = UpdaterHost::with_io(offline_io(tmp.path()));
        let snapshot = block(status(host.addr())).unwrap();
        assert_eq!((snapshot.phase, snapshot.latest_version, snapshot.downloaded_bytes), (UpdatePhase::Idle, None, 0));
        let wire = serde_json::to_value(&snapshot).unwrap();
        assert_eq!(wire["phase"], "idle");
        assert_eq!(wire["currentVersion"], env!("CARGO_PKG_VERSION"));
        assert!(wire.get("downloadedBytes").is_some() && wire.get("totalBytes").is_some(), "{wire}");

        let invalid = |r: Result<UpdateSnapshot, BridgeError>| match r {
            Err(BridgeError::Invalid(message)) => message,
            other => panic!("expected invalid, got {other:?}"),
        };
        assert_eq!(invalid(block(download(host.addr()))), "No installable update is available to download.");
        assert_eq!(invalid(block(cancel(host.addr()))), "No download is in progress.");
        assert_eq!(invalid(block(prepare(host.addr()))), "No downloaded update is waiting to be prepared.");
        let restart = block(restart(host.addr()));
        assert_eq!(restart, Err(BridgeError::Invalid("No prepared update is waiting for a restart.".into())));
        assert_eq!(block(status(host.addr())).unwrap().phase, UpdatePhase::Idle, "refusals change nothing");
        host.stop();
        assert!(matches!(block(status(host.addr())), Err(BridgeError::Unavailable(_))), "a stopped updater");
    }

    #[test]
    fn restart_info_names_the_verified_executable_and_hands_nothing_off() {
        let target = RestartTarget {
            version: Version::parse("1.4.0").unwrap(),
            commit: domain::updater::CommitSha::parse_hex(&"ab".repeat(20)).unwrap(),
            executable: "/home/u/.local/share/relay/updates/v1.4.0-x/relay-desktop".into(),
            executable_sha256: domain::updater::Sha256Digest::from_bytes([7; 32]),
        };
        let wire = serde_json::to_value(RestartInfo::from(target)).unwrap();
        assert_eq!(
            wire,
            serde_json::json!({
                "version": "1.4.0",
                "commit": "ab".repeat(20),
                "executableSha256": "07".repeat(32),
                "handedOff": false,
            })
        );
        assert!(!wire.to_string().contains("/home/"), "the path stays in the shell");
    }
}
