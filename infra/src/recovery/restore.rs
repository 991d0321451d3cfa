//! The journaled restore of a data snapshot into the data directory after a rollback. The
//! snapshot is proved ([`super::snapshot::read_snapshot`]) and copied into
//! `DATA/.relay-recovery-stage/` first (the snapshot may live on another filesystem, and a
//! rename cannot cross one); then `recovery/restore.json` (transaction, source build, and for
//! each data item whether the snapshot holds it) is written atomically: from here on the
//! restore only rolls forward. For each item the live folder is renamed into
//! `DATA/.relay-recovery-displaced/` and the staged copy renamed into place (an item the
//! snapshot lacks, such as an `offline/` the candidate created, is only displaced). Every step is
//! idempotent given what `lstat` observes, so an interrupted swap is finished by running it
//! again; an observation the journal cannot explain (a displaced copy already present where the
//! live one still is) is an error that touches nothing. The displaced trees are kept until
//! [`finish_restore`] sees an activated catalog that proves the source build current with no
//! candidate of this transaction; only then are they, the stage and the journal removed, and a
//! retained journal retries that cleanup at the next start. The data directory's own lock is
//! held throughout, so no server runs on it meanwhile.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use domain::updater::BuildId;
use serde::{Deserialize, Serialize};

use super::catalog::{Catalog, TransactionId};
use super::snapshot::{copy_tree, lock_data_dir, read_snapshot, DATA_DIR_NAME, DATA_ITEMS};
use super::{fsutil, io_step, ManagedRoot, RecoveryIoError, RecoveryLock};

/// The staged copy inside the data directory.
pub const STAGE_NAME: &str = ".relay-recovery-stage";
/// Where displaced live folders wait for the proof that the rollback is complete.
pub const DISPLACED_NAME: &str = ".relay-recovery-displaced";
const JOURNAL_PROTOCOL: u32 = 1;

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct JournalItem {
    name: String,
    restore: bool,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct Journal {
    protocol: u32,
    transaction: String,
    source_build: String,
    items: Vec<JournalItem>,
}

fn read_journal(root: &ManagedRoot) -> Result<Option<Journal>, RecoveryIoError> {
    let Some(bytes) = fsutil::read_bounded(&root.restore_journal_path(), 4096)? else { return Ok(None) };
    let journal: Journal = serde_json::from_slice(&bytes).map_err(|_| RecoveryIoError::InvalidSnapshot("journal"))?;
    let known = journal.items.iter().all(|item| DATA_ITEMS.contains(&item.name.as_str()));
    if journal.protocol != JOURNAL_PROTOCOL || !known || TransactionId::parse(&journal.transaction).is_none() {
        return Err(RecoveryIoError::InvalidSnapshot("journal"));
    }
    Ok(Some(journal))
}

/// The transaction of a restore journal waiting on disk, if any.
pub fn pending_restore(root: &ManagedRoot) -> Result<Option<TransactionId>, RecoveryIoError> {
    Ok(read_journal(root)?.and_then(|journal| TransactionId::parse(&journal.transaction)))
}

/// `Ok(true)` for a real directory, `Ok(false)` when absent, an error for anything else.
fn present(path: &Path) -> Result<bool, RecoveryIoError> {
    match fs::symlink_metadata(path) {
        Err(error) if error.kind() == io::ErrorKind::NotFound => Ok(false),
        Err(error) => Err(io_step("stat_restore")(error)),
        Ok(meta) if meta.is_dir() => Ok(true),
        Ok(_) => Err(RecoveryIoError::LinkOrSpecialFile),
    }
}

/// Restores the snapshot of `transaction` into `data_dir` (see the module paragraph). Fault
/// points: `recovery:restore:after-stage`, `recovery:restore-journal:*`,
/// `recovery:restore:after-displace-<item>`, `recovery:restore:after-swap-<item>`.
pub fn restore_snapshot(
    root: &ManagedRoot,
    _lock: &RecoveryLock,
    data_dir: &Path,
    transaction: &TransactionId,
    source: &BuildId,
) -> Result<(), RecoveryIoError> {
    fsutil::ensure_private_dir(data_dir)?;
    let _data_lock = lock_data_dir(data_dir)?;
    let stage = data_dir.join(STAGE_NAME);
    let displaced = data_dir.join(DISPLACED_NAME);
    let journal = match read_journal(root)? {
        Some(journal) if journal.transaction == transaction.as_str() && journal.source_build == source.as_str() => {
            journal
        }
        Some(_) => return Err(RecoveryIoError::InvalidSnapshot("journal_mismatch")),
        None => {
            if present(&displaced)? {
                return Err(RecoveryIoError::InvalidSnapshot("displaced_without_journal"));
            }
            let manifest = read_snapshot(root, transaction)?;
            fsutil::remove_tree(&stage)?;
            let snapshot_data = root.snapshot_dir(transaction).join(DATA_DIR_NAME);
            fs::DirBuilder::new().create(&stage).map_err(io_step("stage_mkdir"))?;
            fsutil::check_private_dir(&stage)?;
            for item in &manifest.items {
                copy_tree(&snapshot_data.join(&item.name), &stage.join(&item.name))?;
            }
            crate::datadir::sync_dir(&stage).map_err(io_step("stage_sync"))?;
            crate::fault::fault_point("recovery:restore:after-stage");
            let items = DATA_ITEMS
                .iter()
                .map(|name| JournalItem {
                    name: (*name).to_owned(),
                    restore: manifest.items.iter().any(|item| item.name == *name),
                })
                .collect();
            let journal = Journal {
                protocol: JOURNAL_PROTOCOL,
                transaction: transaction.to_string(),
                source_build: source.to_string(),
                items,
            };
            let json = serde_json::to_vec_pretty(&journal).expect("a journal serializes");
            fsutil::write_atomic(&root.restore_journal_path(), &json, 0o600, "recovery:restore-journal")?;
            journal
        }
    };
    fsutil::ensure_private_dir(&displaced)?;
    for item in &journal.items {
        let (live, staged, kept): (PathBuf, PathBuf, PathBuf) =
            (data_dir.join(&item.name), stage.join(&item.name), displaced.join(&item.name));
        let staged_present = item.restore && present(&staged)?;
        let must_displace = present(&live)? && (staged_present || !item.restore);
        if must_displace {
            if present(&kept)? {
                return Err(RecoveryIoError::InvalidSnapshot("ambiguous_swap"));
            }
            fsutil::rename_noreplace(&live, &kept)?;
            crate::fault::fault_point(&format!("recovery:restore:after-displace-{}", item.name));
        }
        if staged_present {
            fsutil::rename_noreplace(&staged, &live)?;
            crate::fault::fault_point(&format!("recovery:restore:after-swap-{}", item.name));
        } else if item.restore && !present(&live)? {
            return Err(RecoveryIoError::InvalidSnapshot("restored_item_missing"));
        }
    }
    Ok(())
}

/// Removes the displaced trees, the stage and the journal once `catalog` (the activated one)
/// proves the journal's source build current with no candidate of its transaction. `Ok(false)`
/// when no journal waits; an unproved state is an error and removes nothing.
pub fn finish_restore(
    root: &ManagedRoot,
    _lock: &RecoveryLock,
    data_dir: &Path,
    catalog: &Catalog,
) -> Result<bool, RecoveryIoError> {
    let Some(journal) = read_journal(root)? else { return Ok(false) };
    let candidate_pending = catalog.candidate.as_ref().is_some_and(|c| c.transaction.as_str() == journal.transaction);
    if catalog.current.build.as_str() != journal.source_build || candidate_pending {
        return Err(RecoveryIoError::InvalidSnapshot("restore_not_proved"));
    }
    let _data_lock = lock_data_dir(data_dir)?;
    for item in &journal.items {
        if item.restore && !present(&data_dir.join(&item.name))? {
            return Err(RecoveryIoError::InvalidSnapshot("restored_item_missing"));
        }
    }
    fsutil::remove_tree(&data_dir.join(DISPLACED_NAME))?;
    crate::fault::fault_point("recovery:restore:after-remove-displaced");
    fsutil::remove_tree(&data_dir.join(STAGE_NAME))?;
    fsutil::remove_file(&root.restore_journal_path())?;
    Ok(true)
}

#[cfg(test)]
#[path = "restore_tests.rs"]
mod tests;
