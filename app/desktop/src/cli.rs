//! Command line of the desktop shell: a data directory and one of server mode (the actor system
//! and HTTP server run in this process) or client mode (a remote Relay server).

use std::path::PathBuf;

use clap::Parser;

#[derive(Debug, Parser)]
#[command(name = "relay-desktop", version, about = "Relay desktop shell")]
#[command(group(clap::ArgGroup::new("mode").args(["server_mode", "client"]).multiple(false)))]
pub struct Cli {
    /// Data directory (created owner-only if missing).
    #[arg(long, env = "RELAY_DATA_DIR")]
    pub data_dir: PathBuf,
    /// Run the Relay server inside this process (the default when no mode is given).
    #[arg(long)]
    pub server_mode: bool,
    /// Connect to a remote Relay server at this origin (HTTPS; plain HTTP only for LAN hosts).
    #[arg(long, value_name = "URL")]
    pub client: Option<String>,
    /// Allow plain HTTP to a non-LAN server in client mode (not recommended).
    #[arg(long, requires = "client")]
    pub allow_insecure_http: bool,
    /// Server mode: address to bind. 127.0.0.1 keeps the server on this machine.
    #[arg(long, default_value = "127.0.0.1")]
    pub bind: String,
    /// Server mode: TCP port (0 picks a free port).
    #[arg(long, default_value_t = 8090)]
    pub port: u16,
    /// Server mode: HTTP worker threads.
    #[arg(long, default_value_t = 2)]
    pub workers: usize,
    /// Packaged builds relaunch once after a fatal failure; this asks Quit / Continue instead.
    #[arg(long, env = "RELAY_DESKTOP_NO_FATAL_RELAUNCH")]
    pub no_fatal_relaunch: bool,
    /// Log level (error, warn, info, debug, trace).
    #[arg(long, default_value = "info")]
    pub log_level: String,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Mode {
    Server,
    /// The validated server origin.
    Client(String),
}

impl Cli {
    /// The run mode; client URLs are checked with the shared server-URL policy.
    pub fn mode(&self) -> Result<Mode, String> {
        match &self.client {
            Some(raw) => domain::server_url::check_server_url(raw, self.allow_insecure_http)
                .map(Mode::Client)
                .map_err(|e| format!("--client: {e}")),
            None => Ok(Mode::Server),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(args: &[&str]) -> Result<Cli, clap::Error> {
        Cli::try_parse_from(std::iter::once("relay-desktop").chain(args.iter().copied()))
    }

    #[test]
    fn server_mode_is_the_default() {
        let cli = parse(&["--data-dir", "d"]).unwrap();
        assert_eq!(cli.mode(), Ok(Mode::Server));
        let cli = parse(&["--data-dir", "d", "--server-mode"]).unwrap();
        assert_eq!(cli.mode(), Ok(Mode::Server));
    }

    #[test]
    fn client_urls_go_through_the_server_url_policy() {
        let cli = parse(&["--data-dir", "d", "--client", "https://relay.example.com/"]).unwrap();
        assert_eq!(cli.mode(), Ok(Mode::Client("https://relay.example.com".into())));
        let cli = parse(&["--data-dir", "d", "--client", "http://192.168.1.5:8090"]).unwrap();
        assert_eq!(cli.mode(), Ok(Mode::Client("http://192.168.1.5:8090".into())));
        let cli = parse(&["--data-dir", "d", "--client", "http://relay.example.com"]).unwrap();
        assert!(cli.mode().is_err(), "public HTTP needs the explicit opt-in");
        let cli = parse(&["--data-dir", "d", "--client", "http://relay.example.com", "--allow-insecure-http"]).unwrap();
        assert_eq!(cli.mode(), Ok(Mode::Client("http://relay.example.com".into())));
        let cli = parse(&["--data-dir", "d", "--client", "https://relay.example.com/path"]).unwrap();
        assert!(cli.mode().is_err());
    }

    #[test]
    fn modes_are_exclusive_and_insecure_needs_client() {
        assert!(parse(&["--data-dir", "d", "--server-mode", "--client", "https://a.example"]).is_err());
        assert!(parse(&["--data-dir", "d", "--allow-insecure-http"]).is_err());
        assert!(parse(&["--server-mode"]).is_err(), "--data-dir is required");
    }
}
