//! The desktop's recovery commands (main window only; issue #14 item 5): `recovery_status`
//! reads the recovery launcher's catalog (current build, retained predecessors with each
//! marker's version and commit and whether a rollback to it is possible, a pending candidate or
//! rollback) for the Administration screen, and `recovery_rollback` asks the launcher to make a
//! retained build current. A rollback needs the server PC's Administration session held by the
//! Owner with a password confirmed in the last 5 minutes (`Authorize` with
//! `RecoveryManage`, audited as `recovery.rollback`); only then is the request written under the
//! recovery lock (`infra::recovery::request_rollback` proves the build is a retained
//! predecessor whose runtime verifies and whose data epochs equal the current build's), and the
//! app exits with the hand-off code so the launcher, which re-checks everything, switches. The
//! renderer names only a build id from the list; paths, executables and versions are never
//! taken from it. `recovery_repair` (the same approval, audited as `recovery.repair`) puts back
//! a retained build's executable when it changed: the updater downloads that build's own
//! immutable release by its marker's version and commit (`StageRepair`, the update's checks),
//! and `infra::recovery::repair_runtime` accepts it only if it hashes to the marker's value; an
//! intact build downloads nothing. Its bytes show in `recovery_status` while it runs. An
//! installation the launcher does not manage answers `managed: false` and can roll back or
//! repair nothing.

use std::path::Path;
use std::time::Duration;

use actix::Addr;
use actors::privileged::{Authorize, Caller, SessionKind};
use actors::updater::{RepairProgress, StageRepair, UpdaterActor};
use domain::roles::Capability;
use domain::updater::{BuildId, CommitSha, Version};
use infra::recovery::{
    recovery_overview, repair_runtime, repair_subject, request_rollback, retained_build_of, ManagedRoot,
    RecoveryIoError, RecoveryLock, RecoveryOverview, RepairOutcome, RepairSubject, RollbackRequest,
};
use serde::Serialize;

use crate::admin_cmd::{self, AdminSession};
use crate::bridge::{Access, Bridge, BridgeError, Command};

pub const RECOVERY_STATUS: Command = Command::new("recovery_status", Access::MainOnly);
pub const RECOVERY_ROLLBACK: Command = Command::new("recovery_rollback", Access::MainOnly);
pub const RECOVERY_REPAIR: Command = Command::new("recovery_repair", Access::MainOnly);

/// How long a rollback waits for the recovery lock (the launcher holds it only briefly while a
/// runtime runs).
const LOCK_WAIT: Duration = Duration::from_secs(5);

/// What the Administration screen's Recovery section shows.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RecoveryStatus {
    /// This process is a runtime of the launcher's managed root.
    pub managed: bool,
    pub overview: Option<RecoveryOverview>,
    /// The repair download in flight (its bytes), if any.
    pub repair: Option<RepairProgress>,
}

/// What `recovery_rollback` did: the target build (the app exits into it).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RollbackInfo {
    pub build: String,
    pub version: String,
}

fn unmanaged() -> BridgeError {
    BridgeError::Unavailable(
        "This installation is not managed by the Relay launcher, so it has no retained builds to roll back to.".into(),
    )
}

/// The managed root, when `current_exe` is one of its catalog's runtimes (a retained
/// predecessor too: the launcher's recovery entry starts one).
fn managed(root_path: Option<&Path>, current_exe: Option<&Path>) -> Result<Option<ManagedRoot>, RecoveryIoError> {
    let (Some(root_path), Some(exe)) = (root_path, current_exe) else { return Ok(None) };
    if retained_build_of(root_path, exe)?.is_none() {
        return Ok(None);
    }
    ManagedRoot::open_existing(root_path)
}

/// `recovery_status` without Tauri (blocking: reads the catalog and the markers).
pub fn status(root_path: Option<&Path>, current_exe: Option<&Path>) -> Result<RecoveryStatus, BridgeError> {
    let root = managed(root_path, current_exe).map_err(read_failed)?;
    let Some(root) = root else { return Ok(RecoveryStatus { managed: false, overview: None, repair: None }) };
    let overview = recovery_overview(&root).map_err(read_failed)?;
    Ok(RecoveryStatus { managed: true, overview, repair: None })
}

fn read_failed(error: RecoveryIoError) -> BridgeError {
    BridgeError::Unavailable(format!("The recovery state cannot be read ({}).", error.code()))
}

/// The Owner's sentence for a refusal reason of a rollback or repair.
fn sentence(reason: &str) -> Option<&'static str> {
    Some(match reason {
        "candidate_pending" => "An update is being installed; wait until it settles.",
        "not_retained" => "That build is not one of the retained builds.",
        "target_unusable" => "That build's files no longer match their record, so it cannot be started.",
        "data_epoch_mismatch" => "That build cannot read today's data format, so rolling back to it is blocked.",
        "marker_unusable" => "That build's record cannot be proved, so it cannot be repaired; Relay will not start it.",
        "digest_mismatch" => "The downloaded release does not match this build's record; nothing was changed.",
        _ => return None,
    })
}

/// A refused rollback or repair as the renderer sees it: a known reason as `invalid` with its
/// sentence, the lock as `unavailable` (busy), anything else `unavailable` naming `what` failed.
fn refusal(error: &RecoveryIoError, what: &str) -> BridgeError {
    match error {
        RecoveryIoError::RollbackRefused(reason) | RecoveryIoError::RepairRefused(reason) => match sentence(reason) {
            Some(text) => BridgeError::Invalid(text.into()),
            None => BridgeError::Unavailable(format!("The {what} ({}).", error.code())),
        },
        RecoveryIoError::Locked => BridgeError::Unavailable("The recovery launcher is busy; try again.".into()),
        other => BridgeError::Unavailable(format!("The {what} ({}).", other.code())),
    }
}

/// A refused rollback as the renderer sees it.
pub fn rollback_refused(error: &RecoveryIoError) -> BridgeError {
    refusal(error, "rollback could not be requested")
}

/// A refused repair as the renderer sees it.
pub fn repair_refused(error: &RecoveryIoError) -> BridgeError {
    refusal(error, "repair could not be done")
}

/// The Owner's approval of `action` on `build`: a build id of the grammar, the server PC's
/// Administration session, a managed installation, then `RecoveryManage` with a fresh password
/// (audited). Answers the build and this process's executable.
async fn approve(
    bridge: &Bridge,
    session: &AdminSession,
    root_path: Option<&Path>,
    build: &str,
    action: &'static str,
) -> Result<(BuildId, Option<std::path::PathBuf>), BridgeError> {
    let build = parse_build(build)?;
    admin_cmd::require_session(bridge, session)?;
    let current_exe = std::env::current_exe().ok();
    if !matches!(managed(root_path, current_exe.as_deref()), Ok(Some(_))) {
        return Err(unmanaged());
    }
    let target = build.to_string();
    let authorize = |id| Authorize {
        caller: Caller::Session { family: SessionKind::Local, id },
        capability: Capability::RecoveryManage,
        action,
        target,
        fresh_password: true,
    };
    admin_cmd::in_session(bridge, session, authorize).await?;
    Ok((build, current_exe))
}

/// Writes the rollback request (blocking; the caller has authorized it).
pub fn request(
    root_path: Option<&Path>,
    current_exe: Option<&Path>,
    build: &BuildId,
    now_ms: u64,
) -> Result<(RollbackRequest, String), BridgeError> {
    let root = managed(root_path, current_exe).map_err(read_failed)?.ok_or_else(unmanaged)?;
    let lock = RecoveryLock::acquire(&root, LOCK_WAIT).map_err(|e| rollback_refused(&e))?;
    let request = request_rollback(&root, &lock, build, now_ms).map_err(|e| rollback_refused(&e))?;
    let version = infra::recovery::marker::read_marker(&root, build)
        .ok()
        .flatten()
        .map(|(_, marker)| marker.version)
        .unwrap_or_default();
    Ok((request, version))
}

fn parse_build(build: &str) -> Result<BuildId, BridgeError> {
    BuildId::parse(build).map_err(|_| BridgeError::Invalid("That is not a build of this installation.".into()))
}

/// `recovery_rollback`: the Owner's fresh approval, then the request; answers what the app
/// exits into.
pub async fn rollback(
    bridge: &Bridge,
    session: &AdminSession,
    root_path: Option<std::path::PathBuf>,
    build: String,
) -> Result<RollbackInfo, BridgeError> {
    let (build, current_exe) = approve(bridge, session, root_path.as_deref(), &build, "recovery.rollback").await?;
    let now_ms = infra::clock::wall_ms();
    let target = build.clone();
    let (request, version) = tauri::async_runtime::spawn_blocking(move || {
        request(root_path.as_deref(), current_exe.as_deref(), &target, now_ms)
    })
    .await
    .map_err(|_| BridgeError::Unavailable("The rollback request stopped.".into()))??;
    tracing::warn!(from = %request.source, to = %request.target, "manual rollback requested; exiting into the launcher");
    Ok(RollbackInfo { build: build.to_string(), version })
}

/// What `recovery_repair` did: `repaired` false when the build's files were intact already
/// (nothing was downloaded).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RepairInfo {
    pub build: String,
    pub version: String,
    pub repaired: bool,
}

/// Blocking: the retained build as a repair sees it (its release, whether it is intact).
pub fn repair_target_of(
    root_path: Option<&Path>,
    current_exe: Option<&Path>,
    build: &BuildId,
) -> Result<RepairSubject, BridgeError> {
    let root = managed(root_path, current_exe).map_err(read_failed)?.ok_or_else(unmanaged)?;
    repair_subject(&root, build).map_err(|e| repair_refused(&e))
}

/// Blocking: puts the staged executable back as `build`'s, under the recovery lock.
pub fn put_back(
    root_path: Option<&Path>,
    current_exe: Option<&Path>,
    build: &BuildId,
    staged: &Path,
) -> Result<RepairOutcome, BridgeError> {
    let root = managed(root_path, current_exe).map_err(read_failed)?.ok_or_else(unmanaged)?;
    let lock = RecoveryLock::acquire(&root, LOCK_WAIT).map_err(|e| repair_refused(&e))?;
    repair_runtime(&root, &lock, build, staged).map_err(|e| repair_refused(&e))
}

/// `recovery_repair`: the Owner's fresh approval, then (when the build's files changed) its own
/// release downloaded and verified by the updater and put back; answers what was done.
pub async fn repair(
    bridge: &Bridge,
    session: &AdminSession,
    root_path: Option<std::path::PathBuf>,
    updater: Option<Addr<UpdaterActor>>,
    build: String,
) -> Result<RepairInfo, BridgeError> {
    let (build, current_exe) = approve(bridge, session, root_path.as_deref(), &build, "recovery.repair").await?;
    let stopped = || BridgeError::Unavailable("The repair stopped.".into());
    let (root, exe, target) = (root_path.clone(), current_exe.clone(), build.clone());
    let subject =
        tauri::async_runtime::spawn_blocking(move || repair_target_of(root.as_deref(), exe.as_deref(), &target))
            .await
            .map_err(|_| stopped())??;
    if subject.intact {
        return Ok(RepairInfo { build: build.to_string(), version: subject.version, repaired: false });
    }
    let release = Version::parse(&subject.version).ok().zip(CommitSha::parse_hex(&subject.commit));
    let (version, commit) =
        release.ok_or_else(|| repair_refused(&RecoveryIoError::RepairRefused("marker_unusable")))?;
    let updater = updater.ok_or_else(|| BridgeError::Unavailable("The updater is not running here.".into()))?;
    let staged = updater
        .send(StageRepair { version, commit })
        .await
        .map_err(|_| stopped())?
        .map_err(crate::update_cmd::refused)?;
    let target = build.clone();
    let outcome = tauri::async_runtime::spawn_blocking(move || {
        let outcome = put_back(root_path.as_deref(), current_exe.as_deref(), &target, &staged.executable());
        drop(staged);
        outcome
    })
    .await
    .map_err(|_| stopped())??;
    tracing::warn!(%build, %version, ?outcome, "retained build repaired from its release");
    Ok(RepairInfo {
        build: build.to_string(),
        version: version.to_string(),
        repaired: outcome == RepairOutcome::Repaired,
    })
}

mod commands {
    use tauri::{Manager, State, Webview};

    use super::*;
    use crate::bridge::caller;
    use crate::update_cmd::{exit_after_answer, HAND_OFF_EXIT_CODE};
    use crate::updater_host::UpdaterHost;

    #[tauri::command]
    pub async fn recovery_status<R: tauri::Runtime>(
        webview: Webview<R>,
        bridge: State<'_, Bridge>,
        host: State<'_, UpdaterHost>,
    ) -> Result<RecoveryStatus, BridgeError> {
        caller(RECOVERY_STATUS, &webview, &bridge)?;
        let root = host.managed_root().map(Path::to_path_buf);
        let exe = std::env::current_exe().ok();
        let mut answer = tauri::async_runtime::spawn_blocking(move || status(root.as_deref(), exe.as_deref()))
            .await
            .map_err(|_| BridgeError::Unavailable("The recovery state could not be read.".into()))??;
        if let Some(updater) = host.addr() {
            answer.repair = updater.send(actors::updater::RepairStatus).await.ok().flatten();
        }
        Ok(answer)
    }

    #[tauri::command]
    pub async fn recovery_repair<R: tauri::Runtime>(
        webview: Webview<R>,
        bridge: State<'_, Bridge>,
        session: State<'_, AdminSession>,
        host: State<'_, UpdaterHost>,
        build: String,
    ) -> Result<RepairInfo, BridgeError> {
        caller(RECOVERY_REPAIR, &webview, &bridge)?;
        repair(&bridge, &session, host.managed_root().map(Path::to_path_buf), host.addr(), build).await
    }

    #[tauri::command]
    pub async fn recovery_rollback<R: tauri::Runtime>(
        webview: Webview<R>,
        bridge: State<'_, Bridge>,
        session: State<'_, AdminSession>,
        host: State<'_, UpdaterHost>,
        build: String,
    ) -> Result<RollbackInfo, BridgeError> {
        caller(RECOVERY_ROLLBACK, &webview, &bridge)?;
        let info = rollback(&bridge, &session, host.managed_root().map(Path::to_path_buf), build).await?;
        // After the answer reaches the renderer, exactly like a restart into an update.
        exit_after_answer(webview.app_handle(), HAND_OFF_EXIT_CODE);
        Ok(info)
    }
}

pub use commands::*;

#[cfg(test)]
#[path = "recovery_cmd_tests.rs"]
mod tests;
