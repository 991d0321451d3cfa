//! The data snapshot taken before a candidate first runs, in `recovery/snapshots/<transaction>/`.
//! What is copied: the data directory's `store/` (server mode: the authoritative store, the
//! folder a backup restore swaps) and `offline/` (client mode: the offline cache and the
//! pending-change queue), whichever exist; a desktop that switched modes has both. Secrets,
//! logs and settings beside them are not versioned data and stay as they are. It runs only while
//! no runtime runs: the launcher calls it between runtimes, and it holds the data directory's
//! own lock (`DATA/.relay.lock`, the one a server holds) for the whole copy, refusing when that
//! is held. Each tree is scanned with `lstat` (a link, socket, FIFO or device refuses the
//! snapshot; at most 250,000 entries), the free space where the snapshot goes must be at least
//! twice the data size plus 512 MiB ([`snapshot_space_ok`], the probe injectable for tests), the
//! copy is built in `snapshots/.partial-<hex>` (dirs 0700, files owner-only with their owner
//! bits, every file and directory fsynced), scanned again and compared, then `complete.json`
//! (protocol, transaction, per-item file/dir/byte counts) is written last and the directory is
//! activated by a rename that never replaces. [`read_snapshot`] proves a snapshot the same way
//! before a restore uses it.

use std::fs::{self, OpenOptions};
use std::io;
use std::os::unix::fs::{DirBuilderExt, MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::Path;

use serde::{Deserialize, Serialize};

use super::catalog::TransactionId;
use super::fsutil::{self, PARTIAL_PREFIX};
use super::{io_step, ManagedRoot, RecoveryIoError, RecoveryLock};

/// The data directory's folders a snapshot covers (server store, client cache/queue).
pub const DATA_ITEMS: [&str; 2] = ["store", "offline"];
/// The free space required beyond twice the data size.
pub const SNAPSHOT_MARGIN_BYTES: u64 = 512 * 1024 * 1024;
/// The most entries one snapshot may hold.
pub const MAX_SNAPSHOT_ENTRIES: u64 = 250_000;
/// The completion marker, written last.
pub const COMPLETE_NAME: &str = "complete.json";
/// The copied trees, inside a snapshot directory.
pub const DATA_DIR_NAME: &str = "data";
const SNAPSHOT_PROTOCOL: u32 = 1;

/// The free-space rule: at least twice the data size plus [`SNAPSHOT_MARGIN_BYTES`].
pub fn snapshot_space_ok(data_bytes: u64, available_bytes: u64) -> bool {
    data_bytes
        .checked_mul(2)
        .and_then(|twice| twice.checked_add(SNAPSHOT_MARGIN_BYTES))
        .is_some_and(|need| available_bytes >= need)
}

/// Free bytes for an unprivileged user on the filesystem holding `path` (`statvfs`).
pub fn available_bytes(path: &Path) -> io::Result<u64> {
    let c_path = std::ffi::CString::new(std::os::unix::ffi::OsStrExt::as_bytes(path.as_os_str()))
        .map_err(|_| io::Error::from(io::ErrorKind::InvalidInput))?;
    // SAFETY: statvfs writes into the zeroed struct we own; the path is NUL-terminated.
    let mut stats: libc::statvfs = unsafe { std::mem::zeroed() };
    if unsafe { libc::statvfs(c_path.as_ptr(), &mut stats) } != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok((stats.f_bavail as u64).saturating_mul(stats.f_frsize as u64))
}

/// How the free space is measured (the real one is [`available_bytes`]).
pub type SpaceProbe<'a> = &'a dyn Fn(&Path) -> io::Result<u64>;

/// One copied tree's counts.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SnapshotItem {
    pub name: String,
    pub files: u64,
    pub dirs: u64,
    pub bytes: u64,
}

/// `complete.json`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SnapshotManifest {
    pub protocol: u32,
    pub transaction: String,
    pub items: Vec<SnapshotItem>,
}

/// Counts a tree read with `lstat`; a link or special file refuses it.
pub(crate) fn scan(dir: &Path, name: &str) -> Result<SnapshotItem, RecoveryIoError> {
    let mut item = SnapshotItem { name: name.to_owned(), ..SnapshotItem::default() };
    let mut pending = vec![dir.to_path_buf()];
    while let Some(next) = pending.pop() {
        item.dirs += 1;
        for entry in fs::read_dir(&next).map_err(io_step("scan_dir"))? {
            let entry = entry.map_err(io_step("scan_dir"))?;
            let meta = fs::symlink_metadata(entry.path()).map_err(io_step("scan_entry"))?;
            if meta.is_dir() {
                pending.push(entry.path());
            } else if meta.is_file() {
                item.files += 1;
                item.bytes += meta.len();
            } else {
                return Err(RecoveryIoError::LinkOrSpecialFile);
            }
            if item.files + item.dirs > MAX_SNAPSHOT_ENTRIES {
                return Err(RecoveryIoError::InvalidSnapshot("too_many_entries"));
            }
        }
    }
    Ok(item)
}

/// Copies the tree `from` into the new directory `to` (0700 directories, owner-only files
/// created exclusively without following links, everything fsynced).
pub(crate) fn copy_tree(from: &Path, to: &Path) -> Result<(), RecoveryIoError> {
    fs::DirBuilder::new().mode(0o700).create(to).map_err(io_step("copy_mkdir"))?;
    for entry in fs::read_dir(from).map_err(io_step("copy_read_dir"))? {
        let entry = entry.map_err(io_step("copy_read_dir"))?;
        let (source, target) = (entry.path(), to.join(entry.file_name()));
        let meta = fs::symlink_metadata(&source).map_err(io_step("copy_stat"))?;
        if meta.is_dir() {
            copy_tree(&source, &target)?;
        } else if meta.is_file() {
            let mode = (meta.mode() & 0o700) | 0o600;
            let mut input = fsutil::open_regular(&source)?.ok_or(RecoveryIoError::InvalidSnapshot("vanished"))?;
            let mut output = OpenOptions::new()
                .write(true)
                .create_new(true)
                .mode(mode)
                .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC)
                .open(&target)
                .map_err(io_step("copy_create"))?;
            output.set_permissions(fs::Permissions::from_mode(mode)).map_err(io_step("copy_chmod"))?;
            io::copy(&mut input, &mut output).map_err(io_step("copy_file"))?;
            output.sync_all().map_err(io_step("copy_sync"))?;
        } else {
            return Err(RecoveryIoError::LinkOrSpecialFile);
        }
    }
    crate::datadir::sync_dir(to).map_err(io_step("copy_sync_dir"))
}

/// The data items present in `data_dir` (each a real directory; a link or another type refuses).
pub(crate) fn present_items(data_dir: &Path) -> Result<Vec<&'static str>, RecoveryIoError> {
    let mut present = Vec::new();
    for name in DATA_ITEMS {
        match fs::symlink_metadata(data_dir.join(name)) {
            Err(error) if error.kind() == io::ErrorKind::NotFound => {}
            Err(error) => return Err(io_step("stat_data")(error)),
            Ok(meta) if meta.is_dir() => present.push(name),
            Ok(_) => return Err(RecoveryIoError::LinkOrSpecialFile),
        }
    }
    Ok(present)
}

/// Takes the data directory's own lock for the time of a copy or swap; absent data directory:
/// `None` (nothing to protect). Held by a running server: [`RecoveryIoError::DataInUse`].
pub(crate) fn lock_data_dir(data_dir: &Path) -> Result<Option<crate::dir_lock::DirLock>, RecoveryIoError> {
    match fs::symlink_metadata(data_dir) {
        Err(error) if error.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(error) => return Err(io_step("stat_data_dir")(error)),
        Ok(meta) if meta.file_type().is_symlink() => return Err(RecoveryIoError::Symlink),
        Ok(meta) if !meta.is_dir() => return Err(RecoveryIoError::WrongType),
        Ok(meta) if meta.uid() != fsutil::uid() => return Err(RecoveryIoError::NotOwned),
        Ok(_) => {}
    }
    match crate::dir_lock::lock(data_dir) {
        Ok(lock) => Ok(Some(lock)),
        Err(crate::dir_lock::LockError::Held) => Err(RecoveryIoError::DataInUse),
        Err(crate::dir_lock::LockError::Io(error)) => Err(io_step("data_lock")(error)),
    }
}

/// Takes the snapshot of `data_dir` for `transaction` (see the module paragraph). A directory
/// already named by the transaction is an unrecorded leftover of an interrupted attempt and is
/// replaced. Fault points: `recovery:snapshot:after-copy`, `recovery:snapshot:complete:*`,
/// `recovery:snapshot:after-activate`.
pub fn take_snapshot(
    root: &ManagedRoot,
    _lock: &RecoveryLock,
    data_dir: &Path,
    transaction: &TransactionId,
    probe: SpaceProbe<'_>,
) -> Result<SnapshotManifest, RecoveryIoError> {
    let _data_lock = lock_data_dir(data_dir)?;
    let items = present_items(data_dir)?;
    let mut scanned = Vec::new();
    for name in &items {
        scanned.push(scan(&data_dir.join(name), name)?);
    }
    let data_bytes = scanned.iter().map(|item| item.bytes).sum();
    let available = probe(&root.snapshots_dir()).map_err(io_step("free_space"))?;
    if !snapshot_space_ok(data_bytes, available) {
        return Err(RecoveryIoError::InsufficientSpace);
    }
    fsutil::remove_tree(&root.snapshot_dir(transaction))?;
    let partial = root.snapshots_dir().join(fsutil::leftover_name(PARTIAL_PREFIX));
    fs::DirBuilder::new().mode(0o700).create(&partial).map_err(io_step("snapshot_mkdir"))?;
    let copied = (|| {
        let data = partial.join(DATA_DIR_NAME);
        fs::DirBuilder::new().mode(0o700).create(&data).map_err(io_step("snapshot_mkdir"))?;
        for (name, source) in items.iter().zip(&scanned) {
            copy_tree(&data_dir.join(name), &data.join(name))?;
            if scan(&data.join(name), name)? != *source {
                return Err(RecoveryIoError::InvalidSnapshot("copy_mismatch"));
            }
        }
        crate::datadir::sync_dir(&data).map_err(io_step("snapshot_sync"))?;
        crate::fault::fault_point("recovery:snapshot:after-copy");
        let manifest =
            SnapshotManifest { protocol: SNAPSHOT_PROTOCOL, transaction: transaction.to_string(), items: scanned };
        let json = serde_json::to_vec_pretty(&manifest).expect("a manifest serializes");
        fsutil::write_atomic(&partial.join(COMPLETE_NAME), &json, 0o600, "recovery:snapshot:complete")?;
        Ok(manifest)
    })();
    let manifest = match copied {
        Ok(manifest) => manifest,
        Err(error) => {
            let _ = fsutil::remove_tree(&partial);
            return Err(error);
        }
    };
    fsutil::rename_noreplace(&partial, &root.snapshot_dir(transaction))?;
    crate::fault::fault_point("recovery:snapshot:after-activate");
    Ok(manifest)
}

/// Proves the snapshot of `transaction`: a real owner-only directory with a strict
/// `complete.json` for this transaction whose item counts match a fresh scan of the copy.
pub fn read_snapshot(root: &ManagedRoot, transaction: &TransactionId) -> Result<SnapshotManifest, RecoveryIoError> {
    let dir = root.snapshot_dir(transaction);
    if !fsutil::check_private_dir(&dir)? {
        return Err(RecoveryIoError::InvalidSnapshot("missing"));
    }
    let bytes = fsutil::read_bounded(&dir.join(COMPLETE_NAME), 64 * 1024)?
        .ok_or(RecoveryIoError::InvalidSnapshot("incomplete"))?;
    let manifest: SnapshotManifest =
        serde_json::from_slice(&bytes).map_err(|_| RecoveryIoError::InvalidSnapshot("manifest"))?;
    if manifest.protocol != SNAPSHOT_PROTOCOL || manifest.transaction != transaction.as_str() {
        return Err(RecoveryIoError::InvalidSnapshot("manifest"));
    }
    for item in &manifest.items {
        if !DATA_ITEMS.contains(&item.name.as_str()) {
            return Err(RecoveryIoError::InvalidSnapshot("manifest"));
        }
        let copy = dir.join(DATA_DIR_NAME).join(&item.name);
        if !fsutil::check_private_dir(&copy)? || scan(&copy, &item.name)? != *item {
            return Err(RecoveryIoError::InvalidSnapshot("copy_changed"));
        }
    }
    Ok(manifest)
}

#[cfg(test)]
#[path = "snapshot_tests.rs"]
pub(crate) mod tests;
