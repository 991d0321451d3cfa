//! Shared supervision mechanics. Handler bodies run inside `guarded`, which turns a panic into
//! an error for the caller, records it with the health actor and stops the actor so its actix
//! `Supervisor` restarts it with fresh state (`Supervised::restarting` reports the restart).
//! `report_periodically` makes an actor publish its status to the health actor on a timer.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::time::Duration;

use actix::prelude::*;

use crate::health::{ActorState, HealthActor, Report};

/// How often actors publish their status.
pub const REPORT_INTERVAL: Duration = Duration::from_secs(2);

/// Text of a caught panic payload.
pub fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "panic".to_string())
}

/// A handler body panicked; the actor is being restarted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Panicked;

/// Runs `f`; on panic reports the failure, stops the actor (so its supervisor restarts it) and
/// returns `Err(Panicked)`.
pub fn guarded<A, R>(
    name: &'static str,
    health: &Addr<HealthActor>,
    ctx: &mut A::Context,
    f: impl FnOnce() -> R,
) -> Result<R, Panicked>
where
    A: Actor<Context = Context<A>>,
{
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(r) => Ok(r),
        Err(payload) => {
            let message = panic_message(payload.as_ref());
            tracing::error!(actor = name, error = %message, "actor panicked; restarting");
            health.do_send(Report::failure(name, format!("panic: {message}")));
            ctx.stop();
            Err(Panicked)
        }
    }
}

/// Starts a timer that sends `status(actor)` to the health actor every `REPORT_INTERVAL`.
pub fn report_periodically<A>(
    ctx: &mut Context<A>,
    name: &'static str,
    health: Addr<HealthActor>,
    queue_depth: fn(&A) -> usize,
) where
    A: Actor<Context = Context<A>>,
{
    health.do_send(Report::state(name, ActorState::Running, 0));
    ctx.run_interval(REPORT_INTERVAL, move |act, _| {
        health.do_send(Report::state(name, ActorState::Running, queue_depth(act)));
    });
}
