//! The Dynatrace dashboard popout's own browser session: its persistent WebKit data store lives
//! in `DATA/webviews/dynatrace-<generation>/` (owner-only, never a link), apart from the app's
//! own store, so the dashboard's cookies and storage are never the app's and the app's are never
//! the dashboard's. "Clear Dynatrace session" (`clear_dynatrace_session`, main window only)
//! closes the popout and moves to a new generation, deleting every older store: the next popout
//! starts signed out even though WebKit may keep the old store's context alive in memory until
//! the app exits (a new directory is a new context).

use std::path::{Path, PathBuf};

use crate::bridge::{Access, BridgeError, Command};

pub const CLEAR_DYNATRACE_SESSION: Command = Command::new("clear_dynatrace_session", Access::MainOnly);

const PREFIX: &str = "dynatrace-";
const GENERATION_FILE: &str = "dynatrace-generation";

/// Where the popout's data store lives (managed by Tauri).
pub struct DynatraceSession {
    root: PathBuf,
}

impl DynatraceSession {
    /// `data_root` is the data directory; the stores go under `webviews/`.
    pub fn new(data_root: &Path) -> DynatraceSession {
        DynatraceSession { root: data_root.join("webviews") }
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

fn private_dir(dir: &Path) -> std::io::Result<()> {
    match std::fs::symlink_metadata(dir) {
        Ok(meta) if meta.file_type().is_symlink() || !meta.is_dir() => {
            Err(std::io::Error::other("the Dynatrace session store is not a plain directory"))
        }
        Ok(_) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            let mut builder = std::fs::DirBuilder::new();
            #[cfg(unix)]
            std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
            builder.create(dir)
        }
        Err(e) => Err(e),
    }
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
        if let Some(popout) = app.get_webview_window(crate::lockdown::DYNATRACE_LABEL) {
            let _ = popout.destroy();
        }
        session.clear().map_err(unavailable)?;
        tracing::info!("the Dynatrace session was cleared");
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
