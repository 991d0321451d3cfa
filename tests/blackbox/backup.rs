//! Black-box tests of backups against the real `relay` binary and its real verification worker
//! process: a backup taken while 16 writers run holds every write acknowledged before it
//! started; crafted bad archives are refused by `relay backup verify`; a stalled worker is
//! killed at the deadline and leaves no directory or process; disk pressure fails before
//! anything is written; no backup operation is reachable over HTTP; a restore (cold, or on a
//! running server that stops, swaps and restarts on the same port) brings the backup back or
//! rolls back, and survives kill -9 at every swap step; a CLI never works on a data directory
//! whose server holds its lock.

use std::collections::BTreeSet;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use diesel::prelude::*;
use serde_json::json;
use support::backup::{
    backup_env, backup_leftovers, contact_ids_in, names, names_served_by, safety_archives, served_names, text, IdRow,
};
use support::{client, relay_cli, Relay};

fn backup(relay: &Relay, args: &[&str]) -> (bool, String) {
    relay_cli("backup", &relay.data_dir, args, "")
}

fn archive_name(out: &str) -> String {
    out.split_whitespace().find(|w| w.starts_with("backup_") && w.ends_with(".zip")).expect("archive name").to_string()
}

fn backups_dir(relay: &Relay) -> PathBuf {
    relay.data_dir.join("backups")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_backup_under_sixteen_writers_holds_every_acknowledged_write() {
    let relay = Relay::start();
    let token = relay.token().await;
    let acked = Arc::new(Mutex::new(Vec::<String>::new()));
    let stop = Arc::new(AtomicBool::new(false));
    let mut writers = Vec::new();
    for w in 0..16 {
        let (url, token, acked, stop) =
            (relay.url("/api/collections/contacts/records"), token.clone(), acked.clone(), stop.clone());
        writers.push(tokio::spawn(async move {
            let http = client();
            for i in 0..2_000 {
                if stop.load(Ordering::Relaxed) {
                    break;
                }
                let body = json!({"name": format!("Writer {w} #{i}"), "email": format!("w{w}.{i}@example.com")});
                let res = http.post(&url).header("Authorization", &token).json(&body).send().await.unwrap();
                assert_eq!(res.status(), 200, "writer {w}");
                let id = res.json::<serde_json::Value>().await.unwrap()["id"].as_str().unwrap().to_string();
                acked.lock().unwrap().push(id);
            }
        }));
    }
    tokio::time::sleep(std::time::Duration::from_millis(1_500)).await;
    let before: Vec<String> = acked.lock().unwrap().clone();
    let data_dir = relay.data_dir.clone();
    let (ok, out) = tokio::task::spawn_blocking(move || relay_cli("backup", &data_dir, &["create"], "")).await.unwrap();
    stop.store(true, Ordering::Relaxed);
    for w in writers {
        w.await.unwrap();
    }
    assert!(ok, "backup during writes: {out}");
    assert!(before.len() > 50, "the writers were busy: {}", before.len());
    let name = archive_name(&out);
    let in_archive = contact_ids_in(&backups_dir(&relay).join(&name));
    let missing: Vec<&String> = before.iter().filter(|id| !in_archive.contains(*id)).collect();
    assert!(missing.is_empty(), "{} acknowledged writes missing from the backup", missing.len());

    let (ok, out) = backup(&relay, &["verify", &name]);
    assert!(ok && out.contains("verified"), "{out}");
    let (ok, out) = backup(&relay, &["list"]);
    assert!(ok && out.contains(&name) && out.contains("verified restore point"), "{out}");
    assert!(backup_leftovers(&relay.data_dir).is_empty(), "no verification directory left");
}

/// A valid archive name for a crafted file.
fn crafted_name(n: u32) -> String {
    format!("backup_2026-01-0{n}_10-00-00_crafted-archive-{n}.zip")
}

#[tokio::test]
async fn crafted_archives_are_refused_by_the_worker() {
    let relay = Relay::start();
    let (ok, out) = backup(&relay, &["create"]);
    assert!(ok, "{out}");
    let good = std::fs::read(backups_dir(&relay).join(archive_name(&out))).unwrap();
    let dir = backups_dir(&relay);

    std::fs::write(dir.join(crafted_name(1)), b"this is not a zip archive").unwrap();
    let mut traversal = zip::ZipWriter::new(std::fs::File::create(dir.join(crafted_name(2))).unwrap());
    traversal.start_file("../escape.txt", zip::write::SimpleFileOptions::default()).unwrap();
    traversal.write_all(b"outside").unwrap();
    traversal.finish().unwrap();
    let mut corrupt = good.clone();
    let middle = corrupt.len() / 3;
    corrupt[middle] ^= 0xff;
    std::fs::write(dir.join(crafted_name(3)), corrupt).unwrap();

    for (n, expected) in [(1, "not a valid ZIP"), (2, "unsafe entry name"), (3, "")] {
        let (ok, out) = backup(&relay, &["verify", &crafted_name(n)]);
        assert!(!ok && out.contains(expected), "archive {n}: {out}");
    }
    assert!(!relay.data_dir.join("escape.txt").exists() && !dir.join("escape.txt").exists(), "nothing escaped");
    assert!(backup_leftovers(&relay.data_dir).is_empty(), "verification directories removed");
    let (ok, out) = backup(&relay, &["verify", "../relay.db"]);
    assert!(!ok && out.contains("Invalid backup name"), "{out}");
}

fn worker_processes_of(parent: u32) -> usize {
    std::fs::read_dir("/proc")
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| {
            let p = e.path();
            let cmdline = std::fs::read(p.join("cmdline")).unwrap_or_default();
            let status = std::fs::read_to_string(p.join("status")).unwrap_or_default();
            let ppid = status.lines().find_map(|l| l.strip_prefix("PPid:")).map(|v| v.trim().to_string());
            String::from_utf8_lossy(&cmdline).contains("__relay-backup-worker")
                && ppid.as_deref() == Some(&parent.to_string())
        })
        .count()
}

#[tokio::test]
async fn a_stalled_worker_is_killed_at_the_deadline_and_leaves_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let envs = [("RELAY_TEST_FAULT", "verify:stall"), ("RELAY_TEST_BACKUP_VERIFY_DEADLINE_MS", "1500")];
    let relay = Relay::start_env(&tmp.path().join("data"), "127.0.0.1", &[], &envs);
    let started = std::time::Instant::now();
    let (ok, out) = backup(&relay, &["create"]);
    assert!(!ok && out.contains("Disposable verification failed"), "{out}");
    assert!(started.elapsed() < std::time::Duration::from_secs(60), "bounded by the deadline");
    assert!(backup_leftovers(&relay.data_dir).is_empty(), "directory removed after the worker exited");
    assert_eq!(worker_processes_of(relay.pid().unwrap()), 0, "the worker's process group was killed");
    let (_, health) = backup(&relay, &["health"]);
    assert!(health.contains("\"retentionAllowed\": false"), "{health}");
}

#[tokio::test]
async fn disk_pressure_refuses_before_writing() {
    let tmp = tempfile::tempdir().unwrap();
    let relay =
        Relay::start_env(&tmp.path().join("data"), "127.0.0.1", &[], &[("RELAY_TEST_BACKUP_FREE_BYTES", "4096")]);
    let (ok, out) = backup(&relay, &["create"]);
    assert!(!ok && out.contains("Not enough disk space"), "{out}");
    let written = std::fs::read_dir(backups_dir(&relay)).map(|d| d.count()).unwrap_or(0);
    assert_eq!(written, 0, "nothing written");
    let (_, health) = backup(&relay, &["health"]);
    assert!(health.contains("Not enough disk space") && health.contains("\"retentionAllowed\": false"), "{health}");
}

#[tokio::test]
async fn backups_are_not_reachable_over_http() {
    let relay = Relay::start();
    let token = relay.token().await;
    let http = client();
    for (method, path) in [
        ("GET", "/api/backups"),
        ("POST", "/api/backups"),
        ("POST", "/api/backups/restore"),
        ("GET", "/api/relay/backup"),
        ("POST", "/api/relay/backup/create"),
        ("POST", "/api/relay/backups/restore"),
        ("GET", "/api/relay/backup/health"),
    ] {
        let req = if method == "GET" { http.get(relay.url(path)) } else { http.post(relay.url(path)).json(&json!({})) };
        let res = req.header("Authorization", &token).send().await.unwrap();
        assert_eq!(res.status(), 404, "{method} {path} must not exist on the data API");
    }
}

/// Inserts alert history rows with the given ages (days) straight into the store file.
fn insert_alerts_aged(data_dir: &Path, ages_days: &[i64]) {
    let db = support::db_path(data_dir);
    let mut conn = SqliteConnection::establish(db.to_str().unwrap()).unwrap();
    diesel::sql_query("PRAGMA busy_timeout = 5000").execute(&mut conn).unwrap();
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_millis() as i64;
    for (i, days) in ages_days.iter().enumerate() {
        let created = domain::time::format_ms(now - days * 24 * 60 * 60 * 1000);
        diesel::sql_query(
            "INSERT INTO alert_history (id, created, updated, revision, subject, pinned) VALUES (?, ?, ?, 1, 'aged', 0)",
        )
        .bind::<diesel::sql_types::Text, _>(format!("agedalert{i:06}"))
        .bind::<diesel::sql_types::Text, _>(&created)
        .bind::<diesel::sql_types::Text, _>(&created)
        .execute(&mut conn)
        .unwrap();
    }
}

fn alert_ids(data_dir: &Path) -> BTreeSet<String> {
    let db = support::db_path(data_dir);
    let mut conn = SqliteConnection::establish(db.to_str().unwrap()).unwrap();
    let rows: Vec<IdRow> = diesel::sql_query("SELECT id FROM alert_history").load(&mut conn).unwrap();
    rows.into_iter().map(|r| r.id).collect()
}

#[tokio::test]
async fn history_retention_runs_only_behind_a_verified_backup() {
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    let mut starved = Relay::start_env(&data, "127.0.0.1", &[], &[("RELAY_TEST_BACKUP_FREE_BYTES", "4096")]);
    insert_alerts_aged(&data, &[200, 120, 1]);
    let (ok, out) = backup(&starved, &["create"]);
    assert!(!ok && out.contains("Not enough disk space"), "{out}");
    tokio::time::sleep(std::time::Duration::from_millis(500)).await;
    assert_eq!(alert_ids(&data).len(), 3, "retention paused while backups fail");
    starved.stop();

    let relay = Relay::start_in(&data, &[]);
    let (ok, out) = backup(&relay, &["create"]);
    assert!(ok, "{out}");
    let mut left = alert_ids(&data);
    for _ in 0..50 {
        if left.len() == 1 {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        left = alert_ids(&data);
    }
    assert_eq!(left, BTreeSet::from(["agedalert000002".to_string()]), "only the recent alert is kept");
}

/// A stopped server's data directory holding contact "Before" in a verified backup and
/// "After" written since; returns the backup's name.
async fn backed_up_then_changed(data_dir: &Path) -> String {
    let mut relay = Relay::start_in(data_dir, &[]);
    let token = relay.token().await;
    relay.create(&token, "contacts", &json!({"name": "Before", "email": "before@example.com"})).await;
    let (ok, out) = backup(&relay, &["create"]);
    assert!(ok, "{out}");
    relay.create(&token, "contacts", &json!({"name": "After", "email": "after@example.com"})).await;
    relay.stop();
    archive_name(&out)
}

#[tokio::test]
async fn a_restore_brings_back_the_backup_and_keeps_a_safety_copy_of_what_it_replaced() {
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    let name = backed_up_then_changed(&data).await;
    let out = backup_env(&data, &["restore", &name], &[]);
    assert!(!out.status.success() && text(&out).contains("--yes"), "{}", text(&out));
    let out = backup_env(&data, &["restore", &name, "--yes"], &[]);
    assert!(out.status.success(), "{}", text(&out));
    assert_eq!(served_names(&data).await, names(&["Before"]), "the backup's data is live");
    let safety = safety_archives(&data);
    assert_eq!(safety.len(), 1, "one safety archive");
    assert_eq!(contact_ids_in(&safety[0]).len(), 2, "the safety archive holds what was replaced");
    let leftovers = backup_leftovers(&data);
    assert!(leftovers.is_empty(), "{leftovers:?}");
}

#[tokio::test]
async fn a_restored_store_that_fails_its_check_is_rolled_back() {
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    let name = backed_up_then_changed(&data).await;
    let out = backup_env(&data, &["restore", &name, "--yes"], &[("RELAY_TEST_FAULT", "restore:reject-restored")]);
    assert!(!out.status.success() && text(&out).contains("previous data was put back"), "{}", text(&out));
    assert_eq!(served_names(&data).await, names(&["Before", "After"]), "the original is live again");
}

/// Copies a data directory (files and folders, owner-only as they were).
fn copy_dir(from: &Path, to: &Path) {
    let status = std::process::Command::new("cp").arg("-a").arg(from).arg(to).status().unwrap();
    assert!(status.success());
}

#[tokio::test]
async fn a_restore_killed_at_every_swap_step_is_recovered_at_the_next_start() {
    if !infra::fault::FAULT_POINTS_ENABLED {
        return;
    }
    use std::os::unix::process::ExitStatusExt;
    let tmp = tempfile::tempdir().unwrap();
    let template = tmp.path().join("template");
    let name = backed_up_then_changed(&template).await;
    for point in infra::backup::swap::install_and_commit_fault_points() {
        let data = tmp.path().join(point.replace(':', "-"));
        copy_dir(&template, &data);
        let out = backup_env(&data, &["restore", &name, "--yes"], &[("RELAY_TEST_FAULT", &point)]);
        assert_eq!(out.status.signal(), Some(9), "{point}: killed at the point: {}", text(&out));
        // The commit marker is the committed journal on disk: from then on the restore stands.
        let committed = point.starts_with("restore:commit:") && point != "restore:commit:before:WriteJournal";
        let expected = if committed { names(&["Before"]) } else { names(&["Before", "After"]) };
        assert_eq!(served_names(&data).await, expected, "{point}");
        let leftovers = backup_leftovers(&data);
        assert!(leftovers.is_empty(), "{point}: {leftovers:?}");
    }
}

/// A running server holding "Before" in a verified backup and "After" written since.
async fn running_backed_up_then_changed(data_dir: &Path, envs: &[(&str, &str)]) -> (Relay, String) {
    let relay = Relay::start_env(data_dir, "127.0.0.1", &[], envs);
    let token = relay.token().await;
    relay.create(&token, "contacts", &json!({"name": "Before", "email": "before@example.com"})).await;
    let (ok, out) = backup(&relay, &["create"]);
    assert!(ok, "{out}");
    relay.create(&token, "contacts", &json!({"name": "After", "email": "after@example.com"})).await;
    (relay, archive_name(&out))
}

#[tokio::test]
async fn a_running_server_restores_and_serves_the_restored_data_on_the_same_port() {
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    // A file a subsystem keeps beside the database (a logo) is backed up and restored with it.
    let logo = data.join("store").join("logos").join("company.png");
    use std::os::unix::fs::DirBuilderExt;
    std::fs::DirBuilder::new().recursive(true).mode(0o700).create(logo.parent().unwrap()).unwrap();
    std::fs::write(&logo, b"logo before").unwrap();
    let (mut relay, name) = running_backed_up_then_changed(&data, &[]).await;
    std::fs::write(&logo, b"logo after").unwrap();
    let (ok, out) = backup(&relay, &["restore", &name, "--yes"]);
    assert!(ok && out.contains("the server serves it"), "{out}\n{}", relay.stderr());
    assert_eq!(std::fs::read(&logo).unwrap(), b"logo before", "the store's other files are restored");
    // The same process, on the same port, serves the restored data.
    assert_eq!(names_served_by(&relay).await, names(&["Before"]), "the backup's data is served");
    let (ok, out) = backup(&relay, &["health"]);
    assert!(ok && out.contains("\"serving\""), "the status reports the restore: {out}");
    let safety = safety_archives(&data);
    assert_eq!(safety.len(), 1, "one safety archive");
    assert_eq!(contact_ids_in(&safety[0]).len(), 2, "the safety archive holds what was replaced");
    // Writes go to the restored store and survive the next start.
    let token = relay.token().await;
    relay.create(&token, "contacts", &json!({"name": "Later", "email": "later@example.com"})).await;
    relay.stop();
    assert!(backup_leftovers(&data).is_empty(), "{:?}", backup_leftovers(&data));
    assert_eq!(served_names(&data).await, names(&["Before", "Later"]));
}

#[tokio::test]
async fn a_running_server_whose_restored_store_fails_its_check_serves_the_original_again() {
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    let (mut relay, name) =
        running_backed_up_then_changed(&data, &[("RELAY_TEST_FAULT", "restore:reject-restored")]).await;
    let (ok, out) = backup(&relay, &["restore", &name, "--yes"]);
    assert!(!ok && out.contains("previous data was put back"), "{out}");
    assert_eq!(names_served_by(&relay).await, names(&["Before", "After"]), "the original is served again");
    relay.stop();
    assert!(backup_leftovers(&data).is_empty(), "{:?}", backup_leftovers(&data));
}

#[tokio::test]
async fn a_cli_that_cannot_reach_the_server_leaves_its_locked_data_directory_alone() {
    let relay = Relay::start();
    // A server restarting for a restore has no control socket for a moment; simulate that.
    std::fs::remove_file(relay.data_dir.join("control.sock")).unwrap();
    for args in [&["list"][..], &["create"], &["restore", "backup_2026-01-01_00-00-00_abcdefgh12.zip", "--yes"]] {
        let (ok, out) = backup(&relay, args);
        assert!(!ok && out.contains("running or restarting"), "{args:?}: {out}");
    }
    let (ok, out) = relay_cli("admin", &relay.data_dir, &["list"], "");
    assert!(!ok && out.contains("running or restarting"), "admin: {out}");
    assert!(!backups_dir(&relay).exists() || std::fs::read_dir(backups_dir(&relay)).unwrap().next().is_none());
}

#[tokio::test]
async fn the_health_dashboard_summarizes_backups_without_naming_archives() {
    let relay = Relay::start();
    let token = relay.token().await;
    let before = relay.get_json(&token, "/api/relay/health").await;
    assert!(before["backup"]["restorePointAgeMs"].is_null(), "no backup yet: {before}");
    let (ok, out) = backup(&relay, &["create"]);
    assert!(ok, "{out}");
    let after = relay.get_json(&token, "/api/relay/health").await;
    let summary = &after["backup"];
    assert!(summary["restorePointAgeMs"].as_i64().is_some_and(|age| (0..60_000).contains(&age)), "{after}");
    assert!(summary["lastVerifiedAgeMs"].as_i64().is_some(), "{after}");
    assert_eq!(summary["retentionAllowed"], true);
    assert!(!after.to_string().contains(&archive_name(&out)), "no archive name leaves the server: {after}");
}
