//! Command line of the desktop shell: a data directory and, optionally, one of server mode (the
//! actor system and HTTP server run in this process; direct LAN access unless `--bind` says
//! otherwise) or client mode (a remote Relay server). Without a mode flag the saved setup
//! (`desktop.json`, chosen on the setup screen) applies, else the window shows the setup screen
//! (`domain::desktop_setup::resolve_launch`).

use std::net::IpAddr;
use std::path::PathBuf;

use clap::Parser;
use domain::desktop_setup::{resolve_launch, DesktopSetup, Launch};

/// `relay-desktop --version`: the version and which variant this is. A `packaged`
/// (release-channel) build never keeps remembered secrets in plaintext; `scripts/release.sh`
/// refuses to sign a binary whose version line does not say "(packaged build)".
#[cfg(feature = "packaged")]
pub const VERSION_LINE: &str = concat!(env!("CARGO_PKG_VERSION"), " (packaged build)");
#[cfg(not(feature = "packaged"))]
pub const VERSION_LINE: &str = concat!(env!("CARGO_PKG_VERSION"), " (development build)");

#[derive(Debug, Parser)]
#[command(name = "relay-desktop", version = VERSION_LINE, about = "Relay desktop shell")]
#[command(group(clap::ArgGroup::new("mode").args(["server_mode", "client"]).multiple(false)))]
pub struct Cli {
    /// Data directory (created owner-only if missing).
    #[arg(long, env = "RELAY_DATA_DIR")]
    pub data_dir: PathBuf,
    /// Run the Relay server inside this process (overrides the saved setup).
    #[arg(long)]
    pub server_mode: bool,
    /// Connect to a remote Relay server at this origin (HTTPS; plain HTTP only for LAN hosts;
    /// overrides the saved setup).
    #[arg(long, value_name = "URL")]
    pub client: Option<String>,
    /// Allow plain HTTP to a non-LAN server in client mode (not recommended).
    #[arg(long, requires = "client")]
    pub allow_insecure_http: bool,
    /// Server mode: address to bind. Default: 0.0.0.0 (direct LAN access), or what the setup
    /// screen saved; 127.0.0.1 keeps the server on this machine.
    #[arg(long)]
    pub bind: Option<IpAddr>,
    /// Server mode: TCP port (0 picks a free port).
    #[arg(long, default_value_t = 8090)]
    pub port: u16,
    /// Server mode: HTTP worker threads.
    #[arg(long, default_value_t = 2)]
    pub workers: usize,
    /// Packaged builds relaunch once after a fatal failure; this asks Quit / Continue instead.
    #[arg(long, env = "RELAY_DESKTOP_NO_FATAL_RELAUNCH", value_parser = clap::builder::BoolishValueParser::new())]
    pub no_fatal_relaunch: bool,
    /// Turn mDNS off: a LAN-bound server does not advertise `_relay._tcp`, and neither client
    /// mode nor the setup screen can browse for servers.
    #[arg(long, env = "RELAY_DESKTOP_NO_MDNS", value_parser = clap::builder::BoolishValueParser::new())]
    pub no_mdns: bool,
    /// Log level (error, warn, info, debug, trace).
    #[arg(long, default_value = "info")]
    pub log_level: String,
}

impl Cli {
    /// What this launch runs: the flags (client URLs through the shared server-URL policy), else
    /// the saved setup, else the setup screen.
    pub fn launch(&self, saved: Option<DesktopSetup>) -> Result<Launch, String> {
        let client = match &self.client {
            Some(raw) => Some(
                domain::server_url::check_server_url(raw, self.allow_insecure_http)
                    .map_err(|e| format!("--client: {e}"))?,
            ),
            None => None,
        };
        Ok(resolve_launch(self.server_mode, self.bind, client, saved))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(args: &[&str]) -> Result<Cli, clap::Error> {
        Cli::try_parse_from(std::iter::once("relay-desktop").chain(args.iter().copied()))
    }

    const LAN: IpAddr = IpAddr::V4(std::net::Ipv4Addr::UNSPECIFIED);
    const LOCAL: IpAddr = IpAddr::V4(std::net::Ipv4Addr::LOCALHOST);

    fn client(url: &str) -> Result<Launch, String> {
        Ok(Launch::Client { server_url: url.into() })
    }

    #[test]
    fn no_flags_and_nothing_saved_shows_the_setup_screen() {
        let cli = parse(&["--data-dir", "d"]).unwrap();
        assert_eq!(cli.launch(None), Ok(Launch::Setup));
        let saved = DesktopSetup::Server { lan_access: false };
        assert_eq!(cli.launch(Some(saved)), Ok(Launch::Server { bind: LOCAL }));
    }

    #[test]
    fn server_mode_has_direct_lan_access_unless_bind_says_otherwise() {
        let cli = parse(&["--data-dir", "d", "--server-mode"]).unwrap();
        assert_eq!(cli.launch(None), Ok(Launch::Server { bind: LAN }));
        let cli = parse(&["--data-dir", "d", "--server-mode", "--bind", "127.0.0.1"]).unwrap();
        assert_eq!(cli.launch(None), Ok(Launch::Server { bind: LOCAL }));
        assert!(parse(&["--data-dir", "d", "--bind", "localhost"]).is_err(), "an IP address only");
    }

    #[test]
    fn client_urls_go_through_the_server_url_policy() {
        let cli = parse(&["--data-dir", "d", "--client", "https://relay.example.com/"]).unwrap();
        assert_eq!(cli.launch(None), client("https://relay.example.com"));
        let cli = parse(&["--data-dir", "d", "--client", "http://192.168.1.5:8090"]).unwrap();
        let saved = DesktopSetup::Server { lan_access: true };
        assert_eq!(cli.launch(Some(saved)), client("http://192.168.1.5:8090"), "the flag wins over the saved setup");
        let cli = parse(&["--data-dir", "d", "--client", "http://relay.example.com"]).unwrap();
        assert!(cli.launch(None).is_err(), "public HTTP needs the explicit opt-in");
        let cli = parse(&["--data-dir", "d", "--client", "http://relay.example.com", "--allow-insecure-http"]).unwrap();
        assert_eq!(cli.launch(None), client("http://relay.example.com"));
        let cli = parse(&["--data-dir", "d", "--client", "https://relay.example.com/path"]).unwrap();
        assert!(cli.launch(None).is_err());
    }

    #[test]
    fn mdns_is_on_unless_turned_off() {
        assert!(!parse(&["--data-dir", "d"]).unwrap().no_mdns);
        assert!(parse(&["--data-dir", "d", "--no-mdns"]).unwrap().no_mdns);
        assert!(parse(&["--data-dir", "d", "--client", "https://a.example", "--no-mdns"]).unwrap().no_mdns);
        // RELAY_DESKTOP_NO_MDNS is the same switch (1/0, true/false, yes/no, on/off). No other
        // test asserts `no_mdns`, so setting the variable here cannot disturb them.
        for (value, want) in [("1", true), ("true", true), ("yes", true), ("0", false), ("false", false)] {
            std::env::set_var("RELAY_DESKTOP_NO_MDNS", value);
            let got = parse(&["--data-dir", "d"]).map(|c| c.no_mdns);
            std::env::remove_var("RELAY_DESKTOP_NO_MDNS");
            assert_eq!(got.unwrap(), want, "{value}");
        }
    }

    #[test]
    fn modes_are_exclusive_and_insecure_needs_client() {
        assert!(parse(&["--data-dir", "d", "--server-mode", "--client", "https://a.example"]).is_err());
        assert!(parse(&["--data-dir", "d", "--allow-insecure-http"]).is_err());
        assert!(parse(&["--server-mode"]).is_err(), "--data-dir is required");
    }
}
