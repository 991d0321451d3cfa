//! The desktop's hand-off entry points (used by the desktop's Restart, `update_cmd::hand_off`,
//! and its updater's start, `updater_host::layout_settings`), and the one-time install of the
//! first runtime (`relay-launcher install`):
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
//!
//! [`install_first_runtime`] creates the runtime the launcher's `bootstrap` adopts: on a root
//! with no catalog, settlement, restore journal or runtime (recognized `.partial-*`/`.trash-*`
//! leftovers of an interrupted install are removed; anything else is
//! [`RecoveryIoError::AlreadyInstalled`]), from a source opened once with `O_NOFOLLOW` that must
//! be a regular file starting with the ELF magic, it copies and hashes the bytes (SHA-512 into
//! the marker) into `runtimes/.partial-<hex>/` with the same code as a candidate, fsyncs, and
//! renames the directory to `runtimes/<build-id>` last. Killed before that rename, only a
//! recognized leftover exists (a run finds no runtime and fails closed; the next install removes
//! it); after it, the runtime is complete. Fault points: `recovery:first-install:after-mkdir`,
//! `:after-copy`, `:before-rename`, `:after-rename`. [`install_seed_runtime`] is the same install
//! of the `relay-desktop` package's seed build, whose copied bytes must also match the SHA-256 of
//! the seed's manifest (else nothing is installed).

use std::fs::{self, File, OpenOptions};
use std::io::{self, Read, Seek, SeekFrom, Write};
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
        let source = fsutil::open_regular(staged_exe)?.ok_or(RecoveryIoError::DigestMismatch)?;
        let marker_bytes =
            copy_and_mark(source, Some(expected_sha256), &partial, &build, &version, &commit, "recovery:install")?;
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

/// Checks the first install's version (`MAJOR.MINOR.PATCH`) and commit (40 lowercase hex).
pub fn parse_release(version: &str, commit: &str) -> Result<(Version, CommitSha), RecoveryIoError> {
    let version = Version::parse(version).map_err(|_| RecoveryIoError::InvalidRelease("version"))?;
    let commit = CommitSha::parse_hex(commit).ok_or(RecoveryIoError::InvalidRelease("commit"))?;
    Ok((version, commit))
}

/// Installs `source` as the first runtime under the held lock (see the module paragraph);
/// returns its build.
pub fn install_first_runtime(
    root: &ManagedRoot,
    lock: &RecoveryLock,
    source: &Path,
    version: Version,
    commit: CommitSha,
) -> Result<BuildId, RecoveryIoError> {
    first_install(root, lock, source, version, commit, None)
}

/// [`install_first_runtime`] of a packaged seed (`relay-launcher`'s first start from the
/// `relay-desktop` package): the bytes copied must also hash to `expected_sha256` (the seed's
/// manifest), else [`RecoveryIoError::DigestMismatch`] and nothing is installed.
pub fn install_seed_runtime(
    root: &ManagedRoot,
    lock: &RecoveryLock,
    source: &Path,
    expected_sha256: &Sha256Digest,
    version: Version,
    commit: CommitSha,
) -> Result<BuildId, RecoveryIoError> {
    first_install(root, lock, source, version, commit, Some(expected_sha256))
}

fn first_install(
    root: &ManagedRoot,
    _lock: &RecoveryLock,
    source: &Path,
    version: Version,
    commit: CommitSha,
    expected_sha256: Option<&Sha256Digest>,
) -> Result<BuildId, RecoveryIoError> {
    let build = build_id_for(&version, &commit);
    for path in [root.catalog_path(), root.settlement_path(), root.restore_journal_path()] {
        match fs::symlink_metadata(&path) {
            Err(error) if error.kind() == io::ErrorKind::NotFound => {}
            Err(error) => return Err(io_step("stat_state")(error)),
            Ok(_) => return Err(RecoveryIoError::AlreadyInstalled),
        }
    }
    let mut leftovers = Vec::new();
    for entry in fs::read_dir(root.runtimes_dir()).map_err(io_step("list_runtimes"))? {
        let entry = entry.map_err(io_step("list_runtimes"))?;
        if !entry.file_name().to_str().is_some_and(fsutil::is_leftover) {
            return Err(RecoveryIoError::AlreadyInstalled);
        }
        leftovers.push(entry.path());
    }
    let source = open_elf(source)?;
    for leftover in leftovers {
        fsutil::remove_tree(&leftover)?;
    }
    let partial = root.runtimes_dir().join(fsutil::leftover_name(fsutil::PARTIAL_PREFIX));
    fs::DirBuilder::new().mode(0o700).create(&partial).map_err(io_step("install_mkdir"))?;
    fsutil::sync_parent(&partial)?;
    crate::fault::fault_point("recovery:first-install:after-mkdir");
    let installed = (|| {
        copy_and_mark(source, expected_sha256, &partial, &build, &version, &commit, "recovery:first-install")?;
        crate::fault::fault_point("recovery:first-install:before-rename");
        fsutil::rename_noreplace(&partial, &root.runtime_dir(&build))?;
        crate::fault::fault_point("recovery:first-install:after-rename");
        Ok(build.clone())
    })();
    if installed.is_err() {
        let _ = fsutil::remove_tree(&partial);
    }
    installed
}

/// Opens the first install's source once, without following a link (`O_NONBLOCK`, so a FIFO
/// cannot block the open): a regular file that starts with the ELF magic, rewound.
fn open_elf(path: &Path) -> Result<File, RecoveryIoError> {
    let mut file = OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC | libc::O_NONBLOCK)
        .open(path)
        .map_err(io_step("open_source"))?;
    if !file.metadata().map_err(io_step("stat_source"))?.is_file() {
        return Err(RecoveryIoError::WrongType);
    }
    let mut magic = [0u8; 4];
    match file.read_exact(&mut magic) {
        Ok(()) if &magic == b"\x7fELF" => {}
        Ok(()) => return Err(RecoveryIoError::NotExecutable),
        Err(error) if error.kind() == io::ErrorKind::UnexpectedEof => return Err(RecoveryIoError::NotExecutable),
        Err(error) => return Err(io_step("read_source")(error)),
    }
    file.seek(SeekFrom::Start(0)).map_err(io_step("rewind_source"))?;
    Ok(file)
}

/// Copies `source` into `dir` while hashing it, checks the SHA-256 when one is expected, and
/// writes the marker (executable 0700, marker 0600, both fsynced, then the directory); returns
/// the marker's bytes. Passes `<fault>:after-copy` between the executable and the marker.
fn copy_and_mark(
    source: File,
    expected_sha256: Option<&Sha256Digest>,
    dir: &Path,
    build: &BuildId,
    version: &Version,
    commit: &CommitSha,
    fault: &str,
) -> Result<Vec<u8>, RecoveryIoError> {
    let mut target = OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o700)
        .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC)
        .open(dir.join(EXECUTABLE_NAME))
        .map_err(io_step("install_create"))?;
    target.set_permissions(fs::Permissions::from_mode(0o700)).map_err(io_step("install_chmod"))?;
    let (sha256, sha512, _) = fsutil::hash_copy(source, Some(&mut target)).map_err(io_step("install_copy"))?;
    if expected_sha256.is_some_and(|expected| &sha256 != expected.as_bytes()) {
        return Err(RecoveryIoError::DigestMismatch);
    }
    target.sync_all().map_err(io_step("install_sync"))?;
    crate::fault::fault_point(&format!("{fault}:after-copy"));
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
/// (no root, no catalog, another path). This is the "supported managed root" check: only such a
/// runtime offers updates and hands them off.
pub fn managed_build_of(root_path: &Path, current_exe: &Path) -> Result<Option<BuildId>, RecoveryIoError> {
    runtime_build_of(root_path, current_exe, false)
}

/// Like [`managed_build_of`], but a retained predecessor counts too: the recovery entry
/// (`relay-launcher recovery`) may run one, and from it the Owner may roll back or repair,
/// though it offers no update.
pub fn retained_build_of(root_path: &Path, current_exe: &Path) -> Result<Option<BuildId>, RecoveryIoError> {
    runtime_build_of(root_path, current_exe, true)
}

fn runtime_build_of(
    root_path: &Path,
    current_exe: &Path,
    with_predecessors: bool,
) -> Result<Option<BuildId>, RecoveryIoError> {
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
    let managed = catalog.current.build == build
        || catalog.candidate.as_ref().is_some_and(|c| c.build == build)
        || (with_predecessors && catalog.predecessors.iter().any(|p| p.build == build));
    Ok(managed.then_some(build))
}

#[cfg(test)]
#[path = "install_tests.rs"]
mod tests;
