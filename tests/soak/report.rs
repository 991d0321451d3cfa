//! The soak's Markdown report: the four goals (each with its measured value and whether it held),
//! then every kind of traffic with its answers by status and p50/p99, and the stream counters.

use std::fmt::Write;
use std::time::Duration;

use crate::attacks::{FLOOD_CLOSED, RT_BYTES, RT_DROPPED, RT_FRAMES, RT_NO_HELLO};
use crate::*;
use support::bench::{cpu_model, mib, pct};

/// How the run was set up and what the sampler saw of the server.
pub struct Setup {
    pub secs: u64,
    pub cap: u64,
    pub run: Duration,
    pub fd_limit: usize,
    pub flood_sources: usize,
    pub flood_streams: usize,
    pub max_clients: usize,
    pub unfinished: usize,
    pub idle_rss: Option<u64>,
    pub peak_rss: Option<u64>,
    pub hwm: Option<u64>,
    pub end_rss: Option<u64>,
    /// (time since the start, RSS KiB) every 100 ms.
    pub rss_samples: Vec<(Duration, u64)>,
}

/// Requests sent by signed-in clients (realtime subscribers and web sessions).
const SIGNED_IN: &[&str] = &[RT_CONNECT, RT_SUBSCRIBE, WEB_READ, WEB_CREATE, WEB_UPDATE, WEB_REFETCH, LOGOUT];
const CORRECT_SIGN_INS: &[&str] = &[PROBE_API, PROBE_WEB, WEB_SIGNIN];
const OLD_TOKEN: &[&str] = &[OLD_OWN, OLD_OTHER, OLD_API, OLD_REFRESH];
const TRAFFIC: &[&str] = &[
    BAD_API,
    BAD_WEB,
    PROBE_API,
    PROBE_WEB,
    PROBE_LOGOUT,
    FLOOD,
    RT_CONNECT,
    RT_SUBSCRIBE,
    BIG_CREATE,
    WEB_SIGNIN,
    WEB_READ,
    WEB_CREATE,
    WEB_UPDATE,
    WEB_REFETCH,
    LOGOUT,
    OLD_OWN,
    OLD_OTHER,
    OLD_API,
    OLD_REFRESH,
];

fn yes(ok: bool) -> &'static str {
    if ok {
        "yes"
    } else {
        "**NO**"
    }
}

fn statuses(t: &Tally) -> String {
    let shown: Vec<String> = t
        .statuses
        .iter()
        .map(|(s, n)| if *s == 0 { format!("timeout/error {n}") } else { format!("{s}: {n}") })
        .collect();
    shown.join(", ")
}

pub fn render(s: &Soak, st: &Setup) -> String {
    let mut tallies = s.tallies.lock().unwrap();
    for t in tallies.values_mut() {
        t.latencies.sort();
    }
    let notes = s.notes.lock().unwrap();
    let note = |what: &str| notes.get(what).copied().unwrap_or(0);
    let total = |label: &str| tallies.get(label).map(|t| t.statuses.values().sum()).unwrap_or(0u64);
    let count = |label: &str, pred: &dyn Fn(u16) -> bool| -> u64 {
        tallies.get(label).map(|t| t.statuses.iter().filter(|(s, _)| pred(**s)).map(|(_, n)| n).sum()).unwrap_or(0)
    };
    let per = |labels: &[&str], pred: &dyn Fn(u16) -> bool| -> (u64, u64, String) {
        let (hit, all): (u64, u64) = labels.iter().fold((0, 0), |(h, a), l| (h + count(l, pred), a + total(l)));
        let parts: Vec<String> = labels.iter().map(|l| format!("{} of {}", count(l, pred), total(l))).collect();
        (hit, all, parts.join(" / "))
    };

    let (refused, signins, refused_parts) = per(CORRECT_SIGN_INS, &|s| s != 200);
    let (s503, signed_in, s503_parts) = per(SIGNED_IN, &|s| s == 503);
    let (other, _, other_parts) = per(SIGNED_IN, &|s| !matches!(s, 200 | 204 | 503));
    let (accepted, probes, accepted_parts) = per(OLD_TOKEN, &|s| (200..300).contains(&s));
    let peak = st.peak_rss.max(st.hwm);
    let peak_mib = peak.unwrap_or(0) as f64 / 1024.0;
    let mut web_lat: Vec<Duration> = [WEB_READ, WEB_CREATE, WEB_UPDATE]
        .iter()
        .flat_map(|l| tallies.get(l).map(|t| t.latencies.clone()).unwrap_or_default())
        .collect();
    web_lat.sort();

    let mut out = String::new();
    let cores = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1);
    let _ = writeln!(out, "## Soak: the four #11 attacks at once + 1,000 web sessions\n");
    let _ = writeln!(
        out,
        "Machine: {cores} cores ({}), bench profile (release); load generator on the same cores.\n\
         Run: {} s planned, {:.1} s measured, {} requests sent (cap {}), at most {IN_FLIGHT} short requests in \
         flight, open-file limit {}, {} task(s) still busy at the end (aborted).\n",
        cpu_model(),
        st.secs,
        st.run.as_secs_f64(),
        s.sent.load(std::sync::atomic::Ordering::Relaxed),
        st.cap,
        st.fd_limit,
        st.unfinished,
    );
    let _ = writeln!(
        out,
        "Load: {ATTACK_SOURCES} sources x 2 bad passwords every 100 ms (data API + Relay Web), a clean source \
         signing in each second on both; {} idle realtime streams attempted from {} sources (server cap {} \
         streams, 32 per source); {SUBSCRIBERS} signed-in subscribers from {SUBSCRIBER_SOURCES} sources, \
         each with 100 x `alert_history/*`, reconnecting every 15-25 s; bursts of 5 x ~49 KB alert records \
         every 5 s; {WEB_SESSIONS} Relay Web sessions (one request every 1-3 s each, 1 % of them logouts \
         followed by old-token probes and a new sign-in).\n",
        st.flood_streams, st.flood_sources, st.max_clients,
    );
    let _ = writeln!(out, "| goal | measured | met |\n| --- | --- | --- |");
    let _ = writeln!(
        out,
        "| correct sign-ins refused: 0 (clean prober on data API / on Relay Web / web sessions) | {refused} of \
         {signins} ({refused_parts}) | {} |",
        yes(refused == 0)
    );
    let _ = writeln!(
        out,
        "| 503s to signed-in clients: 0 (realtime connect / subscribe / web read / create / update / token \
         re-fetch / logout) | {s503} of {signed_in} ({s503_parts}) | {} |",
        yes(s503 == 0)
    );
    let _ = writeln!(
        out,
        "| logged-out app tokens accepted: 0 (gateway + own cookie / gateway + live cookie / data API / \
         auth-refresh) | {accepted} of {probes} ({accepted_parts}) | {} |",
        yes(accepted == 0 && probes > 0)
    );
    let _ = writeln!(
        out,
        "| peak server RSS bounded (under {RSS_BOUND_MIB:.0} MiB; idle {}, end {}) | {peak_mib:.1} MiB | {} |",
        mib(st.idle_rss),
        mib(st.end_rss),
        yes(peak.is_some() && peak_mib < RSS_BOUND_MIB)
    );
    let _ = writeln!(
        out,
        "| web session p50 / p99 (reads + writes through the gateway) | {:.2} ms / {:.2} ms over {} requests | - |",
        pct(&web_lat, 0.5),
        pct(&web_lat, 0.99),
        web_lat.len()
    );
    let _ = writeln!(out, "| other refusals to signed-in clients (same order) | {other} ({other_parts}) | - |\n");

    let _ = writeln!(out, "| traffic | requests | answers | p50 ms | p99 ms |\n| --- | --- | --- | --- | --- |");
    for label in TRAFFIC {
        if let Some(t) = tallies.get(label) {
            let (p50, p99) = (pct(&t.latencies, 0.5), pct(&t.latencies, 0.99));
            let _ = writeln!(out, "| {label} | {} | {} | {p50:.2} | {p99:.2} |", total(label), statuses(t));
        }
    }
    let _ = writeln!(out, "\n| stream counter | value |\n| --- | --- |");
    for what in [FLOOD_CLOSED, RT_FRAMES, RT_DROPPED, RT_NO_HELLO] {
        let _ = writeln!(out, "| {what} | {} |", note(what));
    }
    let _ = writeln!(out, "| {RT_BYTES} | {:.1} MiB |", note(RT_BYTES) as f64 / 1048576.0);
    let n = st.rss_samples.len();
    if n > 0 {
        let tenths: Vec<String> = (0..=10)
            .map(|k| st.rss_samples[(n - 1) * k / 10])
            .map(|(t, kib)| format!("{:.0} s: {:.1}", t.as_secs_f64(), kib as f64 / 1024.0))
            .collect();
        let _ = writeln!(out, "\nServer RSS over the run (MiB, every tenth): {}.", tenths.join(", "));
    }
    out
}
