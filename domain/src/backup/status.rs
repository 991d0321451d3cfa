//! What the backup subsystem reports to its server-local interfaces (the `relay backup` CLI
//! over the control socket, the desktop's Data administration): the health view, the operation
//! running now with its progress, the archives on disk, and the outcome of one create or
//! verify. Plain serializable values; no rules.

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
        };
        let json = serde_json::to_vec(&status).unwrap();
        assert_eq!(serde_json::from_slice::<BackupStatus>(&json).unwrap(), status);
    }
}
