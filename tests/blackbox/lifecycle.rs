//! Black-box lifecycle tests: data survives restart, migrations are idempotent, unmanaged
//! tables are left in place and logged, secrets are owner-only and outside the database,
//! `connection-info` prints the URL and passphrase, health and presence are served, and logs
//! never contain the passphrase or tokens. The store lives in `DATA/store/` (a legacy layout is
//! moved there at start), and an interrupted backup restore is recovered before the store opens,
//! or, when its journal is unsafe, stops `relay serve` and `relay admin` with the data untouched.
//! Fresh starts never log a locked database (WAL is switched on before the pool opens), and a
//! server started under a low soft open-file limit raises it to the hard limit.

use diesel::connection::SimpleConnection;
use serde_json::{json, Value};
use support::{admin_cli, client, relay_bin, sample, Relay, PASSPHRASE};

#[tokio::test]
async fn restart_keeps_data_and_leaves_unmanaged_tables() {
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    let mut relay = Relay::start_in(&data, &[]);
    let token = relay.token().await;
    let created: Value = relay.create(&token, "contacts", &sample("contacts")).await;
    relay.stop();

    let db = data.join("store/relay.db");
    let (pool, applied) = infra::db::open(&db, 1).unwrap();
    assert!(applied.is_empty(), "migrations already applied by the server");
    pool.get()
        .unwrap()
        .batch_execute("CREATE TABLE operator_notes (x TEXT); INSERT INTO operator_notes VALUES ('keep me');")
        .unwrap();
    drop(pool);

    let relay = Relay::start_in(&data, &[]);
    let token = relay.token().await;
    let got: Value =
        relay.get_json(&token, &format!("/api/collections/contacts/records/{}", created["id"].as_str().unwrap())).await;
    assert_eq!(got, created);
    let stderr = relay.stderr();
    assert!(stderr.contains("unmanaged table") && stderr.contains("operator_notes"), "{stderr}");
    assert!(!stderr.contains("applied database migrations"), "no migration re-applied on restart");
    drop(relay);
    let (pool, _) = infra::db::open(&db, 1).unwrap();
    let mut conn = pool.get().unwrap();
    assert_eq!(infra::db::unmanaged_tables(&mut conn).unwrap(), vec!["operator_notes".to_string()]);
    assert_eq!(infra::db::table_columns(&mut conn, "operator_notes").unwrap(), vec!["x".to_string()]);
}

#[cfg(unix)]
#[tokio::test]
async fn secrets_are_owner_only_outside_the_database_and_never_logged() {
    use std::os::unix::fs::PermissionsExt;
    let relay = Relay::start();
    let token = relay.token().await;
    let mode = |p: &std::path::Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(&relay.data_dir), 0o700);
    assert_eq!(mode(&relay.data_dir.join("secrets")), 0o700);
    assert_eq!(mode(&relay.data_dir.join("secrets/passphrase")), 0o600);
    assert_eq!(mode(&relay.data_dir.join("secrets/token.key")), 0o600);
    let db = std::fs::read(relay.data_dir.join("store/relay.db")).unwrap();
    assert!(!db.windows(PASSPHRASE.len()).any(|w| w == PASSPHRASE.as_bytes()), "passphrase is not in the database");

    let out = std::process::Command::new(relay_bin())
        .args(["connection-info", "--data-dir"])
        .arg(&relay.data_dir)
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains(&format!("Passphrase: {PASSPHRASE}")), "{text}");
    assert!(text.contains("Server URL: http://127.0.0.1:"), "{text}");

    // Every server subsystem starts and reports, however lazily it sets itself up (the outbound
    // clients read no root certificates and the pool opens one connection until needed): each
    // one's first report is awaited, boundedly.
    let expected: Vec<&str> = "auth backup branding control dynatrace metrics presence privileged radar realtime \
                                spreadsheet status_feeds store web_sessions wiki"
        .split_whitespace()
        .collect();
    let mut health = Value::Null;
    for _ in 0..100 {
        let res = client().get(relay.url("/api/relay/health")).header("Authorization", &token).send().await.unwrap();
        assert_eq!(res.status(), 200);
        health = res.json().await.unwrap();
        if expected.iter().all(|actor| health["actors"][*actor]["state"].is_string()) {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    let missing: Vec<_> = expected.iter().filter(|actor| !health["actors"][**actor]["state"].is_string()).collect();
    assert!(missing.is_empty(), "subsystems that never reported: {missing:?} in {health}");
    let health_text = health.to_string();
    assert!(!health_text.contains(PASSPHRASE) && !health_text.contains(&token));
    let logs = relay.stderr();
    assert!(!logs.contains(PASSPHRASE) && !logs.contains(&token), "{logs}");
    assert!(logs.lines().all(|l| l.len() < 2000));
}

#[tokio::test]
async fn fresh_starts_never_meet_a_locked_database() {
    // The pool's connections used to race `PRAGMA journal_mode = WAL` on a new file: about one
    // fresh start in ten logged "database is locked" and waited for the busy timeout.
    let http = client();
    for start in 0..30 {
        let mut relay = Relay::start();
        let res = http.get(relay.url("/api/health")).send().await.unwrap();
        assert_eq!(res.status(), 200, "start {start}");
        relay.stop();
        let output = relay.output();
        assert!(!output.contains("database is locked"), "start {start}: {output}");
        assert!(!output.contains("ERROR"), "start {start}: {output}");
    }
}

#[tokio::test]
async fn public_liveness_presence_and_unknown_routes() {
    let relay = Relay::start();
    let token = relay.token().await;
    let http = client();
    let res = http.get(relay.url("/api/health")).send().await.unwrap();
    assert_eq!(res.status(), 200);
    assert_eq!(res.headers()["x-content-type-options"], "nosniff");
    assert_eq!(res.headers()["x-frame-options"], "DENY");
    assert!(res.headers()["content-security-policy"].to_str().unwrap().contains("object-src 'none'"));
    assert!(res.headers().get("access-control-allow-origin").is_none());
    let body: Value = res.json().await.unwrap();
    assert_eq!(body["code"], 200);

    let res = http
        .post(relay.url("/api/relay/presence/heartbeat"))
        .header("Authorization", &token)
        .json(&json!({"sessionId": "sess-9", "hostname": "noc-9"}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200);
    let row: Value = res.json().await.unwrap();
    assert_eq!((row["hostname"].as_str(), row["mode"].as_str()), (Some("noc-9"), Some("client")));
    let res = http.get(relay.url("/api/relay/presence")).header("Authorization", &token).send().await.unwrap();
    assert_eq!(res.status(), 200);
    let snapshot: Value = res.json().await.unwrap();
    assert_eq!(snapshot["heartbeatIntervalMs"], 15000);

    for path in ["/api/nope", "/api/collections", "/api/_superusers", "/api/backups", "/_/"] {
        let res = http.get(relay.url(path)).header("Authorization", &token).send().await.unwrap();
        if path.starts_with("/api") {
            assert_eq!(res.status(), 404, "{path}");
            let v: Value = res.json().await.unwrap();
            assert_eq!(v["status"], 404);
        } else {
            assert_eq!(res.status(), 200, "SPA fallback for {path}");
        }
    }
}

#[test]
fn help_documents_every_command() {
    let out = std::process::Command::new(relay_bin()).arg("--help").output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("serve") && text.contains("connection-info"), "{text}");
    let out = std::process::Command::new(relay_bin()).args(["serve", "--help"]).output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    for flag in ["--data-dir", "--port", "--bind", "--ui-dir", "--token-ttl-secs"] {
        assert!(text.contains(flag), "{flag} in {text}");
    }
    let out = std::process::Command::new(relay_bin())
        .args(["serve", "--data-dir", "/tmp/x", "--bind", "not-an-ip"])
        .output()
        .unwrap();
    assert!(!out.status.success());
}

#[tokio::test]
async fn cross_origin_access_is_granted_to_the_desktop_webview_only() {
    let relay = Relay::start();
    let http = client();
    let url = relay.url("/api/collections/contacts/records");
    for origin in ["tauri://localhost", "http://tauri.localhost"] {
        let res = http
            .request(reqwest::Method::OPTIONS, &url)
            .header("Origin", origin)
            .header("Access-Control-Request-Method", "POST")
            .header("Access-Control-Request-Headers", "authorization,content-type")
            .send()
            .await
            .unwrap();
        assert_eq!(res.headers().get("access-control-allow-origin").and_then(|v| v.to_str().ok()), Some(origin));
        assert!(res.headers().get("access-control-allow-credentials").is_none());
        let res = http.get(&url).header("Origin", origin).send().await.unwrap();
        assert_eq!(res.status(), 401, "CORS never replaces authentication");
        assert_eq!(res.headers().get("access-control-allow-origin").and_then(|v| v.to_str().ok()), Some(origin));
    }
    for origin in ["http://evil.example", "tauri://localhost.evil", "null", "http://127.0.0.1:1"] {
        let res = http
            .request(reqwest::Method::OPTIONS, &url)
            .header("Origin", origin)
            .header("Access-Control-Request-Method", "POST")
            .send()
            .await
            .unwrap();
        assert!(res.headers().get("access-control-allow-origin").is_none(), "{origin}");
        let res = http.get(relay.url("/api/health")).header("Origin", origin).send().await.unwrap();
        assert_eq!(res.status(), 200, "other origins are not blocked, just not granted CORS");
        assert!(res.headers().get("access-control-allow-origin").is_none(), "{origin}");
    }
}

const JOURNAL: &str = ".relay-backup-restore.json";
const ORIGINAL: &str = ".relay-backup-original-0123456789abcdef";
const STAGE: &str = ".relay-backup-verify-0123456789abcdef";

/// A data directory whose store holds one contact; returns the record.
async fn seeded(data: &std::path::Path) -> Value {
    let mut relay = Relay::start_in(data, &[]);
    let token = relay.token().await;
    let created: Value = relay.create(&token, "contacts", &sample("contacts")).await;
    relay.stop();
    created
}

async fn assert_served(data: &std::path::Path, created: &Value) -> String {
    let relay = Relay::start_in(data, &[]);
    let token = relay.token().await;
    let got: Value =
        relay.get_json(&token, &format!("/api/collections/contacts/records/{}", created["id"].as_str().unwrap())).await;
    assert_eq!(&got, created);
    relay.stderr()
}

#[tokio::test]
async fn a_legacy_data_directory_is_moved_into_the_store_folder_with_its_data() {
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    let created = seeded(&data).await;
    for name in ["relay.db", "relay.db-wal", "relay.db-shm"] {
        if data.join("store").join(name).exists() {
            std::fs::rename(data.join("store").join(name), data.join(name)).unwrap();
        }
    }
    std::fs::remove_dir(data.join("store")).unwrap();
    let stderr = assert_served(&data, &created).await;
    assert!(stderr.contains("moved the database into the data directory's store folder"), "{stderr}");
    assert!(!data.join("relay.db").exists() && data.join("store/relay.db").is_file());
}

#[tokio::test]
async fn an_interrupted_restore_is_rolled_back_before_the_store_opens() {
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    let created = seeded(&data).await;
    // As a kill -9 after "stage renamed to live" leaves it: the original aside, the restored
    // store live, the journal uncommitted.
    std::fs::rename(data.join("store"), data.join(ORIGINAL)).unwrap();
    std::fs::create_dir(data.join("store")).unwrap();
    std::fs::write(data.join("store/relay.db"), b"restored, never committed").unwrap();
    let journal = json!({"version": 1, "stage": STAGE, "original": ORIGINAL, "committed": false, "preserved": []});
    std::fs::write(data.join(JOURNAL), journal.to_string()).unwrap();

    let stderr = assert_served(&data, &created).await;
    assert!(stderr.contains("rolled back an interrupted backup restore"), "{stderr}");
    assert!(!data.join(JOURNAL).exists() && !data.join(ORIGINAL).exists());
}

#[tokio::test]
async fn an_unsafe_restore_journal_stops_the_start_and_touches_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    let created = seeded(&data).await;
    let journal = json!({"version": 1, "stage": STAGE, "original": "../outside", "committed": false, "preserved": []});
    std::fs::write(data.join(JOURNAL), journal.to_string()).unwrap();
    let db_before = std::fs::read(data.join("store/relay.db")).unwrap();

    let mut child = std::process::Command::new(relay_bin())
        .args(["serve", "--port", "0", "--bind", "127.0.0.1", "--data-dir"])
        .arg(&data)
        .env("RELAY_BOOTSTRAP_PASSPHRASE", PASSPHRASE)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if std::time::Instant::now() > deadline {
            let _ = child.kill();
            panic!("relay serve started on an unsafe restore journal");
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    };
    let mut stderr = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut stderr).unwrap();
    assert!(!status.success());
    assert!(stderr.contains("interrupted backup restore could not be recovered"), "{stderr}");
    let (ok, out) = admin_cli(&data, &["list"], "");
    assert!(!ok && out.contains("interrupted backup restore could not be recovered"), "{out}");
    assert!(data.join(JOURNAL).is_file(), "the journal is kept for an administrator");
    assert_eq!(std::fs::read(data.join("store/relay.db")).unwrap(), db_before);

    std::fs::remove_file(data.join(JOURNAL)).unwrap();
    assert_served(&data, &created).await;
}

#[test]
fn the_server_keeps_an_owner_only_log_file_in_its_data_directory() {
    use std::os::unix::fs::PermissionsExt;
    let mut relay = Relay::start();
    relay.stop();
    let log = relay.data_dir.join("logs").join("relay.log");
    let text = std::fs::read_to_string(&log).expect("DATA/logs/relay.log");
    assert!(text.contains("relay server started"), "{text}");
    assert!(!text.contains(PASSPHRASE), "the log is redacted like stderr");
    assert_eq!(std::fs::metadata(&log).unwrap().permissions().mode() & 0o777, 0o600);
    assert_eq!(std::fs::metadata(log.parent().unwrap()).unwrap().permissions().mode() & 0o777, 0o700);
}

/// The soft limit from a process's `/proc/<pid>/limits` "Max open files" line.
fn soft_open_files_limit(pid: u32) -> u64 {
    let limits = std::fs::read_to_string(format!("/proc/{pid}/limits")).unwrap();
    let line = limits.lines().find(|l| l.starts_with("Max open files")).expect("Max open files");
    line.split_whitespace().nth(3).and_then(|soft| soft.parse().ok()).expect("a numeric soft limit")
}

/// #39.12: `relay serve` started with a soft open-file limit of 1024 under a hard one of 4096
/// (as systemd and login sessions start it) raises the soft limit to the hard one.
#[cfg(target_os = "linux")]
#[test]
fn serve_raises_the_open_file_soft_limit_to_the_hard_limit() {
    use std::io::BufRead;
    use std::os::unix::process::CommandExt;
    let tmp = tempfile::tempdir().unwrap();
    let mut command = std::process::Command::new(relay_bin());
    command
        .args(["serve", "--data-dir"])
        .arg(tmp.path().join("data"))
        .args(["--port", "0", "--bind", "127.0.0.1"])
        .env("RELAY_BOOTSTRAP_PASSPHRASE", PASSPHRASE)
        .env_remove("RELAY_LOG")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null());
    // SAFETY: only setrlimit (async-signal-safe) runs between fork and exec.
    unsafe {
        command.pre_exec(|| {
            let limit = libc::rlimit { rlim_cur: 1024, rlim_max: 4096 };
            if libc::setrlimit(libc::RLIMIT_NOFILE, &limit) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    let mut child = command.spawn().unwrap();
    let stdout = std::io::BufReader::new(child.stdout.take().unwrap());
    let listening = stdout.lines().map_while(Result::ok).any(|line| line.starts_with("Relay listening on "));
    let soft = soft_open_files_limit(child.id());
    let _ = child.kill();
    let _ = child.wait();
    assert!(listening, "relay serve did not start");
    assert_eq!(soft, 4096, "the soft limit is raised to the hard limit");
}
