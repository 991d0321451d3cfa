//! What the backup subsystem reports to its server-local interfaces (the `relay backup` CLI
//! over the control socket, the desktop's Data administration): the health view, the operation
//! running now with its progress, the archives on disk, the outcome of one create or verify,
//! and a restore's two reports: staged (verified, safety backup taken; the server restarts
//! onto it) and finished (serving the restored data, rolled back, or failed). Plain
//! serializable values; no rules.

use serde::{Deserialize, Serialize};

use super::health::HealthView;
use super::names::{ArchiveKind, ArchiveName};

/// Which long operation is running.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum OperationKind {
    Create,
    Verify,
    Restore,
}

/// Where in the operation it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum OperationPhase {
    /// Waiting behind another operation.
    Queued,
    /// Snapshot and archive writing.
    Writing,
    /// Disposable-restore verification in the worker.
    Verifying,
    /// Pruning archives after a verified backup.
    Pruning,
    /// Restore: the server stops, swaps the store and restarts on the restored data.
    Installing,
}

/// The running operation and its progress bar (bytes and entries of the current phase).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct OperationStatus {
    pub kind: OperationKind,
    pub phase: OperationPhase,
    pub archive: Option<ArchiveName>,
    pub bytes_done: u64,
    pub bytes_total: u64,
    pub entries_done: usize,
    pub entries_total: usize,
}

/// The backup subsystem's status: saved health, derived values, the running operation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BackupStatus {
    pub health: HealthView,
    pub operation: Option<OperationStatus>,
    /// Operations waiting behind the running one.
    pub queued: usize,
    /// The last restore this server process carried out (kept in memory; none after a
    /// cold start).
    #[serde(default)]
    pub last_restore: Option<FinishedRestore>,
}

/// A restore verified and staged: the selected archive passed verification and a verified
/// pre-restore safety backup of the current data exists. `safety.name` identifies the restore.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RestoreStaged {
    pub restored: VerifiedBackup,
    pub safety: CreatedBackup,
}

/// How a restore ended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "state", rename_all = "camelCase")]
pub enum RestoreResult {
    /// Swapped in and committed; the server has not yet answered a read on it.
    Installed,
    /// The restarted server answered a read on the restored data: the restore succeeded.
    Serving,
    /// The restored data failed its checks; the previous data was put back and is served.
    RolledBack { reason: String },
    /// Nothing was swapped (or recovery is left to the next start); the reason says which.
    Failed { reason: String },
}

/// The outcome of the last restore, reported by the restarted server.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FinishedRestore {
    pub restored: ArchiveName,
    /// The pre-restore safety backup (the restore's identity).
    pub safety: ArchiveName,
    pub result: RestoreResult,
    pub finished_ms: i64,
}

impl FinishedRestore {
    /// Whether the outcome is final (a client waiting for it can stop waiting).
    pub fn is_final(&self) -> bool {
        !matches!(self.result, RestoreResult::Installed)
    }
}

/// One archive in `backups/`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ArchiveListing {
    pub name: ArchiveName,
    pub kind: ArchiveKind,
    pub created_ms: i64,
    pub size: u64,
    /// Whether this is the verified restore point that retention protects.
    pub verified_restore_point: bool,
}

/// A finished create (written and verified).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CreatedBackup {
    pub name: ArchiveName,
    pub size: u64,
    pub entries: usize,
    pub tables: usize,
    /// Archives deleted by retention afterwards.
    pub pruned: Vec<ArchiveName>,
}

/// A finished verification.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct VerifiedBackup {
    pub name: ArchiveName,
    pub entries: usize,
    pub extracted_bytes: u64,
    pub tables: usize,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backup::health::HealthState;

    #[test]
    fn status_round_trips_through_json() {
        let mut state = HealthState::default();
        state.begin_attempt(1_796_216_231_000);
        let status = BackupStatus {
            health: HealthView { state, retention_allowed: false, restore_point_age_ms: None, busy: true },
            operation: Some(OperationStatus {
                kind: OperationKind::Create,
                phase: OperationPhase::Writing,
                archive: Some(ArchiveName::new(ArchiveKind::Regular, 1_796_216_231_000, "abcdefgh12").unwrap()),
                bytes_done: 1,
                bytes_total: 2,
                entries_done: 0,
                entries_total: 3,
            }),
            queued: 1,
            last_restore: Some(FinishedRestore {
                restored: ArchiveName::new(ArchiveKind::Regular, 1_796_216_231_000, "abcdefgh12").unwrap(),
                safety: ArchiveName::new(ArchiveKind::PreRestore, 1_796_216_232_000, "abcdefgh13").unwrap(),
                result: RestoreResult::RolledBack { reason: "integrity".into() },
                finished_ms: 1_796_216_233_000,
            }),
        };
        let json = serde_json::to_vec(&status).unwrap();
        assert_eq!(serde_json::from_slice::<BackupStatus>(&json).unwrap(), status);
    }
}
