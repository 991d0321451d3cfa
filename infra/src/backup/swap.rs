//! The journaled swap of the live store directory (`DATA/store`) on the real filesystem: it
//! carries out the `domain::backup::journal` steps. [`install`] checks everything first (no
//! journal yet, the stage a real directory directly inside the real data directory holding
//! `relay.db`, both trees free of links and special files and at most 250,000 entries), drops
//! the archive's `manifest.json` from the stage, fsyncs the stage tree, then writes the journal
//! (0600, atomic, fsynced) and renames store -> original and stage -> store, each rename followed
//! by a directory fsync; any failure is undone at once. [`PendingRestore::commit`] rewrites the
//! journal committed and cleans up; [`PendingRestore::rollback`] puts the original back and is
//! refused after commit. [`recover_at_start`] runs before the store opens: no journal, nothing;
//! otherwise the journal is read strictly (no link), the paths are observed with `lstat`, and the
//! domain's plan is carried out; it is idempotent, and a malformed, unsafe or ambiguous state is
//! a typed error that touches nothing. After a recovery (or with no journal) it also removes
//! stage directories an interrupted verification or install left (no server runs yet). Every step passes debug-only [`fault_point`]s
//! (`restore:before:<Step>`, `restore:after:<Step>`, `restore:commit:...`, `restore:recover:...`)
//! so tests can kill the process at each one. It never follows a link and never deletes anything
//! but the store, the stage, the original and the journal that the domain names.
//!
//! [`fault_point`]: crate::fault::fault_point

use std::fs;
use std::io::{self, Read};
use std::path::{Path, PathBuf};

use domain::backup::journal::{
    commit_steps, install_steps, original_dir_name, plan_recovery, plan_rollback, JournalError, ObservedRestore,
    PathState, PreservedDir, RestoreJournal, SwapStep, JOURNAL_FILE_NAME, MAX_JOURNAL_BYTES,
};
use domain::backup::manifest::{DATABASE_PATH, MANIFEST_PATH};

use crate::datadir::{sync_dir, write_private_file, STORE_DIR};

/// The most entries (files and directories) a store tree may hold to be swapped.
pub const MAX_TREE_ENTRIES: usize = 250_000;

#[derive(Debug, thiserror::Error)]
pub enum SwapError {
    #[error("Another backup restore needs recovery")]
    RecoveryPending,
    #[error("the data directory must be an absolute, real directory")]
    UnsafeDataRoot,
    #[error("the restore stage must be a real directory directly inside the data directory")]
    UnsafeStage,
    #[error("the live store must be a real directory")]
    UnsafeLive,
    #[error("the restore stage holds no database")]
    StageWithoutDatabase,
    #[error("a store tree holds a link or a special file")]
    LinkOrSpecialFile,
    #[error("a store tree holds more than 250,000 entries")]
    TooManyEntries,
    #[error("the restore journal is a link or not a regular file; recovery requires an administrator")]
    UnsafeJournal,
    #[error(transparent)]
    Journal(#[from] JournalError),
    /// A filesystem step failed (`step` is the step's name, never a path).
    #[error("the restore step {step} failed: {source}")]
    Io { step: String, source: io::Error },
    #[error("the restore failed at {step} and its undo did not finish; the next start recovers it")]
    UndoFailed { step: String },
    #[error("this restore was already committed")]
    AlreadyCommitted,
}

impl SwapError {
    /// Stable code for logs and the actor's error mapping.
    pub fn code(&self) -> &'static str {
        match self {
            SwapError::RecoveryPending => "recovery_pending",
            SwapError::UnsafeDataRoot => "unsafe_data_root",
            SwapError::UnsafeStage => "unsafe_stage",
            SwapError::UnsafeLive => "unsafe_live",
            SwapError::StageWithoutDatabase => "stage_without_database",
            SwapError::LinkOrSpecialFile => "link_or_special_file",
            SwapError::TooManyEntries => "too_many_entries",
            SwapError::UnsafeJournal => "unsafe_journal",
            SwapError::Journal(JournalError::Malformed) => "journal_malformed",
            SwapError::Journal(JournalError::UnsafePath) => "journal_unsafe_path",
            SwapError::Journal(JournalError::UnsafeEntry) => "journal_unsafe_entry",
            SwapError::Journal(JournalError::Ambiguous) => "journal_ambiguous",
            SwapError::Journal(JournalError::AlreadyCommitted) | SwapError::AlreadyCommitted => "already_committed",
            SwapError::Io { .. } => "io",
            SwapError::UndoFailed { .. } => "undo_failed",
        }
    }
}

/// What a cold start did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RecoveryOutcome {
    /// No journal: nothing to do.
    Nothing,
    /// An uncommitted swap was rolled back: the original store is live again.
    RolledBack,
    /// A committed swap had its cleanup finished: the restored store stays live.
    FinishedCommit,
}

/// How a commit ended; the restored store is live either way.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CommitOutcome {
    Finished,
    /// The journal says committed but removing the original failed; the next start finishes it.
    CleanupDeferred,
}

/// Where a step runs; part of its fault point's name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    Install,
    Commit,
    Recover,
}

/// Called before and after every step with the fault point's name; an error fails the step.
/// The real one is [`crate::fault::fault_point`]; tests inject failures and interruptions.
type Faults<'a> = &'a dyn Fn(&str) -> io::Result<()>;

fn real_faults(name: &str) -> io::Result<()> {
    crate::fault::fault_point(name);
    Ok(())
}

/// The stable name of a step (no path): `RenameLiveToOriginal`, `MovePreservedToLive-backups`...
pub fn step_name(step: SwapStep) -> String {
    match step {
        SwapStep::MovePreservedToLive(p) => format!("MovePreservedToLive-{}", p.dir_name()),
        SwapStep::MovePreservedToOriginal(p) => format!("MovePreservedToOriginal-{}", p.dir_name()),
        SwapStep::WriteJournal { .. } => "WriteJournal".into(),
        other => format!("{other:?}"),
    }
}

/// The fault point names of the steps run in `phase`, before and after each.
fn fault_name(phase: Phase, when: &str, step: SwapStep) -> String {
    let phase = match phase {
        Phase::Install => "",
        Phase::Commit => "commit:",
        Phase::Recover => "recover:",
    };
    format!("restore:{phase}{when}:{}", step_name(step))
}

/// The fault points an install and its commit pass, in order (for kill tests).
pub fn install_and_commit_fault_points() -> Vec<String> {
    let journal =
        RestoreJournal::new(".relay-backup-verify-0000000000000000", ".relay-backup-original-0000000000000000", &[])
            .expect("a valid journal");
    let mut names = Vec::new();
    for (phase, steps) in [(Phase::Install, install_steps(&journal)), (Phase::Commit, commit_steps())] {
        for step in steps {
            names.push(fault_name(phase, "before", step));
            names.push(fault_name(phase, "after", step));
        }
    }
    names
}

/// The journal's paths in one data directory.
struct Layout<'a> {
    root: &'a Path,
    journal: &'a RestoreJournal,
}

impl Layout<'_> {
    fn live(&self) -> PathBuf {
        self.root.join(STORE_DIR)
    }
    fn original(&self) -> PathBuf {
        self.root.join(&self.journal.original)
    }
    fn stage(&self) -> PathBuf {
        self.root.join(&self.journal.stage)
    }
    fn journal_path(&self) -> PathBuf {
        self.root.join(JOURNAL_FILE_NAME)
    }

    fn sync_root(&self) -> io::Result<()> {
        sync_dir(self.root)
    }

    /// Carries out one step, durably (every rename and removal is followed by a directory fsync).
    fn apply(&self, step: SwapStep) -> io::Result<()> {
        match step {
            SwapStep::WriteJournal { committed } => {
                let journal = if committed { self.journal.committed() } else { self.journal.clone() };
                write_private_file(&self.journal_path(), &journal.to_json()).map_err(io::Error::other)?;
                self.sync_root()
            }
            SwapStep::RenameLiveToOriginal => self.rename(&self.live(), &self.original()),
            SwapStep::RenameStageToLive => self.rename(&self.stage(), &self.live()),
            SwapStep::RenameOriginalToLive => self.rename(&self.original(), &self.live()),
            SwapStep::MovePreservedToLive(p) => self.move_preserved(&self.original(), &self.live(), p),
            SwapStep::MovePreservedToOriginal(p) => self.move_preserved(&self.live(), &self.original(), p),
            SwapStep::RemoveLive => self.remove_dir(&self.live()),
            SwapStep::RemoveOriginal => self.remove_dir(&self.original()),
            SwapStep::RemoveStage => self.remove_dir(&self.stage()),
            SwapStep::RemoveJournal => {
                match fs::remove_file(self.journal_path()) {
                    Err(e) if e.kind() != io::ErrorKind::NotFound => return Err(e),
                    _ => {}
                }
                self.sync_root()
            }
        }
    }

    fn rename(&self, from: &Path, to: &Path) -> io::Result<()> {
        rename_noreplace(from, to)?;
        self.sync_root()
    }

    fn move_preserved(&self, from_dir: &Path, to_dir: &Path, dir: PreservedDir) -> io::Result<()> {
        rename_noreplace(&from_dir.join(dir.dir_name()), &to_dir.join(dir.dir_name()))?;
        sync_dir(from_dir)?;
        sync_dir(to_dir)
    }

    /// Removes a directory tree (links inside are removed, never followed); absent is fine.
    fn remove_dir(&self, dir: &Path) -> io::Result<()> {
        match fs::symlink_metadata(dir) {
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(()),
            Err(e) => return Err(e),
            Ok(meta) if !meta.file_type().is_dir() => {
                return Err(io::Error::new(io::ErrorKind::InvalidInput, "not a real directory"))
            }
            Ok(_) => {}
        }
        fs::remove_dir_all(dir)?;
        self.sync_root()
    }

    /// Runs `steps` in order, each between its fault points; stops at the first failure.
    fn run(&self, phase: Phase, steps: &[SwapStep], faults: Faults<'_>) -> Result<(), (SwapStep, io::Error)> {
        for &step in steps {
            faults(&fault_name(phase, "before", step)).map_err(|e| (step, e))?;
            self.apply(step).map_err(|e| (step, e))?;
            faults(&fault_name(phase, "after", step)).map_err(|e| (step, e))?;
        }
        Ok(())
    }

    /// What is on disk for the journal's paths (`lstat`, no link followed).
    fn observe(&self) -> Result<ObservedRestore, SwapError> {
        let (live, original) = (self.live(), self.original());
        let inside = |dir: &Path, state: PathState| -> Result<Vec<PreservedDir>, SwapError> {
            let mut present = Vec::new();
            if state != PathState::Directory {
                return Ok(present);
            }
            for p in PreservedDir::ALL {
                match path_state(&dir.join(p.dir_name()))? {
                    PathState::Directory => present.push(p),
                    PathState::Absent => {}
                    PathState::Unsafe => return Err(JournalError::UnsafeEntry.into()),
                }
            }
            Ok(present)
        };
        let (live_state, original_state) = (path_state(&live)?, path_state(&original)?);
        Ok(ObservedRestore {
            live: live_state,
            original: original_state,
            stage: path_state(&self.stage())?,
            preserved_in_live: inside(&live, live_state)?,
            preserved_in_original: inside(&original, original_state)?,
        })
    }
}

fn io_error(step: &str) -> impl FnOnce(io::Error) -> SwapError + '_ {
    move |source| SwapError::Io { step: step.to_string(), source }
}

fn path_state(path: &Path) -> Result<PathState, SwapError> {
    match fs::symlink_metadata(path) {
        Ok(meta) if meta.file_type().is_dir() => Ok(PathState::Directory),
        Ok(_) => Ok(PathState::Unsafe),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(PathState::Absent),
        Err(e) => Err(io_error("observe")(e)),
    }
}

/// `rename(2)` that never replaces what is at `to` (`RENAME_NOREPLACE`; where the filesystem
/// lacks it, an `lstat` check first: the data directory has one writer at a time).
fn rename_noreplace(from: &Path, to: &Path) -> io::Result<()> {
    use std::os::unix::ffi::OsStrExt;
    let c = |p: &Path| {
        std::ffi::CString::new(p.as_os_str().as_bytes())
            .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "path contains NUL"))
    };
    let (from_c, to_c) = (c(from)?, c(to)?);
    // SAFETY: both are valid NUL-terminated paths; AT_FDCWD resolves them as given.
    let rc = unsafe {
        libc::renameat2(libc::AT_FDCWD, from_c.as_ptr(), libc::AT_FDCWD, to_c.as_ptr(), libc::RENAME_NOREPLACE)
    };
    if rc == 0 {
        return Ok(());
    }
    let error = io::Error::last_os_error();
    if !matches!(error.raw_os_error(), Some(libc::EINVAL) | Some(libc::ENOSYS)) {
        return Err(error);
    }
    if fs::symlink_metadata(to).is_ok() {
        return Err(io::Error::from(io::ErrorKind::AlreadyExists));
    }
    fs::rename(from, to)
}

/// Counts a tree's entries, refusing links and special files (`lstat`, no link followed) and
/// more than `max` entries.
fn inspect_tree(dir: &Path, max: usize) -> Result<usize, SwapError> {
    let mut count = 0usize;
    let mut pending = vec![dir.to_path_buf()];
    while let Some(next) = pending.pop() {
        for entry in fs::read_dir(&next).map_err(io_error("inspect"))? {
            let entry = entry.map_err(io_error("inspect"))?;
            let kind = entry.file_type().map_err(io_error("inspect"))?;
            count += 1;
            if count > max {
                return Err(SwapError::TooManyEntries);
            }
            if kind.is_dir() {
                pending.push(entry.path());
            } else if !kind.is_file() {
                return Err(SwapError::LinkOrSpecialFile);
            }
        }
    }
    Ok(count)
}

/// fsyncs every file and directory of a tree (already inspected: no links).
fn sync_tree(dir: &Path) -> io::Result<()> {
    for entry in fs::read_dir(dir)? {
        let entry = entry?;
        if entry.file_type()?.is_dir() {
            sync_tree(&entry.path())?;
        } else {
            fs::File::open(entry.path())?.sync_all()?;
        }
    }
    sync_dir(dir)
}

/// Reads the journal strictly: a regular file (no link), at most 4096 bytes, exact keys.
/// `None` when there is none.
pub fn read_journal(data_root: &Path) -> Result<Option<RestoreJournal>, SwapError> {
    use std::os::unix::fs::OpenOptionsExt;
    let path = data_root.join(JOURNAL_FILE_NAME);
    match fs::symlink_metadata(&path) {
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(io_error("read journal")(e)),
        Ok(meta) if !meta.file_type().is_file() => return Err(SwapError::UnsafeJournal),
        Ok(_) => {}
    }
    let file = fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW)
        .open(&path)
        .map_err(|_| SwapError::UnsafeJournal)?;
    let mut bytes = Vec::new();
    file.take(MAX_JOURNAL_BYTES as u64 + 1).read_to_end(&mut bytes).map_err(io_error("read journal"))?;
    Ok(Some(RestoreJournal::parse(&bytes)?))
}

/// A swap installed and not yet committed: the restored store is live, the original is kept
/// beside it under the journal. Reopen and health-check the store, then [`commit`] or
/// [`rollback`]. Dropping it does nothing: the next start rolls the swap back.
///
/// [`commit`]: PendingRestore::commit
/// [`rollback`]: PendingRestore::rollback
#[derive(Debug)]
pub struct PendingRestore {
    root: PathBuf,
    journal: RestoreJournal,
    committed: bool,
}

/// Installs the verified extraction `stage_dir_name` (a `.relay-backup-verify-*` directory
/// directly inside `data_root`) as the live store. The server must have closed the store.
pub fn install(data_root: &Path, stage_dir_name: &str) -> Result<PendingRestore, SwapError> {
    install_with(data_root, stage_dir_name, &[], &real_faults)
}

fn random_suffix() -> String {
    crate::ids::random_bytes(16).iter().map(|b| format!("{b:02x}")).collect()
}

fn install_with(
    data_root: &Path,
    stage_dir_name: &str,
    preserved: &[PreservedDir],
    faults: Faults<'_>,
) -> Result<PendingRestore, SwapError> {
    if !data_root.is_absolute() || fs::canonicalize(data_root).ok().as_deref() != Some(data_root) {
        return Err(SwapError::UnsafeDataRoot);
    }
    if path_state(data_root)? != PathState::Directory {
        return Err(SwapError::UnsafeDataRoot);
    }
    if fs::symlink_metadata(data_root.join(JOURNAL_FILE_NAME)).is_ok() {
        return Err(SwapError::RecoveryPending);
    }
    if path_state(&data_root.join(STORE_DIR))? != PathState::Directory {
        return Err(SwapError::UnsafeLive);
    }
    // Only preserved directories the live store has move; a file or link in their place is refused.
    let mut kept = Vec::new();
    for p in preserved {
        match path_state(&data_root.join(STORE_DIR).join(p.dir_name()))? {
            PathState::Directory => kept.push(*p),
            PathState::Absent => {}
            PathState::Unsafe => return Err(SwapError::LinkOrSpecialFile),
        }
    }
    let original = original_dir_name(&random_suffix())?;
    let journal = RestoreJournal::new(stage_dir_name, &original, &kept).map_err(|_| SwapError::UnsafeStage)?;
    let layout = Layout { root: data_root, journal: &journal };
    if path_state(&layout.stage())? != PathState::Directory {
        return Err(SwapError::UnsafeStage);
    }
    if path_state(&layout.original())? != PathState::Absent {
        return Err(SwapError::UnsafeStage);
    }
    match fs::symlink_metadata(layout.stage().join(DATABASE_PATH)) {
        Ok(meta) if meta.file_type().is_file() => {}
        _ => return Err(SwapError::StageWithoutDatabase),
    }
    inspect_tree(&layout.live(), MAX_TREE_ENTRIES)?;
    inspect_tree(&layout.stage(), MAX_TREE_ENTRIES)?;
    // The manifest belongs to the archive, and preserved directories come from the live store.
    match fs::remove_file(layout.stage().join(MANIFEST_PATH)) {
        Err(e) if e.kind() != io::ErrorKind::NotFound => return Err(io_error("prepare stage")(e)),
        _ => {}
    }
    for p in preserved {
        layout.remove_dir(&layout.stage().join(p.dir_name())).map_err(io_error("prepare stage"))?;
    }
    sync_tree(&layout.stage()).map_err(io_error("sync stage"))?;

    if let Err((step, error)) = layout.run(Phase::Install, &install_steps(&journal), faults) {
        let step = step_name(step);
        tracing::warn!(step = %step, %error, "restore install failed; putting the original store back");
        let pending = PendingRestore { root: data_root.to_path_buf(), journal: journal.clone(), committed: false };
        return Err(match pending.undo(faults) {
            Ok(()) => SwapError::Io { step, source: error },
            Err(undo) => {
                tracing::error!(error = %undo, "undoing the restore failed; the next start recovers it");
                SwapError::UndoFailed { step }
            }
        });
    }
    tracing::info!("restore installed; the original store is kept until commit");
    Ok(PendingRestore { root: data_root.to_path_buf(), journal, committed: false })
}

impl PendingRestore {
    /// `DATA/store`, now holding the restored store.
    pub fn store_dir(&self) -> PathBuf {
        self.root.join(STORE_DIR)
    }

    /// The journal this swap runs under.
    pub fn journal(&self) -> &RestoreJournal {
        &self.journal
    }

    /// Commits once the restored store served reads: the journal is rewritten committed, then
    /// the original and the journal are removed. An error means the journal does not read
    /// committed: the swap is still pending and [`rollback`](Self::rollback) puts the original
    /// back.
    pub fn commit(&mut self) -> Result<CommitOutcome, SwapError> {
        self.commit_with(&real_faults)
    }

    fn commit_with(&mut self, faults: Faults<'_>) -> Result<CommitOutcome, SwapError> {
        if self.committed {
            return Err(SwapError::AlreadyCommitted);
        }
        let layout = Layout { root: &self.root, journal: &self.journal };
        let steps = commit_steps();
        let (marker, cleanup) = steps.split_at(1);
        if let Err((step, error)) = layout.run(Phase::Commit, marker, faults) {
            // The rename may have landed before a later sync failed: what the journal says wins.
            match read_journal(&self.root) {
                Ok(Some(journal)) if journal.committed && journal.original == self.journal.original => {
                    tracing::warn!(%error, "syncing the committed restore journal failed; it reads committed");
                }
                _ => return Err(SwapError::Io { step: step_name(step), source: error }),
            }
        }
        self.committed = true;
        if let Err((step, error)) = layout.run(Phase::Commit, cleanup, faults) {
            tracing::warn!(step = %step_name(step), %error, "restore committed; cleanup is finished at the next start");
            return Ok(CommitOutcome::CleanupDeferred);
        }
        tracing::info!("restore committed");
        Ok(CommitOutcome::Finished)
    }

    /// Puts the original store back (the restored one failed to start). Refused after commit.
    pub fn rollback(self) -> Result<(), SwapError> {
        self.rollback_with(&real_faults)
    }

    fn rollback_with(self, faults: Faults<'_>) -> Result<(), SwapError> {
        if self.committed {
            return Err(SwapError::AlreadyCommitted);
        }
        self.undo(faults)?;
        tracing::info!("restore rolled back; the original store is live again");
        Ok(())
    }

    /// The journal on disk wins over the one in memory (it may say committed).
    fn undo(&self, faults: Faults<'_>) -> Result<(), SwapError> {
        let journal = match read_journal(&self.root)? {
            Some(on_disk) if on_disk.original == self.journal.original => on_disk,
            Some(_) => return Err(JournalError::Ambiguous.into()),
            None => self.journal.clone(),
        };
        let layout = Layout { root: &self.root, journal: &journal };
        let plan = plan_rollback(&journal, &layout.observe()?)?;
        layout
            .run(Phase::Recover, &plan, faults)
            .map_err(|(step, source)| SwapError::Io { step: step_name(step), source })
    }
}

/// Cold start, before the store opens: finishes or undoes an interrupted swap (see the module
/// doc). Run it again after any failure or crash: it converges. On error nothing was touched
/// beyond the steps already done, the journal stays, and the store must not be opened.
pub fn recover_at_start(data_root: &Path) -> Result<RecoveryOutcome, SwapError> {
    recover_with(data_root, &real_faults)
}

fn recover_with(data_root: &Path, faults: Faults<'_>) -> Result<RecoveryOutcome, SwapError> {
    let Some(journal) = read_journal(data_root)? else {
        remove_orphan_stages(data_root)?;
        return Ok(RecoveryOutcome::Nothing);
    };
    let layout = Layout { root: data_root, journal: &journal };
    let plan = plan_recovery(&journal, &layout.observe()?)?;
    layout
        .run(Phase::Recover, &plan, faults)
        .map_err(|(step, source)| SwapError::Io { step: step_name(step), source })?;
    remove_orphan_stages(data_root)?;
    if journal.committed {
        tracing::info!(steps = plan.len(), "finished the cleanup of a committed backup restore");
        Ok(RecoveryOutcome::FinishedCommit)
    } else {
        tracing::warn!(steps = plan.len(), "rolled back an interrupted backup restore; the original store is live");
        Ok(RecoveryOutcome::RolledBack)
    }
}

/// The temporary file a journal write uses before its rename (`crate::datadir::write_private_file`).
const JOURNAL_TEMP_PREFIX: &str = ".relay-backup-restore.tmp-";

/// Removes `.relay-backup-verify-*` directories (real directories with names Relay generates;
/// links are left alone) and journal temp files that an interrupted verification, install or
/// journal write left behind.
/// Only at cold start, with no journal left: no server and so no worker uses them.
fn remove_orphan_stages(data_root: &Path) -> Result<usize, SwapError> {
    let mut removed = 0;
    for entry in fs::read_dir(data_root).map_err(io_error("sweep stages"))? {
        let entry = entry.map_err(io_error("sweep stages"))?;
        let name = entry.file_name();
        let name = name.to_str().unwrap_or_default();
        let kind = entry.file_type().map_err(io_error("sweep stages"))?;
        if kind.is_dir() && domain::backup::journal::is_stage_dir_name(name) {
            fs::remove_dir_all(entry.path()).map_err(io_error("sweep stages"))?;
            removed += 1;
        } else if kind.is_file() && name.starts_with(JOURNAL_TEMP_PREFIX) {
            fs::remove_file(entry.path()).map_err(io_error("sweep stages"))?;
            removed += 1;
        }
    }
    if removed > 0 {
        sync_dir(data_root).map_err(io_error("sweep stages"))?;
        tracing::info!(removed, "removed backup stage directories an interrupted run left");
    }
    Ok(removed)
}

#[cfg(test)]
#[path = "swap_tests.rs"]
mod tests;
