//! The desktop's Data administration commands (server mode, main window only): the backup
//! status with the running operation's progress and the last restore's outcome, the archive
//! list, "Backup now", "Verify" and "Restore" (staged here; the server thread restarts onto it).
//! Each translates to a message to the in-process backup actor; a client-mode or setup window
//! has no backup actor and gets `unavailable`. Backups are never reachable from HTTP; this
//! bridge and the control socket are their only interfaces.

use actix::Addr;
use actors::backup::{
    BackupActor, BackupError, CreateBackup, GetBackupStatus, ListBackups, RestoreBackup, VerifyBackup,
};
use domain::backup::status::{ArchiveListing, BackupStatus, CreatedBackup, RestoreStaged, VerifiedBackup};

use crate::bridge::{Access, Bridge, BridgeError, Command};

pub const BACKUP_STATUS: Command = Command::new("backup_status", Access::MainOnly);
pub const BACKUP_LIST: Command = Command::new("backup_list", Access::MainOnly);
pub const BACKUP_CREATE: Command = Command::new("backup_create", Access::MainOnly);
pub const BACKUP_VERIFY: Command = Command::new("backup_verify", Access::MainOnly);
pub const BACKUP_RESTORE: Command = Command::new("backup_restore", Access::MainOnly);

/// The server-mode backup actor, if this desktop runs the server.
fn backup_of(bridge: &Bridge) -> Result<Addr<BackupActor>, BridgeError> {
    if !bridge.is_server_mode() {
        return Err(BridgeError::Unavailable("backups are managed on the Relay server PC".into()));
    }
    bridge.live_server().and_then(|l| l.backup).ok_or_else(|| {
        BridgeError::Unavailable("the server is restarting (a backup restore); retry in a moment".into())
    })
}

fn refused(e: BackupError) -> BridgeError {
    match e {
        BackupError::InvalidName => BridgeError::Invalid(e.to_string()),
        other => BridgeError::Unavailable(other.to_string()),
    }
}

fn stopped(_: actix::MailboxError) -> BridgeError {
    BridgeError::Unavailable("the backup subsystem is restarting; retry".into())
}

mod commands {
    use tauri::{State, Webview};

    use super::*;
    use crate::bridge::caller;

    #[tauri::command]
    pub async fn backup_status<R: tauri::Runtime>(
        webview: Webview<R>,
        bridge: State<'_, Bridge>,
    ) -> Result<BackupStatus, BridgeError> {
        caller(BACKUP_STATUS, &webview, &bridge)?;
        backup_of(&bridge)?.send(GetBackupStatus).await.map_err(stopped)
    }

    #[tauri::command]
    pub async fn backup_list<R: tauri::Runtime>(
        webview: Webview<R>,
        bridge: State<'_, Bridge>,
    ) -> Result<Vec<ArchiveListing>, BridgeError> {
        caller(BACKUP_LIST, &webview, &bridge)?;
        backup_of(&bridge)?.send(ListBackups).await.map_err(stopped)?.map_err(refused)
    }

    #[tauri::command]
    pub async fn backup_create<R: tauri::Runtime>(
        webview: Webview<R>,
        bridge: State<'_, Bridge>,
    ) -> Result<CreatedBackup, BridgeError> {
        caller(BACKUP_CREATE, &webview, &bridge)?;
        backup_of(&bridge)?.send(CreateBackup).await.map_err(stopped)?.map_err(refused)
    }

    #[tauri::command]
    pub async fn backup_verify<R: tauri::Runtime>(
        webview: Webview<R>,
        bridge: State<'_, Bridge>,
        name: String,
    ) -> Result<VerifiedBackup, BridgeError> {
        caller(BACKUP_VERIFY, &webview, &bridge)?;
        backup_of(&bridge)?.send(VerifyBackup { name }).await.map_err(stopped)?.map_err(refused)
    }

    /// Stages a restore (the selected archive and a fresh safety backup verified while the
    /// server serves); the server then restarts onto it and `backup_status` reports the outcome
    /// as `lastRestore`. The UI asks the operator to confirm before calling this.
    #[tauri::command]
    pub async fn backup_restore<R: tauri::Runtime>(
        webview: Webview<R>,
        bridge: State<'_, Bridge>,
        name: String,
    ) -> Result<RestoreStaged, BridgeError> {
        caller(BACKUP_RESTORE, &webview, &bridge)?;
        backup_of(&bridge)?.send(RestoreBackup { name }).await.map_err(stopped)?.map_err(refused)
    }
}

pub use commands::*;
