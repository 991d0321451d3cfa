//! Benchmark of a 50 MiB Wiki upload from a paired laptop over loopback, against the real
//! `relay` binary (bench profile): 13 chunks of 4 MiB posted one after another to
//! `POST /api/relay/wiki/chunks`, each with its signed claim, until the server answers `ready`
//! (assembly, whole-file SHA-256, extraction and cover in the worker included). The second case
//! drops the connection halfway through the body of chunk 7 (a raw TCP write of the headers and
//! half the bytes, then close), asks `wiki.upload.status` where the upload stands, and resumes
//! from there; the dropped chunk must not have been stored. Three rounds each, medians. Run with
//! `cargo bench -p relay --bench wiki_upload`; `RELAY_BENCH_REPORT=path` writes the Markdown.

use std::time::{Duration, Instant};

use serde_json::{json, Value};
use tokio::io::AsyncWriteExt;

use support::wiki::{activate_administrator, administrator_laptop, chunk_envelope_header, post_chunk, sha256};
use support::{admin_cli, signed_command, Device, Relay};

const PDF_BYTES: usize = 50 * 1024 * 1024;
const CHUNK: usize = 4 * 1024 * 1024;
const ROUNDS: usize = 3;
/// The chunk whose first attempt is cut off in the "with a drop" case.
const DROPPED_CHUNK: usize = 6;

/// A valid PDF of 50 MiB: one page of text plus an unused stream filling the rest.
fn fifty_mib_pdf() -> Vec<u8> {
    use infra::wiki::test_pdfs::{document, text_content};
    let contents = [text_content(&["Bench upload: the core router failover runbook".into()])];
    let (mut pdf, _) = document(&contents, "");
    let probe = {
        let (mut p, _) = document(&contents, "");
        p.add_stream(b"");
        p.finish(1).len()
    };
    // The filler's `/Length` takes a few more digits than the probe's `0`.
    pdf.add_stream(&vec![b'0'; PDF_BYTES - probe - 16]);
    let bytes = pdf.finish(1);
    assert!(bytes.len() <= PDF_BYTES && PDF_BYTES - bytes.len() < 64, "just under 50 MiB: {}", bytes.len());
    bytes
}

/// Sends the request head and half of `bytes` on a raw connection, then closes it.
async fn drop_midway(relay: &Relay, token: &str, d: &Device, claim: Value, bytes: &[u8]) {
    let authority = relay.base.trim_start_matches("http://").trim_end_matches('/').to_string();
    let mut tcp = tokio::net::TcpStream::connect(&authority).await.unwrap();
    let head = format!(
        "POST /api/relay/wiki/chunks HTTP/1.1\r\nHost: {authority}\r\nAuthorization: {token}\r\n\
         X-Relay-Envelope: {}\r\nContent-Type: application/octet-stream\r\nContent-Length: {}\r\n\r\n",
        chunk_envelope_header(d, claim),
        bytes.len()
    );
    tcp.write_all(head.as_bytes()).await.unwrap();
    tcp.write_all(&bytes[..bytes.len() / 2]).await.unwrap();
    tcp.flush().await.unwrap();
    drop(tcp);
}

async fn stored_chunks(relay: &Relay, token: &str, d: &Device) -> usize {
    let (status, body) = signed_command(relay, token, d, "wiki.upload.status", json!({}), None).await;
    assert_eq!(status, 200, "{body}");
    body["result"]["uploads"][0]["storedChunks"].as_u64().unwrap() as usize
}

/// One upload from `wiki.upload.begin` to `ready`; the batch is cancelled afterwards so the next
/// round can begin one. Returns the wall time.
async fn upload_once(relay: &Relay, token: &str, d: &Device, pdf: &[u8], with_drop: bool) -> Duration {
    let files = json!([{"fileName": "router.pdf", "byteSize": pdf.len(), "checksum": sha256(pdf)}]);
    let started = Instant::now();
    let (status, body) = signed_command(relay, token, d, "wiki.upload.begin", json!({"files": files}), None).await;
    assert_eq!(status, 200, "{body}");
    let batch = body["result"]["batchId"].as_str().unwrap().to_string();
    let upload = body["result"]["uploads"][0]["uploadId"].as_str().unwrap().to_string();
    let claim = |index: usize, part: &[u8]| json!({"uploadId": upload, "batchId": batch, "index": index, "byteSize": part.len(), "checksum": sha256(part)});
    let chunks: Vec<&[u8]> = pdf.chunks(CHUNK).collect();
    let mut index = 0;
    let mut dropped = false;
    let mut last = Value::Null;
    while index < chunks.len() {
        if with_drop && !dropped && index == DROPPED_CHUNK {
            dropped = true;
            drop_midway(relay, token, d, claim(index, chunks[index]), chunks[index]).await;
            // Where the server stands after the drop decides where the laptop resumes.
            index = stored_chunks(relay, token, d).await;
            assert_eq!(index, DROPPED_CHUNK, "the cut-off chunk was not stored");
            continue;
        }
        let (status, body) = post_chunk(relay, token, d, claim(index, chunks[index]), chunks[index]).await;
        assert_eq!(status, 200, "chunk {index}: {body}");
        last = body;
        index += 1;
    }
    let elapsed = started.elapsed();
    assert_eq!(last["state"], "ready", "{last}");
    let (status, body) = signed_command(relay, token, d, "wiki.upload.cancel", json!({"batchId": batch}), None).await;
    assert_eq!(status, 200, "{body}");
    elapsed
}

fn median(mut runs: Vec<Duration>) -> Duration {
    runs.sort();
    runs[runs.len() / 2]
}

#[tokio::main]
async fn main() {
    let relay = Relay::start();
    let token = relay.token().await;
    for step in ["set-password", "activate"] {
        let stdin = if step == "set-password" { "bench-owner-password-1\n" } else { "" };
        let (ok, out) = admin_cli(&relay.data_dir, &[step, "--username", "ryan"], stdin);
        assert!(ok, "{out}");
    }
    activate_administrator(&relay);
    let laptop = administrator_laptop(&relay, &token, 21).await;
    let pdf = fifty_mib_pdf();
    let mb = pdf.len() as f64 / 1e6;

    let mut rows = String::new();
    for (with_drop, case) in [(false, "no drop"), (true, "connection dropped mid-chunk 7, resumed")] {
        let mut runs = Vec::with_capacity(ROUNDS);
        for _ in 0..ROUNDS {
            runs.push(upload_once(&relay, &token, &laptop, &pdf, with_drop).await);
        }
        let all: Vec<String> = runs.iter().map(|d| format!("{:.2}", d.as_secs_f64())).collect();
        let m = median(runs);
        rows.push_str(&format!(
            "| {case} | {:.2} s | {:.0} MB/s | {} |\n",
            m.as_secs_f64(),
            mb / m.as_secs_f64(),
            all.join(" / ")
        ));
    }
    let report = format!(
        "### Wiki upload of a 50 MiB PDF from a paired laptop over loopback\n\n\
         {} bytes in {} signed 4 MiB chunks, begin to `ready` (assembly, whole-file SHA-256, extraction \
         and cover in the worker included); {ROUNDS} rounds, median. CPU: {}.\n\n\
         | case | median | throughput | rounds (s) |\n| --- | --- | --- | --- |\n{rows}",
        pdf.len(),
        pdf.len().div_ceil(CHUNK),
        support::bench::cpu_model(),
    );
    println!("{report}");
    if let Ok(path) = std::env::var("RELAY_BENCH_REPORT") {
        std::fs::write(path, &report).unwrap();
    }
}
