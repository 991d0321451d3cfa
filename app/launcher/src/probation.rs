//! A candidate's probation: launches it (at most twice in all, counting launches an earlier,
//! interrupted launcher run already recorded), feeds what it observes into
//! `domain::updater::decide_probation` on a monotonic clock, and returns the verdict. Health
//! counts only after `mounted`; `healthy` lines are heartbeats (one missing for
//! [`HEARTBEAT_STALE_MS`] restarts the window, like `unhealthy`); an exited process is never
//! healthy. The clock is `Instant`-based and scaled only by the debug-only test time scale.

use std::time::{Duration, Instant};

use domain::updater::{decide_probation, ProbationDecision, ProbationObservation, RollbackReason};

use crate::config::HEARTBEAT_STALE_MS;
use crate::supervise::{HealthEvent, Runtime};

/// Probation milliseconds since the launcher started (monotonic, scaled).
pub struct ProbationClock {
    origin: Instant,
    scale: u64,
}

impl ProbationClock {
    pub fn new(scale: u64) -> ProbationClock {
        ProbationClock { origin: Instant::now(), scale: scale.max(1) }
    }

    pub fn now_ms(&self) -> u64 {
        (self.origin.elapsed().as_millis() as u64).saturating_mul(self.scale)
    }

    /// Real time to wait between checks.
    fn poll(&self) -> Duration {
        Duration::from_millis((1_000 / self.scale).clamp(5, 100))
    }
}

/// How a probation ended.
#[derive(Debug)]
pub enum Verdict {
    /// Healthy long enough: the still-running candidate.
    Promote(Runtime),
    RollBack(RollbackReason),
}

/// What the probation saw, for the log.
#[derive(Debug, Default, Clone, Copy)]
pub struct Counters {
    pub launches: u32,
    pub ignored_lines: u32,
}

/// Runs the probation. `launch` records one more attempt and starts the candidate;
/// `attempts_before` are launches already recorded in the catalog.
pub fn run(
    clock: &ProbationClock,
    attempts_before: u32,
    mut launch: impl FnMut() -> std::io::Result<Runtime>,
) -> std::io::Result<(Verdict, Counters)> {
    let started_at_ms = clock.now_ms();
    let mut counters = Counters::default();
    let mut runtime = launch()?;
    counters.launches += 1;
    let mut attempts_started = attempts_before + 1;
    let (mut mounted, mut healthy_since, mut last_heartbeat) = (false, None::<u64>, 0u64);
    loop {
        let event = runtime.next_event(clock.poll());
        let now_ms = clock.now_ms();
        match event {
            Some(HealthEvent::Mounted) => mounted = true,
            Some(HealthEvent::Healthy) if mounted => {
                healthy_since.get_or_insert(now_ms);
                last_heartbeat = now_ms;
            }
            Some(HealthEvent::Unhealthy) => healthy_since = None,
            Some(HealthEvent::Healthy | HealthEvent::Ignored) => counters.ignored_lines += 1,
            None => {}
        }
        if healthy_since.is_some() && now_ms.saturating_sub(last_heartbeat) > HEARTBEAT_STALE_MS {
            healthy_since = None;
        }
        let candidate_running = runtime.running();
        if !candidate_running {
            healthy_since = None;
        }
        let observation = ProbationObservation {
            started_at_ms,
            now_ms,
            healthy_since_ms: healthy_since,
            candidate_running,
            attempts_started,
        };
        match decide_probation(&observation) {
            ProbationDecision::Promote => return Ok((Verdict::Promote(runtime), counters)),
            ProbationDecision::KeepWaiting { .. } => {}
            ProbationDecision::Relaunch => {
                runtime.kill();
                tracing::warn!(target: "relay::launcher", "the candidate exited during probation; launching it again");
                runtime = launch()?;
                counters.launches += 1;
                attempts_started += 1;
                (mounted, healthy_since) = (false, None);
            }
            ProbationDecision::RollBack(reason) => {
                runtime.kill();
                return Ok((Verdict::RollBack(reason), counters));
            }
        }
    }
}
