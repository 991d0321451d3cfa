//! Relay Web load benchmark: 1,000 web sessions signed in and held concurrently on the real
//! gateway (bench profile), then reads spread across all of them. Reports sign-in and read
//! throughput, p50/p99 and server RSS with 1,000 live sessions. In-flight HTTP requests are
//! capped (64) so the client does not exhaust file descriptors; loops are bounded by count.
//! Run with `cargo bench -p relay --bench web_sessions`; `RELAY_BENCH_REPORT=path` writes it.

use std::sync::Arc;
use std::time::{Duration, Instant};

use support::bench::{mib, pct, rss_kib, web_sign_in, PASSPHRASE};
use tokio::sync::Semaphore;

const SESSIONS: usize = 1000;
const READS_PER_SESSION: usize = 5;
const IN_FLIGHT: usize = 64;

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let server = support::bench::server().args(&["--web", "--web-port", "0"]).start();
    let web = server.web.clone().expect("gateway started").replace("127.0.0.1", "localhost");
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
            (web_sign_in(&http, &web, PASSPHRASE).await.ok(), t.elapsed())
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
    let rss_sessions = rss_kib(server.pid().expect("the server runs"));

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
    let rss_after = rss_kib(server.pid().expect("the server runs"));
    drop(server);

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
