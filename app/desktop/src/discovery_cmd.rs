//! The `discover_servers` bridge command: client mode asks the mDNS `DiscoveryActor` (started on
//! the backend's actix thread on first use) to browse `_relay._tcp` for `DISCOVER_WINDOW` and
//! returns the servers the `domain::discovery` filter keeps (private or loopback IPv4,
//! unprivileged port, clean bounded names, deduplicated and sorted). It is main-window-only,
//! refused in server mode and with `--no-mdns`; the setup screen uses it too, and one browse runs at a time (a concurrent call
//! is refused by the actor).

use std::time::Duration;

use actix::Addr;
use actors::discovery::{Browse, DiscoveryActor, DiscoveryError};
use domain::discovery::RelayServer;

use crate::bridge::{Access, BridgeError, Caller, Command};

/// Who may call `discover_servers`: the main window only.
pub const ACCESS: Access = Access::MainOnly;
pub const COMMAND: Command = Command::new("discover_servers", ACCESS);
/// How long one `discover_servers` call listens for answers.
pub const DISCOVER_WINDOW: Duration = Duration::from_secs(3);
/// Extra time allowed for the actor's reply on top of the browse window.
const REPLY_SLACK: Duration = Duration::from_secs(2);

/// The caller check `discover_servers` runs first.
pub fn authorize(label: &str, frame_url: &str, trusted: &str) -> Result<Caller, BridgeError> {
    COMMAND.authorize(label, frame_url, trusted)
}

/// One bounded browse through the discovery actor.
pub async fn browse(discovery: Addr<DiscoveryActor>) -> Result<Vec<RelayServer>, BridgeError> {
    let reply = tokio::time::timeout(DISCOVER_WINDOW + REPLY_SLACK, discovery.send(Browse { window: DISCOVER_WINDOW }));
    match reply.await {
        Ok(Ok(Ok(servers))) => Ok(servers),
        Ok(Ok(Err(DiscoveryError::Busy))) => Err(BridgeError::Unavailable("a discovery is already running".into())),
        Ok(Ok(Err(e))) => Err(BridgeError::Unavailable(e.to_string())),
        Ok(Err(_)) => Err(BridgeError::Unavailable("discovery stopped".into())),
        Err(_) => Err(BridgeError::Unavailable("discovery timed out".into())),
    }
}

mod commands {
    use tauri::{State, Webview};

    use super::*;
    use crate::bridge::Bridge;

    #[tauri::command]
    pub async fn discover_servers<R: tauri::Runtime>(
        webview: Webview<R>,
        bridge: State<'_, Bridge>,
    ) -> Result<Vec<RelayServer>, BridgeError> {
        let url = webview.url().map(|u| u.to_string()).unwrap_or_default();
        authorize(webview.label(), &url, &bridge.trusted_origin)?;
        let discovery = {
            let mut backend = bridge.backend.lock().unwrap_or_else(|p| p.into_inner());
            let backend = backend.as_mut().ok_or_else(|| BridgeError::Unavailable("no backend".into()))?;
            backend.browser().map_err(BridgeError::Unavailable)?
        };
        browse(discovery).await
    }
}

pub use commands::*;

#[cfg(test)]
mod tests {
    use super::*;

    const T: &str = "tauri://localhost";

    #[test]
    fn discover_servers_is_main_window_only() {
        assert_eq!(authorize("main", "tauri://localhost/index.html", T), Ok(Caller::Main));
        for label in ["aux-oncall", "aux-popout-board", "dynatrace", "Main", "main "] {
            assert!(
                matches!(authorize(label, "tauri://localhost/?popout=oncall", T), Err(BridgeError::Forbidden(_))),
                "{label}"
            );
        }
        for url in ["https://evil.example/", "http://192.168.1.5:8090/", "about:blank", ""] {
            assert!(matches!(authorize("main", url, T), Err(BridgeError::Forbidden(_))), "{url}");
        }
    }

    #[test]
    fn discovery_is_refused_with_no_mdns_before_any_daemon_starts() {
        let tmp = tempfile::tempdir().unwrap();
        let url = Some("http://192.168.1.5:8090".to_string());
        let mut backend = crate::backend::start_client(url, false, tmp.path().to_path_buf()).unwrap();
        assert_eq!(backend.browser().unwrap_err(), "mDNS is turned off (--no-mdns)");
        backend.stop();
    }

    #[test]
    fn the_browse_window_is_three_seconds() {
        assert_eq!(DISCOVER_WINDOW, Duration::from_secs(3));
        assert!(DISCOVER_WINDOW <= actors::discovery::MAX_BROWSE_WINDOW);
    }
}
