//! The actix side of the desktop shell. Actix actors need an actix System (they panic on Tauri's
//! plain tokio runtime), so a dedicated OS thread owns one: in server mode it starts the actor
//! system and the HTTP server exactly like `relay serve` (`actors::start_from_data_dir` then
//! `web::build_server`, signals disabled so actix never handles SIGINT/SIGTERM in the GUI
//! process); in client mode it hosts the client-side `AuthCoordinator`. The same thread hosts
//! the mDNS `DiscoveryActor` when it is needed: in server mode with a LAN bind it advertises the
//! bound port (unless `--no-mdns`), in client mode it is started on the first browse. The thread
//! sends the addresses back over a std channel; `Backend::stop` withdraws the advertisement and
//! shuts the mDNS daemon down, then shuts everything else down on app exit.

use std::net::{IpAddr, SocketAddr};
use std::sync::mpsc;
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

pub enum BackendKind {
    Server {
        /// Origin the window and LAN clients use (`http://127.0.0.1:<port>` for a loopback bind).
        url: String,
        passphrase: String,
        health: Addr<HealthActor>,
        realtime: Addr<actors::realtime::RealtimeActor>,
        /// Backups of the data directory (Settings → Data administration).
        backup: Option<Addr<actors::backup::BackupActor>>,
        server: actix_web::dev::ServerHandle,
    },
    Client {
        url: String,
        coordinator: Addr<AuthCoordinator>,
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
    let data_dir = data_dir.clone();
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
    };
    let advertise = domain::discovery::should_advertise(settings.bind) && settings.mdns;
    if domain::discovery::should_advertise(settings.bind) && !settings.mdns {
        tracing::info!("LAN access is on; mDNS advertising is off (--no-mdns)");
    }
    let (tx, rx) = mpsc::channel();
    let bind = settings.bind;
    let thread = std::thread::Builder::new().name(domain::stability::SERVER_THREAD.into()).spawn(move || {
        let system = actix::System::new();
        let sys = actix::System::current();
        let result: Result<(), String> = system.block_on(async move {
            let started = (|| {
                let handles =
                    actors::start_from_data_dir(&data_dir, passphrase.clone(), |_| {}).map_err(|e| e.to_string())?;
                let (server, addrs) = web::build_server(handles.clone(), web_config).map_err(|e| e.to_string())?;
                let addr = *addrs.first().ok_or("the server bound no address")?;
                Ok::<_, String>((handles, server, addr))
            })();
            match started {
                Ok((handles, server, addr)) => {
                    let info = RuntimeInfo { bind: bind.to_string(), port: addr.port(), pid: std::process::id() };
                    if let Err(e) = data_dir.write_runtime_info(&info) {
                        tracing::warn!(error = %e, "could not write runtime info");
                    }
                    let discovery = advertise.then(|| start_advertising(&handles.health, addr.port())).flatten();
                    let kind = BackendKind::Server {
                        url: shown_origin(bind, addr),
                        passphrase,
                        health: handles.health.clone(),
                        realtime: handles.realtime.clone(),
                        backup: handles.backup.clone(),
                        server: server.handle(),
                    };
                    let _ = tx.send(Ok((kind, discovery, sys)));
                    #[cfg(debug_assertions)]
                    inject_fatal_for_tests();
                    server.await.map_err(|e| e.to_string())
                }
                Err(e) => {
                    let _ = tx.send(Err(e.clone()));
                    Err(e)
                }
            }
        });
        if let Err(e) = result {
            tracing::error!(error = %domain::redact::redact_text(&e), "relay server stopped with an error");
        }
    })?;
    let (kind, discovery, system) = rx.recv().map_err(|_| "the actix thread exited before starting")??;
    Ok(Backend { kind, system, thread: Some(thread), mdns: settings.mdns, discovery })
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

/// Client mode (`Some(url)`): hosts the shared sign-in coordinator on its own actix thread.
/// Setup mode (`None`): the same thread, for the discovery actor the setup screen may ask for.
pub fn start_client(url: Option<String>, mdns: bool) -> Result<Backend, BoxError> {
    let (tx, rx) = mpsc::channel();
    let thread = std::thread::Builder::new().name("actix-client".into()).spawn(move || {
        let system = actix::System::new();
        system.block_on(async move {
            let kind = match url {
                Some(url) => BackendKind::Client {
                    url,
                    coordinator: actors::start_client(infra::clock::system()).auth_coordinator,
                },
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
        if let BackendKind::Server { realtime, server, .. } = &self.kind {
            let (realtime, server) = (realtime.clone(), server.clone());
            tauri::async_runtime::block_on(async move {
                let _ = realtime.send(actors::realtime::CloseAll).await;
                server.stop(true).await;
            });
        }
        self.system.stop();
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}
