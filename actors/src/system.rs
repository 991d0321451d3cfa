//! Starting Relay's actor system. `start_server` opens the database (running migrations and
//! reporting unmanaged tables), then starts every server-side subsystem under an actix
//! `Supervisor` on its own arbiter, one line each: health first, then realtime, the store
//! (SyncArbiter readers plus one writer), metrics, auth, web sessions, presence, privileged,
//! status feeds, radar, the spreadsheet reader and, with a data directory, backups and branding
//! (logos, images).
//! `start_from_data_dir` is the one start path `relay serve` and the desktop's server mode
//! share. `start_client` starts what a client-mode desktop needs (health, the sign-in coordinator
//! and the offline cache and replay; the mDNS discovery actor is started on demand by the shell).
//! `start_desktop_updater` starts the updater, which only the desktop runs (both modes), never
//! `relay serve`. Everything must run inside an actix
//! `System`; the functions return cloneable addresses.

use std::path::PathBuf;
use std::sync::Arc;

use actix::prelude::*;

use infra::clock::SharedClock;
use infra::datadir::DataDir;
use infra::store::RecordStore;

use crate::auth::{AuthActor, AuthSettings};
use crate::auth_coordinator::{AuthCoordinator, RetryPolicy};
use crate::backup::jobs::JobEnv;
use crate::backup::{BackupActor, BackupConfig};
use crate::control::{ControlActor, ControlTargets};
use crate::health::HealthActor;
use crate::kit::{start_supervised, SubsystemCtx};
use crate::metrics::{MetricsActor, MetricsConfig};
use crate::offline_replay::{OfflineReplayActor, OfflineReplayConfig};
use crate::presence::{PresenceActor, PresenceConfig};
use crate::privileged::{PrivilegedActor, PrivilegedLimits, PrivilegedService};
use crate::radar::{RadarActor, RadarConfig};
use crate::realtime::{RealtimeActor, RealtimeLimits};
use crate::status_feeds::{StatusFeedsActor, StatusFeedsConfig};
use crate::store::{StoreActor, StoreExecutor};
use crate::web_sessions::{WebSessionActor, WebSessionConfig};
use domain::signin_guard::SignInLimits;
use infra::backup::verifier::{FreeSpace, StatvfsFreeSpace};
use infra::backup::worker::WorkerCommand;
use infra::radar::RadarSource;
use infra::status_feeds::FeedPoller;

/// Everything the server-side subsystems need. Build it with [`RelayConfig::new`], which fills
/// in every limit with its documented default, then override single fields.
#[derive(Debug, Clone)]
pub struct RelayConfig {
    pub db_path: PathBuf,
    pub passphrase: String,
    pub token_key: Vec<u8>,
    /// App-user token lifetime; default 24 h (PocketBase's record token default).
    pub token_ttl_secs: i64,
    pub auth_limits: SignInLimits,
    pub presence: PresenceConfig,
    pub privileged_limits: PrivilegedLimits,
    pub web_sessions: WebSessionConfig,
    pub metrics: MetricsConfig,
    /// Realtime stream caps, the authentication deadline and per-subscriber buffer bounds.
    pub realtime: RealtimeLimits,
    /// SQLite reader threads; default 2 (one per core on the reference machine).
    pub reader_threads: usize,
    /// When the store merges its search indexes' segments (`MERGE_POLICY`).
    pub search_merge: domain::search_merge::MergePolicy,
    /// Backups of the data directory (`start_from_data_dir` sets them; none without one).
    pub backup: Option<BackupSettings>,
    /// The status-feeds actor's timing and the poller it uses (the fixed production feeds).
    pub status_feeds: StatusFeedsSettings,
    /// The radar actor's timing and where it reads the Radar page.
    pub radar: RadarSettings,
    /// The Dynatrace sync: its timing, token vault and Grail client (`start_from_data_dir`
    /// sets it; without it `dynatrace.*` commands are refused and nothing syncs).
    pub dynatrace: Option<DynatraceSettings>,
    pub clock: SharedClock,
}

/// How the Dynatrace actor works: its timing, where the platform token lives, and the client.
#[derive(Clone)]
pub struct DynatraceSettings {
    pub config: crate::dynatrace::DynatraceConfig,
    pub vault: Arc<dyn infra::dynatrace::TokenVault>,
    pub client: infra::dynatrace::GrailClient,
}

impl DynatraceSettings {
    /// Production settings for a data directory: a headless `relay serve`'s vault (the desktop
    /// replaces the vault with its own policy).
    pub fn production(data_dir: &DataDir) -> Result<DynatraceSettings, infra::http::HttpError> {
        let vault = infra::dynatrace::token::SecretStoreVault::new(
            data_dir,
            infra::dynatrace::token::VaultHost::HeadlessServer,
        );
        Ok(DynatraceSettings {
            config: crate::dynatrace::DynatraceConfig::default(),
            vault: Arc::new(vault),
            client: infra::dynatrace::GrailClient::new()?,
        })
    }
}

impl std::fmt::Debug for DynatraceSettings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DynatraceSettings").field("config", &self.config).finish_non_exhaustive()
    }
}

/// How the status-feeds actor polls: its timing, and the poller (production: the fixed feed
/// endpoints through the outbound HTTP policy; tests: a scripted poller).
#[derive(Clone)]
pub struct StatusFeedsSettings {
    pub config: StatusFeedsConfig,
    pub poller: Arc<dyn FeedPoller>,
}

impl StatusFeedsSettings {
    /// The production feeds on their schedule.
    pub fn production() -> StatusFeedsSettings {
        StatusFeedsSettings { config: StatusFeedsConfig::default(), poller: infra::status_feeds::production_poller() }
    }
}

/// How the radar actor reads: its timing, and the source (production: the fixed intranet page
/// with the Radar session stored in the data directory's `secrets/`; tests: a script).
#[derive(Clone)]
pub struct RadarSettings {
    pub config: RadarConfig,
    pub source: Arc<dyn RadarSource>,
}

impl RadarSettings {
    /// The production page; `secrets_dir` holds the Radar session (None: no session exists, so
    /// nothing is ever requested).
    pub fn production(secrets_dir: Option<PathBuf>) -> RadarSettings {
        RadarSettings { config: RadarConfig::default(), source: infra::radar::production_source(secrets_dir) }
    }
}

impl std::fmt::Debug for RadarSettings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RadarSettings").field("config", &self.config).finish_non_exhaustive()
    }
}

impl StatusFeedsSettings {
    /// Debug builds only: the black-box tests' override of the operator-refresh interval
    /// (`RELAY_TEST_STATUS_REFRESH_INTERVAL_MS`), so a test can refresh twice without waiting.
    #[cfg(debug_assertions)]
    fn with_test_overrides(mut self) -> StatusFeedsSettings {
        if let Some(ms) =
            std::env::var("RELAY_TEST_STATUS_REFRESH_INTERVAL_MS").ok().and_then(|v| v.parse::<i64>().ok())
        {
            self.config.manual_refresh_interval_ms = ms.max(0);
        }
        self
    }

    /// Release builds read no test switches.
    #[cfg(not(debug_assertions))]
    fn with_test_overrides(self) -> StatusFeedsSettings {
        self
    }
}

impl std::fmt::Debug for StatusFeedsSettings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StatusFeedsSettings").field("config", &self.config).finish_non_exhaustive()
    }
}

/// Where and how the backup actor works.
#[derive(Clone)]
pub struct BackupSettings {
    pub data_root: PathBuf,
    /// The verification worker (this executable in its hidden worker mode).
    pub worker: WorkerCommand,
    pub verify_deadline: std::time::Duration,
    pub free_space: Arc<dyn FreeSpace + Send + Sync>,
    /// Run the daily schedule.
    pub schedule: bool,
    /// The host's end of a restore on the running server (the host stops the server, installs
    /// the staged restore and starts again); without it a running server refuses restores.
    pub restart: Option<crate::backup::RestoreHandoff>,
    /// The restore the host installed just before this start (reported in the status).
    pub last_restore: Option<domain::backup::status::FinishedRestore>,
    /// The Wiki's PDF extraction (this executable's worker mode). The Wiki, like the logos,
    /// lives in the data directory these settings describe.
    pub wiki_extractor: Arc<dyn crate::wiki::PdfExtractor>,
}

impl std::fmt::Debug for BackupSettings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BackupSettings")
            .field("data_root", &self.data_root)
            .field("worker", &self.worker)
            .field("verify_deadline", &self.verify_deadline)
            .field("schedule", &self.schedule)
            .field("restart", &self.restart.is_some())
            .field("last_restore", &self.last_restore)
            .finish_non_exhaustive()
    }
}

impl BackupSettings {
    /// Daily backups of `data_root`, verified by this executable's worker mode within 120 s.
    pub fn new(data_root: PathBuf) -> std::io::Result<BackupSettings> {
        Ok(BackupSettings {
            worker: WorkerCommand::current_exe(&[infra::backup::worker::WORKER_ARG])?,
            verify_deadline: infra::backup::worker::VERIFY_DEADLINE,
            free_space: Arc::new(StatvfsFreeSpace),
            schedule: true,
            restart: None,
            last_restore: None,
            wiki_extractor: Arc::new(crate::wiki::WorkerExtractor::current_exe(
                data_root.join(infra::wiki::files::STAGING_DIR),
            )?),
            data_root,
        })
    }

    /// What the backup jobs work with, over the store's `pool`.
    pub fn job_env(&self, pool: infra::db::DbPool) -> JobEnv {
        JobEnv {
            data_root: self.data_root.clone(),
            pool,
            worker: self.worker.clone(),
            verify_deadline: self.verify_deadline,
            free_space: self.free_space.clone(),
            relay_version: env!("CARGO_PKG_VERSION").to_string(),
        }
    }

    /// Debug builds only: the black-box tests' overrides (free space, verification deadline).
    #[cfg(debug_assertions)]
    fn with_test_overrides(mut self) -> BackupSettings {
        struct Fixed(u64);
        impl FreeSpace for Fixed {
            fn free_bytes(&self, _: &std::path::Path) -> std::io::Result<u64> {
                Ok(self.0)
            }
        }
        let number = |name: &str| std::env::var(name).ok().and_then(|v| v.parse::<u64>().ok());
        if let Some(bytes) = number("RELAY_TEST_BACKUP_FREE_BYTES") {
            self.free_space = Arc::new(Fixed(bytes));
        }
        if let Some(ms) = number("RELAY_TEST_BACKUP_VERIFY_DEADLINE_MS") {
            self.verify_deadline = std::time::Duration::from_millis(ms);
        }
        self
    }

    /// Release builds read no test switches.
    #[cfg(not(debug_assertions))]
    fn with_test_overrides(self) -> BackupSettings {
        self
    }
}

/// Default app-user token lifetime.
pub const DEFAULT_TOKEN_TTL_SECS: i64 = 86_400;
/// Default number of SQLite reader threads.
pub const DEFAULT_READER_THREADS: usize = 2;

impl RelayConfig {
    /// The database, the connection passphrase, the token-signing key and the clock; every
    /// other field takes its documented default.
    pub fn new(db_path: PathBuf, passphrase: String, token_key: Vec<u8>, clock: SharedClock) -> RelayConfig {
        RelayConfig {
            db_path,
            passphrase,
            token_key,
            token_ttl_secs: DEFAULT_TOKEN_TTL_SECS,
            auth_limits: SignInLimits::default(),
            presence: PresenceConfig::default(),
            privileged_limits: PrivilegedLimits::default(),
            web_sessions: WebSessionConfig::default(),
            metrics: MetricsConfig::default(),
            realtime: RealtimeLimits::default(),
            reader_threads: DEFAULT_READER_THREADS,
            search_merge: domain::search_merge::MERGE_POLICY,
            backup: None,
            status_feeds: StatusFeedsSettings::production(),
            radar: RadarSettings::production(None),
            dynatrace: None,
            clock,
        }
    }
}

/// Addresses of the running server-side subsystems.
#[derive(Clone)]
pub struct Handles {
    pub health: Addr<HealthActor>,
    pub realtime: Addr<RealtimeActor>,
    pub store: Addr<StoreActor>,
    pub auth: Addr<AuthActor>,
    pub presence: Addr<PresenceActor>,
    pub privileged: Addr<PrivilegedActor>,
    pub web_sessions: Addr<WebSessionActor>,
    pub metrics: Addr<MetricsActor>,
    /// The server-local control socket (`start_from_data_dir` only).
    pub control: Option<Addr<ControlActor>>,
    /// Backups (when the configuration has `backup`).
    pub backup: Option<Addr<BackupActor>>,
    pub status_feeds: Addr<StatusFeedsActor>,
    pub radar: Addr<RadarActor>,
    /// The Dynatrace sync (when the configuration has `dynatrace`).
    pub dynatrace: Option<Addr<crate::dynatrace::DynatraceActor>>,
    /// Logos and the image pipeline (with a data directory, like `backup`).
    pub branding: Option<Addr<crate::branding::BrandingActor>>,
    /// The Wiki (absent without a data directory).
    pub wiki: Option<Addr<crate::wiki::WikiActor>>,
    /// Reads uploaded `.xlsx` workbooks into rows (Data Manager import, Servers sync).
    pub spreadsheet: Addr<crate::spreadsheet::SpreadsheetActor>,
    /// Migrations applied by this start (empty when the schema was current).
    pub applied_migrations: Vec<String>,
    /// Tables found in the database that Relay does not manage (left in place).
    pub unmanaged_tables: Vec<String>,
}

/// How long a stopping server waits for the Dynatrace sync's run in flight to stop writing.
pub const SYNC_DRAIN: std::time::Duration = std::time::Duration::from_secs(5);

/// How long a stopping server waits for control replies in flight.
pub const CONTROL_DRAIN: std::time::Duration = std::time::Duration::from_secs(2);

impl Handles {
    /// The first part of stopping a server, shared by its hosts: the Dynatrace sync is paused
    /// and drained (no run writes into a store about to be swapped), realtime streams are closed
    /// and the control replies in flight are delivered (the one that asked for a restore
    /// included). The host then stops its HTTP servers (draining requests) and the System.
    pub async fn prepare_stop(&self) {
        if let Some(dynatrace) = &self.dynatrace {
            let pause = dynatrace.send(crate::dynatrace::PauseSync);
            if tokio::time::timeout(SYNC_DRAIN, pause).await.is_err() {
                tracing::warn!("the Dynatrace sync did not drain in time; stopping anyway");
            }
        }
        let _ = self.realtime.send(crate::realtime::CloseAll).await;
        if let Some(control) = &self.control {
            let _ = control.send(crate::control::Drain { within: CONTROL_DRAIN }).await;
        }
    }
}

/// Addresses of the client-mode (desktop) subsystems.
#[derive(Clone)]
pub struct ClientHandles {
    pub health: Addr<HealthActor>,
    pub auth_coordinator: Addr<AuthCoordinator>,
    /// The offline cache and queue; `None` until a server is chosen (setup window).
    pub offline: Option<Addr<OfflineReplayActor>>,
}

#[derive(Debug, thiserror::Error)]
pub enum StartError {
    #[error(transparent)]
    Db(#[from] infra::db::DbError),
    #[error(transparent)]
    DataDir(#[from] infra::datadir::DataDirError),
    #[error(transparent)]
    Control(#[from] infra::control_socket::BindError),
    #[error("the backup worker cannot be located: {0}")]
    Backup(#[source] std::io::Error),
    /// A restore journal that cannot be carried out safely: the store is not opened.
    #[error("an interrupted backup restore could not be recovered, so the store was not opened: {0}")]
    Restore(#[from] infra::backup::swap::SwapError),
}

/// The server's start from its data directory, shared by `relay serve` and the desktop's server
/// mode: binds the control socket first (so a second server on the same directory is refused
/// before it touches the database), recovers an interrupted backup restore before the store
/// opens (fail closed: an unsafe or ambiguous journal stops the start with the store untouched),
/// loads (or creates) the token-signing key, builds the default
/// configuration with the system clock, lets the caller adjust it, starts the server subsystems
/// and the control channel. The caller owns the passphrase policy (file for `relay serve`, OS
/// secret store for the desktop).
pub fn start_from_data_dir(
    data_dir: &DataDir,
    passphrase: String,
    adjust: impl FnOnce(&mut RelayConfig),
) -> Result<Handles, StartError> {
    let listener = infra::control_socket::bind(data_dir.root())?;
    recover_interrupted_restore(data_dir)?;
    let token_key = data_dir.load_or_create_token_key()?;
    infra::startup::mark("control socket, restore check, token key");
    let mut config = RelayConfig::new(data_dir.db_path(), passphrase, token_key, infra::clock::system());
    let backup = BackupSettings::new(data_dir.root().to_path_buf()).map_err(StartError::Backup)?;
    config.backup = Some(backup.with_test_overrides());
    config.status_feeds = config.status_feeds.with_test_overrides();
    config.radar = RadarSettings::production(Some(data_dir.root().join("secrets")));
    config.dynatrace = DynatraceSettings::production(data_dir)
        .map_err(|e| tracing::error!(error = %e, "the Dynatrace client cannot be set up; Dynatrace stays off"))
        .ok();
    adjust(&mut config);
    infra::startup::mark("configuration and outbound clients");
    let clock = config.clock.clone();
    let mut handles = start_server(config)?;
    let ctx = SubsystemCtx::new(clock, handles.health.clone());
    let targets = ControlTargets {
        privileged: handles.privileged.clone(),
        backup: handles.backup.clone(),
        branding: handles.branding.clone(),
        radar: handles.radar.clone(),
        dynatrace: handles.dynatrace.clone(),
        wiki: handles.wiki.clone(),
    };
    handles.control = Some(start_supervised(move |_| ControlActor::new(ctx, listener, targets)));
    Ok(handles)
}

/// Finishes or undoes an interrupted backup restore (`infra::backup::swap::recover_at_start`)
/// before anything opens the store; the caller must be the only user of the data directory.
pub fn recover_interrupted_restore(data_dir: &DataDir) -> Result<(), StartError> {
    use infra::backup::swap::{recover_at_start, RecoveryOutcome};
    match recover_at_start(data_dir.root()) {
        Ok(RecoveryOutcome::Nothing) => Ok(()),
        Ok(outcome) => {
            tracing::warn!(outcome = ?outcome, "recovered an interrupted backup restore before opening the store");
            Ok(())
        }
        Err(error) => {
            tracing::error!(code = error.code(), %error, "interrupted backup restore not recovered; not starting");
            Err(error.into())
        }
    }
}

/// Opens the database and starts every server-side subsystem. A new subsystem adds one line
/// here (and a field to `Handles`).
pub fn start_server(config: RelayConfig) -> Result<Handles, StartError> {
    let readers = config.reader_threads.max(1);
    // The readers, the writer, the store's checkpointer and three for the other subsystems.
    let (pool, applied_migrations) = infra::db::open(&config.db_path, readers as u32 + 5)?;
    if !applied_migrations.is_empty() {
        tracing::info!(count = applied_migrations.len(), "applied database migrations");
    }
    infra::startup::mark("database open (migrations, pool)");
    let unmanaged_tables = {
        let mut conn = pool.get().map_err(|e| infra::db::DbError::Pool(e.to_string()))?;
        infra::db::unmanaged_tables(&mut conn)?
    };
    for table in &unmanaged_tables {
        tracing::warn!(table = %table, "unmanaged table found; leaving it in place");
    }
    infra::startup::mark("unmanaged tables checked");
    let mut privileged_service = PrivilegedService::new(pool.clone(), config.clock.clone());
    let dynatrace_pool = pool.clone();
    let wiki_pool = pool.clone();
    let backup_env = config.backup.as_ref().map(|b| BackupConfig {
        env: b.job_env(pool.clone()),
        schedule: b.schedule,
        store: None,
        restart: b.restart.clone(),
        last_restore: b.last_restore.clone(),
    });
    let rate_limits = infra::rate_limits::RateLimitStore::new(pool.clone());
    let records = RecordStore::new(pool);
    let health = HealthActor::new(config.clock.clone()).start();
    let ctx = SubsystemCtx::new(config.clock.clone(), health.clone());

    let realtime = start_supervised({
        let (ctx, limits) = (ctx.clone(), config.realtime);
        move |_| RealtimeActor::new(ctx, limits)
    });
    let store = start_store(&ctx, records, readers, config.search_merge, &realtime);
    let metrics = start_supervised({
        let (ctx, limits, realtime, store) = (ctx.clone(), config.metrics, realtime.clone(), store.clone());
        move |_| MetricsActor::new(ctx, limits, realtime, store)
    });
    let auth_settings = AuthSettings {
        passphrase: config.passphrase,
        token_key: config.token_key,
        token_ttl_secs: config.token_ttl_secs,
        limits: config.auth_limits,
    };
    let auth = start_supervised({
        let (ctx, rate_limits) = (ctx.clone(), rate_limits.clone());
        move |_| AuthActor::new(ctx, auth_settings).persisting(rate_limits)
    });
    let web_sessions = start_supervised({
        let (ctx, auth, web) = (ctx.clone(), auth.clone(), config.web_sessions);
        move |_| WebSessionActor::new(ctx, web, auth)
    });
    let presence = start_supervised({
        let (ctx, store, presence) = (ctx.clone(), store.clone(), config.presence);
        move |_| PresenceActor::new(ctx, presence, store)
    });
    let dynatrace = config.dynatrace.map(|settings| {
        let source: Arc<dyn crate::dynatrace::SettingsSource> =
            Arc::new(crate::dynatrace::Settings::new(dynatrace_pool, settings.vault.clone()));
        let addr = start_supervised({
            let (ctx, store, config, client) =
                (ctx.clone(), store.clone(), settings.config.clone(), settings.client.clone());
            move |_| crate::dynatrace::DynatraceActor::new(ctx, config, store, source, client)
        });
        let hooks =
            crate::privileged::DynatraceHooks { vault: settings.vault, changed: Some(addr.clone().recipient()) };
        privileged_service = privileged_service.clone().with_dynatrace(hooks);
        addr
    });
    // The Wiki needs the data directory (for the library files and staging) and realtime.
    let wiki = config.backup.as_ref().map(|b| {
        let files = infra::wiki::files::WikiFiles::new(&b.data_root);
        let pipeline = crate::wiki::Pipeline {
            pool: wiki_pool.clone(),
            files: files.clone(),
            extractor: b.wiki_extractor.clone(),
            clock: config.clock.clone(),
        };
        let wiki = crate::wiki::start(&ctx, pipeline, Some(realtime.clone().recipient()));
        let hooks = crate::privileged::WikiHooks::new(files, Some(realtime.clone().recipient()))
            .with_indexer(wiki.clone().recipient());
        privileged_service = privileged_service.clone().with_wiki(hooks);
        wiki
    });
    let privileged = start_supervised({
        let (ctx, limits) = (ctx.clone(), config.privileged_limits);
        let test = dynatrace.clone().map(|a| a.recipient());
        move |_| {
            let actor = PrivilegedActor::new(ctx, privileged_service, limits).persisting(rate_limits);
            match test {
                Some(test) => actor.with_dynatrace_test(test),
                None => actor,
            }
        }
    });

    let branding = config.backup.as_ref().map(|b| crate::branding::start(&ctx, b.data_root.clone()));
    let spreadsheet = crate::spreadsheet::start(&ctx);
    let backup = backup_env.map(|mut config| {
        config.store = Some(store.clone());
        let ctx = ctx.clone();
        start_supervised(move |_| BackupActor::new(ctx, config))
    });

    let status_feeds = start_supervised({
        let (ctx, store, settings) = (ctx.clone(), store.clone(), config.status_feeds);
        move |_| StatusFeedsActor::new(ctx, settings.config, store, settings.poller)
    });

    let radar = start_supervised({
        let (ctx, settings) = (ctx.clone(), config.radar);
        move |_| RadarActor::new(ctx, settings.config, settings.source)
    });

    Ok(Handles {
        backup,
        status_feeds,
        radar,
        dynatrace,
        branding,
        wiki,
        spreadsheet,
        health,
        realtime,
        store,
        auth,
        presence,
        privileged,
        web_sessions,
        metrics,
        control: None,
        applied_migrations,
        unmanaged_tables,
    })
}

/// The store: `readers` SyncArbiter threads, one writer thread that publishes committed changes
/// to realtime, one maintenance thread (WAL checkpoints), and the supervised actor that routes
/// between them.
fn start_store(
    ctx: &SubsystemCtx,
    records: RecordStore,
    readers: usize,
    merge_policy: domain::search_merge::MergePolicy,
    realtime: &Addr<RealtimeActor>,
) -> Addr<StoreActor> {
    let reader = {
        let (records, ctx) = (records.clone(), ctx.clone());
        SyncArbiter::start(readers, move || StoreExecutor::new(ctx.clone(), records.clone(), None))
    };
    let maintenance = {
        let (records, ctx) = (records.clone(), ctx.clone());
        SyncArbiter::start(1, move || StoreExecutor::new(ctx.clone(), records.clone(), None))
    };
    let writer = {
        let (ctx, publisher) = (ctx.clone(), realtime.clone().recipient());
        SyncArbiter::start(1, move || StoreExecutor::new(ctx.clone(), records.clone(), Some(publisher.clone())))
    };
    let ctx = ctx.clone();
    start_supervised(move |_| StoreActor::new(ctx, reader, writer, maintenance, merge_policy))
}

/// The desktop's updater, in both modes (`relay serve` and Relay Web never start it): the fixed
/// GitHub endpoint, the compiled-in publisher key and `$XDG_DATA_HOME/relay/updates`
/// (`UpdaterIo::production`) under `config` (the desktop shell passes the default timing, with
/// scheduled checks off in a debug build that has no GitHub test override), reporting to
/// `health`. `None` (logged) when it cannot be set up; the desktop then runs without updates.
pub fn start_desktop_updater(
    health: Addr<HealthActor>,
    clock: SharedClock,
    config: crate::updater::UpdaterConfig,
) -> Option<Addr<crate::updater::UpdaterActor>> {
    match crate::updater::UpdaterIo::production(config.current_version) {
        Ok(io) => Some(crate::updater::start(SubsystemCtx::new(clock, health), config, io)),
        Err(error) => {
            tracing::warn!(%error, "the updater cannot be set up; this desktop runs without updates");
            None
        }
    }
}

/// Starts the client-mode subsystems (a desktop connected to another Relay server): health, the
/// sign-in coordinator and, once the server is known, the supervised offline cache and replay.
pub fn start_client(clock: SharedClock, offline: Option<OfflineReplayConfig>) -> ClientHandles {
    let health = HealthActor::new(clock.clone()).start();
    let ctx = SubsystemCtx::new(clock.clone(), health.clone());
    let auth_coordinator = AuthCoordinator::new(clock, RetryPolicy::default()).start();
    let offline = offline.map(|config| start_supervised(move |_| OfflineReplayActor::new(ctx, config)));
    ClientHandles { health, auth_coordinator, offline }
}
