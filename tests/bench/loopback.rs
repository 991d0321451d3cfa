//! Loopback benchmark of the real `relay` binary (built in the bench profile): cold start to
//! the first 200, idle RSS, record reads/s and writes/s with 16 concurrent clients and their
//! p50/p99 latencies. Run with `cargo bench -p relay --bench loopback`; it prints a Markdown
//! report and, with `RELAY_BENCH_REPORT=path`, writes it there. Every loop is bounded by a
//! request count and the whole run by a deadline.

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use support::bench::{self as common, cpu_model, mib, pct, rss_kib, PASSPHRASE};

const CLIENTS: usize = 16;
const READS_PER_CLIENT: usize = 1500;
const WRITES_PER_CLIENT: usize = 250;
const DEADLINE: Duration = Duration::from_secs(300);

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

struct Phase {
    name: &'static str,
    requests: usize,
    errors: usize,
    elapsed: Duration,
    latencies: Vec<Duration>,
}

impl Phase {
    fn row(&self) -> String {
        format!(
            "| {} | {} | {} | {:.0} | {:.2} | {:.2} |",
            self.name,
            self.requests,
            self.errors,
            self.requests as f64 / self.elapsed.as_secs_f64(),
            pct(&self.latencies, 0.50),
            pct(&self.latencies, 0.99),
        )
    }
}

async fn run_phase<F, Fut>(name: &'static str, per_client: usize, op: F) -> Phase
where
    F: Fn(reqwest::Client, usize) -> Fut + Clone + Send + 'static,
    Fut: std::future::Future<Output = bool> + Send,
{
    let started = Instant::now();
    let mut tasks = Vec::new();
    for c in 0..CLIENTS {
        let op = op.clone();
        tasks.push(tokio::spawn(async move {
            let http = reqwest::Client::builder().timeout(Duration::from_secs(10)).build().unwrap();
            let mut lat = Vec::with_capacity(per_client);
            let mut errors = 0;
            for i in 0..per_client {
                let t = Instant::now();
                if !op(http.clone(), c * per_client + i).await {
                    errors += 1;
                }
                lat.push(t.elapsed());
            }
            (lat, errors)
        }));
    }
    let mut latencies = Vec::new();
    let mut errors = 0;
    for t in tasks {
        let (l, e) = t.await.unwrap();
        latencies.extend(l);
        errors += e;
    }
    latencies.sort();
    Phase { name, requests: CLIENTS * per_client, errors, elapsed: started.elapsed(), latencies }
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let deadline = Instant::now() + DEADLINE;
    let tmp = tempfile::tempdir().unwrap();
    let port = free_port();
    let base = format!("http://127.0.0.1:{port}");
    let spawned = Instant::now();
    let mut child = Command::new(env!("CARGO_BIN_EXE_relay"))
        .args(["serve", "--data-dir"])
        .arg(tmp.path().join("data"))
        .args(["--bind", "127.0.0.1", "--port", &port.to_string(), "--log-level", "warn"])
        .env("RELAY_BOOTSTRAP_PASSPHRASE", PASSPHRASE)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn relay");
    let probe = reqwest::Client::builder().timeout(Duration::from_secs(1)).build().unwrap();
    let cold_start = loop {
        if let Ok(r) = probe.get(format!("{base}/api/health")).send().await {
            if r.status() == 200 {
                break spawned.elapsed();
            }
        }
        assert!(Instant::now() < deadline && spawned.elapsed() < Duration::from_secs(20), "server did not start");
        tokio::time::sleep(Duration::from_millis(2)).await;
    };
    tokio::time::sleep(Duration::from_secs(1)).await;
    let idle_rss = rss_kib(child.id());

    let token = common::api_token(&probe, &base).await;

    let records = format!("{base}/api/collections/contacts/records");
    let (t, r) = (token.clone(), records.clone());
    let writes = run_phase("create contact (POST)", WRITES_PER_CLIENT, move |http, i| {
        let (t, r) = (t.clone(), r.clone());
        async move {
            let body = json!({"name": format!("Person {i}"), "email": format!("p{i}@example.com"), "title": "NOC"});
            matches!(http.post(&r).header("Authorization", &t).json(&body).send().await, Ok(res) if res.status() == 200)
        }
    })
    .await;
    assert!(Instant::now() < deadline);

    let first: Value = probe
        .get(&records)
        .query(&[("perPage", "1")])
        .header("Authorization", &token)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let one = format!("{records}/{}", first["items"][0]["id"].as_str().unwrap());
    let (t, u) = (token.clone(), one);
    let reads_one = run_phase("view record (GET id)", READS_PER_CLIENT, move |http, _| {
        let (t, u) = (t.clone(), u.clone());
        async move { matches!(http.get(&u).header("Authorization", &t).send().await, Ok(res) if res.status() == 200) }
    })
    .await;
    let (t, r) = (token.clone(), records.clone());
    let reads_list = run_phase("list 30, filter+sort (GET)", READS_PER_CLIENT / 3, move |http, i| {
        let (t, r) = (t.clone(), r.clone());
        async move {
            let filter = format!("name ~ 'Person {}'", i % 100);
            let q = [("perPage", "30"), ("sort", "-created"), ("filter", filter.as_str())];
            matches!(http.get(&r).query(&q).header("Authorization", &t).send().await, Ok(res) if res.status() == 200)
        }
    })
    .await;
    let loaded_rss = rss_kib(child.id());
    let _ = child.kill();
    let _ = child.wait();

    let cpu = cpu_model();
    let report = format!(
        "## Record API over loopback ({CLIENTS} concurrent clients)\n\n\
         Machine: {cores} cores ({cpu}), bench profile (release), SQLite WAL, 2 HTTP workers, 2 store readers + 1 writer.\n\n\
         | phase | requests | errors | req/s | p50 ms | p99 ms |\n| --- | --- | --- | --- | --- | --- |\n{}\n{}\n{}\n\n\
         | measure | value |\n| --- | --- |\n| cold start to first 200 on /api/health | {:.0} ms |\n\
         | idle RSS after start | {} |\n| RSS after the load phases | {} |\n",
        writes.row(),
        reads_one.row(),
        reads_list.row(),
        cold_start.as_secs_f64() * 1e3,
        mib(idle_rss),
        mib(loaded_rss),
        cores = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1),
    );
    println!("{report}");
    if let Ok(path) = std::env::var("RELAY_BENCH_REPORT") {
        std::fs::write(path, &report).unwrap();
    }
}
