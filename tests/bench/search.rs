//! Contains-search benchmark of the real `relay` binary (bench profile): 40,000 contacts created
//! over HTTP, then the People list's filtered query `filter=(name~'Person 1')&sort=-created&
//! perPage=30` (about 11,000 matches), the same with `skipTotal=1`, and a selective term (one
//! match), each with 16 concurrent clients. Run with `cargo bench -p relay --bench search`;
//! `RELAY_BENCH_BIN=path` measures another build (an older commit) with the same load, and
//! `RELAY_BENCH_CONTACTS` changes the row count. Every loop is bounded by a request count.

use std::time::{Duration, Instant};

use serde_json::json;
use support::bench::{self as common, cpu_model, pct};

const CLIENTS: usize = 16;
const LISTS_PER_CLIENT: usize = 40;

struct Phase {
    name: String,
    requests: usize,
    errors: usize,
    elapsed: Duration,
    latencies: Vec<Duration>,
}

async fn run_phase(name: &str, per_client: usize, requests: Vec<reqwest::RequestBuilder>) -> Phase {
    let started = Instant::now();
    let mut batches: Vec<Vec<reqwest::RequestBuilder>> = (0..CLIENTS).map(|_| Vec::new()).collect();
    for (i, r) in requests.into_iter().enumerate() {
        batches[i % CLIENTS].push(r);
    }
    let tasks: Vec<_> = batches
        .into_iter()
        .map(|batch| {
            tokio::spawn(async move {
                let (mut lat, mut errors) = (Vec::with_capacity(per_client), 0);
                for req in batch {
                    let t = Instant::now();
                    if !matches!(req.send().await, Ok(res) if res.status() == 200) {
                        errors += 1;
                    }
                    lat.push(t.elapsed());
                }
                (lat, errors)
            })
        })
        .collect();
    let (mut latencies, mut errors) = (Vec::new(), 0);
    for t in tasks {
        let (l, e) = t.await.unwrap();
        latencies.extend(l);
        errors += e;
    }
    latencies.sort();
    Phase { name: name.into(), requests: latencies.len(), errors, elapsed: started.elapsed(), latencies }
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let contacts: usize = std::env::var("RELAY_BENCH_CONTACTS").ok().and_then(|v| v.parse().ok()).unwrap_or(40_000);
    let server = common::server().start();
    let http = reqwest::Client::builder().timeout(Duration::from_secs(30)).build().unwrap();
    let token = common::api_token(&http, &server.base).await;
    let records = format!("{}/api/collections/contacts/records", server.base);

    let creates = (0..contacts)
        .map(|i| {
            let body = json!({"name": format!("Person {i}"), "email": format!("p{i}@example.com"), "title": "NOC"});
            http.post(&records).header("Authorization", &token).json(&body)
        })
        .collect();
    let seeded = run_phase("create contact (POST)", contacts / CLIENTS, creates).await;
    assert_eq!(seeded.errors, 0, "every contact was created");

    let list = |filter: &str, skip_total: bool| {
        let mut q = vec![("filter", filter.to_string()), ("sort", "-created".into()), ("perPage", "30".into())];
        if skip_total {
            q.push(("skipTotal", "1".into()));
        }
        (0..CLIENTS * LISTS_PER_CLIENT)
            .map(|_| http.get(&records).query(&q).header("Authorization", &token))
            .collect::<Vec<_>>()
    };
    let selective = format!("(name~'Person {}')", contacts - 7);
    let phases = [
        run_phase("list 30, (name~'Person 1'), sort -created", LISTS_PER_CLIENT, list("(name~'Person 1')", false))
            .await,
        run_phase("same, skipTotal=1", LISTS_PER_CLIENT, list("(name~'Person 1')", true)).await,
        run_phase("list 30, one match (name~'Person N')", LISTS_PER_CLIENT, list(&selective, false)).await,
        run_phase("list 30, two-character term (name~'99')", LISTS_PER_CLIENT / 4, list("(name~'99')", false)).await,
    ];

    let mut report = format!(
        "## Contains-search at {contacts} contacts ({CLIENTS} concurrent clients)\n\n\
         Machine: {cores} cores ({cpu}), bench profile (release), binary `{bin}`.\n\n\
         | phase | requests | errors | req/s | p50 ms | p99 ms |\n| --- | --- | --- | --- | --- | --- |\n",
        cores = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1),
        cpu = cpu_model(),
        bin = common::bench_bin().display(),
    );
    for p in std::iter::once(&seeded).chain(phases.iter()) {
        report.push_str(&format!(
            "| {} | {} | {} | {:.0} | {:.2} | {:.2} |\n",
            p.name,
            p.requests,
            p.errors,
            p.requests as f64 / p.elapsed.as_secs_f64(),
            pct(&p.latencies, 0.50),
            pct(&p.latencies, 0.99)
        ));
    }
    println!("{report}");
    if let Ok(path) = std::env::var("RELAY_BENCH_REPORT") {
        std::fs::write(path, &report).unwrap();
    }
}
