//! Dynatrace actor tests with a scripted settings source over a real store: a paused actor
//! starts no run and answers `paused`; pausing during a run waits until that run has finished
//! and its late result wrote nothing; not configured shows as not in use and a failing sync as
//! degraded in the health view.

use std::sync::atomic::{AtomicBool, AtomicUsize};
use std::sync::Mutex;

use super::*;
use crate::system::start_server;
use crate::testkit::relay_config;
use infra::dynatrace::StoredConfig;

/// Reads "not configured" after `delay` (a slow settings read stands in for a slow query).
struct Slow {
    delay: Duration,
    reads: AtomicUsize,
    done: AtomicBool,
    started: Mutex<Option<tokio::sync::oneshot::Sender<()>>>,
}

impl SettingsSource for Slow {
    fn read(&self) -> Result<(StoredConfig, Option<String>), String> {
        self.reads.fetch_add(1, Ordering::SeqCst);
        if let Some(tx) = self.started.lock().unwrap().take() {
            let _ = tx.send(());
        }
        std::thread::sleep(self.delay);
        self.done.store(true, Ordering::SeqCst);
        Ok((StoredConfig::default(), None))
    }
}

fn actor(
    h: &crate::system::Handles,
    delay: Duration,
) -> (Addr<DynatraceActor>, Arc<Slow>, tokio::sync::oneshot::Receiver<()>) {
    let (tx, rx) = tokio::sync::oneshot::channel();
    let source = Arc::new(Slow {
        delay,
        reads: AtomicUsize::new(0),
        done: AtomicBool::new(false),
        started: Mutex::new(Some(tx)),
    });
    let config = DynatraceConfig { scheduled: false, ..Default::default() };
    let t = crate::testkit::TestCtx::new();
    let client = GrailClient::new().unwrap();
    (DynatraceActor::new(t.ctx(), config, h.store.clone(), source.clone(), client).start(), source, rx)
}

#[actix_rt::test]
async fn a_paused_sync_starts_nothing_and_says_so() {
    let tmp = tempfile::tempdir().unwrap();
    let h = start_server(relay_config(tmp.path())).unwrap();
    let (addr, source, _) = actor(&h, Duration::ZERO);
    assert_eq!(addr.send(SyncNow).await.unwrap().unwrap().outcome, "disabled");
    addr.send(PauseSync).await.unwrap();
    assert_eq!(addr.send(SyncNow).await.unwrap().unwrap().outcome, "paused");
    addr.send(SettingsChanged).await.unwrap();
    assert_eq!(addr.send(SyncNow).await.unwrap().unwrap().outcome, "paused");
    assert_eq!(source.reads.load(Ordering::SeqCst), 1, "no run after the pause");
}

#[actix_rt::test]
async fn pausing_during_a_run_waits_for_it_and_its_result_writes_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let h = start_server(relay_config(tmp.path())).unwrap();
    let (addr, source, started) = actor(&h, Duration::from_millis(300));
    let run = addr.send(SyncNow);
    let run = actix_rt::spawn(run);
    started.await.unwrap();
    addr.send(PauseSync).await.unwrap();
    assert!(source.done.load(Ordering::SeqCst), "the pause returned before the run in flight ended");
    // The run's waiter was dropped by the cancel, and its late "disabled" result was discarded,
    // so no sync record was written.
    assert!(run.await.unwrap().unwrap().is_err(), "the cancelled run's waiter gets no result");
    let list = ListRecords { collection: SYNC.into(), params: RawListParams::default() };
    let page = h.store.send(list).await.unwrap().unwrap();
    assert_eq!(page.total_items, 0, "the late result wrote nothing");
}

/// What one settings read answers: the stored settings and token, or why they could not be read.
type SettingsRead = Result<(StoredConfig, Option<String>), String>;

/// Answers each settings read with the next scripted result (the last one repeats).
struct ScriptedSettings(Mutex<std::collections::VecDeque<SettingsRead>>);

impl SettingsSource for ScriptedSettings {
    fn read(&self) -> SettingsRead {
        let mut reads = self.0.lock().unwrap();
        if reads.len() > 1 {
            reads.pop_front().unwrap()
        } else {
            reads.front().cloned().unwrap()
        }
    }
}

#[actix_rt::test]
async fn not_configured_is_shown_as_not_in_use_and_a_failing_sync_as_degraded() {
    let tmp = tempfile::tempdir().unwrap();
    let h = start_server(relay_config(tmp.path())).unwrap();
    let t = crate::testkit::TestCtx::new();
    let scripted = ScriptedSettings(Mutex::new(
        vec![Ok((StoredConfig::default(), None)), Err("Relay could not read the Dynatrace settings.".into())].into(),
    ));
    let config = DynatraceConfig { scheduled: false, ..Default::default() };
    let client = GrailClient::new().unwrap();
    let addr = DynatraceActor::new(t.ctx(), config, h.store.clone(), Arc::new(scripted), client).start();
    let health = || async {
        let snapshot = t.health.send(crate::health::GetHealth).await.unwrap();
        let json = serde_json::to_value(&snapshot).unwrap();
        (json["actors"][NAME].clone(), json["status"].clone())
    };

    assert_eq!(addr.send(SyncNow).await.unwrap().unwrap().outcome, "disabled");
    let (dynatrace, overall) = health().await;
    assert_eq!((dynatrace["state"].as_str(), overall.as_str()), (Some("unconfigured"), Some("ok")), "{dynatrace}");
    assert_eq!(dynatrace["condition"]["code"], "not_configured");
    assert!(dynatrace["condition"]["reason"].as_str().unwrap().contains("not configured"), "{dynatrace}");

    t.clock.advance_ms(60_000);
    assert_eq!(addr.send(SyncNow).await.unwrap().unwrap().outcome, "error");
    let (dynatrace, overall) = health().await;
    assert_eq!((dynatrace["state"].as_str(), overall.as_str()), (Some("degraded"), Some("degraded")), "{dynatrace}");
    assert_eq!(dynatrace["condition"]["code"], "sync_failing");
    assert!(dynatrace["condition"]["reason"].as_str().unwrap().contains("could not read the Dynatrace settings"));
}
