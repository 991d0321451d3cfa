//! Benchmark of signed privileged commands: in-process ECDSA P-256 envelope verification per
//! second, and end-to-end signed `privileged.probe` requests against the real `relay` binary
//! (bench profile) with 16 concurrent clients (throughput, p50, p99). Run with
//! `cargo bench -p relay --bench privileged`; `RELAY_BENCH_REPORT=path` writes the Markdown.
//! Loops are bounded by count; the run by a deadline.

use std::io::Write;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use serde_json::{json, Value};
use support::bench::{self as common, PASSPHRASE};

use domain::envelope::{
    parse_envelope, payload_hash, public_jwk_from_secret, sign_envelope, verify_signature, Envelope,
};

const CLIENTS: usize = 16;
const REQUESTS_PER_CLIENT: usize = 100;
const VERIFY_ITERATIONS: usize = 3000;
const OWNER_PW: &str = "bench-owner-password";

fn now_ms() -> i64 {
    SystemTime::now().duration_since(UNIX_EPOCH).unwrap().as_millis() as i64
}

fn admin(data: &std::path::Path, args: &[&str], stdin: &str) -> String {
    let mut child = Command::new(env!("CARGO_BIN_EXE_relay"))
        .arg("admin")
        .arg("--data-dir")
        .arg(data)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(stdin.as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "relay admin {args:?}");
    String::from_utf8(out.stdout).unwrap()
}

fn envelope(secret: &[u8; 32], account: &str, device: &str, i: usize) -> Envelope {
    let now = now_ms();
    let payload = json!({});
    let mut env = Envelope {
        version: 1,
        command: "privileged.probe".into(),
        payload_hash: payload_hash(&payload).unwrap(),
        payload,
        request_id: format!("bench-request-{i:010}"),
        account_id: account.into(),
        device_id: device.into(),
        role_claim: "owner".into(),
        expected_revision: None,
        issued_at: now,
        expires_at: now + 60_000,
        signature: String::new(),
    };
    sign_envelope(&mut env, secret).unwrap();
    env
}

fn percentile(sorted: &[Duration], p: f64) -> f64 {
    sorted.get(((sorted.len().max(1) - 1) as f64 * p).round() as usize).map(|d| d.as_secs_f64() * 1e3).unwrap_or(0.0)
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let mut secret = [7u8; 32];
    secret[0] = 1;
    let jwk = public_jwk_from_secret(&secret).unwrap();

    let sample = envelope(&secret, "aaaaaaaaaaaaaaa", "bbbbbbbbbbbbbbb", 0);
    let raw = serde_json::to_vec(&sample).unwrap();
    let started = Instant::now();
    for _ in 0..VERIFY_ITERATIONS {
        let env = parse_envelope(&raw, now_ms()).unwrap();
        verify_signature(&env, &jwk).unwrap();
    }
    let verify_per_sec = VERIFY_ITERATIONS as f64 / started.elapsed().as_secs_f64();

    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let mut server = Command::new(env!("CARGO_BIN_EXE_relay"))
        .args(["serve", "--data-dir"])
        .arg(&data)
        .args(["--bind", "127.0.0.1", "--port", &port.to_string(), "--log-level", "warn"])
        .env("RELAY_BOOTSTRAP_PASSPHRASE", PASSPHRASE)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let base = format!("http://127.0.0.1:{port}");
    let http = reqwest::Client::builder().timeout(Duration::from_secs(10)).build().unwrap();
    let deadline = Instant::now() + Duration::from_secs(20);
    while http.get(format!("{base}/api/health")).send().await.map(|r| r.status() != 200).unwrap_or(true) {
        assert!(Instant::now() < deadline, "server did not start");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    admin(&data, &["set-password", "--username", "ryan"], &format!("{OWNER_PW}\n"));
    admin(&data, &["activate", "--username", "ryan"], "");
    let out = admin(&data, &["pair-device", "--as", "ryan", "--for", "ryan"], &format!("{OWNER_PW}\n"));
    let code = out.split_whitespace().find(|w| w.len() == 9 && w.as_bytes()[4] == b'-').unwrap().to_string();
    let token = common::api_token(&http, &base).await;
    let paired: Value = http
        .post(format!("{base}/api/relay/privileged/pair"))
        .header("Authorization", &token)
        .json(&json!({"username": "ryan", "code": code, "publicJwk": jwk, "label": "bench", "hostname": "bench"}))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let (account, device) =
        (paired["accountId"].as_str().unwrap().to_string(), paired["deviceId"].as_str().unwrap().to_string());

    let started = Instant::now();
    let mut tasks = Vec::new();
    for c in 0..CLIENTS {
        let (http, base, token, account, device) =
            (http.clone(), base.clone(), token.clone(), account.clone(), device.clone());
        tasks.push(tokio::spawn(async move {
            let mut lat = Vec::with_capacity(REQUESTS_PER_CLIENT);
            let mut errors = 0;
            for i in 0..REQUESTS_PER_CLIENT {
                let env = envelope(&secret, &account, &device, c * REQUESTS_PER_CLIENT + i + 1);
                let t = Instant::now();
                let res = http
                    .post(format!("{base}/api/relay/privileged/execute"))
                    .header("Authorization", &token)
                    .json(&env)
                    .send()
                    .await;
                if !matches!(res, Ok(r) if r.status() == 200) {
                    errors += 1;
                }
                lat.push(t.elapsed());
            }
            (lat, errors)
        }));
    }
    let (mut latencies, mut errors) = (Vec::new(), 0);
    for t in tasks {
        let (l, e) = t.await.unwrap();
        latencies.extend(l);
        errors += e;
    }
    let elapsed = started.elapsed();
    latencies.sort();
    let _ = server.kill();
    let _ = server.wait();

    let report = format!(
        "## Signed privileged commands\n\n\
         | measure | value |\n| --- | --- |\n\
         | envelope parse + ECDSA P-256 verify, one core | {verify_per_sec:.0} /s |\n\
         | end-to-end signed `privileged.probe`, {CLIENTS} clients | {:.0} req/s ({} requests, {errors} errors) |\n\
         | end-to-end p50 / p99 | {:.2} ms / {:.2} ms |\n",
        latencies.len() as f64 / elapsed.as_secs_f64(),
        latencies.len(),
        percentile(&latencies, 0.5),
        percentile(&latencies, 0.99),
    );
    println!("{report}");
    if let Ok(path) = std::env::var("RELAY_BENCH_REPORT") {
        std::fs::write(path, &report).unwrap();
    }
}
