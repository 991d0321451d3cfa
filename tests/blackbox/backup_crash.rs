//! Crash tests of backups with `kill -9` of the real server at each step (debug-only fault
//! points, `infra::fault`): a server killed at every step of a create and its verification
//! loses no acknowledged write, leaves no partial archive, working directory or orphaned
//! worker, records the interrupted attempt as a failure, and backs up normally after a restart;
//! a server killed at every step of the journaled swap of a restore on the running server is
//! recovered by its next start (the restore stands once committed, else the original data with
//! every write is back), and the CLI that asked for the restore says the server stopped.

use std::os::unix::process::ExitStatusExt;
use std::path::Path;
use std::time::Duration;

use serde_json::json;
use support::backup::{archives, backup_env, backup_leftovers, names, names_served_by, served_names, text};
use support::Relay;

/// How long a killed server may take to be seen dead.
const EXIT_WAIT: Duration = Duration::from_secs(20);

/// Worker processes (the hidden worker mode) started with `fault` in their environment: the
/// workers of the server under this test, and of no other test.
fn workers_with_fault(fault: &str) -> Vec<u32> {
    let needle = format!("RELAY_TEST_FAULT={fault}");
    std::fs::read_dir("/proc")
        .unwrap()
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| {
            let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
            let environ = std::fs::read(format!("/proc/{pid}/environ")).unwrap_or_default();
            let is_worker = cmdline.split(|b| *b == 0).any(|arg| arg == b"__relay-backup-worker");
            is_worker && environ.split(|b| *b == 0).any(|kv| kv == needle.as_bytes())
        })
        .collect()
}

/// Files in `backups/` that are not finished archives.
fn unfinished_files(data_dir: &Path) -> Vec<String> {
    let Ok(entries) = std::fs::read_dir(data_dir.join("backups")) else { return Vec::new() };
    entries
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| !n.ends_with(".zip") || n.contains(".part"))
        .collect()
}

#[tokio::test]
async fn a_server_killed_at_every_create_step_loses_nothing_and_backs_up_after_restart() {
    if !infra::fault::FAULT_POINTS_ENABLED {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    for point in infra::backup::CREATE_FAULT_POINTS {
        let data = tmp.path().join(point.replace(':', "-"));
        let mut relay = Relay::start_env(&data, "127.0.0.1", &[], &[("RELAY_TEST_FAULT", point)]);
        let token = relay.token().await;
        relay.create(&token, "contacts", &json!({"name": "Ada", "email": "ada@example.com"})).await;
        relay.create(&token, "contacts", &json!({"name": "Grace", "email": "grace@example.com"})).await;
        let out = backup_env(&data, &["create"], &[]);
        assert!(!out.status.success(), "{point}: the create was cut short: {}", text(&out));
        let status = relay.wait_exit(EXIT_WAIT).unwrap_or_else(|| panic!("{point}: the server was not killed"));
        assert_eq!(status.signal(), Some(9), "{point}: killed at the fault point");
        let deadline = std::time::Instant::now() + Duration::from_secs(5);
        while !workers_with_fault(point).is_empty() && std::time::Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(50));
        }
        assert!(workers_with_fault(point).is_empty(), "{point}: a worker outlived its server");

        let mut relay = Relay::start_in(&data, &[]);
        assert_eq!(names_served_by(&relay).await, names(&["Ada", "Grace"]), "{point}: every write is served");
        assert!(backup_leftovers(&data).is_empty(), "{point}: {:?}", backup_leftovers(&data));
        assert!(unfinished_files(&data).is_empty(), "{point}: {:?}", unfinished_files(&data));
        let health = text(&backup_env(&data, &["health"], &[]));
        let recorded_success = point == "backup:create:after:Prune";
        assert_eq!(
            health.contains("Previous backup was interrupted"),
            !recorded_success,
            "{point}: an interrupted attempt is a failure after restart: {health}"
        );
        for archive in archives(&data) {
            let out = backup_env(&data, &["verify", &archive], &[]);
            assert!(out.status.success(), "{point}: a finished archive is whole: {}", text(&out));
        }
        let out = backup_env(&data, &["create"], &[]);
        assert!(out.status.success(), "{point}: backups work after the restart: {}", text(&out));
        relay.stop();
    }
}

#[tokio::test]
async fn a_running_server_killed_at_every_swap_step_of_a_restore_is_recovered_at_the_next_start() {
    if !infra::fault::FAULT_POINTS_ENABLED {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    for point in infra::backup::swap::install_and_commit_fault_points() {
        let data = tmp.path().join(point.replace(':', "-"));
        let mut relay = Relay::start_env(&data, "127.0.0.1", &[], &[("RELAY_TEST_FAULT", &point)]);
        let token = relay.token().await;
        relay.create(&token, "contacts", &json!({"name": "Before", "email": "before@example.com"})).await;
        let out = backup_env(&data, &["create"], &[]);
        assert!(out.status.success(), "{point}: {}", text(&out));
        let archive = archives(&data).pop().unwrap();
        relay.create(&token, "contacts", &json!({"name": "After", "email": "after@example.com"})).await;
        let out = backup_env(&data, &["restore", &archive, "--yes"], &[]);
        assert!(
            !out.status.success() && text(&out).contains("server stopped during the restore"),
            "{point}: the CLI reports the stop: {}",
            text(&out)
        );
        let status = relay.wait_exit(EXIT_WAIT).unwrap_or_else(|| panic!("{point}: the server was not killed"));
        assert_eq!(status.signal(), Some(9), "{point}");
        // The commit marker is the committed journal on disk: from then on the restore stands.
        let committed = point.starts_with("restore:commit:") && point != "restore:commit:before:WriteJournal";
        let expected = if committed { names(&["Before"]) } else { names(&["Before", "After"]) };
        assert_eq!(served_names(&data).await, expected, "{point}");
        assert!(backup_leftovers(&data).is_empty(), "{point}: {:?}", backup_leftovers(&data));
    }
}

/// The parent process id of `pid`.
fn parent_of(pid: u32) -> Option<u32> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    stat.rsplit_once(") ")?.1.split(' ').nth(1)?.parse().ok()
}

/// Whether `pid` is still a live (not zombie) process.
fn alive(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .ok()
        .and_then(|stat| stat.rsplit_once(") ").map(|(_, rest)| !rest.starts_with('Z')))
        .unwrap_or(false)
}

#[tokio::test]
async fn a_worker_dies_with_its_server_even_when_it_is_stuck() {
    if !infra::fault::FAULT_POINTS_ENABLED {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    let mut relay = Relay::start_env(&data, "127.0.0.1", &[], &[("RELAY_TEST_FAULT", "verify:stall")]);
    let cli_data = data.clone();
    let cli = std::thread::spawn(move || backup_env(&cli_data, &["create"], &[]));
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    let worker = loop {
        let server = relay.pid().unwrap();
        if let Some(pid) = workers_with_fault("verify:stall").into_iter().find(|pid| parent_of(*pid) == Some(server)) {
            break pid;
        }
        assert!(std::time::Instant::now() < deadline, "the worker started");
        std::thread::sleep(Duration::from_millis(50));
    };
    relay.kill_hard();
    let deadline = std::time::Instant::now() + Duration::from_secs(5);
    while alive(worker) && std::time::Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
    }
    let survived = alive(worker);
    if survived {
        // Do not leave it behind for the next run.
        let _ = std::process::Command::new("kill").args(["-9", &worker.to_string()]).status();
    }
    assert!(!survived, "a stuck worker is killed when its server dies");
    assert!(!cli.join().unwrap().status.success());
}
