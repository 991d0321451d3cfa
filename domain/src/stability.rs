//! The desktop's process-guard rules, the equivalent of Electron's `errorHandlers`: what a fatal
//! failure does (a packaged build with relaunch enabled relaunches once; a second fatal failure
//! after that relaunch, a development build, or a packaged build with relaunch disabled asks the
//! operator to Quit or Continue), which failures are fatal (a panic on the UI thread or in the
//! in-process server's system thread) and which are recoverable "async failures" (a panic in a
//! supervised actor or a command task), and the rolling window that turns repeated recoverable
//! failures into one stability warning for the renderer. Pure rules; time is passed in.

use std::collections::VecDeque;

use crate::secret_policy::BuildKind;

/// Environment marker a relaunched process carries, so a relaunch happens at most once.
pub const RELAUNCHED_ENV: &str = "RELAY_DESKTOP_RELAUNCHED";

/// What a fatal failure leads to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FatalAction {
    /// Start a new instance (marked as relaunched), then exit this one.
    RelaunchOnce,
    /// Show a blocking Quit / Continue dialog.
    AskQuitOrContinue,
}

/// The decision for a fatal failure.
pub fn fatal_action(build: BuildKind, relaunch_enabled: bool, already_relaunched: bool) -> FatalAction {
    match (build, relaunch_enabled, already_relaunched) {
        (BuildKind::Packaged, true, false) => FatalAction::RelaunchOnce,
        _ => FatalAction::AskQuitOrContinue,
    }
}

/// How a panic in a given thread is treated.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FailureKind {
    /// The UI event loop or the in-process server is gone.
    Fatal,
    /// A supervised actor or a task failed and was (or will be) recovered.
    Recoverable,
}

/// Name of the thread that owns the in-process server's actix System.
pub const SERVER_THREAD: &str = "actix-system";

/// Classifies a panic by the name of the thread it happened on.
pub fn classify_panic(thread_name: Option<&str>) -> FailureKind {
    match thread_name {
        Some("main") | Some(SERVER_THREAD) => FailureKind::Fatal,
        _ => FailureKind::Recoverable,
    }
}

/// Repeated recoverable failures within `window_ms` raise one warning; the next warning needs
/// `threshold` new failures after the previous one.
#[derive(Debug, Clone)]
pub struct FailureWindow {
    window_ms: u64,
    threshold: usize,
    recent: VecDeque<u64>,
}

/// The default: 3 recoverable failures within 60 seconds.
pub const DEFAULT_FAILURE_WINDOW_MS: u64 = 60_000;
pub const DEFAULT_FAILURE_THRESHOLD: usize = 3;

impl Default for FailureWindow {
    fn default() -> Self {
        FailureWindow::new(DEFAULT_FAILURE_WINDOW_MS, DEFAULT_FAILURE_THRESHOLD)
    }
}

impl FailureWindow {
    pub fn new(window_ms: u64, threshold: usize) -> FailureWindow {
        FailureWindow { window_ms, threshold: threshold.max(1), recent: VecDeque::new() }
    }

    /// Records one failure at `now_ms`; true when this failure should raise the warning.
    pub fn record(&mut self, now_ms: u64) -> bool {
        while self.recent.front().is_some_and(|&t| now_ms.saturating_sub(t) >= self.window_ms) {
            self.recent.pop_front();
        }
        self.recent.push_back(now_ms);
        if self.recent.len() >= self.threshold {
            self.recent.clear();
            return true;
        }
        false
    }

    /// Failures currently inside the window (for the health view).
    pub fn recent(&self) -> usize {
        self.recent.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_packaged_build_with_relaunch_enabled_relaunches_and_only_once() {
        use BuildKind::*;
        use FatalAction::*;
        let table = [
            (Packaged, true, false, RelaunchOnce),
            (Packaged, true, true, AskQuitOrContinue),
            (Packaged, false, false, AskQuitOrContinue),
            (Development, true, false, AskQuitOrContinue),
            (Development, false, true, AskQuitOrContinue),
        ];
        for (build, enabled, relaunched, want) in table {
            assert_eq!(fatal_action(build, enabled, relaunched), want, "{build:?} {enabled} {relaunched}");
        }
    }

    #[test]
    fn ui_and_server_thread_panics_are_fatal_others_recoverable() {
        assert_eq!(classify_panic(Some("main")), FailureKind::Fatal);
        assert_eq!(classify_panic(Some(SERVER_THREAD)), FailureKind::Fatal);
        for t in [Some("tokio-runtime-worker"), Some("actix-rt|system:0|arbiter:3"), Some("Main"), None] {
            assert_eq!(classify_panic(t), FailureKind::Recoverable, "{t:?}");
        }
    }

    #[test]
    fn three_failures_in_a_minute_warn_once_then_the_count_restarts() {
        let mut w = FailureWindow::default();
        assert!(!w.record(0));
        assert!(!w.record(10_000));
        assert!(w.record(59_999), "third within 60 s");
        assert_eq!(w.recent(), 0);
        assert!(!w.record(60_000));
        assert!(!w.record(61_000));
        assert!(w.record(62_000));
    }

    #[test]
    fn failures_spread_beyond_the_window_never_warn() {
        let mut w = FailureWindow::default();
        for i in 0..20u64 {
            assert!(!w.record(i * 30_001), "failure {i}");
        }
        assert!(w.recent() <= 2);
        let mut one = FailureWindow::new(1_000, 0);
        assert!(one.record(5), "a threshold of 0 is treated as 1");
    }
}
