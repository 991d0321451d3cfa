//! Helpers shared by the benches and the soak (`#[path]`-included, so each binary uses what it
//! needs): spawning the real `relay` binary on a fresh temporary data directory and reading its
//! listening URLs from stdout, server RSS from /proc, percentiles, and a Relay Web sign-in
//! (session cookie + CSRF token, then the app token from `/web/api/connection`).
#![allow(dead_code)]

use std::process::{Child, Command, Stdio};
use std::time::Duration;

use serde_json::{json, Value};

pub const PASSPHRASE: &str = "bench-passphrase-123";

/// The binary under test: this build's `relay`, or `RELAY_BENCH_BIN` to measure another build
/// (an older commit) with the same bench.
pub fn relay_bin() -> String {
    std::env::var("RELAY_BENCH_BIN").unwrap_or_else(|_| env!("CARGO_BIN_EXE_relay").to_string())
}

/// A running `relay serve` on a temporary data directory; killed on drop.
pub struct Server {
    pub child: Child,
    /// The record (data) API, `http://127.0.0.1:port`.
    pub base: String,
    /// The Relay Web gateway as browsers name it (`http://localhost:port`), when started.
    pub web: Option<String>,
    _tmp: Option<tempfile::TempDir>,
}

impl Server {
    /// Spawns `relay serve --port 0 <args>` with the bench passphrase and waits (20 s at most)
    /// for its "listening" lines. stdout is drained for the server's whole life.
    pub fn spawn(args: &[&str]) -> Server {
        let tmp = tempfile::tempdir().unwrap();
        let mut server = Server::spawn_in(&tmp.path().join("data"), args);
        server._tmp = Some(tmp);
        server
    }

    /// The same on an existing (or new) data directory the caller owns. With
    /// `RELAY_BENCH_SERVER_LOG=path` the server's log (warnings, and the backup phase timings at
    /// info level) goes to that file; otherwise it is dropped.
    pub fn spawn_in(data_dir: &std::path::Path, args: &[&str]) -> Server {
        let mut command = Command::new(relay_bin());
        command
            .args(["serve", "--data-dir"])
            .arg(data_dir)
            .args(["--port", "0", "--log-level", "warn"])
            .args(args)
            .env("RELAY_BOOTSTRAP_PASSPHRASE", PASSPHRASE)
            .env_remove("RELAY_LOG")
            .stdout(Stdio::piped())
            .stderr(Stdio::null());
        if let Some(log) = std::env::var_os("RELAY_BENCH_SERVER_LOG") {
            command.env("RELAY_LOG", "warn,infra::backup=info").stderr(std::fs::File::create(log).unwrap());
        }
        let mut child = command.spawn().expect("spawn relay");
        let stdout = child.stdout.take().unwrap();
        let (tx, rx) = std::sync::mpsc::channel();
        let wants_web = args.contains(&"--web");
        std::thread::spawn(move || {
            use std::io::BufRead;
            let (mut base, mut web) = (None, None);
            for line in std::io::BufReader::new(stdout).lines().map_while(Result::ok) {
                if let Some(url) = line.strip_prefix("Relay Web listening on ") {
                    web = Some(url.trim().replace("127.0.0.1", "localhost"));
                } else if let Some(url) = line.strip_prefix("Relay listening on ") {
                    base = Some(url.trim().to_string());
                }
                if base.is_some() && (web.is_some() || !wants_web) {
                    let _ = tx.send((base.take().unwrap(), web.take()));
                }
            }
        });
        let (base, web) = rx.recv_timeout(Duration::from_secs(20)).expect("relay started");
        Server { child, base, web, _tmp: None }
    }

    pub fn pid(&self) -> u32 {
        self.child.id()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A `/proc/<pid>/status` field in KiB (`VmRSS`, `VmHWM`, ...).
pub fn status_kib(pid: u32, field: &str) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.strip_prefix(field).is_some_and(|r| r.starts_with(':')))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

pub fn rss_kib(pid: u32) -> Option<u64> {
    status_kib(pid, "VmRSS")
}

pub fn mib(kib: Option<u64>) -> String {
    kib.map(|k| format!("{:.1} MiB", k as f64 / 1024.0)).unwrap_or_else(|| "n/a".into())
}

/// The `p` quantile (0..=1) of sorted latencies, in milliseconds (0 when empty).
pub fn pct(sorted: &[Duration], p: f64) -> f64 {
    sorted.get(((sorted.len().max(1) - 1) as f64 * p).round() as usize).map(|d| d.as_secs_f64() * 1e3).unwrap_or(0.0)
}

/// The CPU model line of /proc/cpuinfo.
pub fn cpu_model() -> String {
    std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("model name"))
                .map(|l| l.split(':').nth(1).unwrap_or("").trim().to_string())
        })
        .unwrap_or_else(|| "unknown".into())
}

/// Signs in on the data API (`auth-with-password` as `relay`) and returns the app token.
pub async fn api_token(http: &reqwest::Client, base: &str) -> String {
    let res = http
        .post(format!("{base}/api/collections/users/auth-with-password"))
        .json(&json!({"identity": "relay", "password": PASSPHRASE}))
        .send()
        .await
        .expect("sign-in request");
    let body: Value = res.json().await.expect("sign-in answer");
    body["token"].as_str().expect("app token").to_string()
}

/// A signed-in Relay Web session: cookie pair, CSRF token and the renderer's app token.
#[derive(Clone)]
pub struct WebSession {
    pub cookie: String,
    pub csrf: String,
    pub token: String,
}

/// Signs in to the gateway at `web` (with `Origin: web`) and fetches the app connection. The
/// error is the HTTP status that refused it (0 for a transport error or a malformed answer).
pub async fn web_sign_in(http: &reqwest::Client, web: &str, passphrase: &str) -> Result<WebSession, u16> {
    let res = http
        .post(format!("{web}/web/api/session"))
        .header("Origin", web)
        .json(&json!({"passphrase": passphrase}))
        .send()
        .await
        .map_err(|_| 0u16)?;
    if res.status() != 200 {
        return Err(res.status().as_u16());
    }
    let cookie = res.headers().get("set-cookie").and_then(|c| c.to_str().ok()).and_then(|c| c.split(';').next());
    let cookie = cookie.ok_or(0u16)?.to_string();
    let csrf = res.json::<Value>().await.map_err(|_| 0u16)?["csrfToken"].as_str().ok_or(0u16)?.to_string();
    let res = http
        .post(format!("{web}/web/api/connection"))
        .header("Origin", web)
        .header("Cookie", &cookie)
        .header("X-Relay-CSRF", &csrf)
        .send()
        .await
        .map_err(|_| 0u16)?;
    if res.status() != 200 {
        return Err(res.status().as_u16());
    }
    let token = res.json::<Value>().await.map_err(|_| 0u16)?["token"].as_str().ok_or(0u16)?.to_string();
    Ok(WebSession { cookie, csrf, token })
}
