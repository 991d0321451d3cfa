//! Backup benchmark (issue #12): a generated store of `RELAY_BENCH_BACKUP_MIB` MiB (default
//! 1024; alert history rows with incompressible 48 KiB bodies) is backed up by the real server
//! (`relay backup create`: online-backup snapshot, ZIP with manifest, verification in the worker
//! process) while 4 clients read records, against `cp` of the same file and `sqlite3 .backup`.
//! Reports the throughput of each and the ratio to `cp`, peak RSS of the server and of the
//! worker, and record-read p99 idle and during the backup. Run with
//! `cargo bench -p relay --bench backup`; `RELAY_BENCH_REPORT=path` writes the Markdown report.
//! Bounded: fixed row and request counts, one backup.

use std::path::Path;
use std::process::Command;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use diesel::connection::SimpleConnection;
use diesel::RunQueryDsl;
use support::bench::{self as common, cpu_model, pct, rss_kib};

const BODY_BYTES: usize = 48 * 1024;
const READ_CLIENTS: usize = 4;
const READS_PER_CLIENT: usize = 300;
/// Rounds of reads for the idle baseline.
const IDLE_ROUNDS: usize = 10;

/// Fills the store with `mib` MiB of alert history (random hex bodies: they do not compress away).
fn generate(db: &Path, mib: usize) {
    let (pool, _) = infra::db::open(db, 1).unwrap();
    let mut conn = pool.get().unwrap();
    let rows = mib * 1024 * 1024 / BODY_BYTES;
    let mut i = 0;
    while i < rows {
        conn.batch_execute("BEGIN IMMEDIATE").unwrap();
        for _ in 0..256.min(rows - i) {
            diesel::sql_query(
                "INSERT INTO alert_history (id, created, updated, revision, subject, bodyHtml) \
                 VALUES (printf('bench%010d', ?), '2026-12-01 00:00:00.000Z', '2026-12-01 00:00:00.000Z', 1, 'bench', \
                 hex(randomblob(?)))",
            )
            .bind::<diesel::sql_types::BigInt, _>(i as i64)
            .bind::<diesel::sql_types::BigInt, _>((BODY_BYTES / 2) as i64)
            .execute(&mut conn)
            .unwrap();
            i += 1;
        }
        conn.batch_execute("COMMIT").unwrap();
    }
    conn.batch_execute("PRAGMA wal_checkpoint(TRUNCATE)").unwrap();
}

fn timed(cmd: &mut Command) -> Duration {
    let started = Instant::now();
    let status = cmd.status().unwrap();
    assert!(status.success(), "{cmd:?}");
    started.elapsed()
}

/// Record-read latencies of `READ_CLIENTS` clients, `READS_PER_CLIENT` each.
async fn reads(base: &str, token: &str) -> Vec<Duration> {
    let mut tasks = Vec::new();
    for _ in 0..READ_CLIENTS {
        let (url, token) = (format!("{base}/api/collections/contacts/records?perPage=20"), token.to_string());
        tasks.push(tokio::spawn(async move {
            let http = reqwest::Client::new();
            let mut lat = Vec::with_capacity(READS_PER_CLIENT);
            for _ in 0..READS_PER_CLIENT {
                let t = Instant::now();
                let res = http.get(&url).header("Authorization", &token).send().await.unwrap();
                assert!(res.status().is_success());
                lat.push(t.elapsed());
            }
            lat
        }));
    }
    let mut all: Vec<Duration> = Vec::new();
    for t in tasks {
        all.extend(t.await.unwrap());
    }
    all.sort();
    all
}

/// Largest RSS (KiB) of a verification worker process whose parent is `parent`.
fn worker_rss_kib(parent: u32) -> u64 {
    let Ok(procs) = std::fs::read_dir("/proc") else { return 0 };
    procs
        .filter_map(|e| e.ok())
        .filter_map(|e| {
            let pid: u32 = e.file_name().to_str()?.parse().ok()?;
            let cmdline = std::fs::read(e.path().join("cmdline")).ok()?;
            let status = std::fs::read_to_string(e.path().join("status")).ok()?;
            let ppid = status.lines().find_map(|l| l.strip_prefix("PPid:"))?.trim().parse::<u32>().ok()?;
            (ppid == parent && String::from_utf8_lossy(&cmdline).contains("__relay-backup-worker"))
                .then(|| rss_kib(pid))?
        })
        .max()
        .unwrap_or(0)
}

fn mibps(bytes: u64, d: Duration) -> f64 {
    bytes as f64 / 1024.0 / 1024.0 / d.as_secs_f64()
}

#[tokio::main(flavor = "multi_thread", worker_threads = 4)]
async fn main() {
    let mib: usize = std::env::var("RELAY_BENCH_BACKUP_MIB").ok().and_then(|v| v.parse().ok()).unwrap_or(1024);
    let tmp = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let data = tmp.path().join("data");
    let dir = infra::datadir::DataDir::open(&data).unwrap();
    let started = Instant::now();
    generate(&dir.db_path(), mib);
    let generated = started.elapsed();
    let db_bytes = std::fs::metadata(dir.db_path()).unwrap().len();

    let cp = timed(Command::new("cp").arg(dir.db_path()).arg(tmp.path().join("copy.db")));
    let sqlite = timed(
        Command::new("sqlite3").arg(dir.db_path()).arg(format!(".backup '{}'", tmp.path().join("online.db").display())),
    );
    std::fs::remove_file(tmp.path().join("copy.db")).unwrap();
    std::fs::remove_file(tmp.path().join("online.db")).unwrap();

    let server = common::server().data_dir(&data).bind("127.0.0.1").start();
    let token = common::api_token(&reqwest::Client::new(), &server.base).await;
    // The idle baseline from as many reads as a few seconds of the backup give, so both p99s
    // rest on thousands of samples (1,200 alone swung the idle p99 by a factor of two).
    let mut idle = Vec::new();
    for _ in 0..IDLE_ROUNDS {
        idle.extend(reads(&server.base, &token).await);
    }
    idle.sort();

    let done = Arc::new(AtomicBool::new(false));
    let (server_peak, worker_peak) = (Arc::new(AtomicU64::new(0)), Arc::new(AtomicU64::new(0)));
    let sampler = {
        let (done, server_peak, worker_peak, pid) =
            (done.clone(), server_peak.clone(), worker_peak.clone(), server.pid().expect("the server runs"));
        std::thread::spawn(move || {
            while !done.load(Ordering::Relaxed) {
                server_peak.fetch_max(rss_kib(pid).unwrap_or(0), Ordering::Relaxed);
                worker_peak.fetch_max(worker_rss_kib(pid), Ordering::Relaxed);
                std::thread::sleep(Duration::from_millis(50));
            }
        })
    };
    let backup = {
        let data = data.clone();
        tokio::task::spawn_blocking(move || {
            let t = Instant::now();
            let out = Command::new(env!("CARGO_BIN_EXE_relay"))
                .args(["backup", "--data-dir"])
                .arg(&data)
                .arg("create")
                .output()
                .unwrap();
            assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
            t.elapsed()
        })
    };
    let mut during = Vec::new();
    while !backup.is_finished() {
        during.extend(reads(&server.base, &token).await);
    }
    let took = backup.await.unwrap();
    during.sort();
    done.store(true, Ordering::Relaxed);
    sampler.join().unwrap();
    let archive_bytes: u64 =
        std::fs::read_dir(data.join("backups")).unwrap().map(|e| e.unwrap().metadata().unwrap().len()).sum();

    let report = format!(
        "## Backup of a {mib} MiB store (`cargo bench -p relay --bench backup`)\n\n\
         Machine: {} ({} cores). Store generated in {:.1} s: {:.0} MiB of alert history with incompressible bodies; archive {:.0} MiB.\n\n\
         | operation | time (s) | MiB/s of store | vs `cp` |\n| --- | --- | --- | --- |\n\
         | `cp` of the database file | {:.2} | {:.0} | 100% |\n\
         | `sqlite3 .backup` | {:.2} | {:.0} | {:.0}% |\n\
         | `relay backup create` (snapshot + ZIP + manifest + verification in the worker), server serving reads | {:.2} | {:.0} | {:.0}% |\n\n\
         | measure | value |\n| --- | --- |\n\
         | server peak RSS during the backup | {:.1} MiB |\n\
         | verification worker peak RSS | {:.1} MiB |\n\
         | record read p50 / p99 idle ({} reads, {READ_CLIENTS} clients) | {:.2} / {:.2} ms |\n\
         | record read p50 / p99 during the backup ({} reads) | {:.2} / {:.2} ms |\n",
        cpu_model(),
        std::thread::available_parallelism().map(|n| n.get()).unwrap_or(0),
        generated.as_secs_f64(),
        db_bytes as f64 / 1024.0 / 1024.0,
        archive_bytes as f64 / 1024.0 / 1024.0,
        cp.as_secs_f64(),
        mibps(db_bytes, cp),
        sqlite.as_secs_f64(),
        mibps(db_bytes, sqlite),
        100.0 * cp.as_secs_f64() / sqlite.as_secs_f64(),
        took.as_secs_f64(),
        mibps(db_bytes, took),
        100.0 * cp.as_secs_f64() / took.as_secs_f64(),
        server_peak.load(Ordering::Relaxed) as f64 / 1024.0,
        worker_peak.load(Ordering::Relaxed) as f64 / 1024.0,
        idle.len(),
        pct(&idle, 0.50),
        pct(&idle, 0.99),
        during.len(),
        pct(&during, 0.50),
        pct(&during, 0.99),
    );
    println!("{report}");
    if let Ok(path) = std::env::var("RELAY_BENCH_REPORT") {
        std::fs::write(path, &report).unwrap();
    }
}
