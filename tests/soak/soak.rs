//! Soak of the real `relay` binary (bench profile) with the four attacks of issue #11 replayed
//! at once, beside 1,000 Relay Web sessions doing normal work: (1) 20 sources sending bad
//! passwords every 100 ms to the data API and to the gateway while a clean source signs in with
//! the right passphrase every second; (2) idle unauthenticated `GET /api/realtime` streams from
//! many sources, beyond the per-source and global caps, while signed-in clients connect and
//! subscribe; (3) those 100 signed-in clients each subscribe 100 times to `alert_history/*` while
//! ~49 KB records are created in bursts; (4) web sessions log out and their old app tokens are
//! tried on the gateway and the data API. It reports correct sign-ins refused, 503s to signed-in
//! clients, logged-out tokens accepted, peak server RSS and p50/p99 latencies. Bounded: a
//! duration (`RELAY_SOAK_SECS`, default 60), a request cap (`RELAY_SOAK_MAX_REQUESTS`, default
//! 500,000), at most `IN_FLIGHT` short requests in flight, streams sized to the fd limit; every
//! address is 127.0.0.x. Run with `cargo bench -p relay --bench soak`;
//! `RELAY_SOAK_REPORT=path` writes the Markdown report.

mod attacks;
mod report;
mod sessions;

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, AtomicI64, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::sync::Semaphore;
use tokio::task::JoinSet;
use tokio::time::Instant;

use support::bench::{self as common, rss_kib, status_kib, PASSPHRASE};

/// Short requests (everything but held realtime streams) in flight at once.
pub const IN_FLIGHT: usize = 256;
/// Client timeout of a short request (status 0 in the report when it fires).
pub const TIMEOUT: Duration = Duration::from_secs(10);
pub const WEB_SESSIONS: usize = 1000;
pub const ATTACK_SOURCES: u8 = 20;
pub const SUBSCRIBERS: usize = 100;
pub const SUBSCRIBER_SOURCES: u8 = 10;
/// Idle streams each flood source tries to hold (the server's per-source cap is 32).
pub const FLOOD_PER_SOURCE: usize = 36;
pub const FLOOD_MAX_SOURCES: usize = 72;
/// The server's default `--realtime-max-clients`.
pub const REALTIME_MAX_CLIENTS: usize = 2048;
/// The bound peak RSS is judged against (the review saw 562 MB for attack 3 alone before the fix).
pub const RSS_BOUND_MIB: f64 = 200.0;

// Traffic labels: every request is tallied under one, by status (0 = transport error/timeout).
pub const BAD_API: &str = "attack 1: bad password, data API";
pub const BAD_WEB: &str = "attack 1: bad password, Relay Web";
pub const PROBE_API: &str = "attack 1 victim: correct sign-in, data API (clean source)";
pub const PROBE_WEB: &str = "attack 1 victim: correct sign-in + connection, Relay Web (clean source)";
pub const PROBE_LOGOUT: &str = "attack 1 victim: logout after the Relay Web sign-in";
pub const FLOOD: &str = "attack 2: idle unauthenticated realtime stream";
pub const RT_CONNECT: &str = "signed-in realtime client: GET /api/realtime";
pub const RT_SUBSCRIBE: &str = "signed-in realtime client: subscribe 100 x alert_history/*";
pub const BIG_CREATE: &str = "attack 3: create a ~49 KB alert_history record";
pub const WEB_SIGNIN: &str = "web session: correct sign-in + connection";
pub const WEB_READ: &str = "web session: read contacts (list 30)";
pub const WEB_CREATE: &str = "web session: create contact";
pub const WEB_UPDATE: &str = "web session: update contact";
pub const WEB_REFETCH: &str = "web session: re-fetch app token after a 401";
pub const LOGOUT: &str = "attack 4: web session logout";
pub const OLD_OWN: &str = "attack 4: logged-out token + its own old cookie, gateway";
pub const OLD_OTHER: &str = "attack 4: logged-out token + a live session's cookie, gateway";
pub const OLD_API: &str = "attack 4: logged-out token, data API read";
pub const OLD_REFRESH: &str = "attack 4: logged-out token, data API auth-refresh";

/// Counts and latencies of one label.
#[derive(Default)]
pub struct Tally {
    pub statuses: BTreeMap<u16, u64>,
    pub latencies: Vec<Duration>,
}

/// What every load task shares: where to send, when to stop, the request budget and the tallies.
pub struct Soak {
    pub base: String,
    pub web: String,
    pub deadline: Instant,
    budget: AtomicI64,
    pub sent: AtomicU64,
    gate: Semaphore,
    pub tallies: Mutex<BTreeMap<&'static str, Tally>>,
    pub notes: Mutex<BTreeMap<&'static str, u64>>,
}

impl Soak {
    pub fn running(&self) -> bool {
        Instant::now() < self.deadline && self.budget.load(Ordering::Relaxed) > 0
    }

    /// Takes `n` requests from the budget; false once the run is over.
    fn take(&self, n: i64) -> bool {
        let ok = self.running() && self.budget.fetch_sub(n, Ordering::Relaxed) >= n;
        if ok {
            self.sent.fetch_add(n as u64, Ordering::Relaxed);
        }
        ok
    }

    /// Sleeps `d` or until the deadline; whether the run goes on.
    pub async fn sleep(&self, d: Duration) -> bool {
        tokio::time::sleep_until((Instant::now() + d).min(self.deadline)).await;
        self.running()
    }

    pub fn record(&self, label: &'static str, status: u16, elapsed: Duration) {
        let mut tallies = self.tallies.lock().unwrap();
        let tally = tallies.entry(label).or_default();
        *tally.statuses.entry(status).or_default() += 1;
        tally.latencies.push(elapsed);
    }

    pub fn note(&self, what: &'static str, n: u64) {
        *self.notes.lock().unwrap().entry(what).or_default() += n;
    }

    /// Sends a request whose body stays unread (a stream): timed to its headers.
    pub async fn send(&self, label: &'static str, req: reqwest::RequestBuilder) -> Option<reqwest::Response> {
        let _permit = self.gate.acquire().await.ok()?;
        if !self.take(1) {
            return None;
        }
        let t = Instant::now();
        let res = req.send().await;
        self.record(label, res.as_ref().map(|r| r.status().as_u16()).unwrap_or(0), t.elapsed());
        res.ok()
    }

    /// Sends a request and reads its whole body, timed together; (status, body).
    pub async fn call(&self, label: &'static str, req: reqwest::RequestBuilder) -> Option<(u16, bytes::Bytes)> {
        let _permit = self.gate.acquire().await.ok()?;
        if !self.take(1) {
            return None;
        }
        let t = Instant::now();
        let res = match req.send().await {
            Ok(res) => {
                let status = res.status().as_u16();
                res.bytes().await.ok().map(|body| (status, body))
            }
            Err(_) => None,
        };
        self.record(label, res.as_ref().map(|(s, _)| *s).unwrap_or(0), t.elapsed());
        res
    }

    /// A full Relay Web sign-in (session, then app connection), tallied under `label`.
    pub async fn web_sign_in(&self, label: &'static str, http: &reqwest::Client) -> Option<common::WebSession> {
        let _permit = self.gate.acquire().await.ok()?;
        if !self.take(2) {
            return None;
        }
        let t = Instant::now();
        let res = common::web_sign_in(http, &self.web, PASSPHRASE).await;
        self.record(label, res.as_ref().map(|_| 200).unwrap_or_else(|s| *s), t.elapsed());
        res.ok()
    }
}

/// A client whose connections come from `127.0.0.<host>`; `timeout` bounds a whole request
/// (None for held streams, which end at the soak deadline instead).
pub fn client_from(host: u8, timeout: Option<Duration>) -> reqwest::Client {
    let mut builder = reqwest::Client::builder()
        .local_address(std::net::IpAddr::from([127, 0, 0, host]))
        .connect_timeout(Duration::from_secs(5))
        .pool_max_idle_per_host(IN_FLIGHT);
    if let Some(t) = timeout {
        builder = builder.timeout(t);
    }
    builder.build().unwrap()
}

/// The soft limit on open files, from /proc/self/limits.
fn open_files_limit() -> usize {
    let limits = std::fs::read_to_string("/proc/self/limits").unwrap_or_default();
    let line = limits.lines().find(|l| l.starts_with("Max open files")).unwrap_or("");
    line.split_whitespace().nth(3).and_then(|n| n.parse().ok()).unwrap_or(1024)
}

fn env_num(name: &str, default: u64, range: std::ops::RangeInclusive<u64>) -> u64 {
    let n = std::env::var(name).ok().and_then(|v| v.parse().ok()).unwrap_or(default);
    n.clamp(*range.start(), *range.end())
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let secs = env_num("RELAY_SOAK_SECS", 60, 10..=3600);
    let cap = env_num("RELAY_SOAK_MAX_REQUESTS", 500_000, 1_000..=10_000_000);
    // The flood is sized to the fd limit: its streams, the subscribers, the short requests'
    // connections and a margin must fit. When fewer than the global cap fit, the server's cap
    // is lowered so the flood still fills it.
    let fd_limit = open_files_limit();
    let spare = fd_limit.saturating_sub(SUBSCRIBERS + 4 * IN_FLIGHT + 512);
    let flood_sources = (spare / FLOOD_PER_SOURCE).min(FLOOD_MAX_SOURCES);
    let flood_streams = flood_sources * FLOOD_PER_SOURCE;
    let max_clients =
        if flood_sources * 32 > REALTIME_MAX_CLIENTS { REALTIME_MAX_CLIENTS } else { (flood_sources * 24).max(16) };
    let max_clients_arg = max_clients.to_string();
    let mut args = vec!["--web", "--web-port", "0"];
    if max_clients != REALTIME_MAX_CLIENTS {
        args.extend(["--realtime-max-clients", &max_clients_arg]);
    }
    let server = common::server().args(&args).start();
    let pid = server.pid().expect("the server runs");
    tokio::time::sleep(Duration::from_secs(1)).await;
    let idle_rss = rss_kib(pid);

    let http = reqwest::Client::builder().timeout(TIMEOUT).pool_max_idle_per_host(IN_FLIGHT).build().unwrap();
    let token = common::api_token(&http, &server.base).await;
    let web = server.web.clone().expect("gateway started").replace("127.0.0.1", "localhost");
    let witness = common::web_sign_in(&http, &web, PASSPHRASE).await;
    let witness = Arc::new(witness.unwrap_or_else(|status| panic!("witness web session refused: {status}")));

    let started = Instant::now();
    let soak = Arc::new(Soak {
        base: server.base.clone(),
        web,
        deadline: started + Duration::from_secs(secs),
        budget: AtomicI64::new(cap as i64),
        sent: AtomicU64::new(0),
        gate: Semaphore::new(IN_FLIGHT),
        tallies: Mutex::default(),
        notes: Mutex::default(),
    });
    // RSS every 100 ms for the whole run, as (seconds since the start, KiB).
    let stop = Arc::new(AtomicBool::new(false));
    let sampler = {
        let stop = stop.clone();
        tokio::spawn(async move {
            let mut samples = Vec::new();
            while !stop.load(Ordering::Relaxed) {
                samples.push((started.elapsed(), rss_kib(pid).unwrap_or(0)));
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
            samples
        })
    };

    let mut tasks = JoinSet::new();
    for host in 2..2 + ATTACK_SOURCES {
        tasks.spawn(attacks::bad_passwords(soak.clone(), host));
    }
    tasks.spawn(attacks::prober(soak.clone(), 250));
    for source in 0..flood_sources {
        let http = client_from(30 + source as u8, None);
        for _ in 0..FLOOD_PER_SOURCE {
            tasks.spawn(attacks::idle_stream(soak.clone(), http.clone()));
        }
    }
    let subscriber_clients: Vec<_> = (0..SUBSCRIBER_SOURCES).map(|h| client_from(200 + h, None)).collect();
    for i in 0..SUBSCRIBERS {
        let http = subscriber_clients[i % subscriber_clients.len()].clone();
        let delay = Duration::from_millis(2000 + 100 * i as u64);
        tasks.spawn(attacks::subscriber(soak.clone(), http, token.clone(), delay, i as u64));
    }
    tasks.spawn(attacks::big_records(soak.clone(), token.clone()));
    for i in 0..WEB_SESSIONS {
        tasks.spawn(sessions::web_user(soak.clone(), http.clone(), i as u64, witness.clone()));
    }
    let grace = soak.deadline + TIMEOUT + Duration::from_secs(2);
    while let Ok(Some(_)) = tokio::time::timeout_at(grace, tasks.join_next()).await {}
    let unfinished = tasks.len();
    tasks.shutdown().await;
    stop.store(true, Ordering::Relaxed);
    let rss_samples = sampler.await.unwrap_or_default();
    let run = started.elapsed();
    let hwm = status_kib(pid, "VmHWM");
    let end_rss = rss_kib(pid);
    drop(server);

    let setup = report::Setup {
        secs,
        cap,
        run,
        fd_limit,
        flood_sources,
        flood_streams,
        max_clients,
        unfinished,
        idle_rss,
        peak_rss: rss_samples.iter().map(|(_, kib)| *kib).max(),
        rss_samples,
        hwm,
        end_rss,
    };
    let text = report::render(&soak, &setup);
    println!("{text}");
    if let Ok(path) = std::env::var("RELAY_SOAK_REPORT") {
        std::fs::write(path, &text).unwrap();
    }
}
