//! Starting Relay's actor system. `start` opens the database (running migrations and reporting
//! unmanaged tables), then starts each subsystem under an actix `Supervisor` on its own arbiter:
//! health first, then realtime, the store (SyncArbiter readers plus one writer), auth and
//! presence. It must run inside an actix `System`; it returns cloneable addresses (`Handles`).

use actix::prelude::*;

use infra::clock::SharedClock;
use infra::store::RecordStore;

use crate::auth::{AuthActor, AuthLimits, AuthSettings};
use crate::health::HealthActor;
use crate::presence::{PresenceActor, PresenceConfig};
use crate::privileged::{PrivilegedActor, PrivilegedLimits, PrivilegedService};
use crate::realtime::RealtimeActor;
use crate::store::{StoreActor, StoreExecutor};
use crate::web_sessions::{WebSessionActor, WebSessionConfig};

#[derive(Debug, Clone)]
pub struct RelayConfig {
    pub db_path: std::path::PathBuf,
    pub passphrase: String,
    pub token_key: Vec<u8>,
    pub token_ttl_secs: i64,
    pub auth_limits: AuthLimits,
    pub presence: PresenceConfig,
    pub privileged_limits: PrivilegedLimits,
    pub web_sessions: WebSessionConfig,
    pub reader_threads: usize,
    pub clock: SharedClock,
}

/// Addresses of the running subsystems.
#[derive(Clone)]
pub struct Handles {
    pub health: Addr<HealthActor>,
    pub realtime: Addr<RealtimeActor>,
    pub store: Addr<StoreActor>,
    pub auth: Addr<AuthActor>,
    pub presence: Addr<PresenceActor>,
    pub privileged: Addr<PrivilegedActor>,
    pub web_sessions: Addr<WebSessionActor>,
    /// Migrations applied by this start (empty when the schema was current).
    pub applied_migrations: Vec<String>,
    /// Tables found in the database that Relay does not manage (left in place).
    pub unmanaged_tables: Vec<String>,
}

#[derive(Debug, thiserror::Error)]
pub enum StartError {
    #[error(transparent)]
    Db(#[from] infra::db::DbError),
}

fn on_new_arbiter<A, F>(factory: F) -> Addr<A>
where
    A: Actor<Context = Context<A>> + Supervised,
    F: FnOnce(&mut Context<A>) -> A + Send + 'static,
{
    let arbiter = Arbiter::new();
    Supervisor::start_in_arbiter(&arbiter.handle(), factory)
}

pub fn start(config: RelayConfig) -> Result<Handles, StartError> {
    let readers = config.reader_threads.max(1);
    let (pool, applied_migrations) = infra::db::open(&config.db_path, readers as u32 + 2)?;
    if !applied_migrations.is_empty() {
        tracing::info!(count = applied_migrations.len(), "applied database migrations");
    }
    let unmanaged_tables = {
        let mut conn = pool.get().map_err(|e| infra::db::DbError::Pool(e.to_string()))?;
        infra::db::unmanaged_tables(&mut conn)?
    };
    for table in &unmanaged_tables {
        tracing::warn!(table = %table, "unmanaged table found; leaving it in place");
    }
    let privileged_service = PrivilegedService::new(pool.clone(), config.clock.clone());
    let store = RecordStore::new(pool);
    let clock = config.clock.clone();

    let health_clock = clock.clone();
    let health = HealthActor::new(health_clock).start();

    let h = health.clone();
    let realtime = on_new_arbiter(move |_| RealtimeActor::new(h));

    let (s, c, h) = (store.clone(), clock.clone(), health.clone());
    let reader_addr = SyncArbiter::start(readers, move || StoreExecutor::new(s.clone(), c.clone(), h.clone(), None));
    let (s, c, h, p) = (store, clock.clone(), health.clone(), realtime.clone().recipient());
    let writer_addr =
        SyncArbiter::start(1, move || StoreExecutor::new(s.clone(), c.clone(), h.clone(), Some(p.clone())));
    let h = health.clone();
    let store = on_new_arbiter(move |_| StoreActor::new(reader_addr, writer_addr, h));

    let settings = AuthSettings {
        passphrase: config.passphrase,
        token_key: config.token_key,
        token_ttl_secs: config.token_ttl_secs,
        limits: config.auth_limits,
    };
    let (c, h) = (clock.clone(), health.clone());
    let auth = on_new_arbiter(move |_| AuthActor::new(settings, c, h));
    let (a, c, h, wc) = (auth.clone(), clock.clone(), health.clone(), config.web_sessions);
    let web_sessions = on_new_arbiter(move |_| WebSessionActor::new(wc, a, c, h));

    let (st, h, c, pc) = (store.clone(), health.clone(), clock.clone(), config.presence);
    let presence = on_new_arbiter(move |_| PresenceActor::new(pc, st, h, c));

    let (h, limits) = (health.clone(), config.privileged_limits);
    let privileged = on_new_arbiter(move |_| PrivilegedActor::new(privileged_service, limits, clock, h));

    Ok(Handles {
        health,
        realtime,
        store,
        auth,
        presence,
        privileged,
        web_sessions,
        applied_migrations,
        unmanaged_tables,
    })
}
