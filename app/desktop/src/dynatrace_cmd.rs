//! The Dynatrace dashboard popout's own browser session: its persistent WebKit data store lives
//! in `DATA/webviews/dynatrace-<generation>/` (owner-only, never a link), apart from the app's
//! own store, so the dashboard's cookies and storage are never the app's and the app's are never
//! the dashboard's. "Clear Dynatrace session" (`clear_dynatrace_session`, main window only)
//! closes the popout and moves to a new generation, deleting every older store: the next popout
//! starts signed out even though WebKit may keep the old store's context alive in memory until
//! the app exits (a new directory is a new context). Each dashboard has its own popout
//! (`dynatrace-<key>`); its state (live, signed out, blocked, closed), derived from the
//! navigation rule's decisions, is read by the main window with `dynatrace_popouts`, and
//! `close_dynatrace` closes one (a removed dashboard). The popouts have no IPC of their own.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use domain::windows::DynatraceNav;

use crate::bridge::{Access, BridgeError, Command};

pub const CLEAR_DYNATRACE_SESSION: Command = Command::new("clear_dynatrace_session", Access::MainOnly);
pub const DYNATRACE_POPOUTS: Command = Command::new("dynatrace_popouts", Access::MainOnly);
pub const CLOSE_DYNATRACE: Command = Command::new("close_dynatrace", Access::MainOnly);

/// A dashboard key (the renderer's dashboard id): 1..=64 of `[A-Za-z0-9_-]`; none is `""`.
pub fn check_dashboard_key(key: Option<&str>) -> Result<String, BridgeError> {
    match key {
        None => Ok(String::new()),
        Some(k)
            if (1..=64).contains(&k.len())
                && k.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-') =>
        {
            Ok(k.to_string())
        }
        Some(_) => Err(BridgeError::Invalid("not a dashboard key".into())),
    }
}

/// The popout window's label for a dashboard key.
pub fn popout_label(key: &str) -> String {
    if key.is_empty() {
        crate::lockdown::DYNATRACE_LABEL.to_string()
    } else {
        format!("{}-{key}", crate::lockdown::DYNATRACE_LABEL)
    }
}

/// Each open (or closed) popout's state by dashboard key, as the main window shows it.
#[derive(Clone, Default)]
pub struct PopoutStates(Arc<Mutex<BTreeMap<String, &'static str>>>);

impl PopoutStates {
    fn set(&self, key: &str, state: &'static str) {
        self.0.lock().unwrap_or_else(|p| p.into_inner()).insert(key.to_string(), state);
    }

    /// A navigation the rule decided: Dynatrace is live, a sign-in page is "authenticating",
    /// anything else was blocked (the page stays where it was, shown as blocked).
    pub fn navigated(&self, key: &str, nav: DynatraceNav) {
        let state = match nav {
            DynatraceNav::Live => "live",
            DynatraceNav::Authenticating => "authenticating",
            DynatraceNav::Blocked => "blocked",
        };
        self.set(key, state);
    }

    pub fn closed(&self, key: &str) {
        self.set(key, "closed");
    }

    pub fn snapshot(&self) -> BTreeMap<String, &'static str> {
        self.0.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }
}

const PREFIX: &str = "dynatrace-";
const GENERATION_FILE: &str = "dynatrace-generation";

/// Where the popout's data store lives (managed by Tauri).
pub struct DynatraceSession {
    root: PathBuf,
    data_root: PathBuf,
    states: PopoutStates,
}

impl DynatraceSession {
    /// `data_root` is the data directory; the stores go under `webviews/`.
    pub fn new(data_root: &Path) -> DynatraceSession {
        DynatraceSession {
            root: data_root.join("webviews"),
            data_root: data_root.to_path_buf(),
            states: PopoutStates::default(),
        }
    }

    /// The data directory (other isolated windows keep their stores beside this one's).
    pub fn data_root(&self) -> &Path {
        &self.data_root
    }

    /// The popouts' states (shared with their navigation and close handlers).
    pub fn states(&self) -> PopoutStates {
        self.states.clone()
    }

    fn generation(&self) -> u64 {
        std::fs::read_to_string(self.root.join(GENERATION_FILE)).ok().and_then(|s| s.trim().parse().ok()).unwrap_or(0)
    }

    /// The current store's directory, created owner-only; refused if it (or `webviews/`) is a link.
    pub fn store_dir(&self) -> std::io::Result<PathBuf> {
        private_dir(&self.root)?;
        let dir = self.root.join(format!("{PREFIX}{}", self.generation()));
        private_dir(&dir)?;
        Ok(dir)
    }

    /// Moves to the next generation, then deletes every store but the new one.
    pub fn clear(&self) -> std::io::Result<()> {
        private_dir(&self.root)?;
        let next = self.generation().saturating_add(1);
        let tmp = self.root.join(format!("{GENERATION_FILE}.tmp"));
        std::fs::write(&tmp, next.to_string())?;
        std::fs::rename(&tmp, self.root.join(GENERATION_FILE))?;
        let keep = format!("{PREFIX}{next}");
        for entry in std::fs::read_dir(&self.root)? {
            let entry = entry?;
            let name = entry.file_name().to_string_lossy().to_string();
            let is_store = name.strip_prefix(PREFIX).is_some_and(|n| n.bytes().all(|b| b.is_ascii_digit()));
            if is_store && name != keep {
                // A link is removed as a link, never followed.
                if entry.file_type()?.is_dir() {
                    std::fs::remove_dir_all(entry.path())?;
                } else {
                    std::fs::remove_file(entry.path())?;
                }
            }
        }
        Ok(())
    }
}

/// An owner-only directory for a webview store (the data directory's own rule).
pub(crate) fn private_dir(dir: &Path) -> std::io::Result<()> {
    infra::datadir::ensure_private_dir(dir).map_err(std::io::Error::other)
}

fn unavailable(e: std::io::Error) -> BridgeError {
    tracing::warn!(error = %e, "the Dynatrace session store could not be cleared");
    BridgeError::Unavailable("the Dynatrace session could not be cleared".into())
}

mod commands {
    use tauri::{Manager, State, Webview};

    use super::*;
    use crate::bridge::{caller, Bridge};

    #[tauri::command]
    pub async fn clear_dynatrace_session<R: tauri::Runtime>(
        app: tauri::AppHandle<R>,
        webview: Webview<R>,
        bridge: State<'_, Bridge>,
        session: State<'_, DynatraceSession>,
    ) -> Result<(), BridgeError> {
        caller(CLEAR_DYNATRACE_SESSION, &webview, &bridge)?;
        for (label, popout) in app.webview_windows() {
            if label == crate::lockdown::DYNATRACE_LABEL || label.starts_with("dynatrace-") {
                let _ = popout.destroy();
            }
        }
        session.clear().map_err(unavailable)?;
        tracing::info!("the Dynatrace session was cleared");
        Ok(())
    }

    /// Every dashboard popout's state by key (`""` is the keyless popout).
    #[tauri::command]
    pub async fn dynatrace_popouts<R: tauri::Runtime>(
        webview: Webview<R>,
        bridge: State<'_, Bridge>,
        session: State<'_, DynatraceSession>,
    ) -> Result<BTreeMap<String, &'static str>, BridgeError> {
        caller(DYNATRACE_POPOUTS, &webview, &bridge)?;
        Ok(session.states().snapshot())
    }

    /// Closes one dashboard's popout (a removed dashboard); nothing when it is not open.
    #[tauri::command]
    pub async fn close_dynatrace<R: tauri::Runtime>(
        app: tauri::AppHandle<R>,
        webview: Webview<R>,
        bridge: State<'_, Bridge>,
        key: String,
    ) -> Result<(), BridgeError> {
        caller(CLOSE_DYNATRACE, &webview, &bridge)?;
        let key = check_dashboard_key(Some(&key))?;
        if let Some(popout) = app.get_webview_window(&popout_label(&key)) {
            let _ = popout.destroy();
        }
        Ok(())
    }
}

pub use commands::*;

#[cfg(all(test, unix))]
mod tests {
    use std::os::unix::fs::PermissionsExt;

    use super::*;

    #[test]
    fn the_store_is_owner_only_and_clearing_starts_a_new_one_and_deletes_the_old() {
        let tmp = tempfile::tempdir().unwrap();
        let session = DynatraceSession::new(tmp.path());
        let first = session.store_dir().unwrap();
        assert_eq!(first, tmp.path().join("webviews/dynatrace-0"));
        assert_eq!(std::fs::metadata(&first).unwrap().permissions().mode() & 0o777, 0o700);
        assert_eq!(std::fs::metadata(tmp.path().join("webviews")).unwrap().permissions().mode() & 0o777, 0o700);
        std::fs::write(first.join("cookies.sqlite"), "session=abc").unwrap();
        session.clear().unwrap();
        let second = session.store_dir().unwrap();
        assert_eq!(second, tmp.path().join("webviews/dynatrace-1"));
        assert!(!first.exists(), "the old store is deleted");
        assert_eq!(std::fs::read_dir(&second).unwrap().count(), 0, "the new store starts empty");
        assert_eq!(session.store_dir().unwrap(), second, "stable until the next clear");
    }

    #[test]
    fn dashboard_keys_are_short_words_and_name_their_own_popout() {
        assert_eq!(check_dashboard_key(None).unwrap(), "");
        assert_eq!(popout_label(""), "dynatrace");
        let key = check_dashboard_key(Some("dt_3f2b1c9e-7d4a-4e2b-9c1d-0a1b2c3d4e5f")).unwrap();
        assert_eq!(popout_label(&key), "dynatrace-dt_3f2b1c9e-7d4a-4e2b-9c1d-0a1b2c3d4e5f");
        for bad in ["", "../main", "a b", "main\n", "x/y", "aux-1:2", &"k".repeat(65)] {
            assert!(check_dashboard_key(Some(bad)).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn popout_states_follow_the_navigation_rule_and_the_close() {
        let states = PopoutStates::default();
        states.navigated("a", DynatraceNav::Live);
        states.navigated("b", DynatraceNav::Authenticating);
        states.navigated("c", DynatraceNav::Blocked);
        states.closed("a");
        let snap = states.snapshot();
        assert_eq!(snap.get("a"), Some(&"closed"));
        assert_eq!(snap.get("b"), Some(&"authenticating"));
        assert_eq!(snap.get("c"), Some(&"blocked"));
    }

    #[test]
    fn a_link_in_place_of_the_store_is_refused_and_clearing_never_follows_one() {
        let tmp = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("keep.txt"), "x").unwrap();
        std::fs::create_dir(tmp.path().join("webviews")).unwrap();
        std::os::unix::fs::symlink(outside.path(), tmp.path().join("webviews/dynatrace-0")).unwrap();
        let session = DynatraceSession::new(tmp.path());
        assert!(session.store_dir().is_err(), "a link is not a store");
        session.clear().unwrap();
        assert!(outside.path().join("keep.txt").exists(), "the link's target is untouched");
        assert!(std::fs::symlink_metadata(tmp.path().join("webviews/dynatrace-0")).is_err(), "the link itself is gone");
    }
}
