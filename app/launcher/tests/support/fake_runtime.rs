//! The fake runtime: this test binary started by the launcher as `runtimes/<build>/relay-desktop`.
//! Its build id is its directory's name; `RELAY_FAKE_RUNTIME_PLAN` (`<build>=<behaviour>;...`)
//! chooses what it does, default `exit0`. Every start appends `start <build> <txn|->`,
//! `pid <build> <pid>` and `data <build> <data directory>` to `RELAY_FAKE_LOG`.
//! - `healthy`: writes `store/written-by-<build>` into the data directory; on probation writes
//!   `mounted <txn>` then `healthy <txn>` every 40 ms for 3 s, then exits 0 (off probation it
//!   exits 0 at once).
//! - `crash`: overwrites `store/relay.db`, adds junk to `store/` and `offline/`, exits 3.
//! - `never-healthy`: on probation overwrites `store/relay.db`, writes `mounted`, then for 10 s
//!   `unhealthy`, a heartbeat for another transaction, a malformed line and an over-long line
//!   every 50 ms, then exits 0; off probation exits 0.
//! - `handoff`: installs the staged executable (`RELAY_FAKE_STAGED*`) as the candidate through
//!   `infra::recovery::install_candidate` and exits 75; a refusal is logged
//!   (`install-refused <code>`) and it exits 0.
//! - `silent-after-one`: on probation `mounted`, one `healthy`, then 8 s of silence while
//!   running, then exits 0.
//! - `flapping`: on probation `mounted`, then 10 heartbeats (0.4 s) and `unhealthy`, repeated
//!   for 8 s, then exits 0.
//! - `exit75`: exits 75 without installing anything (a hand-off loop).
//! - `rollback`: requests a manual rollback to `RELAY_FAKE_ROLLBACK_TO` through
//!   `infra::recovery::request_rollback` (under the recovery lock, as the desktop does) and
//!   exits 75; a refusal is logged (`rollback-refused <code>`) and it exits 0.

use std::fs::{self, File, OpenOptions};
use std::io::Write;
use std::os::fd::FromRawFd;
use std::path::PathBuf;
use std::time::{Duration, Instant};

pub const PLAN_ENV: &str = "RELAY_FAKE_RUNTIME_PLAN";

fn env(name: &str) -> String {
    std::env::var(name).unwrap_or_default()
}

fn log(line: &str) {
    let mut file = OpenOptions::new().create(true).append(true).open(env("RELAY_FAKE_LOG")).expect("fake log");
    writeln!(file, "{line}").expect("fake log write");
}

pub fn run() -> i32 {
    let exe = std::env::current_exe().expect("current exe");
    let build = exe.parent().and_then(|p| p.file_name()).map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let transaction = std::env::var("RELAY_LAUNCHER_TRANSACTION").ok();
    log(&format!("start {build} {}", transaction.as_deref().unwrap_or("-")));
    log(&format!("pid {build} {}", std::process::id()));
    log(&format!("data {build} {}", env("RELAY_DATA_DIR")));
    let plan = env(PLAN_ENV);
    let behaviour = plan
        .split(';')
        .filter_map(|entry| entry.split_once('='))
        .find(|(name, _)| *name == build)
        .map(|(_, behaviour)| behaviour.to_owned())
        .unwrap_or_else(|| "exit0".into());
    // SAFETY: the launcher passes the health pipe as fd 3 exactly when it sets this variable.
    let pipe = (env("RELAY_LAUNCHER_FD") == "3").then(|| unsafe { File::from_raw_fd(3) });
    let data = PathBuf::from(env("RELAY_DATA_DIR"));
    let txn = transaction.unwrap_or_default();
    match (behaviour.as_str(), pipe) {
        ("healthy", pipe) => {
            fs::write(data.join(format!("store/written-by-{build}")), b"written by the candidate").unwrap();
            if let Some(mut pipe) = pipe {
                let _ = writeln!(pipe, "mounted {txn}");
                let started = Instant::now();
                while started.elapsed() < Duration::from_millis(3_000) {
                    let _ = writeln!(pipe, "healthy {txn}");
                    std::thread::sleep(Duration::from_millis(40));
                }
            }
            0
        }
        ("crash", _) => {
            fs::write(data.join("store/relay.db"), b"migrated and broken by the candidate").unwrap();
            fs::write(data.join("store/junk"), b"junk").unwrap();
            fs::create_dir_all(data.join("offline")).unwrap();
            fs::write(data.join("offline/junk"), b"junk").unwrap();
            3
        }
        ("never-healthy", Some(mut pipe)) => {
            fs::write(data.join("store/relay.db"), b"half-migrated by the candidate").unwrap();
            let _ = writeln!(pipe, "mounted {txn}");
            let started = Instant::now();
            while started.elapsed() < Duration::from_secs(10) {
                let _ = writeln!(pipe, "unhealthy {txn}");
                let _ = writeln!(pipe, "healthy 0f8fad5b-d9cb-469f-a165-70867728950e");
                let _ = writeln!(pipe, "healthy");
                let _ = writeln!(pipe, "healthy {txn}{}", " ".repeat(300));
                std::thread::sleep(Duration::from_millis(50));
            }
            0
        }
        ("silent-after-one", Some(mut pipe)) => {
            let _ = writeln!(pipe, "mounted {txn}");
            let _ = writeln!(pipe, "healthy {txn}");
            std::thread::sleep(Duration::from_secs(8));
            0
        }
        ("flapping", Some(mut pipe)) => {
            let _ = writeln!(pipe, "mounted {txn}");
            let started = Instant::now();
            while started.elapsed() < Duration::from_secs(8) {
                for _ in 0..10 {
                    let _ = writeln!(pipe, "healthy {txn}");
                    std::thread::sleep(Duration::from_millis(40));
                }
                let _ = writeln!(pipe, "unhealthy {txn}");
            }
            0
        }
        ("handoff", _) => handoff(),
        ("exit75", _) => 75,
        ("rollback", _) => request_rollback(),
        _ => 0,
    }
}

fn managed_root() -> infra::recovery::ManagedRoot {
    let root = infra::recovery::managed_root_from(
        std::env::var_os("XDG_DATA_HOME").as_deref(),
        std::env::var_os("HOME").as_deref(),
    )
    .expect("a managed root");
    infra::recovery::ManagedRoot::open(&root).expect("the managed root opens")
}

fn request_rollback() -> i32 {
    let root = managed_root();
    let target = domain::updater::BuildId::parse(&env("RELAY_FAKE_ROLLBACK_TO")).expect("a build id");
    let lock = infra::recovery::RecoveryLock::acquire(&root, Duration::from_secs(10)).expect("the recovery lock");
    let now_ms = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_millis() as u64;
    match infra::recovery::request_rollback(&root, &lock, &target, now_ms) {
        Ok(_) => {
            log(&format!("rollback-requested {target}"));
            75
        }
        Err(error) => {
            log(&format!("rollback-refused {}", error.code()));
            0
        }
    }
}

fn handoff() -> i32 {
    let root = managed_root();
    let digest = domain::updater::Sha256Digest::parse_hex(&env("RELAY_FAKE_STAGED_SHA256")).expect("digest");
    let version = domain::updater::Version::parse(&env("RELAY_FAKE_STAGED_VERSION")).expect("version");
    let commit = domain::updater::CommitSha::parse_hex(&env("RELAY_FAKE_STAGED_COMMIT")).expect("commit");
    let staged = PathBuf::from(env("RELAY_FAKE_STAGED"));
    match infra::recovery::install_candidate(&root, &staged, &digest, version, commit) {
        Ok(ticket) => {
            log(&format!("installed {}", ticket.build));
            75
        }
        Err(error) => {
            log(&format!("install-refused {}", error.code()));
            0
        }
    }
}
