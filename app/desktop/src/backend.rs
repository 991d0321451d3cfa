//! The actix side of the desktop shell. Actix actors need an actix System (they panic on Tauri's
//! plain tokio runtime), so a dedicated OS thread owns one: in server mode it starts the actor
//! system and the HTTP server exactly like `relay serve` (`actors::start` then
//! `web::build_server`, signals disabled so actix never handles SIGINT/SIGTERM in the GUI
//! process); in client mode it hosts the client-side `AuthCoordinator`. The thread sends the
//! addresses back over a std channel; `Backend::stop` shuts everything down on app exit.

use std::net::{IpAddr, SocketAddr};
use std::path::Path;
use std::sync::mpsc;
use std::thread::JoinHandle;

use actix::{Actor, Addr};
use actors::auth_coordinator::{AuthCoordinator, RetryPolicy};
use actors::health::HealthActor;
use infra::datadir::{DataDir, RuntimeInfo};

type BoxError = Box<dyn std::error::Error + Send + Sync>;

/// Settings for the in-process server.
#[derive(Debug, Clone)]
pub struct ServerSettings {
    pub bind: IpAddr,
    pub port: u16,
    pub workers: usize,
    pub ui_dir: Option<std::path::PathBuf>,
}

/// What the actix thread hands back.
pub struct Backend {
    pub kind: BackendKind,
    system: actix::System,
    thread: Option<JoinHandle<()>>,
}

pub enum BackendKind {
    Server {
        /// Origin the window and LAN clients use (`http://127.0.0.1:<port>` for a loopback bind).
        url: String,
        passphrase: String,
        health: Addr<HealthActor>,
        realtime: Addr<actors::realtime::RealtimeActor>,
        server: actix_web::dev::ServerHandle,
    },
    Client {
        url: String,
        coordinator: Addr<AuthCoordinator>,
    },
}

fn shown_origin(bind: IpAddr, addr: SocketAddr) -> String {
    let host = if bind.is_unspecified() { IpAddr::from([127, 0, 0, 1]) } else { bind };
    match host {
        IpAddr::V6(v6) => format!("http://[{v6}]:{}", addr.port()),
        IpAddr::V4(v4) => format!("http://{v4}:{}", addr.port()),
    }
}

/// Starts Relay's actors and HTTP server on a dedicated actix thread.
pub fn start_server(data_dir: &Path, settings: ServerSettings) -> Result<Backend, BoxError> {
    let data_dir = DataDir::open(data_dir)?;
    let (passphrase, created) = data_dir.load_or_create_passphrase(None)?;
    if created {
        tracing::info!("created the connection passphrase; reveal it from the app or `relay connection-info`");
    }
    let token_key = data_dir.load_or_create_token_key()?;
    let config = actors::RelayConfig {
        db_path: data_dir.db_path(),
        passphrase: passphrase.clone(),
        token_key,
        token_ttl_secs: 86_400,
        auth_limits: Default::default(),
        presence: Default::default(),
        privileged_limits: Default::default(),
        web_sessions: Default::default(),
        reader_threads: 2,
        clock: infra::clock::system(),
    };
    let web_config = web::WebConfig {
        bind: settings.bind.to_string(),
        port: settings.port,
        ui_dir: settings.ui_dir.clone(),
        workers: settings.workers.max(1),
    };
    if domain::discovery::should_advertise(settings.bind) {
        // mDNS advertising is not wired into the desktop shell yet; say what would be advertised.
        let host = std::env::var("HOSTNAME").unwrap_or_default();
        tracing::info!(
            service = domain::discovery::SERVICE_TYPE,
            instance = %domain::discovery::instance_name(&host),
            "LAN access is on; mDNS advertising is not implemented in the desktop shell"
        );
    }
    let (tx, rx) = mpsc::channel();
    let bind = settings.bind;
    let thread = std::thread::Builder::new().name("actix-system".into()).spawn(move || {
        let system = actix::System::new();
        let sys = actix::System::current();
        let result: Result<(), String> = system.block_on(async move {
            let started = (|| {
                let handles = actors::start(config).map_err(|e| e.to_string())?;
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
                    let kind = BackendKind::Server {
                        url: shown_origin(bind, addr),
                        passphrase,
                        health: handles.health.clone(),
                        realtime: handles.realtime.clone(),
                        server: server.handle(),
                    };
                    let _ = tx.send(Ok((kind, sys)));
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
    let (kind, system) = rx.recv().map_err(|_| "the actix thread exited before starting")??;
    Ok(Backend { kind, system, thread: Some(thread) })
}

/// Client mode: hosts the shared sign-in coordinator on its own actix thread.
pub fn start_client(url: String) -> Result<Backend, BoxError> {
    let (tx, rx) = mpsc::channel();
    let thread = std::thread::Builder::new().name("actix-client".into()).spawn(move || {
        let system = actix::System::new();
        system.block_on(async move {
            let coordinator = AuthCoordinator::new(infra::clock::system(), RetryPolicy::default()).start();
            let _ = tx.send((coordinator, actix::System::current()));
        });
        system.run().ok();
    })?;
    let (coordinator, system) = rx.recv().map_err(|_| "the actix thread exited before starting")?;
    Ok(Backend { kind: BackendKind::Client { url, coordinator }, system, thread: Some(thread) })
}

impl Backend {
    pub fn url(&self) -> &str {
        match &self.kind {
            BackendKind::Server { url, .. } | BackendKind::Client { url, .. } => url,
        }
    }

    /// Graceful stop: close realtime streams, stop the HTTP server, stop the actix System and
    /// join its thread.
    pub fn stop(&mut self) {
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
