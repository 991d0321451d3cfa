//! The disposable-restore verification worker: both sides of running [`verify_archive`] in a
//! separate process, on the shared worker channel ([`crate::worker`]). The parent
//! ([`verify_in_worker`]) creates a fresh private directory on the data filesystem, starts the
//! worker (the Relay binary re-executed in its hidden mode [`WORKER_ARG`]) and hands it the
//! paths over the channel; it relays progress lines, and the channel kills the whole process
//! group at the deadline and waits for the exit before this module deletes the directory. The
//! child ([`serve_child`]) verifies and answers with one result line. It opens no listener,
//! runs nothing from the archive and never touches the live store.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use domain::backup::entries::ExtractionLimits;
use domain::backup::journal::stage_dir_name;

use super::verifier::{verify_archive, StatvfsFreeSpace, VerifyError};
use super::{Progress, ProgressSink};
use crate::worker::{describe_exit, spawn_worker, ChannelError, ResourceLimits, WorkerSpec};

pub use crate::worker::{in_background, ChildRefused, WorkerCommand, BACKGROUND_NICE, CHANNEL_FD};

/// The first argument that selects the hidden worker mode of a Relay executable (handled
/// before any other argument parsing, and useless without the parent's channel).
pub const WORKER_ARG: &str = "__relay-backup-worker";
/// The deadline the parent gives a verification before killing the worker.
pub const VERIFY_DEADLINE: Duration = Duration::from_secs(120);
/// Largest progress or result line on the channel.
const MAX_LINE_BYTES: u64 = 64 * 1024;
/// Few files: the archive, the extracted database and its journal, the channel.
const OPEN_FILES: u64 = 64;

/// The verifier's process limits: no address-space or file-size cap (the extraction limits
/// bound what it writes, SQLite sizes its own cache), CPU time as a backstop just past the
/// deadline, few files.
fn worker_spec(deadline: Duration) -> WorkerSpec {
    WorkerSpec {
        deadline,
        max_line_bytes: MAX_LINE_BYTES,
        nice: BACKGROUND_NICE,
        idle_class: true,
        limits: ResourceLimits {
            address_space_bytes: None,
            cpu_seconds: Some(deadline.as_secs() + 10),
            file_size_bytes: None,
            open_files: OPEN_FILES,
        },
    }
}

#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct WorkerRequest {
    archive: PathBuf,
    destination: PathBuf,
}

#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct WorkerProgress {
    bytes_done: u64,
    bytes_total: u64,
    entries_done: usize,
    entries_total: usize,
}

#[derive(Debug, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "camelCase", deny_unknown_fields)]
enum WorkerReply {
    Verified {
        entries: usize,
        extracted_bytes: u64,
        tables: usize,
        #[serde(default)]
        extract_ms: u64,
        #[serde(default)]
        check_ms: u64,
    },
    Failed {
        code: String,
    },
}

/// What a passing verification reports to the parent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WorkerVerified {
    pub entries: usize,
    pub extracted_bytes: u64,
    pub tables: usize,
    /// Milliseconds the worker spent extracting, then checking the database.
    pub extract_ms: u64,
    pub check_ms: u64,
}

/// Why a verification in the worker did not pass.
#[derive(Debug, thiserror::Error)]
pub enum WorkerError {
    /// The archive failed a check (the fixed text of the check).
    #[error("{0}")]
    Rejected(VerifyError),
    #[error("the verification worker did not finish within {0} s and was stopped")]
    TimedOut(u64),
    #[error("the verification worker failed ({0})")]
    Crashed(String),
    #[error("the verification worker could not be started: {0}")]
    Spawn(#[source] io::Error),
}

impl From<ChannelError> for WorkerError {
    fn from(error: ChannelError) -> Self {
        match error {
            ChannelError::TimedOut(secs) => WorkerError::TimedOut(secs),
            ChannelError::Crashed(why) => WorkerError::Crashed(why),
            ChannelError::Spawn(e) => WorkerError::Spawn(e),
        }
    }
}

/// A private verification directory: `DATA/.relay-backup-verify-<random>` (0700, new).
pub fn create_destination(data_root: &Path) -> io::Result<PathBuf> {
    use std::os::unix::fs::DirBuilderExt;
    let name = stage_dir_name(&crate::ids::client_id()).map_err(|e| io::Error::other(e.to_string()))?;
    let root = fs::canonicalize(data_root)?;
    let destination = root.join(name);
    fs::DirBuilder::new().mode(0o700).create(&destination)?;
    Ok(destination)
}

/// Verifies `archive` in a worker process: extraction into a fresh private directory under
/// `data_root`, which is deleted after the worker has exited unless `keep` (a restore stage)
/// and the verification passed; then its path is returned too.
pub fn verify_in_worker(
    command: &WorkerCommand,
    archive: &Path,
    data_root: &Path,
    deadline: Duration,
    keep: bool,
    progress: &mut dyn ProgressSink,
) -> Result<(WorkerVerified, Option<PathBuf>), WorkerError> {
    let destination = create_destination(data_root).map_err(WorkerError::Spawn)?;
    let started = Instant::now();
    let result = run_worker(command, archive, &destination, deadline, progress);
    if let Ok(v) = &result {
        let total_ms = started.elapsed().as_millis() as u64;
        tracing::info!(total_ms, extract_ms = v.extract_ms, check_ms = v.check_ms, "backup verified in the worker");
    }
    if result.is_ok() && keep {
        return result.map(|v| (v, Some(destination)));
    }
    if let Err(e) = fs::remove_dir_all(&destination) {
        tracing::warn!(error = %e, "could not remove a backup verification directory");
    }
    result.map(|v| (v, None))
}

fn run_worker(
    command: &WorkerCommand,
    archive: &Path,
    destination: &Path,
    deadline: Duration,
    progress: &mut dyn ProgressSink,
) -> Result<WorkerVerified, WorkerError> {
    let request = WorkerRequest { archive: archive.to_path_buf(), destination: destination.to_path_buf() };
    let mut relay = |p: WorkerProgress| {
        // The worker is extracting: a crash of the parent now must not leave it behind.
        crate::fault::fault_point("backup:verify:during:Extraction");
        let WorkerProgress { bytes_done, bytes_total, entries_done, entries_total } = p;
        progress.report(Progress { bytes_done, bytes_total, entries_done, entries_total })
    };
    let exit = spawn_worker(command, &request, &worker_spec(deadline), &mut relay)?;
    match exit.reply {
        WorkerReply::Verified { .. } if !exit.status.success() => Err(WorkerError::Crashed(describe_exit(exit.status))),
        WorkerReply::Verified { entries, extracted_bytes, tables, extract_ms, check_ms } => {
            Ok(WorkerVerified { entries, extracted_bytes, tables, extract_ms, check_ms })
        }
        WorkerReply::Failed { code } => Err(VerifyError::from_code(&code)
            .map(WorkerError::Rejected)
            .unwrap_or_else(|| WorkerError::Crashed("the worker reported an unknown failure".into()))),
    }
}

/// The process side of [`WORKER_ARG`] (called by [`crate::worker::run_if_worker`]): serves and
/// returns the exit code (0 passed, 1 failed, 2 refused to run).
pub fn run_as_process() -> i32 {
    match serve_child() {
        Ok(true) => 0,
        Ok(false) => 1,
        Err(e) => {
            eprintln!("relay: {e}");
            2
        }
    }
}

/// The worker's side: checks the channel, verifies, reports. Returns whether the archive passed
/// (the caller exits 0 or 1); a refusal to run at all is an error (the caller exits 2).
pub fn serve_child() -> Result<bool, ChildRefused> {
    let reply = crate::worker::serve_child(|request: WorkerRequest, send: &mut dyn FnMut(WorkerProgress)| {
        test_fault("verify:stall");
        let mut last_sent = Instant::now() - Duration::from_secs(1);
        let mut report = |p: Progress| {
            let done = p.entries_done == p.entries_total && p.bytes_done == p.bytes_total;
            if done || last_sent.elapsed() >= Duration::from_millis(200) {
                last_sent = Instant::now();
                let Progress { bytes_done, bytes_total, entries_done, entries_total } = p;
                send(WorkerProgress { bytes_done, bytes_total, entries_done, entries_total });
            }
        };
        let limits = ExtractionLimits::default();
        match verify_archive(&request.archive, &request.destination, &limits, &StatvfsFreeSpace, &mut report) {
            Ok(v) => WorkerReply::Verified {
                entries: v.entries,
                extracted_bytes: v.extracted_bytes,
                tables: v.tables.len(),
                extract_ms: v.extract_ms,
                check_ms: v.check_ms,
            },
            Err(e) => WorkerReply::Failed { code: e.code().to_string() },
        }
    })?;
    Ok(matches!(reply, WorkerReply::Verified { .. }))
}

/// Debug builds only: stalls forever when `RELAY_TEST_FAULT` names this point (the deadline
/// test); compiled out of release builds.
fn test_fault(point: &str) {
    #[cfg(debug_assertions)]
    if std::env::var("RELAY_TEST_FAULT").as_deref() == Ok(point) {
        loop {
            std::thread::sleep(Duration::from_secs(60));
        }
    }
    let _ = point;
}

#[cfg(test)]
#[path = "worker_tests.rs"]
mod tests;
