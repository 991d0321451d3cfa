//! What the benches and the soak need beyond the black-box tests: which `relay` build to measure
//! (`RELAY_BENCH_BIN` for another commit's), a bench server's start options (the harness's
//! [`Relay::builder`] bound like a plain `relay serve`, logging warnings only), and what they
//! measure a running server with: `/proc/<pid>/status` memory fields, latency percentiles and
//! the CPU model for the report. The sign-ins are the black-box tests' ([`crate::web`]).

use std::path::{Path, PathBuf};
use std::time::Duration;

pub use crate::relay::PASSPHRASE;
use crate::relay::{Relay, RelayBuilder};
pub use crate::web::{api_token, web_sign_in, WebSession};

/// The binary under test: this build's `relay`, or `RELAY_BENCH_BIN` to measure another build
/// (an older commit) with the same bench.
pub fn bench_bin() -> PathBuf {
    std::env::var_os("RELAY_BENCH_BIN").map(PathBuf::from).unwrap_or_else(|| crate::process::relay_bin().into())
}

/// A bench server's start options: [`bench_bin`] on a fresh temporary data directory, bound to
/// 0.0.0.0 (`relay serve`'s default), at log level `warn`. With `RELAY_BENCH_SERVER_LOG=path` the
/// server's log (warnings, and the backup phase timings at info level) goes to that file.
pub fn server() -> RelayBuilder {
    let builder = Relay::builder().bin(bench_bin()).bind("0.0.0.0").log_level("warn");
    match std::env::var_os("RELAY_BENCH_SERVER_LOG") {
        Some(log) => builder.envs([("RELAY_LOG", "warn,infra::backup=info")]).stderr_log(Path::new(&log)),
        None => builder,
    }
}

/// A `/proc/<pid>/status` field in KiB (`VmRSS`, `VmHWM`, ...).
pub fn status_kib(pid: u32, field: &str) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.strip_prefix(field).is_some_and(|r| r.starts_with(':')))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

pub fn rss_kib(pid: u32) -> Option<u64> {
    status_kib(pid, "VmRSS")
}

pub fn mib(kib: Option<u64>) -> String {
    kib.map(|k| format!("{:.1} MiB", k as f64 / 1024.0)).unwrap_or_else(|| "n/a".into())
}

/// The `p` quantile (0..=1) of sorted latencies, in milliseconds (0 when empty).
pub fn pct(sorted: &[Duration], p: f64) -> f64 {
    sorted.get(((sorted.len().max(1) - 1) as f64 * p).round() as usize).map(|d| d.as_secs_f64() * 1e3).unwrap_or(0.0)
}

/// The CPU model line of /proc/cpuinfo.
pub fn cpu_model() -> String {
    std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("model name"))
                .map(|l| l.split(':').nth(1).unwrap_or("").trim().to_string())
        })
        .unwrap_or_else(|| "unknown".into())
}
