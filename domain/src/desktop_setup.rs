//! The desktop's connection setup: server mode (with direct LAN access on by default, or cleared
//! for this machine only) or client mode (a validated server origin), as chosen on the setup
//! screen and saved in the data directory, and how a launch decides between explicit command-line
//! flags, the saved setup and showing the setup screen. The saved form is strict JSON (unknown
//! fields refused, bounded size) and is validated again on every read, so a hand-edited file
//! cannot smuggle in a URL the setup screen would have refused.

use std::net::{IpAddr, Ipv4Addr};

use serde::{Deserialize, Serialize};

use crate::server_url::{check_server_url, ServerUrlError};

/// Largest saved setup accepted, in bytes.
pub const MAX_SETUP_BYTES: usize = 4096;

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "mode", rename_all = "camelCase", rename_all_fields = "camelCase", deny_unknown_fields)]
pub enum DesktopSetup {
    /// Run the server in this app; `lan_access` binds every interface (the default) instead of
    /// loopback only.
    Server { lan_access: bool },
    /// Connect to another Relay server at `server_url` (an origin).
    Client {
        server_url: String,
        #[serde(default)]
        allow_insecure_http: bool,
    },
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SetupError {
    #[error("the setup is not valid JSON of the expected shape")]
    Malformed,
    #[error("the saved setup is larger than {MAX_SETUP_BYTES} bytes")]
    TooLarge,
    #[error("server URL: {0}")]
    ServerUrl(#[from] ServerUrlError),
    #[error("could not save the setup: {0}")]
    Storage(String),
}

impl DesktopSetup {
    /// The setup with its server URL checked and normalized.
    pub fn validated(self) -> Result<DesktopSetup, SetupError> {
        match self {
            DesktopSetup::Server { .. } => Ok(self),
            DesktopSetup::Client { server_url, allow_insecure_http } => Ok(DesktopSetup::Client {
                server_url: check_server_url(&server_url, allow_insecure_http)?,
                allow_insecure_http,
            }),
        }
    }

    /// The saved form (pretty JSON).
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_default()
    }
}

/// Reads a saved setup: bounded, strict and validated.
pub fn parse_saved(bytes: &[u8]) -> Result<DesktopSetup, SetupError> {
    if bytes.len() > MAX_SETUP_BYTES {
        return Err(SetupError::TooLarge);
    }
    let setup: DesktopSetup = serde_json::from_slice(bytes).map_err(|_| SetupError::Malformed)?;
    setup.validated()
}

/// What this launch runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Launch {
    Server {
        bind: IpAddr,
    },
    /// A validated server origin.
    Client {
        server_url: String,
    },
    /// Nothing chosen yet: the window shows the setup screen.
    Setup,
}

/// The bind address for server mode: every interface with LAN access, loopback without.
pub fn server_bind(lan_access: bool) -> IpAddr {
    if lan_access {
        IpAddr::V4(Ipv4Addr::UNSPECIFIED)
    } else {
        IpAddr::V4(Ipv4Addr::LOCALHOST)
    }
}

/// Explicit flags win (`cli_server` with an optional `--bind`, or a validated `cli_client`),
/// then the saved setup, else the setup screen. `--bind` without a mode applies to a saved
/// server setup too.
pub fn resolve_launch(
    cli_server: bool,
    cli_bind: Option<IpAddr>,
    cli_client: Option<String>,
    saved: Option<DesktopSetup>,
) -> Launch {
    if let Some(server_url) = cli_client {
        return Launch::Client { server_url };
    }
    let saved_lan = match &saved {
        Some(DesktopSetup::Server { lan_access }) => Some(*lan_access),
        _ => None,
    };
    if cli_server || saved_lan.is_some() {
        let bind = cli_bind.unwrap_or_else(|| server_bind(saved_lan.unwrap_or(true)));
        return Launch::Server { bind };
    }
    match saved {
        Some(DesktopSetup::Client { server_url, .. }) => Launch::Client { server_url },
        _ => Launch::Setup,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn client(url: &str) -> DesktopSetup {
        DesktopSetup::Client { server_url: url.into(), allow_insecure_http: false }
    }

    #[test]
    fn saved_setups_round_trip_and_are_strict() {
        for setup in [DesktopSetup::Server { lan_access: true }, client("https://relay.example.com")] {
            assert_eq!(parse_saved(setup.to_json().as_bytes()), Ok(setup));
        }
        assert_eq!(
            parse_saved(br#"{"mode":"server","lanAccess":false}"#),
            Ok(DesktopSetup::Server { lan_access: false })
        );
        for bad in [
            &br#"{"mode":"server"}"#[..],
            br#"{"mode":"server","lanAccess":true,"extra":1}"#,
            br#"{"mode":"client"}"#,
            br#"{"mode":"other"}"#,
            br#"{"lanAccess":true}"#,
            b"not json",
            b"",
        ] {
            assert_eq!(parse_saved(bad), Err(SetupError::Malformed), "{}", String::from_utf8_lossy(bad));
        }
        let huge = format!(r#"{{"mode":"client","serverUrl":"https://{}.example"}}"#, "a".repeat(5000));
        assert_eq!(parse_saved(huge.as_bytes()), Err(SetupError::TooLarge));
    }

    #[test]
    fn saved_client_urls_pass_the_server_url_policy_again() {
        assert_eq!(
            parse_saved(br#"{"mode":"client","serverUrl":"HTTP://192.168.1.5:8090/"}"#),
            Ok(client("http://192.168.1.5:8090"))
        );
        for bad in ["http://relay.example.com", "https://relay.example.com/path", "https://u:p@relay.example.com"] {
            let json = format!(r#"{{"mode":"client","serverUrl":"{bad}"}}"#);
            assert!(matches!(parse_saved(json.as_bytes()), Err(SetupError::ServerUrl(_))), "{bad}");
        }
        let opted_in = br#"{"mode":"client","serverUrl":"http://relay.example.com","allowInsecureHttp":true}"#;
        assert!(parse_saved(opted_in).is_ok(), "public HTTP only with the explicit opt-in");
    }

    #[test]
    fn flags_then_saved_setup_then_the_setup_screen() {
        let lan = server_bind(true);
        let local = server_bind(false);
        assert_eq!(resolve_launch(false, None, None, None), Launch::Setup);
        assert_eq!(resolve_launch(true, None, None, None), Launch::Server { bind: lan }, "LAN access by default");
        assert_eq!(resolve_launch(true, Some(local), None, None), Launch::Server { bind: local });
        let saved_local = Some(DesktopSetup::Server { lan_access: false });
        assert_eq!(resolve_launch(false, None, None, saved_local.clone()), Launch::Server { bind: local });
        assert_eq!(resolve_launch(false, Some(lan), None, saved_local), Launch::Server { bind: lan });
        let saved_client = Some(client("https://relay.example.com"));
        assert_eq!(
            resolve_launch(false, None, None, saved_client.clone()),
            Launch::Client { server_url: "https://relay.example.com".into() }
        );
        assert_eq!(resolve_launch(true, None, None, saved_client), Launch::Server { bind: lan }, "flag wins");
        assert_eq!(
            resolve_launch(
                false,
                None,
                Some("https://b.example".into()),
                Some(DesktopSetup::Server { lan_access: true })
            ),
            Launch::Client { server_url: "https://b.example".into() }
        );
        assert!(lan.is_unspecified() && local.is_loopback());
    }
}
