//! The setup bridge commands: `save_setup` (the setup screen's choice: validated with
//! `domain::desktop_setup`, saved owner-only as `desktop.json`, then the app restarts into it)
//! and `reset_setup` (Settings → "Change connection…": the saved setup is removed and the app
//! restarts into the setup screen). Both are main-window-only. A restart runs the normal exit
//! path first, so the in-process server stops and its mDNS advertisement is withdrawn before the
//! new configuration starts ("stop on reconfigure").

use domain::desktop_setup::{DesktopSetup, SetupError};
use infra::datadir::DataDir;

use crate::bridge::{Access, BridgeError, Command};

/// `save_setup`: the setup screen's choice, then a restart into it.
pub const SAVE_SETUP: Command = Command::new("save_setup", Access::MainOnly);
/// `reset_setup`: forget the saved setup, then a restart into the setup screen.
pub const RESET_SETUP: Command = Command::new("reset_setup", Access::MainOnly);

/// Managed state: where the setup is saved.
pub struct SetupStore {
    data_dir: DataDir,
}

fn setup_error(e: SetupError) -> BridgeError {
    match e {
        SetupError::Storage(m) => BridgeError::Unavailable(m),
        other => BridgeError::Invalid(other.to_string()),
    }
}

impl SetupStore {
    pub fn new(data_dir: DataDir) -> SetupStore {
        SetupStore { data_dir }
    }

    /// Validates and saves `setup`; the caller restarts the app.
    pub fn save(&self, setup: DesktopSetup) -> Result<DesktopSetup, BridgeError> {
        let saved = self.data_dir.write_desktop_setup(setup).map_err(setup_error)?;
        tracing::info!(
            target: "relay::setup",
            mode = match &saved {
                DesktopSetup::Server { .. } => "server",
                DesktopSetup::Client { .. } => "client",
            },
            "desktop setup saved"
        );
        Ok(saved)
    }

    /// Removes the saved setup; the caller restarts the app.
    pub fn reset(&self) -> Result<(), BridgeError> {
        self.data_dir.clear_desktop_setup().map_err(|e| BridgeError::Unavailable(e.to_string()))?;
        tracing::info!(target: "relay::setup", "desktop setup cleared");
        Ok(())
    }
}

mod commands {
    use tauri::{State, Webview};

    use super::*;
    use crate::bridge::{caller, Bridge};

    #[tauri::command]
    pub async fn save_setup<R: tauri::Runtime>(
        app: tauri::AppHandle<R>,
        webview: Webview<R>,
        bridge: State<'_, Bridge>,
        store: State<'_, SetupStore>,
        setup: DesktopSetup,
    ) -> Result<(), BridgeError> {
        caller(SAVE_SETUP, &webview, &bridge)?;
        store.save(setup)?;
        app.request_restart();
        Ok(())
    }

    #[tauri::command]
    pub async fn reset_setup<R: tauri::Runtime>(
        app: tauri::AppHandle<R>,
        webview: Webview<R>,
        bridge: State<'_, Bridge>,
        store: State<'_, SetupStore>,
    ) -> Result<(), BridgeError> {
        caller(RESET_SETUP, &webview, &bridge)?;
        store.reset()?;
        app.request_restart();
        Ok(())
    }
}

pub use commands::*;

#[cfg(test)]
mod tests {
    use super::*;

    fn store() -> (tempfile::TempDir, SetupStore) {
        let tmp = tempfile::tempdir().unwrap();
        let dir = DataDir::open(tmp.path().join("data")).unwrap();
        (tmp, SetupStore::new(dir))
    }

    #[test]
    fn saves_validated_setups_and_refuses_bad_urls_without_touching_the_saved_one() {
        let (_tmp, s) = store();
        let saved =
            s.save(DesktopSetup::Client { server_url: "HTTPS://Relay.Example.com".into(), allow_insecure_http: false });
        assert_eq!(
            saved.unwrap(),
            DesktopSetup::Client { server_url: "https://relay.example.com".into(), allow_insecure_http: false }
        );
        for bad in ["http://relay.example.com", "https://relay.example.com/x", "javascript:alert(1)", ""] {
            let r = s.save(DesktopSetup::Client { server_url: bad.into(), allow_insecure_http: false });
            assert!(matches!(r, Err(BridgeError::Invalid(_))), "{bad}: {r:?}");
        }
        assert!(matches!(
            s.data_dir.read_desktop_setup().unwrap(),
            Some(DesktopSetup::Client { server_url, .. }) if server_url == "https://relay.example.com"
        ));
    }

    #[test]
    fn reset_removes_the_saved_setup() {
        let (_tmp, s) = store();
        s.reset().unwrap();
        s.save(DesktopSetup::Server { lan_access: false }).unwrap();
        s.reset().unwrap();
        assert_eq!(s.data_dir.read_desktop_setup().unwrap(), None);
    }

    #[test]
    fn the_payload_shape_is_strict() {
        let ok: DesktopSetup =
            serde_json::from_value(serde_json::json!({"mode": "server", "lanAccess": true})).unwrap();
        assert_eq!(ok, DesktopSetup::Server { lan_access: true });
        for bad in [
            serde_json::json!({"mode": "server"}),
            serde_json::json!({"mode": "server", "lanAccess": true, "bind": "0.0.0.0"}),
            serde_json::json!({"mode": "client", "serverUrl": 5}),
        ] {
            assert!(serde_json::from_value::<DesktopSetup>(bad.clone()).is_err(), "{bad}");
        }
    }
}
