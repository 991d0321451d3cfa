//! The desktop's update commands (both modes, main window only): `update_status` (the state,
//! with the bytes received while a download runs; the renderer polls it), `update_check`
//! ("Check for updates"), `update_download`, `update_cancel`, `update_prepare` and
//! `update_restart`, and `update_release_notes` (Settings → About: the release notes the
//! updater holds, from its cache or its last fetch, each marked `current` when it is the running
//! version; bodies are bounded, sanitized Markdown text the renderer shows as text nodes). Each is one message to the shell's updater actor (`updater_host`), one
//! explicit step: none starts the next. They take no argument at all: the repository, release,
//! URLs, asset names, paths and the publisher key are build-time constants in the actor's IO,
//! so the renderer can name none of them. `update_restart` re-verifies the prepared executable
//! and, when this process is a launcher-managed runtime, hands it to the recovery launcher
//! ([`hand_off`]: `infra::recovery::install_candidate` registers it as the catalog's candidate),
//! answers what was verified (version, commit, SHA-256; never the path or the transaction) with
//! `handedOff: true`, and exits the app with [`HAND_OFF_EXIT_CODE`] shortly after the answer, so
//! the launcher starts the candidate. An unmanaged installation (a debug or test build) answers
//! `handedOff: false` and executes nothing; an installation the launcher refuses (a pending
//! candidate, a quarantined release, an IO failure) is a refusal and nothing exits. Refusals keep
//! the actor's plain message; a setup window, or a desktop whose updater could not start, gets
//! `unavailable`.

use std::path::Path;
use std::time::Duration;

use actix::{Addr, Handler, Message};
use actors::updater::{
    running_version, CancelDownload, CheckNow, ReleaseNotesSnapshot, ReleaseNotesState, RequestRestart, RestartTarget,
    Snapshot, StartDownload, StartPrepare, UpdaterActor, UpdaterError,
};
use domain::updater::{BuildId, UpdateSnapshot, Version};
use infra::recovery::{install_candidate, managed_build_of, ManagedRoot, RecoveryIoError};
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
    /// Whether the executable was handed to the recovery launcher (the app then exits with
    /// [`HAND_OFF_EXIT_CODE`]); `false` on an installation the launcher does not manage.
    pub handed_off: bool,
}

impl RestartInfo {
    /// What the dialog shows for `target` after `hand_off` decided `handed_off`.
    pub fn new(target: &RestartTarget, hand_off: &HandOff) -> RestartInfo {
        RestartInfo {
            version: target.version,
            commit: target.commit.to_hex(),
            executable_sha256: target.executable_sha256.to_hex(),
            handed_off: hand_off.exit_code().is_some(),
        }
    }
}

/// The exit code that tells `relay-launcher` "a candidate was installed; restart into it".
pub const HAND_OFF_EXIT_CODE: i32 = 75;
/// How long the app waits after answering a hand-off before it exits, so the renderer receives
/// the answer and shows it.
pub const HAND_OFF_EXIT_DELAY: Duration = Duration::from_millis(1500);

/// What Restart did with the re-verified executable.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HandOff {
    /// Installed as the launcher's candidate (this build id): the app exits with
    /// [`HAND_OFF_EXIT_CODE`].
    Installed(BuildId),
    /// This process is not a runtime of the managed root: nothing installed, nothing exits.
    Unmanaged,
}

impl HandOff {
    /// The code the app exits with after answering, if any.
    pub fn exit_code(&self) -> Option<i32> {
        match self {
            HandOff::Installed(_) => Some(HAND_OFF_EXIT_CODE),
            HandOff::Unmanaged => None,
        }
    }
}

/// Restart's decision without Tauri: when `current_exe` is a runtime of the managed root at
/// `managed_root` (`managed_build_of`), installs `target` there as the candidate
/// (`install_candidate` re-hashes the file against the prepared SHA-256); otherwise nothing.
/// Blocking (a copy of up to 512 MiB under the recovery lock).
pub fn hand_off(
    managed_root: Option<&Path>,
    current_exe: Option<&Path>,
    target: &RestartTarget,
) -> Result<HandOff, RecoveryIoError> {
    let (Some(root_path), Some(exe)) = (managed_root, current_exe) else {
        return Ok(HandOff::Unmanaged);
    };
    if managed_build_of(root_path, exe)?.is_none() {
        return Ok(HandOff::Unmanaged);
    }
    let root = ManagedRoot::open_existing(root_path)?.ok_or(RecoveryIoError::NoCatalog)?;
    let ticket =
        install_candidate(&root, &target.executable, &target.executable_sha256, target.version, target.commit)?;
    Ok(HandOff::Installed(ticket.build))
}

/// A refused installation as the renderer sees it: the launcher's plain sentence with its code;
/// a pending candidate or a quarantined release is `invalid` (the state does not allow it),
/// anything else `unavailable`.
pub fn install_refused(error: &RecoveryIoError) -> BridgeError {
    let message = format!("The update was not handed to the Relay launcher: {error} ({})", error.code());
    match error {
        RecoveryIoError::CandidateExists | RecoveryIoError::Quarantined => BridgeError::Invalid(message),
        _ => BridgeError::Unavailable(message),
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

/// `update_restart`: re-verifies the prepared executable and hands it to the launcher when this
/// is a managed runtime ([`hand_off`], on a blocking thread). The caller exits the app when the
/// decision has an exit code.
pub async fn restart(
    updater: Option<Addr<UpdaterActor>>,
    managed_root: Option<std::path::PathBuf>,
) -> Result<(RestartInfo, HandOff), BridgeError> {
    let target = ask(updater, RequestRestart).await?.map_err(refused)?;
    let current_exe = std::env::current_exe().ok();
    let installing = target.clone();
    let decided = tauri::async_runtime::spawn_blocking(move || {
        hand_off(managed_root.as_deref(), current_exe.as_deref(), &installing)
    })
    .await
    .map_err(|_| BridgeError::Unavailable("The update hand-off stopped.".into()))?;
    let decision = decided.map_err(|error| {
        tracing::warn!(version = %target.version, reason = error.code(), "the prepared update was not handed to the launcher");
        install_refused(&error)
    })?;
    match &decision {
        HandOff::Installed(build) => {
            tracing::info!(version = %target.version, %build, "prepared update installed as the launcher's candidate; exiting to restart into it")
        }
        HandOff::Unmanaged => {
            tracing::info!(version = %target.version, "prepared update verified; this installation is not launcher-managed, nothing runs")
        }
    }
    Ok((RestartInfo::new(&target, &decision), decision))
}

/// `update_release_notes`: the release notes the updater holds (no request goes out).
pub async fn release_notes(updater: Option<Addr<UpdaterActor>>) -> Result<ReleaseNotesInfo, BridgeError> {
    let state = ask(updater, ReleaseNotesSnapshot).await?;
    Ok(ReleaseNotesInfo::new(state, running_version()))
}

mod commands {
    use tauri::{Manager, State, Webview};

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
        let (info, decision) = restart(host.addr(), host.managed_root().map(Path::to_path_buf)).await?;
        if let Some(code) = decision.exit_code() {
            // After the answer reaches the renderer; the normal exit path then stops the updater
            // and the backend (the data directory's lock goes with the process at the latest).
            let app = webview.app_handle().clone();
            std::thread::spawn(move || {
                std::thread::sleep(HAND_OFF_EXIT_DELAY);
                app.exit(code);
            });
        }
        Ok(info)
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
        assert!(unavailable(block(restart(None, None)).map(|(r, _)| serde_json::to_value(r).unwrap())));
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
        let restart = block(restart(host.addr(), None));
        assert_eq!(restart, Err(BridgeError::Invalid("No prepared update is waiting for a restart.".into())));
        assert_eq!(block(status(host.addr())).unwrap().phase, UpdatePhase::Idle, "refusals change nothing");
        host.stop();
        assert!(matches!(block(status(host.addr())), Err(BridgeError::Unavailable(_))), "a stopped updater");
    }

    fn target(dir: &Path, bytes: &[u8], version: &str) -> RestartTarget {
        use sha2::Digest;
        let executable = dir.join(format!("staged-{version}"));
        std::fs::write(&executable, bytes).unwrap();
        let digest: [u8; 32] = sha2::Sha256::digest(bytes).into();
        RestartTarget {
            version: Version::parse(version).unwrap(),
            commit: domain::updater::CommitSha::parse_hex(&format!("0123abcd{}", "e".repeat(32))).unwrap(),
            executable,
            executable_sha256: domain::updater::Sha256Digest::from_bytes(digest),
        }
    }

    #[test]
    fn restart_info_names_the_verified_executable_and_whether_it_was_handed_off() {
        let target = RestartTarget {
            version: Version::parse("1.4.0").unwrap(),
            commit: domain::updater::CommitSha::parse_hex(&"ab".repeat(20)).unwrap(),
            executable: "/home/u/.local/share/relay/updates/v1.4.0-x/relay-desktop".into(),
            executable_sha256: domain::updater::Sha256Digest::from_bytes([7; 32]),
        };
        let wire = serde_json::to_value(RestartInfo::new(&target, &HandOff::Unmanaged)).unwrap();
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
        let installed = HandOff::Installed(BuildId::parse("v1-4-0-abababab").unwrap());
        let wire = serde_json::to_value(RestartInfo::new(&target, &installed)).unwrap();
        assert_eq!(wire["handedOff"], true);
        assert!(!wire.to_string().contains("/home/") && !wire.to_string().contains("v1-4-0"), "{wire}");
        assert_eq!(installed.exit_code(), Some(75));
        assert_eq!(HandOff::Unmanaged.exit_code(), None);
    }

    #[test]
    fn a_managed_runtime_installs_the_candidate_and_exits_75() {
        let layout = managed::Layout::new();
        let staged = target(layout.tmp.path(), b"the new runtime", "1.2.3");
        let decision = hand_off(Some(&layout.root_path), Some(&layout.current_exe), &staged).unwrap();
        let build = BuildId::parse("v1-2-3-0123abcd").unwrap();
        assert_eq!(decision, HandOff::Installed(build.clone()));
        assert_eq!(decision.exit_code(), Some(HAND_OFF_EXIT_CODE));
        let catalog = layout.catalog();
        let candidate = catalog.candidate.expect("the catalog names the candidate");
        assert_eq!(candidate.build, build);
        assert_eq!(candidate.source_build, catalog.current.build);
        let installed = layout.root.runtime_dir(&build).join(infra::recovery::EXECUTABLE_NAME);
        assert_eq!(std::fs::read(installed).unwrap(), b"the new runtime");
        let refusal = install_refused(&RecoveryIoError::Locked);
        assert!(matches!(&refusal, BridgeError::Unavailable(m) if m.ends_with("(recovery_locked)")), "{refusal:?}");
    }

    #[test]
    fn an_unmanaged_installation_installs_nothing() {
        let layout = managed::Layout::new();
        let staged = target(layout.tmp.path(), b"the new runtime", "1.2.3");
        let elsewhere = layout.tmp.path().join("relay-desktop");
        std::fs::write(&elsewhere, b"current").unwrap();
        assert_eq!(hand_off(Some(&layout.root_path), Some(&elsewhere), &staged).unwrap(), HandOff::Unmanaged);
        assert_eq!(hand_off(None, Some(&layout.current_exe), &staged).unwrap(), HandOff::Unmanaged);
        assert_eq!(hand_off(Some(&layout.root_path), None, &staged).unwrap(), HandOff::Unmanaged);
        let no_root = layout.tmp.path().join("nowhere/relay");
        assert_eq!(hand_off(Some(&no_root), Some(&layout.current_exe), &staged).unwrap(), HandOff::Unmanaged);
        assert_eq!(layout.catalog().candidate, None);
        assert_eq!(std::fs::read_dir(layout.root.runtimes_dir()).unwrap().count(), 1, "nothing installed");
    }

    #[test]
    fn a_quarantined_release_is_refused_and_nothing_exits() {
        let layout = managed::Layout::new();
        let staged = target(layout.tmp.path(), b"the new runtime", "1.2.3");
        layout.quarantine(staged.version, staged.commit);
        let refused = hand_off(Some(&layout.root_path), Some(&layout.current_exe), &staged).unwrap_err();
        assert!(matches!(refused, RecoveryIoError::Quarantined), "{refused:?}");
        let wire = install_refused(&refused);
        assert!(matches!(&wire, BridgeError::Invalid(m) if m.ends_with("(release_quarantined)")), "{wire:?}");
        assert_eq!(layout.catalog().candidate, None);
        assert_eq!(std::fs::read_dir(layout.root.runtimes_dir()).unwrap().count(), 1, "nothing installed");
    }

    #[test]
    fn a_pending_candidate_refuses_a_second_hand_off() {
        let layout = managed::Layout::new();
        let first = target(layout.tmp.path(), b"the new runtime", "1.2.3");
        hand_off(Some(&layout.root_path), Some(&layout.current_exe), &first).unwrap();
        let second = target(layout.tmp.path(), b"a newer runtime", "1.2.4");
        let refused = hand_off(Some(&layout.root_path), Some(&layout.current_exe), &second).unwrap_err();
        assert!(matches!(refused, RecoveryIoError::CandidateExists), "{refused:?}");
        assert!(matches!(install_refused(&refused), BridgeError::Invalid(m) if m.ends_with("(candidate_exists)")));
        let candidate = layout.catalog().candidate.unwrap();
        assert_eq!(candidate.build.as_str(), "v1-2-3-0123abcd", "the first candidate stays");
        assert!(!layout.root.runtime_dir(&BuildId::parse("v1-2-4-0123abcd").unwrap()).exists());
    }
}

/// Tests: a real managed root in a temporary directory, built through `infra::recovery`'s
/// public API (the launcher's own fixtures are private to `infra`).
#[cfg(test)]
pub(crate) mod managed {
    use std::fs;
    use std::os::unix::fs::PermissionsExt;
    use std::path::PathBuf;

    use domain::updater::{BuildId, CommitSha, ReleaseFingerprint, Version};
    use infra::recovery::{
        Catalog, CatalogBuild, ManagedRoot, RecoveryLock, RuntimeMarker, EXECUTABLE_NAME, MARKER_NAME,
    };
    use sha2::{Digest, Sha512};

    pub struct Layout {
        pub tmp: tempfile::TempDir,
        pub root_path: PathBuf,
        pub root: ManagedRoot,
        /// `runtimes/v1-0-0-aaaaaaaa/relay-desktop`, the catalog's current build.
        pub current_exe: PathBuf,
    }

    fn hex(bytes: &[u8]) -> String {
        bytes.iter().map(|b| format!("{b:02x}")).collect()
    }

    impl Layout {
        /// A managed root whose catalog has one current runtime.
        pub fn new() -> Layout {
            let tmp = tempfile::tempdir().unwrap();
            let root_path = tmp.path().join("relay");
            let root = ManagedRoot::open(&root_path).unwrap();
            let build = BuildId::parse("v1-0-0-aaaaaaaa").unwrap();
            let dir = root.runtime_dir(&build);
            fs::create_dir(&dir).unwrap();
            fs::set_permissions(&dir, fs::Permissions::from_mode(0o700)).unwrap();
            let current_exe = dir.join(EXECUTABLE_NAME);
            fs::write(&current_exe, b"current").unwrap();
            fs::set_permissions(&current_exe, fs::Permissions::from_mode(0o700)).unwrap();
            let sha512: [u8; 64] = Sha512::digest(b"current").into();
            let version = Version::parse("1.0.0").unwrap();
            let commit = CommitSha::parse_hex(&"a".repeat(40)).unwrap();
            let marker = RuntimeMarker::new(&build, &version, &commit, &sha512).to_json();
            fs::write(dir.join(MARKER_NAME), &marker).unwrap();
            fs::set_permissions(dir.join(MARKER_NAME), fs::Permissions::from_mode(0o600)).unwrap();
            let current = CatalogBuild { build, marker_sha512: hex(&Sha512::digest(&marker)), promoted_at_ms: 1 };
            let layout = Layout { tmp, root_path, root, current_exe };
            layout.write(&Catalog::with_current(current));
            layout
        }

        pub fn catalog(&self) -> Catalog {
            infra::recovery::read_catalog(&self.root).unwrap().expect("a catalog")
        }

        pub fn write(&self, catalog: &Catalog) {
            let lock = RecoveryLock::acquire(&self.root, std::time::Duration::ZERO).unwrap();
            infra::recovery::write_catalog(&self.root, &lock, catalog).unwrap();
        }

        /// Adds a retained predecessor `build` (version `version`, promoted before the current
        /// build) with a valid marker.
        pub fn add_predecessor(&self, build: &str, version: &str) {
            let build = BuildId::parse(build).unwrap();
            let dir = self.root.runtime_dir(&build);
            fs::create_dir(&dir).unwrap();
            fs::set_permissions(&dir, fs::Permissions::from_mode(0o700)).unwrap();
            let contents = format!("runtime {build}");
            fs::write(dir.join(EXECUTABLE_NAME), &contents).unwrap();
            fs::set_permissions(dir.join(EXECUTABLE_NAME), fs::Permissions::from_mode(0o700)).unwrap();
            let sha512: [u8; 64] = Sha512::digest(contents.as_bytes()).into();
            let version = Version::parse(version).unwrap();
            let commit = CommitSha::parse_hex(&"b".repeat(40)).unwrap();
            let marker = RuntimeMarker::new(&build, &version, &commit, &sha512).to_json();
            fs::write(dir.join(MARKER_NAME), &marker).unwrap();
            let mut catalog = self.catalog();
            catalog.current.promoted_at_ms = catalog.current.promoted_at_ms.max(1_000);
            let promoted_at_ms = catalog.current.promoted_at_ms - 1 - catalog.predecessors.len() as u64;
            catalog.predecessors.push(CatalogBuild {
                build,
                marker_sha512: hex(&Sha512::digest(&marker)),
                promoted_at_ms,
            });
            self.write(&catalog);
        }

        /// Records `version@commit` as a release that failed its probation.
        pub fn quarantine(&self, version: Version, commit: CommitSha) {
            let mut catalog = self.catalog();
            catalog.quarantine.quarantine(ReleaseFingerprint { version, commit });
            self.write(&catalog);
        }
    }
}
