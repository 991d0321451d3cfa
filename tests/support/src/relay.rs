//! Black-box test harness: starts the real `relay` binary on a random 127.0.0.1 port with a
//! temporary data directory, waits for its "listening" line, and offers an HTTP client plus
//! sign-in helpers, and keeps everything the server writes (stdout and stderr) for log checks.
//! It also pairs devices and reauthenticates through the privileged routes, and re-runs a test
//! inside an isolated network namespace (`run_in_netns`). The process is killed when the
//! harness is dropped. Every wait is bounded.
#![allow(dead_code)]

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use serde_json::{json, Value};

use domain::envelope::{payload_hash, sign_envelope, Envelope};

pub mod backup;
pub mod hostile;
pub mod wiki;

pub const PASSPHRASE: &str = "blackbox-passphrase-42";

pub struct Relay {
    child: Option<Child>,
    pub base: String,
    /// The Relay Web gateway's base URL, when it was started.
    pub web: Option<String>,
    pub data_dir: PathBuf,
    stderr_log: PathBuf,
    stdout_log: PathBuf,
    stdout_reader: Option<std::thread::JoinHandle<()>>,
    _tmp: Option<tempfile::TempDir>,
}

/// A loopback origin nothing listens on (the discard port): where outside services point in
/// black-box tests that do not serve them.
pub const CLOSED_UPSTREAM: &str = "http://127.0.0.1:9";

pub fn relay_bin() -> &'static str {
    env!("CARGO_BIN_EXE_relay")
}

impl Relay {
    /// Starts a server on a fresh data directory.
    pub fn start() -> Relay {
        let tmp = tempfile::tempdir().expect("tempdir");
        let data_dir = tmp.path().join("data");
        let mut relay = Relay::start_in(&data_dir, &[]);
        relay._tmp = Some(tmp);
        relay
    }

    /// Starts a server on a fresh data directory with extra `relay serve` arguments.
    pub fn start_with(extra: &[&str]) -> Relay {
        let tmp = tempfile::tempdir().expect("tempdir");
        let data_dir = tmp.path().join("data");
        let mut relay = Relay::start_in(&data_dir, extra);
        relay._tmp = Some(tmp);
        relay
    }

    /// Starts a server with direct LAN access and the Relay Web gateway on a free port. Tests
    /// still only talk to 127.0.0.1.
    pub fn start_web() -> Relay {
        let tmp = tempfile::tempdir().expect("tempdir");
        let data_dir = tmp.path().join("data");
        let mut relay = Relay::start_bound(&data_dir, "0.0.0.0", &["--web", "--web-port", "0"]);
        assert!(relay.web.is_some(), "gateway started: {}", relay.stderr());
        relay._tmp = Some(tmp);
        relay
    }

    /// Starts a server on an existing (or new) data directory with extra arguments.
    pub fn start_in(data_dir: &Path, extra: &[&str]) -> Relay {
        Relay::start_bound(data_dir, "127.0.0.1", extra)
    }

    /// Starts a server bound to `bind` (the tests connect to 127.0.0.1 only).
    pub fn start_bound(data_dir: &Path, bind: &str, extra: &[&str]) -> Relay {
        Relay::start_env(data_dir, bind, extra, &[])
    }

    /// Starts a server with extra environment variables (debug-only test switches).
    pub fn start_env(data_dir: &Path, bind: &str, extra: &[&str], envs: &[(&str, &str)]) -> Relay {
        let stderr_log = data_dir.with_extension(format!("stderr-{}.log", rand_suffix()));
        let stderr = std::fs::File::create(&stderr_log).expect("stderr log");
        let mut child = Command::new(relay_bin())
            .args(["serve", "--data-dir"])
            .arg(data_dir)
            .args(["--port", "0", "--bind", bind, "--log-level", "info"])
            .args(extra)
            .env("RELAY_BOOTSTRAP_PASSPHRASE", PASSPHRASE)
            // Every outside service points at a closed loopback port unless the test serves it
            // (a black-box test never reaches the real status pages).
            .envs(infra::status_feeds::testdata::override_env(CLOSED_UPSTREAM))
            .env("RELAY_TEST_UPSTREAM_DYNATRACE", CLOSED_UPSTREAM)
            .envs(envs.iter().copied())
            .env_remove("RELAY_LOG")
            .stdout(Stdio::piped())
            .stderr(stderr)
            .spawn()
            .expect("spawn relay");
        let stdout = child.stdout.take().expect("stdout");
        let stdout_log = data_dir.with_extension(format!("stdout-{}.log", rand_suffix()));
        let mut stdout_copy = std::fs::File::create(&stdout_log).expect("stdout log");
        let (tx, rx) = mpsc::channel();
        let (web_tx, web_rx) = mpsc::channel();
        let stdout_reader = std::thread::spawn(move || {
            use std::io::Write;
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                let _ = writeln!(stdout_copy, "{line}");
                if let Some(url) = line.strip_prefix("Relay listening on ") {
                    let _ = tx.send(url.trim().to_string());
                } else if let Some(url) = line.strip_prefix("Relay Web listening on ") {
                    let _ = web_tx.send(url.trim().to_string());
                }
            }
        });
        let base = match rx.recv_timeout(Duration::from_secs(20)) {
            Ok(base) => base,
            Err(_) => {
                let _ = child.kill();
                panic!("relay did not start: {}", std::fs::read_to_string(&stderr_log).unwrap_or_default());
            }
        };
        let web = web_rx.try_recv().ok();
        Relay {
            child: Some(child),
            base,
            web,
            data_dir: data_dir.to_path_buf(),
            stderr_log,
            stdout_log,
            stdout_reader: Some(stdout_reader),
            _tmp: None,
        }
    }

    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }

    pub fn stderr(&self) -> String {
        std::fs::read_to_string(&self.stderr_log).unwrap_or_default()
    }

    /// Everything the server wrote to stdout and stderr so far (all of it once `stop()` returned).
    pub fn output(&self) -> String {
        let stdout = std::fs::read_to_string(&self.stdout_log).unwrap_or_default();
        format!("{stdout}{}", self.stderr())
    }

    /// The server's process id, while it runs.
    pub fn pid(&self) -> Option<u32> {
        self.child.as_ref().map(Child::id)
    }

    /// The server's peak resident memory so far (`VmHWM` in `/proc/<pid>/status`), in KiB.
    pub fn peak_rss_kib(&self) -> u64 {
        let pid = self.pid().expect("the server runs");
        let status = std::fs::read_to_string(format!("/proc/{pid}/status")).expect("the server's /proc status");
        let field = status.lines().find_map(|line| line.strip_prefix("VmHWM:")).expect("VmHWM in /proc status");
        field.split_whitespace().next().and_then(|kib| kib.parse().ok()).expect("VmHWM in KiB")
    }

    /// Stops the server with SIGTERM-like kill and waits for it to exit (and for its stdout to
    /// be copied).
    pub fn stop(&mut self) {
        if let Some(mut child) = self.child.take() {
            #[cfg(unix)]
            send_sigterm(&child);
            let exited = (0..100).any(|_| {
                let done = child.try_wait().ok().flatten().is_some();
                if !done {
                    std::thread::sleep(Duration::from_millis(50));
                }
                done
            });
            if !exited {
                let _ = child.kill();
                let _ = child.wait();
            }
        }
        if let Some(reader) = self.stdout_reader.take() {
            let _ = reader.join();
        }
    }

    /// Waits (bounded) for the server to exit on its own; returns how it ended.
    pub fn wait_exit(&mut self, timeout: Duration) -> Option<std::process::ExitStatus> {
        let child = self.child.as_mut()?;
        let deadline = std::time::Instant::now() + timeout;
        while std::time::Instant::now() < deadline {
            if let Some(status) = child.try_wait().ok().flatten() {
                self.child = None;
                return Some(status);
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        None
    }

    /// Kills the server with SIGKILL (no shutdown path runs) and waits for it to exit.
    pub fn kill_hard(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    pub async fn token(&self) -> String {
        let res = client()
            .post(self.url("/api/collections/users/auth-with-password"))
            .json(&json!({"identity": "relay", "password": PASSPHRASE}))
            .send()
            .await
            .expect("login request");
        assert_eq!(res.status(), 200);
        let body: Value = res.json().await.unwrap();
        body["token"].as_str().unwrap().to_string()
    }
}

#[cfg(unix)]
fn send_sigterm(child: &Child) {
    let _ = Command::new("kill").args(["-TERM", &child.id().to_string()]).status();
}

fn rand_suffix() -> u64 {
    use std::time::{SystemTime, UNIX_EPOCH};
    SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_nanos() as u64).unwrap_or(0) ^ std::process::id() as u64
}

impl Drop for Relay {
    fn drop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// The store file of a data directory (wherever its layout keeps it).
pub fn db_path(data_dir: &Path) -> PathBuf {
    infra::datadir::DataDir::open(data_dir).expect("data directory").db_path()
}

/// Runs `relay admin --data-dir D <args>` feeding `stdin`; returns (success, stdout+stderr).
pub fn admin_cli(data_dir: &Path, args: &[&str], stdin: &str) -> (bool, String) {
    relay_cli("admin", data_dir, args, stdin)
}

/// Runs `relay <command> --data-dir D <args>` feeding `stdin`; returns (success, stdout+stderr).
pub fn relay_cli(command: &str, data_dir: &Path, args: &[&str], stdin: &str) -> (bool, String) {
    use std::io::Write;
    let mut child = Command::new(relay_bin())
        .arg(command)
        .arg("--data-dir")
        .arg(data_dir)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn relay");
    child.stdin.take().expect("stdin").write_all(stdin.as_bytes()).expect("write stdin");
    let out = child.wait_with_output().expect("relay output");
    (out.status.success(), format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr)))
}

impl Relay {
    /// Creates a record through the data API and returns it (panics on failure).
    pub async fn create(&self, token: &str, collection: &str, body: &Value) -> Value {
        let res = client()
            .post(self.url(&format!("/api/collections/{collection}/records")))
            .header("Authorization", token)
            .json(body)
            .send()
            .await
            .expect("create request");
        assert_eq!(res.status(), 200, "create {collection}");
        res.json().await.expect("record json")
    }

    /// GETs a data-API path with the token and returns its JSON body.
    pub async fn get_json(&self, token: &str, path: &str) -> Value {
        let res = client().get(self.url(path)).header("Authorization", token).send().await.expect("get request");
        res.json().await.expect("json body")
    }
}

pub fn client() -> reqwest::Client {
    reqwest::Client::builder().timeout(Duration::from_secs(10)).build().unwrap()
}

/// A client whose connections come from `127.0.0.<host>` (every loopback address reaches a
/// server bound to 127.0.0.1 or 0.0.0.0), so tests can play many sources on this machine.
pub fn client_from(host: u8) -> reqwest::Client {
    let source = std::net::IpAddr::from([127, 0, 0, host]);
    reqwest::Client::builder().timeout(Duration::from_secs(10)).local_address(source).build().unwrap()
}

/// A valid create body for every managed collection.
pub fn sample(collection: &str) -> Value {
    match collection {
        "contacts" => {
            json!({"name": "Ada Lovelace", "email": "ada@example.com", "phone": "555-1234", "title": "NOC"})
        }
        "servers" => {
            json!({"name": "db-01", "businessArea": "Core", "lob": "IT", "owner": "ada@example.com", "os": "Linux"})
        }
        "oncall" => {
            json!({"team": "Network", "role": "Primary", "name": "Ada", "contact": "555-1234", "timeWindow": "24/7", "sortOrder": 0, "teamId": "network"})
        }
        "bridge_groups" => json!({"name": "DBAs", "contacts": ["ada@example.com"]}),
        "bridge_history" => {
            json!({"note": "outage", "groups": ["DBAs"], "contacts": ["ada@example.com"], "recipientCount": 1})
        }
        "alert_history" => {
            json!({"severity": "ISSUE", "subject": "VPN down", "bodyHtml": "<p>x</p>", "pinned": true, "label": "VPN"})
        }
        "alert_reminders" => {
            json!({"title": "Send update", "dueAt": "2026-12-02T15:00:00Z", "status": "pending", "severity": "INFO"})
        }
        "notes" => {
            json!({"entityType": "contact", "entityKey": "ada@example.com", "note": "on leave", "tags": ["hr"]})
        }
        "standalone_notes" => {
            json!({"title": "Runbook", "content": "- step", "color": "blue", "tags": ["ops"], "sortOrder": 1})
        }
        "oncall_dismissals" => json!({"alertType": "monday-weekly", "dateKey": "2026-12-02"}),
        "conflict_log" => {
            json!({"collection": "contacts", "recordId": "abc", "overwrittenData": {"name": "old"}, "overwrittenBy": "client"})
        }
        "oncall_board_settings" => {
            json!({"key": "primary", "teamOrder": ["network"], "locked": false})
        }
        "client_presence" => {
            json!({"sessionId": "sess-1", "hostname": "noc-1", "mode": "client", "lastSeen": "2026-12-02T12:00:00Z"})
        }
        "cloud_status" => json!({"provider": "aws", "items": [], "error": "forged"}),
        "cloud_status_notices" => {
            json!({"episode": "aws:forged", "provider": "aws", "itemId": "forged", "severity": "error", "title": "Fake outage"})
        }
        "dynatrace_problems" => {
            json!({"problemId": "forged-1", "title": "Forged", "status": "OPEN", "severity": "ERROR", "impactLevel": "SERVICES", "startTime": "2026-12-02T12:00:00Z"})
        }
        "dynatrace_problem_sync" => json!({"key": "problems", "state": "ok"}),
        "wiki_categories" => json!({"name": "Forged", "normalizedName": "forged", "sortOrder": 1}),
        "wiki_documents" => json!({"sourceKey": "forged", "categoryId": "wikiuncategoriz", "documentType": "sop",
            "title": "Forged runbook", "fileName": "forged.pdf", "checksum": "ab".repeat(32), "byteSize": 10,
            "pageCount": 1, "lifecycleState": "active"}),
        "dynatrace_problem_states" => {
            json!({"problemId": "-123_456V2", "addressed": true, "addressedAt": "2026-12-02T12:00:00Z", "addressedBy": "noc-1"})
        }
        "dynatrace_problem_notes" => {
            json!({"problemId": "-123_456V2", "note": "Called the DB team", "author": "noc-1"})
        }
        "oncall_history" => {
            json!({"recordId": "forged000000000", "action": "create", "team": "Network", "stateAfter": {"name": "Mallory"}})
        }
        other => panic!("no sample for {other}"),
    }
}

/// A valid update body and the field it changes, for every managed collection.
pub fn sample_update(collection: &str) -> (Value, &'static str) {
    match collection {
        "contacts" => (json!({"title": "Lead"}), "title"),
        "servers" => (json!({"os": "Windows"}), "os"),
        "oncall" => (json!({"role": "Backup"}), "role"),
        "bridge_groups" => (json!({"name": "DBA team"}), "name"),
        "bridge_history" => (json!({"recipientCount": 2}), "recipientCount"),
        "alert_history" => (json!({"pinned": false}), "pinned"),
        "alert_reminders" => (json!({"status": "done"}), "status"),
        "notes" => (json!({"note": "back"}), "note"),
        "standalone_notes" => (json!({"color": "red"}), "color"),
        "oncall_dismissals" => (json!({"dateKey": "2026-12-03"}), "dateKey"),
        "conflict_log" => (json!({"overwrittenBy": "server"}), "overwrittenBy"),
        "oncall_board_settings" => (json!({"locked": true}), "locked"),
        "dynatrace_problem_states" => (json!({"addressed": false}), "addressed"),
        other => panic!("no update for {other}"),
    }
}

/// An invalid create body for every managed collection.
pub fn invalid(collection: &str) -> Value {
    match collection {
        "contacts" => json!({"email": "not-an-email"}),
        "servers" => json!({"name": ""}),
        "oncall" => json!({"team": "x", "sortOrder": "abc"}),
        "bridge_groups" => json!({"name": "g", "contacts": "ada@example.com"}),
        "bridge_history" => json!({"recipientCount": -1}),
        "alert_history" => json!({"severity": "CRITICAL"}),
        "alert_reminders" => json!({"title": "t", "dueAt": "soon", "status": "pending"}),
        "notes" => json!({"entityType": "router", "entityKey": "x"}),
        "standalone_notes" => json!({"title": "x".repeat(201)}),
        "oncall_dismissals" => json!({"alertType": "", "dateKey": "2026-12-02"}),
        "conflict_log" => json!({"collection": "c", "recordId": "r", "overwrittenData": [1, 2]}),
        "oncall_board_settings" => json!({"key": "primary", "locked": "maybe"}),
        other => panic!("no invalid sample for {other}"),
    }
}

/// The collections clients may write through the record API.
pub const COLLECTIONS: &[&str] = &[
    "contacts",
    "servers",
    "oncall",
    "bridge_groups",
    "bridge_history",
    "alert_history",
    "alert_reminders",
    "notes",
    "standalone_notes",
    "oncall_dismissals",
    "oncall_board_settings",
];

/// Collections clients may read but only the server writes (record-API writes answer 403).
pub const SERVER_OWNED: &[&str] = &[
    "conflict_log",
    "client_presence",
    "cloud_status",
    "cloud_status_notices",
    "dynatrace_problems",
    "dynatrace_problem_sync",
    "wiki_categories",
    "wiki_documents",
    "oncall_history",
];

/// Collections clients write only partly: the Dynatrace addressed state (create and update,
/// never delete) and the append-only problem notes (create only).
pub const PARTLY_WRITABLE: &[&str] = &["dynatrace_problem_states", "dynatrace_problem_notes"];

/// A signed-in Relay Web browser session: the cookie pair, the CSRF token and the app token the
/// gateway hands to the renderer.
pub struct WebSession {
    pub cookie: String,
    pub csrf: String,
    pub token: String,
}

/// Signs in to the Relay Web gateway at `base` (sent with `Origin: base`) and asks for the
/// renderer's app-user connection.
pub async fn web_session(base: &str) -> WebSession {
    let res = client()
        .post(format!("{base}/web/api/session"))
        .header("Origin", base)
        .json(&json!({"passphrase": PASSPHRASE}))
        .send()
        .await
        .expect("web sign-in");
    assert_eq!(res.status(), 200, "web sign-in");
    let cookie = res.headers()["set-cookie"].to_str().unwrap().split(';').next().unwrap().to_string();
    let csrf = res.json::<Value>().await.unwrap()["csrfToken"].as_str().unwrap().to_string();
    let conn: Value = client()
        .post(format!("{base}/web/api/connection"))
        .header("Origin", base)
        .header("Cookie", &cookie)
        .header("X-Relay-CSRF", &csrf)
        .send()
        .await
        .expect("web connection")
        .json()
        .await
        .unwrap();
    let token = conn["token"].as_str().expect("app token").to_string();
    WebSession { cookie, csrf, token }
}

/// A device paired through `POST /api/relay/privileged/pair`: its signing key and the ids and
/// role the server answered with.
pub struct Device {
    pub secret: [u8; 32],
    pub jwk: domain::envelope::PublicJwk,
    pub account_id: String,
    pub device_id: String,
    pub role: String,
}

/// Asks `relay admin pair-device --as actor --for target` (actor's password on stdin) for a
/// pairing code and returns it as printed (`ABCD-EFGH`).
pub fn pairing_code(relay: &Relay, actor: &str, actor_pw: &str, target: &str) -> String {
    let (ok, out) =
        admin_cli(&relay.data_dir, &["pair-device", "--as", actor, "--for", target], &format!("{actor_pw}\n"));
    assert!(ok, "relay admin pair-device failed: {out}");
    out.split_whitespace().find(|w| w.len() == 9 && w.as_bytes()[4] == b'-').expect("code in output").to_string()
}

/// Submits a pairing code for `username` with a key derived from `seed`; the error is the
/// status and body of a refusal.
pub async fn pair(relay: &Relay, token: &str, username: &str, code: &str, seed: u8) -> Result<Device, (u16, Value)> {
    let mut secret = [seed; 32];
    secret[0] = 1;
    let jwk = domain::envelope::public_jwk_from_secret(&secret).unwrap();
    let res = client()
        .post(relay.url("/api/relay/privileged/pair"))
        .header("Authorization", token)
        .json(&json!({"username": username, "code": code, "publicJwk": jwk, "label": "test laptop", "hostname": "laptop-1"}))
        .send()
        .await
        .unwrap();
    let status = res.status().as_u16();
    let body: Value = res.json().await.unwrap();
    if status != 200 {
        return Err((status, body));
    }
    Ok(Device {
        secret,
        jwk,
        account_id: body["accountId"].as_str().unwrap().into(),
        device_id: body["deviceId"].as_str().unwrap().into(),
        role: body["role"].as_str().unwrap().into(),
    })
}

/// `POST /api/relay/privileged/reauth` for a paired device; returns the status and JSON body
/// (`proof` on success).
pub async fn reauth(relay: &Relay, token: &str, d: &Device, password: &str) -> (u16, Value) {
    let res = client()
        .post(relay.url("/api/relay/privileged/reauth"))
        .header("Authorization", token)
        .json(&json!({"accountId": d.account_id, "deviceId": d.device_id, "password": password}))
        .send()
        .await
        .unwrap();
    let status = res.status().as_u16();
    (status, res.json().await.unwrap_or(Value::Null))
}

/// Re-runs the `#[ignore]`d test `inner_test` of the current test binary inside a new network
/// namespace (`unshare -n`, needs root or CAP_SYS_ADMIN, util-linux and iproute2) whose only
/// interface is `lo`, brought up and given `lo_address` (a /32) so the server has a non-loopback
/// address to use while nothing is sent on a real interface. The child sees `marker=1` (check it
/// with `assert_in_test_netns`). Panics, with the child's output, unless the inner test passed
/// within `deadline`.
pub fn run_in_netns(marker: &str, lo_address: &str, inner_test: &str, deadline: Duration) {
    let exe = std::env::current_exe().unwrap();
    let script = format!("ip link set lo up && ip addr add {lo_address}/32 dev lo && exec \"$@\"");
    let mut child = Command::new("unshare")
        .args(["-n", "--", "bash", "-c", &script, "bash"])
        .arg(&exe)
        .args([inner_test, "--exact", "--ignored", "--nocapture", "--test-threads=1"])
        .env(marker, "1")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run unshare -n (needs root or CAP_SYS_ADMIN, util-linux and iproute2)");
    let started = std::time::Instant::now();
    while child.try_wait().unwrap().is_none() {
        if started.elapsed() > deadline {
            let _ = child.kill();
            break;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    let out = child.wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let report = format!("stdout:\n{stdout}\nstderr:\n{}", String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "namespaced test {inner_test} failed ({:?}):\n{report}", out.status);
    assert!(stdout.contains("1 passed"), "the inner test {inner_test} did not run:\n{report}");
}

/// Refuses to go on unless this process runs inside `run_in_netns`'s namespace: the marker is
/// set and `lo` is the only interface.
pub fn assert_in_test_netns(marker: &str) {
    assert_eq!(std::env::var(marker).as_deref(), Ok("1"), "refusing to run outside the test namespace");
    let dev = std::fs::read_to_string("/proc/self/net/dev").unwrap();
    let interfaces: Vec<&str> = dev.lines().skip(2).filter_map(|l| l.split(':').next()).map(str::trim).collect();
    assert_eq!(interfaces, ["lo"], "refusing: this namespace has interfaces other than lo");
}

/// Runs one command signed by `d`'s key with a fresh request id (and the expected revision,
/// when the command needs one); returns the status and body.
pub async fn signed_command(
    relay: &Relay,
    token: &str,
    d: &Device,
    name: &str,
    payload: Value,
    revision: Option<i64>,
) -> (u16, Value) {
    let env = signed_envelope(d, name, payload, revision);
    let res = client()
        .post(relay.url("/api/relay/privileged/execute"))
        .header("Authorization", token)
        .json(&env)
        .send()
        .await
        .unwrap();
    let status = res.status().as_u16();
    (status, res.json().await.unwrap_or(Value::Null))
}

/// An envelope for `name` signed by `d`'s key, with a fresh request id and a 60 s lifetime.
pub fn signed_envelope(d: &Device, name: &str, payload: Value, revision: Option<i64>) -> Envelope {
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_millis() as i64;
    let mut env = Envelope {
        version: 1,
        command: name.into(),
        payload_hash: payload_hash(&payload).unwrap(),
        payload,
        request_id: format!("request-{}-{:08}", now, next_request_number()),
        account_id: d.account_id.clone(),
        device_id: d.device_id.clone(),
        role_claim: d.role.clone(),
        expected_revision: revision,
        issued_at: now,
        expires_at: now + 60_000,
        signature: String::new(),
    };
    sign_envelope(&mut env, &d.secret).unwrap();
    env
}

fn next_request_number() -> u32 {
    use std::sync::atomic::{AtomicU32, Ordering};
    static NEXT: AtomicU32 = AtomicU32::new(1);
    NEXT.fetch_add(1, Ordering::SeqCst)
}
