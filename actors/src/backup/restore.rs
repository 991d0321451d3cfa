//! Restoring a backup into a data directory whose server is stopped (the cold path behind
//! `relay backup restore`): the selected archive is verified in the worker and its extraction
//! kept as the stage; a fresh pre-restore safety archive of the current store is written and
//! verified (any failure so far changes nothing and removes the stage); the journaled swap
//! (`infra::backup::swap`) installs the stage as `DATA/store`; the restored store is opened
//! (migrations bring an older schema up to date), passes `PRAGMA integrity_check` and gives up
//! a row of every table; only then is the swap committed. If the restored store
//! fails that check the original is put back. The health file records both archives like any
//! create and verify. A crash at any step is finished or undone by the next start's recovery.

use std::time::Duration;

use diesel::connection::SimpleConnection;

use domain::backup::health::VerificationOutcome;
use domain::backup::names::{ArchiveKind, ArchiveName};
use domain::backup::status::{CreatedBackup, VerifiedBackup};
use infra::backup::files;
use infra::backup::swap::{install, CommitOutcome};
use infra::backup::worker::{verify_in_worker, WorkerError};
use infra::datadir::DataDir;

use super::jobs::{self, JobEnv, JobError};

/// Why a restore did not happen (or was rolled back); texts are safe for the operator.
#[derive(Debug, thiserror::Error)]
pub enum RestoreError {
    #[error("Invalid backup name")]
    InvalidName,
    #[error("No such backup")]
    NotFound,
    #[error("The selected backup failed verification: {0}")]
    SourceRejected(#[source] WorkerError),
    #[error("The pre-restore safety backup failed, so nothing was restored: {0}")]
    SafetyBackupFailed(#[source] JobError),
    #[error("The restore could not be installed; the current data is unchanged: {0}")]
    Install(#[source] infra::backup::swap::SwapError),
    #[error("The restored data failed to open ({0}); the previous data was put back")]
    RolledBack(String),
    #[error(
        "The restored data failed to open ({0}) and putting the previous data back failed; the next start recovers it"
    )]
    RollbackFailed(String),
    #[error("The restore could not be committed; the next start recovers it: {0}")]
    Commit(#[source] infra::backup::swap::SwapError),
    #[error("The current store stayed open in this process; nothing was restored")]
    StoreStillOpen,
}

/// What a finished restore did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RestoreReport {
    pub restored: VerifiedBackup,
    pub safety: CreatedBackup,
    /// The original's removal failed; the next start finishes it (the restore stands).
    pub cleanup_deferred: bool,
}

/// Restores `name` into `dir` (its server must be stopped; the caller made sure). Progress of
/// each phase goes to `progress` with the phase's label.
pub fn restore_cold(
    dir: &DataDir,
    env: JobEnv,
    name: &str,
    now_ms: impl Fn() -> i64,
    progress: &mut dyn FnMut(&'static str, infra::backup::Progress),
) -> Result<RestoreReport, RestoreError> {
    let name = ArchiveName::parse(name).map_err(|_| RestoreError::InvalidName)?;
    let archive = files::backups_dir(dir.root()).join(name.as_str());
    let fingerprint = jobs::observe(&env, &name).ok_or(RestoreError::NotFound)?;
    let mut health = files::load_health(dir.root(), now_ms()).state;

    // 1. The selected archive, verified; its extraction is kept as the stage.
    let verified = verify_in_worker(&env.worker, &archive, dir.root(), env.verify_deadline, true, &mut |p| {
        progress("Verifying the selected backup", p)
    });
    let (found, stage) = match verified {
        Ok((found, Some(stage))) => (found, stage),
        Ok((_, None)) => unreachable!("a kept verification returns its stage"),
        Err(e) => {
            health.record_verification(&name, fingerprint, VerificationOutcome::Failed, now_ms());
            let _ = files::save_health(dir.root(), &health);
            return Err(RestoreError::SourceRejected(e));
        }
    };
    health.record_verification(&name, fingerprint, VerificationOutcome::Success, now_ms());
    let _ = files::save_health(dir.root(), &health);
    let drop_stage = || {
        let _ = std::fs::remove_dir_all(&stage);
    };

    // 2. A verified safety archive of what is live now.
    let safety = match safety_backup(&env, now_ms(), progress) {
        Ok(safety) => safety,
        Err(e) => {
            drop_stage();
            return Err(RestoreError::SafetyBackupFailed(e));
        }
    };
    if !close_store(env, &dir.store_dir()) {
        drop_stage();
        return Err(RestoreError::StoreStillOpen);
    }

    // 3. The journaled swap, then the restored store must open and serve reads.
    let stage_name = stage.file_name().and_then(|n| n.to_str()).unwrap_or_default().to_string();
    let mut pending = match install(dir.root(), &stage_name) {
        Ok(pending) => pending,
        Err(e) => {
            drop_stage();
            return Err(RestoreError::Install(e));
        }
    };
    if let Err(reason) = health_check(&dir.db_path()) {
        tracing::error!(reason = %reason, "the restored store failed its check; rolling back");
        return match pending.rollback() {
            Ok(()) => Err(RestoreError::RolledBack(reason)),
            Err(_) => Err(RestoreError::RollbackFailed(reason)),
        };
    }
    let outcome = pending.commit().map_err(RestoreError::Commit)?;
    tracing::info!(archive = %name.as_str(), "backup restored");
    let restored =
        VerifiedBackup { name, entries: found.entries, extracted_bytes: found.extracted_bytes, tables: found.tables };
    Ok(RestoreReport { restored, safety, cleanup_deferred: outcome == CommitOutcome::CleanupDeferred })
}

/// Writes and verifies a `pre_restore_...` archive of the live store.
fn safety_backup(
    env: &JobEnv,
    now_ms: i64,
    progress: &mut dyn FnMut(&'static str, infra::backup::Progress),
) -> Result<CreatedBackup, JobError> {
    let written = jobs::write(env, ArchiveKind::PreRestore, now_ms, &mut |p| progress("Writing the safety backup", p))?;
    let (found, _) = jobs::verify(env, &written.name, &mut |p| progress("Verifying the safety backup", p))?;
    Ok(CreatedBackup {
        name: written.name,
        size: written.size,
        entries: found.entries,
        tables: found.tables,
        pruned: vec![],
    })
}

/// Closes this process's connections to the live store before the swap moves it aside (after
/// a checkpoint, so nothing lives only in its write-ahead log), and waits until no file
/// descriptor of this process points into the store directory: r2d2 may close its last
/// connection a moment later on a background thread, and SQLite would then delete the WAL by
/// its path, which after the swap is the restored store's. False if it stayed open.
fn close_store(env: JobEnv, store_dir: &std::path::Path) -> bool {
    if let Ok(mut conn) = env.pool.get() {
        let _ = conn.batch_execute("PRAGMA wal_checkpoint(TRUNCATE);");
    }
    drop(env);
    let store_dir = std::fs::canonicalize(store_dir).unwrap_or_else(|_| store_dir.to_path_buf());
    let deadline = std::time::Instant::now() + STORE_CLOSE_DEADLINE;
    while std::time::Instant::now() < deadline {
        if !holds_files_in(&store_dir) {
            return true;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    false
}

/// How long the old store's connections may take to close.
const STORE_CLOSE_DEADLINE: Duration = Duration::from_secs(10);

/// Whether any open file descriptor of this process is inside `dir`.
fn holds_files_in(dir: &std::path::Path) -> bool {
    let Ok(fds) = std::fs::read_dir("/proc/self/fd") else { return false };
    fds.filter_map(|fd| fd.ok()).any(|fd| std::fs::read_link(fd.path()).is_ok_and(|target| target.starts_with(dir)))
}

/// Opens the restored store once so migrations bring an older schema up to date, then runs the
/// verifier's database check on it (integrity, migrations table, a row of every table). Debug
/// builds can be told to fail it (`restore:reject-restored`).
fn health_check(db: &std::path::Path) -> Result<(), String> {
    #[cfg(debug_assertions)]
    if std::env::var(infra::fault::FAULT_ENV).as_deref() == Ok("restore:reject-restored") {
        return Err("test fault: the restored store is rejected".into());
    }
    drop(infra::db::open(db, 1).map_err(|e| e.to_string())?);
    infra::backup::verifier::check_database(db).map(|_| ()).map_err(|e| e.to_string())
}
