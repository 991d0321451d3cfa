//! Repair of a retained build's runtime (issue #14 item 5): when a build the catalog trusts
//! (the current one or a retained predecessor) no longer verifies because its executable
//! changed or vanished, [`repair_runtime`] puts back the exact executable its marker names. The
//! caller (the desktop, after the Owner's freshly reauthenticated approval) has downloaded that
//! build's own immutable release through the normal checks (GitHub digest, checksum file,
//! publisher signature, archive rules) and staged its executable; here, under the recovery lock,
//! the marker must still be the one the catalog's hash names, the staged file's SHA-512 must be
//! the marker's `executableSha512`, and only then is it copied beside the marker (temp file,
//! fsync, rename over `relay-desktop`, directory fsync) and the build verified again. Repair
//! never writes the catalog or a marker, never promotes a build, never touches the data, and
//! refuses a build whose marker cannot be proved: nothing here widens what the launcher trusts.

use std::fs::{self, OpenOptions};
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::path::Path;

use domain::updater::BuildId;

use super::catalog::read_catalog;
use super::marker::{read_marker, verify_runtime, EXECUTABLE_NAME};
use super::{fsutil, io_step, ManagedRoot, RecoveryIoError, RecoveryLock};

/// Prefix of a repair's temporary executable inside a runtime directory.
const REPAIR_TEMP_PREFIX: &str = ".relay-desktop.repair-";

/// What a repair found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RepairOutcome {
    /// The runtime already verified; nothing was written.
    AlreadyIntact,
    /// The executable was replaced and the build verifies again.
    Repaired,
}

fn refused(reason: &'static str) -> RecoveryIoError {
    RecoveryIoError::RepairRefused(reason)
}

/// The catalog's marker hash for `build` (current or retained), and whether its runtime
/// verifies now. The version and commit the marker names are what a repair must download.
pub fn repair_subject(root: &ManagedRoot, build: &BuildId) -> Result<RepairSubject, RecoveryIoError> {
    let catalog = read_catalog(root)?.ok_or(RecoveryIoError::NoCatalog)?;
    let entry = std::iter::once(&catalog.current)
        .chain(&catalog.predecessors)
        .find(|entry| &entry.build == build)
        .ok_or(refused("not_retained"))?;
    let (marker_sha512, marker) = read_marker(root, build)?.ok_or(refused("marker_unusable"))?;
    if marker_sha512 != entry.marker_sha512 {
        return Err(refused("marker_unusable"));
    }
    let intact = verify_runtime(root, build, &marker_sha512).is_ok();
    Ok(RepairSubject { marker_sha512, version: marker.version, commit: marker.commit, intact })
}

/// A retained build as a repair sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RepairSubject {
    pub marker_sha512: String,
    pub version: String,
    pub commit: String,
    /// The runtime verifies as it is.
    pub intact: bool,
}

/// Puts `staged` back as `build`'s executable (see the module paragraph). Fault points
/// `recovery:repair:before-rename` and `recovery:repair:after-rename`.
pub fn repair_runtime(
    root: &ManagedRoot,
    _lock: &RecoveryLock,
    build: &BuildId,
    staged: &Path,
) -> Result<RepairOutcome, RecoveryIoError> {
    let subject = repair_subject(root, build)?;
    let dir = root.runtime_dir(build);
    remove_repair_leftovers(&dir)?;
    if subject.intact {
        return Ok(RepairOutcome::AlreadyIntact);
    }
    let (_, marker) = read_marker(root, build)?.ok_or(refused("marker_unusable"))?;
    let source = fsutil::open_regular(staged)?.ok_or(refused("staged_missing"))?;
    let temp = dir.join(format!("{REPAIR_TEMP_PREFIX}{}", fsutil::random_hex(16)));
    let mut target = OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o700)
        .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC)
        .open(&temp)
        .map_err(io_step("repair_create"))?;
    let written = (|| {
        target.set_permissions(fs::Permissions::from_mode(0o700)).map_err(io_step("repair_chmod"))?;
        let (_, sha512, _) = fsutil::hash_copy(source, Some(&mut target)).map_err(io_step("repair_copy"))?;
        if fsutil::hex(&sha512) != marker.executable_sha512 {
            return Err(refused("digest_mismatch"));
        }
        target.sync_all().map_err(io_step("repair_sync"))
    })();
    drop(target);
    if let Err(error) = written {
        let _ = fs::remove_file(&temp);
        return Err(error);
    }
    crate::fault::fault_point("recovery:repair:before-rename");
    if let Err(error) = fs::rename(&temp, dir.join(EXECUTABLE_NAME)) {
        let _ = fs::remove_file(&temp);
        return Err(io_step("repair_rename")(error));
    }
    crate::datadir::sync_dir(&dir).map_err(io_step("repair_sync"))?;
    crate::fault::fault_point("recovery:repair:after-rename");
    verify_runtime(root, build, &subject.marker_sha512)?;
    Ok(RepairOutcome::Repaired)
}

/// Removes the temporary files an interrupted repair left in `dir`.
fn remove_repair_leftovers(dir: &Path) -> Result<(), RecoveryIoError> {
    if !fsutil::check_private_dir(dir)? {
        return Err(refused("marker_unusable"));
    }
    for entry in fs::read_dir(dir).map_err(io_step("repair_list"))? {
        let entry = entry.map_err(io_step("repair_list"))?;
        if entry.file_name().to_string_lossy().starts_with(REPAIR_TEMP_PREFIX) {
            fsutil::remove_file(&entry.path())?;
        }
    }
    Ok(())
}

#[cfg(test)]
#[path = "repair_tests.rs"]
mod tests;
