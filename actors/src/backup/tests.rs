//! Backup actor tests with a real store, real archives and the real worker process (this test
//! binary re-executed as the worker), under an injected clock and injected free space: create
//! and verify, serialized concurrent creates, disk pressure, a failing verification keeping the
//! earlier certificate, retention budgets, the schedule and interrupted attempts; a failing backup
//! makes the subsystem degraded with its fixed text until one succeeds.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use diesel::connection::SimpleConnection;
use infra::clock::Clock;

use super::*;
use crate::testkit::TestCtx;
use domain::backup::health::FailureText;
use infra::backup::verifier::{FreeSpace, StatvfsFreeSpace};
use infra::backup::worker::{WorkerCommand, VERIFY_DEADLINE};

#[test]
#[ignore = "the verification worker, started by the tests below"]
fn child_worker() {
    infra::backup::worker::serve_child().expect("the worker ran");
}

struct Fixed(u64);
impl FreeSpace for Fixed {
    fn free_bytes(&self, _: &Path) -> std::io::Result<u64> {
        Ok(self.0)
    }
}

fn worker() -> WorkerCommand {
    let args = ["--exact", "backup::tests::child_worker", "--ignored", "--nocapture", "--test-threads=1"];
    WorkerCommand::current_exe(&args).unwrap()
}

fn env(tmp: &Path, free: Arc<dyn FreeSpace + Send + Sync>, worker: WorkerCommand) -> JobEnv {
    let root = tmp.join("data");
    std::fs::create_dir_all(&root).unwrap();
    let (pool, _) = infra::db::open(&root.join("relay.db"), 2).unwrap();
    pool.get()
        .unwrap()
        .batch_execute("CREATE TABLE operator_extras (note TEXT); INSERT INTO operator_extras VALUES ('x');")
        .unwrap();
    JobEnv {
        data_root: root,
        pool,
        worker,
        verify_deadline: VERIFY_DEADLINE,
        free_space: free,
        relay_version: "test".into(),
    }
}

fn start(t: &TestCtx, env: JobEnv, schedule: bool) -> Addr<BackupActor> {
    BackupActor::new(t.ctx(), BackupConfig { env, schedule, store: None, restart: None, last_restore: None }).start()
}

fn archives(root: &Path) -> Vec<PathBuf> {
    let dir = root.join("backups");
    let mut found: Vec<PathBuf> =
        std::fs::read_dir(dir).map(|d| d.map(|e| e.unwrap().path()).collect()).unwrap_or_default();
    found.sort();
    found
}

#[actix_rt::test]
async fn a_backup_is_written_verified_certified_and_listed() {
    let tmp = tempfile::tempdir().unwrap();
    let env = env(tmp.path(), Arc::new(StatvfsFreeSpace), worker());
    let root = env.data_root.clone();
    let t = TestCtx::new();
    let backup = start(&t, env, false);
    let created = backup.send(CreateBackup).await.unwrap().unwrap();
    assert!(created.tables >= 2 && created.size > 0, "{created:?}");
    let status = backup.send(GetBackupStatus).await.unwrap();
    assert!(status.health.retention_allowed, "{status:?}");
    assert!(!status.health.busy && status.operation.is_none());
    assert_eq!(status.health.state.last_verified.as_ref().map(|p| &p.name), Some(&created.name));
    let listed = backup.send(ListBackups).await.unwrap().unwrap();
    assert_eq!(listed.len(), 1);
    assert!(listed[0].verified_restore_point && listed[0].name == created.name);
    let saved = std::fs::read(root.join("backup-health.json")).unwrap();
    assert!(String::from_utf8_lossy(&saved).contains(created.name.as_str()), "health saved");
    assert!(std::fs::read_dir(&root).unwrap().all(|e| !e
        .unwrap()
        .file_name()
        .to_string_lossy()
        .starts_with(".relay-backup-verify-")));

    let verified = backup.send(VerifyBackup { name: created.name.as_str().into() }).await.unwrap().unwrap();
    assert_eq!(verified.name, created.name);
    let bad = backup.send(VerifyBackup { name: "../relay.db".into() }).await.unwrap();
    assert_eq!(bad.unwrap_err(), BackupError::InvalidName);
}

#[actix_rt::test]
async fn concurrent_creates_are_serialized_with_distinct_names() {
    let tmp = tempfile::tempdir().unwrap();
    let t = TestCtx::new();
    let backup = start(&t, env(tmp.path(), Arc::new(StatvfsFreeSpace), worker()), false);
    let (a, b, c) = tokio::join!(backup.send(CreateBackup), backup.send(CreateBackup), backup.send(CreateBackup));
    let names: std::collections::BTreeSet<String> =
        [a, b, c].into_iter().map(|r| r.unwrap().unwrap().name.as_str().to_string()).collect();
    assert_eq!(names.len(), 3);
}

#[actix_rt::test]
async fn disk_pressure_fails_before_writing_and_pauses_retention() {
    let tmp = tempfile::tempdir().unwrap();
    let env = env(tmp.path(), Arc::new(Fixed(1024)), worker());
    let root = env.data_root.clone();
    let t = TestCtx::new();
    let backup = start(&t, env, false);
    let err = backup.send(CreateBackup).await.unwrap().unwrap_err();
    assert!(err.to_string().starts_with("Not enough disk space"), "{err}");
    assert!(archives(&root).is_empty(), "nothing written");
    let health = backup.send(GetBackupStatus).await.unwrap().health;
    assert_eq!(health.state.last_failure, Some(FailureText::NotEnoughSpace));
    assert_eq!(health.state.retry_due, Some(t.clock.now_ms() + 15 * 60_000), "first rung of the ladder");
    assert!(!health.retention_allowed);
}

#[actix_rt::test]
async fn a_failed_verification_keeps_the_earlier_certificate_and_pauses_retention() {
    let tmp = tempfile::tempdir().unwrap();
    let good = env(tmp.path(), Arc::new(StatvfsFreeSpace), worker());
    let root = good.data_root.clone();
    let t = TestCtx::new();
    let first = start(&t, good.clone(), false).send(CreateBackup).await.unwrap().unwrap();
    let broken = JobEnv { worker: WorkerCommand { program: "/bin/false".into(), args: vec![] }, ..good };
    let backup = start(&t, broken, false);
    t.clock.advance_ms(1_000);
    let err = backup.send(CreateBackup).await.unwrap().unwrap_err();
    assert!(err.to_string().starts_with("Disposable verification failed"), "{err}");
    let health = backup.send(GetBackupStatus).await.unwrap().health;
    assert_eq!(health.state.last_verified.as_ref().map(|p| &p.name), Some(&first.name), "earlier certificate kept");
    assert!(!health.retention_allowed);
    assert_eq!(archives(&root).len(), 2, "nothing pruned, the unverified archive stays for inspection");
}

#[actix_rt::test]
async fn retention_keeps_ten_regular_archives_after_a_verified_replacement() {
    let tmp = tempfile::tempdir().unwrap();
    let env = env(tmp.path(), Arc::new(StatvfsFreeSpace), worker());
    let root = env.data_root.clone();
    let t = TestCtx::new();
    let backup = start(&t, env, false);
    let mut last = None;
    for _ in 0..12 {
        t.clock.advance_ms(1_000);
        last = Some(backup.send(CreateBackup).await.unwrap().unwrap());
    }
    let kept = archives(&root);
    assert_eq!(kept.len(), 10, "{kept:?}");
    assert!(kept.iter().any(|p| p.ends_with(last.as_ref().unwrap().name.as_str())), "the newest is kept");
}

#[actix_rt::test]
async fn the_schedule_backs_up_when_due_and_not_while_the_gate_passes() {
    let tmp = tempfile::tempdir().unwrap();
    let env = env(tmp.path(), Arc::new(StatvfsFreeSpace), worker());
    let root = env.data_root.clone();
    let t = TestCtx::new();
    let backup = start(&t, env, false);
    backup.send(Tick).await.unwrap();
    assert!(archives(&root).is_empty(), "not before the first cycle is due");
    t.clock.advance_ms(domain::backup::schedule::FIRST_CYCLE_DELAY_MS);
    backup.send(Tick).await.unwrap();
    let created = wait_for_archives(&root, 1).await;
    wait_idle(&backup).await;
    t.clock.advance_ms(60 * 60_000);
    backup.send(Tick).await.unwrap();
    assert_eq!(archives(&root), created, "the gate passes: no new backup an hour later");
    t.clock.advance_ms(24 * 60 * 60_000);
    backup.send(Tick).await.unwrap();
    wait_for_archives(&root, 2).await;
}

async fn wait_idle(backup: &Addr<BackupActor>) {
    for _ in 0..400 {
        if !backup.send(GetBackupStatus).await.unwrap().health.busy {
            return;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("the backup actor stayed busy");
}

async fn wait_for_archives(root: &Path, n: usize) -> Vec<PathBuf> {
    for _ in 0..200 {
        let found: Vec<PathBuf> =
            archives(root).into_iter().filter(|p| p.extension().is_some_and(|e| e == "zip")).collect();
        if found.len() == n {
            return found;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("expected {n} archives, found {:?}", archives(root));
}

#[actix_rt::test]
async fn an_interrupted_attempt_becomes_a_saved_failure_at_start() {
    let tmp = tempfile::tempdir().unwrap();
    let env = env(tmp.path(), Arc::new(StatvfsFreeSpace), worker());
    let t = TestCtx::new();
    let mut state = HealthState::default();
    state.begin_attempt(t.clock.now_ms() - 1000);
    files::save_health(&env.data_root, &state).unwrap();
    let root = env.data_root.clone();
    let backup = start(&t, env, false);
    let health = backup.send(GetBackupStatus).await.unwrap().health;
    assert_eq!(health.state.last_failure, Some(FailureText::Interrupted));
    let saved = files::load_health(&root, t.clock.now_ms());
    assert_eq!(saved.state.last_failure, Some(FailureText::Interrupted), "written back at start");
}

#[actix_rt::test]
async fn a_failing_backup_makes_the_subsystem_degraded_with_the_fixed_text_until_one_succeeds() {
    let tmp = tempfile::tempdir().unwrap();
    let full = env(tmp.path(), Arc::new(Fixed(1024)), worker());
    let t = TestCtx::new();
    let health = || async {
        let snapshot = t.health.send(crate::health::GetHealth).await.unwrap();
        serde_json::to_value(&snapshot).unwrap()["actors"][NAME].clone()
    };
    let backup = start(&t, full.clone(), false);
    backup.send(CreateBackup).await.unwrap().unwrap_err();
    let degraded = health().await;
    assert_eq!(
        (degraded["state"].as_str(), degraded["condition"]["code"].as_str()),
        (Some("degraded"), Some("backup_failing"))
    );
    let reason = degraded["condition"]["reason"].as_str().unwrap();
    assert!(reason.contains("1 attempt") && reason.contains("Not enough disk space"), "{reason}");
    assert!(!reason.contains(tmp.path().to_str().unwrap()), "no path: {reason}");

    drop(backup);
    let roomy = JobEnv { free_space: Arc::new(StatvfsFreeSpace), ..full };
    let backup = start(&t, roomy, false);
    t.clock.advance_ms(15 * 60_000);
    backup.send(CreateBackup).await.unwrap().unwrap();
    let recovered = health().await;
    assert_eq!(recovered["state"], "running", "{recovered}");
    assert!(recovered["condition"].is_null(), "{recovered}");
}
