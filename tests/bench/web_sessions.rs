//! Relay Web load benchmark: 1,000 web sessions signed in and held concurrently on the real
//! gateway (bench profile), then reads spread across all of them. Reports sign-in and read
//! throughput, p50/p99 and server RSS with 1,000 live sessions. In-flight HTTP requests are
//! capped (64) so the client does not exhaust file descriptors; loops are bounded by count.
//! Run with `cargo bench -p relay --bench web_sessions`; `RELAY_BENCH_REPORT=path` writes it.

use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use tokio::sync::Semaphore;

const SESSIONS: usize = 1000;
const READS_PER_SESSION: usize = 5;
const IN_FLIGHT: usize = 64;
const PASSPHRASE: &str = "bench-passphrase-123";

struct Session {
    cookie: String,
    csrf: String,
    token: String,
}

fn rss_kib(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    status.lines().find(|l| l.starts_with("VmRSS:"))?.split_whitespace().nth(1)?.parse().ok()
}

fn pct(sorted: &[Duration], p: f64) -> f64 {
    sorted.get(((sorted.len().max(1) - 1) as f64 * p).round() as usize).map(|d| d.as_secs_f64() * 1e3).unwrap_or(0.0)
}

async fn sign_in(http: &reqwest::Client, base: &str) -> Option<Session> {
    let res = http
        .post(format!("{base}/web/api/session"))
        .header("Origin", base)
        .json(&json!({"passphrase": PASSPHRASE}))
        .send()
        .await
        .ok()?;
    let cookie = res.headers().get("set-cookie")?.to_str().ok()?.split(';').next()?.to_string();
    let csrf = res.json::<Value>().await.ok()?["csrfToken"].as_str()?.to_string();
    let conn: Value = http
        .post(format!("{base}/web/api/connection"))
        .header("Origin", base)
        .header("Cookie", &cookie)
        .header("X-Relay-CSRF", &csrf)
        .send()
        .await
        .ok()?
        .json()
        .await
        .ok()?;
    Some(Session { cookie, csrf, token: conn["token"].as_str()?.to_string() })
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let tmp = tempfile::tempdir().unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_relay"))
        .args(["serve", "--data-dir"])
        .arg(tmp.path().join("data"))
        .args(["--bind", "0.0.0.0", "--port", "0", "--web", "--web-port", "0", "--log-level", "warn"])
        .env("RELAY_BOOTSTRAP_PASSPHRASE", PASSPHRASE)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    // Keep draining stdout for the server's whole life (a closed pipe would end it).
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        use std::io::BufRead;
        for line in std::io::BufReader::new(stdout).lines().map_while(Result::ok) {
            if let Some(url) = line.strip_prefix("Relay Web listening on ") {
                let _ = tx.send(url.trim().replace("127.0.0.1", "localhost"));
            }
        }
    });
    let web = rx.recv_timeout(Duration::from_secs(20)).expect("gateway started");
    let http =
        reqwest::Client::builder().timeout(Duration::from_secs(20)).pool_max_idle_per_host(IN_FLIGHT).build().unwrap();
    let gate = Arc::new(Semaphore::new(IN_FLIGHT));

    let started = Instant::now();
    let mut tasks = Vec::new();
    for _ in 0..SESSIONS {
        let (http, web, gate) = (http.clone(), web.clone(), gate.clone());
        tasks.push(tokio::spawn(async move {
            let _permit = gate.acquire().await.unwrap();
            let t = Instant::now();
            (sign_in(&http, &web).await, t.elapsed())
        }));
    }
    let (mut sessions, mut sign_in_lat, mut sign_in_errors) = (Vec::new(), Vec::new(), 0);
    for t in tasks {
        let (s, lat) = t.await.unwrap();
        sign_in_lat.push(lat);
        match s {
            Some(s) => sessions.push(Arc::new(s)),
            None => sign_in_errors += 1,
        }
    }
    let sign_in_elapsed = started.elapsed();
    sign_in_lat.sort();
    let rss_sessions = rss_kib(child.id());

    let started = Instant::now();
    let mut tasks = Vec::new();
    for round in 0..READS_PER_SESSION {
        for s in &sessions {
            let (http, web, gate, s) = (http.clone(), web.clone(), gate.clone(), s.clone());
            tasks.push(tokio::spawn(async move {
                let _permit = gate.acquire().await.unwrap();
                let t = Instant::now();
                let res = http
                    .get(format!("{web}/api/collections/contacts/records"))
                    .query(&[("perPage", "30"), ("page", &(round + 1).to_string())])
                    .header("Cookie", &s.cookie)
                    .header("Authorization", &s.token)
                    .send()
                    .await;
                let _ = &s.csrf;
                (matches!(res, Ok(r) if r.status() == 200), t.elapsed())
            }));
        }
    }
    let (mut read_lat, mut read_errors) = (Vec::new(), 0);
    for t in tasks {
        let (ok, lat) = t.await.unwrap();
        read_lat.push(lat);
        if !ok {
            read_errors += 1;
        }
    }
    let read_elapsed = started.elapsed();
    read_lat.sort();
    let rss_after = rss_kib(child.id());
    let _ = child.kill();
    let _ = child.wait();

    let mib = |k: Option<u64>| k.map(|k| format!("{:.1} MiB", k as f64 / 1024.0)).unwrap_or_else(|| "n/a".into());
    let report = format!(
        "## Relay Web: {SESSIONS} concurrent sessions\n\n\
         At most {IN_FLIGHT} HTTP requests in flight; every session stays live for the whole run.\n\n\
         | phase | requests | errors | req/s | p50 ms | p99 ms |\n| --- | --- | --- | --- | --- | --- |\n\
         | sign-in + app connection | {} | {sign_in_errors} | {:.0} | {:.2} | {:.2} |\n\
         | read (list 30) across all sessions | {} | {read_errors} | {:.0} | {:.2} | {:.2} |\n\n\
         | measure | value |\n| --- | --- |\n| server RSS with {SESSIONS} live sessions | {} |\n| server RSS after the reads | {} |\n",
        SESSIONS,
        SESSIONS as f64 / sign_in_elapsed.as_secs_f64(),
        pct(&sign_in_lat, 0.5),
        pct(&sign_in_lat, 0.99),
        read_lat.len(),
        read_lat.len() as f64 / read_elapsed.as_secs_f64(),
        pct(&read_lat, 0.5),
        pct(&read_lat, 0.99),
        mib(rss_sessions),
        mib(rss_after),
    );
    println!("{report}");
    if let Ok(path) = std::env::var("RELAY_BENCH_REPORT") {
        std::fs::write(path, &report).unwrap();
    }
}
