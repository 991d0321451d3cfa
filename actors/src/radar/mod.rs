//! The radar actor (server): owns the Dispatcher Radar snapshot. It reads the CW Dashboard page
//! through an `infra::radar::RadarSource` (production: the fixed intranet address with the
//! server PC's stored Radar session; no session, no request) every 60 s, and on demand;
//! scheduled and manual refreshes share one read in flight. A board replaces the snapshot; a
//! failure keeps the previous one marked stale; a sign-in page keeps it with `signInRequired`;
//! a page without signal is an error (`domain::radar`). After every read the subsystem reports
//! its condition to the health view: degraded while a sign-in is needed or reads fail
//! (`RadarSnapshot::condition`), recovered once a board is read. Manual refreshes are limited to
//! 12 per logical session per minute (`infra::token::LogicalSession`: a Relay Web session or a
//! password sign-in, however many tokens were minted for it). Clients only ever receive the
//! validated snapshot.

use std::sync::Arc;
use std::time::Duration;

use actix::prelude::*;
use serde::Serialize;

use domain::problem::HttpProblem;
use domain::radar::{RadarSnapshot, MANUAL_REFRESHES_PER_MINUTE, REFRESH_INTERVAL_MS};
use domain::ratelimit::{BucketConfig, Decision, KeyedLimiter};
use infra::radar::{RadarPage, RadarRead, RadarSource};
use infra::token::LogicalSession;

use crate::kit::{SharedRun, Subsystem, SubsystemCtx};

pub const NAME: &str = "radar";

/// Timing and limits; `Default` gives the production numbers.
#[derive(Debug, Clone, PartialEq)]
pub struct RadarConfig {
    /// Between scheduled reads (default 60 s, the dashboard's own refresh).
    pub interval: Duration,
    /// Manual refreshes per logical session: 12 a minute.
    pub manual_per_session: BucketConfig,
    /// Sessions tracked by the limiter (default 4,096; the oldest are forgotten first).
    pub max_sessions: usize,
    /// Whether the actor reads on its own timer (tests turn this off).
    pub scheduled: bool,
}

impl Default for RadarConfig {
    fn default() -> Self {
        RadarConfig {
            interval: Duration::from_millis(REFRESH_INTERVAL_MS as u64),
            manual_per_session: BucketConfig {
                capacity: MANUAL_REFRESHES_PER_MINUTE as f64,
                refill_per_sec: MANUAL_REFRESHES_PER_MINUTE as f64 / 60.0,
            },
            max_sessions: 4_096,
            scheduled: true,
        }
    }
}

/// `GET /api/relay/radar`: the current snapshot.
#[derive(Debug, Clone, Copy, Message)]
#[rtype(result = "RadarSnapshot")]
pub struct GetRadar;

/// `POST /api/relay/radar/refresh`: a manual refresh counted against the caller's logical
/// session (what its verified token belongs to; never a URL or cookie). Resolves with the
/// snapshot after the read.
#[derive(Debug, Clone, Message)]
#[rtype(result = "Result<RadarSnapshot, RadarError>")]
pub struct RefreshRadar {
    pub session: LogicalSession,
}

/// `relay radar sign-in` / `sign-out` (control socket, server PC only): stores or forgets the
/// Radar session, then reads the page with it; resolves with the snapshot after that read.
#[derive(Debug, Clone, Message)]
#[rtype(result = "Result<RadarSnapshot, RadarError>")]
pub struct SetRadarSession {
    pub cookie: Option<String>,
}

/// Tests and the timer: read now (sharing a read in flight); resolves after it.
#[derive(Debug, Clone, Copy, Message)]
#[rtype(result = "Result<RadarSnapshot, RadarError>")]
pub struct ReadRadarNow;

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error, Serialize)]
pub enum RadarError {
    #[error("Too many Radar refreshes; try again in {retry_after_secs} s.")]
    TooManyRefreshes { retry_after_secs: u64 },
    #[error("The Radar is unavailable.")]
    Unavailable,
    #[error("The Radar session was not stored: {0}.")]
    Session(String),
}

impl HttpProblem for RadarError {
    fn status(&self) -> u16 {
        match self {
            RadarError::TooManyRefreshes { .. } => 429,
            RadarError::Unavailable => 503,
            RadarError::Session(_) => 400,
        }
    }
    fn code(&self) -> &'static str {
        match self {
            RadarError::TooManyRefreshes { .. } => "radar_refresh_rate_limited",
            RadarError::Unavailable => "radar_unavailable",
            RadarError::Session(_) => "radar_session_invalid",
        }
    }
    fn retry_after_secs(&self) -> Option<u64> {
        match self {
            RadarError::TooManyRefreshes { retry_after_secs } => Some(*retry_after_secs),
            RadarError::Unavailable | RadarError::Session(_) => None,
        }
    }
}

/// The snapshot after one read, from the previous one (pure).
pub fn next_snapshot(previous: &RadarSnapshot, read: RadarRead, now_ms: i64) -> RadarSnapshot {
    match read {
        RadarRead::NoSession => RadarSnapshot::sign_in_required(previous),
        RadarRead::Page(RadarPage::SignIn) => RadarSnapshot::sign_in_required(previous),
        RadarRead::Page(RadarPage::TooLarge) => RadarSnapshot::failed(previous, "The Radar page is too large."),
        RadarRead::Page(RadarPage::Board(board)) => RadarSnapshot::accept(board, previous, now_ms),
        RadarRead::Failed(message) => RadarSnapshot::failed(previous, &message),
    }
}

pub struct RadarActor {
    subsystem: SubsystemCtx,
    config: RadarConfig,
    source: Arc<dyn RadarSource>,
    snapshot: RadarSnapshot,
    limiter: KeyedLimiter<LogicalSession>,
    run: SharedRun<RadarSnapshot>,
}

impl RadarActor {
    pub fn new(subsystem: SubsystemCtx, config: RadarConfig, source: Arc<dyn RadarSource>) -> RadarActor {
        let limiter = KeyedLimiter::new(config.manual_per_session, None, config.max_sessions);
        RadarActor { subsystem, config, source, snapshot: RadarSnapshot::default(), limiter, run: SharedRun::default() }
    }

    fn start_read(&mut self, ctx: &mut Context<Self>) {
        let Some(cancel) = self.run.begin() else {
            return;
        };
        let read = self.source.read(cancel);
        ctx.spawn(read.into_actor(self).map(|read, act, _| {
            act.snapshot = next_snapshot(&act.snapshot, read, act.subsystem.now_ms());
            act.subsystem.report_condition(NAME, act.snapshot.condition());
            if let Some(error) = &act.snapshot.error {
                tracing::info!(sign_in_required = act.snapshot.sign_in_required, error = %error, "radar read did not update the board");
            }
            act.run.finish(&act.snapshot);
        }));
    }

    fn wait_for_read(&mut self, ctx: &mut Context<Self>) -> ResponseFuture<Result<RadarSnapshot, RadarError>> {
        let rx = self.run.wait();
        self.start_read(ctx);
        Box::pin(async move { rx.await.map_err(|_| RadarError::Unavailable) })
    }
}

impl Subsystem for RadarActor {
    const NAME: &'static str = NAME;
    fn subsystem(&self) -> &SubsystemCtx {
        &self.subsystem
    }
    fn queue_depth(&self) -> usize {
        self.run.depth()
    }
    fn reset(&mut self) {
        self.run.cancel();
    }
    fn on_start(&mut self, ctx: &mut Context<Self>) {
        if self.config.scheduled {
            self.start_read(ctx);
            ctx.run_interval(self.config.interval, |act, ctx| act.start_read(ctx));
        }
    }
}

crate::subsystem_actor!(RadarActor);

impl Handler<GetRadar> for RadarActor {
    type Result = MessageResult<GetRadar>;
    fn handle(&mut self, _: GetRadar, _: &mut Context<Self>) -> Self::Result {
        MessageResult(self.snapshot.clone())
    }
}

impl Handler<RefreshRadar> for RadarActor {
    type Result = ResponseFuture<Result<RadarSnapshot, RadarError>>;
    fn handle(&mut self, msg: RefreshRadar, ctx: &mut Context<Self>) -> Self::Result {
        let now = self.subsystem.now_ms().max(0) as u64;
        if let decision @ Decision::Denied { .. } = self.limiter.try_take(&msg.session, now) {
            let retry_after_secs = decision.retry_after_secs();
            return Box::pin(async move { Err(RadarError::TooManyRefreshes { retry_after_secs }) });
        }
        self.wait_for_read(ctx)
    }
}

impl Handler<SetRadarSession> for RadarActor {
    type Result = ResponseFuture<Result<RadarSnapshot, RadarError>>;
    fn handle(&mut self, msg: SetRadarSession, ctx: &mut Context<Self>) -> Self::Result {
        if let Err(reason) = self.source.set_session(msg.cookie.as_deref()) {
            return Box::pin(async move { Err(RadarError::Session(reason)) });
        }
        tracing::info!(signed_in = msg.cookie.is_some(), "radar session changed on the server PC");
        self.wait_for_read(ctx)
    }
}

impl Handler<ReadRadarNow> for RadarActor {
    type Result = ResponseFuture<Result<RadarSnapshot, RadarError>>;
    fn handle(&mut self, _: ReadRadarNow, ctx: &mut Context<Self>) -> Self::Result {
        self.wait_for_read(ctx)
    }
}

#[cfg(test)]
mod tests;
