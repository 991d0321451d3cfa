//! Offline replay and Servers sync benchmark against the real `relay` binary (bench profile):
//! 10,000 contacts cached by the real client `offline_replay` actor, 10,000 offline updates
//! queued (cache + queue, one commit each), replayed in guarded batches of 100, compared with
//! the same number of updates sent one request at a time to the single-change route; then a
//! Servers sync of 10,000 rows (100 batches of 100 creates, then 100 batches of updates). Run
//! with `cargo bench -p relay --bench offline`; `RELAY_BENCH_ROWS` changes the row count and
//! `RELAY_BENCH_REPORT=path` writes the Markdown report. Every loop is bounded by the row count.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use actix::Actor;
use actors::auth_coordinator::TokenSnapshot;
use actors::health::HealthActor;
use actors::kit::{start_supervised, SubsystemCtx};
use actors::offline_replay::{
    CacheSnapshot, GetOfflineStatus, Mutate, OfflineReplayActor, OfflineReplayConfig, ReplayNow, UseToken,
};
use domain::offline::record_fingerprint;
use serde_json::{json, Value};
use support::bench::{self as common, cpu_model};

const CLIENTS: usize = 16;

async fn create_all(http: &reqwest::Client, base: &str, token: &str, rows: usize) {
    let url = format!("{base}/api/collections/contacts/records");
    let tasks: Vec<_> = (0..CLIENTS)
        .map(|c| {
            let (http, url, token) = (http.clone(), url.clone(), token.to_string());
            actix::spawn(async move {
                for i in (c..rows).step_by(CLIENTS) {
                    let body =
                        json!({"name": format!("Person {i}"), "email": format!("p{i}@example.com"), "title": "NOC"});
                    let res = http.post(&url).header("Authorization", &token).json(&body).send().await.unwrap();
                    assert_eq!(res.status(), 200);
                }
            })
        })
        .collect();
    for t in tasks {
        t.await.unwrap();
    }
}

async fn list_all(http: &reqwest::Client, base: &str, token: &str, collection: &str) -> Vec<Value> {
    let mut out = Vec::new();
    for page in 1..=1_000 {
        let url = format!("{base}/api/collections/{collection}/records?perPage=500&page={page}&skipTotal=1");
        let body: Value = http.get(url).header("Authorization", token).send().await.unwrap().json().await.unwrap();
        let items = body["items"].as_array().unwrap();
        out.extend(items.iter().cloned());
        if items.len() < 500 {
            break;
        }
    }
    out
}

/// Latencies of another client's list requests, one at a time, until `stop` (at most `limit`).
async fn probe(
    http: reqwest::Client,
    url: String,
    token: String,
    stop: Arc<AtomicBool>,
    limit: usize,
) -> Vec<Duration> {
    let mut out = Vec::new();
    while out.len() < limit && !stop.load(Ordering::Relaxed) {
        let t = Instant::now();
        let res = http.get(&url).header("Authorization", &token).send().await.unwrap();
        assert_eq!(res.status(), 200);
        res.bytes().await.unwrap();
        out.push(t.elapsed());
    }
    out
}

fn p99_ms(mut samples: Vec<Duration>) -> String {
    samples.sort();
    match samples.get((samples.len() * 99 / 100).min(samples.len().saturating_sub(1))) {
        Some(d) => format!("{:.1} ms (n = {})", d.as_secs_f64() * 1000.0, samples.len()),
        None => "no samples".into(),
    }
}

fn rate(n: usize, d: Duration) -> String {
    format!("{:.0}", n as f64 / d.as_secs_f64())
}

fn main() {
    let rows: usize = std::env::var("RELAY_BENCH_ROWS").ok().and_then(|v| v.parse().ok()).unwrap_or(10_000);
    let server = common::server().start();
    let base = server.base.clone();
    let report = actix::System::new().block_on(async move {
        let http = reqwest::Client::builder().timeout(Duration::from_secs(60)).build().unwrap();
        let token = common::api_token(&http, &base).await;
        create_all(&http, &base, &token, rows).await;
        let contacts = list_all(&http, &base, &token, "contacts").await;
        assert_eq!(contacts.len(), rows);

        let tmp = tempfile::tempdir().unwrap();
        let clock = infra::clock::system();
        let ctx = SubsystemCtx::new(clock.clone(), HealthActor::new(clock).start());
        let config = OfflineReplayConfig { data_dir: tmp.path().to_path_buf(), server_origin: base.clone() };
        let offline = start_supervised(move |_| OfflineReplayActor::new(ctx, config));
        let t = Instant::now();
        offline.send(CacheSnapshot { collection: "contacts".into(), records: contacts.clone() }).await.unwrap().unwrap();
        let cache_time = t.elapsed();

        let t = Instant::now();
        for c in &contacts {
            let m = json!({"collection": "contacts", "action": "update", "recordId": c["id"], "data": {"title": "Batched"}});
            offline.send(Mutate(serde_json::from_value(m).unwrap())).await.unwrap().unwrap();
        }
        let enqueue_time = t.elapsed();
        let expires_at = (std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_secs() + 3600) as i64;
        offline.send(UseToken(TokenSnapshot { token: token.clone(), expires_at })).await.unwrap();
        let probe_url = format!("{base}/api/collections/contacts/records?perPage=50&skipTotal=1");
        let never = Arc::new(AtomicBool::new(false));
        let idle = probe(http.clone(), probe_url.clone(), token.clone(), never, 300).await;
        let stop = Arc::new(AtomicBool::new(false));
        let during = actix::spawn(probe(http.clone(), probe_url, token.clone(), stop.clone(), 100_000));
        let t = Instant::now();
        let summary = offline.send(ReplayNow).await.unwrap().unwrap();
        let batched_time = t.elapsed();
        stop.store(true, Ordering::Relaxed);
        let during = during.await.unwrap();
        assert_eq!((summary.synced, summary.stopped.clone()), (rows, None), "{summary:?}");
        assert_eq!(offline.send(GetOfflineStatus).await.unwrap().pending_count, 0);

        // The same number of updates, one request each, on the single-change route.
        let fresh = list_all(&http, &base, &token, "contacts").await;
        let url = format!("{base}/api/relay/offline/replay");
        let t = Instant::now();
        for c in &fresh {
            let change = json!({"collection": "contacts", "action": "update", "recordId": c["id"],
                "expectedUpdated": c["updated"], "expectedFingerprint": record_fingerprint(c).unwrap(), "data": {"title": "Single"}});
            let res = http.post(&url).header("Authorization", &token).json(&change).send().await.unwrap();
            assert_eq!(res.status(), 200);
        }
        let single_time = t.elapsed();

        // Servers sync: creates, then updates against the reviewed copies.
        let sync = format!("{base}/api/relay/servers/sync");
        let t = Instant::now();
        for chunk in (0..rows).collect::<Vec<_>>().chunks(100) {
            let ops: Vec<Value> = chunk.iter().map(|i| json!({"action": "create", "data": {"name": format!("srv-{i}"), "os": "Linux"}})).collect();
            let res = http.post(&sync).header("Authorization", &token).json(&json!({"operations": ops})).send().await.unwrap();
            assert_eq!(res.status(), 200);
        }
        let sync_create_time = t.elapsed();
        let servers = list_all(&http, &base, &token, "servers").await;
        let t = Instant::now();
        for chunk in servers.chunks(100) {
            let ops: Vec<Value> = chunk
                .iter()
                .map(|s| json!({"action": "update", "recordId": s["id"], "expected": s, "data": {"os": "BSD"}}))
                .collect();
            let res = http.post(&sync).header("Authorization", &token).json(&json!({"operations": ops})).send().await.unwrap();
            assert_eq!(res.status(), 200);
        }
        let sync_update_time = t.elapsed();
        actix::System::current().stop();

        format!(
            "## Offline replay and Servers sync at {rows} rows (`cargo bench -p relay --bench offline`)\n\n\
             Machine: {cores} cores ({cpu}), bench profile (release), binary `{bin}`; one client, sequential requests.\n\n\
             | phase | rows | seconds | rows/s |\n| --- | --- | --- | --- |\n\
             | cache a {rows}-record snapshot (one transaction) | {rows} | {:.2} | {} |\n\
             | queue offline updates (cache + queue, one commit each, FULL sync) | {rows} | {:.2} | {} |\n\
             | replay, guarded batches of 100 | {rows} | {:.2} | {} |\n\
             | replay, one request per change (single route) | {rows} | {:.2} | {} |\n\
             | Servers sync: create, batches of 100 | {rows} | {:.2} | {} |\n\
             | Servers sync: update against reviewed copies, batches of 100 | {rows} | {:.2} | {} |\n\n\
             Another client's list request (50 contacts), p99: idle {idle_p99}; during the batched replay {during_p99}.\n",
            cache_time.as_secs_f64(), rate(rows, cache_time),
            enqueue_time.as_secs_f64(), rate(rows, enqueue_time),
            batched_time.as_secs_f64(), rate(rows, batched_time),
            single_time.as_secs_f64(), rate(rows, single_time),
            sync_create_time.as_secs_f64(), rate(rows, sync_create_time),
            sync_update_time.as_secs_f64(), rate(rows, sync_update_time),
            idle_p99 = p99_ms(idle),
            during_p99 = p99_ms(during),
            cores = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1),
            cpu = cpu_model(),
            bin = common::bench_bin().display(),
        )
    });
    println!("{report}");
    if let Ok(path) = std::env::var("RELAY_BENCH_REPORT") {
        std::fs::write(path, &report).unwrap();
    }
}
