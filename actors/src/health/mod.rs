//! The operator health dashboard actor. Every other actor reports to it: its state, its last
//! error (redacted and bounded), how often its supervisor restarted it and how much work is
//! queued. A subsystem whose *work* fails also reports its condition (`domain::work_condition`:
//! "degraded: <reason>", "not configured", then "recovered"), kept apart from the periodic
//! liveness report so that "running" never hides it: a running actor with a degrading condition
//! is shown as degraded, one not configured as unconfigured (not in use), and the overall status
//! is "ok" only when every subsystem runs or is not in use. Condition reasons go through the same
//! redaction and bounding as errors; changes are logged once each. It keeps each actor's queue
//! depth over the last 10 minutes in a fixed ring of 20 s buckets (`history`, read by the injected
//! clock, never unbounded). The snapshot it serves (`GET /api/relay/health`, the metrics render)
//! holds no secrets, and an actor that stops reporting is shown as unresponsive.

pub mod history;

use std::collections::BTreeMap;

use actix::prelude::*;
use serde::Serialize;

use domain::work_condition::WorkCondition;
use infra::clock::SharedClock;

use history::QueueHistory;

/// An actor that has not reported for this long is shown as unresponsive.
pub const STALE_AFTER_MS: i64 = 10_000;
const MAX_ERROR_LEN: usize = 300;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ActorState {
    Starting,
    Running,
    Restarting,
    /// Alive, but its work is failing (see the condition's reason).
    Degraded,
    Unresponsive,
    /// Not set up, so not in use (not a fault; see the condition's reason).
    Unconfigured,
}

impl ActorState {
    pub const ALL: [ActorState; 6] = [
        ActorState::Starting,
        ActorState::Running,
        ActorState::Restarting,
        ActorState::Degraded,
        ActorState::Unresponsive,
        ActorState::Unconfigured,
    ];

    /// The JSON name, also the metrics label.
    pub fn as_str(self) -> &'static str {
        match self {
            ActorState::Starting => "starting",
            ActorState::Running => "running",
            ActorState::Restarting => "restarting",
            ActorState::Degraded => "degraded",
            ActorState::Unresponsive => "unresponsive",
            ActorState::Unconfigured => "unconfigured",
        }
    }

    /// Whether this state lets the overall status say "ok" (working, or not in use).
    pub fn is_fine(self) -> bool {
        matches!(self, ActorState::Running | ActorState::Unconfigured)
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum ReportKind {
    State {
        state: ActorState,
        queue_depth: usize,
    },
    Failure(String),
    Restarted,
    /// `Some`: degraded or not configured; `None`: recovered.
    Condition(Option<WorkCondition>),
}

/// A status message from an actor.
#[derive(Debug, Clone, Message)]
#[rtype(result = "()")]
pub struct Report {
    actor: &'static str,
    kind: ReportKind,
}

impl Report {
    pub fn state(actor: &'static str, state: ActorState, queue_depth: usize) -> Report {
        Report { actor, kind: ReportKind::State { state, queue_depth } }
    }
    pub fn failure(actor: &'static str, error: impl Into<String>) -> Report {
        Report { actor, kind: ReportKind::Failure(error.into()) }
    }
    pub fn restarted(actor: &'static str) -> Report {
        Report { actor, kind: ReportKind::Restarted }
    }
    /// The subsystem's work is failing, or it is not configured (`condition.code` says which).
    pub fn condition(actor: &'static str, condition: WorkCondition) -> Report {
        Report { actor, kind: ReportKind::Condition(Some(condition)) }
    }
    /// The subsystem's work succeeds again (nothing happens when it had no condition).
    pub fn recovered(actor: &'static str) -> Report {
        Report { actor, kind: ReportKind::Condition(None) }
    }
}

/// A condition as the dashboard shows it: code, reason (redacted, bounded), counts, and since when.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ConditionHealth {
    #[serde(flatten)]
    pub condition: WorkCondition,
    pub since: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ActorHealth {
    pub state: ActorState,
    pub restarts: u32,
    pub queue_depth: usize,
    pub last_error: Option<String>,
    pub last_error_at: Option<String>,
    pub last_report_ms_ago: i64,
    /// Largest queue depth per 20 s bucket over the last 10 minutes, oldest first (`null`: no
    /// report in that bucket).
    pub queue_history: Vec<Option<usize>>,
    /// Why the subsystem is degraded or not configured (`null` while its work succeeds).
    pub condition: Option<ConditionHealth>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct HealthSnapshot {
    pub status: &'static str,
    pub version: &'static str,
    pub uptime_secs: i64,
    /// Width of one `queueHistory` bucket.
    pub queue_history_bucket_secs: i64,
    pub actors: BTreeMap<&'static str, ActorHealth>,
    /// Backups, as the backup actor last reported them (absent without a data directory).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub backup: Option<domain::backup::health::BackupDashboard>,
}

impl HealthSnapshot {
    /// Whether the program itself works: every subsystem runs or is not in use, or is degraded
    /// only by a work condition of its outside work (feeds failing without Internet, Radar
    /// sign-in needed), never by a restart or a silent actor. The recovery launcher's probation
    /// asks this, so a build is not rolled back for the network it was started on.
    pub fn program_runs(&self) -> bool {
        self.actors.values().all(|a| a.state.is_fine() || (a.state == ActorState::Degraded && a.condition.is_some()))
    }
}

/// The backup actor's summary for the dashboard (sent whenever it changes).
#[derive(Debug, Clone, Message)]
#[rtype(result = "()")]
pub struct BackupHealth(pub domain::backup::health::BackupSummary);

impl Handler<BackupHealth> for HealthActor {
    type Result = ();
    fn handle(&mut self, BackupHealth(summary): BackupHealth, _: &mut Context<Self>) {
        self.backup = Some(summary);
    }
}

/// `GET /api/relay/health` (the dashboard) and the metrics actor's render.
#[derive(Debug, Clone, Copy, Message)]
#[rtype(result = "HealthSnapshot")]
pub struct GetHealth;

#[derive(Debug)]
struct Entry {
    state: ActorState,
    restarts: u32,
    queue_depth: usize,
    last_error: Option<(String, i64)>,
    last_report_ms: i64,
    history: QueueHistory,
    /// The reported condition (reason already redacted and bounded) and since when.
    condition: Option<(WorkCondition, i64)>,
}

impl Entry {
    /// The state shown: a running actor with a condition is degraded or unconfigured.
    fn shown_state(&self) -> ActorState {
        match (&self.state, &self.condition) {
            (ActorState::Running, Some((c, _))) if c.is_degraded() => ActorState::Degraded,
            (ActorState::Running, Some(_)) => ActorState::Unconfigured,
            (state, _) => *state,
        }
    }
}

pub struct HealthActor {
    clock: SharedClock,
    started_ms: i64,
    entries: BTreeMap<&'static str, Entry>,
    backup: Option<domain::backup::health::BackupSummary>,
}

impl HealthActor {
    pub fn new(clock: SharedClock) -> HealthActor {
        let started_ms = clock.now_ms();
        HealthActor { clock, started_ms, entries: BTreeMap::new(), backup: None }
    }

    fn bounded_error(error: &str) -> String {
        let redacted = domain::redact::redact_text(error);
        let mut out: String = redacted.chars().take(MAX_ERROR_LEN).collect();
        if redacted.chars().count() > MAX_ERROR_LEN {
            out.push('…');
        }
        out
    }

    /// Stores `condition` for `entry`, keeping `since` while the code stays the same; logs a
    /// change of code (or recovery) once.
    fn set_condition(actor: &'static str, entry: &mut Entry, condition: Option<WorkCondition>, now: i64) {
        let condition = condition.map(|c| WorkCondition { reason: Self::bounded_error(&c.reason), ..c });
        let before = entry.condition.as_ref().map(|(c, _)| c.code);
        match (&condition, before) {
            (Some(c), b) if b != Some(c.code) && c.is_degraded() => {
                tracing::warn!(actor, condition = c.code.as_str(), reason = %c.reason, "subsystem degraded");
            }
            (Some(c), b) if b != Some(c.code) => {
                tracing::info!(actor, condition = c.code.as_str(), reason = %c.reason, "subsystem not configured");
            }
            (None, Some(code)) => tracing::info!(actor, was = code.as_str(), "subsystem recovered"),
            _ => {}
        }
        entry.condition = condition.map(|c| {
            let since = match &entry.condition {
                Some((old, since)) if old.code == c.code => *since,
                _ => now,
            };
            (c, since)
        });
    }
}

impl Actor for HealthActor {
    type Context = Context<Self>;
}

impl Handler<Report> for HealthActor {
    type Result = ();
    fn handle(&mut self, msg: Report, _: &mut Context<Self>) {
        let now = self.clock.now_ms();
        let entry = self.entries.entry(msg.actor).or_insert(Entry {
            state: ActorState::Starting,
            restarts: 0,
            queue_depth: 0,
            last_error: None,
            last_report_ms: now,
            history: QueueHistory::default(),
            condition: None,
        });
        entry.last_report_ms = now;
        match msg.kind {
            ReportKind::State { state, queue_depth } => {
                entry.state = state;
                entry.queue_depth = queue_depth;
                entry.history.record(now, queue_depth);
            }
            ReportKind::Failure(error) => entry.last_error = Some((Self::bounded_error(&error), now)),
            ReportKind::Restarted => {
                entry.restarts += 1;
                entry.state = ActorState::Restarting;
            }
            ReportKind::Condition(condition) => Self::set_condition(msg.actor, entry, condition, now),
        }
    }
}

impl Handler<GetHealth> for HealthActor {
    type Result = MessageResult<GetHealth>;
    fn handle(&mut self, _: GetHealth, _: &mut Context<Self>) -> Self::Result {
        let now = self.clock.now_ms();
        let actors: BTreeMap<&'static str, ActorHealth> = self
            .entries
            .iter()
            .map(|(name, e)| {
                let ago = now - e.last_report_ms;
                let state = if ago > STALE_AFTER_MS { ActorState::Unresponsive } else { e.shown_state() };
                let health = ActorHealth {
                    state,
                    restarts: e.restarts,
                    queue_depth: e.queue_depth,
                    last_error: e.last_error.as_ref().map(|(m, _)| m.clone()),
                    last_error_at: e.last_error.as_ref().map(|(_, at)| domain::time::format_ms(*at)),
                    last_report_ms_ago: ago,
                    queue_history: e.history.series(now),
                    condition: e.condition.as_ref().map(|(condition, since)| ConditionHealth {
                        condition: condition.clone(),
                        since: domain::time::format_ms(*since),
                    }),
                };
                (*name, health)
            })
            .collect();
        let healthy = actors.values().all(|a| a.state.is_fine());
        MessageResult(HealthSnapshot {
            status: if healthy { "ok" } else { "degraded" },
            version: env!("CARGO_PKG_VERSION"),
            uptime_secs: (now - self.started_ms) / 1000,
            queue_history_bucket_secs: history::BUCKET_MS / 1000,
            actors,
            backup: self.backup.as_ref().map(|b| b.at(now)),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use infra::clock::ManualClock;

    #[actix_rt::test]
    async fn backup_summaries_are_shown_as_ages_at_read_time() {
        let clock = ManualClock::new(10_000_000);
        let health = HealthActor::new(clock.clone()).start();
        assert!(health.send(GetHealth).await.unwrap().backup.is_none(), "none until the backup actor reports");
        let summary = domain::backup::health::BackupSummary {
            restore_point_at_ms: Some(9_000_000),
            last_verified_at_ms: None,
            last_failure: Some("Backup failed. Retry backup."),
            failures: 1,
            retention_allowed: false,
            busy: false,
        };
        health.send(BackupHealth(summary)).await.unwrap();
        clock.advance_ms(5_000);
        let backup = health.send(GetHealth).await.unwrap().backup.unwrap();
        assert_eq!(backup.restore_point_age_ms, Some(1_005_000));
        assert_eq!(backup.last_verified_age_ms, None);
        assert_eq!(backup.last_failure, Some("Backup failed. Retry backup."));
    }

    #[actix_rt::test]
    async fn tracks_state_errors_restarts_and_staleness() {
        let clock = ManualClock::new(1_000_000);
        let health = HealthActor::new(clock.clone()).start();
        health.send(Report::state("store", ActorState::Running, 3)).await.unwrap();
        health.send(Report::state("auth", ActorState::Running, 0)).await.unwrap();
        let snap = health.send(GetHealth).await.unwrap();
        assert_eq!(snap.status, "ok");
        assert_eq!(snap.actors["store"].queue_depth, 3);
        health.send(Report::failure("auth", "bad login for ada@example.com password=hunter2")).await.unwrap();
        health.send(Report::restarted("auth")).await.unwrap();
        let snap = health.send(GetHealth).await.unwrap();
        let auth = &snap.actors["auth"];
        assert_eq!((auth.restarts, auth.state, snap.status), (1, ActorState::Restarting, "degraded"));
        assert!(!snap.program_runs(), "a restarting actor is");
        let err = auth.last_error.as_deref().unwrap();
        assert!(!err.contains("ada@example.com") && !err.contains("hunter2"), "{err}");
        clock.advance_ms(STALE_AFTER_MS + 1);
        health.send(Report::state("auth", ActorState::Running, 0)).await.unwrap();
        let snap = health.send(GetHealth).await.unwrap();
        assert_eq!(snap.actors["store"].state, ActorState::Unresponsive);
        assert_eq!(snap.actors["auth"].state, ActorState::Running);
        let long = "x".repeat(1000);
        health.send(Report::failure("store", long)).await.unwrap();
        let snap = health.send(GetHealth).await.unwrap();
        assert!(snap.actors["store"].last_error.as_ref().unwrap().chars().count() <= MAX_ERROR_LEN + 1);
    }

    #[actix_rt::test]
    async fn a_degraded_condition_outlives_running_reports_until_recovered_and_keeps_its_since() {
        use domain::work_condition::{ConditionCode, WorkCondition};
        let t = crate::testkit::TestCtx::new();
        t.health.send(Report::state("status_feeds", ActorState::Running, 0)).await.unwrap();
        let reason =
            "14 of 17 feeds failing: cannot connect to https://status.example.com/x?token=s3cr3t for ops@example.com";
        let failing = WorkCondition::new(ConditionCode::FeedsFailing, reason).counting(14, 17);
        t.health.send(Report::condition("status_feeds", failing)).await.unwrap();
        let began = domain::time::format_ms(infra::clock::Clock::now_ms(&*t.clock));
        t.clock.advance_ms(60_000);
        // The periodic liveness report does not hide the condition; a new count keeps "since".
        t.health.send(Report::state("status_feeds", ActorState::Running, 0)).await.unwrap();
        let fewer = WorkCondition::new(ConditionCode::FeedsFailing, "3 of 17 feeds failing: HTTP 503").counting(3, 17);
        t.health.send(Report::condition("status_feeds", fewer)).await.unwrap();
        let snap = t.health.send(GetHealth).await.unwrap();
        let feeds = &snap.actors["status_feeds"];
        assert_eq!((feeds.state, snap.status), (ActorState::Degraded, "degraded"));
        assert!(snap.program_runs(), "failing outside work is no fault of the program");
        let condition = feeds.condition.as_ref().unwrap();
        assert_eq!((condition.condition.failing, condition.condition.total), (Some(3), Some(17)));
        assert_eq!(condition.since, began, "the same condition since the first report");

        t.clock.advance_ms(60_000);
        t.health.send(Report::recovered("status_feeds")).await.unwrap();
        let snap = t.health.send(GetHealth).await.unwrap();
        assert_eq!((snap.actors["status_feeds"].state, snap.status), (ActorState::Running, "ok"));
        assert!(snap.actors["status_feeds"].condition.is_none());

        // Reasons are redacted and bounded like errors.
        t.health
            .send(Report::condition("status_feeds", WorkCondition::new(ConditionCode::FeedsFailing, reason)))
            .await
            .unwrap();
        let json = serde_json::to_value(t.health.send(GetHealth).await.unwrap()).unwrap();
        let shown = json["actors"]["status_feeds"]["condition"]["reason"].as_str().unwrap();
        assert!(!shown.contains("s3cr3t") && !shown.contains("ops@example.com") && !shown.contains("/x?"), "{shown}");
        assert!(shown.contains("https://status.example.com"), "the origin stays: {shown}");
    }

    #[actix_rt::test]
    async fn not_configured_is_not_in_use_and_leaves_the_overall_status_ok() {
        use domain::work_condition::{ConditionCode, WorkCondition};
        let t = crate::testkit::TestCtx::new();
        t.health.send(Report::state("dynatrace", ActorState::Running, 0)).await.unwrap();
        let unset = WorkCondition::new(ConditionCode::NotConfigured, "Dynatrace is not configured.");
        t.health.send(Report::condition("dynatrace", unset)).await.unwrap();
        let snap = t.health.send(GetHealth).await.unwrap();
        assert_eq!((snap.actors["dynatrace"].state, snap.status), (ActorState::Unconfigured, "ok"));
        let json = serde_json::to_value(&snap).unwrap();
        assert_eq!(json["actors"]["dynatrace"]["state"], "unconfigured");
        assert_eq!(json["actors"]["dynatrace"]["condition"]["code"], "not_configured");
        // A restart still shows as restarting, whatever the condition.
        t.health.send(Report::restarted("dynatrace")).await.unwrap();
        assert_eq!(t.health_of("dynatrace").await.unwrap().state, ActorState::Restarting);
    }

    #[actix_rt::test]
    async fn the_snapshot_carries_ten_minutes_of_queue_depth_by_the_injected_clock() {
        let t = crate::testkit::TestCtx::new();
        let bucket = history::BUCKET_MS;
        // Align to a bucket start so the arithmetic below is exact.
        t.clock.advance_ms(bucket - crate::testkit::START_MS.rem_euclid(bucket));
        for depth in [2, 8, 5] {
            t.health.send(Report::state("store", ActorState::Running, depth)).await.unwrap();
        }
        t.clock.advance_ms(bucket);
        t.health.send(Report::state("store", ActorState::Running, 1)).await.unwrap();
        t.health.send(Report::failure("store", "not a depth")).await.unwrap();
        let store = t.health_of("store").await.unwrap();
        assert_eq!(store.queue_history.len(), history::BUCKETS);
        assert_eq!(&store.queue_history[history::BUCKETS - 2..], &[Some(8), Some(1)]);
        let snap = t.health.send(GetHealth).await.unwrap();
        assert_eq!(snap.queue_history_bucket_secs, 20);
        let json = serde_json::to_value(&snap).unwrap();
        assert_eq!(json["actors"]["store"]["queueHistory"].as_array().unwrap().len(), history::BUCKETS);
        // Ten quiet minutes later the old buckets have rolled out; the ring stays 30 long.
        t.clock.advance_ms(history::BUCKETS as i64 * bucket);
        t.health.send(Report::state("store", ActorState::Running, 3)).await.unwrap();
        let store = t.health_of("store").await.unwrap();
        assert_eq!(store.queue_history.len(), history::BUCKETS);
        assert_eq!(store.queue_history.iter().flatten().collect::<Vec<_>>(), [&3]);
    }
}
