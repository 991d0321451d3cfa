//! The subsystem kit: what every supervised Relay actor shares, so a new subsystem is one folder
//! and one line in `system::start_server`. An actor receives a [`SubsystemCtx`] (the injected
//! clock and the health actor's address) as its first constructor argument, implements
//! [`Subsystem`] (its health name, its queue depth, what a restart resets, its timers) and
//! invokes [`subsystem_actor!`], which generates the actix `Actor` and `Supervised` impls: the
//! periodic health report on start, the restart report after a panic. Handler bodies that may
//! panic run inside [`guarded`], which turns the panic into an error for the caller, records it
//! with the health actor and stops the actor so its supervisor restarts it with fresh state.
//! [`start_supervised`] starts such an actor under an actix `Supervisor` on its own arbiter. A
//! subsystem whose work fails says so through its [`SubsystemCtx`]: [`SubsystemCtx::report_degraded`]
//! (or "not configured"), then [`SubsystemCtx::report_recovered`]. The
//! kit holds no subsystem rules and never reads the wall clock itself. [`PersistedLimits`] is the
//! shared way to keep authoritative rate limits across restarts; [`BoundedWork`] runs CPU work on
//! untrusted input one job at a time with a bounded wait list.

mod bounded_work;
mod persisted_limits;
mod shared_run;

pub use bounded_work::{BoundedWork, WorkRefused};
pub use shared_run::SharedRun;

pub use persisted_limits::{PersistedLimits, FLUSH_INTERVAL};

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::time::Duration;

use actix::prelude::*;

use domain::work_condition::WorkCondition;
use infra::clock::SharedClock;

use crate::health::{ActorState, HealthActor, Report};

/// How often actors publish their status.
pub const REPORT_INTERVAL: Duration = Duration::from_secs(2);

/// What every subsystem actor is given: the clock it must read time from and the health actor
/// it reports to. Cloning is cheap (an `Arc` and an `Addr`).
#[derive(Clone)]
pub struct SubsystemCtx {
    pub clock: SharedClock,
    pub health: Addr<HealthActor>,
}

impl SubsystemCtx {
    pub fn new(clock: SharedClock, health: Addr<HealthActor>) -> SubsystemCtx {
        SubsystemCtx { clock, health }
    }

    /// Milliseconds since the Unix epoch on the injected clock.
    pub fn now_ms(&self) -> i64 {
        self.clock.now_ms()
    }

    /// Records a non-panic failure of `actor` with the health actor (the text is redacted and
    /// bounded there).
    pub fn report_failure(&self, actor: &'static str, error: impl Into<String>) {
        self.health.do_send(Report::failure(actor, error));
    }

    /// `actor`'s work is failing (or, with `ConditionCode::NotConfigured`, it is not in use):
    /// the health view shows it with the reason (redacted and bounded there) until
    /// [`report_recovered`](Self::report_recovered). Reporting the same condition again is cheap
    /// and keeps its "since".
    pub fn report_degraded(&self, actor: &'static str, condition: WorkCondition) {
        self.health.do_send(Report::condition(actor, condition));
    }

    /// `actor`'s work succeeds again.
    pub fn report_recovered(&self, actor: &'static str) {
        self.health.do_send(Report::recovered(actor));
    }

    /// [`report_degraded`](Self::report_degraded) with `Some`, [`report_recovered`](Self::report_recovered)
    /// with `None`: for a subsystem that works its condition out after each round of work.
    pub fn report_condition(&self, actor: &'static str, condition: Option<WorkCondition>) {
        match condition {
            Some(condition) => self.report_degraded(actor, condition),
            None => self.report_recovered(actor),
        }
    }
}

/// A supervised Relay subsystem. Implement this, then invoke `subsystem_actor!(YourActor)`.
pub trait Subsystem: Actor<Context = Context<Self>> + Sized {
    /// The name the health view shows (stable; also used in logs).
    const NAME: &'static str;

    /// The context the actor was constructed with.
    fn subsystem(&self) -> &SubsystemCtx;

    /// Work waiting in this actor (requests in flight, queued frames, open sessions...).
    fn queue_depth(&self) -> usize {
        0
    }

    /// Drops in-memory state before the supervisor restarts the actor after a panic.
    fn reset(&mut self) {}

    /// Timers and start-up work beyond the health report (runs on every (re)start).
    fn on_start(&mut self, _ctx: &mut Context<Self>) {}
}

/// Generates the actix `Actor` and `Supervised` impls for a [`Subsystem`]: on start the actor
/// reports `Running` to the health actor, then every [`REPORT_INTERVAL`] with its queue depth,
/// then runs `on_start`; on restart it runs `reset` and reports the restart.
#[macro_export]
macro_rules! subsystem_actor {
    ($actor:ty) => {
        impl ::actix::Actor for $actor {
            type Context = ::actix::Context<Self>;
            fn started(&mut self, ctx: &mut Self::Context) {
                $crate::kit::on_started(self, ctx);
            }
        }

        impl ::actix::Supervised for $actor {
            fn restarting(&mut self, _: &mut Self::Context) {
                $crate::kit::on_restarting(self);
            }
        }
    };
}

/// `Actor::started` of every subsystem (called by `subsystem_actor!`).
pub fn on_started<A: Subsystem>(actor: &mut A, ctx: &mut Context<A>) {
    report_periodically(ctx, A::NAME, actor.subsystem().health.clone(), A::queue_depth);
    actor.on_start(ctx);
    infra::startup::mark(A::NAME);
}

/// `Supervised::restarting` of every subsystem (called by `subsystem_actor!`).
pub fn on_restarting<A: Subsystem>(actor: &mut A) {
    actor.reset();
    actor.subsystem().health.do_send(Report::restarted(A::NAME));
}

/// Starts `factory`'s actor under an actix `Supervisor` on a new arbiter (its own thread), so a
/// busy subsystem never delays another.
pub fn start_supervised<A, F>(factory: F) -> Addr<A>
where
    A: Actor<Context = Context<A>> + Supervised,
    F: FnOnce(&mut Context<A>) -> A + Send + 'static,
{
    let arbiter = Arbiter::new();
    Supervisor::start_in_arbiter(&arbiter.handle(), factory)
}

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

/// Runs `body` on the actor; on panic reports the failure, stops the actor (so its supervisor
/// restarts it) and returns `Err(Panicked)`.
pub fn guarded<A: Subsystem, R>(
    actor: &mut A,
    ctx: &mut Context<A>,
    body: impl FnOnce(&mut A) -> R,
) -> Result<R, Panicked> {
    let health = actor.subsystem().health.clone();
    match catch_unwind(AssertUnwindSafe(|| body(actor))) {
        Ok(r) => Ok(r),
        Err(payload) => {
            let message = panic_message(payload.as_ref());
            tracing::error!(actor = A::NAME, error = %message, "actor panicked; restarting");
            health.do_send(Report::failure(A::NAME, format!("panic: {message}")));
            ctx.stop();
            Err(Panicked)
        }
    }
}

/// Starts a timer that sends `queue_depth(actor)` to the health actor every `REPORT_INTERVAL`
/// (also used by actors outside the kit, such as the optional discovery actor).
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

#[cfg(test)]
mod tests;
