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
//! the launcher starts the candidate; in client mode the offline cache and queue are first
//! checkpointed and closed (`CloseForRestart`; a failure refuses the restart, and they reopen
//! when nothing is handed off). An unmanaged installation (a debug or test build) answers
//! `handedOff: false` and executes nothing; an installation the launcher refuses (a pending
//! candidate, a quarantined release, an IO failure) is a refusal and nothing exits. Refusals keep
//! the actor's plain message; a setup window, or a desktop whose updater could not start, gets
//! `unavailable`.

use std::path::Path;
use std::time::Duration;

use actix::{Addr, Handler, Message};
use actors::offline_replay::{CloseForRestart, OfflineReplayActor, ReopenAfterRestartRefused};
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
        UpdaterError::NotAllowed(_) | UpdaterError::RepairFailed { .. } => BridgeError::Invalid(error.to_string()),
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
    offline: Option<Addr<OfflineReplayActor>>,
) -> Result<(RestartInfo, HandOff), BridgeError> {
    let target = ask(updater, RequestRestart).await?.map_err(refused)?;
    let current_exe = std::env::current_exe().ok();
    // Client mode: the cache and queue are checkpointed and closed before the launcher may
    // snapshot them; they open again if nothing is handed off after all.
    let is_managed = matches!(
        (managed_root.as_deref(), current_exe.as_deref()),
        (Some(root), Some(exe)) if managed_build_of(root, exe).is_ok_and(|build| build.is_some())
    );
    let closed = match offline.filter(|_| is_managed) {
        Some(offline) => {
            let answer = offline.send(CloseForRestart).await;
            answer
                .map_err(|_| BridgeError::Unavailable("The offline store stopped.".into()))?
                .map_err(|e| BridgeError::Invalid(format!("The restart was not started: {e}")))?;
            Some(offline)
        }
        None => None,
    };
    let installing = target.clone();
    let decided = tauri::async_runtime::spawn_blocking(move || {
        hand_off(managed_root.as_deref(), current_exe.as_deref(), &installing)
    })
    .await
    .map_err(|_| BridgeError::Unavailable("The update hand-off stopped.".into()));
    if let Some(offline) = &closed {
        if !matches!(decided, Ok(Ok(HandOff::Installed(_)))) {
            offline.do_send(ReopenAfterRestartRefused);
        }
    }
    let decision = decided?.map_err(|error| {
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

/// Exits the app with `code` [`HAND_OFF_EXIT_DELAY`] after now, so the command's answer reaches
/// the renderer first; the normal exit path then stops the updater and the backend (the data
/// directory's lock goes with the process at the latest) and the launcher takes over.
pub fn exit_after_answer<R: tauri::Runtime>(app: &tauri::AppHandle<R>, code: i32) {
    let app = app.clone();
    std::thread::spawn(move || {
        std::thread::sleep(HAND_OFF_EXIT_DELAY);
        app.exit(code);
    });
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
        let (info, decision) =
            restart(host.addr(), host.managed_root().map(Path::to_path_buf), bridge.offline()).await?;
        if let Some(code) = decision.exit_code() {
            exit_after_answer(webview.app_handle(), code);
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
#[path = "update_cmd_tests.rs"]
mod tests;

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
