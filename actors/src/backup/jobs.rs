//! The backup actor's blocking work, run off the actor's thread one job at a time: the
//! preflight and archive write of a create, the verification of an archive in the worker
//! process, the archive listing, and pruning. Each function takes what it needs explicitly and
//! returns a typed outcome; none of them touches the health file (the actor owns it).

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use diesel::r2d2::{ConnectionManager, Pool};
use diesel::sqlite::SqliteConnection;

use domain::backup::entries::preflight_required_bytes;
use domain::backup::health::{FailureText, FileFingerprint};
use domain::backup::names::{ArchiveKind, ArchiveName};
use infra::backup::verifier::{FreeSpace, VerifyError};
use infra::backup::worker::{verify_in_worker, WorkerCommand, WorkerError, WorkerVerified};
use infra::backup::writer::{write_archive, ArchiveCompression, ArchiveError, ArchiveRequest};
use infra::backup::{files, ProgressSink};

/// Everything a job needs; cheap to clone into a blocking task.
#[derive(Clone)]
pub struct JobEnv {
    pub data_root: PathBuf,
    pub pool: Pool<ConnectionManager<SqliteConnection>>,
    pub worker: WorkerCommand,
    pub verify_deadline: Duration,
    pub free_space: Arc<dyn FreeSpace + Send + Sync>,
    pub relay_version: String,
}

/// Why a job failed, mapped to the health file's fixed texts by [`JobError::failure_text`].
#[derive(Debug, thiserror::Error)]
pub enum JobError {
    #[error("Not enough disk space. Free space outside Relay history and backups, then retry.")]
    NoSpace,
    #[error("{0}")]
    Archive(#[source] ArchiveError),
    #[error("{0}")]
    Verification(#[source] WorkerError),
    #[error("the backup archive is missing or not a regular file")]
    Missing,
    #[error("the backups folder cannot be read: {0}")]
    Io(#[source] std::io::Error),
}

impl JobError {
    pub fn failure_text(&self) -> FailureText {
        match self {
            JobError::NoSpace | JobError::Archive(ArchiveError::NoSpace) => FailureText::NotEnoughSpace,
            JobError::Verification(WorkerError::Rejected(VerifyError::NotEnoughSpace)) => FailureText::NotEnoughSpace,
            JobError::Verification(_) => FailureText::VerificationFailed,
            _ => FailureText::BackupFailed,
        }
    }
}

/// A written archive and its fingerprint.
#[derive(Debug, Clone)]
pub struct Written {
    pub name: ArchiveName,
    pub size: u64,
    pub fingerprint: FileFingerprint,
}

/// Free space must cover 512 MiB plus twice the live data (checked before anything is written).
pub fn preflight(env: &JobEnv) -> Result<(), JobError> {
    let backups = files::ensure_backups_dir(&env.data_root).map_err(|e| JobError::Io(std::io::Error::other(e)))?;
    let live = files::live_data_bytes(&env.data_root).map_err(JobError::Io)?;
    let free = env.free_space.free_bytes(&backups).map_err(JobError::Io)?;
    if free < preflight_required_bytes(live) {
        return Err(JobError::NoSpace);
    }
    Ok(())
}

/// Writes a new archive of `kind` named at `now_ms` (preflight first).
pub fn write(
    env: &JobEnv,
    kind: ArchiveKind,
    now_ms: i64,
    progress: &mut dyn ProgressSink,
) -> Result<Written, JobError> {
    preflight(env)?;
    let suffix = infra::ids::client_id();
    let name = ArchiveName::new(kind, now_ms, &suffix).map_err(|_| JobError::Missing)?;
    let extra_files = files::store_extra_files(&env.data_root).map_err(JobError::Io)?;
    let mut conn = env.pool.get().map_err(|e| JobError::Io(std::io::Error::other(e.to_string())))?;
    let request = ArchiveRequest {
        data_root: &env.data_root,
        name: &name,
        relay_version: &env.relay_version,
        created_ms: now_ms,
        extra_files: &extra_files,
        compression: ArchiveCompression::Deflated,
    };
    let written =
        infra::backup::worker::in_background(|| write_archive(&mut conn, &request, progress)).map_err(|e| match e {
            ArchiveError::NoSpace => JobError::NoSpace,
            other => JobError::Archive(other),
        })?;
    let fingerprint = files::fingerprint(&written.path).map_err(JobError::Io)?.ok_or(JobError::Missing)?;
    Ok(Written { name, size: written.size, fingerprint })
}

/// The archive's current fingerprint (`None`: missing or not a regular file).
pub fn observe(env: &JobEnv, name: &ArchiveName) -> Option<FileFingerprint> {
    files::fingerprint(&files::backups_dir(&env.data_root).join(name.as_str())).ok().flatten()
}

/// Verifies `name` in the worker; returns what it found and the fingerprint it verified.
pub fn verify(
    env: &JobEnv,
    name: &ArchiveName,
    progress: &mut dyn ProgressSink,
) -> Result<(WorkerVerified, FileFingerprint), JobError> {
    let before = observe(env, name).ok_or(JobError::Missing)?;
    let path = files::backups_dir(&env.data_root).join(name.as_str());
    let (verified, _) = verify_in_worker(&env.worker, &path, &env.data_root, env.verify_deadline, false, progress)
        .map_err(JobError::Verification)?;
    // The certificate is for the bytes the worker read: a file changed meanwhile is not certified.
    if observe(env, name) != Some(before) {
        return Err(JobError::Missing);
    }
    Ok((verified, before))
}

/// Our archives in `backups/`, newest first.
pub fn list(env: &JobEnv) -> Result<Vec<(ArchiveName, FileFingerprint)>, JobError> {
    let dir = files::backups_dir(&env.data_root);
    if !dir.exists() {
        return Ok(Vec::new());
    }
    let mut archives = files::list_archives(&dir).map_err(JobError::Io)?;
    archives.sort_by_key(|a| std::cmp::Reverse(a.0.created_ms()));
    Ok(archives)
}

/// Deletes `doomed` archives (already selected by the retention rules); returns those removed.
pub fn prune(env: &JobEnv, doomed: &[ArchiveName]) -> Vec<ArchiveName> {
    let dir = files::backups_dir(&env.data_root);
    let removed: Vec<ArchiveName> =
        doomed.iter().filter(|name| std::fs::remove_file(dir.join(name.as_str())).is_ok()).cloned().collect();
    if !removed.is_empty() {
        // The deletions are durable once the directory is synced.
        let _ = std::fs::File::open(&dir).and_then(|d| d.sync_all());
    }
    removed
}
