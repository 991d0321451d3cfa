//! The backup actor's three operations, each a chain of jobs off the actor's thread: a create
//! (record the attempt, write the archive, record it as the latest restore point, verify it in
//! the worker process, record the verification and prune when the gate passes), a verify of a
//! named archive, and a restore staged while Relay serves (the archive and a fresh safety backup
//! verified, then handed to the host) with its confirmation once the restarted store has served
//! a read. Split from `mod.rs`, which keeps the queue, the schedule and the message handlers;
//! every step here records its outcome in the actor's health file before the next begins.

use actix::prelude::*;
use tokio::sync::oneshot;

use domain::backup::health::VerificationOutcome;
use domain::backup::names::{ArchiveKind, ArchiveName};
use domain::backup::status::{
    CreatedBackup, OperationKind, OperationPhase, RestoreResult, RestoreStaged, VerifiedBackup,
};
use domain::record::RawListParams;

use super::jobs::{self, JobError};
use super::restore::{self, RestoreError};
use super::{BackupActor, BackupError, PhaseProgress, RestoreServed, NAME};
use crate::store::ListRecords;

impl BackupActor {
    pub(super) fn start_create(
        &mut self,
        reply: Option<oneshot::Sender<Result<CreatedBackup, BackupError>>>,
        ctx: &mut Context<Self>,
    ) {
        let now = self.now();
        self.health.begin_attempt(now);
        self.save();
        infra::fault::fault_point("backup:create:after:BeginAttempt");
        let job = self.begin(OperationKind::Create, OperationPhase::Writing, None);
        let (env, mut sink) = (self.config.env.clone(), Self::sink(ctx, job));
        let job = move || jobs::write(&env, ArchiveKind::Regular, now, &mut sink);
        self.run_job(ctx, job, move |written, act, ctx| match written {
            Ok(written) => {
                act.health.record_created(&written.name, written.fingerprint, act.now());
                act.save();
                infra::fault::fault_point("backup:create:after:RecordCreated");
                act.verify_created(written, reply, ctx);
            }
            Err(e) => act.fail_create(e, reply, ctx),
        });
    }

    fn verify_created(
        &mut self,
        written: jobs::Written,
        reply: Option<oneshot::Sender<Result<CreatedBackup, BackupError>>>,
        ctx: &mut Context<Self>,
    ) {
        let job = self.begin(OperationKind::Create, OperationPhase::Verifying, Some(written.name.clone()));
        let (env, mut sink, name) = (self.config.env.clone(), Self::sink(ctx, job), written.name.clone());
        self.run_job(ctx, move || jobs::verify(&env, &name, &mut sink), move |verified, act, ctx| {
            let now = act.now();
            match verified {
                Ok((found, fingerprint)) => {
                    infra::fault::fault_point("backup:create:before:RecordVerified");
                    act.health.record_verification(&written.name, fingerprint, VerificationOutcome::Success, now);
                    act.health.record_success(now);
                    act.save();
                    let pruned = act.apply_retention(ctx);
                    infra::fault::fault_point("backup:create:after:Prune");
                    let created = CreatedBackup {
                        name: written.name,
                        size: written.size,
                        entries: found.entries,
                        tables: found.tables,
                        pruned,
                    };
                    tracing::info!(archive = %created.name.as_str(), size = created.size, "backup created and verified");
                    act.finish(ctx);
                    if let Some(reply) = reply {
                        let _ = reply.send(Ok(created));
                    }
                }
                Err(e) => {
                    act.health.record_verification(&written.name, written.fingerprint, VerificationOutcome::Failed, now);
                    act.fail_create(e, reply, ctx);
                }
            }
        });
    }

    fn fail_create(
        &mut self,
        error: JobError,
        reply: Option<oneshot::Sender<Result<CreatedBackup, BackupError>>>,
        ctx: &mut Context<Self>,
    ) {
        let text = error.failure_text();
        tracing::warn!(error = %error, "backup failed");
        self.subsystem.report_failure(NAME, text.text());
        self.health.record_failure(text, self.now());
        self.save();
        self.next_cycle_ms = self.health.retry_due.unwrap_or(self.next_cycle_ms);
        self.finish(ctx);
        if let Some(reply) = reply {
            let _ = reply.send(Err(BackupError::Failed(format!("{} ({error})", text.text()))));
        }
    }

    pub(super) fn start_verify(
        &mut self,
        name: ArchiveName,
        reply: oneshot::Sender<Result<VerifiedBackup, BackupError>>,
        ctx: &mut Context<Self>,
    ) {
        let job = self.begin(OperationKind::Verify, OperationPhase::Verifying, Some(name.clone()));
        let (env, mut sink, job_name) = (self.config.env.clone(), Self::sink(ctx, job), name.clone());
        self.run_job(
            ctx,
            move || jobs::verify(&env, &job_name, &mut sink),
            move |verified, act, ctx| {
                let now = act.now();
                let result = match verified {
                    Ok((found, fingerprint)) => {
                        act.health.record_verification(&name, fingerprint, VerificationOutcome::Success, now);
                        Ok(VerifiedBackup {
                            name: name.clone(),
                            entries: found.entries,
                            extracted_bytes: found.extracted_bytes,
                            tables: found.tables,
                        })
                    }
                    Err(JobError::Missing) => Err(BackupError::NotFound),
                    Err(e) => {
                        if let Some(fingerprint) = jobs::observe(&act.config.env, &name) {
                            act.health.record_verification(&name, fingerprint, VerificationOutcome::Failed, now);
                        }
                        Err(BackupError::Failed(e.to_string()))
                    }
                };
                act.save();
                act.finish(ctx);
                let _ = reply.send(result);
            },
        );
    }

    pub(super) fn start_restore(
        &mut self,
        name: ArchiveName,
        reply: oneshot::Sender<Result<RestoreStaged, BackupError>>,
        ctx: &mut Context<Self>,
    ) {
        let Some(handoff) = self.config.restart.clone() else {
            let _ = reply.send(Err(BackupError::Failed(
                "restoring needs a running server; stop Relay and use `relay backup restore`".into(),
            )));
            return self.start_next(ctx);
        };
        let job = self.begin(OperationKind::Restore, OperationPhase::Verifying, Some(name.clone()));
        let (env, me, now, job_name) = (self.config.env.clone(), ctx.address(), self.now(), name.clone());
        let stage = move || {
            let mut sink =
                |phase: restore::RestorePhase, p| me.do_send(PhaseProgress(job, Some(phase.operation_phase()), p));
            Ok(restore::stage_restore(&env, &job_name, now, &mut sink))
        };
        self.run_job(ctx, stage, move |staged, act, ctx| {
            let now = act.now();
            let staged = staged.unwrap_or_else(|e| Err(RestoreError::SafetyBackupFailed(e)));
            let outcome = match staged {
                Ok(staged) => {
                    act.health.record_verification(
                        &name,
                        staged.selected_fingerprint,
                        VerificationOutcome::Success,
                        now,
                    );
                    act.save();
                    let report = staged.report.clone();
                    match handoff.send(staged) {
                        Ok(()) => {
                            // The queue stays blocked: the host stops this server next.
                            if let Some(status) = &mut act.running {
                                status.phase = OperationPhase::Installing;
                            }
                            tracing::info!(archive = %name.as_str(), "restore staged; the server restarts onto it");
                            let _ = reply.send(Ok(report));
                            return;
                        }
                        Err(unsent) => {
                            unsent.0.discard();
                            Err(BackupError::Unavailable)
                        }
                    }
                }
                Err(RestoreError::NotFound) => Err(BackupError::NotFound),
                Err(e) => {
                    if let (RestoreError::SourceRejected(_), Some(fingerprint)) =
                        (&e, jobs::observe(&act.config.env, &name))
                    {
                        act.health.record_verification(&name, fingerprint, VerificationOutcome::Failed, now);
                        act.save();
                    }
                    tracing::warn!(error = %e, "restore refused before anything changed");
                    Err(BackupError::Failed(e.to_string()))
                }
            };
            act.finish(ctx);
            let _ = reply.send(outcome);
        });
    }

    /// After the host installed a restore and started this server: one read through the store
    /// (the same path the record API uses) decides whether the restore is reported as serving.
    pub(super) fn confirm_restore_serves(&mut self, ctx: &mut Context<Self>) {
        if !self.last_restore.as_ref().is_some_and(|r| r.result == RestoreResult::Installed) {
            return;
        }
        let Some(store) = self.config.store.clone() else {
            return;
        };
        let params = RawListParams { per_page: Some("1".into()), ..RawListParams::default() };
        let read = store.send(ListRecords { collection: "contacts".into(), params });
        let me = ctx.address();
        actix::spawn(async move {
            let served = match read.await {
                Ok(Ok(_)) => Ok(()),
                Ok(Err(e)) => Err(e.to_string()),
                Err(_) => Err("the store is unavailable".to_string()),
            };
            me.do_send(RestoreServed(served));
        });
    }
}
