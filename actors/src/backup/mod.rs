//! The backup actor: owns `backup-health.json` and serializes every backup operation. A create
//! records a `started` attempt, writes the archive off the actor's thread (`jobs::write`),
//! records it as the latest restore point, verifies it in the worker process (`jobs::verify`),
//! records the verification, then success or one of the fixed failure texts (which moves the
//! retry ladder), and prunes only when the retention gate passes with the new certificate.
//! Verify, list and status requests go through the same queue or read the owned state. The
//! schedule runs the first cycle shortly after start, then daily, with the 15 min / 1 h / 6 h
//! retry ladder after failures; a cycle creates a backup only when the gate does not already
//! pass. Operational history retention (`domain::retention`) runs through the store only while
//! the same gate passes. A restore on the running server is staged here (`restore::stage_restore`:
//! the selected archive and a fresh safety backup verified while Relay serves), then handed to
//! the host over `BackupConfig::restart`, which stops the server, installs it and restarts;
//! the restarted actor reports the outcome (`last_restore`) once its store has served a read.
//! Progress (bytes and entries) of the running phase is kept for the status view. The health
//! view gets the summary and the subsystem's condition (failing or overdue,
//! `domain::backup::condition`) on every change and every minute.
//! Server-local only: reached from the control socket and the desktop bridge, never from HTTP.
//! This file keeps the queue, schedule, retention and handlers; the operations' job chains are
//! in `operations`.

pub mod jobs;
mod operations;
pub mod restore;

use std::collections::VecDeque;
use std::time::Duration;

use actix::prelude::*;
use tokio::sync::oneshot;

use domain::backup::condition::backup_condition;
use domain::backup::health::{HealthState, HealthView};
use domain::backup::names::ArchiveName;
use domain::backup::retention::{retention_gate, select_for_pruning, PruneBudgets, RetentionPermit};
use domain::backup::schedule::first_cycle_at;
use domain::backup::status::{
    ArchiveListing, BackupStatus, CreatedBackup, FinishedRestore, OperationKind, OperationPhase, OperationStatus,
    RestoreResult, RestoreStaged, VerifiedBackup,
};
use domain::control::{BackupOp, BackupReply};
use infra::backup::{files, Progress};

use crate::kit::{Subsystem, SubsystemCtx};
use crate::store::{ApplyRetention, StoreActor};
use jobs::{JobEnv, JobError};
use restore::StagedRestore;

pub const NAME: &str = "backup";
/// The scheduler re-checks the due time this often (robust to clock changes).
const SCHEDULE_CHECK: Duration = Duration::from_secs(60);

/// Why a backup request failed; the texts are safe for an operator's terminal.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BackupError {
    #[error("Invalid backup name")]
    InvalidName,
    #[error("No such backup")]
    NotFound,
    #[error("{0}")]
    Failed(String),
    #[error("the backup subsystem is restarting; retry")]
    Unavailable,
}

impl From<BackupError> for domain::control::ControlError {
    fn from(e: BackupError) -> Self {
        use domain::control::{ControlError, ControlErrorCode};
        let code = match e {
            BackupError::Unavailable => ControlErrorCode::Unavailable,
            _ => ControlErrorCode::Refused,
        };
        ControlError::new(code, e.to_string())
    }
}

/// Create a regular backup now (written, verified, then retention).
#[derive(Message)]
#[rtype(result = "Result<CreatedBackup, BackupError>")]
pub struct CreateBackup;

/// Verify an existing archive in the worker.
#[derive(Message)]
#[rtype(result = "Result<VerifiedBackup, BackupError>")]
pub struct VerifyBackup {
    pub name: String,
}

/// The archives in `DATA/backups`, newest first, with their verification state.
#[derive(Message)]
#[rtype(result = "Result<Vec<ArchiveListing>, BackupError>")]
pub struct ListBackups;

/// The health summary, the running operation with its phase and progress, and the last restore.
#[derive(Message)]
#[rtype(result = "BackupStatus")]
pub struct GetBackupStatus;

/// Restore an archive on the running server: stage it (verified, safety backup taken), then
/// the host restarts onto it. Refused when the actor has no host to restart it.
#[derive(Message)]
#[rtype(result = "Result<RestoreStaged, BackupError>")]
pub struct RestoreBackup {
    pub name: String,
}

/// Where a staged restore goes: the host that stops the server, installs it and restarts.
pub type RestoreHandoff = tokio::sync::mpsc::UnboundedSender<StagedRestore>;

/// Runs the scheduled cycle if it is due (sent by the actor's own timer; tests send it too).
#[derive(Message)]
#[rtype(result = "()")]
pub struct Tick;

/// Progress of the running phase (and the phase, when the job moves on), from the blocking job.
#[derive(Message)]
#[rtype(result = "()")]
struct PhaseProgress(u64, Option<OperationPhase>, Progress);

/// The restarted server's first read after a restore was installed.
#[derive(Message)]
#[rtype(result = "()")]
struct RestoreServed(Result<(), String>);

enum Op {
    Create(Option<oneshot::Sender<Result<CreatedBackup, BackupError>>>),
    Verify(ArchiveName, oneshot::Sender<Result<VerifiedBackup, BackupError>>),
    Restore(ArchiveName, oneshot::Sender<Result<RestoreStaged, BackupError>>),
}

/// How the actor is set up.
#[derive(Clone)]
pub struct BackupConfig {
    pub env: JobEnv,
    /// Run the daily cycle (off for the CLI's one-shot use and some tests).
    pub schedule: bool,
    /// Where operational retention runs (absent: archives only).
    pub store: Option<Addr<StoreActor>>,
    /// The host that restarts the server onto a staged restore (absent: restore refused).
    pub restart: Option<RestoreHandoff>,
    /// The restore the host installed before starting this server (reported in the status).
    pub last_restore: Option<FinishedRestore>,
}

pub struct BackupActor {
    subsystem: SubsystemCtx,
    config: BackupConfig,
    health: HealthState,
    queue: VecDeque<Op>,
    running: Option<OperationStatus>,
    /// Identifies the running job, so late progress of a finished one is ignored.
    job_id: u64,
    next_cycle_ms: i64,
    last_restore: Option<FinishedRestore>,
    /// When this actor began keeping backups (a server without any backup is overdue a day later).
    started_ms: i64,
}

impl BackupActor {
    /// Loads the health file (interrupted attempts become failures and are saved) and removes
    /// stale `.part` files from a crashed run.
    pub fn new(subsystem: SubsystemCtx, mut config: BackupConfig) -> BackupActor {
        let now = subsystem.now_ms();
        let loaded = files::load_health(&config.env.data_root, now);
        let backups = files::backups_dir(&config.env.data_root);
        if backups.is_dir() {
            if let Err(e) = files::remove_stale_parts(&backups) {
                tracing::warn!(error = %e, "could not remove unfinished backup files");
            }
        }
        let next_cycle_ms = loaded.state.retry_due.unwrap_or(0).max(first_cycle_at(now));
        // The actor owns the outcome from here (a served read moves it on).
        let last_restore = config.last_restore.take();
        let mut actor = BackupActor {
            subsystem,
            config,
            last_restore,
            health: loaded.state,
            queue: VecDeque::new(),
            running: None,
            job_id: 0,
            next_cycle_ms,
            started_ms: now,
        };
        if loaded.recovered_interrupted {
            tracing::warn!("a backup was interrupted by the previous shutdown; recorded as a failure");
            actor.save();
        }
        actor
    }

    fn now(&self) -> i64 {
        self.subsystem.now_ms()
    }

    fn save(&mut self) {
        if let Err(e) = files::save_health(&self.config.env.data_root, &self.health) {
            tracing::error!(error = %e, "could not save the backup health file");
            self.subsystem.report_failure(NAME, "could not save the backup health file");
        }
        self.report_summary();
    }

    /// Tells the health dashboard the current backup summary (no archive names) and whether
    /// backups are failing or overdue.
    fn report_summary(&self) {
        let summary = self.view().summary();
        self.subsystem.report_condition(NAME, backup_condition(&summary, self.now(), self.started_ms));
        self.subsystem.health.do_send(crate::health::BackupHealth(summary));
    }

    fn view(&self) -> HealthView {
        let now = self.now();
        let retention_allowed = self.permit().is_some();
        HealthView {
            state: self.health.clone(),
            retention_allowed,
            restore_point_age_ms: self.health.restore_point_age_ms(now),
            busy: self.running.is_some(),
        }
    }

    fn enqueue(&mut self, op: Op, ctx: &mut Context<Self>) {
        self.queue.push_back(op);
        self.start_next(ctx);
    }

    /// Queues an operation on the archive named `name` (refused at once when the name is not
    /// one of ours) and answers when it finishes.
    fn enqueue_for_archive<T: 'static>(
        &mut self,
        name: &str,
        op: impl FnOnce(ArchiveName, oneshot::Sender<Result<T, BackupError>>) -> Op,
        ctx: &mut Context<Self>,
    ) -> ResponseFuture<Result<T, BackupError>> {
        let Ok(name) = ArchiveName::parse(name) else {
            return Box::pin(async { Err(BackupError::InvalidName) });
        };
        let (tx, rx) = oneshot::channel();
        self.enqueue(op(name, tx), ctx);
        Box::pin(async move { rx.await.unwrap_or(Err(BackupError::Unavailable)) })
    }

    fn start_next(&mut self, ctx: &mut Context<Self>) {
        if self.running.is_some() {
            return;
        }
        match self.queue.pop_front() {
            Some(Op::Create(reply)) => self.start_create(reply, ctx),
            Some(Op::Verify(name, reply)) => self.start_verify(name, reply, ctx),
            Some(Op::Restore(name, reply)) => self.start_restore(name, reply, ctx),
            None => {}
        }
    }

    fn begin(&mut self, kind: OperationKind, phase: OperationPhase, archive: Option<ArchiveName>) -> u64 {
        self.job_id += 1;
        let status =
            OperationStatus { kind, phase, archive, bytes_done: 0, bytes_total: 0, entries_done: 0, entries_total: 0 };
        self.running = Some(status);
        self.report_summary();
        self.job_id
    }

    /// Runs a blocking job off the actor's thread and hands its outcome to `then` on the actor
    /// (a job that panicked or was cancelled counts as an IO failure).
    fn run_job<T: Send + 'static>(
        &mut self,
        ctx: &mut Context<Self>,
        job: impl FnOnce() -> Result<T, JobError> + Send + 'static,
        then: impl FnOnce(Result<T, JobError>, &mut Self, &mut Context<Self>) + 'static,
    ) {
        let task = tokio::task::spawn_blocking(job);
        ctx.spawn(task.into_actor(self).map(move |joined, act, ctx| {
            let outcome = joined.unwrap_or_else(|e| Err(JobError::Io(std::io::Error::other(e.to_string()))));
            then(outcome, act, ctx)
        }));
    }

    /// A progress sink for the blocking job (reports to this actor).
    fn sink(ctx: &Context<Self>, job: u64) -> impl FnMut(Progress) + Send + 'static {
        let me = ctx.address();
        move |p: Progress| me.do_send(PhaseProgress(job, None, p))
    }

    /// The retention gate now: the certified restore point when the latest backup is fresh,
    /// unchanged on disk and verified.
    fn permit(&self) -> Option<RetentionPermit> {
        let env = &self.config.env;
        retention_gate(&self.health, |n| jobs::observe(env, n), self.now()).ok()
    }

    /// Retention, only while the gate passes (evaluated once for both parts): archives beyond
    /// the budgets are deleted (returned), then operational history is trimmed through the
    /// store, each collection in one write transaction.
    fn apply_retention(&mut self, ctx: &mut Context<Self>) -> Vec<ArchiveName> {
        let Some(permit) = self.permit() else {
            return Vec::new();
        };
        if let Some(status) = &mut self.running {
            status.phase = OperationPhase::Pruning;
        }
        let env = &self.config.env;
        let pruned = match jobs::list(env) {
            Ok(list) => {
                let archives: Vec<ArchiveName> = list.into_iter().map(|(name, _)| name).collect();
                jobs::prune(env, &select_for_pruning(&archives, &permit, None, PruneBudgets::default()))
            }
            Err(e) => {
                tracing::warn!(error = %e, "could not list backups for retention");
                Vec::new()
            }
        };
        if let Some(store) = self.config.store.clone() {
            let now_ms = self.now();
            for plan in domain::retention::OPERATIONAL_RETENTION {
                let request = store.send(ApplyRetention { plan, now_ms });
                ctx.spawn(request.into_actor(self).map(move |result, _, _| match result {
                    Ok(Ok(0)) => {}
                    Ok(Ok(n)) => tracing::info!(collection = plan.collection, deleted = n, "retention applied"),
                    Ok(Err(e)) => tracing::warn!(collection = plan.collection, error = %e, "retention failed"),
                    Err(_) => tracing::warn!(collection = plan.collection, "retention: the store is unavailable"),
                }));
            }
        }
        pruned
    }

    fn finish(&mut self, ctx: &mut Context<Self>) {
        self.running = None;
        self.report_summary();
        self.start_next(ctx);
    }

    fn listing(&self) -> Result<Vec<ArchiveListing>, BackupError> {
        let certified = self.permit();
        let archives = jobs::list(&self.config.env).map_err(|e| BackupError::Failed(e.to_string()))?;
        Ok(archives
            .into_iter()
            .map(|(name, fingerprint)| ArchiveListing {
                kind: name.kind(),
                created_ms: name.created_ms(),
                size: fingerprint.size,
                verified_restore_point: certified.as_ref().is_some_and(|p| p.certified() == &name),
                name,
            })
            .collect())
    }
}

impl Subsystem for BackupActor {
    const NAME: &'static str = NAME;
    fn subsystem(&self) -> &SubsystemCtx {
        &self.subsystem
    }
    fn queue_depth(&self) -> usize {
        self.queue.len() + usize::from(self.running.is_some())
    }
    /// After a panic: waiting callers get `Unavailable` (their reply channels are dropped).
    fn reset(&mut self) {
        self.queue.clear();
        self.running = None;
    }
    fn on_start(&mut self, ctx: &mut Context<Self>) {
        self.report_summary();
        // Overdue is a matter of time passing, not of an event.
        ctx.run_interval(SCHEDULE_CHECK, |act, _| act.report_summary());
        self.confirm_restore_serves(ctx);
        if self.config.schedule {
            ctx.run_interval(SCHEDULE_CHECK, |_, ctx| ctx.notify(Tick));
        }
    }
}

crate::subsystem_actor!(BackupActor);

impl Handler<Tick> for BackupActor {
    type Result = ();
    fn handle(&mut self, _: Tick, ctx: &mut Context<Self>) {
        let now = self.now();
        if now < self.next_cycle_ms || self.running.is_some() || !self.queue.is_empty() {
            return;
        }
        let env = &self.config.env;
        if domain::backup::retention::backup_needed(&self.health, |n| jobs::observe(env, n), now) {
            tracing::info!("scheduled backup starting");
            self.next_cycle_ms = now + domain::backup::schedule::DAILY_MS;
            self.enqueue(Op::Create(None), ctx);
        } else {
            self.apply_retention(ctx);
            self.next_cycle_ms = self.health.retry_due.unwrap_or(now + domain::backup::schedule::DAILY_MS);
        }
    }
}

impl Handler<PhaseProgress> for BackupActor {
    type Result = ();
    fn handle(&mut self, PhaseProgress(job, phase, p): PhaseProgress, _: &mut Context<Self>) {
        if let Some(status) = self.running.as_mut().filter(|_| job == self.job_id) {
            if let Some(phase) = phase {
                status.phase = phase;
            }
            status.bytes_done = p.bytes_done;
            status.bytes_total = p.bytes_total;
            status.entries_done = p.entries_done;
            status.entries_total = p.entries_total;
        }
    }
}

impl Handler<CreateBackup> for BackupActor {
    type Result = ResponseFuture<Result<CreatedBackup, BackupError>>;
    fn handle(&mut self, _: CreateBackup, ctx: &mut Context<Self>) -> Self::Result {
        let (tx, rx) = oneshot::channel();
        self.enqueue(Op::Create(Some(tx)), ctx);
        Box::pin(async move { rx.await.unwrap_or(Err(BackupError::Unavailable)) })
    }
}

impl Handler<VerifyBackup> for BackupActor {
    type Result = ResponseFuture<Result<VerifiedBackup, BackupError>>;
    fn handle(&mut self, msg: VerifyBackup, ctx: &mut Context<Self>) -> Self::Result {
        self.enqueue_for_archive(&msg.name, Op::Verify, ctx)
    }
}

impl Handler<ListBackups> for BackupActor {
    type Result = Result<Vec<ArchiveListing>, BackupError>;
    fn handle(&mut self, _: ListBackups, _: &mut Context<Self>) -> Self::Result {
        self.listing()
    }
}

impl Handler<GetBackupStatus> for BackupActor {
    type Result = MessageResult<GetBackupStatus>;
    fn handle(&mut self, _: GetBackupStatus, _: &mut Context<Self>) -> Self::Result {
        MessageResult(BackupStatus {
            health: self.view(),
            operation: self.running.clone(),
            queued: self.queue.len(),
            last_restore: self.last_restore.clone(),
        })
    }
}

impl Handler<RestoreBackup> for BackupActor {
    type Result = ResponseFuture<Result<RestoreStaged, BackupError>>;
    fn handle(&mut self, msg: RestoreBackup, ctx: &mut Context<Self>) -> Self::Result {
        self.enqueue_for_archive(&msg.name, Op::Restore, ctx)
    }
}

impl Handler<RestoreServed> for BackupActor {
    type Result = ();
    fn handle(&mut self, RestoreServed(served): RestoreServed, _: &mut Context<Self>) {
        let Some(restore) = self.last_restore.as_mut() else { return };
        restore.result = match served {
            Ok(()) => RestoreResult::Serving,
            Err(reason) => {
                RestoreResult::Failed { reason: format!("the restored data was installed but a read failed: {reason}") }
            }
        };
        tracing::info!(result = ?restore.result, "restore outcome after restart");
    }
}

/// One control-channel backup operation (`relay backup`), as messages to the actor.
pub async fn run_op(backup: &Addr<BackupActor>, op: BackupOp) -> Result<BackupReply, BackupError> {
    let closed = |_| BackupError::Unavailable;
    Ok(match op {
        BackupOp::Create {} => BackupReply::Created { backup: backup.send(CreateBackup).await.map_err(closed)?? },
        BackupOp::Verify { name } => {
            BackupReply::Verified { backup: backup.send(VerifyBackup { name }).await.map_err(closed)?? }
        }
        BackupOp::List {} => BackupReply::Listed { archives: backup.send(ListBackups).await.map_err(closed)?? },
        BackupOp::Restore { name } => {
            BackupReply::RestoreStaged { staged: backup.send(RestoreBackup { name }).await.map_err(closed)?? }
        }
        BackupOp::Health {} => {
            BackupReply::Status { status: Box::new(backup.send(GetBackupStatus).await.map_err(closed)?) }
        }
    })
}

#[cfg(test)]
mod tests;
