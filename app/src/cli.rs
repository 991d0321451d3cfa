//! Command-line interface of the `relay` binary (clap derive). Every option is documented in
//! `relay --help` and `relay <command> --help`.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

/// `relay --version`: the version and which variant this is. A `packaged` (release-channel) build
/// never keeps device keys in plaintext; `scripts/release.sh` refuses to sign a binary whose
/// version line does not say "(packaged build)".
#[cfg(feature = "packaged")]
pub const VERSION_LINE: &str = concat!(env!("CARGO_PKG_VERSION"), " (packaged build)");
#[cfg(not(feature = "packaged"))]
pub const VERSION_LINE: &str = concat!(env!("CARGO_PKG_VERSION"), " (development build)");

/// Relay: the NOC command center. One Relay PC runs `relay serve`; desktops, paired laptops and
/// LAN browsers connect to it.
#[derive(Debug, Parser)]
#[command(name = "relay", version = VERSION_LINE, about, long_about = None)]
pub struct Cli {
    /// Log level filter (error, warn, info, debug, trace). `RELAY_LOG` overrides it.
    #[arg(long, global = true, default_value = "info")]
    pub log_level: String,
    #[command(subcommand)]
    pub command: Command,
}

impl Cli {
    pub fn log_level(&self) -> &str {
        &self.log_level
    }
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run server mode: embedded SQLite store, record API, realtime and the web UI.
    ///
    /// The connection passphrase comes from the systemd credential relay-passphrase when
    /// $CREDENTIALS_DIRECTORY holds it (read in place, never copied). Otherwise it is created on
    /// first start (random, or RELAY_BOOTSTRAP_PASSPHRASE when set) and kept in the OS secret
    /// store, or without one owner-only under DATA_DIR/secrets, outside the database. The
    /// Dynatrace token follows the same order (credential relay-dynatrace-token); one start-up
    /// line says where each is kept.
    Serve(ServeArgs),
    /// Print the server URL and the connection passphrase for the local operator.
    ///
    /// Sensitive: the passphrase lets any client on the network read and change Relay data.
    ConnectionInfo(ConnectionInfoArgs),
    /// Server-local administration of protected accounts (run on the Relay server PC).
    Admin(AdminArgs),
    /// Client side of device pairing and signed privileged commands (paired laptops).
    Device(DeviceArgs),
    /// Server-local backups: create, verify, list, health (run on the Relay server PC).
    Backup(BackupArgs),
    /// Server-local logos: set-logo, remove-logo (run on the Relay server PC).
    Branding(BrandingArgs),
    /// Server-local Dispatcher Radar session: sign-in, sign-out (run on the Relay server PC).
    Radar(RadarArgs),
    /// Server-local Dynatrace settings and sync: status, configure, set-token, remove-token,
    /// test, sync (run on the Relay server PC while it serves).
    Dynatrace(DynatraceArgs),
    /// Server-local Wiki library: categories, document title/type/trash/restore/delete, upload
    /// batches (run on the Relay server PC while it serves).
    Wiki(WikiArgs),
}

#[derive(Debug, Args)]
pub struct WikiArgs {
    /// Data directory of the server.
    #[arg(long, env = "RELAY_DATA_DIR")]
    pub data_dir: PathBuf,
    #[command(subcommand)]
    pub command: crate::wiki::WikiCommand,
}

#[derive(Debug, Args)]
pub struct DynatraceArgs {
    /// Data directory of the server.
    #[arg(long, env = "RELAY_DATA_DIR")]
    pub data_dir: PathBuf,
    #[command(subcommand)]
    pub command: crate::dynatrace::DynatraceCommand,
}

#[derive(Debug, Args)]
pub struct RadarArgs {
    /// Data directory of the server.
    #[arg(long, env = "RELAY_DATA_DIR")]
    pub data_dir: PathBuf,
    #[command(subcommand)]
    pub command: crate::radar::RadarCommand,
}

#[derive(Debug, Args)]
pub struct BrandingArgs {
    /// Data directory of the server.
    #[arg(long, env = "RELAY_DATA_DIR")]
    pub data_dir: PathBuf,
    #[command(subcommand)]
    pub command: crate::branding::BrandingCommand,
}

#[derive(Debug, Args)]
pub struct BackupArgs {
    /// Data directory of the server.
    #[arg(long, env = "RELAY_DATA_DIR")]
    pub data_dir: PathBuf,
    #[command(subcommand)]
    pub command: crate::backup::BackupCommand,
}

#[derive(Debug, Args)]
pub struct AdminArgs {
    /// Data directory of the server.
    #[arg(long, env = "RELAY_DATA_DIR")]
    pub data_dir: PathBuf,
    #[command(subcommand)]
    pub command: crate::admin::AdminCommand,
}

#[derive(Debug, Args)]
pub struct DeviceArgs {
    /// Where this device's signing key is kept (owner-only file).
    #[arg(long, env = "RELAY_DEVICE_KEY_FILE", default_value_os_t = crate::device::default_key_file())]
    pub key_file: PathBuf,
    #[command(subcommand)]
    pub command: crate::device::DeviceCommand,
}

#[derive(Debug, Args)]
pub struct ServeArgs {
    /// Data directory (created owner-only if missing): database, secrets, runtime info.
    #[arg(long, env = "RELAY_DATA_DIR")]
    pub data_dir: PathBuf,
    /// TCP port to listen on (0 picks a free port; the chosen one is printed).
    #[arg(long, env = "RELAY_PORT", default_value_t = 8090)]
    pub port: u16,
    /// Address to bind. The default 0.0.0.0 allows direct LAN access; use 127.0.0.1 to accept
    /// connections from this machine only.
    #[arg(long, env = "RELAY_BIND", default_value = "0.0.0.0")]
    pub bind: String,
    /// Folder with the built web UI (ui/dist). Defaults to the ui/dist of this source tree.
    #[arg(long, env = "RELAY_UI_DIR")]
    pub ui_dir: Option<PathBuf>,
    /// Lifetime of app-user auth tokens, in seconds (60 s to 30 days).
    #[arg(long, default_value_t = 86_400, value_parser = clap::value_parser!(i64).range(60..=2_592_000))]
    pub token_ttl_secs: i64,
    /// HTTP worker threads.
    #[arg(long, default_value_t = 2)]
    pub workers: usize,
    /// Enable Relay Web, the gateway for LAN browsers (desktop Chrome, Edge, Safari on a managed
    /// LAN/VPN). It binds only together with direct LAN access (`--bind 0.0.0.0`). Cleartext
    /// HTTP: never port-forward or publish it (see docs/relay-web.md). `RELAY_WEB=true` (the
    /// packaged service's /etc/relay/relay.env) does the same.
    #[arg(long, env = "RELAY_WEB", value_parser = clap::builder::BoolishValueParser::new())]
    pub web: bool,
    /// Port of the Relay Web gateway (0 picks a free port).
    #[arg(long, env = "RELAY_WEB_PORT", default_value_t = 8091)]
    pub web_port: u16,
    /// Store reader threads (there is always exactly one writer).
    #[arg(long, default_value_t = 2)]
    pub readers: usize,
    /// Seconds a realtime stream (`GET /api/realtime`) may stay open without an authenticated
    /// subscription request before it is closed (1 s to 5 min).
    #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u16).range(1..=300))]
    pub realtime_auth_deadline_secs: u16,
    /// Most simultaneous realtime streams. When full, the oldest stream that never
    /// authenticated is closed to make room; authenticated streams are never closed for that.
    #[arg(long, default_value_t = 2048, value_parser = clap::value_parser!(u32).range(1..=65_536))]
    pub realtime_max_clients: u32,
    /// Most simultaneous realtime streams from one address (the TCP peer); more get 429.
    #[arg(long, default_value_t = 32, value_parser = clap::value_parser!(u32).range(1..=65_536))]
    pub realtime_max_per_source: u32,
}

#[derive(Debug, Args)]
pub struct ConnectionInfoArgs {
    /// Data directory of the server.
    #[arg(long, env = "RELAY_DATA_DIR")]
    pub data_dir: PathBuf,
}
