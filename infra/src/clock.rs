//! The clock every time-dependent rule reads. Production uses the system clock; tests inject a
//! `ManualClock` they advance by hand, so expiry and rate-limit rules are tested without sleeping.
//! Tests of whole processes (the desktop window over WebDriver) cannot reach a `ManualClock`: in
//! debug builds only, `RELAY_TEST_CLOCK_OFFSET_FILE` names a file holding milliseconds to add to
//! the system clock, which the test rewrites to jump ahead (an idle lock after 15 minutes).

use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::Arc;
use std::time::{SystemTime, UNIX_EPOCH};

pub trait Clock: Send + Sync + std::fmt::Debug {
    /// Milliseconds since the Unix epoch.
    fn now_ms(&self) -> i64;
}

#[derive(Debug, Default, Clone, Copy)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now_ms(&self) -> i64 {
        SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_millis() as i64).unwrap_or(0)
    }
}

/// A clock that only moves when told to.
#[derive(Debug, Default)]
pub struct ManualClock(AtomicI64);

impl ManualClock {
    pub fn new(start_ms: i64) -> Arc<ManualClock> {
        Arc::new(ManualClock(AtomicI64::new(start_ms)))
    }
    pub fn advance_ms(&self, ms: i64) {
        self.0.fetch_add(ms, Ordering::SeqCst);
    }
}

impl Clock for ManualClock {
    fn now_ms(&self) -> i64 {
        self.0.load(Ordering::SeqCst)
    }
}

pub type SharedClock = Arc<dyn Clock>;

/// The system's wall clock now, for code with no `SharedClock` in reach (process-level
/// bookkeeping in the desktop and the launcher, HTTP-date arithmetic). Rules that tests must
/// move in time take a `SharedClock` instead; this is the only other reader of the wall clock.
pub fn wall_time() -> SystemTime {
    SystemTime::now()
}

/// [`wall_time`] as milliseconds since the Unix epoch (0 before 1970).
pub fn wall_ms() -> u64 {
    wall_time().duration_since(UNIX_EPOCH).map(|d| d.as_millis() as u64).unwrap_or(0)
}

/// Debug builds only: names the file whose number of milliseconds is added to the system clock.
pub const OFFSET_FILE_ENV: &str = "RELAY_TEST_CLOCK_OFFSET_FILE";

/// The system clock; in debug builds shifted by `RELAY_TEST_CLOCK_OFFSET_FILE` when it is set.
pub fn system() -> SharedClock {
    if cfg!(debug_assertions) {
        if let Some(path) = std::env::var_os(OFFSET_FILE_ENV) {
            return Arc::new(OffsetFileClock { path: path.into(), cached: std::sync::Mutex::new(None) });
        }
    }
    Arc::new(SystemClock)
}

/// The system clock plus the offset a test wrote to `path` (re-read at most every 100 ms; a
/// missing or unreadable file is no offset). Built only through [`system`] in debug builds.
#[derive(Debug)]
struct OffsetFileClock {
    path: std::path::PathBuf,
    cached: std::sync::Mutex<Option<(std::time::Instant, i64)>>,
}

impl OffsetFileClock {
    fn offset_ms(&self) -> i64 {
        let mut cached = self.cached.lock().unwrap_or_else(|p| p.into_inner());
        match *cached {
            Some((at, offset)) if at.elapsed() < std::time::Duration::from_millis(100) => offset,
            _ => {
                let read = std::fs::read_to_string(&self.path).ok();
                let offset = read.and_then(|t| t.trim().parse::<i64>().ok()).unwrap_or(0);
                *cached = Some((std::time::Instant::now(), offset));
                offset
            }
        }
    }
}

impl Clock for OffsetFileClock {
    fn now_ms(&self) -> i64 {
        SystemClock.now_ms() + self.offset_ms()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn manual_clock_moves_only_when_advanced() {
        let c = ManualClock::new(1_000);
        assert_eq!(c.now_ms(), 1_000);
        c.advance_ms(500);
        assert_eq!(c.now_ms(), 1_500);
        assert!(SystemClock.now_ms() > 1_700_000_000_000);
    }

    #[test]
    fn the_offset_file_clock_adds_what_the_test_wrote() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("offset");
        let clock = OffsetFileClock { path: path.clone(), cached: std::sync::Mutex::new(None) };
        let before = SystemClock.now_ms();
        assert!(clock.now_ms() - before < 60_000, "no file, no offset");
        std::fs::write(&path, "900000\n").unwrap();
        std::thread::sleep(std::time::Duration::from_millis(150));
        assert!(clock.now_ms() - before >= 900_000, "the written offset applies");
    }
}
