//! Side-by-side benchmark of the real `relay` binary (bench profile) and a real PocketBase
//! executable (issue #20), both on 127.0.0.1 with fresh temporary data directories, driven by the
//! same load generator (16 concurrent clients) with the same data, alternating which server goes
//! first phase by phase. Each round starts both servers, grows `contacts` to each size in turn
//! (4,000, 40,000, 100,000 by default) through `POST` (the create phase), and at each size
//! measures a view by id, the People list `filter=(name~'Person 1')&sort=-created&perPage=30`,
//! the same list with a one-match term, the deepest full page of `sort=-created`, and the
//! create-to-event delivery latency of one realtime create to 200 SSE subscribers. PocketBase
//! gets Relay's `contacts` shape: the same fields and limits, the same plain indexes (`created`,
//! `name`, `email`; it has no trigram index), and the rule "any signed-in user" on every action,
//! which is what Relay's `Reads::All` + `Writes::Clients` mean; its settings are its defaults.
//!
//! It refuses to run without PocketBase: `RELAY_BENCH_POCKETBASE=/path/to/pocketbase cargo bench
//! -p relay --bench pocketbase_compare`. `RELAY_BENCH_SIZES=1000,4000` and `RELAY_BENCH_ROUNDS`
//! change the sizes and the round count (3); `RELAY_BENCH_BIN` measures another `relay` build.
//! It prints a Markdown report (medians of the rounds, then every round's raw figures) and, with
//! `RELAY_BENCH_REPORT=path`, writes it there. Every loop is bounded by a count, every wait by a
//! timeout; nothing is asserted on time.

use std::net::{IpAddr, Ipv4Addr};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use futures_util::StreamExt;
use serde_json::{json, Value};
use support::bench::{self as common, cpu_model, mib, pct, rss_kib, PASSPHRASE};

const CLIENTS: usize = 16;
const VIEWS: usize = 16 * 500;
const BROAD_LISTS: usize = 16 * 15;
const SELECTIVE_LISTS: usize = 16 * 40;
const DEEP_PAGES: usize = 16 * 20;
const SUBSCRIBERS: usize = 200;
/// Subscribers per loopback source address (127.0.0.2, .3, ...): operators' desktops each have
/// their own address, and Relay caps streams per address (32 by default), PocketBase does not.
const SUBSCRIBERS_PER_SOURCE: usize = 25;
const FANOUT_EVENTS: usize = 30;
/// How long the fan-out writer waits for all subscribers to see one event before moving on (the
/// missing deliveries are reported, not asserted).
const DELIVERY_WAIT: Duration = Duration::from_secs(10);
const RULE: &str = "@request.auth.id != \"\"";

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Kind {
    Relay,
    PocketBase,
}

impl Kind {
    fn label(self) -> &'static str {
        match self {
            Kind::Relay => "Relay",
            Kind::PocketBase => "PocketBase",
        }
    }
}

/// A running PocketBase on a temporary `--dir`, with a superuser made by its CLI; killed on drop.
struct PocketBase {
    child: Child,
    base: String,
    _tmp: tempfile::TempDir,
}

impl PocketBase {
    fn spawn(bin: &str) -> PocketBase {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("pb_data");
        let status = Command::new(bin)
            .args(["superuser", "upsert", "bench@example.com", PASSPHRASE, "--dir"])
            .arg(&dir)
            .stdout(Stdio::null())
            .status()
            .expect("run pocketbase superuser upsert");
        assert!(status.success(), "pocketbase superuser upsert failed");
        let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        let child = Command::new(bin)
            .args(["serve", "--http", &format!("127.0.0.1:{port}"), "--dir"])
            .arg(&dir)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn pocketbase");
        PocketBase { child, base: format!("http://127.0.0.1:{port}"), _tmp: tmp }
    }

    /// Waits (10 s at most) for `/api/health`, creates `contacts` like Relay's and a user, and
    /// returns that user's token.
    async fn prepare(&self, http: &reqwest::Client) -> String {
        let mut healthy = false;
        for _ in 0..400 {
            if matches!(http.get(format!("{}/api/health", self.base)).send().await, Ok(r) if r.status() == 200) {
                healthy = true;
                break;
            }
            tokio::time::sleep(Duration::from_millis(25)).await;
        }
        assert!(healthy, "pocketbase did not start");
        let admin = sign_in(http, &self.base, "_superusers", "bench@example.com").await;
        let text = |name: &str, max: usize, required: bool| json!({"name": name, "type": "text", "max": max, "required": required});
        let contacts = json!({
            "name": "contacts", "type": "base",
            "listRule": RULE, "viewRule": RULE, "createRule": RULE, "updateRule": RULE, "deleteRule": RULE,
            "fields": [
                text("name", 500, true),
                {"name": "email", "type": "email"},
                text("phone", 1000, false),
                text("title", 1000, false),
                {"name": "created", "type": "autodate", "onCreate": true},
                {"name": "updated", "type": "autodate", "onCreate": true, "onUpdate": true},
            ],
            "indexes": [
                "CREATE INDEX idx_contacts_created ON contacts (created)",
                "CREATE INDEX idx_contacts_email ON contacts (email)",
                "CREATE INDEX idx_contacts_name ON contacts (name)",
            ],
        });
        let res = http.post(format!("{}/api/collections", self.base)).header("Authorization", &admin).json(&contacts);
        let res = res.send().await.unwrap();
        assert_eq!(res.status(), 200, "create contacts: {}", res.text().await.unwrap_or_default());
        let user = json!({"email": "relay@example.com", "password": PASSPHRASE, "passwordConfirm": PASSPHRASE, "verified": true});
        let res = http.post(format!("{}/api/collections/users/records", self.base)).header("Authorization", &admin);
        let res = res.json(&user).send().await.unwrap();
        assert_eq!(res.status(), 200, "create user: {}", res.text().await.unwrap_or_default());
        sign_in(http, &self.base, "users", "relay@example.com").await
    }
}

impl Drop for PocketBase {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

async fn sign_in(http: &reqwest::Client, base: &str, collection: &str, identity: &str) -> String {
    let url = format!("{base}/api/collections/{collection}/auth-with-password");
    let res = http.post(url).json(&json!({"identity": identity, "password": PASSPHRASE})).send().await.unwrap();
    let body: Value = res.json().await.expect("sign-in answer");
    body["token"].as_str().expect("token").to_string()
}

/// One server under test: where it listens, a signed-in token, its pid for RSS.
struct Target {
    kind: Kind,
    base: String,
    token: String,
    pid: u32,
}

impl Target {
    fn records(&self) -> String {
        format!("{}/api/collections/contacts/records", self.base)
    }
}

/// One server's figures for one phase in one round.
#[derive(Clone, Debug)]
struct Measure {
    /// Requests per second (for the fan-out: events delivered per second across subscribers).
    rate: f64,
    p50: f64,
    p99: f64,
    count: usize,
    errors: usize,
    /// The 1-minute load average read just before the phase.
    load: f64,
}

fn load_average() -> f64 {
    std::fs::read_to_string("/proc/loadavg")
        .ok()
        .and_then(|s| s.split_whitespace().next().and_then(|v| v.parse().ok()))
        .unwrap_or(f64::NAN)
}

/// Sends `count` requests from `CLIENTS` concurrent clients (client `c` sends requests `c`,
/// `c + CLIENTS`, ...), reading every body, and times each one.
async fn run_phase<F>(http: &reqwest::Client, count: usize, request: F) -> Measure
where
    F: Fn(&reqwest::Client, usize) -> reqwest::RequestBuilder + Clone + Send + 'static,
{
    let load = load_average();
    let started = Instant::now();
    let tasks: Vec<_> = (0..CLIENTS)
        .map(|c| {
            let (http, request) = (http.clone(), request.clone());
            tokio::spawn(async move {
                let (mut latencies, mut errors) = (Vec::with_capacity(count / CLIENTS + 1), 0);
                for i in (c..count).step_by(CLIENTS) {
                    let t = Instant::now();
                    let ok = match request(&http, i).send().await {
                        Ok(res) => res.status() == 200 && res.bytes().await.is_ok(),
                        Err(_) => false,
                    };
                    latencies.push(t.elapsed());
                    errors += usize::from(!ok);
                }
                (latencies, errors)
            })
        })
        .collect();
    let (mut latencies, mut errors) = (Vec::with_capacity(count), 0);
    for t in tasks {
        let (l, e) = t.await.unwrap();
        latencies.extend(l);
        errors += e;
    }
    let elapsed = started.elapsed();
    latencies.sort();
    Measure {
        rate: count as f64 / elapsed.as_secs_f64(),
        p50: pct(&latencies, 0.5),
        p99: pct(&latencies, 0.99),
        count,
        errors,
        load,
    }
}

/// Reads SSE events (name and data) from one realtime stream.
struct Sse {
    stream: futures_util::stream::BoxStream<'static, reqwest::Result<bytes::Bytes>>,
    buffer: String,
}

impl Sse {
    /// The next named event, or None when the stream ends or `timeout` passes.
    async fn next(&mut self, timeout: Duration) -> Option<(String, String)> {
        let deadline = tokio::time::Instant::now() + timeout;
        loop {
            while let Some(end) = self.buffer.find("\n\n") {
                let block: String = self.buffer.drain(..end + 2).collect();
                let (mut name, mut data) = (String::new(), String::new());
                for line in block.lines() {
                    if let Some(v) = line.strip_prefix("event:") {
                        name = v.trim().to_string();
                    } else if let Some(v) = line.strip_prefix("data:") {
                        data = v.trim().to_string();
                    }
                }
                if !name.is_empty() {
                    return Some((name, data));
                }
            }
            let chunk = tokio::time::timeout_at(deadline, self.stream.next()).await.ok()??.ok()?;
            self.buffer.push_str(&String::from_utf8_lossy(&chunk));
        }
    }
}

/// Opens one subscriber from `source`: the SSE stream, `PB_CONNECT`, then a `contacts/*`
/// subscription with the target's token.
async fn subscribe(target: &Target, source: IpAddr) -> Option<Sse> {
    let http = reqwest::Client::builder().local_address(source).connect_timeout(Duration::from_secs(5)).build().ok()?;
    let res = http.get(format!("{}/api/realtime", target.base)).send().await.ok()?;
    if res.status() != 200 {
        return None;
    }
    let mut sse = Sse { stream: res.bytes_stream().boxed(), buffer: String::new() };
    let (name, data) = sse.next(Duration::from_secs(10)).await?;
    if name != "PB_CONNECT" {
        return None;
    }
    let client_id = serde_json::from_str::<Value>(&data).ok()?["clientId"].as_str()?.to_string();
    let body = json!({"clientId": client_id, "subscriptions": ["contacts/*"]});
    let res = http.post(format!("{}/api/realtime", target.base)).header("Authorization", &target.token);
    let res = res.json(&body).send().await.ok()?;
    res.status().is_success().then_some(sse)
}

/// 200 subscribers, then `FANOUT_EVENTS` creates one at a time; each create's delivery latency
/// (from just before the POST to each subscriber's parse of the event) is one sample per
/// subscriber. The writer moves on once every subscriber has the event, or after
/// `DELIVERY_WAIT`; a missed delivery counts as an error.
async fn fanout(http: &reqwest::Client, target: &Target, tag: &str) -> Measure {
    let load = load_average();
    let mut readers = Vec::with_capacity(SUBSCRIBERS);
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<(usize, Instant)>();
    let mut refused = 0;
    for s in 0..SUBSCRIBERS {
        let source = IpAddr::V4(Ipv4Addr::new(127, 0, 0, 2 + (s / SUBSCRIBERS_PER_SOURCE) as u8));
        let Some(mut sse) = subscribe(target, source).await else {
            refused += 1;
            continue;
        };
        let (tx, prefix) = (tx.clone(), format!("Fanout {tag} "));
        readers.push(tokio::spawn(async move {
            for _ in 0..FANOUT_EVENTS * 4 {
                let Some((name, data)) = sse.next(DELIVERY_WAIT * FANOUT_EVENTS as u32).await else { break };
                let at = Instant::now();
                if name != "contacts/*" {
                    continue;
                }
                let event: Value = serde_json::from_str(&data).unwrap_or_default();
                let k = event["record"]["name"].as_str().and_then(|n| n.strip_prefix(&prefix)?.parse().ok());
                if let (Some(k), "create") = (k, event["action"].as_str().unwrap_or("")) {
                    let _ = tx.send((k, at));
                    if k + 1 == FANOUT_EVENTS {
                        break;
                    }
                }
            }
        }));
    }
    drop(tx);
    let subscribed = readers.len();
    let started = Instant::now();
    let mut latencies = Vec::with_capacity(subscribed * FANOUT_EVENTS);
    let mut errors = refused * FANOUT_EVENTS;
    for k in 0..FANOUT_EVENTS {
        let body =
            json!({"name": format!("Fanout {tag} {k}"), "email": format!("fanout{k}@example.com"), "title": "NOC"});
        let sent = Instant::now();
        let res = http.post(target.records()).header("Authorization", &target.token).json(&body).send().await;
        let created = match res {
            Ok(res) => res.status() == 200 && res.bytes().await.is_ok(),
            Err(_) => false,
        };
        assert!(created, "fan-out create");
        let mut seen = 0;
        while seen < subscribed {
            match tokio::time::timeout_at((sent + DELIVERY_WAIT).into(), rx.recv()).await {
                Ok(Some((event, at))) if event == k => {
                    latencies.push(at - sent);
                    seen += 1;
                }
                Ok(Some(_stale)) => {}
                Ok(None) | Err(_) => break,
            }
        }
        errors += subscribed - seen;
    }
    let elapsed = started.elapsed();
    for r in readers {
        r.abort();
    }
    latencies.sort();
    Measure {
        rate: latencies.len() as f64 / elapsed.as_secs_f64(),
        p50: pct(&latencies, 0.5),
        p99: pct(&latencies, 0.99),
        count: SUBSCRIBERS * FANOUT_EVENTS,
        errors,
        load,
    }
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Phase {
    Create,
    View,
    ListBroad,
    ListSelective,
    DeepPage,
    Fanout,
}

const PHASES: [Phase; 6] =
    [Phase::Create, Phase::View, Phase::ListBroad, Phase::ListSelective, Phase::DeepPage, Phase::Fanout];

impl Phase {
    fn label(self, size: usize) -> String {
        match self {
            Phase::Create => "create (POST)".into(),
            Phase::View => "view by id (GET)".into(),
            Phase::ListBroad => "list `(name~'Person 1')`, sort -created".into(),
            Phase::ListSelective => format!("list `(name~'Person {}')` (one match)", size - 7),
            Phase::DeepPage => format!("deep page {} of `sort=-created`", size / 30),
            Phase::Fanout => format!("realtime create → {SUBSCRIBERS} subscribers"),
        }
    }
}

fn list_query(size: usize, phase: Phase) -> Vec<(&'static str, String)> {
    let mut q = vec![("sort", "-created".to_string()), ("perPage", "30".into())];
    match phase {
        Phase::ListBroad => q.push(("filter", "(name~'Person 1')".into())),
        Phase::ListSelective => q.push(("filter", format!("(name~'Person {}')", size - 7))),
        Phase::DeepPage => q.push(("page", (size / 30).to_string())),
        _ => unreachable!("not a list phase"),
    }
    q
}

/// Runs one phase against one target. `seeded` is how many `Person` contacts it has; a create
/// phase adds `Person seeded..size`.
async fn measure(
    http: &reqwest::Client,
    target: &Target,
    phase: Phase,
    seeded: usize,
    size: usize,
    tag: &str,
) -> Measure {
    let (records, token) = (target.records(), target.token.clone());
    match phase {
        Phase::Create => {
            run_phase(http, size - seeded, move |http, i| {
                let i = seeded + i;
                let body = json!({"name": format!("Person {i}"), "email": format!("p{i}@example.com"), "title": "NOC"});
                http.post(&records).header("Authorization", &token).json(&body)
            })
            .await
        }
        Phase::View => {
            let page = http.get(&records).query(&[("perPage", "30")]).header("Authorization", &token);
            let page: Value = page.send().await.unwrap().json().await.unwrap();
            let ids: Vec<String> =
                page["items"].as_array().unwrap().iter().map(|r| r["id"].as_str().unwrap().to_string()).collect();
            run_phase(http, VIEWS, move |http, i| {
                http.get(format!("{records}/{}", ids[i % ids.len()])).header("Authorization", &token)
            })
            .await
        }
        Phase::ListBroad | Phase::ListSelective | Phase::DeepPage => {
            let count = match phase {
                Phase::ListBroad => BROAD_LISTS,
                Phase::ListSelective => SELECTIVE_LISTS,
                _ => DEEP_PAGES,
            };
            let q = list_query(size, phase);
            run_phase(http, count, move |http, _| http.get(&records).query(&q).header("Authorization", &token)).await
        }
        Phase::Fanout => fanout(http, target, tag).await,
    }
}

/// The list's `totalItems` (both servers must count the same) and first item's name.
async fn list_answer(http: &reqwest::Client, target: &Target, size: usize, phase: Phase) -> (i64, String) {
    let res = http.get(target.records()).query(&list_query(size, phase)).header("Authorization", &target.token);
    let body: Value = res.send().await.unwrap().json().await.unwrap();
    (body["totalItems"].as_i64().unwrap_or(-1), body["items"][0]["name"].as_str().unwrap_or("").to_string())
}

fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    match values.len() {
        0 => f64::NAN,
        n if n % 2 == 1 => values[n / 2],
        n => (values[n / 2 - 1] + values[n / 2]) / 2.0,
    }
}

/// Every round's figures, keyed by (size, phase, server).
struct Results {
    rows: Vec<(usize, usize, Phase, Kind, Measure)>,
    rss: Vec<(usize, usize, Kind, Option<u64>)>,
    /// Round 1's list answers: `totalItems` (equal on both) and each server's first name.
    answers: Vec<(usize, Phase, (i64, String), String)>,
}

impl Results {
    fn of(&self, size: usize, phase: Phase, kind: Kind) -> Vec<&Measure> {
        let pick = |r: &&(usize, usize, Phase, Kind, Measure)| r.1 == size && r.2 == phase && r.3 == kind;
        self.rows.iter().filter(pick).map(|r| &r.4).collect()
    }

    /// The median over rounds of each round's Relay/PocketBase ratio (a rate ratio, or for the
    /// fan-out the PocketBase/Relay latency ratio at `p50` or `p99`).
    fn ratio(&self, size: usize, phase: Phase, at: fn(&Measure, &Measure) -> f64) -> f64 {
        let (relay, pb) = (self.of(size, phase, Kind::Relay), self.of(size, phase, Kind::PocketBase));
        median(relay.iter().zip(pb.iter()).map(|(r, p)| at(r, p)).collect())
    }
}

fn parse_sizes() -> Vec<usize> {
    let raw = std::env::var("RELAY_BENCH_SIZES").unwrap_or_else(|_| "4000,40000,100000".into());
    let sizes: Vec<usize> = raw.split(',').map(|s| s.trim().parse().expect("RELAY_BENCH_SIZES: numbers")).collect();
    assert!(sizes.windows(2).all(|w| w[0] < w[1]) && sizes[0] >= 30, "RELAY_BENCH_SIZES: increasing, >= 30");
    sizes
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let Ok(pb_bin) = std::env::var("RELAY_BENCH_POCKETBASE") else {
        eprintln!("pocketbase_compare: set RELAY_BENCH_POCKETBASE=/path/to/pocketbase (see docs/benchmarks.md)");
        std::process::exit(2);
    };
    let sizes = parse_sizes();
    let rounds: usize = std::env::var("RELAY_BENCH_ROUNDS").ok().and_then(|v| v.parse().ok()).unwrap_or(3);
    let version = Command::new(&pb_bin).arg("--version").output().expect("pocketbase --version");
    let pb_version = String::from_utf8_lossy(&version.stdout).trim().replace("pocketbase version ", "");
    let http = reqwest::Client::builder().timeout(Duration::from_secs(60)).build().unwrap();
    let mut results = Results { rows: Vec::new(), rss: Vec::new(), answers: Vec::new() };
    let run_started = Instant::now();

    for round in 0..rounds {
        let relay = common::server().bind("127.0.0.1").start();
        let pocketbase = PocketBase::spawn(&pb_bin);
        let pb_token = pocketbase.prepare(&http).await;
        let targets = [
            Target {
                kind: Kind::Relay,
                base: relay.base.clone(),
                token: common::api_token(&http, &relay.base).await,
                pid: relay.pid().expect("the server runs"),
            },
            Target {
                kind: Kind::PocketBase,
                base: pocketbase.base.clone(),
                token: pb_token,
                pid: pocketbase.child.id(),
            },
        ];
        let mut seeded = 0;
        for (s, &size) in sizes.iter().enumerate() {
            for (p, &phase) in PHASES.iter().enumerate() {
                if round == 0 && matches!(phase, Phase::ListBroad | Phase::ListSelective | Phase::DeepPage) {
                    let (a, b) = (
                        list_answer(&http, &targets[0], size, phase).await,
                        list_answer(&http, &targets[1], size, phase).await,
                    );
                    assert_eq!(a.0, b.0, "both servers count {phase:?} at {size} alike");
                    results.answers.push((size, phase, a, b.1));
                }
                let first = (round + s + p) % 2;
                for t in [&targets[first], &targets[1 - first]] {
                    let tag = format!("r{round}s{size}");
                    let m = measure(&http, t, phase, seeded, size, &tag).await;
                    eprintln!(
                        "round {} size {size} {phase:?} {}: {:.0}/s p50 {:.2} p99 {:.2} errors {} load {:.2}",
                        round + 1,
                        t.kind.label(),
                        m.rate,
                        m.p50,
                        m.p99,
                        m.errors,
                        m.load
                    );
                    results.rows.push((round, size, phase, t.kind, m));
                }
            }
            seeded = size;
            for t in &targets {
                results.rss.push((round, size, t.kind, rss_kib(t.pid)));
            }
        }
    }

    let report = render(&results, &sizes, rounds, &pb_version, &pb_bin, run_started.elapsed());
    println!("{report}");
    if let Ok(path) = std::env::var("RELAY_BENCH_REPORT") {
        std::fs::write(path, &report).unwrap();
    }
}

fn render(results: &Results, sizes: &[usize], rounds: usize, pb_version: &str, pb_bin: &str, took: Duration) -> String {
    let mut out = format!(
        "## Relay vs PocketBase {pb_version} (issue #20)\n\n\
         Machine: {cores} cores ({cpu}), bench profile; binaries `{relay}` and `{pb_bin}`; \
         {CLIENTS} concurrent clients; {rounds} rounds (run took {mins:.0} min). Medians of the rounds; \
         the ratio is the median of each round's Relay/PocketBase ratio (for the fan-out, \
         PocketBase latency / Relay latency).\n\n\
         | contacts | phase | Relay req/s | Relay p50 ms | PocketBase req/s | PocketBase p50 ms | ratio | load avg (1 min) |\n\
         | --- | --- | --- | --- | --- | --- | --- | --- |\n",
        cores = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1),
        cpu = cpu_model(),
        relay = common::bench_bin().display(),
        mins = took.as_secs_f64() / 60.0,
    );
    let med = |ms: &[&Measure], f: fn(&Measure) -> f64| median(ms.iter().map(|m| f(m)).collect());
    for &size in sizes {
        for phase in PHASES {
            let (relay, pb) = (results.of(size, phase, Kind::Relay), results.of(size, phase, Kind::PocketBase));
            let loads: Vec<f64> = relay.iter().chain(pb.iter()).map(|m| m.load).collect();
            let load = format!(
                "{:.1}-{:.1}",
                loads.iter().copied().fold(f64::INFINITY, f64::min),
                loads.iter().copied().fold(0.0, f64::max)
            );
            let errors: usize = relay.iter().chain(pb.iter()).map(|m| m.errors).sum();
            let errors = if errors > 0 { format!(" ({errors} errors)") } else { String::new() };
            if phase == Phase::Fanout {
                out.push_str(&format!(
                    "| {size} | {}{errors} | p99 {:.1} ms | {:.1} | p99 {:.1} ms | {:.1} | {:.1}x (p50), {:.1}x (p99) | {load} |\n",
                    phase.label(size),
                    med(&relay, |m| m.p99),
                    med(&relay, |m| m.p50),
                    med(&pb, |m| m.p99),
                    med(&pb, |m| m.p50),
                    results.ratio(size, phase, |r, p| p.p50 / r.p50),
                    results.ratio(size, phase, |r, p| p.p99 / r.p99),
                ));
            } else {
                out.push_str(&format!(
                    "| {size} | {}{errors} | {:.0} | {:.2} | {:.0} | {:.2} | {:.2}x | {load} |\n",
                    phase.label(size),
                    med(&relay, |m| m.rate),
                    med(&relay, |m| m.p50),
                    med(&pb, |m| m.rate),
                    med(&pb, |m| m.p50),
                    results.ratio(size, phase, |r, p| r.rate / p.rate),
                ));
            }
        }
    }
    let broad = |size| median(results.of(size, Phase::ListBroad, Kind::Relay).iter().map(|m| m.rate).collect());
    if let (Some(&small), Some(&large)) = (sizes.first(), sizes.last()) {
        out.push_str(&format!(
            "\nRelay's `(name~'Person 1')` list: {:.0} req/s at {small}, {:.0} req/s at {large} ({:.2}x slower).\n",
            broad(small),
            broad(large),
            broad(small) / broad(large)
        ));
    }
    out.push_str(
        "\nThe lists' answers in round 1 (`totalItems`, checked equal on both servers; first item on \
         Relay / PocketBase: rows created in the same millisecond may tie):\n\n",
    );
    for (size, phase, (total, first), pb_first) in &results.answers {
        out.push_str(&format!("- {size}, {}: {total}; `{first}` / `{pb_first}`\n", phase.label(*size)));
    }
    out.push_str("\nRSS after each size (round by round):\n\n| contacts | Relay | PocketBase |\n| --- | --- | --- |\n");
    for &size in sizes {
        let of = |kind| {
            let v: Vec<String> = results.rss.iter().filter(|r| r.1 == size && r.2 == kind).map(|r| mib(r.3)).collect();
            v.join(", ")
        };
        out.push_str(&format!("| {size} | {} | {} |\n", of(Kind::Relay), of(Kind::PocketBase)));
    }
    out.push_str(
        "\nEvery round, every phase (order within the round alternates):\n\n\
         | round | contacts | phase | server | requests | errors | req/s | p50 ms | p99 ms | load avg |\n\
         | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n",
    );
    for (round, size, phase, kind, m) in &results.rows {
        out.push_str(&format!(
            "| {} | {size} | {} | {} | {} | {} | {:.0} | {:.2} | {:.2} | {:.2} |\n",
            round + 1,
            phase.label(*size),
            kind.label(),
            m.count,
            m.errors,
            m.rate,
            m.p50,
            m.p99,
            m.load
        ));
    }
    out
}
