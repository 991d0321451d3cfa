//! Status-feed bench: parse throughput per wire format over the recorded fixtures (MB/s,
//! items/s, allocations per parse) and full `poll_all` rounds against the fixtures on one
//! loopback fake upstream (wall time, allocations per poll), counted by a global allocator in
//! this binary. The poll part needs the debug-only upstream override, so run it with the
//! `feeds-bench` profile (release optimisations plus debug assertions):
//! `cargo bench -p infra --bench status_feeds --profile feeds-bench`. Bounded: each parse
//! case runs for about 0.4 s, the poll part 20 rounds, all traffic to 127.0.0.1.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use domain::status_feeds::ProviderId;
use fake_upstream::{FakeUpstream, Reply};
use infra::status_feeds::testdata::{self, FIXTURE_NOW_MS, ROUTES};
use infra::status_feeds::{mist, parse_document, proofpoint, CancellationToken, FeedLimits, StatusFeedClient};

struct Counting;

static ALLOCATIONS: AtomicU64 = AtomicU64::new(0);
static ALLOCATED_BYTES: AtomicU64 = AtomicU64::new(0);

// SAFETY: every call is forwarded unchanged to the system allocator; only counters are added.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        ALLOCATED_BYTES.fetch_add(layout.size() as u64, Ordering::Relaxed);
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        ALLOCATED_BYTES.fetch_add(new_size as u64, Ordering::Relaxed);
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

fn counters() -> (u64, u64) {
    (ALLOCATIONS.load(Ordering::Relaxed), ALLOCATED_BYTES.load(Ordering::Relaxed))
}

fn parse_case(name: &str, bytes: &[u8], parse: impl Fn(&[u8]) -> usize) {
    for _ in 0..3 {
        parse(bytes);
    }
    let (allocs_before, _) = counters();
    let start = Instant::now();
    let (mut rounds, mut items) = (0u64, 0u64);
    while start.elapsed() < Duration::from_millis(400) {
        items += parse(bytes) as u64;
        rounds += 1;
    }
    let secs = start.elapsed().as_secs_f64();
    let allocs = counters().0 - allocs_before;
    let mb = bytes.len() as f64 * rounds as f64 / (1024.0 * 1024.0);
    println!(
        "{name:<34} {:>7} B  {:>8.1} MB/s  {:>10.0} items/s  {:>7.0} allocs/parse",
        bytes.len(),
        mb / secs,
        items as f64 / secs,
        allocs as f64 / rounds as f64
    );
}

fn doc(provider: ProviderId) -> impl Fn(&[u8]) -> usize {
    move |bytes| parse_document(provider, bytes, FIXTURE_NOW_MS).expect("fixture parses").len()
}

/// An RSS document of `n` realistic items (CDATA HTML descriptions), for a feed-sized input.
fn synthetic_rss(n: usize) -> Vec<u8> {
    let mut out = String::from("<?xml version=\"1.0\"?><rss version=\"2.0\"><channel><title>Azure Status</title>");
    for i in 0..n {
        out.push_str(&format!(
            "<item><guid isPermaLink=\"false\">TRK-{i}</guid><link>https://azure.status.microsoft/h/?trackingId=TRK-{i}</link>\
             <title>Service {i} - Intermittent connectivity issues in West Europe</title>\
             <description><![CDATA[<p><strong>Impact Statement:</strong> Starting at 11:20 UTC a subset of customers may \
             experience <em>intermittent</em> failures&nbsp;reaching resources.</p><p>Engineers are mitigating.</p>]]></description>\
             <pubDate>Tue, 10 Jun 2025 13:30:00 GMT</pubDate></item>"
        ));
    }
    out.push_str("</channel></rss>");
    out.into_bytes()
}

fn parse_benches() {
    println!("== parse throughput (fixtures repeated; ~0.4 s each) ==");
    parse_case("rss: aws_all.rss", testdata::AWS_RSS, doc(ProviderId::Aws));
    parse_case("rss: azure_status.rss", testdata::AZURE_RSS, doc(ProviderId::Azure));
    parse_case("atom: m365_feed.atom", testdata::M365_ATOM, doc(ProviderId::M365));
    parse_case("rss: synthetic 200 items", &synthetic_rss(200), doc(ProviderId::Azure));
    parse_case("statuspage: summary.json", testdata::STATUSPAGE_SUMMARY, doc(ProviderId::Github));
    parse_case("google: incidents.json", testdata::GOOGLE_INCIDENTS, doc(ProviderId::Google));
    parse_case("salesforce: incidents/active", testdata::SALESFORCE_INCIDENTS, doc(ProviderId::Salesforce));
    parse_case("statusio: dynatrace", testdata::DYNATRACE_STATUS, doc(ProviderId::Dynatrace));
    parse_case("mist: notices", testdata::MIST_NOTICES, |b| mist::parse_notices(b).expect("parses").len());
    parse_case("mist: components", testdata::MIST_COMPONENTS, |b| mist::parse_components(b).expect("parses").len());
    parse_case("proofpoint: page bootstrap", testdata::PROOFPOINT_PAGE, |b| {
        proofpoint::parse_bootstrap(b).map(|_| 1).expect("parses")
    });
    parse_case("proofpoint: aura response", testdata::PROOFPOINT_AURA, doc(ProviderId::Proofpoint));
    parse_case("statusgator: html page", testdata::STATUSGATOR_DOWN, doc(ProviderId::Crowdstrike));
}

async fn poll_bench() {
    println!("== poll_all against the fixtures on one loopback fake upstream (20 rounds) ==");
    if !cfg!(debug_assertions) {
        println!("skipped: the loopback override exists only with debug assertions (use --profile feeds-bench)");
        return;
    }
    let fake = FakeUpstream::start().await;
    for (method, path, content_type, body) in ROUTES {
        fake.route(method, path, Reply::content(content_type, body.to_vec()));
    }
    let client = StatusFeedClient::with_limits(FeedLimits::default())
        .expect("client builds")
        .with_upstream_override(&fake.base_url());
    let cancel = CancellationToken::new();
    let polls = client.poll_all(FIXTURE_NOW_MS, &cancel).await;
    assert!(polls.iter().all(|p| p.outcome.is_ok()), "warm-up poll failed: {polls:?}");
    let mut times = Vec::new();
    let (allocs_before, bytes_before) = counters();
    for _ in 0..20 {
        let start = Instant::now();
        let polls = client.poll_all(FIXTURE_NOW_MS, &cancel).await;
        times.push(start.elapsed());
        assert_eq!(polls.len(), 17);
    }
    let (allocs, bytes) = (counters().0 - allocs_before, counters().1 - bytes_before);
    times.sort();
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    println!(
        "poll_all (17 providers, 19 requests)  median {:.2} ms  p90 {:.2} ms  max {:.2} ms  {:.0} allocs/poll  {:.0} KiB allocated/poll",
        ms(times[times.len() / 2]),
        ms(times[times.len() * 9 / 10]),
        ms(times[times.len() - 1]),
        allocs as f64 / 20.0,
        bytes as f64 / 20.0 / 1024.0
    );
    println!("(allocation counts include the fake upstream serving in the same process)");
}

fn main() {
    if std::env::args().any(|a| a == "--list") {
        return;
    }
    parse_benches();
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("runtime");
    runtime.block_on(poll_bench());
}
