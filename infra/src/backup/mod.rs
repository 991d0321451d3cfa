//! Backup IO (issue #12) on top of the pure rules in `domain::backup`: a consistent snapshot of
//! the live store taken while it serves ([`snapshot`]), the archive writer that turns the
//! snapshot and other authoritative files into `DATA/backups/NAME.zip` with a manifest
//! ([`writer`]), the disposable-restore verifier the worker process runs ([`verifier`]), and
//! the files around them ([`files`]: listing our archives, their fingerprints, the health file),
//! and the journaled swap of the live store directory `DATA/store` with its cold-start recovery
//! ([`swap`]).
//! Nothing here keeps state, schedules, or decides retention; the backup actor does, and it
//! calls these blocking functions off its thread.
//!
//! The flow the actor builds from them:
//! 1. At start: `files::load_health` (fail closed; interrupted attempts become failures, so
//!    save it again) and `files::remove_stale_parts`; `files::save_health` after every change.
//! 2. create: preflight with `files::live_data_bytes` and
//!    `domain::backup::entries::preflight_required_bytes` against `verifier::StatvfsFreeSpace`;
//!    `writer::write_archive(conn, &request, &mut progress)` with a reader connection from the
//!    pool; then `files::fingerprint` of the result for the health file.
//! 3. verify (in the worker process, [`worker`]): `worker::verify_in_worker` creates the fresh
//!    private directory, runs `verifier::verify_archive` in the child and deletes the directory
//!    after the worker exits (or keeps it as a restore stage).
//! 4. prune: `files::list_archives` → `domain::backup::retention::select_for_pruning`.
//! 5. restore: verify the source into a stage directory and a fresh pre-restore archive, stop
//!    writers and close the pool, `swap::install(data_root, stage_name)`, reopen the store and
//!    check it serves reads, then `PendingRestore::commit` (or `rollback` and reopen the
//!    original). A cold start runs `swap::recover_at_start` before the store opens
//!    (`actors::system::start_from_data_dir` does).

pub mod files;
pub mod snapshot;
pub mod swap;
pub mod verifier;
pub mod worker;
pub mod writer;

/// Counters the actor shows as a progress bar while an archive is written or verified.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Progress {
    pub bytes_done: u64,
    pub bytes_total: u64,
    pub entries_done: usize,
    pub entries_total: usize,
}

/// Receives [`Progress`] reports (after every entry and every few MiB). Any `FnMut(Progress)`
/// is one.
pub trait ProgressSink {
    fn report(&mut self, progress: Progress);
}

impl<F: FnMut(Progress)> ProgressSink for F {
    fn report(&mut self, progress: Progress) {
        self(progress)
    }
}

/// The debug-only fault points ([`crate::fault`]) of a create and its verification, in the
/// order a create passes them (the crash tests kill the server at each; the restore's swap has
/// its own, `swap::install_and_commit_fault_points`).
pub const CREATE_FAULT_POINTS: [&str; 8] = [
    "backup:create:after:BeginAttempt",
    "backup:create:after:Snapshot",
    "backup:create:before:Rename",
    "backup:create:after:Rename",
    "backup:create:after:RecordCreated",
    "backup:verify:during:Extraction",
    "backup:create:before:RecordVerified",
    "backup:create:after:Prune",
];

/// How often (in bytes) a long entry reports progress.
pub(crate) const PROGRESS_STEP_BYTES: u64 = 8 * 1024 * 1024;

/// The size of each read and write of the archive writer and the verifier. A background
/// (idle-class) task inside a system call is not preempted on kernels that run without
/// preemption (`preempt=none`, as on the reference machine) until the call returns, however
/// urgent the request thread that woke on its CPU: with 1 MiB calls a request waited up to 3 ms
/// behind the verifier while the other core sat idle (`perf sched timehist`). A 64 KiB call
/// takes tens of microseconds, and costs little throughput on page-cache IO.
pub(crate) const IO_CHUNK_BYTES: usize = 64 * 1024;

/// Whether an IO error means the disk is full (the operator sees "Not enough disk space").
pub(crate) fn is_no_space(error: &std::io::Error) -> bool {
    error.raw_os_error() == Some(libc::ENOSPC) || error.kind() == std::io::ErrorKind::StorageFull
}

#[cfg(test)]
mod test_support;
