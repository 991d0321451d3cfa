//! The updater's repair download (Administration → Recovery → Repair, after the Owner's freshly
//! reauthenticated approval in the desktop shell): [`StageRepair`] fetches the release of
//! exactly a retained build's version from the fixed repository's "release by tag" endpoint,
//! requires it to be that build's commit, immutable and with exactly the expected assets
//! (`domain::updater::repair_target`), downloads it through the same verified downloader as an
//! update (GitHub digest, checksum file, publisher signature) and prepares its executable with
//! the same archive rules, on the worker thread. It answers the staged executable
//! ([`RepairStaged`]; dropping it removes the staging); the shell then hands it to
//! `infra::recovery::repair_runtime`, which accepts it only if its SHA-512 is the one the
//! build's marker names. One repair at a time, at most one per minute (the network-action
//! limit), never before a `Retry-After` GitHub sent; its bytes are in [`RepairStatus`]. It never
//! touches the update state machine or the offered release.

use std::path::PathBuf;
use std::sync::Arc;

use actix::prelude::*;
use futures_util::FutureExt;

use domain::updater::{repair_target, CommitSha, Version};
use infra::http::CancellationToken;
use infra::updater::{prepare_release, DiscoveryFailure, DownloadProgress, PreparedRelease, UpdatesRoot};

use super::{UpdaterActor, UpdaterError, UpdaterIo, NAME};

/// Stages the release of exactly `version` at `commit` for a repair (see the module paragraph).
#[derive(Debug, Clone, Copy, Message)]
#[rtype(result = "Result<RepairStaged, UpdaterError>")]
pub struct StageRepair {
    pub version: Version,
    pub commit: CommitSha,
}

/// The bytes of the repair download in flight, if one runs.
#[derive(Debug, Clone, Copy, Message)]
#[rtype(result = "Option<RepairProgress>")]
pub struct RepairStatus;

#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RepairProgress {
    pub version: Version,
    pub downloaded_bytes: u64,
    pub total_bytes: Option<u64>,
}

/// A prepared executable for a repair; dropping it removes its staging directory.
#[derive(Debug)]
pub struct RepairStaged {
    prepared: PreparedRelease,
}

impl RepairStaged {
    pub fn executable(&self) -> PathBuf {
        self.prepared.executable_path()
    }
}

/// The repair in flight.
#[derive(Debug, Default)]
pub(super) struct RepairJob {
    pub(super) progress: Option<RepairProgress>,
    pub(super) last_started_ms: Option<i64>,
}

struct RepairProgressed {
    done: u64,
    total: u64,
}

impl Message for RepairProgressed {
    type Result = ();
}

impl Handler<RepairProgressed> for UpdaterActor {
    type Result = ();
    fn handle(&mut self, msg: RepairProgressed, _: &mut Context<Self>) {
        if let Some(progress) = &mut self.repair.progress {
            progress.downloaded_bytes = msg.done;
            progress.total_bytes = Some(msg.total);
        }
    }
}

impl Handler<RepairStatus> for UpdaterActor {
    type Result = Option<RepairProgress>;
    fn handle(&mut self, _: RepairStatus, _: &mut Context<Self>) -> Self::Result {
        self.repair.progress
    }
}

impl Handler<StageRepair> for UpdaterActor {
    type Result = ResponseActFuture<Self, Result<RepairStaged, UpdaterError>>;
    fn handle(&mut self, msg: StageRepair, ctx: &mut Context<Self>) -> Self::Result {
        let now = self.subsystem.now_ms();
        if self.repair.progress.is_some() {
            return Box::pin(fut::ready(Err(UpdaterError::Busy)));
        }
        let gate = super::plan::check_gate(
            now,
            self.repair.last_started_ms,
            self.config.on_demand_interval_ms,
            self.github_not_before_ms,
        );
        if let Err(refusal) = gate {
            let error = match refusal {
                super::plan::CheckRefusal::OnDemandTooSoon { retry_after_secs } => {
                    UpdaterError::RateLimited { retry_after_secs }
                }
                super::plan::CheckRefusal::GitHubWait { retry_after_secs } => {
                    UpdaterError::GitHubRateLimited { retry_after_secs }
                }
            };
            return Box::pin(fut::ready(Err(error)));
        }
        self.repair.last_started_ms = Some(now);
        self.repair.progress = Some(RepairProgress { version: msg.version, downloaded_bytes: 0, total_bytes: None });
        let addr = ctx.address();
        let work = stage(self.io.clone(), msg, move |p: DownloadProgress| {
            addr.do_send(RepairProgressed { done: p.bytes_done, total: p.bytes_total })
        });
        let panicked = Err(RepairFailure("repair_panicked"));
        let done = self.worker.run(std::panic::AssertUnwindSafe(work).catch_unwind().map(|r| r.unwrap_or(panicked)));
        Box::pin(done.into_actor(self).map(move |result, act, _| {
            act.repair.progress = None;
            match result {
                Ok(Ok(prepared)) => Ok(RepairStaged { prepared }),
                Ok(Err(RepairFailure(code))) => {
                    act.subsystem.report_failure(NAME, format!("repair download failed: {code}"));
                    Err(UpdaterError::RepairFailed { code })
                }
                Err(_) => Err(UpdaterError::Unavailable),
            }
        }))
    }
}

/// Why a repair could not be staged (a log and wire code).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct RepairFailure(&'static str);

async fn stage(
    io: Arc<UpdaterIo>,
    request: StageRepair,
    mut progress: impl FnMut(DownloadProgress) + Send,
) -> Result<PreparedRelease, RepairFailure> {
    let cancel = CancellationToken::new();
    let check = io.discovery.fetch_release(request.version, &cancel).await.map_err(|error| match error {
        DiscoveryFailure::RateLimited { .. } => RepairFailure("github_rate_limited"),
        other => RepairFailure(other.code()),
    })?;
    let target = repair_target(&check, request.version, request.commit).map_err(|error| RepairFailure(error.code()))?;
    let root = UpdatesRoot::open(&io.updates_dir).map_err(|error| RepairFailure(error.code()))?;
    let mut report = |p: DownloadProgress| progress(p);
    let downloaded = io
        .downloader
        .download(&root, &target, &mut report, &cancel)
        .await
        .map_err(|error| RepairFailure(error.code()))?;
    let prepared = tokio::task::spawn_blocking(move || prepare_release(downloaded))
        .await
        .map_err(|_| RepairFailure("repair_prepare_stopped"))?
        .map_err(|error| RepairFailure(error.code()))?;
    tracing::info!(target: "relay::updater", version = %request.version, "repair release staged");
    Ok(prepared)
}
