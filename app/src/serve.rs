//! Server mode wiring: data directory and secrets, the actor system and the HTTP server on one
//! actix System, runtime info for `connection-info`, and graceful shutdown on SIGINT/SIGTERM.

use std::net::IpAddr;

use infra::datadir::{DataDir, RuntimeInfo};

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
    let bind: IpAddr = args.bind.parse().map_err(|_| format!("--bind must be an IP address, got {:?}", args.bind))?;
    let data_dir = DataDir::open(&args.data_dir)?;
    let bootstrap = DataDir::bootstrap_passphrase();
    let (passphrase, created) = data_dir.load_or_create_passphrase(bootstrap.as_deref())?;
    if created {
        tracing::info!("created the connection passphrase; see `relay connection-info`");
    }
    let web_config = web::WebConfig {
        bind: bind.to_string(),
        port: args.port,
        ui_dir: Some(args.ui_dir.clone().unwrap_or_else(default_ui_dir)),
        workers: args.workers,
    };
    let system = actix::System::new();
    system.block_on(async move {
        let (token_ttl_secs, readers) = (args.token_ttl_secs, args.readers);
        let realtime_auth_deadline_ms = i64::from(args.realtime_auth_deadline_secs) * 1000;
        let (realtime_max_clients, realtime_max_per_source) =
            (args.realtime_max_clients as usize, args.realtime_max_per_source as usize);
        let handles = actors::start_from_data_dir(&data_dir, passphrase, |config| {
            config.token_ttl_secs = token_ttl_secs;
            config.reader_threads = readers;
            config.realtime.auth_deadline_ms = realtime_auth_deadline_ms;
            config.realtime.max_clients = realtime_max_clients;
            config.realtime.max_per_source = realtime_max_per_source;
        })?;
        let realtime = handles.realtime.clone();
        let gateway = start_gateway(&args, bind, &handles, web_config.ui_dir.clone())?;
        let (server, addrs) = web::build_server(handles, web_config)?;
        let stop_signal = ShutdownSignal::install()?;
        let port = addrs.first().map(|a| a.port()).unwrap_or(args.port);
        data_dir.write_runtime_info(&RuntimeInfo { bind: bind.to_string(), port, pid: std::process::id() })?;
        let shown = if bind.is_unspecified() { "127.0.0.1".to_string() } else { bind.to_string() };
        let host = if shown.contains(':') { format!("[{shown}]") } else { shown };
        announce!("Relay listening on http://{host}:{port}");
        if bind.is_unspecified() {
            announce!("Direct LAN access is on (bound to {bind}); use --bind 127.0.0.1 for this machine only.");
        }
        tracing::info!(bind = %bind, port, "relay server started");
        let handle = server.handle();
        let gateway_handle = gateway.as_ref().map(|g| g.handle());
        if let Some(gateway) = gateway {
            actix::spawn(gateway);
        }
        actix::spawn(async move {
            stop_signal.recv().await;
            tracing::info!("shutting down");
            let _ = realtime.send(actors::realtime::CloseAll).await;
            if let Some(g) = gateway_handle {
                g.stop(true).await;
            }
            handle.stop(true).await;
        });
        server.await?;
        infra::control_socket::remove(data_dir.root());
        Ok::<(), BoxError>(())
    })?;
    Ok(())
}

/// Starts Relay Web when asked for and direct LAN access is on; otherwise explains why not.
fn start_gateway(
    args: &ServeArgs,
    bind: IpAddr,
    handles: &actors::Handles,
    ui_dir: Option<std::path::PathBuf>,
) -> Result<Option<actix_web::dev::Server>, BoxError> {
    if !args.web {
        return Ok(None);
    }
    if !bind.is_unspecified() {
        announce!("Relay Web not started: it needs direct LAN access (--bind 0.0.0.0).");
        tracing::warn!("relay web requested without direct LAN access; not started");
        return Ok(None);
    }
    let listener = std::net::TcpListener::bind((bind, args.web_port))?;
    let interfaces: Vec<IpAddr> =
        if_addrs::get_if_addrs().map(|v| v.into_iter().map(|i| i.ip()).collect()).unwrap_or_default();
    let hostname = hostname::get().ok().and_then(|h| h.into_string().ok()).unwrap_or_default();
    let config =
        web::gateway::GatewayConfig { hostname, interface_addresses: interfaces, ui_dir, workers: args.workers };
    let (server, addr) = web::gateway::build_gateway(handles.clone(), listener, config)?;
    announce!("Relay Web listening on http://127.0.0.1:{}", addr.port());
    announce!("Relay Web uses cleartext HTTP: keep it on the managed LAN/VPN and never port-forward or publish it.");
    tracing::info!(port = addr.port(), "relay web gateway started");
    Ok(Some(server))
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
    let passphrase = data_dir.read_passphrase()?;
    match data_dir.read_runtime_info() {
        Some(info) => {
            let host = if info.bind == "0.0.0.0" || info.bind == "::" { hostname_or_loopback() } else { info.bind };
            announce!("Server URL: http://{host}:{}", info.port);
        }
        None => announce!("Server URL: unknown (the server has not been started yet)"),
    }
    announce!("Passphrase: {passphrase}");
    announce!("Treat the passphrase as sensitive: it grants access to all Relay data.");
    Ok(())
}

fn hostname_or_loopback() -> String {
    hostname::get()
        .ok()
        .and_then(|h| h.into_string().ok())
        .filter(|h| !h.is_empty())
        .unwrap_or_else(|| "127.0.0.1".into())
}
