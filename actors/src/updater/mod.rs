//! The updater actor (desktop, both modes; never part of `relay serve` or Relay Web): owns the
//! update state (`domain::updater::UpdateState`) and drives `infra::updater` one explicit
//! request at a time. It checks GitHub's fixed latest-release endpoint every 15 minutes and on
//! demand ([`CheckNow`], one per minute, never before a `Retry-After` GitHub sent); a check only
//! updates the offer. [`StartDownload`] re-fetches (the answer must agree) and downloads the
//! verified release into a fresh staging directory with its progress in [`Snapshot`];
//! [`CancelDownload`] answers once the staging is gone; a check that reports another release
//! cancels a download in flight and clears staged files. [`StartPrepare`] extracts the checked
//! executable; [`RequestRestart`] re-verifies it and hands its path to the caller (the desktop
//! shell installs it for the recovery launcher). Each step starts only from its own message: the state machine produces
//! the start effects only from the matching request. Quarantined releases stay advisory. At
//! start, abandoned `vX.Y.Z-<uuid>` staging directories (24 h, not in use) are removed, other
//! names never. Network work runs on a worker thread, blocking file work through the kit's
//! `BoundedWork`; time comes from the injected clock. It never takes a URL, path, version or
//! key from a caller: the endpoint and the publisher key are build-time constants. The release
//! notes of Settings → About ([`ReleaseNotesSnapshot`]) are refreshed after successful checks
//! and cached beside the staging, never touching the update state. A repair of a retained
//! build ([`StageRepair`], `repair`) downloads that build's own release the same way.

mod error;
mod jobs;
mod notes;
pub mod plan;
mod repair;
mod work;

pub use error::UpdaterError;
pub use notes::{ReleaseNotesSnapshot, ReleaseNotesState};
pub use repair::{RepairProgress, RepairStaged, RepairStatus, StageRepair};
pub use work::{UpdaterIo, UpdaterSetupError};

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use actix::prelude::*;
use tokio::sync::watch;

use domain::updater::release::CHECK_INTERVAL_MS;
use domain::updater::{
    CommitSha, QuarantineHistory, ReleaseCheck, Sha256Digest, StagingDirName, TransitionError, UpdateEffect,
    UpdateEvent, UpdateSnapshot, UpdateState, Version,
};
use infra::http::CancellationToken;
use infra::updater::{verify_staged, DownloadedRelease, PreparedRelease};

use crate::kit::{BoundedWork, SharedRun, Subsystem, SubsystemCtx};
use plan::{check_gate, CheckRefusal};
use work::Worker;

pub const NAME: &str = "updater";

/// Desktop bridge (Update dialog, header action): the current update state.
#[derive(Debug, Clone, Copy, Message)]
#[rtype(result = "UpdateSnapshot")]
pub struct Snapshot;

/// Desktop bridge "Check for updates": a check now (limited; joins a check in flight). Resolves
/// with the state after it.
#[derive(Debug, Clone, Copy, Message)]
#[rtype(result = "Result<UpdateSnapshot, UpdaterError>")]
pub struct CheckNow;

/// Desktop bridge "Download update": starts the re-fetch and verified download of the offered
/// release. Resolves once it started (progress is in [`Snapshot`]).
#[derive(Debug, Clone, Copy, Message)]
#[rtype(result = "Result<UpdateSnapshot, UpdaterError>")]
pub struct StartDownload;

/// Desktop bridge "Cancel": cancels the download; resolves once its staging directory is gone.
#[derive(Debug, Clone, Copy, Message)]
#[rtype(result = "Result<UpdateSnapshot, UpdaterError>")]
pub struct CancelDownload;

/// Desktop bridge "Install update": starts extracting and checking the downloaded executable.
#[derive(Debug, Clone, Copy, Message)]
#[rtype(result = "Result<UpdateSnapshot, UpdaterError>")]
pub struct StartPrepare;

/// Desktop bridge "Restart Relay": re-resolves and re-hashes the prepared executable and returns
/// it for the launcher (which this slice does not include).
#[derive(Debug, Clone, Copy, Message)]
#[rtype(result = "Result<RestartTarget, UpdaterError>")]
pub struct RequestRestart;

/// Tests and the shell's shutdown: resolves when no download, preparation or file work runs.
#[derive(Debug, Clone, Copy, Message)]
#[rtype(result = "()")]
pub struct Settled;

/// The verified prepared executable a restart hands to the launcher.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RestartTarget {
    pub version: Version,
    pub commit: CommitSha,
    pub executable: PathBuf,
    pub executable_sha256: Sha256Digest,
}

/// Timing and facts of this installation. `Default` gives production: the running version,
/// self-update supported, checks every 15 minutes (the first 5 s after start), one on-demand
/// check per 60 s, 60 s of back-off after a `429` without `Retry-After`, no quarantine.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UpdaterConfig {
    pub current_version: Version,
    /// Whether this installation can update itself; `false` keeps every offer advisory
    /// (`unsupported`). The desktop shell sets it from the launcher's managed layout
    /// (`updater_host::layout_settings`).
    pub supported: bool,
    /// The releases whose candidates failed probation (the launcher's history).
    pub quarantine: QuarantineHistory,
    pub check_interval: Duration,
    pub first_check_delay: Duration,
    pub on_demand_interval_ms: i64,
    pub default_github_wait_ms: i64,
    /// Whether the actor checks on its own timer (tests send [`CheckNow`]).
    pub scheduled: bool,
    /// After an on-demand check the release notes are refreshed at most once per this long.
    pub notes_interval_ms: i64,
}

impl Default for UpdaterConfig {
    fn default() -> Self {
        UpdaterConfig {
            current_version: running_version(),
            supported: true,
            quarantine: QuarantineHistory::new(),
            check_interval: Duration::from_millis(CHECK_INTERVAL_MS),
            first_check_delay: Duration::from_secs(5),
            on_demand_interval_ms: 60_000,
            default_github_wait_ms: 60_000,
            scheduled: true,
            notes_interval_ms: CHECK_INTERVAL_MS as i64,
        }
    }
}

/// This build's version (the workspace version every Relay binary shares).
pub fn running_version() -> Version {
    Version::parse(env!("CARGO_PKG_VERSION")).expect("the workspace version is MAJOR.MINOR.PATCH")
}

/// Starts the updater under a supervisor on its own arbiter.
pub fn start(ctx: SubsystemCtx, config: UpdaterConfig, io: UpdaterIo) -> Addr<UpdaterActor> {
    let io = Arc::new(io);
    crate::kit::start_supervised(move |_| UpdaterActor::new(ctx, config, io))
}

/// What is staged on disk for the offered release (dropping a value removes its directory).
#[derive(Debug, Default)]
enum Staged {
    #[default]
    Nothing,
    Downloaded(DownloadedRelease),
    Prepared(PreparedRelease),
}

impl Staged {
    fn dir_name(&self) -> Option<StagingDirName> {
        match self {
            Staged::Nothing => None,
            Staged::Downloaded(d) => Some(*d.dir().name()),
            Staged::Prepared(p) => Some(*p.dir().name()),
        }
    }
}

/// The download in flight (kept until its worker reports back, even once cancelled).
struct DownloadJob {
    serial: u64,
    version: Version,
    cancel: CancellationToken,
    ended: watch::Receiver<bool>,
}

pub struct UpdaterActor {
    subsystem: SubsystemCtx,
    config: UpdaterConfig,
    io: Arc<UpdaterIo>,
    worker: Worker,
    files: BoundedWork,
    state: UpdateState,
    /// The check behind the current offer (the re-fetch must agree with it).
    discovered: Option<ReleaseCheck>,
    check: SharedRun<Result<UpdateSnapshot, UpdaterError>>,
    last_on_demand_ms: Option<i64>,
    github_not_before_ms: Option<i64>,
    download: Option<DownloadJob>,
    staged: Staged,
    serial: u64,
    file_jobs: usize,
    settled: watch::Sender<bool>,
    timer: Option<SpawnHandle>,
    /// Whether the check in flight was asked for on demand (the notes' refresh limit).
    check_on_demand: bool,
    notes: notes::NotesJob,
    repair: repair::RepairJob,
}

impl UpdaterActor {
    pub fn new(subsystem: SubsystemCtx, config: UpdaterConfig, io: Arc<UpdaterIo>) -> UpdaterActor {
        UpdaterActor {
            state: UpdateState::new(config.current_version),
            subsystem,
            config,
            io,
            worker: Worker::new(),
            files: BoundedWork::new(8),
            discovered: None,
            check: SharedRun::default(),
            last_on_demand_ms: None,
            github_not_before_ms: None,
            download: None,
            staged: Staged::Nothing,
            serial: 0,
            file_jobs: 0,
            settled: watch::Sender::new(true),
            timer: None,
            check_on_demand: false,
            notes: notes::NotesJob::default(),
            repair: repair::RepairJob::default(),
        }
    }

    fn refresh_settled(&self) {
        let settled = self.download.is_none() && self.file_jobs == 0 && !self.notes.running;
        self.settled.send_if_modified(|now| std::mem::replace(now, settled) != settled);
    }

    /// Applies one event and carries out the effects it asks for.
    fn apply(&mut self, event: UpdateEvent, ctx: &mut Context<Self>) -> Result<UpdateSnapshot, TransitionError> {
        let transition = self.state.apply(event)?;
        self.state = transition.state;
        for effect in transition.effects {
            self.run_effect(effect, ctx);
        }
        Ok(self.state.snapshot())
    }

    fn run_effect(&mut self, effect: UpdateEffect, ctx: &mut Context<Self>) {
        match effect {
            UpdateEffect::StartDownload { version } => self.start_download(version, ctx),
            UpdateEffect::CancelDownload => {
                if let Some(job) = &self.download {
                    job.cancel.cancel();
                }
            }
            UpdateEffect::ClearStaging => {
                let staged = std::mem::take(&mut self.staged);
                if !matches!(staged, Staged::Nothing) {
                    self.run_file_job(ctx, move || drop(staged), |_, _, _| {});
                }
            }
            UpdateEffect::StartPrepare { version } => self.start_prepare(version, ctx),
            // Only `RequestRestart` produces it; its handler does the work.
            UpdateEffect::Restart { .. } => {}
        }
    }

    /// Runs blocking file work through `BoundedWork`, counted until `done` has run.
    fn run_file_job<T: Send + 'static>(
        &mut self,
        ctx: &mut Context<Self>,
        job: impl FnOnce() -> T + Send + 'static,
        done: impl FnOnce(Option<T>, &mut Self, &mut Context<Self>) + 'static,
    ) {
        self.file_jobs += 1;
        self.refresh_settled();
        let work = self.files.run(job);
        ctx.spawn(work.into_actor(self).map(move |result, act, ctx| {
            act.file_jobs = act.file_jobs.saturating_sub(1);
            done(result.ok(), act, ctx);
            act.refresh_settled();
        }));
    }
}

impl Subsystem for UpdaterActor {
    const NAME: &'static str = NAME;
    fn subsystem(&self) -> &SubsystemCtx {
        &self.subsystem
    }
    fn queue_depth(&self) -> usize {
        self.check.depth() + usize::from(self.download.is_some()) + self.file_jobs
    }
    fn reset(&mut self) {
        self.check.cancel();
        if let Some(job) = self.download.take() {
            job.cancel.cancel();
        }
        self.staged = Staged::Nothing;
        self.state = UpdateState::new(self.config.current_version);
        self.discovered = None;
        self.file_jobs = 0;
        self.timer = None;
        self.notes.running = false;
        self.refresh_settled();
    }
    fn on_start(&mut self, ctx: &mut Context<Self>) {
        self.clean_abandoned_staging(ctx);
        self.load_notes_cache(ctx);
        if self.config.scheduled {
            self.schedule(ctx, self.config.first_check_delay);
        }
    }
}

crate::subsystem_actor!(UpdaterActor);

impl Handler<Snapshot> for UpdaterActor {
    type Result = MessageResult<Snapshot>;
    fn handle(&mut self, _: Snapshot, _: &mut Context<Self>) -> Self::Result {
        MessageResult(self.state.snapshot())
    }
}

impl Handler<CheckNow> for UpdaterActor {
    type Result = ResponseFuture<Result<UpdateSnapshot, UpdaterError>>;
    fn handle(&mut self, _: CheckNow, ctx: &mut Context<Self>) -> Self::Result {
        let now = self.subsystem.now_ms();
        let gate =
            check_gate(now, self.last_on_demand_ms, self.config.on_demand_interval_ms, self.github_not_before_ms);
        if let Err(refusal) = gate {
            let error = match refusal {
                CheckRefusal::OnDemandTooSoon { retry_after_secs } => UpdaterError::RateLimited { retry_after_secs },
                CheckRefusal::GitHubWait { retry_after_secs } => UpdaterError::GitHubRateLimited { retry_after_secs },
            };
            return Box::pin(async move { Err(error) });
        }
        self.last_on_demand_ms = Some(now);
        self.check_on_demand = true;
        let rx = self.check.wait();
        self.start_check(ctx);
        Box::pin(async move { rx.await.unwrap_or(Err(UpdaterError::Unavailable)) })
    }
}

impl Handler<StartDownload> for UpdaterActor {
    type Result = Result<UpdateSnapshot, UpdaterError>;
    fn handle(&mut self, _: StartDownload, ctx: &mut Context<Self>) -> Self::Result {
        Ok(self.apply(UpdateEvent::DownloadRequested, ctx)?)
    }
}

impl Handler<CancelDownload> for UpdaterActor {
    type Result = ResponseActFuture<Self, Result<UpdateSnapshot, UpdaterError>>;
    fn handle(&mut self, _: CancelDownload, ctx: &mut Context<Self>) -> Self::Result {
        if let Err(error) = self.apply(UpdateEvent::CancelRequested, ctx) {
            return Box::pin(fut::ready(Err(error.into())));
        }
        let ended = self.download.as_ref().map(|job| job.ended.clone());
        let wait = async move {
            if let Some(mut ended) = ended {
                let _ = ended.wait_for(|ended| *ended).await;
            }
        };
        Box::pin(wait.into_actor(self).map(|(), act, _| Ok(act.state.snapshot())))
    }
}

impl Handler<StartPrepare> for UpdaterActor {
    type Result = Result<UpdateSnapshot, UpdaterError>;
    fn handle(&mut self, _: StartPrepare, ctx: &mut Context<Self>) -> Self::Result {
        Ok(self.apply(UpdateEvent::PrepareRequested, ctx)?)
    }
}

impl Handler<RequestRestart> for UpdaterActor {
    type Result = ResponseActFuture<Self, Result<RestartTarget, UpdaterError>>;
    fn handle(&mut self, _: RequestRestart, ctx: &mut Context<Self>) -> Self::Result {
        let (version, prepared) = match (self.apply(UpdateEvent::RestartRequested, ctx), &self.staged) {
            (Err(error), _) => return Box::pin(fut::ready(Err(error.into()))),
            (Ok(_), Staged::Prepared(prepared)) => (prepared.version, prepared),
            (Ok(_), _) => return Box::pin(fut::ready(Err(UpdaterError::Unavailable))),
        };
        let target = RestartTarget {
            version,
            commit: prepared.commit,
            executable: prepared.executable_path(),
            executable_sha256: prepared.executable_sha256,
        };
        let (path, digest) = (target.executable.clone(), target.executable_sha256);
        self.file_jobs += 1;
        self.refresh_settled();
        let check = self.files.run(move || verify_staged(&path, &digest).map(drop).map_err(|error| error.code()));
        Box::pin(check.into_actor(self).map(move |checked, act, ctx| {
            act.file_jobs = act.file_jobs.saturating_sub(1);
            let result = match checked {
                Ok(Ok(())) => Ok(target),
                Ok(Err(code)) => {
                    act.subsystem.report_failure(NAME, format!("prepared update failed its check: {code}"));
                    let _ = act.apply(UpdateEvent::PreparedInvalid { version }, ctx);
                    Err(UpdaterError::PreparedChanged)
                }
                Err(_) => Err(UpdaterError::Busy),
            };
            act.refresh_settled();
            result
        }))
    }
}

impl Handler<Settled> for UpdaterActor {
    type Result = ResponseFuture<()>;
    fn handle(&mut self, _: Settled, _: &mut Context<Self>) -> Self::Result {
        let mut settled = self.settled.subscribe();
        Box::pin(async move {
            let _ = settled.wait_for(|settled| *settled).await;
        })
    }
}

#[cfg(test)]
mod tests;
