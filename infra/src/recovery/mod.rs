//! The recovery launcher's IO (issue #14 item 5) on top of the pure rules in
//! `domain::updater::recovery`: the managed root `<data-home>/relay` ([`ManagedRoot`]) with its
//! retained runtimes (`runtimes/<build-id>/relay-desktop` and `marker.json`, [`marker`]), the
//! strict, bounded recovery catalog (`recovery/catalog.json`, [`catalog`]) written
//! write-then-rename only under the exclusive `recovery/lock` ([`lock`]), the settlement intent
//! written before a terminal catalog is activated (`recovery/settlement.json`, [`settlement`]),
//! the data snapshot taken before a candidate first runs and its journaled restore
//! ([`snapshot`], [`restore`]), promotion, rollback, reconciliation at start, bootstrap and
//! cleanup ([`transition`]), the desktop's hand-off entry points and the one-time install of the
//! first runtime ([`install`]), manual rollback to a retained build ([`rollback`]) and repair of a
//! retained build's executable ([`repair`]). Every path is re-resolved under its fixed parent and
//! checked with `lstat`: symbolic links, non-directories and entries of another user are refused;
//! directories are 0700, files 0600, executables 0700. It decides nothing about health (that is
//! `domain::updater::decide_probation`, driven by `relay-launcher`), starts no process, and
//! deletes nothing it cannot prove unreferenced: any state it cannot prove is an error, never a
//! wider trusted set.

pub mod catalog;
mod fsutil;
pub mod install;
pub mod lock;
pub mod marker;
pub mod repair;
pub mod restore;
pub mod rollback;
pub mod settlement;
pub mod snapshot;
pub mod transition;

use std::ffi::OsStr;
use std::io;
use std::path::{Path, PathBuf};

pub use catalog::{read_catalog, write_catalog, Candidate, Catalog, CatalogBuild, TransactionId};
pub use install::{
    install_candidate, install_first_runtime, install_seed_runtime, managed_build_of, parse_release, quarantined,
    retained_build_of, CandidateTicket,
};
pub use lock::RecoveryLock;
pub use marker::{verify_runtime, DataEpochs, RuntimeMarker, VerifiedRuntime, EXECUTABLE_NAME, MARKER_NAME};
pub use repair::{repair_runtime, repair_subject, RepairOutcome, RepairSubject};
pub use rollback::{
    apply_rollback_request, recovery_overview, request_rollback, RecoveryOverview, RollbackApplied, RollbackRequest,
};
pub use settlement::{Outcome, Settlement};
pub use snapshot::{snapshot_space_ok, DATA_ITEMS, SNAPSHOT_MARGIN_BYTES};
pub use transition::{bootstrap, check_disk, cleanup_leftovers, promote, reconcile, roll_back, Reconciled};

/// The only page opened when no validated runtime starts.
pub const RELEASES_PAGE: &str = "https://github.com/CrimsonSoul/Relay/releases";

/// Why a recovery step refused or failed. Messages name no path; every variant means "the
/// launcher cannot prove the state" and is handled by failing closed.
#[derive(Debug, thiserror::Error)]
pub enum RecoveryIoError {
    #[error("The managed root must be an absolute path without '.' or '..'.")]
    RootNotAbsolute,
    #[error("A recovery path is a symbolic link.")]
    Symlink,
    #[error("A recovery path is not of the expected type.")]
    WrongType,
    #[error("A recovery path is not owned by the current user.")]
    NotOwned,
    #[error("The recovery lock is held by another process.")]
    Locked,
    #[error("The recovery catalog is invalid ({0}).")]
    InvalidCatalog(&'static str),
    #[error("No recovery catalog exists and none can be bootstrapped.")]
    NoCatalog,
    #[error("A runtime marker is invalid ({0}).")]
    InvalidMarker(&'static str),
    #[error("A runtime does not match its marker or the catalog.")]
    RuntimeMismatch,
    #[error("The settlement intent cannot be reconciled ({0}).")]
    InvalidSettlement(&'static str),
    #[error("A data snapshot or its restore cannot be proved ({0}).")]
    InvalidSnapshot(&'static str),
    #[error("Not enough free space for a data snapshot.")]
    InsufficientSpace,
    #[error("The data directory holds a link or a special file.")]
    LinkOrSpecialFile,
    #[error("A candidate is already installed or being settled.")]
    CandidateExists,
    #[error("This release is quarantined.")]
    Quarantined,
    #[error("The staged executable does not match its expected digest.")]
    DigestMismatch,
    #[error("The data directory is in use by a running Relay server.")]
    DataInUse,
    #[error("The rollback is not possible ({0}).")]
    RollbackRefused(&'static str),
    #[error("The repair is not possible ({0}).")]
    RepairRefused(&'static str),
    /// The first install runs once: a catalog, a settlement, a restore journal or a runtime
    /// already exists.
    #[error("Relay is already installed here (a catalog, a settlement or a runtime exists).")]
    AlreadyInstalled,
    /// The first install's source is not an ELF executable.
    #[error("The runtime to install is not an ELF executable.")]
    NotExecutable,
    /// The first install's version or commit does not parse (`version` or `commit`).
    #[error("The release to install is invalid ({0}).")]
    InvalidRelease(&'static str),
    /// A filesystem step failed (`step` is the step's name, never a path).
    #[error("The recovery step {step} failed: {source}")]
    Io { step: &'static str, source: io::Error },
}

impl RecoveryIoError {
    /// A stable, machine-readable code (`snake_case`).
    pub fn code(&self) -> &'static str {
        match self {
            RecoveryIoError::RootNotAbsolute => "managed_root_not_absolute",
            RecoveryIoError::Symlink => "recovery_symlink",
            RecoveryIoError::WrongType => "recovery_wrong_type",
            RecoveryIoError::NotOwned => "recovery_not_owned",
            RecoveryIoError::Locked => "recovery_locked",
            RecoveryIoError::InvalidCatalog(_) => "catalog_invalid",
            RecoveryIoError::NoCatalog => "no_catalog",
            RecoveryIoError::InvalidMarker(_) => "marker_invalid",
            RecoveryIoError::RuntimeMismatch => "runtime_mismatch",
            RecoveryIoError::InvalidSettlement(_) => "settlement_invalid",
            RecoveryIoError::InvalidSnapshot(_) => "snapshot_invalid",
            RecoveryIoError::InsufficientSpace => "snapshot_no_space",
            RecoveryIoError::LinkOrSpecialFile => "data_link_or_special",
            RecoveryIoError::CandidateExists => "candidate_exists",
            RecoveryIoError::Quarantined => "release_quarantined",
            RecoveryIoError::DigestMismatch => "digest_mismatch",
            RecoveryIoError::DataInUse => "data_in_use",
            RecoveryIoError::RollbackRefused(_) => "rollback_refused",
            RecoveryIoError::RepairRefused(_) => "repair_refused",
            RecoveryIoError::AlreadyInstalled => "already_installed",
            RecoveryIoError::NotExecutable => "not_an_elf_executable",
            RecoveryIoError::InvalidRelease(_) => "release_invalid",
            RecoveryIoError::Io { .. } => "recovery_io",
        }
    }
}

pub(crate) fn io_step(step: &'static str) -> impl FnOnce(io::Error) -> RecoveryIoError {
    move |source| match source.raw_os_error() {
        Some(libc::ELOOP) => RecoveryIoError::Symlink,
        _ => RecoveryIoError::Io { step, source },
    }
}

/// The managed root for these environment values: `$XDG_DATA_HOME/relay` when that is an
/// absolute path, else `$HOME/.local/share/relay`; `None` without an absolute home. The same
/// resolution as the updates root (`crate::updater::updates_dir_from`), one level up.
pub fn managed_root_from(xdg_data_home: Option<&OsStr>, home: Option<&OsStr>) -> Option<PathBuf> {
    crate::updater::updates_dir_from(xdg_data_home, home).and_then(|updates| updates.parent().map(Path::to_path_buf))
}

/// The verified managed root and the fixed paths beneath it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ManagedRoot {
    path: PathBuf,
}

impl ManagedRoot {
    /// Checks every component of `path` with `lstat` (no link, each a directory), creates the
    /// missing ones 0700, requires the root, `runtimes/`, `recovery/` and `recovery/snapshots/`
    /// to be real directories of the current user (created 0700; looser modes are tightened).
    pub fn open(path: &Path) -> Result<ManagedRoot, RecoveryIoError> {
        crate::updater::staging::walk_without_links(path, true).map_err(|error| match error {
            crate::updater::StagingError::RootNotAbsolute => RecoveryIoError::RootNotAbsolute,
            crate::updater::StagingError::SymlinkInPath => RecoveryIoError::Symlink,
            crate::updater::StagingError::NotADirectory => RecoveryIoError::WrongType,
            crate::updater::StagingError::NotOwned => RecoveryIoError::NotOwned,
            other => RecoveryIoError::Io { step: "open_root", source: io::Error::other(other.to_string()) },
        })?;
        let root = ManagedRoot { path: path.to_path_buf() };
        for dir in [root.path.clone(), root.runtimes_dir(), root.recovery_dir(), root.snapshots_dir()] {
            fsutil::ensure_private_dir(&dir)?;
        }
        Ok(root)
    }

    /// Like [`ManagedRoot::open`] but creates nothing: `None` when the root or one of its fixed
    /// directories does not exist yet.
    pub fn open_existing(path: &Path) -> Result<Option<ManagedRoot>, RecoveryIoError> {
        let root = ManagedRoot { path: path.to_path_buf() };
        for dir in [root.path.clone(), root.runtimes_dir(), root.recovery_dir(), root.snapshots_dir()] {
            if !fsutil::check_private_dir(&dir)? {
                return Ok(None);
            }
        }
        ManagedRoot::open(path).map(Some)
    }

    pub fn path(&self) -> &Path {
        &self.path
    }
    pub fn runtimes_dir(&self) -> PathBuf {
        self.path.join("runtimes")
    }
    pub fn recovery_dir(&self) -> PathBuf {
        self.path.join("recovery")
    }
    pub fn snapshots_dir(&self) -> PathBuf {
        self.recovery_dir().join("snapshots")
    }
    /// `runtimes/<build-id>`; the id's grammar keeps it a direct child.
    pub fn runtime_dir(&self, build: &domain::updater::BuildId) -> PathBuf {
        self.runtimes_dir().join(build.as_str())
    }
    /// `recovery/snapshots/<transaction>`.
    pub fn snapshot_dir(&self, transaction: &TransactionId) -> PathBuf {
        self.snapshots_dir().join(transaction.as_str())
    }
    pub fn catalog_path(&self) -> PathBuf {
        self.recovery_dir().join("catalog.json")
    }
    pub fn settlement_path(&self) -> PathBuf {
        self.recovery_dir().join("settlement.json")
    }
    pub fn lock_path(&self) -> PathBuf {
        self.recovery_dir().join("lock")
    }
    /// A manual rollback waiting for the launcher (`recovery/rollback-request.json`).
    pub fn rollback_request_path(&self) -> PathBuf {
        self.recovery_dir().join("rollback-request.json")
    }
    /// The journal of an interrupted data restore (`recovery/restore.json`).
    pub fn restore_journal_path(&self) -> PathBuf {
        self.recovery_dir().join("restore.json")
    }
}

#[cfg(test)]
#[path = "mod_tests.rs"]
mod tests;

#[cfg(test)]
pub(crate) mod test_support;
