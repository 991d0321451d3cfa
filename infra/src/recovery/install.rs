//! The desktop's hand-off entry points (used by the desktop's Restart, `update_cmd::hand_off`,
//! and its updater's start, `updater_host::layout_settings`):
//! [`install_candidate`] turns a prepared, verified staged executable into the catalog's one
//! candidate, [`quarantined`] tells the updater which releases to suppress, and
//! [`managed_build_of`] is the "supported managed root" check (is this process a runtime the
//! catalog knows?). Installation holds the recovery lock throughout (waiting at most 10 s for
//! it). It re-hashes the staged file while copying it (SHA-256 must equal the prepared digest)
//! into `runtimes/.partial-<hex>/relay-desktop` (0700) and writes the marker (0600). Then,
//! against a freshly validated catalog, it refuses when a candidate or a settlement is pending,
//! the release is quarantined or the build already exists. Otherwise it activates the catalog
//! with the new candidate (fresh UUID v4 transaction, zero attempts, no snapshot) and only then
//! renames the directory to `runtimes/<build-id>`. Killed in between, the catalog names a
//! candidate whose runtime is missing: the launcher discards it (nothing ran, nothing to
//! restore) and removes the partial directory as a recognized leftover. The build id is
//! `v<major>-<minor>-<patch>-<first 8 hex of the commit>`.

use std::fs::{self, OpenOptions};
use std::io::Write;
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt, PermissionsExt};
use std::path::Path;
use std::time::Duration;

use domain::updater::{BuildId, CommitSha, QuarantineHistory, ReleaseFingerprint, Sha256Digest, Version};

use super::catalog::{read_catalog, write_catalog, Candidate, TransactionId};
use super::marker::{RuntimeMarker, EXECUTABLE_NAME, MARKER_NAME};
use super::settlement::read_settlement;
use super::{fsutil, io_step, ManagedRoot, RecoveryIoError, RecoveryLock};

/// How long an installation waits for the launcher to release the lock.
pub const INSTALL_LOCK_WAIT: Duration = Duration::from_secs(10);

/// What the desktop tells the user after installing: the candidate's build and transaction.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CandidateTicket {
    pub build: BuildId,
    pub transaction: TransactionId,
}

/// `v<major>-<minor>-<patch>-<8 hex of the commit>`.
pub fn build_id_for(version: &Version, commit: &CommitSha) -> BuildId {
    let id = format!("v{}-{}-{}-{}", version.major(), version.minor(), version.patch(), &commit.to_hex()[..8]);
    BuildId::parse(&id).expect("the format always satisfies the build id grammar")
}

/// Installs the staged executable as the candidate (see the module paragraph).
pub fn install_candidate(
    root: &ManagedRoot,
    staged_exe: &Path,
    expected_sha256: &Sha256Digest,
    version: Version,
    commit: CommitSha,
) -> Result<CandidateTicket, RecoveryIoError> {
    let release = ReleaseFingerprint { version, commit };
    let build = build_id_for(&version, &commit);
    // Held for the whole installation, so the launcher's leftover cleanup never meets the
    // partial directory while it is being written.
    let lock = RecoveryLock::acquire(root, INSTALL_LOCK_WAIT)?;
    let partial = root.runtimes_dir().join(fsutil::leftover_name(fsutil::PARTIAL_PREFIX));
    fs::DirBuilder::new().mode(0o700).create(&partial).map_err(io_step("install_mkdir"))?;
    let installed = (|| {
        let marker_bytes = copy_and_mark(staged_exe, expected_sha256, &partial, &build, &version, &commit)?;
        let mut catalog = read_catalog(root)?.ok_or(RecoveryIoError::NoCatalog)?;
        if catalog.candidate.is_some() || read_settlement(root)?.is_some() {
            return Err(RecoveryIoError::CandidateExists);
        }
        if catalog.quarantine.contains(&version, &commit) {
            return Err(RecoveryIoError::Quarantined);
        }
        if catalog.referenced_builds().contains(&&build) || fs::symlink_metadata(root.runtime_dir(&build)).is_ok() {
            return Err(RecoveryIoError::CandidateExists);
        }
        let transaction = TransactionId::fresh();
        catalog.candidate = Some(Candidate {
            build: build.clone(),
            marker_sha512: fsutil::sha512_hex(&marker_bytes),
            transaction: transaction.clone(),
            source_build: catalog.current.build.clone(),
            release,
            attempts: 0,
            snapshot: None,
        });
        write_catalog(root, &lock, &catalog)?;
        crate::fault::fault_point("recovery:install:after-catalog");
        fsutil::rename_noreplace(&partial, &root.runtime_dir(&build))?;
        Ok(CandidateTicket { build: build.clone(), transaction })
    })();
    if installed.is_err() {
        let _ = fsutil::remove_tree(&partial);
    }
    installed
}

/// Copies the staged executable into `dir` while hashing it, checks the SHA-256, and writes the
/// marker; returns the marker's bytes.
fn copy_and_mark(
    staged_exe: &Path,
    expected_sha256: &Sha256Digest,
    dir: &Path,
    build: &BuildId,
    version: &Version,
    commit: &CommitSha,
) -> Result<Vec<u8>, RecoveryIoError> {
    let source = fsutil::open_regular(staged_exe)?.ok_or(RecoveryIoError::DigestMismatch)?;
    let mut target = OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o700)
        .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC)
        .open(dir.join(EXECUTABLE_NAME))
        .map_err(io_step("install_create"))?;
    target.set_permissions(fs::Permissions::from_mode(0o700)).map_err(io_step("install_chmod"))?;
    let (sha256, sha512, _) = fsutil::hash_copy(source, Some(&mut target)).map_err(io_step("install_copy"))?;
    if &sha256 != expected_sha256.as_bytes() {
        return Err(RecoveryIoError::DigestMismatch);
    }
    target.sync_all().map_err(io_step("install_sync"))?;
    let marker = RuntimeMarker::new(build, version, commit, &sha512).to_json();
    let mut file = OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC)
        .open(dir.join(MARKER_NAME))
        .map_err(io_step("install_marker"))?;
    file.set_permissions(fs::Permissions::from_mode(0o600)).map_err(io_step("install_chmod"))?;
    file.write_all(&marker).and_then(|_| file.sync_all()).map_err(io_step("install_marker"))?;
    crate::datadir::sync_dir(dir).map_err(io_step("install_sync"))?;
    Ok(marker)
}

/// The quarantined releases of the catalog (empty when there is no catalog yet; an invalid
/// catalog is an error, so the caller treats every release as not installable).
pub fn quarantined(root: &ManagedRoot) -> Result<QuarantineHistory, RecoveryIoError> {
    Ok(read_catalog(root)?.map(|catalog| catalog.quarantine).unwrap_or_default())
}

/// The build this process runs as, when `current_exe` is exactly
/// `<root>/runtimes/<build-id>/relay-desktop` (checked with `lstat`, no link anywhere under the
/// root) and the valid catalog references that build as current or candidate; `None` otherwise
/// (an unmanaged or unsupported install: the updater then offers no installation).
pub fn managed_build_of(root_path: &Path, current_exe: &Path) -> Result<Option<BuildId>, RecoveryIoError> {
    let Some(root) = ManagedRoot::open_existing(root_path)? else { return Ok(None) };
    let Ok(relative) = current_exe.strip_prefix(root.runtimes_dir()) else { return Ok(None) };
    let parts: Vec<_> = relative.components().collect();
    let [std::path::Component::Normal(dir), std::path::Component::Normal(file)] = parts.as_slice() else {
        return Ok(None);
    };
    let Some(build) = dir.to_str().and_then(|d| BuildId::parse(d).ok()) else { return Ok(None) };
    if *file != EXECUTABLE_NAME || !fsutil::check_private_dir(&root.runtime_dir(&build))? {
        return Ok(None);
    }
    if fsutil::open_regular(current_exe)?.is_none() {
        return Ok(None);
    }
    let Some(catalog) = read_catalog(&root)? else { return Ok(None) };
    let managed = catalog.current.build == build || catalog.candidate.as_ref().is_some_and(|c| c.build == build);
    Ok(managed.then_some(build))
}

#[cfg(test)]
#[path = "install_tests.rs"]
mod tests;
