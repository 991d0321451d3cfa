//! Bounded CPU work on untrusted input (image decoding, spreadsheet parsing): one job at a time
//! on a blocking thread, at most `max_waiting` jobs admitted (waiting for or holding the single
//! permit), the rest refused at once as busy. The permit moves into the blocking closure, so a
//! caller that gives up cannot let a second job start while the first still runs; a job that
//! panics is reported as [`WorkRefused::Panicked`] and never takes the actor down.

use std::future::Future;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use tokio::sync::Semaphore;

/// Why a job did not produce its result.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WorkRefused {
    /// `max_waiting` jobs were already admitted.
    Busy,
    /// The permit's semaphore was closed (the owner is shutting down).
    Closed,
    /// The job panicked on its blocking thread.
    Panicked,
}

/// One permit and an admission bound, owned by one actor.
#[derive(Debug, Clone)]
pub struct BoundedWork {
    permit: Arc<Semaphore>,
    admitted: Arc<AtomicUsize>,
    max_waiting: usize,
}

/// Decrements the admitted-jobs count when a job ends (or its caller goes away).
struct Admitted(Arc<AtomicUsize>);

impl Drop for Admitted {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

impl BoundedWork {
    /// At most `max_waiting` jobs admitted at once (at least one).
    pub fn new(max_waiting: usize) -> BoundedWork {
        BoundedWork { permit: Arc::new(Semaphore::new(1)), admitted: Arc::new(AtomicUsize::new(0)), max_waiting }
    }

    /// Jobs admitted and not yet finished (the actor's queue depth).
    pub fn admitted(&self) -> usize {
        self.admitted.load(Ordering::SeqCst)
    }

    /// Admits `job` (or refuses it as busy right away) and runs it on a blocking thread while
    /// holding the one permit.
    pub fn run<T: Send + 'static>(
        &self,
        job: impl FnOnce() -> T + Send + 'static,
    ) -> impl Future<Output = Result<T, WorkRefused>> + 'static {
        let before = self.admitted.fetch_add(1, Ordering::SeqCst);
        let guard = Admitted(self.admitted.clone());
        let busy = before >= self.max_waiting.max(1);
        let permit = self.permit.clone();
        async move {
            if busy {
                drop(guard);
                return Err(WorkRefused::Busy);
            }
            let held = permit.acquire_owned().await.map_err(|_| WorkRefused::Closed)?;
            let joined = tokio::task::spawn_blocking(move || {
                let _held = held;
                let _guard = guard;
                job()
            })
            .await;
            joined.map_err(|_| WorkRefused::Panicked)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[actix_rt::test]
    async fn jobs_beyond_the_admission_bound_are_refused_as_busy_and_the_rest_run_one_at_a_time() {
        let work = BoundedWork::new(2);
        let running = Arc::new(AtomicUsize::new(0));
        let peak = Arc::new(AtomicUsize::new(0));
        let job = |running: Arc<AtomicUsize>, peak: Arc<AtomicUsize>| {
            move || {
                let now = running.fetch_add(1, Ordering::SeqCst) + 1;
                peak.fetch_max(now, Ordering::SeqCst);
                std::thread::sleep(Duration::from_millis(50));
                running.fetch_sub(1, Ordering::SeqCst);
                7
            }
        };
        let first = work.run(job(running.clone(), peak.clone()));
        let second = work.run(job(running.clone(), peak.clone()));
        let third = work.run(job(running.clone(), peak.clone()));
        assert_eq!(work.admitted(), 3, "the refused one is counted until it is polled");
        let (a, b, c) = tokio::join!(first, second, third);
        assert_eq!((a, b, c), (Ok(7), Ok(7), Err(WorkRefused::Busy)));
        assert_eq!(peak.load(Ordering::SeqCst), 1, "two jobs ran at the same time");
        assert_eq!(work.admitted(), 0);
    }

    #[actix_rt::test]
    async fn a_panicking_job_is_reported_and_releases_the_permit() {
        let work = BoundedWork::new(1);
        let failed = work.run(|| -> u8 { panic!("bad input") }).await;
        assert_eq!(failed, Err(WorkRefused::Panicked));
        assert_eq!(work.run(|| 1u8).await, Ok(1), "the permit or the admission slot leaked");
    }
}
