//! The updater actor's work in flight: the check (started by the timer or `CheckNow`, shared
//! while it runs, its result applied to the state machine, GitHub's rate limit recorded), the
//! periodic timer, the download (run on the worker, reporting progress and its end back as
//! messages tagged with the job's serial, so a cancelled job's late news is ignored), the
//! preparation and the cleanup of abandoned staging at start (blocking, through `BoundedWork`).
//! It decides nothing itself: the domain state machine and `plan` do.

use std::time::Duration;

use actix::prelude::*;
use futures_util::FutureExt;
use tokio::sync::watch;

use domain::updater::{
    CheckOutcome, ReleaseCheck, StagingDirName, UpdateEvent, UpdateFailure, UpdateSnapshot, Version,
};
use infra::http::CancellationToken;
use infra::updater::{prepare_release, DiscoveryFailure, DownloadedRelease, PreparedRelease};

use super::plan::{github_not_before_ms, next_check_in_ms};
use super::work::{self, DownloadFailure};
use super::{DownloadJob, Staged, UpdaterActor, UpdaterError, NAME};

impl UpdaterActor {
    pub(super) fn start_check(&mut self, ctx: &mut Context<Self>) {
        let Some(cancel) = self.check.begin() else {
            return;
        };
        let rx = self.worker.run(work::check(self.io.clone(), cancel));
        ctx.spawn(rx.into_actor(self).map(|result, act, ctx| {
            let outcome = match result {
                Ok(result) => act.finish_check(result, ctx),
                Err(_) => Err(UpdaterError::Unavailable),
            };
            act.check.finish(&outcome);
            if act.config.scheduled {
                let now = act.subsystem.now_ms();
                let interval = act.config.check_interval.as_millis() as i64;
                let next = next_check_in_ms(now, interval, act.github_not_before_ms);
                act.schedule(ctx, Duration::from_millis(next as u64));
            }
        }));
    }

    pub(super) fn finish_check(
        &mut self,
        result: Result<ReleaseCheck, DiscoveryFailure>,
        ctx: &mut Context<Self>,
    ) -> Result<UpdateSnapshot, UpdaterError> {
        let now = self.subsystem.now_ms();
        match result {
            Ok(check) => {
                let outcome = CheckOutcome::new(&check, self.config.supported, &self.config.quarantine);
                let snapshot = self.apply(UpdateEvent::CheckCompleted(outcome), ctx).map_err(UpdaterError::from)?;
                match self.state.offer() {
                    Some(offer) if *offer == outcome => self.discovered = Some(check),
                    Some(_) => {}
                    None => self.discovered = None,
                }
                tracing::info!(target: "relay::updater", latest = %outcome.latest_version, available = outcome.update_available, installable = outcome.installable, "update check");
                let on_demand = std::mem::take(&mut self.check_on_demand);
                self.refresh_notes(on_demand, ctx);
                Ok(snapshot)
            }
            Err(DiscoveryFailure::RateLimited { retry_after_secs }) => {
                let not_before = github_not_before_ms(now, retry_after_secs, self.config.default_github_wait_ms);
                self.github_not_before_ms = Some(not_before);
                tracing::info!(target: "relay::updater", wait_ms = not_before - now, "GitHub rate-limited the update check");
                let wait = not_before.saturating_sub(now).max(1) as u64;
                Err(UpdaterError::GitHubRateLimited { retry_after_secs: wait.div_ceil(1000) })
            }
            Err(error) => {
                self.subsystem.report_failure(NAME, format!("update check failed: {}", error.code()));
                Err(UpdaterError::CheckFailed)
            }
        }
    }

    pub(super) fn schedule(&mut self, ctx: &mut Context<Self>, after: Duration) {
        if let Some(handle) = self.timer.take() {
            ctx.cancel_future(handle);
        }
        self.timer = Some(ctx.run_later(after, |act, ctx| {
            act.timer = None;
            let now = act.subsystem.now_ms();
            match act.github_not_before_ms.filter(|at| *at > now) {
                Some(at) => act.schedule(ctx, Duration::from_millis((at - now) as u64)),
                None => {
                    act.check_on_demand = false;
                    act.start_check(ctx)
                }
            }
        }));
    }

    pub(super) fn start_download(&mut self, version: Version, ctx: &mut Context<Self>) {
        self.serial += 1;
        let serial = self.serial;
        let cancel = CancellationToken::new();
        let (ended_tx, ended) = watch::channel(false);
        self.download = Some(DownloadJob { serial, version, cancel: cancel.clone(), ended });
        self.refresh_settled();
        let Some(discovered) = self.discovered.clone() else {
            let failed = DownloadFailure { failure: UpdateFailure::ReleaseChanged, code: "no_offer" };
            ctx.notify(DownloadEnded { serial, result: Err(failed) });
            return;
        };
        let addr = ctx.address();
        let progress = {
            let addr = addr.clone();
            move |bytes| addr.do_send(DownloadProgressed { serial, bytes })
        };
        let download = work::download(self.io.clone(), discovered, self.config.quarantine.clone(), cancel, progress);
        self.worker.spawn(async move {
            // A panic in the download is its failure (its staging is removed while unwinding);
            // the actor always hears of the end, so the job never stays in flight.
            let panicked = DownloadFailure { failure: UpdateFailure::DownloadFailed, code: "download_panicked" };
            let result = std::panic::AssertUnwindSafe(download).catch_unwind().await.unwrap_or(Err(panicked));
            addr.do_send(DownloadEnded { serial, result });
            let _ = ended_tx.send(true);
        });
    }

    pub(super) fn start_prepare(&mut self, version: Version, ctx: &mut Context<Self>) {
        let Staged::Downloaded(downloaded) = std::mem::take(&mut self.staged) else {
            let failure = UpdateFailure::PrepareFailed;
            ctx.notify(PrepareEnded { version, result: Err(failure) });
            return;
        };
        self.run_file_job(
            ctx,
            move || prepare_release(downloaded).map_err(|error| error.failure()),
            move |result, act, ctx| {
                let result = result.unwrap_or(Err(UpdateFailure::PrepareFailed));
                act.prepare_ended(version, result, ctx);
            },
        );
    }

    pub(super) fn prepare_ended(
        &mut self,
        version: Version,
        result: Result<PreparedRelease, domain::updater::UpdateFailure>,
        ctx: &mut Context<Self>,
    ) {
        match result {
            Ok(prepared) => match self.apply(UpdateEvent::PrepareFinished { version }, ctx) {
                Ok(_) => self.staged = Staged::Prepared(prepared),
                Err(_) => self.run_file_job(ctx, move || drop(prepared), |_, _, _| {}),
            },
            Err(failure) => {
                self.subsystem.report_failure(NAME, format!("update preparation failed: {}", failure.code()));
                let _ = self.apply(UpdateEvent::PrepareFailed { version, failure }, ctx);
            }
        }
    }

    /// The staging directories that must survive a cleanup.
    pub(super) fn in_use(&self) -> Vec<StagingDirName> {
        self.staged.dir_name().into_iter().collect()
    }

    pub(super) fn clean_abandoned_staging(&mut self, ctx: &mut Context<Self>) {
        let (dir, now, in_use) = (self.io.updates_dir.clone(), self.subsystem.now_ms(), self.in_use());
        self.run_file_job(
            ctx,
            move || work::clean_abandoned(&dir, now, &in_use),
            |result, act, _| match result {
                Some(Ok(removed)) if !removed.is_empty() => {
                    tracing::info!(target: "relay::updater", removed = removed.len(), "removed abandoned update staging")
                }
                Some(Ok(_)) => {}
                Some(Err(error)) => {
                    act.subsystem.report_failure(NAME, format!("staging cleanup failed: {}", error.code()))
                }
                None => act.subsystem.report_failure(NAME, "staging cleanup did not run"),
            },
        );
    }
}

/// From the download worker: archive bytes received.
#[derive(Message)]
#[rtype(result = "()")]
struct DownloadProgressed {
    serial: u64,
    bytes: u64,
}

/// From the download worker: the download ended (its staging is gone unless it succeeded).
#[derive(Message)]
#[rtype(result = "()")]
struct DownloadEnded {
    serial: u64,
    result: Result<DownloadedRelease, DownloadFailure>,
}

/// A preparation that could not start.
#[derive(Message)]
#[rtype(result = "()")]
struct PrepareEnded {
    version: Version,
    result: Result<PreparedRelease, domain::updater::UpdateFailure>,
}

impl Handler<DownloadProgressed> for UpdaterActor {
    type Result = ();
    fn handle(&mut self, msg: DownloadProgressed, ctx: &mut Context<Self>) {
        let Some(job) = self.download.as_ref().filter(|job| job.serial == msg.serial) else {
            return;
        };
        let event = UpdateEvent::DownloadProgress { version: job.version, downloaded_bytes: msg.bytes };
        // A cancelled download's late progress is stale and refused by the state machine.
        let _ = self.apply(event, ctx);
    }
}

impl Handler<DownloadEnded> for UpdaterActor {
    type Result = ();
    fn handle(&mut self, msg: DownloadEnded, ctx: &mut Context<Self>) {
        let Some(job) = self.download.take_if(|job| job.serial == msg.serial) else {
            if let Ok(stale) = msg.result {
                self.run_file_job(ctx, move || drop(stale), |_, _, _| {});
            }
            return;
        };
        let version = job.version;
        match msg.result {
            Ok(downloaded) => match self.apply(UpdateEvent::DownloadFinished { version }, ctx) {
                Ok(_) => self.staged = Staged::Downloaded(downloaded),
                Err(_) => self.run_file_job(ctx, move || drop(downloaded), |_, _, _| {}),
            },
            Err(DownloadFailure { failure, code }) => {
                if !job.cancel.is_cancelled() {
                    self.subsystem.report_failure(NAME, format!("update download failed: {code}"));
                }
                // After a cancel the state already moved on; the event is then stale.
                let _ = self.apply(UpdateEvent::DownloadFailed { version, failure }, ctx);
            }
        }
        self.refresh_settled();
    }
}

impl Handler<PrepareEnded> for UpdaterActor {
    type Result = ();
    fn handle(&mut self, msg: PrepareEnded, ctx: &mut Context<Self>) {
        self.prepare_ended(msg.version, msg.result, ctx);
    }
}
