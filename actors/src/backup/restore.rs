//! Restoring a backup, in two halves shared by the cold path (`relay backup restore` with the
//! server stopped) and the running server. [`stage_restore`] runs while Relay keeps serving:
//! the selected archive is verified in the worker and its extraction kept as the stage, then a
//! fresh pre-restore safety archive of the current store is written and verified (any failure
//! so far changes nothing and removes the stage). [`install_staged`] runs once nothing in this
//! process holds the store open (the cold path closes its pool; the running server stops its
//! HTTP servers and actors first): the journaled swap (`infra::backup::swap`) installs the
//! stage as `DATA/store`, the restored store is opened (migrations bring an older schema up to
//! date), passes `PRAGMA integrity_check` and gives up a row of every table, and only then is
//! the swap committed; if the check fails the original is put back. A crash at any step is
//! finished or undone by the next start's recovery. Neither half writes the health file: the
//! caller records the selected archive's verification (the actor owns the file while a server
//! runs).

use std::path::{Path, PathBuf};
use std::time::Duration;

use diesel::connection::SimpleConnection;

use domain::backup::health::{FileFingerprint, VerificationOutcome};
use domain::backup::names::{ArchiveKind, ArchiveName};
use domain::backup::status::{
    CreatedBackup, FinishedRestore, OperationPhase, RestoreResult, RestoreStaged, VerifiedBackup,
};
use infra::backup::files;
use infra::backup::swap::{install, CommitOutcome};
use infra::backup::worker::{verify_in_worker, WorkerError};
use infra::backup::Progress;
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

/// The part of a restore that runs while Relay serves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RestorePhase {
    VerifySelected,
    WriteSafety,
    VerifySafety,
}

impl RestorePhase {
    /// The operator-facing label (the CLI prints it).
    pub fn label(self) -> &'static str {
        match self {
            RestorePhase::VerifySelected => "Verifying the selected backup",
            RestorePhase::WriteSafety => "Writing the safety backup",
            RestorePhase::VerifySafety => "Verifying the safety backup",
        }
    }

    /// The status view's phase.
    pub fn operation_phase(self) -> OperationPhase {
        match self {
            RestorePhase::WriteSafety => OperationPhase::Writing,
            RestorePhase::VerifySelected | RestorePhase::VerifySafety => OperationPhase::Verifying,
        }
    }
}

/// A verified restore waiting to be installed: the stage directory (the selected archive's
/// verified extraction, inside the data directory) and what was verified.
#[derive(Debug)]
pub struct StagedRestore {
    pub stage: PathBuf,
    pub report: RestoreStaged,
    /// The selected archive as the worker read it (for the health file).
    pub selected_fingerprint: FileFingerprint,
}

impl StagedRestore {
    /// Gives up the restore: the stage is removed.
    pub fn discard(self) {
        let _ = std::fs::remove_dir_all(&self.stage);
    }
}

/// What a finished restore did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RestoreReport {
    pub restored: VerifiedBackup,
    pub safety: CreatedBackup,
    /// The original's removal failed; the next start finishes it (the restore stands).
    pub cleanup_deferred: bool,
}

/// Verifies `name` (keeping its extraction as the stage), then writes and verifies a
/// pre-restore safety archive of the live store. Touches neither the live store nor the health
/// file; on failure the stage is removed.
pub fn stage_restore(
    env: &JobEnv,
    name: &ArchiveName,
    now_ms: i64,
    progress: &mut dyn FnMut(RestorePhase, Progress),
) -> Result<StagedRestore, RestoreError> {
    let archive = files::backups_dir(&env.data_root).join(name.as_str());
    let fingerprint = jobs::observe(env, name).ok_or(RestoreError::NotFound)?;
    let verified = verify_in_worker(&env.worker, &archive, &env.data_root, env.verify_deadline, true, &mut |p| {
        progress(RestorePhase::VerifySelected, p)
    });
    let (found, stage) = match verified {
        Ok((found, Some(stage))) => (found, stage),
        Ok((_, None)) => unreachable!("a kept verification returns its stage"),
        Err(e) => return Err(RestoreError::SourceRejected(e)),
    };
    let restored = VerifiedBackup {
        name: name.clone(),
        entries: found.entries,
        extracted_bytes: found.extracted_bytes,
        tables: found.tables,
    };
    match safety_backup(env, now_ms, progress) {
        Ok(safety) => {
            Ok(StagedRestore { stage, report: RestoreStaged { restored, safety }, selected_fingerprint: fingerprint })
        }
        Err(e) => {
            let _ = std::fs::remove_dir_all(&stage);
            Err(RestoreError::SafetyBackupFailed(e))
        }
    }
}

/// Installs a staged restore into `dir` once no file of its store is open in this process
/// (waits up to 10 s for closing connections): journaled swap, open and check, then commit, or
/// roll back to the original. Returns whether the original's removal was deferred to the next
/// start.
pub fn install_staged(dir: &DataDir, staged: StagedRestore) -> Result<bool, RestoreError> {
    if !wait_until_closed(&dir.store_dir()) {
        staged.discard();
        return Err(RestoreError::StoreStillOpen);
    }
    let stage_name = staged.stage.file_name().and_then(|n| n.to_str()).unwrap_or_default().to_string();
    let mut pending = match install(dir.root(), &stage_name) {
        Ok(pending) => pending,
        Err(e) => {
            staged.discard();
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
    tracing::info!(archive = %staged.report.restored.name.as_str(), "backup restored");
    Ok(outcome == CommitOutcome::CleanupDeferred)
}

/// The running server's install step between stopping and restarting: [`install_staged`],
/// reported as the restore's outcome (`Installed` until the restarted server serves a read).
/// When the install left its journal behind (a failed commit or rollback), the start-up
/// recovery runs here, before anything serves again, exactly as the next start would; if that
/// recovery fails, the error is returned and the host must not serve.
pub fn finish_staged(
    dir: &DataDir,
    staged: StagedRestore,
    now_ms: i64,
) -> Result<FinishedRestore, infra::backup::swap::SwapError> {
    let (restored, safety) = (staged.report.restored.name.clone(), staged.report.safety.name.clone());
    let result = match install_staged(dir, staged) {
        Ok(_) => RestoreResult::Installed,
        Err(RestoreError::RolledBack(reason)) => RestoreResult::RolledBack { reason },
        Err(e) => RestoreResult::Failed { reason: e.to_string() },
    };
    let outcome = infra::backup::swap::recover_at_start(dir.root())?;
    if outcome != infra::backup::swap::RecoveryOutcome::Nothing {
        tracing::warn!(outcome = ?outcome, "recovered the restore's journal before serving again");
    }
    Ok(FinishedRestore { restored, safety, result, finished_ms: now_ms })
}

/// Restores `name` into `dir` whose server is stopped (the caller made sure): stage, record the
/// selected archive's verification in the health file, close `env`'s pool, install.
pub fn restore_cold(
    dir: &DataDir,
    env: JobEnv,
    name: &str,
    now_ms: impl Fn() -> i64,
    progress: &mut dyn FnMut(RestorePhase, Progress),
) -> Result<RestoreReport, RestoreError> {
    let name = ArchiveName::parse(name).map_err(|_| RestoreError::InvalidName)?;
    let staged = stage_restore(&env, &name, now_ms(), progress);
    let mut health = files::load_health(dir.root(), now_ms()).state;
    match &staged {
        Ok(staged) => {
            health.record_verification(&name, staged.selected_fingerprint, VerificationOutcome::Success, now_ms())
        }
        Err(RestoreError::SourceRejected(_)) => {
            if let Some(fingerprint) = jobs::observe(&env, &name) {
                health.record_verification(&name, fingerprint, VerificationOutcome::Failed, now_ms());
            }
        }
        Err(_) => {}
    }
    let _ = files::save_health(dir.root(), &health);
    let staged = staged?;
    close_pool(env);
    let report = staged.report.clone();
    let cleanup_deferred = install_staged(dir, staged)?;
    Ok(RestoreReport { restored: report.restored, safety: report.safety, cleanup_deferred })
}

/// Writes and verifies a `pre_restore_...` archive of the live store.
fn safety_backup(
    env: &JobEnv,
    now_ms: i64,
    progress: &mut dyn FnMut(RestorePhase, Progress),
) -> Result<CreatedBackup, JobError> {
    let written = jobs::write(env, ArchiveKind::PreRestore, now_ms, &mut |p| progress(RestorePhase::WriteSafety, p))?;
    let (found, _) = jobs::verify(env, &written.name, &mut |p| progress(RestorePhase::VerifySafety, p))?;
    Ok(CreatedBackup {
        name: written.name,
        size: written.size,
        entries: found.entries,
        tables: found.tables,
        pruned: vec![],
    })
}

/// Checkpoints (so nothing lives only in the write-ahead log) and drops this pool.
fn close_pool(env: JobEnv) {
    if let Ok(mut conn) = env.pool.get() {
        let _ = conn.batch_execute("PRAGMA wal_checkpoint(TRUNCATE);");
    }
}

/// Waits until no file descriptor of this process points into the store directory: r2d2 and
/// stopping actors may close their last connection a moment later on another thread, and
/// SQLite would then delete the WAL by its path, which after the swap is the restored store's.
/// False if it stayed open.
fn wait_until_closed(store_dir: &Path) -> bool {
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
fn holds_files_in(dir: &Path) -> bool {
    let Ok(fds) = std::fs::read_dir("/proc/self/fd") else { return false };
    fds.filter_map(|fd| fd.ok()).any(|fd| std::fs::read_link(fd.path()).is_ok_and(|target| target.starts_with(dir)))
}

/// Opens the restored store once so migrations bring an older schema up to date, then runs the
/// verifier's database check on it (integrity, migrations table, a row of every table). Debug
/// builds can be told to fail it (`restore:reject-restored`).
fn health_check(db: &Path) -> Result<(), String> {
    #[cfg(debug_assertions)]
    if std::env::var(infra::fault::FAULT_ENV).as_deref() == Ok("restore:reject-restored") {
        return Err("test fault: the restored store is rejected".into());
    }
    drop(infra::db::open(db, 1).map_err(|e| e.to_string())?);
    infra::backup::verifier::check_database(db).map(|_| ()).map_err(|e| e.to_string())
}
