//! Image pipeline benchmark (issue #17 item 4): wall time and peak RSS of the logo pipeline
//! (`infra::images::process_logo`) on a noisy PNG just under the 2 MiB input limit, of the
//! alert-body pipeline on the same file, and of refusing two decompression bombs: a real
//! 8000x8000 all-black PNG (tens of KiB compressed, 64 megapixels declared) and an 8x8 PNG
//! whose header claims 20000x20000. Each case runs in its own child process (this executable
//! re-run with `RELAY_BENCH_IMAGES_CASE`), which reports its median time over the runs and its
//! `VmHWM` (peak RSS) before and after, so one case's allocations never count for another.
//! Run with `cargo bench -p relay --bench images`; `RELAY_BENCH_REPORT=path` writes the
//! Markdown table. Bounded: fixed inputs, fixed run counts.

use std::process::Command;
use std::time::Instant;

use support::bench::{cpu_model, mib, status_kib};

const CASE_ENV: &str = "RELAY_BENCH_IMAGES_CASE";
const FILE_ENV: &str = "RELAY_BENCH_IMAGES_FILE";
const RUNS: usize = 5;

fn noisy_png(w: u32, h: u32) -> Vec<u8> {
    infra::images::testdata::noisy_rgb_png(w, h, 0x9E37_79B9)
}

fn header_bomb() -> Vec<u8> {
    infra::images::testdata::png_declaring(20_000, 20_000)
}

/// Child: run one case on the file and print `median_ms hwm_before_kib hwm_after_kib outcome`.
fn run_case(case: &str, path: &str) {
    let input = std::fs::read(path).unwrap();
    let me = std::process::id();
    let before = status_kib(me, "VmHWM").unwrap_or(0);
    let mut times = Vec::new();
    let mut outcome = String::new();
    for _ in 0..RUNS {
        let started = Instant::now();
        let result = match case {
            "body" => infra::images::process_body_image(&input),
            _ => infra::images::process_logo(&input),
        };
        times.push(started.elapsed());
        outcome = match result {
            Ok(out) => format!("ok {}x{} {} bytes", out.width, out.height, out.bytes.len()),
            Err(e) => format!("refused {}", domain::problem::HttpProblem::code(&e)),
        };
    }
    times.sort();
    let after = status_kib(me, "VmHWM").unwrap_or(0);
    println!("{:.2}\t{before}\t{after}\t{outcome}", times[RUNS / 2].as_secs_f64() * 1e3);
}

fn main() {
    if let (Ok(case), Ok(path)) = (std::env::var(CASE_ENV), std::env::var(FILE_ENV)) {
        return run_case(&case, &path);
    }
    let dir = tempfile::tempdir().unwrap();
    let logo = noisy_png(820, 820);
    assert!(logo.len() <= domain::images::MAX_LOGO_INPUT_BYTES, "{} bytes", logo.len());
    let black = infra::images::testdata::encode_png(&vec![0; 8000 * 8000], 8000, 8000, image::ExtendedColorType::L8);
    let inputs = [
        ("logo", "noisy 820x820 RGB PNG", logo),
        ("body", "noisy 820x820 RGB PNG (alert body)", Vec::new()),
        ("logo", "bomb: 8000x8000 black PNG", black),
        ("logo", "bomb: 8x8 PNG declaring 20000x20000", header_bomb()),
    ];
    let mut rows = Vec::new();
    let mut previous = Vec::new();
    for (i, (case, label, bytes)) in inputs.into_iter().enumerate() {
        let bytes = if bytes.is_empty() { previous.clone() } else { bytes };
        let path = dir.path().join(format!("input-{i}.png"));
        std::fs::write(&path, &bytes).unwrap();
        let out = Command::new(std::env::current_exe().unwrap())
            .env(CASE_ENV, case)
            .env(FILE_ENV, &path)
            .output()
            .expect("run case");
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let line = String::from_utf8_lossy(&out.stdout).trim().to_string();
        let f: Vec<&str> = line.splitn(4, '\t').collect();
        let kib = |s: &str| s.parse::<u64>().ok();
        rows.push(format!(
            "| {label} | {} KiB | {} ms | {} | {} | {} |",
            bytes.len() / 1024,
            f[0],
            mib(kib(f[1])),
            mib(kib(f[2])),
            f[3]
        ));
        previous = bytes;
    }
    let mut report = format!(
        "Machine: {} ({} cores), bench profile (release); median of {RUNS} runs per case, each case in its own process.\n\n\
         | input | size | time | VmHWM before | VmHWM after | result |\n|---|---|---|---|---|---|\n",
        cpu_model(),
        std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1)
    );
    for row in rows {
        report.push_str(&row);
        report.push('\n');
    }
    println!("{report}");
    if let Ok(path) = std::env::var("RELAY_BENCH_REPORT") {
        std::fs::write(path, &report).unwrap();
    }
}
