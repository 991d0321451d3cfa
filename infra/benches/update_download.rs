//! Updater download bench (issue #14): the release download of a 100 MiB archive from a
//! loopback fake GitHub through `ReleaseDownloader` (the asset API's `302` to the release-assets
//! host, the checksum file and signature first, then the archive streamed into its exclusive
//! 0600 `.part` with SHA-256 and the streaming minisign check on every chunk, fsync, rename)
//! against `curl` of the same archive URL piped into nothing but a file, followed by
//! `sha256sum` of that file (what an operator would do by hand, with no signature check and no
//! fsync). Rounds alternate Relay / curl so both see the same machine load. Plain HTTP on
//! 127.0.0.1 for both (production is HTTPS; TLS is not what this measures).
//! Run: `cargo bench -p infra --bench update_download --profile feeds-bench` (optimized with
//! debug assertions: the fake GitHub is a loopback override that release builds refuse;
//! RELAY_BENCH_REPORT=<file> also writes the Markdown report; RELAY_BENCH_ROUNDS, default 5).
//! Bounded: fixed rounds, 120 s deadline per download.

use std::process::Command;
use std::time::{Duration, Instant};

use tokio_util::sync::CancellationToken;
use zip::CompressionMethod;

use infra::updater::test_support::{
    fake_elf, storage_path, target, test_policy, zip_of, FakeGitHub, Member, Publisher, ReleaseFiles, ARCHIVE_ID,
};
use infra::updater::{ReleaseDownloader, UpdatesRoot};

const ARCHIVE_MIB: usize = 100;

fn median(values: &mut [f64]) -> f64 {
    values.sort_by(|a, b| a.total_cmp(b));
    values[values.len() / 2]
}

fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg").unwrap_or_default().split_whitespace().next().unwrap_or("?").to_string()
}

/// Seconds for `curl` to fetch `url` into `file` plus `sha256sum` of it; checks the digest.
fn curl_and_sha256sum(url: &str, file: &std::path::Path, expected_hex: &str) -> f64 {
    let started = Instant::now();
    let curl = Command::new("curl").args(["-s", "-f", "-o"]).arg(file).arg(url).status().expect("curl runs");
    assert!(curl.success(), "curl failed");
    let sum = Command::new("sha256sum").arg(file).output().expect("sha256sum runs");
    let elapsed = started.elapsed().as_secs_f64();
    let printed = String::from_utf8_lossy(&sum.stdout);
    assert_eq!(printed.split_whitespace().next(), Some(expected_hex), "sha256sum read other bytes");
    std::fs::remove_file(file).unwrap();
    elapsed
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let rounds: usize = std::env::var("RELAY_BENCH_ROUNDS").ok().and_then(|v| v.parse().ok()).unwrap_or(5);
    let executable = fake_elf(ARCHIVE_MIB * 1024 * 1024 - 64);
    let archive = zip_of(&[Member::File {
        name: "relay-desktop",
        bytes: &executable,
        method: CompressionMethod::Stored,
        mode: 0o755,
    }]);
    drop(executable);
    let publisher = Publisher::new();
    let files = ReleaseFiles::signed(&publisher, archive);
    let archive_bytes = files.archive.len() as f64;
    let expected_hex = files.archive_digest.to_string();
    let github = FakeGitHub::start().await;
    github.serve(&files);
    let tmp = tempfile::tempdir().unwrap();
    let root = UpdatesRoot::open(&tmp.path().join("relay/updates")).unwrap();
    let downloader =
        ReleaseDownloader::with_policy(test_policy(Duration::from_secs(120)), github.hosts(), publisher.key.clone())
            .unwrap();
    let install = target(&files);
    let curl_url = github.storage.url(&storage_path(ARCHIVE_ID));
    let curl_file = tmp.path().join("curl-archive.zip");

    let load_start = load_average();
    let (mut relay_secs, mut curl_secs) = (Vec::new(), Vec::new());
    for round in 0..rounds {
        let relay_first = round % 2 == 0;
        for relay_turn in [relay_first, !relay_first] {
            if relay_turn {
                let started = Instant::now();
                let downloaded = downloader
                    .download(&root, &install, &mut |_| {}, &CancellationToken::new())
                    .await
                    .expect("the release downloads and verifies");
                relay_secs.push(started.elapsed().as_secs_f64());
                assert_eq!(downloaded.archive_sha256.to_string(), expected_hex);
                drop(downloaded); // removes its version directory
            } else {
                curl_secs.push(curl_and_sha256sum(&curl_url, &curl_file, &expected_hex));
            }
        }
    }
    let load_end = load_average();
    let mib = archive_bytes / (1024.0 * 1024.0);
    let (relay, curl) = (median(&mut relay_secs), median(&mut curl_secs));
    let report = format!(
        "| measure ({rounds} rounds, medians; load average {load_start} → {load_end}) | value |\n\
         | --- | --- |\n\
         | archive | {mib:.1} MiB (one stored `relay-desktop` member) |\n\
         | Relay: download + SHA-256 + signature + checksum file + fsync + rename | {relay:.2} s ({:.0} MiB/s) |\n\
         | `curl` to a file + `sha256sum` | {curl:.2} s ({:.0} MiB/s) |\n\
         | Relay / curl throughput | {:.0}% |\n\
         | every Relay round (s) | {} |\n\
         | every curl round (s) | {} |\n",
        mib / relay,
        mib / curl,
        100.0 * curl / relay,
        relay_secs.iter().map(|s| format!("{s:.2}")).collect::<Vec<_>>().join(", "),
        curl_secs.iter().map(|s| format!("{s:.2}")).collect::<Vec<_>>().join(", "),
    );
    println!("{report}");
    if let Ok(path) = std::env::var("RELAY_BENCH_REPORT") {
        std::fs::write(path, &report).unwrap();
    }
}
