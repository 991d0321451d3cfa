//! Contains-search benchmark of the real `relay` binary (bench profile): 40,000 contacts created
//! over HTTP, then the People list's filtered query `filter=(name~'Person 1')&sort=-created&
//! perPage=30` (about 11,000 matches), with its total and with `skipTotal=1`, a one-match term
//! on the newest row and on the oldest, a term with no match and a two-character term, each
//! with 16 concurrent clients and then from one client alone (the page's own latency). Run with
//! `cargo bench -p relay --bench search`; `RELAY_BENCH_BIN=path` measures another build (an
//! older commit) with the same load, `RELAY_BENCH_CONTACTS` changes the row count and
//! `RELAY_BENCH_SIZES=4000,40000,100000` measures several, a fresh server each. Every loop is
//! bounded by a request count.

use std::time::{Duration, Instant};

use serde_json::json;
use support::bench::{self as common, cpu_model, pct};

const CLIENTS: usize = 16;
const LISTS_PER_CLIENT: usize = 40;
/// Requests of the one-client measurement of each list phase.
const ALONE_REQUESTS: usize = 100;
/// The quiet time after seeding, before the lists.
const SETTLE: Duration = Duration::from_secs(5);

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

/// Rows of the report for one list phase: 16 clients for throughput, then one client alone for
/// the latency of the page itself.
async fn list_phases(name: &str, requests: impl Fn(usize) -> Vec<reqwest::RequestBuilder>) -> (Phase, Phase) {
    let loaded = run_phase(name, LISTS_PER_CLIENT, requests(CLIENTS * LISTS_PER_CLIENT)).await;
    let alone = run_one_client(requests(ALONE_REQUESTS)).await;
    (loaded, alone)
}

/// `requests` one after another from a single client.
async fn run_one_client(requests: Vec<reqwest::RequestBuilder>) -> Phase {
    let started = Instant::now();
    let (mut latencies, mut errors) = (Vec::with_capacity(requests.len()), 0);
    for req in requests {
        let t = Instant::now();
        if !matches!(req.send().await, Ok(res) if res.status() == 200) {
            errors += 1;
        }
        latencies.push(t.elapsed());
    }
    latencies.sort();
    Phase { name: "one client".into(), requests: latencies.len(), errors, elapsed: started.elapsed(), latencies }
}

/// Seeds `contacts` contacts over HTTP into a fresh server and measures the list phases; the
/// report's rows for this size.
async fn measure(contacts: usize) -> String {
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
    // Writes quiet: let the store merge the search index's segments (`actors::store::search_merge`)
    // before the lists are timed, as on a server between bursts of writes.
    tokio::time::sleep(SETTLE).await;

    let list = |filter: String, skip_total: bool| {
        let (http, records, token) = (http.clone(), records.clone(), token.clone());
        move |n: usize| {
            let mut q = vec![("filter", filter.clone()), ("sort", "-created".into()), ("perPage", "30".into())];
            if skip_total {
                q.push(("skipTotal", "1".into()));
            }
            (0..n).map(|_| http.get(&records).query(&q).header("Authorization", &token)).collect::<Vec<_>>()
        }
    };
    let newest_one = format!("(name~'Person {}')", contacts - 7);
    let phases = [
        list_phases("`(name~'Person 1')`, with total", list("(name~'Person 1')".into(), false)).await,
        list_phases("`(name~'Person 1')`, `skipTotal=1`", list("(name~'Person 1')".into(), true)).await,
        list_phases(&format!("`{newest_one}` (one match, newest), with total"), list(newest_one.clone(), false)).await,
        list_phases(&format!("`{newest_one}` (one match, newest), `skipTotal=1`"), list(newest_one.clone(), true))
            .await,
        list_phases("`(email~'p7@')` (one match, oldest), `skipTotal=1`", list("(email~'p7@')".into(), true)).await,
        list_phases("`(name~'nobody')` (no match), `skipTotal=1`", list("(name~'nobody')".into(), true)).await,
        list_phases("`(name~'99')` (two characters: scans), with total", list("(name~'99')".into(), false)).await,
    ];

    let row = |p: &Phase, alone: Option<&Phase>| {
        format!(
            "| {contacts} | {} | {} | {} | {:.0} | {:.2} | {:.2} | {} |\n",
            p.name,
            p.requests,
            p.errors + alone.map_or(0, |a| a.errors),
            p.requests as f64 / p.elapsed.as_secs_f64(),
            pct(&p.latencies, 0.50),
            pct(&p.latencies, 0.99),
            alone.map_or("".into(), |a| format!("{:.2}", pct(&a.latencies, 0.50))),
        )
    };
    let mut rows = row(&seeded, None);
    for (loaded, alone) in &phases {
        rows.push_str(&row(loaded, Some(alone)));
    }
    rows
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    // `RELAY_BENCH_SIZES=4000,40000,100000`, or one size in `RELAY_BENCH_CONTACTS` (default 40,000).
    let sizes: Vec<usize> = match (std::env::var("RELAY_BENCH_SIZES"), std::env::var("RELAY_BENCH_CONTACTS")) {
        (Ok(list), _) => list.split(',').map(|n| n.trim().parse().expect("RELAY_BENCH_SIZES: numbers")).collect(),
        (_, Ok(n)) => vec![n.trim().parse().expect("RELAY_BENCH_CONTACTS: a number")],
        _ => vec![40_000],
    };
    let mut report = format!(
        "## Contains-search ({CLIENTS} concurrent clients; one client alone: {ALONE_REQUESTS} requests)\n\n\
         Machine: {cores} cores ({cpu}), bench profile (release), binary `{bin}`.\n\n\
         | contacts | phase | requests | errors | req/s | p50 ms | p99 ms | one client p50 ms |\n\
         | --- | --- | --- | --- | --- | --- | --- | --- |\n",
        cores = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1),
        cpu = cpu_model(),
        bin = common::bench_bin().display(),
    );
    for contacts in sizes {
        report.push_str(&measure(contacts).await);
    }
    println!("{report}");
    if let Ok(path) = std::env::var("RELAY_BENCH_REPORT") {
        std::fs::write(path, &report).unwrap();
    }
}
