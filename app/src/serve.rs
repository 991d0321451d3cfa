//! Server mode wiring: the open-file limit raised to the hard limit, the data directory's lock
//! and secrets, the listeners (bound once), and generations of the actor system with the HTTP
//! servers, each on its own actix System: a generation ends on SIGINT/SIGTERM (graceful
//! shutdown) or when the backup actor hands over a staged restore, which is installed between
//! two generations (gateway and data API stopped and drained, every actor and store connection
//! gone) before the next one starts and reports the outcome. Runtime info for `connection-info`.

use std::net::IpAddr;

use infra::datadir::{DataDir, RuntimeInfo};
use infra::headless_secrets::ServerSecrets;
use infra::systemd_credentials::Credentials;

use crate::cli::{ConnectionInfoArgs, ServeArgs};

/// Prints an operator-facing line; a closed stdout (e.g. piped into `head`) must not crash
/// the server, so write errors are ignored.
macro_rules! announce {
    ($($arg:tt)*) => {{
        use std::io::Write;
        let _ = writeln!(std::io::stdout(), $($arg)*);
    }};
}

type BoxError = Box<dyn std::error::Error>;

fn default_ui_dir() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../ui/dist")
}

pub fn run(args: ServeArgs) -> Result<(), BoxError> {
    // Before any listener or store connection: one descriptor per client and connection.
    infra::process_limits::raise_open_files_limit_logged();
    let bind: IpAddr = args.bind.parse().map_err(|_| format!("--bind must be an IP address, got {:?}", args.bind))?;
    let data_dir = DataDir::open(&args.data_dir)?;
    // Held for the whole process, across the restarts a restore makes.
    let _lock = infra::dir_lock::lock(data_dir.root())?;
    infra::startup::mark("data directory locked");
    let secrets = open_secrets(&data_dir)?;
    infra::startup::mark("secrets");
    // Bound once: a restart for a restore serves on the same ports.
    let listeners = Listeners {
        data_api: web::bind_listener(&bind.to_string(), args.port)?,
        gateway: gateway_listener(&args, bind)?,
    };
    let mut last_restore = None;
    loop {
        match run_generation(&args, bind, &data_dir, &secrets, &listeners, last_restore.take())? {
            GenerationEnd::Shutdown => break,
            GenerationEnd::Restore(staged) => {
                announce!(
                    "Restoring {}: the server stopped and restarts on the restored data.",
                    staged.report.restored.name.as_str()
                );
                infra::control_socket::remove(data_dir.root());
                let finished =
                    actors::backup::restore::finish_staged(&data_dir, *staged, infra::clock::system().now_ms())?;
                tracing::info!(result = ?finished.result, "restore installed; restarting the server");
                last_restore = Some(finished);
            }
        }
    }
    infra::control_socket::remove(data_dir.root());
    Ok(())
}

/// The connection passphrase and the Dynatrace token's vault, each from the service's systemd
/// credential, else the OS secret store, else an owner-only file (`infra::headless_secrets`);
/// one line says where, a warning when a plaintext file is used.
fn open_secrets(data_dir: &DataDir) -> Result<ServerSecrets, BoxError> {
    let credentials = Credentials::from_env()?;
    let bootstrap = DataDir::bootstrap_passphrase();
    let secrets = ServerSecrets::open(
        data_dir,
        credentials.as_ref(),
        infra::secret_store::os_store_available,
        bootstrap.as_deref(),
    )?;
    if secrets.keeps_plaintext() {
        tracing::warn!(target: "relay::keystore", "{}", secrets.placement());
    } else {
        tracing::info!(target: "relay::keystore", "{}", secrets.placement());
    }
    if secrets.passphrase_created {
        tracing::info!("created the connection passphrase; see `relay connection-info`");
    }
    Ok(secrets)
}

/// The listening sockets, bound once per process.
struct Listeners {
    data_api: std::net::TcpListener,
    gateway: Option<std::net::TcpListener>,
}

/// Why a server generation ended.
enum GenerationEnd {
    /// SIGINT/SIGTERM (or the server stopped on its own).
    Shutdown,
    /// A restore was staged: install it, then start again.
    Restore(Box<actors::backup::restore::StagedRestore>),
}

/// One run of the actor system and the HTTP servers on its own actix System, until a signal or
/// a staged restore. Every actor (and with them every store connection) is gone when it returns.
fn run_generation(
    args: &ServeArgs,
    bind: IpAddr,
    data_dir: &DataDir,
    secrets: &ServerSecrets,
    listeners: &Listeners,
    last_restore: Option<domain::backup::status::FinishedRestore>,
) -> Result<GenerationEnd, BoxError> {
    let web_config = web::WebConfig {
        bind: bind.to_string(),
        port: args.port,
        ui_dir: Some(args.ui_dir.clone().unwrap_or_else(default_ui_dir)),
        workers: args.workers,
        relay_web: listeners.gateway.as_ref().and_then(|l| l.local_addr().ok()).map(|a| web::RelayWebAccess {
            port: a.port(),
            host: format!("{}.local", gateway_hostname().to_ascii_lowercase()),
        }),
    };
    let (restart_tx, mut restart_rx) = tokio::sync::mpsc::unbounded_channel();
    let system = actix::System::new();
    let end = system.block_on(async move {
        let (token_ttl_secs, readers) = (args.token_ttl_secs, args.readers);
        let realtime_auth_deadline_ms = i64::from(args.realtime_auth_deadline_secs) * 1000;
        let (realtime_max_clients, realtime_max_per_source) =
            (args.realtime_max_clients as usize, args.realtime_max_per_source as usize);
        let token_vault = secrets.token_vault.clone();
        let handles = actors::start_from_data_dir(data_dir, secrets.passphrase.clone(), |config| {
            config.token_ttl_secs = token_ttl_secs;
            config.reader_threads = readers;
            config.realtime.auth_deadline_ms = realtime_auth_deadline_ms;
            config.realtime.max_clients = realtime_max_clients;
            config.realtime.max_per_source = realtime_max_per_source;
            if let Some(backup) = config.backup.as_mut() {
                backup.restart = Some(restart_tx);
                backup.last_restore = last_restore;
            }
            if let Some(dynatrace) = config.dynatrace.as_mut() {
                dynatrace.vault = token_vault;
            }
        })?;
        infra::startup::mark("subsystems started");
        let stopping = handles.clone();
        let gateway = match &listeners.gateway {
            Some(listener) => {
                Some(start_gateway(listener.try_clone()?, &handles, web_config.ui_dir.clone(), args.workers)?)
            }
            None => None,
        };
        let (server, addrs) = web::build_server_on(handles, listeners.data_api.try_clone()?, web_config)?;
        let stop_signal = ShutdownSignal::install()?;
        let port = addrs.first().map(|a| a.port()).unwrap_or(args.port);
        data_dir.write_runtime_info(&RuntimeInfo { bind: bind.to_string(), port, pid: std::process::id() })?;
        let shown = if bind.is_unspecified() { "127.0.0.1".to_string() } else { bind.to_string() };
        let host = if shown.contains(':') { format!("[{shown}]") } else { shown };
        announce!("Relay listening on http://{host}:{port}");
        infra::startup::mark("listening");
        // The start's run-once code pages go once the start is over (`infra::startup`).
        actix::spawn(async {
            tokio::time::sleep(infra::startup::START_SETTLE).await;
            infra::startup::release_start_up_code();
        });
        if bind.is_unspecified() {
            announce!("Direct LAN access is on (bound to {bind}); use --bind 127.0.0.1 for this machine only.");
        }
        tracing::info!(bind = %bind, port, "relay server started");
        let handle = server.handle();
        let gateway_handle = gateway.as_ref().map(|g| g.handle());
        if let Some(gateway) = gateway {
            actix::spawn(gateway);
        }
        // The server's stop commands are handled while its future is polled: it runs as a task.
        let mut server = actix::spawn(server);
        let asked = tokio::select! {
            served = &mut server => {
                served??;
                None
            }
            _ = stop_signal.recv() => Some(GenerationEnd::Shutdown),
            Some(staged) = restart_rx.recv() => Some(GenerationEnd::Restore(Box::new(staged))),
        };
        if asked.is_some() {
            tracing::info!(restore = matches!(asked, Some(GenerationEnd::Restore(_))), "stopping the server");
            // Realtime and control first, then Relay Web and the data API drain their
            // in-flight requests; the actors (and the store's connections) stop with the System.
            stopping.prepare_stop().await;
            if let Some(g) = gateway_handle {
                g.stop(true).await;
            }
            handle.stop(true).await;
            server.await??;
        }
        let end = asked.unwrap_or(GenerationEnd::Shutdown);
        Ok::<GenerationEnd, BoxError>(end)
    });
    // Stopping the System stops every arbiter, and with them the actors and their store
    // connections; `run` returns once the stop is processed (the restore waits for the files).
    actix::System::current().stop();
    system.run()?;
    end
}

/// Relay Web's listener when asked for and direct LAN access is on; otherwise explains why not.
fn gateway_listener(args: &ServeArgs, bind: IpAddr) -> Result<Option<std::net::TcpListener>, BoxError> {
    if !args.web {
        return Ok(None);
    }
    if !bind.is_unspecified() {
        announce!("Relay Web not started: it needs direct LAN access (--bind 0.0.0.0).");
        tracing::warn!("relay web requested without direct LAN access; not started");
        return Ok(None);
    }
    Ok(Some(std::net::TcpListener::bind((bind, args.web_port))?))
}

/// This machine's host name, the one Relay Web's Host allowlist is built from.
fn gateway_hostname() -> String {
    hostname::get().ok().and_then(|h| h.into_string().ok()).unwrap_or_default()
}

/// Starts Relay Web on its listener.
fn start_gateway(
    listener: std::net::TcpListener,
    handles: &actors::Handles,
    ui_dir: Option<std::path::PathBuf>,
    workers: usize,
) -> Result<actix_web::dev::Server, BoxError> {
    let interfaces: Vec<IpAddr> =
        if_addrs::get_if_addrs().map(|v| v.into_iter().map(|i| i.ip()).collect()).unwrap_or_default();
    let hostname = gateway_hostname();
    let config = web::gateway::GatewayConfig { hostname, interface_addresses: interfaces, ui_dir, workers };
    let (server, addr) = web::gateway::build_gateway(handles.clone(), listener, config)?;
    announce!("Relay Web listening on http://127.0.0.1:{}", addr.port());
    announce!("Relay Web uses cleartext HTTP: keep it on the managed LAN/VPN and never port-forward or publish it.");
    tracing::info!(port = addr.port(), "relay web gateway started");
    Ok(server)
}

/// SIGINT/SIGTERM handlers, registered before the server announces itself so an early signal
/// still shuts down gracefully.
struct ShutdownSignal {
    #[cfg(unix)]
    interrupt: tokio::signal::unix::Signal,
    #[cfg(unix)]
    terminate: tokio::signal::unix::Signal,
}

impl ShutdownSignal {
    fn install() -> std::io::Result<ShutdownSignal> {
        #[cfg(unix)]
        {
            use tokio::signal::unix::{signal, SignalKind};
            Ok(ShutdownSignal {
                interrupt: signal(SignalKind::interrupt())?,
                terminate: signal(SignalKind::terminate())?,
            })
        }
        #[cfg(not(unix))]
        Ok(ShutdownSignal {})
    }

    async fn recv(mut self) {
        #[cfg(unix)]
        tokio::select! {
            _ = self.interrupt.recv() => {}
            _ = self.terminate.recv() => {}
        }
        #[cfg(not(unix))]
        let _ = tokio::signal::ctrl_c().await;
    }
}

pub fn connection_info(args: ConnectionInfoArgs) -> Result<(), BoxError> {
    if !args.data_dir.is_dir() {
        return Err(format!("no data directory at {}", args.data_dir.display()).into());
    }
    let data_dir = DataDir::open(&args.data_dir)?;
    let credentials = Credentials::from_env()?;
    let found = infra::headless_secrets::find_passphrase(
        &data_dir,
        credentials.as_ref(),
        infra::secret_store::os_store_available,
    )?;
    match data_dir.read_runtime_info() {
        Some(info) => {
            let host = if info.bind == "0.0.0.0" || info.bind == "::" { hostname_or_loopback() } else { info.bind };
            announce!("Server URL: http://{host}:{}", info.port);
        }
        None => announce!("Server URL: unknown (the server has not been started yet)"),
    }
    match found {
        Some((passphrase, _)) => {
            announce!("Passphrase: {passphrase}");
            announce!("Treat the passphrase as sensitive: it grants access to all Relay data.");
        }
        None => announce!(
            "Passphrase: not found here (a server with the systemd credential {} keeps it there only)",
            infra::systemd_credentials::PASSPHRASE_CREDENTIAL
        ),
    }
    Ok(())
}

fn hostname_or_loopback() -> String {
    hostname::get()
        .ok()
        .and_then(|h| h.into_string().ok())
        .filter(|h| !h.is_empty())
        .unwrap_or_else(|| "127.0.0.1".into())
}
