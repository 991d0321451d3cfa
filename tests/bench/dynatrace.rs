//! Dynatrace sync benchmark against the real `relay` binary and a fake Grail on 127.0.0.1:
//! a reconciliation that stores 10,000 problems (each a realistic Grail record), the next one
//! that finds nothing changed, and one where every problem closed; wall time of each
//! `relay dynatrace sync` and the server's resident memory before and its peak (VmHWM) after.
//! The loopback override is debug-only, so run it optimised with debug assertions:
//! `cargo bench -p relay --bench dynatrace --profile feeds-bench`. `RELAY_BENCH_ROWS` changes
//! the problem count and `RELAY_BENCH_REPORT=path` writes the Markdown report.

use std::io::Write;
use std::process::{Command, Stdio};
use std::time::Instant;

use fake_upstream::{FakeUpstream, Reply};
use serde_json::{json, Value};
use support::bench::{self as common, cpu_model, mib, rss_kib, status_kib};

const EXECUTE: &str = "/platform/storage/query/v1/query:execute";
const POLL: &str = "/platform/storage/query/v1/query:poll";
const PASSWORD: &str = "bench-owner-password-1";

const SEVERITIES: [&str; 4] = ["AVAILABILITY", "ERROR", "SLOWDOWN", "RESOURCE_CONTENTION"];
const IMPACTS: [&str; 3] = ["SERVICES", "APPLICATION", "INFRASTRUCTURE"];

fn problem(i: usize, status: &str) -> Value {
    json!({
        "problemId": format!("-{:019}_{:013}V2", 1_000_000 + i, 1_700_000_000_000u64 + i as u64),
        "displayId": format!("P-{}", 240_000 + i),
        "title": format!("Response time degradation on service checkout-{}", i % 97),
        "status": status,
        "severity": SEVERITIES[i % 4],
        "impactLevel": IMPACTS[i % 3],
        "startTime": format!("2026-11-{:02}T{:02}:{:02}:00.000000000Z", 1 + i % 28, i % 24, i % 60),
        "endTime": if status == "ACTIVE" { Value::Null } else { json!("2026-12-04T11:00:00.000000000Z") },
        "rootCause": format!("SERVICE-{:016X}", i),
        "rootCauseEntityName": format!("checkout-{}", i % 97),
        "affectedEntityIds": [format!("SERVICE-{:016X}", i), format!("HOST-{:016X}", i)],
        "affectedEntityNames": [format!("checkout-{}", i % 97), format!("web-{:03}", i % 300)],
        "affectedEntityTypes": ["SERVICE", "HOST"],
        "alertingProfiles": ["NOC", "Default"],
    })
}

/// Grail answers every query with `rows` problems; a reconciliation's next page (after the
/// last id) is empty.
fn answer(fake: &FakeUpstream, rows: usize, status: &str) {
    let done = |records: Vec<Value>| {
        json!({"state": "SUCCEEDED", "progress": 100,
            "result": {"records": records, "metadata": {"grail": {"notifications": []}}}})
        .to_string()
    };
    let records: Vec<Value> = (0..rows).map(|i| problem(i, status)).collect();
    fake.route(
        "POST",
        EXECUTE,
        Reply::status(202)
            .header("Content-Type", "application/json")
            .body(json!({"state": "RUNNING", "requestToken": "bench"}).to_string()),
    );
    fake.route_sequence("GET", POLL, vec![Reply::json(done(records)), Reply::json(done(Vec::new()))]);
}

/// The variable that points the server's Dynatrace client at the fake upstream.
const DYNATRACE_OVERRIDE: &str = "RELAY_TEST_UPSTREAM_DYNATRACE";

fn cli(data_dir: &std::path::Path, upstream: &str, args: &[&str], stdin: &str) -> String {
    let mut child = Command::new(common::bench_bin())
        .arg(args[0])
        .arg("--data-dir")
        .arg(data_dir)
        .args(&args[1..])
        .env(DYNATRACE_OVERRIDE, upstream)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn relay");
    child.stdin.take().unwrap().write_all(stdin.as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout).to_string() + &String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "relay {args:?}: {text}");
    text
}

fn main() {
    let rows: usize = std::env::var("RELAY_BENCH_ROWS").ok().and_then(|v| v.parse().ok()).unwrap_or(10_000);
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    let fake = runtime.block_on(FakeUpstream::start());
    answer(&fake, rows, "ACTIVE");
    // The server and the CLI get the override (debug assertions only; a release build ignores it).
    let upstream = fake.url("").trim_end_matches('/').to_string();
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    let server = common::server().data_dir(&data).envs([(DYNATRACE_OVERRIDE, upstream.as_str())]).start();
    cli(&data, &upstream, &["admin", "set-password", "--username", "ryan"], &format!("{PASSWORD}\n"));
    cli(&data, &upstream, &["admin", "activate", "--username", "ryan"], "");
    cli(
        &data,
        &upstream,
        &["dynatrace", "configure", "--as", "ryan", "--url", "https://abc12345.apps.dynatrace.com"],
        &format!("{PASSWORD}\n"),
    );
    cli(
        &data,
        &upstream,
        &["dynatrace", "set-token", "--as", "ryan"],
        &format!("{PASSWORD}\ndt0s16.BENCH.TOKENSECRETPART0001\n"),
    );
    let idle = rss_kib(server.pid().expect("the server runs"));

    let mut lines = Vec::new();
    for (label, status) in [
        ("reconcile (2 pages), all new", "ACTIVE"),
        ("next sync, nothing changed", "ACTIVE"),
        ("every problem closed", "CLOSED"),
    ] {
        answer(&fake, rows, status);
        let started = Instant::now();
        let out = cli(&data, &upstream, &["dynatrace", "sync"], "");
        let took = started.elapsed();
        let summary: Value = serde_json::from_str(out.trim()).expect("summary");
        assert_eq!(summary["outcome"], "ok", "{summary}");
        lines.push(format!(
            "| {label} | {} | {} | {:.2} s |",
            summary["fetched"],
            summary["written"],
            took.as_secs_f64()
        ));
    }
    let peak = status_kib(server.pid().expect("the server runs"), "VmHWM");
    let report = format!(
        "## Dynatrace sync ({rows} problems)\n\nMachine: {} ({} cores). `cargo bench -p relay --bench dynatrace --profile feeds-bench`; \
a fake Grail on 127.0.0.1 answers execute + one poll with {rows} problem records; each row is one `relay dynatrace sync` \
(wall time, including the CLI process and the control socket).\n\n| run | fetched | written | wall time |\n| --- | --- | --- | --- |\n{}\n\n\
Server RSS after start: {}; peak RSS (VmHWM) after the three syncs: {}.\n",
        cpu_model(),
        std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1),
        lines.join("\n"),
        mib(idle),
        mib(peak),
    );
    println!("{report}");
    if let Ok(path) = std::env::var("RELAY_BENCH_REPORT") {
        std::fs::write(path, &report).unwrap();
    }
}
