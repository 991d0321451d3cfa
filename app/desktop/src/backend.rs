//! The actix side of the desktop shell. Actix actors need an actix System (they panic on Tauri's
//! plain tokio runtime), so a dedicated OS thread owns one: in server mode it starts the actor
//! system and the HTTP server exactly like `relay serve` (`actors::start_from_data_dir` then
//! `web::build_server`, signals disabled so actix never handles SIGINT/SIGTERM in the GUI
//! process); in client mode it hosts the client-side `AuthCoordinator`. The same thread hosts
//! the mDNS `DiscoveryActor` when it is needed: in server mode with a LAN bind it advertises the
//! bound port (unless `--no-mdns`), in client mode it is started on the first browse. In server
//! mode the thread runs generations, each on its own actix System, like `relay serve`: a backup
//! restore staged by the backup actor ends the generation (advertisement withdrawn, realtime
//! closed, HTTP drained, every actor and store connection gone), is installed, and the next
//! generation starts on the same listener and reports the outcome; the current generation's
//! addresses live in [`LiveServer`]. The thread sends the first addresses back over a std
//! channel; `Backend::stop` withdraws the advertisement and shuts the mDNS daemon down, then
//! shuts everything else down on app exit.

use std::net::{IpAddr, SocketAddr};
use std::path::PathBuf;
use std::sync::{mpsc, Arc, Mutex};
use std::thread::JoinHandle;

use actix::{Actor, Addr};
use actors::auth_coordinator::AuthCoordinator;
use actors::discovery::{Advertise, DiscoveryActor, MdnsConfig};
use actors::health::HealthActor;
use infra::datadir::{DataDir, RuntimeInfo};
use infra::secret_store::SecretStore;

type BoxError = Box<dyn std::error::Error + Send + Sync>;

/// Settings for the in-process server.
#[derive(Debug, Clone)]
pub struct ServerSettings {
    pub bind: IpAddr,
    pub port: u16,
    pub workers: usize,
    pub ui_dir: Option<std::path::PathBuf>,
    /// Advertise on mDNS when LAN-bound (`--no-mdns` turns it off).
    pub mdns: bool,
    /// The build's secret policy (where the Dynatrace platform token may be kept).
    pub build: domain::secret_policy::BuildKind,
}

/// How long `Backend::stop` waits for the mDNS goodbye and daemon shutdown.
const MDNS_STOP_WAIT: std::time::Duration = std::time::Duration::from_secs(5);

/// What the actix thread hands back.
pub struct Backend {
    pub kind: BackendKind,
    system: actix::System,
    thread: Option<JoinHandle<()>>,
    /// Whether mDNS may be used at all (`--no-mdns` clears it).
    mdns: bool,
    discovery: Option<Addr<DiscoveryActor>>,
}

/// The running server generation's addresses (replaced when a restore restarts the server).
#[derive(Clone)]
pub struct LiveServer {
    pub health: Addr<HealthActor>,
    pub realtime: Addr<actors::realtime::RealtimeActor>,
    /// Backups of the data directory (Settings → Data administration).
    pub backup: Option<Addr<actors::backup::BackupActor>>,
    /// Logos and the image pipeline (Settings → Logos, behind the Administration session).
    pub branding: Option<Addr<actors::branding::BrandingActor>>,
    /// Protected identity: the Administration screen's local sessions and commands.
    pub privileged: Addr<actors::privileged::PrivilegedActor>,
    /// The Dispatcher Radar reader (its session is set from the Radar sign-in window).
    pub radar: Addr<actors::radar::RadarActor>,
    /// The Wiki (feeds the PDFs the Administration screen's picker chose).
    pub wiki: Option<Addr<actors::wiki::WikiActor>>,
    pub server: actix_web::dev::ServerHandle,
    pub discovery: Option<Addr<DiscoveryActor>>,
    pub system: actix::System,
}

/// Shared between the server thread (which replaces it at each start) and the shell.
pub type SharedLive = Arc<Mutex<Option<LiveServer>>>;

pub enum BackendKind {
    Server {
        /// Origin the window and LAN clients use (`http://127.0.0.1:<port>` for a loopback bind).
        url: String,
        passphrase: String,
        live: SharedLive,
        /// Set on app exit: no further generation starts (a restore in progress finishes).
        quit: Arc<std::sync::atomic::AtomicBool>,
    },
    Client {
        url: String,
        coordinator: Addr<AuthCoordinator>,
        /// The offline cache, queue and replay (`DATA/offline`).
        offline: Option<Addr<actors::offline_replay::OfflineReplayActor>>,
    },
    /// Nothing chosen yet: the setup screen (the thread hosts only a discovery actor, on demand).
    Setup,
}

fn shown_origin(bind: IpAddr, addr: SocketAddr) -> String {
    let host = if bind.is_unspecified() { IpAddr::from([127, 0, 0, 1]) } else { bind };
    match host {
        IpAddr::V6(v6) => format!("http://[{v6}]:{}", addr.port()),
        IpAddr::V4(v4) => format!("http://{v4}:{}", addr.port()),
    }
}

/// Starts Relay's actors and HTTP server on a dedicated actix thread. The connection passphrase
/// is kept where `store`'s policy says (`infra::server_passphrase`).
pub fn start_server(data_dir: &DataDir, settings: ServerSettings, store: &SecretStore) -> Result<Backend, BoxError> {
    // Like `relay serve`: the soft open-file limit up to the hard one before anything is opened.
    infra::process_limits::raise_open_files_limit_logged();
    let data_dir = data_dir.clone();
    let lock = infra::dir_lock::lock(data_dir.root())?;
    let bootstrap = DataDir::bootstrap_passphrase();
    let kept = infra::server_passphrase::load_or_create(&data_dir, store, bootstrap.as_deref())?;
    if kept.created {
        tracing::info!(storage = ?kept.storage, "created the connection passphrase; reveal it from the app");
    }
    let passphrase = kept.value;
    let web_config = web::WebConfig {
        bind: settings.bind.to_string(),
        port: settings.port,
        ui_dir: settings.ui_dir.clone(),
        workers: settings.workers.max(1),
        // The desktop's server mode runs no Relay Web gateway.
        relay_web: None,
    };
    let advertise = domain::discovery::should_advertise(settings.bind) && settings.mdns;
    if domain::discovery::should_advertise(settings.bind) && !settings.mdns {
        tracing::info!("LAN access is on; mDNS advertising is off (--no-mdns)");
    }
    let listener = web::bind_listener(&web_config.bind, web_config.port)?;
    let bind = settings.bind;
    let build = settings.build;
    let live: SharedLive = Arc::new(Mutex::new(None));
    let (tx, rx) = mpsc::channel();
    let quit = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let (thread_live, thread_passphrase, thread_quit) = (live.clone(), passphrase.clone(), quit.clone());
    let thread = std::thread::Builder::new().name(domain::stability::SERVER_THREAD.into()).spawn(move || {
        // Held for the life of the server thread, across restore restarts.
        let _lock = lock;
        let generation = Generation {
            data_dir,
            passphrase: thread_passphrase,
            web_config,
            listener,
            bind,
            advertise,
            live: thread_live,
            build,
        };
        let mut started = Some(tx);
        let mut last_restore = None;
        while !thread_quit.load(std::sync::atomic::Ordering::SeqCst) {
            match generation.run(last_restore.take(), started.take()) {
                Ok(Some(staged)) => {
                    let now = infra::clock::system().now_ms();
                    match actors::backup::restore::finish_staged(&generation.data_dir, *staged, now) {
                        Ok(finished) => {
                            tracing::info!(result = ?finished.result, "restore installed; restarting the server");
                            last_restore = Some(finished);
                        }
                        Err(e) => {
                            // The next start recovers it (or refuses, touching nothing).
                            tracing::error!(code = e.code(), "the restore could not be recovered; not serving");
                            break;
                        }
                    }
                }
                Ok(None) => break,
                Err(e) => {
                    tracing::error!(error = %domain::redact::redact_text(&e), "relay server stopped with an error");
                    break;
                }
            }
        }
    })?;
    let url = rx.recv().map_err(|_| "the actix thread exited before starting")??;
    let system = lock_live(&live).as_ref().map(|l| l.system.clone()).ok_or("the server did not start")?;
    let kind = BackendKind::Server { url, passphrase, live, quit };
    Ok(Backend { kind, system, thread: Some(thread), mdns: settings.mdns, discovery: None })
}

fn lock_live(live: &SharedLive) -> std::sync::MutexGuard<'_, Option<LiveServer>> {
    live.lock().unwrap_or_else(|p| p.into_inner())
}

/// What every server generation of the desktop starts from.
struct Generation {
    data_dir: DataDir,
    passphrase: String,
    web_config: web::WebConfig,
    listener: std::net::TcpListener,
    bind: IpAddr,
    advertise: bool,
    live: SharedLive,
    build: domain::secret_policy::BuildKind,
}

type Started = mpsc::Sender<Result<String, String>>;

impl Generation {
    /// Runs one generation on a new actix System until the server stops (`None`: app exit or
    /// an error) or the backup actor hands over a staged restore (returned, to be installed).
    /// The first generation reports its origin (or its start error) on `started`.
    fn run(
        &self,
        last_restore: Option<domain::backup::status::FinishedRestore>,
        started: Option<Started>,
    ) -> Result<Option<Box<actors::backup::restore::StagedRestore>>, String> {
        let system = actix::System::new();
        let outcome = system.block_on(self.serve(last_restore, started));
        *lock_live(&self.live) = None;
        actix::System::current().stop();
        let _ = system.run();
        outcome
    }

    async fn serve(
        &self,
        last_restore: Option<domain::backup::status::FinishedRestore>,
        started: Option<Started>,
    ) -> Result<Option<Box<actors::backup::restore::StagedRestore>>, String> {
        let (restart_tx, mut restart_rx) = tokio::sync::mpsc::unbounded_channel();
        let launched = (|| {
            let handles = actors::start_from_data_dir(&self.data_dir, self.passphrase.clone(), |config| {
                if let Some(backup) = config.backup.as_mut() {
                    backup.restart = Some(restart_tx);
                    backup.last_restore = last_restore;
                }
                if let Some(dynatrace) = config.dynatrace.as_mut() {
                    dynatrace.vault = Arc::new(infra::dynatrace::token::SecretStoreVault::new(
                        &self.data_dir,
                        infra::dynatrace::token::VaultHost::Desktop(self.build),
                    ));
                }
            })
            .map_err(|e| e.to_string())?;
            let listener = self.listener.try_clone().map_err(|e| e.to_string())?;
            let (server, addrs) =
                web::build_server_on(handles.clone(), listener, self.web_config.clone()).map_err(|e| e.to_string())?;
            let addr = *addrs.first().ok_or("the server bound no address")?;
            Ok::<_, String>((handles, server, addr))
        })();
        let (handles, server, addr) = match launched {
            Ok(launched) => launched,
            Err(e) => {
                if let Some(started) = started {
                    let _ = started.send(Err(e.clone()));
                }
                return Err(e);
            }
        };
        let info = RuntimeInfo { bind: self.bind.to_string(), port: addr.port(), pid: std::process::id() };
        if let Err(e) = self.data_dir.write_runtime_info(&info) {
            tracing::warn!(error = %e, "could not write runtime info");
        }
        let discovery = self.advertise.then(|| start_advertising(&handles.health, addr.port())).flatten();
        let live = LiveServer {
            health: handles.health.clone(),
            realtime: handles.realtime.clone(),
            backup: handles.backup.clone(),
            branding: handles.branding.clone(),
            privileged: handles.privileged.clone(),
            radar: handles.radar.clone(),
            wiki: handles.wiki.clone(),
            server: server.handle(),
            discovery: discovery.clone(),
            system: actix::System::current(),
        };
        *lock_live(&self.live) = Some(live);
        if let Some(started) = started {
            let _ = started.send(Ok(shown_origin(self.bind, addr)));
            #[cfg(debug_assertions)]
            inject_fatal_for_tests();
        }
        // The server's stop commands are handled while its future is polled: it runs as a task.
        let handle = server.handle();
        let mut server_task = actix::spawn(server);
        let staged = tokio::select! {
            served = &mut server_task => {
                return served.map_err(|e| e.to_string())?.map(|_| None).map_err(|e| e.to_string());
            }
            Some(staged) = restart_rx.recv() => staged,
        };
        tracing::info!("stopping the server for a backup restore");
        if let Some(discovery) = discovery {
            let _ = tokio::time::timeout(MDNS_STOP_WAIT, discovery.send(actors::discovery::Shutdown)).await;
        }
        handles.prepare_stop().await;
        drop(handles);
        handle.stop(true).await;
        let _ = server_task.await;
        Ok(Some(Box::new(staged)))
    }
}

/// Server mode, LAN-bound: starts the discovery actor (watched by the health actor) on the
/// current actix thread and advertises `port`. A failure is logged and the server runs without
/// mDNS.
fn start_advertising(health: &Addr<HealthActor>, port: u16) -> Option<Addr<DiscoveryActor>> {
    match DiscoveryActor::new(MdnsConfig::default(), Some(health.clone())) {
        Ok(actor) => {
            let addr = actor.start();
            // The actor logs the result and reports a failure to the health actor.
            addr.do_send(Advertise { port });
            Some(addr)
        }
        Err(e) => {
            tracing::warn!(error = %e, "mDNS advertising is unavailable");
            None
        }
    }
}

/// Debug builds only, for `scripts/desktop-fatal-dialog.sh`: `RELAY_DESKTOP_TEST_FATAL=server`
/// panics on the server thread 3 s after start (the fatal path: panic hook, Quit / Continue
/// dialog, exit); `=recoverable` panics three short-lived worker threads instead (the stability
/// warning path; the app keeps running). Release builds have no such switch.
#[cfg(debug_assertions)]
fn inject_fatal_for_tests() {
    match std::env::var("RELAY_DESKTOP_TEST_FATAL").as_deref() {
        Ok("server") => {
            actix::spawn(async {
                actix::clock::sleep(std::time::Duration::from_secs(3)).await;
                panic!("injected fatal failure (RELAY_DESKTOP_TEST_FATAL)");
            });
        }
        Ok("recoverable") => {
            std::thread::spawn(|| {
                std::thread::sleep(std::time::Duration::from_secs(3));
                for i in 0..3 {
                    let worker = std::thread::Builder::new().name(format!("relay-test-worker-{i}"));
                    let _ = worker.spawn(move || panic!("injected recoverable failure {i}")).map(|h| h.join());
                }
            });
        }
        _ => {}
    }
}

/// Client mode (`Some(url)`): hosts the shared sign-in coordinator and the offline cache and
/// replay (kept under `data_dir`) on its own actix thread. Setup mode (`None`): the same thread,
/// for the discovery actor the setup screen may ask for.
pub fn start_client(url: Option<String>, mdns: bool, data_dir: PathBuf) -> Result<Backend, BoxError> {
    let (tx, rx) = mpsc::channel();
    let thread = std::thread::Builder::new().name("actix-client".into()).spawn(move || {
        let system = actix::System::new();
        system.block_on(async move {
            let kind = match url {
                Some(url) => {
                    let offline = actors::offline_replay::OfflineReplayConfig { data_dir, server_origin: url.clone() };
                    let handles = actors::start_client(infra::clock::system(), Some(offline));
                    BackendKind::Client { url, coordinator: handles.auth_coordinator, offline: handles.offline }
                }
                None => BackendKind::Setup,
            };
            let _ = tx.send((kind, actix::System::current()));
        });
        system.run().ok();
    })?;
    let (kind, system) = rx.recv().map_err(|_| "the actix thread exited before starting")?;
    Ok(Backend { kind, system, thread: Some(thread), mdns, discovery: None })
}

impl Backend {
    pub fn url(&self) -> &str {
        match &self.kind {
            BackendKind::Server { url, .. } | BackendKind::Client { url, .. } => url,
            BackendKind::Setup => "",
        }
    }

    /// Client and setup mode: the discovery actor for browsing, started on the actix thread on
    /// first use. Refused with `--no-mdns` and in server mode.
    pub fn browser(&mut self) -> Result<Addr<DiscoveryActor>, String> {
        if !self.mdns {
            return Err("mDNS is turned off (--no-mdns)".into());
        }
        if matches!(self.kind, BackendKind::Server { .. }) {
            return Err("discovery is for client mode".into());
        }
        if let Some(addr) = &self.discovery {
            return Ok(addr.clone());
        }
        let actor = DiscoveryActor::new(MdnsConfig::default(), None).map_err(|e| e.to_string())?;
        let addr = DiscoveryActor::start_in_arbiter(self.system.arbiter(), move |_| actor);
        self.discovery = Some(addr.clone());
        Ok(addr)
    }

    /// Graceful stop: withdraw the mDNS advertisement and shut the mDNS daemon down, close
    /// realtime streams, stop the HTTP server, stop the actix System and join its thread.
    pub fn stop(&mut self) {
        if let Some(discovery) = self.discovery.take() {
            tauri::async_runtime::block_on(async move {
                // `Shutdown` unregisters (goodbye), then ends the daemon and the actor.
                let stopped = tokio::time::timeout(MDNS_STOP_WAIT, discovery.send(actors::discovery::Shutdown));
                if stopped.await.is_err() {
                    tracing::warn!("mDNS shutdown timed out");
                }
            });
        }
        if let BackendKind::Server { live, quit, .. } = &self.kind {
            quit.store(true, std::sync::atomic::Ordering::SeqCst);
            if let Some(live) = lock_live(live).clone() {
                tauri::async_runtime::block_on(async move {
                    if let Some(discovery) = live.discovery {
                        if tokio::time::timeout(MDNS_STOP_WAIT, discovery.send(actors::discovery::Shutdown))
                            .await
                            .is_err()
                        {
                            tracing::warn!("mDNS shutdown timed out");
                        }
                    }
                    let _ = live.realtime.send(actors::realtime::CloseAll).await;
                    live.server.stop(true).await;
                });
            }
        }
        self.system.stop();
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}
