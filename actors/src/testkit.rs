//! Shared setup for actor tests: a [`TestCtx`] holds a manual clock (advanced by the test, never
//! slept on) and a started health actor, hands out the [`SubsystemCtx`] every subsystem
//! constructor takes, reads one actor's health entry, and builds a `RelayConfig` over a
//! temporary database. Compiled for tests only.

use std::sync::Arc;

use actix::prelude::*;

use infra::clock::{ManualClock, SharedClock};

use crate::health::{ActorHealth, GetHealth, HealthActor};
use crate::kit::SubsystemCtx;
use crate::system::RelayConfig;

/// The instant tests start at (2027-01-15, well inside the valid token and time ranges).
pub const START_MS: i64 = 1_800_000_000_000;

pub struct TestCtx {
    pub clock: Arc<ManualClock>,
    pub health: Addr<HealthActor>,
}

impl TestCtx {
    /// A manual clock at [`START_MS`] and a health actor; call inside an actix system.
    pub fn new() -> TestCtx {
        TestCtx::at(START_MS)
    }

    pub fn at(start_ms: i64) -> TestCtx {
        let clock = ManualClock::new(start_ms);
        let health = HealthActor::new(clock.clone()).start();
        TestCtx { clock, health }
    }

    pub fn shared_clock(&self) -> SharedClock {
        self.clock.clone()
    }

    /// The context a subsystem constructor takes.
    pub fn ctx(&self) -> SubsystemCtx {
        SubsystemCtx::new(self.shared_clock(), self.health.clone())
    }

    /// The health entry of `actor`, if it has reported.
    pub async fn health_of(&self, actor: &str) -> Option<ActorHealth> {
        self.health.send(GetHealth).await.ok()?.actors.get(actor).cloned()
    }
}

/// A configuration over `dir/relay.db` with a manual clock at [`START_MS`] and test secrets.
pub fn relay_config(dir: &std::path::Path) -> RelayConfig {
    let mut config = RelayConfig::new(
        dir.join("relay.db"),
        "test passphrase".into(),
        vec![3; 32],
        ManualClock::new(START_MS) as SharedClock,
    );
    config.token_ttl_secs = 60;
    config.status_feeds.config.scheduled = false;
    config
}
