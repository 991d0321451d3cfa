//! Status-feeds actor tests over a real store with a scripted poller and a manual clock: quiet
//! polls write nothing, a failed feed keeps its last items, outages toast once and their notice
//! goes when they end, degradations wait for three observations over two minutes, a restart
//! does not re-toast, operator refreshes are limited and concurrent polls are shared; failing
//! feeds make the subsystem degraded with the count and error in the health view until they recover.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use super::*;
use crate::kit::SubsystemCtx;
use crate::store::ListRecords;
use crate::system::start_server as start;
use crate::testkit::relay_config;
use domain::status_feeds::{Severity, StatusItem, PROVIDERS};
use infra::clock::{Clock, ManualClock};
use infra::http::CancellationToken;

const MIN: i64 = 60_000;

/// Answers each poll with the next scripted round (the last one repeats); counts calls and can
/// hold a poll open until released.
#[derive(Default)]
struct ScriptedPoller {
    rounds: Mutex<VecDeque<Vec<ProviderPoll>>>,
    calls: AtomicUsize,
    gate: Mutex<Option<Arc<tokio::sync::Notify>>>,
}

impl ScriptedPoller {
    fn push(&self, round: Vec<ProviderPoll>) {
        self.rounds.lock().unwrap().push_back(round);
    }
}

impl FeedPoller for ScriptedPoller {
    fn poll_all(
        &self,
        _now_ms: i64,
        _cancel: CancellationToken,
    ) -> std::pin::Pin<Box<dyn std::future::Future<Output = Vec<ProviderPoll>> + Send>> {
        self.calls.fetch_add(1, Ordering::SeqCst);
        let mut rounds = self.rounds.lock().unwrap();
        let round =
            if rounds.len() > 1 { rounds.pop_front().unwrap() } else { rounds.front().cloned().unwrap_or_default() };
        let gate = self.gate.lock().unwrap().clone();
        Box::pin(async move {
            if let Some(gate) = gate {
                gate.notified().await;
            }
            round
        })
    }
}

fn item(provider: ProviderId, id: &str, severity: Severity, title: &str) -> StatusItem {
    StatusItem {
        id: id.into(),
        provider,
        title: title.into(),
        description: String::new(),
        pub_date: None,
        link: String::new(),
        severity,
        affected_scopes: vec![],
    }
}

/// A round where every provider is quiet except those given.
fn round(overrides: Vec<ProviderPoll>) -> Vec<ProviderPoll> {
    PROVIDERS
        .iter()
        .map(|p| {
            overrides
                .iter()
                .find(|o| o.provider == p.id)
                .cloned()
                .unwrap_or(ProviderPoll { provider: p.id, outcome: Ok(vec![]) })
        })
        .collect()
}

fn ok(provider: ProviderId, items: Vec<StatusItem>) -> ProviderPoll {
    ProviderPoll { provider, outcome: Ok(items) }
}

struct Env {
    _tmp: tempfile::TempDir,
    clock: Arc<ManualClock>,
    handles: crate::Handles,
    poller: Arc<ScriptedPoller>,
}

impl Env {
    fn new() -> Env {
        let tmp = tempfile::tempdir().unwrap();
        let mut config = relay_config(tmp.path());
        let clock = ManualClock::new(crate::testkit::START_MS);
        config.clock = clock.clone();
        let handles = start(config).unwrap();
        Env { _tmp: tmp, clock, handles, poller: Arc::new(ScriptedPoller::default()) }
    }

    async fn actor(&self) -> Addr<StatusFeedsActor> {
        let ctx = SubsystemCtx::new(self.clock.clone(), self.handles.health.clone());
        let config = StatusFeedsConfig { scheduled: false, ..Default::default() };
        let addr = StatusFeedsActor::new(ctx, config, self.handles.store.clone(), self.poller.clone()).start();
        for _ in 0..200 {
            if addr.send(IsLoaded).await.unwrap() {
                return addr;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        panic!("the actor never loaded its stored state");
    }

    async fn records(&self, collection: &str) -> Vec<Value> {
        let params = RawListParams { per_page: Some("100".into()), sort: Some("created".into()), ..Default::default() };
        self.handles.store.send(ListRecords { collection: collection.into(), params }).await.unwrap().unwrap().items
    }
}

#[actix_rt::test]
async fn quiet_polls_write_nothing_after_the_first() {
    let env = Env::new();
    env.poller.push(round(vec![]));
    let actor = env.actor().await;
    let first = actor.send(PollNow).await.unwrap().unwrap();
    assert_eq!(first.written, PROVIDERS.len());
    let revisions: Vec<Value> = env.records(STATUS_COLLECTION).await.iter().map(|r| r["revision"].clone()).collect();
    env.clock.advance_ms(5 * MIN);
    let second = actor.send(PollNow).await.unwrap().unwrap();
    assert_eq!(second.written, 0, "nothing visible changed");
    let after: Vec<Value> = env.records(STATUS_COLLECTION).await.iter().map(|r| r["revision"].clone()).collect();
    assert_eq!(revisions, after);
    let status = actor.send(GetStatus).await.unwrap();
    assert_eq!(status.providers.len(), PROVIDERS.len());
    assert!(status.providers.iter().all(|p| p.error.is_none()));
    assert_eq!(status.last_updated, Some(domain::time::format_ms(env.clock.now_ms())));
}

#[actix_rt::test]
async fn a_failed_feed_keeps_its_last_items_and_shows_the_error() {
    let env = Env::new();
    let outage = item(ProviderId::Github, "inc-1", Severity::Warning, "Actions delayed");
    env.poller.push(round(vec![ok(ProviderId::Github, vec![outage.clone()])]));
    env.poller
        .push(round(vec![ProviderPoll { provider: ProviderId::Github, outcome: Err("request timed out".into()) }]));
    let actor = env.actor().await;
    actor.send(PollNow).await.unwrap().unwrap();
    env.clock.advance_ms(MIN);
    let summary = actor.send(PollNow).await.unwrap().unwrap();
    assert_eq!(summary.failed, vec![ProviderId::Github]);
    let github = env.records(STATUS_COLLECTION).await.into_iter().find(|r| r["provider"] == "github").unwrap();
    assert_eq!(github["error"], "request timed out");
    assert_eq!(github["items"][0]["id"], "inc-1");
    let status = actor.send(GetStatus).await.unwrap();
    let view = status.providers.iter().find(|p| p.id == ProviderId::Github).unwrap();
    assert_eq!(view.items, vec![outage]);
    assert_eq!(view.state, domain::status_feeds::posture::DisplayState::Unknown);
}

#[actix_rt::test]
async fn an_outage_toasts_once_and_its_notice_goes_when_it_ends() {
    let env = Env::new();
    let down = item(ProviderId::Cloudflare, "cf-1", Severity::Error, "DNS outage");
    env.poller.push(round(vec![ok(ProviderId::Cloudflare, vec![down.clone()])]));
    env.poller.push(round(vec![ok(ProviderId::Cloudflare, vec![down.clone()])]));
    env.poller.push(round(vec![]));
    let actor = env.actor().await;
    assert_eq!(actor.send(PollNow).await.unwrap().unwrap().toasts, 1);
    let notices = env.records(NOTICES_COLLECTION).await;
    assert_eq!(notices.len(), 1);
    assert_eq!(notices[0]["episode"], "cloudflare:cf-1");
    assert_eq!(notices[0]["severity"], "error");
    assert_eq!(notices[0]["title"], "DNS outage");
    env.clock.advance_ms(MIN);
    assert_eq!(actor.send(PollNow).await.unwrap().unwrap().toasts, 0, "one toast per episode");
    env.clock.advance_ms(MIN);
    assert_eq!(actor.send(PollNow).await.unwrap().unwrap().ended, 1);
    assert!(env.records(NOTICES_COLLECTION).await.is_empty());
}

#[actix_rt::test]
async fn a_degradation_toasts_after_three_observations_over_two_minutes() {
    let env = Env::new();
    let slow = item(ProviderId::Jira, "j-1", Severity::Warning, "Slow boards");
    env.poller.push(round(vec![ok(ProviderId::Jira, vec![slow])]));
    let actor = env.actor().await;
    let mut toasts = Vec::new();
    for _ in 0..4 {
        toasts.push(actor.send(PollNow).await.unwrap().unwrap().toasts);
        env.clock.advance_ms(MIN);
    }
    assert_eq!(toasts, vec![0, 0, 1, 0], "0, 1 and 2 minutes: the third observation spans two minutes");
}

#[actix_rt::test]
async fn a_restart_does_not_toast_an_open_episode_again() {
    let env = Env::new();
    let down = item(ProviderId::Aws, "ec2", Severity::Error, "EC2 outage");
    env.poller.push(round(vec![ok(ProviderId::Aws, vec![down])]));
    let first = env.actor().await;
    assert_eq!(first.send(PollNow).await.unwrap().unwrap().toasts, 1);
    drop(first);
    let second = env.actor().await;
    env.clock.advance_ms(MIN);
    assert_eq!(second.send(PollNow).await.unwrap().unwrap().toasts, 0);
    assert_eq!(env.records(NOTICES_COLLECTION).await.len(), 1);
    let status = second.send(GetStatus).await.unwrap();
    assert_eq!(status.providers[0].items.len(), 1, "the stored items are served before any poll");
}

#[actix_rt::test]
async fn operator_refreshes_are_limited_server_wide() {
    let env = Env::new();
    env.poller.push(round(vec![]));
    let actor = env.actor().await;
    let first = actor.send(RequestRefresh).await.unwrap().unwrap();
    assert!(first.started);
    env.clock.advance_ms(10_000);
    let again = actor.send(RequestRefresh).await.unwrap();
    assert_eq!(again, Err(StatusFeedsError::RefreshTooSoon { retry_after_secs: 20 }));
    assert_eq!(again.unwrap_err().status(), 429);
    env.clock.advance_ms(20_000);
    assert!(actor.send(RequestRefresh).await.unwrap().is_ok());
}

#[actix_rt::test]
async fn concurrent_polls_share_the_one_in_flight() {
    let env = Env::new();
    env.poller.push(round(vec![]));
    let gate = Arc::new(tokio::sync::Notify::new());
    *env.poller.gate.lock().unwrap() = Some(gate.clone());
    let actor = env.actor().await;
    let a = actor.send(PollNow);
    let b = actor.send(PollNow);
    let refresh = actor.send(RequestRefresh);
    let waiting = async {
        tokio::time::sleep(Duration::from_millis(50)).await;
        assert!(actor.send(GetStatus).await.unwrap().refreshing);
        gate.notify_one();
    };
    let (a, b, refresh, ()) = tokio::join!(a, b, refresh, waiting);
    assert!(a.unwrap().is_ok() && b.unwrap().is_ok());
    assert_eq!(refresh.unwrap().unwrap(), RefreshOutcome { started: false, in_flight: true });
    assert_eq!(env.poller.calls.load(Ordering::SeqCst), 1);
}

/// The health view of `actor` as `GET /api/relay/health` serves it.
async fn health_json(env: &Env, actor: &str) -> (Value, Value) {
    let snapshot = env.handles.health.send(crate::health::GetHealth).await.unwrap();
    let json = serde_json::to_value(&snapshot).unwrap();
    (json["actors"][actor].clone(), json["status"].clone())
}

#[actix_rt::test]
async fn failing_feeds_make_the_subsystem_degraded_with_the_count_and_error_until_they_recover() {
    let env = Env::new();
    let refused = "cannot connect to https://status.example.com/feed?token=s3cr3t: connection refused";
    let failing: Vec<ProviderPoll> =
        PROVIDERS.iter().take(14).map(|p| ProviderPoll { provider: p.id, outcome: Err(refused.into()) }).collect();
    env.poller.push(round(failing));
    env.poller.push(round(vec![]));
    let actor = env.actor().await;
    // Polls resolve after their outcome was reported (the health actor reads its mailbox in order).
    assert_eq!(actor.send(PollNow).await.unwrap().unwrap().failed.len(), 14);
    let (feeds, overall) = health_json(&env, NAME).await;
    assert_eq!(feeds["state"], "degraded", "{feeds}");
    assert_eq!(overall, "degraded");
    let condition = &feeds["condition"];
    assert_eq!((condition["code"].as_str(), condition["failing"].as_u64()), (Some("feeds_failing"), Some(14)));
    assert_eq!(condition["total"].as_u64(), Some(PROVIDERS.len() as u64));
    let reason = condition["reason"].as_str().unwrap();
    assert!(reason.starts_with(&format!("14 of {} feeds failing: ", PROVIDERS.len())), "{reason}");
    assert!(reason.contains("connection refused") && !reason.contains("s3cr3t"), "redacted: {reason}");

    env.clock.advance_ms(MIN);
    assert!(actor.send(PollNow).await.unwrap().unwrap().failed.is_empty());
    let (feeds, _) = health_json(&env, NAME).await;
    assert_eq!(feeds["state"], "running", "{feeds}");
    assert!(feeds["condition"].is_null(), "recovered: {feeds}");
}
