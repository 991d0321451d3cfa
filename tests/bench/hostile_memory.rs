//! Memory under hostile input (issue #39.5): each scenario runs against a fresh `relay serve`
//! and reports how much the server's peak resident memory (`VmHWM`) rose, per request and in
//! total, against the budget: no single request may raise peak RSS by more than 64 MiB. The
//! scenarios are the review's: a workbook whose one 4 MiB shared string is read by 100 cells;
//! import bodies of ~30 MiB (10,000 dense records; four bodies of tiny records at once); 288 SSE
//! streams that stop reading while five ~700 KB alerts are published; and the largest legal list
//! pages of ~700 KB alerts read 8 at a time. `cargo bench -p relay --bench hostile_memory`
//! (`RELAY_BENCH_BIN` measures another build); prints a Markdown table for docs/benchmarks.md.

use std::time::Duration;

use support::bench::{api_token, status_kib};
use support::hostile::{import_body_of, large_alert, one_shared_string_read_by, stalled_stream};
use support::Relay;

/// The budget: what one request may add to the server's peak resident memory.
const BUDGET_MIB_PER_REQUEST: f64 = 64.0;
const MIB: usize = 1024 * 1024;

struct Outcome {
    scenario: &'static str,
    requests: usize,
    statuses: String,
    rise_mib: f64,
}

fn peak_mib(server: &Relay) -> f64 {
    status_kib(server.pid().expect("the server runs"), "VmHWM").unwrap_or(0) as f64 / 1024.0
}

fn http() -> reqwest::Client {
    reqwest::Client::builder().timeout(Duration::from_secs(300)).build().unwrap()
}

async fn post(http: &reqwest::Client, url: String, token: &str, body: Vec<u8>, json: bool) -> u16 {
    let mut req = http.post(url).header("Authorization", token).body(body);
    if json {
        req = req.header("Content-Type", "application/json");
    }
    req.send().await.map(|r| r.status().as_u16()).unwrap_or(0)
}

/// Runs `requests` concurrent requests made by `send(i)` on a fresh server; the rise of VmHWM.
async fn measure<F, Fut>(
    scenario: &'static str,
    requests: usize,
    prepare: impl AsyncFnOnce(&Relay, &str),
    send: F,
) -> Outcome
where
    F: Fn(String, String, usize) -> Fut,
    Fut: std::future::Future<Output = u16>,
{
    let server = support::bench::server().start();
    let token = api_token(&http(), &server.base).await;
    prepare(&server, &token).await;
    let before = peak_mib(&server);
    let statuses =
        futures_util::future::join_all((0..requests).map(|i| send(server.base.clone(), token.clone(), i))).await;
    let rise_mib = peak_mib(&server) - before;
    let mut counts = std::collections::BTreeMap::new();
    for s in statuses {
        *counts.entry(s).or_insert(0) += 1;
    }
    let statuses = counts.iter().map(|(s, n)| format!("{n}x {s}")).collect::<Vec<_>>().join(", ");
    Outcome { scenario, requests, statuses, rise_mib }
}

async fn nothing(_: &Relay, _: &str) {}

async fn seed_large_alerts(server: &Relay, token: &str) {
    let http = http();
    for n in 0..100 {
        let res = http
            .post(format!("{}/api/collections/alert_history/records", server.base))
            .header("Authorization", token)
            .json(&large_alert(&format!("Large {n}"), 690_000))
            .send()
            .await
            .unwrap();
        assert_eq!(res.status(), 200, "seeding alert {n}");
    }
}

async fn stalled_streams_and_large_alerts(server: &Relay, token: &str) -> Vec<u16> {
    let http = http();
    let addr: std::net::SocketAddr = server.base.trim_start_matches("http://").parse().unwrap();
    let mut streams = Vec::new();
    for host in 2..11u8 {
        for _ in 0..32 {
            let (stream, id) = stalled_stream(addr, host).await;
            let res = http
                .post(format!("{}/api/realtime", server.base))
                .header("Authorization", token)
                .json(&serde_json::json!({"clientId": id, "subscriptions": ["alert_history/*"]}))
                .send()
                .await
                .unwrap();
            assert_eq!(res.status(), 204);
            streams.push(stream);
        }
    }
    let mut statuses = Vec::new();
    for n in 0..5 {
        let url = format!("{}/api/collections/alert_history/records", server.base);
        let res = http.post(url).header("Authorization", token).json(&large_alert(&format!("Big {n}"), 690_000)).send();
        statuses.push(res.await.map(|r| r.status().as_u16()).unwrap_or(0));
    }
    // Let the writers take what they can before the peak is read.
    tokio::time::sleep(Duration::from_secs(2)).await;
    drop(streams);
    statuses
}

#[tokio::main]
async fn main() {
    let workbook = one_shared_string_read_by(100, 4 * MIB);
    let dense = format!(r#"{{"name": "dense", "tags": [{}]}}"#, vec!["0"; 1_550].join(","));
    let dense_body = import_body_of(&dense, 10_000);
    let tiny_body = import_body_of("{}", 30 * MIB / 3);
    let mut outcomes = Vec::new();

    outcomes.push(
        measure("spreadsheet: one 4 MiB shared string read by 100 cells", 1, nothing, |base, token, _| {
            let body = workbook.clone();
            async move { post(&http(), format!("{base}/api/relay/spreadsheet/rows"), &token, body, false).await }
        })
        .await,
    );
    outcomes.push(
        measure("import: 10,000 dense records (30 MiB)", 1, nothing, |base, token, _| {
            let body = dense_body.clone();
            async move { post(&http(), format!("{base}/api/relay/import/contacts"), &token, body, true).await }
        })
        .await,
    );
    outcomes.push(
        measure("import: four 30 MiB bodies of tiny records at once", 4, nothing, |base, token, _| {
            let body = tiny_body.clone();
            async move { post(&http(), format!("{base}/api/relay/import/contacts"), &token, body, true).await }
        })
        .await,
    );
    // One "request" here is the whole publish of five alerts to 288 stalled streams.
    let server = support::bench::server().start();
    let token = api_token(&http(), &server.base).await;
    let before = peak_mib(&server);
    let statuses = stalled_streams_and_large_alerts(&server, &token).await;
    outcomes.push(Outcome {
        scenario: "realtime: 288 streams that stop reading, five ~700 KB alerts",
        requests: 1,
        statuses: format!("{} creates: {:?}", statuses.len(), statuses),
        rise_mib: peak_mib(&server) - before,
    });
    drop(server);
    outcomes.push(
        measure("list: perPage=100 of ~700 KB alerts, 8 at once", 8, seed_large_alerts, |base, token, _| async move {
            let url = format!("{base}/api/collections/alert_history/records?perPage=100");
            match http().get(url).header("Authorization", token).send().await {
                Ok(res) => {
                    let status = res.status().as_u16();
                    let _ = res.bytes().await;
                    status
                }
                Err(_) => 0,
            }
        })
        .await,
    );

    println!("| scenario | requests | answers | peak RSS rise | per request | budget {BUDGET_MIB_PER_REQUEST:.0} MiB per request |");
    println!("| --- | ---: | --- | ---: | ---: | --- |");
    for o in &outcomes {
        let per = o.rise_mib / o.requests as f64;
        let met = if per <= BUDGET_MIB_PER_REQUEST { "met" } else { "NOT met" };
        println!(
            "| {} | {} | {} | {:.1} MiB | {:.1} MiB | {met} |",
            o.scenario, o.requests, o.statuses, o.rise_mib, per
        );
    }
}
