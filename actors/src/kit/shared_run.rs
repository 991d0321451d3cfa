//! One run in flight, shared by everyone who asks while it runs: a subsystem that polls an
//! outside source (status feeds, the Radar) starts at most one run at a time; scheduled and
//! requested runs join it, each waiter gets the run's result, and stopping the actor cancels
//! the run. The actor owns a `SharedRun<T>` and calls [`SharedRun::begin`] / [`SharedRun::finish`].

use infra::http::CancellationToken;
use tokio::sync::oneshot;

/// The run in flight (its cancellation) and who waits for its result.
#[derive(Debug)]
pub struct SharedRun<T: Clone> {
    in_flight: Option<CancellationToken>,
    waiters: Vec<oneshot::Sender<T>>,
}

impl<T: Clone> Default for SharedRun<T> {
    fn default() -> Self {
        SharedRun { in_flight: None, waiters: Vec::new() }
    }
}

impl<T: Clone> SharedRun<T> {
    /// A token for a new run, or `None` when one is already running (join it instead).
    pub fn begin(&mut self) -> Option<CancellationToken> {
        if self.in_flight.is_some() {
            return None;
        }
        let token = CancellationToken::new();
        self.in_flight = Some(token.clone());
        Some(token)
    }

    /// A receiver for the result of the current (or next) run.
    pub fn wait(&mut self) -> oneshot::Receiver<T> {
        let (tx, rx) = oneshot::channel();
        self.waiters.push(tx);
        rx
    }

    /// Ends the run: every waiter receives `result`.
    pub fn finish(&mut self, result: &T) {
        self.in_flight = None;
        for waiter in self.waiters.drain(..) {
            let _ = waiter.send(result.clone());
        }
    }

    pub fn is_running(&self) -> bool {
        self.in_flight.is_some()
    }

    /// The run in flight plus its waiters (for the health view's queue depth).
    pub fn depth(&self) -> usize {
        self.waiters.len() + usize::from(self.is_running())
    }

    /// Cancels the run in flight and drops the waiters (their receivers see an error).
    pub fn cancel(&mut self) {
        if let Some(token) = self.in_flight.take() {
            token.cancel();
        }
        self.waiters.clear();
    }
}

impl<T: Clone> Drop for SharedRun<T> {
    fn drop(&mut self) {
        self.cancel();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_run_at_a_time_and_every_waiter_gets_its_result() {
        let mut run = SharedRun::<u32>::default();
        let first = run.begin().expect("nothing was running");
        assert!(run.begin().is_none(), "a second run joins the first");
        let (mut a, mut b) = (run.wait(), run.wait());
        assert_eq!(run.depth(), 3);
        run.finish(&7);
        assert_eq!((a.try_recv().unwrap(), b.try_recv().unwrap()), (7, 7));
        assert!(!first.is_cancelled() && !run.is_running());
        assert!(run.begin().is_some(), "after a finish a new run may start");
    }

    #[test]
    fn cancelling_stops_the_run_and_releases_the_waiters() {
        let mut run = SharedRun::<u32>::default();
        let token = run.begin().unwrap();
        let mut waiter = run.wait();
        run.cancel();
        assert!(token.is_cancelled());
        assert!(waiter.try_recv().is_err());
        assert_eq!(run.depth(), 0);
    }
}
