//! The desktop client's offline subsystem (client mode): it owns the client's cache and
//! pending-change queue (`infra::offline_store`, one SQLite connection), answers the bridge's
//! cache reads and snapshot writes, queues offline writes (cache and queue in one commit), and
//! replays the queue against the server through one shared run (`engine`) with the app-user
//! token the bridge hands it after every sign-in. It reports its queue depth and last replay
//! problem to the health actor, and never replays a change marked for review.

pub mod engine;
pub mod review;
mod review_handlers;

use std::path::PathBuf;
use std::time::Duration;

use actix::prelude::*;
use serde::Serialize;
use serde_json::Value;

use domain::offline::queue::OfflineMutation;
use infra::offline_store::{
    CachedCollection, MutationApplied, OfflineStore, OfflineStoreError, OpenReport, PendingChange,
    Settle as StoreSettle,
};
use infra::relay_client::RelayClient;

use crate::auth_coordinator::TokenSnapshot;
use crate::kit::{SharedRun, Subsystem, SubsystemCtx};
pub use engine::ReplaySummary;
pub use review_handlers::{ListPending, ResolvePending, ReviewPending};

pub const NAME: &str = "offline_replay";

/// A token this close to expiry is not used for a replay.
const TOKEN_MARGIN_MS: i64 = 30_000;
/// Deadline of each request a replay makes.
pub const REQUEST_TIMEOUT: Duration = Duration::from_secs(15);
/// Most records one cached collection may hold.
pub const MAX_CACHED_RECORDS: usize = 100_000;
/// The refusal while the store is closed for a restart into another runtime.
pub const RESTARTING: &str = "Relay is restarting into another version; changes wait until it is back.";

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum OfflineError {
    /// The store could not be opened or failed (the original's text); details are logged.
    #[error("Offline storage is unavailable")]
    Unavailable,
    /// A mutation or review refused by the rules, with its operator-facing text.
    #[error("{0}")]
    Refused(String),
    #[error("Sign in to the Relay server to sync offline changes.")]
    NeedsSignIn,
    #[error("This collection is not cached offline.")]
    NotCacheable,
    #[error("Too many records to cache.")]
    TooMany,
}

fn store_error(e: OfflineStoreError) -> OfflineError {
    match e {
        OfflineStoreError::Unavailable { detail } => {
            tracing::error!(error = %detail, "offline store failed");
            OfflineError::Unavailable
        }
        other => OfflineError::Refused(other.to_string()),
    }
}

/// What the status bar and the review badge show.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct OfflineStatus {
    pub pending_count: i64,
    /// Changes waiting for the operator's review (conflicts and refusals).
    pub issue_count: i64,
    pub replaying: bool,
    /// `[done, total]` of the replay in progress.
    pub progress: Option<(usize, usize)>,
    pub last_error: Option<String>,
    pub last_replay: Option<ReplaySummary>,
    /// Set when the cache had to be rebuilt or the queue was moved aside at start.
    pub storage_notice: Option<String>,
}

/// Stores `records` as the cached copy of `collection` (online snapshots from the renderer).
#[derive(Debug, Clone, Message)]
#[rtype(result = "Result<(), OfflineError>")]
pub struct CacheSnapshot {
    pub collection: String,
    pub records: Vec<Value>,
}

/// One collection's cached records (what the client shows while the server is unreachable).
#[derive(Debug, Clone, Message)]
#[rtype(result = "Result<Option<CachedCollection>, OfflineError>")]
pub struct ReadCache {
    pub collection: String,
}

/// An offline write: checked, then cache and queue in one commit.
#[derive(Debug, Clone, Message)]
#[rtype(result = "Result<MutationApplied, OfflineError>")]
pub struct Mutate(pub OfflineMutation);

/// Queue length, replay state and the pending-review count for the status bar.
#[derive(Debug, Clone, Copy, Message)]
#[rtype(result = "OfflineStatus")]
pub struct GetOfflineStatus;

/// The app-user token from the latest sign-in (the bridge sends it; never logged).
#[derive(Debug, Clone, Message)]
#[rtype(result = "()")]
pub struct UseToken(pub TokenSnapshot);

/// Replays the queue now, or joins the replay in progress.
#[derive(Debug, Clone, Copy, Message)]
#[rtype(result = "Result<ReplaySummary, OfflineError>")]
pub struct ReplayNow;

/// Engine → actor: the changes a replay may send (those not marked for review).
#[derive(Debug, Clone, Copy, Message)]
#[rtype(result = "Result<Vec<PendingChange>, String>")]
pub(crate) struct TakeReplayable;

/// How one change ended.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Settlement {
    /// On the server; `server` is its copy when known (then cached).
    Applied {
        server: Option<Value>,
    },
    Conflict,
    Failed {
        reason: String,
    },
}

/// Engine → actor: settle changes, each at the version the engine sent, in one commit.
#[derive(Debug, Clone, Message)]
#[rtype(result = "Result<(), String>")]
pub(crate) struct Settle {
    /// `(change id, version, how it ended)`.
    pub items: Vec<(i64, i64, Settlement)>,
}

/// Progress of the running replay (done of total), sent by the replay task to its actor.
#[derive(Debug, Clone, Copy, Message)]
#[rtype(result = "()")]
pub(crate) struct ReplayProgress {
    pub done: usize,
    pub total: usize,
}

pub struct OfflineReplayConfig {
    pub data_dir: PathBuf,
    /// The validated server origin.
    pub server_origin: String,
}

pub struct OfflineReplayActor {
    subsystem: SubsystemCtx,
    config: OfflineReplayConfig,
    store: Option<OfflineStore>,
    storage_notice: Option<String>,
    token: Option<TokenSnapshot>,
    run: SharedRun<ReplaySummary>,
    progress: Option<(usize, usize)>,
    last_replay: Option<ReplaySummary>,
    tickets: review::Tickets,
    /// Set by [`CloseForRestart`]: the store is closed and stays closed (every use is refused)
    /// until [`ReopenAfterRestartRefused`].
    closed_for_restart: bool,
}

fn notice(report: &OpenReport) -> Option<String> {
    if let Some(q) = &report.queue_quarantined {
        tracing::error!(reason = %q.reason, "offline queue was unreadable and was moved aside");
        return Some(format!(
            "Offline changes could not be read and were set aside in {}; contact support before deleting it.",
            q.moved_to.display()
        ));
    }
    report.cache_rebuilt.as_ref().map(|reason| {
        tracing::warn!(reason = %reason, "offline cache was unreadable and was rebuilt");
        "The offline cache was damaged and has been rebuilt; it fills again while connected.".to_string()
    })
}

impl OfflineReplayActor {
    pub fn new(subsystem: SubsystemCtx, config: OfflineReplayConfig) -> OfflineReplayActor {
        OfflineReplayActor {
            subsystem,
            config,
            store: None,
            storage_notice: None,
            token: None,
            run: SharedRun::default(),
            progress: None,
            last_replay: None,
            tickets: review::Tickets::default(),
            closed_for_restart: false,
        }
    }

    fn open(&mut self) {
        if self.store.is_some() || self.closed_for_restart {
            return;
        }
        match OfflineStore::open(&self.config.data_dir) {
            Ok((store, report)) => {
                self.storage_notice = notice(&report);
                self.store = Some(store);
            }
            Err(e) => {
                tracing::error!(error = %e, "offline store cannot be opened");
                self.subsystem.report_failure(NAME, "offline store cannot be opened");
            }
        }
    }

    fn store(&mut self) -> Result<&mut OfflineStore, OfflineError> {
        if self.closed_for_restart {
            return Err(OfflineError::Refused(RESTARTING.into()));
        }
        self.open();
        self.store.as_mut().ok_or(OfflineError::Unavailable)
    }

    fn status(&mut self) -> OfflineStatus {
        let (pending_count, issue_count) =
            self.store().and_then(|s| s.pending_counts().map_err(store_error)).unwrap_or((0, 0));
        OfflineStatus {
            pending_count,
            issue_count,
            replaying: self.run.is_running(),
            progress: self.progress,
            last_error: self.last_replay.as_ref().and_then(|r| r.stopped.clone()),
            last_replay: self.last_replay.clone(),
            storage_notice: self.storage_notice.clone(),
        }
    }

    fn usable_token(&self) -> Option<String> {
        let now = self.subsystem.now_ms();
        self.token.as_ref().filter(|t| t.expires_at * 1000 > now + TOKEN_MARGIN_MS).map(|t| t.token.clone())
    }

    fn start_replay(&mut self, ctx: &mut Context<Self>) -> Result<(), OfflineError> {
        if self.run.is_running() {
            return Ok(());
        }
        let token = self.usable_token().ok_or(OfflineError::NeedsSignIn)?;
        let client = RelayClient::new(&self.config.server_origin, REQUEST_TIMEOUT).map_err(|e| {
            tracing::error!(error = %e, "cannot build the client for the Relay server");
            OfflineError::Unavailable
        })?;
        let Some(cancel) = self.run.begin() else { return Ok(()) };
        self.progress = Some((0, 0));
        let replay = engine::replay(ctx.address(), client, token, cancel);
        ctx.spawn(replay.into_actor(self).map(|summary, act, _| {
            tracing::info!(
                total = summary.total,
                synced = summary.synced,
                conflicts = summary.conflicts,
                failed = summary.failed,
                stopped = summary.stopped.is_some(),
                "offline replay finished"
            );
            if let Some(reason) = &summary.stopped {
                act.subsystem.report_failure(NAME, reason.clone());
            }
            act.progress = None;
            act.last_replay = Some(summary.clone());
            act.run.finish(&summary);
        }));
        Ok(())
    }
}

impl Subsystem for OfflineReplayActor {
    const NAME: &'static str = NAME;
    fn subsystem(&self) -> &SubsystemCtx {
        &self.subsystem
    }
    fn queue_depth(&self) -> usize {
        self.progress.map(|(done, total)| total.saturating_sub(done)).unwrap_or(0)
    }
    fn reset(&mut self) {
        self.run.cancel();
        self.progress = None;
        self.store = None;
        self.tickets.clear();
    }
    fn on_start(&mut self, _ctx: &mut Context<Self>) {
        self.open();
    }
}

crate::subsystem_actor!(OfflineReplayActor);

impl Handler<CacheSnapshot> for OfflineReplayActor {
    type Result = Result<(), OfflineError>;
    fn handle(&mut self, msg: CacheSnapshot, _: &mut Context<Self>) -> Self::Result {
        if domain::collections::collection(&msg.collection).is_none() {
            return Err(OfflineError::NotCacheable);
        }
        if msg.records.len() > MAX_CACHED_RECORDS {
            return Err(OfflineError::TooMany);
        }
        let now = self.subsystem.now_ms();
        self.store()?.replace_snapshot(&msg.collection, &msg.records, now).map_err(store_error)
    }
}

impl Handler<ReadCache> for OfflineReplayActor {
    type Result = Result<Option<CachedCollection>, OfflineError>;
    fn handle(&mut self, msg: ReadCache, _: &mut Context<Self>) -> Self::Result {
        if domain::collections::collection(&msg.collection).is_none() {
            return Err(OfflineError::NotCacheable);
        }
        self.store()?.cached(&msg.collection).map_err(store_error)
    }
}

impl Handler<Mutate> for OfflineReplayActor {
    type Result = Result<MutationApplied, OfflineError>;
    fn handle(&mut self, msg: Mutate, _: &mut Context<Self>) -> Self::Result {
        let now = self.subsystem.now_ms();
        self.store()?.apply_mutation(&msg.0, now).map_err(store_error)
    }
}

/// Before the app exits into another runtime (an update's candidate): refused while a replay
/// runs; otherwise the store is checkpointed (`OfflineStore::checkpoint`) and closed, and every
/// later use is refused with [`RESTARTING`]. A failed checkpoint leaves the store open and
/// answers the failure, so the restart does not happen.
#[derive(Message)]
#[rtype(result = "Result<(), OfflineError>")]
pub struct CloseForRestart;

/// The hand-off did not happen after all: the store opens again on its next use.
#[derive(Message)]
#[rtype(result = "()")]
pub struct ReopenAfterRestartRefused;

impl Handler<CloseForRestart> for OfflineReplayActor {
    type Result = Result<(), OfflineError>;
    fn handle(&mut self, _: CloseForRestart, _: &mut Context<Self>) -> Self::Result {
        if self.run.is_running() {
            return Err(OfflineError::Refused("A replay of offline changes is running; restart when it ends.".into()));
        }
        self.store()?.checkpoint().map_err(store_error)?;
        self.store = None;
        self.closed_for_restart = true;
        tracing::info!("offline store checkpointed and closed for the restart");
        Ok(())
    }
}

impl Handler<ReopenAfterRestartRefused> for OfflineReplayActor {
    type Result = ();
    fn handle(&mut self, _: ReopenAfterRestartRefused, _: &mut Context<Self>) {
        self.closed_for_restart = false;
    }
}

impl Handler<GetOfflineStatus> for OfflineReplayActor {
    type Result = MessageResult<GetOfflineStatus>;
    fn handle(&mut self, _: GetOfflineStatus, _: &mut Context<Self>) -> Self::Result {
        MessageResult(self.status())
    }
}

impl Handler<UseToken> for OfflineReplayActor {
    type Result = ();
    fn handle(&mut self, msg: UseToken, _: &mut Context<Self>) {
        self.token = Some(msg.0);
    }
}

impl Handler<ReplayNow> for OfflineReplayActor {
    type Result = ResponseFuture<Result<ReplaySummary, OfflineError>>;
    fn handle(&mut self, _: ReplayNow, ctx: &mut Context<Self>) -> Self::Result {
        let rx = self.run.wait();
        if let Err(e) = self.start_replay(ctx) {
            self.run.finish(&ReplaySummary::default());
            return Box::pin(async move { Err(e) });
        }
        Box::pin(async move { rx.await.map_err(|_| OfflineError::Unavailable) })
    }
}

impl Handler<TakeReplayable> for OfflineReplayActor {
    type Result = Result<Vec<PendingChange>, String>;
    fn handle(&mut self, _: TakeReplayable, _: &mut Context<Self>) -> Self::Result {
        let store = self.store().map_err(|e| e.to_string())?;
        let all = store.all_pending_strict().map_err(|e| store_error(e).to_string())?;
        Ok(all.into_iter().filter(|c| c.sync_error.is_empty()).collect())
    }
}

impl Handler<Settle> for OfflineReplayActor {
    type Result = Result<(), String>;
    fn handle(&mut self, msg: Settle, _: &mut Context<Self>) -> Self::Result {
        let items: Vec<(i64, i64, StoreSettle)> = msg
            .items
            .into_iter()
            .map(|(id, version, settlement)| {
                let step = match settlement {
                    Settlement::Applied { server: Some(record) } => StoreSettle::Discard(Some(record)),
                    Settlement::Applied { server: None } => StoreSettle::Remove,
                    Settlement::Conflict => StoreSettle::MarkForReview(engine::CONFLICT.to_string()),
                    Settlement::Failed { reason } => StoreSettle::MarkForReview(reason),
                };
                (id, version, step)
            })
            .collect();
        let store = self.store().map_err(|e| e.to_string())?;
        // A change edited while it was in flight has a new version: it replays next time.
        store.settle_all(&items).map(|_stale| ()).map_err(|e| store_error(e).to_string())
    }
}

impl Handler<ReplayProgress> for OfflineReplayActor {
    type Result = ();
    fn handle(&mut self, msg: ReplayProgress, _: &mut Context<Self>) {
        if self.run.is_running() {
            self.progress = Some((msg.done, msg.total));
        }
    }
}

#[cfg(test)]
#[path = "restart_tests.rs"]
mod restart_tests;
