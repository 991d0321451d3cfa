//! Wiki bench (issue #15): search latency over 100,000 passages in a real migrated store (BM25
//! over the FTS5 index, the query mix an operator types: one to three words, the last a
//! prefix; goal p95 < 20 ms), extraction of a 1,000-page PDF in process (pages/s) and in the
//! worker process the server uses (wall time, peak RSS of the worker from `RUSAGE_CHILDREN`),
//! and the staging path of a 50 MiB upload (13 chunks written, assembled and hashed; MB/s).
//! Run: `cargo bench -p infra --bench wiki` (RELAY_BENCH_REPORT=<file> also writes the report).
//! Bounded: a fixed corpus, 600 queries, one extraction of each kind, three staging rounds.

use std::time::{Duration, Instant};

use serde_json::json;

use domain::collections::WIKI_DOCUMENTS;
use domain::wiki::{check_query, normalize_for_search, Passage, SearchTerms};
use infra::store::create_in;
use infra::wiki::extract::{extract_pdf, ExtractLimits};
use infra::wiki::files::{sha256_hex, WikiFiles};
use infra::wiki::search::{common_words, replace_passages, search_passages, SearchFilter};
use infra::wiki::test_pdfs::{document, text_content};
use infra::wiki::worker::{extract_in_worker, EXTRACT_DEADLINE, WORKER_ARG};
use infra::worker::WorkerCommand;

const DOCUMENTS: usize = 500;
const PASSAGES_PER_DOCUMENT: usize = 200;
const QUERIES: usize = 600;

/// A deterministic generator (no rand dependency in the measured loop).
struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
        self.0 >> 33
    }

    /// Roughly Zipf-distributed index below `n`: common words are common.
    fn zipf(&mut self, n: usize) -> usize {
        let u = (self.next() % 1_000_000) as f64 / 1_000_000.0;
        ((n as f64).powf(u) as usize).saturating_sub(1).min(n - 1)
    }
}

fn vocabulary() -> Vec<String> {
    let stems = [
        "router",
        "switch",
        "firewall",
        "vpn",
        "tunnel",
        "bgp",
        "ospf",
        "link",
        "circuit",
        "carrier",
        "ticket",
        "escalate",
        "restart",
        "collector",
        "probe",
        "alarm",
        "outage",
        "failover",
        "standby",
        "primary",
        "backup",
        "dns",
        "dhcp",
        "proxy",
        "certificate",
        "expiry",
        "license",
        "storage",
        "volume",
        "cluster",
        "node",
        "latency",
        "packet",
        "loss",
        "jitter",
        "voice",
        "trunk",
        "gateway",
        "peer",
        "session",
    ];
    let mut words: Vec<String> = stems.iter().map(|s| s.to_string()).collect();
    for i in 0..4000 {
        words.push(format!("{}{}", stems[i % stems.len()], i));
    }
    words
}

fn passage_text(rng: &mut Lcg, words: &[String]) -> String {
    let mut text = String::with_capacity(950);
    while text.len() < 900 {
        text.push_str(&words[rng.zipf(words.len())]);
        text.push(' ');
    }
    text
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    sorted[((sorted.len() as f64 * p) as usize).min(sorted.len() - 1)]
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

fn bench_search(report: &mut String) {
    // RELAY_BENCH_WIKI_DB=<dir> keeps the corpus there and reuses it on the next run.
    let tmp = tempfile::tempdir().unwrap();
    let dir = std::env::var_os("RELAY_BENCH_WIKI_DB").map_or_else(|| tmp.path().to_path_buf(), Into::into);
    std::fs::create_dir_all(&dir).unwrap();
    let reuse = dir.join("relay.db").exists();
    let (pool, _) = infra::db::open(&dir.join("relay.db"), 1).unwrap();
    let mut conn = pool.get().unwrap();
    let words = vocabulary();
    let mut rng = Lcg(42);
    let loaded = Instant::now();
    for d in (0..DOCUMENTS).filter(|_| !reuse) {
        let checksum = format!("{d:064x}");
        let body = json!({"sourceKey": format!("k{d}"), "categoryId": "wikiuncategoriz", "documentType": "sop",
            "title": format!("Runbook {d}"), "fileName": format!("{d}.pdf"), "checksum": checksum, "byteSize": 1,
            "pageCount": PASSAGES_PER_DOCUMENT / 2, "lifecycleState": "active"});
        let id = create_in(&mut conn, &WIKI_DOCUMENTS, &body, 0).unwrap()["id"].as_str().unwrap().to_string();
        let passages: Vec<Passage> = (0..PASSAGES_PER_DOCUMENT)
            .map(|p| {
                let text = passage_text(&mut rng, &words);
                let normalized = normalize_for_search(&text).text;
                Passage {
                    page_number: (p / 2 + 1) as u32,
                    passage_number: (p % 2 + 1) as u32,
                    heading_id: None,
                    heading: None,
                    normalized_start: 0,
                    normalized_end: normalized.chars().count(),
                    normalized_text: normalized,
                    text,
                }
            })
            .collect();
        replace_passages(&mut conn, &id, &checksum, &passages, 1).unwrap();
    }
    let load_time = loaded.elapsed();
    let total = DOCUMENTS * PASSAGES_PER_DOCUMENT;
    let db_bytes = std::fs::metadata(dir.join("relay.db")).map(|m| m.len()).unwrap_or(0)
        + std::fs::metadata(dir.join("relay.db-wal")).map(|m| m.len()).unwrap_or(0);

    let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    let load = load.split_whitespace().next().unwrap_or("?").to_string();
    let mut rows = String::new();
    for (mix, describe) in [
        (QueryMix::Common, "words drawn by corpus frequency (mostly words in most passages)"),
        (QueryMix::Specific, "frequency-drawn words, the last a whole word outside the 400 most frequent"),
        (QueryMix::Whole, "frequency-drawn words typed in full (the last searched as a prefix, any length)"),
    ] {
        // The queries have their own generator, so a reused corpus gets the same queries.
        let times = run_queries(&mut conn, &words, &mut Lcg(4242), mix);
        rows.push_str(&format!(
            "| {describe} | {:.2} / {:.2} ms | {:.2} ms | {:.2} ms | {:.2} ms | {:.2} ms | {:.2} ms | {:.1} |\n",
            ms(percentile(&times.wall, 0.50)),
            ms(percentile(&times.wall, 0.95)),
            ms(percentile(&times.cpu, 0.50)),
            ms(percentile(&times.cpu, 0.95)),
            ms(percentile(&times.cpu, 0.99)),
            ms(*times.cpu.last().unwrap()),
            ms(percentile(&times.word_check_cpu, 0.95)),
            times.hits as f64 / QUERIES as f64,
        ));
    }
    report.push_str(&format!(
        "## Search over {total} passages ({DOCUMENTS} documents)\n\n\
         Loaded in {:.1} s; store {:.0} MiB. {QUERIES} queries per mix (1-3 words; the last is searched as a \
         prefix), 20 results each.\n\n\
         Wall time depends on what else the machine runs; the CPU time of the searching thread \
         (`CLOCK_THREAD_CPUTIME_ID`) much less, so both are given (load average at the start: {load}).\n\n\
         | query mix | wall p50 / p95 | CPU p50 | CPU p95 | CPU p99 | CPU max | common-word check CPU p95 | hits |\n\
         | --- | --- | --- | --- | --- | --- | --- | --- |\n{rows}\n",
        load_time.as_secs_f64(),
        db_bytes as f64 / 1048576.0,
    ));
}

#[derive(Clone, Copy)]
enum QueryMix {
    Common,
    Specific,
    Whole,
}

/// Per-query times of one mix, each sorted.
struct QueryTimes {
    wall: Vec<Duration>,
    cpu: Vec<Duration>,
    word_check_cpu: Vec<Duration>,
    hits: usize,
}

/// CPU time used by the calling thread so far.
fn thread_cpu() -> Duration {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: `ts` is a valid, writable timespec for the call.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32)
}

fn run_queries(conn: &mut diesel::SqliteConnection, words: &[String], rng: &mut Lcg, mix: QueryMix) -> QueryTimes {
    let mut times = QueryTimes {
        wall: Vec::with_capacity(QUERIES),
        cpu: Vec::with_capacity(QUERIES),
        word_check_cpu: Vec::with_capacity(QUERIES),
        hits: 0,
    };
    for q in 0..QUERIES {
        let terms = 1 + q % 3;
        let mut query: Vec<String> = (0..terms).map(|_| words[rng.zipf(words.len())].clone()).collect();
        match mix {
            // The last word as typed so far: a prefix of 3 to 6 characters.
            QueryMix::Common => {
                let last = query.pop().unwrap();
                let cut = (3 + q % 4).min(last.len());
                query.push(last[..cut].to_string());
            }
            // The operator finished typing a word that is not among the 400 most frequent.
            QueryMix::Specific => {
                query.pop();
                query.push(words[400 + (rng.next() as usize) % (words.len() - 400)].clone());
            }
            // The operator finished typing every word, the last one included.
            QueryMix::Whole => {}
        }
        let typed = query.join(" ");
        let started = Instant::now();
        let cpu_started = thread_cpu();
        // What the wiki actor does: leave out whole words found in most passages.
        let terms = SearchTerms::from_query(&check_query(&typed).unwrap()).unwrap();
        let whole = &terms.tokens()[..terms.tokens().len() - 1];
        let common = common_words(conn, whole).unwrap();
        let word_check = thread_cpu() - cpu_started;
        let expression = terms.without_common(|w| common.iter().any(|c| c == w)).fts_match_expression();
        let found = search_passages(conn, &expression, &SearchFilter::default(), 20).unwrap();
        times.wall.push(started.elapsed());
        times.cpu.push(thread_cpu() - cpu_started);
        times.word_check_cpu.push(word_check);
        times.hits += found.len();
    }
    times.wall.sort();
    times.cpu.sort();
    times.word_check_cpu.sort();
    times
}

fn thousand_page_pdf() -> Vec<u8> {
    let line = "Check the standby link, drain the tunnels and escalate to the carrier after 30 minutes.";
    let contents: Vec<Vec<u8>> = (1..=1000)
        .map(|n| {
            let lines: Vec<String> = (0..24).map(|i| format!("{n}.{i} {line}")).collect();
            text_content(&lines)
        })
        .collect();
    let (pdf, _) = document(&contents, "");
    pdf.finish(1)
}

fn children_max_rss_kib() -> i64 {
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: `usage` is a valid, writable rusage for the call.
    unsafe { libc::getrusage(libc::RUSAGE_CHILDREN, &mut usage) };
    usage.ru_maxrss
}

fn bench_extraction(report: &mut String) {
    let pdf = thousand_page_pdf();
    let started = Instant::now();
    let extracted = extract_pdf(&pdf, &ExtractLimits::default()).unwrap();
    let in_process = started.elapsed();
    let chars: usize = extracted.pages.iter().map(|p| p.len()).sum();

    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join("big.pdf");
    {
        use std::io::Write;
        use std::os::unix::fs::OpenOptionsExt;
        let mut f = std::fs::OpenOptions::new().write(true).create_new(true).mode(0o600).open(&path).unwrap();
        f.write_all(&pdf).unwrap();
    }
    let command = WorkerCommand::current_exe(&[WORKER_ARG]).unwrap();
    let started = Instant::now();
    let output = extract_in_worker(&command, &path, tmp.path(), EXTRACT_DEADLINE).unwrap();
    let in_worker = started.elapsed();
    let rss = children_max_rss_kib();
    let cover = output.cover.is_ok();
    report.push_str(&format!(
        "## Extraction of a 1,000-page PDF ({:.1} MiB, {:.1} M characters of text)\n\n\
         | where | wall time | pages/s | peak RSS |\n| --- | --- | --- | --- |\n\
         | in process (`extract_pdf`) | {:.2} s | {:.0} | — |\n\
         | worker process (`extract_in_worker`, cover {}) | {:.2} s | {:.0} | {:.0} MiB (worker and pdftoppm, max) |\n\n",
        pdf.len() as f64 / 1048576.0,
        chars as f64 / 1e6,
        in_process.as_secs_f64(),
        1000.0 / in_process.as_secs_f64(),
        if cover { "rendered" } else { "not rendered" },
        in_worker.as_secs_f64(),
        1000.0 / in_worker.as_secs_f64(),
        rss as f64 / 1024.0,
    ));
}

fn bench_staging(report: &mut String) {
    let size = 50 * 1024 * 1024;
    let chunk = domain::wiki::limits::UPLOAD_CHUNK_BYTES as usize;
    let mut rng = Lcg(7);
    let mut bytes: Vec<u8> = (0..size).map(|_| rng.next() as u8).collect();
    bytes[..5].copy_from_slice(b"%PDF-");
    let mut rounds = Vec::new();
    for round in 0..3 {
        let tmp = tempfile::tempdir().unwrap();
        let files = WikiFiles::new(tmp.path());
        let upload = format!("benchupload{round:04}");
        let started = Instant::now();
        let mut sizes = Vec::new();
        for (i, part) in bytes.chunks(chunk).enumerate() {
            let _ = sha256_hex(part);
            files.write_chunk(&upload, i as u64, part).unwrap();
            sizes.push(part.len() as u64);
        }
        let (_, checksum) = files.assemble(&upload, &sizes, size as u64).unwrap();
        rounds.push(started.elapsed());
        assert_eq!(checksum, sha256_hex(&bytes));
    }
    rounds.sort();
    let median = rounds[1];
    report.push_str(&format!(
        "## Staging a 50 MiB upload (13 chunks: chunk SHA-256, owner-only write + fsync + rename, assembly + whole-file SHA-256)\n\n\
         Median of 3: {:.2} s, {:.0} MB/s.\n\n",
        median.as_secs_f64(),
        size as f64 / 1e6 / median.as_secs_f64()
    ));
}

fn main() {
    if let Some(code) = infra::worker::run_if_worker() {
        std::process::exit(code);
    }
    if std::env::args().any(|a| a == "--list" || a == "--test") {
        return;
    }
    let mut report = String::from("# Wiki bench\n\n");
    bench_search(&mut report);
    // RELAY_BENCH_WIKI_ONLY=search skips the extraction and staging parts.
    if std::env::var("RELAY_BENCH_WIKI_ONLY").as_deref() != Ok("search") {
        bench_extraction(&mut report);
        bench_staging(&mut report);
    }
    print!("{report}");
    if let Ok(path) = std::env::var("RELAY_BENCH_REPORT") {
        std::fs::write(path, &report).unwrap();
    }
}
