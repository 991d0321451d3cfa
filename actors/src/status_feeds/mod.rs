//! The status-feeds actor (server): owns Relay's view of the outside services' status pages.
//! It polls every provider through an `infra::status_feeds::FeedPoller` (credential-free, fixed
//! endpoints, bounded), every 5 minutes while all is quiet and every 60 s while a feed failed or
//! trouble was reported within 7 days; concurrent requests (schedule, operator refresh) share the
//! poll in flight. Each provider's state goes to its server-owned `cloud_status` record only when
//! its content hash changed, so quiet polls write nothing; realtime carries the changes. The toast
//! rule (`domain::status_feeds::notify`) decides which incidents notify; each toasted episode is a
//! `cloud_status_notices` record (created when it toasts, deleted when it ends) and the tracker is
//! seeded from those records at start, so a restart never toasts twice. After every poll the
//! subsystem reports its condition to the health view: degraded while any feed fails ("14 of 17
//! feeds failing: <error>", `state::feeds_condition`), recovered once all are read. Operator
//! refreshes are limited server-wide. The actor never reads a URL, cookie or credential from a
//! client.

pub mod state;

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use actix::prelude::*;
use serde::Serialize;
use serde_json::{json, Value};

use domain::filter::{CmpOp, Expr, Literal};
use domain::problem::HttpProblem;
use domain::record::{RawListParams, RecordError};
use domain::status_feeds::notify::{Decision, NotificationTracker};
use domain::status_feeds::posture::next_poll_in_ms;
use domain::status_feeds::view::{service_status, ServiceStatus};
use domain::status_feeds::{ProviderId, ProviderSnapshot};
use infra::status_feeds::{FeedPoller, ProviderPoll};

use crate::kit::{SharedRun, Subsystem, SubsystemCtx};
use crate::store::{DeleteWhere, ListRecords, StoreActor, UpsertByKey};
use state::{apply_polls, feeds_condition, state_from_record, ProviderState, StatusWrite};

pub const NAME: &str = "status_feeds";
pub const STATUS_COLLECTION: &str = "cloud_status";
pub const NOTICES_COLLECTION: &str = "cloud_status_notices";

/// Limits and timing. `Default` gives the production numbers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StatusFeedsConfig {
    /// Shortest time between two operator-requested refreshes, server-wide (default 30 s).
    pub manual_refresh_interval_ms: i64,
    /// Delay before the first poll once the stored state is loaded (default 2 s).
    pub first_poll_delay: Duration,
    /// Delay before retrying a failed load of the stored state (default 5 s).
    pub load_retry: Duration,
    /// Whether the actor polls on its own timers (tests turn this off and send [`PollNow`]).
    pub scheduled: bool,
}

impl Default for StatusFeedsConfig {
    fn default() -> Self {
        StatusFeedsConfig {
            manual_refresh_interval_ms: 30_000,
            first_poll_delay: Duration::from_secs(2),
            load_retry: Duration::from_secs(5),
            scheduled: true,
        }
    }
}

/// `GET /api/relay/status`: what the Status tab shows.
#[derive(Debug, Clone, Copy, Message)]
#[rtype(result = "ServiceStatus")]
pub struct GetStatus;

/// `POST /api/relay/status/refresh`: an operator asks for a poll now (limited server-wide).
#[derive(Debug, Clone, Copy, Message)]
#[rtype(result = "Result<RefreshOutcome, StatusFeedsError>")]
pub struct RequestRefresh;

/// Tests and operations: poll now (sharing a poll in flight); resolves once that poll's results
/// are stored.
#[derive(Debug, Clone, Copy, Message)]
#[rtype(result = "Result<PollSummary, StatusFeedsError>")]
pub struct PollNow;

/// The answer to [`RequestRefresh`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RefreshOutcome {
    /// A new poll started (false: one was already running and the request joined it).
    pub started: bool,
    pub in_flight: bool,
}

/// What one poll did.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PollSummary {
    pub failed: Vec<ProviderId>,
    /// `cloud_status` records written (providers whose visible content changed).
    pub written: usize,
    /// Toasts published (notice records created).
    pub toasts: usize,
    /// Toasted episodes that ended (notice records deleted).
    pub ended: usize,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum StatusFeedsError {
    #[error("Service status was refreshed moments ago; try again in {retry_after_secs} s.")]
    RefreshTooSoon { retry_after_secs: u64 },
    #[error("Service status is starting; try again shortly.")]
    NotReady,
    #[error("Service status is unavailable.")]
    Unavailable,
}

impl HttpProblem for StatusFeedsError {
    fn status(&self) -> u16 {
        match self {
            StatusFeedsError::RefreshTooSoon { .. } => 429,
            StatusFeedsError::NotReady | StatusFeedsError::Unavailable => 503,
        }
    }
    fn code(&self) -> &'static str {
        match self {
            StatusFeedsError::RefreshTooSoon { .. } => "status_refresh_rate_limited",
            StatusFeedsError::NotReady => "status_not_ready",
            StatusFeedsError::Unavailable => "status_unavailable",
        }
    }
    fn retry_after_secs(&self) -> Option<u64> {
        match self {
            StatusFeedsError::RefreshTooSoon { retry_after_secs } => Some(*retry_after_secs),
            StatusFeedsError::NotReady => Some(2),
            StatusFeedsError::Unavailable => None,
        }
    }
}

pub struct StatusFeedsActor {
    subsystem: SubsystemCtx,
    config: StatusFeedsConfig,
    store: Addr<StoreActor>,
    poller: Arc<dyn FeedPoller>,
    states: BTreeMap<ProviderId, ProviderState>,
    tracker: NotificationTracker,
    /// The stored state and open notices were read (polling waits for this, or it could
    /// re-toast episodes it does not know were toasted).
    loaded: bool,
    run: SharedRun<PollSummary>,
    last_manual_ms: Option<i64>,
    next_poll_ms: Option<i64>,
    timer: Option<SpawnHandle>,
}

impl StatusFeedsActor {
    pub fn new(
        subsystem: SubsystemCtx,
        config: StatusFeedsConfig,
        store: Addr<StoreActor>,
        poller: Arc<dyn FeedPoller>,
    ) -> StatusFeedsActor {
        StatusFeedsActor {
            subsystem,
            config,
            store,
            poller,
            states: BTreeMap::new(),
            tracker: NotificationTracker::default(),
            loaded: false,
            run: SharedRun::default(),
            last_manual_ms: None,
            next_poll_ms: None,
            timer: None,
        }
    }

    fn snapshots(&self) -> Vec<ProviderSnapshot> {
        self.states.values().map(|s| s.snapshot.clone()).collect()
    }

    /// Reads the stored provider records and open notices, then schedules the first poll.
    fn load(&mut self, ctx: &mut Context<Self>) {
        let store = self.store.clone();
        let list = |collection: &str| ListRecords {
            collection: collection.into(),
            params: RawListParams { per_page: Some("1000".into()), skip_total: Some("1".into()), ..Default::default() },
        };
        let (status, notices) = (list(STATUS_COLLECTION), list(NOTICES_COLLECTION));
        let work = async move {
            let status = store.send(status).await.map_err(|_| RecordError::Unavailable)??;
            let notices = store.send(notices).await.map_err(|_| RecordError::Unavailable)??;
            Ok::<_, RecordError>((status.items, notices.items))
        };
        ctx.spawn(work.into_actor(self).map(|result, act, ctx| match result {
            Ok((status, notices)) => {
                act.states = status.iter().filter_map(state_from_record).map(|s| (s.snapshot.provider, s)).collect();
                let episodes = notices.iter().filter_map(|n| n["episode"].as_str().map(str::to_string));
                act.tracker = NotificationTracker::seeded(episodes);
                act.loaded = true;
                if act.config.scheduled {
                    act.schedule(ctx, act.config.first_poll_delay);
                }
            }
            Err(e) => {
                act.subsystem.report_failure(NAME, format!("cannot read the stored service status: {e}"));
                ctx.run_later(act.config.load_retry, |act, ctx| act.load(ctx));
            }
        }));
    }

    fn schedule(&mut self, ctx: &mut Context<Self>, after: Duration) {
        if let Some(handle) = self.timer.take() {
            ctx.cancel_future(handle);
        }
        self.next_poll_ms = Some(self.subsystem.now_ms() + after.as_millis() as i64);
        self.timer = Some(ctx.run_later(after, |act, ctx| {
            act.timer = None;
            act.start_poll(ctx);
        }));
    }

    /// Starts a poll unless one is running. Returns whether a new one started.
    fn start_poll(&mut self, ctx: &mut Context<Self>) -> bool {
        if !self.loaded {
            return false;
        }
        let Some(cancel) = self.run.begin() else {
            return false;
        };
        let started_ms = self.subsystem.now_ms();
        let polls = self.poller.poll_all(started_ms, cancel);
        ctx.spawn(polls.into_actor(self).map(|polls, act, ctx| act.finish_poll(polls, ctx)));
        true
    }

    fn finish_poll(&mut self, polls: Vec<ProviderPoll>, ctx: &mut Context<Self>) {
        let now = self.subsystem.now_ms();
        let (fresh, writes) = apply_polls(&mut self.states, polls, now);
        // Before the poll's waiters are answered, so they read the health this poll left.
        self.subsystem.report_condition(NAME, feeds_condition(&self.states));
        let decision = self.tracker.observe(now, &self.snapshots(), &fresh);
        let failed: Vec<ProviderId> =
            self.states.values().filter(|s| s.snapshot.error.is_some()).map(|s| s.snapshot.provider).collect();
        let store = self.store.clone();
        let persist = persist(store, writes, decision);
        ctx.spawn(persist.into_actor(self).map(move |outcome, act, ctx| {
            for (provider, hash) in &outcome.stored {
                if let Some(state) = act.states.get_mut(provider) {
                    state.stored_hash = Some(hash.clone());
                }
            }
            if let Some(error) = &outcome.error {
                act.subsystem.report_failure(NAME, format!("cannot store service status: {error}"));
            }
            let summary =
                PollSummary { failed, written: outcome.stored.len(), toasts: outcome.toasts, ended: outcome.ended };
            tracing::info!(
                failed = summary.failed.len(),
                written = summary.written,
                toasts = summary.toasts,
                "service status polled"
            );
            act.run.finish(&summary);
            if act.config.scheduled {
                let next = next_poll_in_ms(&act.snapshots(), act.subsystem.now_ms());
                act.schedule(ctx, Duration::from_millis(next.max(1) as u64));
            }
        }));
    }
}

/// What the store accepted of one poll's writes.
#[derive(Debug, Default)]
struct Persisted {
    stored: Vec<(ProviderId, String)>,
    toasts: usize,
    ended: usize,
    error: Option<RecordError>,
}

/// Upserts the changed provider records, creates one notice per toast and deletes the notices
/// of ended episodes. A failed write is reported; its provider is written again next poll.
async fn persist(store: Addr<StoreActor>, writes: Vec<StatusWrite>, decision: Decision) -> Persisted {
    let mut done = Persisted::default();
    let send_error = |_| RecordError::Unavailable;
    for write in writes {
        let upsert = UpsertByKey {
            collection: STATUS_COLLECTION,
            key_field: "provider",
            key_value: write.provider.as_str().to_string(),
            body: write.body,
        };
        match store.send(upsert).await.map_err(send_error).and_then(|r| r) {
            Ok(_) => done.stored.push((write.provider, write.hash)),
            Err(e) => done.error = Some(e),
        }
    }
    for toast in decision.toasts {
        let body: Value = json!({
            "episode": toast.episode,
            "provider": toast.provider.as_str(),
            "itemId": toast.item_id,
            "severity": if toast.severity == domain::status_feeds::Severity::Error { "error" } else { "warning" },
            "title": toast.title,
        });
        let upsert =
            UpsertByKey { collection: NOTICES_COLLECTION, key_field: "episode", key_value: toast.episode, body };
        match store.send(upsert).await.map_err(send_error).and_then(|r| r) {
            Ok(_) => done.toasts += 1,
            Err(e) => done.error = Some(e),
        }
    }
    for episode in decision.ended {
        let filter = Expr::Cmp { field: "episode".into(), op: CmpOp::Eq, value: Literal::Str(episode) };
        match store.send(DeleteWhere { collection: NOTICES_COLLECTION, filter, limit: 10 }).await {
            Ok(Ok(n)) => done.ended += n,
            Ok(Err(e)) => done.error = Some(e),
            Err(_) => done.error = Some(RecordError::Unavailable),
        }
    }
    done
}

impl Subsystem for StatusFeedsActor {
    const NAME: &'static str = NAME;
    fn subsystem(&self) -> &SubsystemCtx {
        &self.subsystem
    }
    fn queue_depth(&self) -> usize {
        self.run.depth()
    }
    fn reset(&mut self) {
        self.run.cancel();
        self.states.clear();
        self.tracker = NotificationTracker::default();
        self.loaded = false;
        self.timer = None;
        self.next_poll_ms = None;
    }
    fn on_start(&mut self, ctx: &mut Context<Self>) {
        self.load(ctx);
    }
}

crate::subsystem_actor!(StatusFeedsActor);

impl Handler<GetStatus> for StatusFeedsActor {
    type Result = MessageResult<GetStatus>;
    fn handle(&mut self, _: GetStatus, _: &mut Context<Self>) -> Self::Result {
        let known: Vec<(ProviderSnapshot, Option<i64>)> =
            self.states.values().map(|s| (s.snapshot.clone(), s.checked_at)).collect();
        MessageResult(service_status(&known, self.next_poll_ms, self.run.is_running()))
    }
}

impl Handler<RequestRefresh> for StatusFeedsActor {
    type Result = Result<RefreshOutcome, StatusFeedsError>;
    fn handle(&mut self, _: RequestRefresh, ctx: &mut Context<Self>) -> Self::Result {
        if !self.loaded {
            return Err(StatusFeedsError::NotReady);
        }
        let now = self.subsystem.now_ms();
        if let Some(last) = self.last_manual_ms {
            let wait_ms = last + self.config.manual_refresh_interval_ms - now;
            if wait_ms > 0 {
                return Err(StatusFeedsError::RefreshTooSoon { retry_after_secs: (wait_ms as u64).div_ceil(1000) });
            }
        }
        self.last_manual_ms = Some(now);
        let started = self.start_poll(ctx);
        Ok(RefreshOutcome { started, in_flight: true })
    }
}

impl Handler<PollNow> for StatusFeedsActor {
    type Result = ResponseFuture<Result<PollSummary, StatusFeedsError>>;
    fn handle(&mut self, _: PollNow, ctx: &mut Context<Self>) -> Self::Result {
        if !self.loaded {
            return Box::pin(async { Err(StatusFeedsError::NotReady) });
        }
        let rx = self.run.wait();
        self.start_poll(ctx);
        Box::pin(async move { rx.await.map_err(|_| StatusFeedsError::Unavailable) })
    }
}

/// Whether the actor has read its stored state (tests wait for this before polling).
#[derive(Debug, Clone, Copy, Message)]
#[rtype(result = "bool")]
pub struct IsLoaded;

impl Handler<IsLoaded> for StatusFeedsActor {
    type Result = bool;
    fn handle(&mut self, _: IsLoaded, _: &mut Context<Self>) -> bool {
        self.loaded
    }
}

#[cfg(test)]
mod tests;
