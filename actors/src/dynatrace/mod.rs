//! The Dynatrace actor (server): owns Relay's copy of the Dynatrace problems. It reads the
//! administrator's settings and the platform token (`infra::dynatrace`), queries Grail every
//! 60 s (a full reconciliation first and then daily, incremental lookbacks between) through
//! `infra::dynatrace::GrailClient`, normalizes the answer (`domain::dynatrace::problem`) and
//! writes only changed problems to the server-owned `dynatrace_problems` collection, plus the
//! `dynatrace_problem_sync` status record; realtime carries both. One run is in flight at a time
//! (`SharedRun`), so commits are serialized. Every settings change bumps a generation: a run
//! that started under an older generation writes nothing, and a write loop stops as soon as the
//! generation moves. A truncated reconciliation writes and removes nothing. Failures back off
//! (`domain::dynatrace::retry_delay_ms`, or Dynatrace's longer `Retry-After`) and are shown in
//! plain words in the sync record, never with a token or a URL; the health view shows the
//! subsystem as not configured (not in use) or degraded while runs fail. With "follow workflow DQL" the
//! scope is read from the administrator's workflow (read-only, again at every reconciliation);
//! a workflow that cannot be followed fails the run without writing. After the problems, a
//! subject job (`subjects`) reads notification e-mail subjects; storing is in `persist`. A
//! stopping host (a restore's swap) pauses it first ([`PauseSync`]): no new run, the run in
//! flight cancelled and drained. The actor never writes to Dynatrace.

mod persist;
pub mod plan;
mod query;
mod settings;
pub mod subjects;

use std::collections::{BTreeSet, HashMap};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use actix::prelude::*;
use serde::Serialize;
use serde_json::{json, Value};

use domain::dynatrace::dql::{connection_test_query, problems_query, Lookback};
use domain::dynatrace::grail::QueryResult;
use domain::dynatrace::problem::normalize_problem;
use domain::dynatrace::scope::Scope;
use domain::dynatrace::{EnvironmentUrl, POLL_INTERVAL_MS};
use domain::problem::HttpProblem;
use domain::record::{RawListParams, RecordError};
use infra::dynatrace::client::QueryError;
use infra::dynatrace::GrailClient;
use infra::http::CancellationToken;

use crate::kit::{SharedRun, Subsystem, SubsystemCtx};
use crate::store::{ListRecords, StoreActor, UpsertByKey};
use persist::{persist, Work};
use plan::{changed_writes, lookback, scope_of, SyncMemory};
pub use settings::{Settings, SettingsSource};
use subjects::{subject_writes, SubjectJob, SubjectMemory};

pub const NAME: &str = "dynatrace";
pub const PROBLEMS: &str = "dynatrace_problems";
pub const SYNC: &str = "dynatrace_problem_sync";
const SYNC_KEY: &str = "problems";

/// Timing. `Default` gives the production numbers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DynatraceConfig {
    /// Delay before the first run after start (default 3 s).
    pub first_run_delay: Duration,
    /// Delay before the run a settings change asks for (default 1 s).
    pub after_change_delay: Duration,
    /// Whether the actor runs on its own timers (tests turn this off and send [`SyncNow`]).
    pub scheduled: bool,
}

impl Default for DynatraceConfig {
    fn default() -> Self {
        DynatraceConfig {
            first_run_delay: Duration::from_secs(3),
            after_change_delay: Duration::from_secs(1),
            scheduled: true,
        }
    }
}

/// From the privileged command handlers: the stored settings or token changed.
#[derive(Debug, Clone, Copy, Message)]
#[rtype(result = "()")]
pub struct SettingsChanged;

/// Tests and operations (`relay dynatrace sync`): run now, joining a run in flight; resolves
/// when that run's results are stored.
#[derive(Debug, Clone, Copy, Message)]
#[rtype(result = "Result<SyncSummary, DynatraceError>")]
pub struct SyncNow;

/// From a stopping host (`Handles::prepare_stop`, before a restore's swap or a shutdown): no run
/// starts any more, the run in flight is cancelled and its writes stop at the next step;
/// resolves once that run has finished.
#[derive(Debug, Clone, Copy, Message)]
#[rtype(result = "()")]
pub struct PauseSync;

/// `dynatrace.testConnection`: one small query with the stored URL and token.
#[derive(Debug, Clone, Copy, Message)]
#[rtype(result = "Result<ConnectionTest, DynatraceError>")]
pub struct TestConnection;

/// What one run did.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SyncSummary {
    /// `disabled`, `ok`, `error` or `discarded` (the settings changed while it ran).
    pub outcome: &'static str,
    pub reconciled: bool,
    pub fetched: usize,
    pub written: usize,
    pub removed: usize,
    pub skipped_malformed: usize,
    pub truncated: bool,
    /// Workflow executions read for e-mail subjects, and problems given a new subject.
    pub subjects_read: usize,
    pub subjects_written: usize,
    pub error: Option<String>,
}

/// The answer to [`TestConnection`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ConnectionTest {
    pub ok: bool,
    pub message: String,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DynatraceError {
    #[error("Dynatrace sync is unavailable.")]
    Unavailable,
}

impl HttpProblem for DynatraceError {
    fn status(&self) -> u16 {
        503
    }
    fn code(&self) -> &'static str {
        "dynatrace_unavailable"
    }
}

/// What the query part of a run produced.
enum Fetch {
    Disabled,
    Failed { message: String, retry_after_ms: Option<i64> },
    Fetched(Fetched),
}

pub struct DynatraceActor {
    subsystem: SubsystemCtx,
    config: DynatraceConfig,
    store: Addr<StoreActor>,
    settings: Arc<dyn SettingsSource>,
    client: GrailClient,
    memory: SyncMemory,
    /// problem id -> content hash of what this actor last wrote.
    written: HashMap<String, String>,
    subjects: SubjectMemory,
    /// The scope read from the followed workflow (re-read on every reconciliation).
    workflow_scope: Option<Scope>,
    generation: Arc<AtomicU64>,
    run: SharedRun<SyncSummary>,
    timer: Option<SpawnHandle>,
    /// Set by [`PauseSync`]: no run starts again in this actor's life.
    paused: bool,
    /// A run's future is alive (until its `finish`, even after a cancel).
    alive: bool,
    /// [`PauseSync`] callers waiting for the live run to finish.
    drained: Vec<tokio::sync::oneshot::Sender<()>>,
}

impl DynatraceActor {
    pub fn new(
        subsystem: SubsystemCtx,
        config: DynatraceConfig,
        store: Addr<StoreActor>,
        settings: Arc<dyn SettingsSource>,
        client: GrailClient,
    ) -> DynatraceActor {
        DynatraceActor {
            subsystem,
            config,
            store,
            settings,
            client,
            memory: SyncMemory::default(),
            written: HashMap::new(),
            subjects: SubjectMemory::default(),
            workflow_scope: None,
            generation: Arc::new(AtomicU64::new(0)),
            run: SharedRun::default(),
            timer: None,
            paused: false,
            alive: false,
            drained: Vec::new(),
        }
    }

    fn schedule(&mut self, ctx: &mut Context<Self>, after: Duration) {
        if !self.config.scheduled || self.paused {
            return;
        }
        if let Some(handle) = self.timer.take() {
            ctx.cancel_future(handle);
        }
        self.timer = Some(ctx.run_later(after, |act, ctx| {
            act.timer = None;
            act.start_run(ctx);
        }));
    }

    /// Starts a run unless one is in flight; returns whether one started.
    fn start_run(&mut self, ctx: &mut Context<Self>) -> bool {
        if self.paused {
            return false;
        }
        let Some(cancel) = self.run.begin() else {
            return false;
        };
        self.alive = true;
        let generation = self.generation.load(Ordering::SeqCst);
        let now = self.subsystem.now_ms();
        let inputs = RunInputs {
            memory: self.memory.clone(),
            subjects_known: self.subjects.due(now).then(|| self.subjects.known.clone()),
            workflow_scope: self.workflow_scope.clone(),
            now,
        };
        let fetch = fetch(self.settings.clone(), self.client.clone(), inputs, cancel);
        ctx.spawn(fetch.into_actor(self).map(move |fetched, act, ctx| act.commit(generation, fetched, ctx)));
        true
    }

    fn finish(&mut self, summary: SyncSummary, next: Duration, ctx: &mut Context<Self>) {
        tracing::info!(
            outcome = summary.outcome,
            reconciled = summary.reconciled,
            fetched = summary.fetched,
            written = summary.written,
            removed = summary.removed,
            "dynatrace problems synced"
        );
        self.run.finish(&summary);
        self.alive = false;
        for waiter in self.drained.drain(..) {
            let _ = waiter.send(());
        }
        self.schedule(ctx, next);
    }

    fn commit(&mut self, generation: u64, fetched: Fetch, ctx: &mut Context<Self>) {
        if generation != self.generation.load(Ordering::SeqCst) {
            let summary = SyncSummary { outcome: "discarded", ..Default::default() };
            return self.finish(summary, self.config.after_change_delay, ctx);
        }
        let now = self.subsystem.now_ms();
        let poll = Duration::from_millis(POLL_INTERVAL_MS as u64);
        match fetched {
            Fetch::Disabled => {
                self.memory = SyncMemory::default();
                self.written.clear();
                self.subjects = SubjectMemory::default();
                self.upsert_sync(ctx, plan::disabled_record());
                self.subsystem.report_degraded(NAME, plan::not_configured_condition());
                self.finish(SyncSummary { outcome: "disabled", ..Default::default() }, poll, ctx);
            }
            Fetch::Failed { message, retry_after_ms } => {
                self.memory.consecutive_failures = self.memory.consecutive_failures.saturating_add(1);
                self.memory.stale_since_ms = self.memory.stale_since_ms.or(Some(now));
                let (record, delay) = plan::failure_record(&self.memory, &message, retry_after_ms, now);
                self.upsert_sync(ctx, record);
                self.subsystem.report_degraded(NAME, plan::failing_condition(&self.memory, &message));
                let summary = SyncSummary { outcome: "error", error: Some(message), ..Default::default() };
                self.finish(summary, Duration::from_millis(delay.max(1) as u64), ctx);
            }
            Fetch::Fetched(fetched) => self.store_problems(generation, fetched, now, ctx),
        }
    }

    fn store_problems(&mut self, generation: u64, fetched: Fetched, now: i64, ctx: &mut Context<Self>) {
        let Fetched { result, lookback, scope, environment, subjects: subject_job, followed_workflow } = fetched;
        let reconciled = lookback == Lookback::Reconcile;
        let mut problems = Vec::with_capacity(result.records.len());
        let mut skipped = 0;
        for record in &result.records {
            match normalize_problem(record) {
                Ok(problem) => problems.push(problem),
                Err(_) => skipped += 1,
            }
        }
        let truncated = result.truncated;
        let base = SyncSummary {
            outcome: "ok",
            reconciled,
            fetched: problems.len(),
            skipped_malformed: skipped,
            truncated,
            ..Default::default()
        };
        // A truncated reconciliation is incomplete: it writes and removes nothing.
        let (writes, returned) = if reconciled && truncated {
            (Vec::new(), None)
        } else {
            let returned: Option<BTreeSet<String>> =
                reconciled.then(|| problems.iter().map(|p| p.problem_id.clone()).collect());
            (changed_writes(&problems, &self.written, &environment, now), returned)
        };
        // Subjects are worked out on a copy, kept only if the run is still current when stored.
        let mut subjects = self.subjects.clone();
        let (subject_updates, subjects_read) = match &subject_job {
            Some(job) => {
                subjects.absorb(job, now);
                (subject_writes(&job.notifications, &subjects), job.reads.len())
            }
            None => (Vec::new(), 0),
        };
        let work = Work { writes, returned, subjects: subject_updates };
        let persist = persist(self.store.clone(), self.generation.clone(), generation, work, now);
        ctx.spawn(persist.into_actor(self).map(move |persisted, act, ctx| {
            if generation != act.generation.load(Ordering::SeqCst) {
                let summary = SyncSummary { outcome: "discarded", ..Default::default() };
                return act.finish(summary, act.config.after_change_delay, ctx);
            }
            for write in &persisted.subjects {
                subjects.written.insert(write.problem_id.clone(), (write.subject.clone(), write.status.clone()));
            }
            act.subjects = subjects;
            act.workflow_scope = followed_workflow.then(|| scope.clone());
            for (id, hash) in persisted.stored {
                act.written.insert(id, hash);
            }
            for id in &persisted.removed {
                act.written.remove(id);
            }
            if let Some(e) = &persisted.error {
                act.subsystem.report_failure(NAME, format!("cannot store Dynatrace problems: {e}"));
            }
            act.memory.last_success_ms = Some(now);
            act.memory.consecutive_failures = 0;
            act.memory.stale_since_ms = None;
            if reconciled {
                act.memory.last_reconciled_ms = Some(now);
                act.memory.reconcile_pending = false;
            }
            let record = plan::success_record(&act.memory, &scope, truncated, persisted.open_count, now);
            act.upsert_sync(ctx, record);
            act.subsystem.report_recovered(NAME);
            let summary = SyncSummary {
                written: persisted.written,
                removed: persisted.removed.len(),
                subjects_read,
                subjects_written: persisted.subjects.len(),
                ..base
            };
            act.finish(summary, Duration::from_millis(POLL_INTERVAL_MS as u64), ctx);
        }));
    }

    fn upsert_sync(&mut self, ctx: &mut Context<Self>, body: Value) {
        let upsert = UpsertByKey { collection: SYNC, key_field: "key", key_value: SYNC_KEY.into(), body };
        let store = self.store.clone();
        ctx.spawn(
            async move { store.send(upsert).await.map_err(|_| RecordError::Unavailable).and_then(|r| r) }
                .into_actor(self)
                .map(|result, act, _| {
                    if let Err(e) = result {
                        act.subsystem.report_failure(NAME, format!("cannot store the Dynatrace sync state: {e}"));
                    }
                }),
        );
    }

    /// Reads the stored sync record so backoff and the reconciliation schedule survive a restart.
    fn load(&mut self, ctx: &mut Context<Self>) {
        let store = self.store.clone();
        let list = ListRecords {
            collection: SYNC.into(),
            params: RawListParams { per_page: Some("1".into()), skip_total: Some("1".into()), ..Default::default() },
        };
        ctx.spawn(async move { store.send(list).await }.into_actor(self).map(|result, act, ctx| {
            if let Ok(Ok(page)) = result {
                if let Some(record) = page.items.first() {
                    act.memory = settings::memory_from_record(record);
                }
            }
            act.schedule(ctx, act.config.first_run_delay);
        }));
    }
}

/// What a run's queries returned.
struct Fetched {
    result: QueryResult,
    lookback: Lookback,
    scope: Scope,
    environment: String,
    subjects: Option<SubjectJob>,
    /// Whether `scope` was read from the followed workflow.
    followed_workflow: bool,
}

/// What a run starts from.
struct RunInputs {
    memory: SyncMemory,
    /// Executions already read, when a subject job is due.
    subjects_known: Option<HashMap<String, Option<String>>>,
    workflow_scope: Option<Scope>,
    now: i64,
}

/// Reads the settings and token, then queries Grail for problems and (when a subject job is
/// due) notification e-mail subjects. A followed workflow's scope is read again on every
/// reconciliation; a workflow that cannot be followed fails the run (nothing written, the
/// incremental cursor stays where it was).
async fn fetch(
    settings: Arc<dyn SettingsSource>,
    client: GrailClient,
    inputs: RunInputs,
    cancel: CancellationToken,
) -> Fetch {
    let RunInputs { memory, subjects_known, workflow_scope, now } = inputs;
    let read = tokio::task::spawn_blocking(move || settings.read()).await;
    let (config, token) = match read {
        Ok(Ok(pair)) => pair,
        Ok(Err(message)) => return Fetch::Failed { message, retry_after_ms: None },
        Err(_) => {
            return Fetch::Failed {
                message: "Relay could not read the Dynatrace settings.".into(),
                retry_after_ms: None,
            }
        }
    };
    let (Some(url), Some(token)) = (config.environment_url.clone().filter(|_| config.is_complete()), token) else {
        return Fetch::Disabled;
    };
    let Ok(environment) = EnvironmentUrl::parse(&url) else {
        return Fetch::Failed {
            message: "The stored Dynatrace environment URL is not valid; an Administrator must enter it again.".into(),
            retry_after_ms: None,
        };
    };
    let lookback = lookback(&memory, now);
    let scope = match (config.follow_workflow, workflow_scope) {
        (false, _) => scope_of(&config),
        (true, Some(cached)) if lookback != Lookback::Reconcile => cached,
        (true, _) => match query::followed_scope(&client, &environment, &token, &config, &cancel).await {
            Ok(scope) => scope,
            Err(failed) => return failed,
        },
    };
    let answer = match lookback {
        Lookback::Reconcile => query::reconcile_pages(&client, &environment, &token, &scope, &cancel).await,
        Lookback::Minutes(_) => client.query(&environment, &token, &problems_query(lookback, &scope), &cancel).await,
    };
    match answer {
        Ok(result) => {
            let subjects = match subjects_known {
                Some(known) => subjects::run_job(&client, &environment, &token, lookback, &known, &cancel).await,
                None => None,
            };
            let followed_workflow = config.follow_workflow;
            Fetch::Fetched(Fetched { result, lookback, scope, environment: url, subjects, followed_workflow })
        }
        Err(e) => Fetch::Failed {
            retry_after_ms: e.retry_after_secs().map(|s| (s as i64).saturating_mul(1000)),
            message: settings::operator_message(&e),
        },
    }
}

impl Subsystem for DynatraceActor {
    const NAME: &'static str = NAME;
    fn subsystem(&self) -> &SubsystemCtx {
        &self.subsystem
    }
    fn queue_depth(&self) -> usize {
        self.run.depth()
    }
    fn reset(&mut self) {
        self.run.cancel();
        self.generation.fetch_add(1, Ordering::SeqCst);
        self.timer = None;
    }
    fn on_start(&mut self, ctx: &mut Context<Self>) {
        self.load(ctx);
    }
}

crate::subsystem_actor!(DynatraceActor);

impl Handler<SettingsChanged> for DynatraceActor {
    type Result = ();
    fn handle(&mut self, _: SettingsChanged, ctx: &mut Context<Self>) {
        self.generation.fetch_add(1, Ordering::SeqCst);
        self.run.cancel();
        self.written.clear();
        self.subjects = SubjectMemory::default();
        self.workflow_scope = None;
        self.memory.reconcile_pending = true;
        self.schedule(ctx, self.config.after_change_delay);
    }
}

impl Handler<PauseSync> for DynatraceActor {
    type Result = ResponseFuture<()>;
    fn handle(&mut self, _: PauseSync, ctx: &mut Context<Self>) -> Self::Result {
        self.paused = true;
        self.generation.fetch_add(1, Ordering::SeqCst);
        self.run.cancel();
        if let Some(handle) = self.timer.take() {
            ctx.cancel_future(handle);
        }
        if !self.alive {
            return Box::pin(async {});
        }
        let (tx, rx) = tokio::sync::oneshot::channel();
        self.drained.push(tx);
        Box::pin(async move {
            let _ = rx.await;
        })
    }
}

impl Handler<SyncNow> for DynatraceActor {
    type Result = ResponseFuture<Result<SyncSummary, DynatraceError>>;
    fn handle(&mut self, _: SyncNow, ctx: &mut Context<Self>) -> Self::Result {
        if self.paused {
            return Box::pin(async { Ok(SyncSummary { outcome: "paused", ..Default::default() }) });
        }
        let rx = self.run.wait();
        self.start_run(ctx);
        Box::pin(async move { rx.await.map_err(|_| DynatraceError::Unavailable) })
    }
}

impl Handler<TestConnection> for DynatraceActor {
    type Result = ResponseFuture<Result<ConnectionTest, DynatraceError>>;
    fn handle(&mut self, _: TestConnection, _: &mut Context<Self>) -> Self::Result {
        let (settings, client) = (self.settings.clone(), self.client.clone());
        Box::pin(async move {
            let read = tokio::task::spawn_blocking(move || settings.read()).await;
            let Ok(Ok((config, token))) = read else {
                return Ok(ConnectionTest {
                    ok: false,
                    message: "Relay could not read the Dynatrace settings.".into(),
                });
            };
            let (Some(url), Some(token)) = (config.environment_url.clone().filter(|_| config.is_complete()), token)
            else {
                let message = "Enter the environment URL and a platform token for it first.";
                return Ok(ConnectionTest { ok: false, message: message.into() });
            };
            let Ok(environment) = EnvironmentUrl::parse(&url) else {
                return Ok(ConnectionTest { ok: false, message: "The stored environment URL is not valid.".into() });
            };
            let cancel = CancellationToken::new();
            Ok(match client.query(&environment, &token, &connection_test_query(), &cancel).await {
                Ok(result) => {
                    let count = result.records.first().and_then(|r| r["count"].as_i64()).unwrap_or(0);
                    ConnectionTest { ok: true, message: format!("Connected: {count} problems in the last 2 hours.") }
                }
                Err(e) => ConnectionTest { ok: false, message: settings::operator_message(&e) },
            })
        })
    }
}

/// Plain-words text of a query failure for the sync record (no URL, no token).
pub fn describe(e: &QueryError) -> String {
    settings::operator_message(e)
}

/// `json!` of a [`SyncSummary`] for the control socket.
pub fn summary_json(summary: &SyncSummary) -> Value {
    json!(summary)
}

#[cfg(test)]
mod tests;
