//! The Dispatcher Radar sign-in window (desktop server mode, main window only): the operator
//! signs in to the CW Dashboard once in a window of its own — its own persistent WebKit store in
//! `DATA/webviews/radar` (0700), navigation held to the Radar origin (the fixed build-time
//! endpoint; a debug build's loopback test override), new windows and every permission request
//! denied, no IPC (its label is in no capability). `finish_radar_sign_in` then reads that
//! window's cookies for the Radar page inside the shell, hands them to the server's Radar actor
//! (which validates and keeps them owner-only, exactly like `relay radar sign-in`) and closes the
//! window: the cookie never reaches the renderer, a log or an answer. The answer is only whether
//! the Radar now reads a board.

use std::path::{Path, PathBuf};

use url::Url;

use crate::bridge::{Access, BridgeError, Command};

pub const OPEN_RADAR_SIGN_IN: Command = Command::new("open_radar_sign_in", Access::MainOnly);
pub const FINISH_RADAR_SIGN_IN: Command = Command::new("finish_radar_sign_in", Access::MainOnly);

/// The sign-in window's label (outside every capability: no IPC).
pub const RADAR_SIGN_IN_LABEL: &str = "radar-sign-in";

/// The Radar page the window opens and whose cookies are read.
pub fn radar_page() -> Result<Url, BridgeError> {
    let base = infra::http::endpoints::RADAR
        .base()
        .map_err(|_| BridgeError::Unavailable("the Radar address is not usable".into()))?;
    base.join(infra::radar::RADAR_PATH).map_err(|_| BridgeError::Unavailable("the Radar address is not usable".into()))
}

/// Whether a navigation of the sign-in window may proceed: the Radar page's own origin only.
pub fn allow_radar_navigation(radar: &Url, target: &str) -> bool {
    let allowed = Url::parse(target).is_ok_and(|t| t.origin() == radar.origin());
    if !allowed {
        tracing::warn!(
            target: "relay::security",
            origin = %domain::external_links::describe_for_log(target),
            "radar sign-in navigation blocked"
        );
    }
    allowed
}

/// The `Cookie` header value of `cookies` (`name=value; …`), or `None` when there are none.
pub fn cookie_header<'a>(cookies: impl IntoIterator<Item = (&'a str, &'a str)>) -> Option<String> {
    let pairs: Vec<String> = cookies.into_iter().map(|(n, v)| format!("{n}={v}")).collect();
    (!pairs.is_empty()).then(|| pairs.join("; "))
}

/// Where the sign-in window keeps its browser data (created owner-only; a link is refused).
pub fn store_dir(data_root: &Path) -> std::io::Result<PathBuf> {
    let dir = data_root.join("webviews").join("radar");
    for owner_only in [data_root.join("webviews"), dir.clone()] {
        crate::dynatrace_cmd::private_dir(&owner_only)?;
    }
    Ok(dir)
}

mod commands {
    use tauri::webview::{NewWindowResponse, PermissionResponse};
    use tauri::{Manager, State, Webview};

    use super::*;
    use crate::bridge::{caller, Bridge};
    use crate::dynatrace_cmd::DynatraceSession;

    fn server_radar(bridge: &Bridge) -> Result<actix::Addr<actors::radar::RadarActor>, BridgeError> {
        if !bridge.is_server_mode() {
            return Err(BridgeError::Unavailable("sign in to the Radar on the Relay server PC".into()));
        }
        bridge
            .live_server()
            .map(|l| l.radar)
            .ok_or_else(|| BridgeError::Unavailable("the server is restarting; retry in a moment".into()))
    }

    /// Opens (or focuses) the Radar sign-in window on the fixed Radar page.
    #[tauri::command]
    pub async fn open_radar_sign_in<R: tauri::Runtime>(
        app: tauri::AppHandle<R>,
        webview: Webview<R>,
        bridge: State<'_, Bridge>,
        session: State<'_, DynatraceSession>,
    ) -> Result<String, BridgeError> {
        caller(OPEN_RADAR_SIGN_IN, &webview, &bridge)?;
        server_radar(&bridge)?;
        if let Some(w) = app.get_webview_window(RADAR_SIGN_IN_LABEL) {
            let _ = w.set_focus();
            return Ok(RADAR_SIGN_IN_LABEL.into());
        }
        let page = radar_page()?;
        let store = store_dir(session.data_root()).map_err(|e| {
            tracing::warn!(error = %e, "the Radar sign-in store is unusable");
            BridgeError::Unavailable("the Radar sign-in store is unusable".into())
        })?;
        let origin = page.clone();
        tauri::WebviewWindowBuilder::new(&app, RADAR_SIGN_IN_LABEL, tauri::WebviewUrl::External(page))
            .title("Relay — Radar sign-in")
            .inner_size(1000.0, 760.0)
            .data_directory(store)
            .on_permission_request(|_, kind| {
                tracing::warn!(target: "relay::security", kind = ?kind, "radar sign-in permission request denied");
                PermissionResponse::Deny
            })
            .on_navigation(move |url| allow_radar_navigation(&origin, url.as_str()))
            .on_new_window(|url, _| {
                tracing::warn!(
                    target: "relay::security",
                    origin = %domain::external_links::describe_for_log(url.as_str()),
                    "radar sign-in new window refused"
                );
                NewWindowResponse::Deny
            })
            .build()
            .map(|_| RADAR_SIGN_IN_LABEL.to_string())
            .map_err(|e| BridgeError::Unavailable(format!("could not open the window: {e}")))
    }

    /// Hands the sign-in window's Radar cookies to the server's Radar actor and closes the
    /// window; answers whether the Radar now reads a board (never the cookie).
    #[tauri::command]
    pub async fn finish_radar_sign_in<R: tauri::Runtime>(
        app: tauri::AppHandle<R>,
        webview: Webview<R>,
        bridge: State<'_, Bridge>,
    ) -> Result<serde_json::Value, BridgeError> {
        caller(FINISH_RADAR_SIGN_IN, &webview, &bridge)?;
        let radar = server_radar(&bridge)?;
        let window = app
            .get_webview_window(RADAR_SIGN_IN_LABEL)
            .ok_or_else(|| BridgeError::Invalid("open the Radar sign-in window first".into()))?;
        let cookies = window
            .cookies_for_url(radar_page()?)
            .map_err(|_| BridgeError::Unavailable("the sign-in window's cookies could not be read".into()))?;
        let header = cookie_header(cookies.iter().map(|c| (c.name(), c.value())))
            .ok_or_else(|| BridgeError::Invalid("the Radar sign-in is not finished yet (no session cookie)".into()))?;
        let snapshot = radar
            .send(actors::radar::SetRadarSession { cookie: Some(header) })
            .await
            .map_err(|_| BridgeError::Unavailable("the Radar is restarting; retry".into()))?
            .map_err(|e| BridgeError::Invalid(e.to_string()))?;
        let _ = window.destroy();
        tracing::info!(signed_in = !snapshot.sign_in_required, "the Radar session was set from the sign-in window");
        Ok(serde_json::json!({
            "signInRequired": snapshot.sign_in_required,
            "error": snapshot.error,
        }))
    }
}

pub use commands::*;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn navigation_stays_on_the_radar_origin() {
        let radar = Url::parse("https://cw-intra-web/CWDashboard/Home/Radar").unwrap();
        assert!(allow_radar_navigation(&radar, "https://cw-intra-web/CWDashboard/Account/Login?ReturnUrl=%2F"));
        for bad in [
            "https://cw-intra-web.evil.example/",
            "http://cw-intra-web/CWDashboard/Home/Radar",
            "https://cw-intra-web:8443/",
            "https://login.microsoftonline.com/",
            "javascript:alert(1)",
            "file:///etc/passwd",
        ] {
            assert!(!allow_radar_navigation(&radar, bad), "{bad}");
        }
    }

    #[test]
    fn cookies_become_one_header_and_none_is_no_session() {
        assert_eq!(
            cookie_header([(".ASPXAUTH", "abc"), ("ASP.NET_SessionId", "x1")]).as_deref(),
            Some(".ASPXAUTH=abc; ASP.NET_SessionId=x1")
        );
        assert_eq!(cookie_header(std::iter::empty()), None);
    }

    #[cfg(unix)]
    #[test]
    fn the_store_is_owner_only_and_a_link_is_refused() {
        use std::os::unix::fs::PermissionsExt;
        let tmp = tempfile::tempdir().unwrap();
        let dir = store_dir(tmp.path()).unwrap();
        assert_eq!(std::fs::metadata(&dir).unwrap().permissions().mode() & 0o777, 0o700);
        let other = tempfile::tempdir().unwrap();
        std::fs::create_dir(other.path().join("webviews")).unwrap();
        std::os::unix::fs::symlink(tmp.path(), other.path().join("webviews/radar")).unwrap();
        assert!(store_dir(other.path()).is_err());
    }
}
