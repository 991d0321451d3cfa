//! Small filesystem helpers of the recovery module: owner-only directories checked with
//! `lstat`, bounded reads of owner-only regular files opened with `O_NOFOLLOW`, atomic
//! owner-only writes (exclusive temp file, fsync, rename, directory fsync), hashing, renames
//! that never replace, and the recognized leftover names (`.partial-<hex>`, `.trash-<hex>`) a
//! crash may leave. Nothing here follows a link or removes a tree it has not checked.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Read, Write};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{DirBuilderExt, MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::Path;

use sha2::{Digest, Sha256, Sha512};

use super::{io_step, RecoveryIoError};

pub(crate) fn uid() -> u32 {
    // SAFETY: geteuid has no preconditions and cannot fail.
    unsafe { libc::geteuid() }
}

/// Creates `path` 0700 when missing; it must then be a real directory of the current user
/// (a looser mode is tightened).
pub(crate) fn ensure_private_dir(path: &Path) -> Result<(), RecoveryIoError> {
    match fs::symlink_metadata(path) {
        Err(error) if error.kind() == io::ErrorKind::NotFound => {
            match fs::DirBuilder::new().mode(0o700).create(path) {
                Err(error) if error.kind() != io::ErrorKind::AlreadyExists => return Err(io_step("create_dir")(error)),
                _ => {}
            }
            if let Some(parent) = path.parent() {
                crate::datadir::sync_dir(parent).map_err(io_step("sync_dir"))?;
            }
        }
        Err(error) => return Err(io_step("stat_dir")(error)),
        Ok(_) => {}
    }
    check_private_dir(path)?;
    Ok(())
}

/// `Ok(false)` when `path` is absent; `Ok(true)` when it is a real directory of the current user
/// (its mode tightened to 0700); an error for a link, another type or another owner.
pub(crate) fn check_private_dir(path: &Path) -> Result<bool, RecoveryIoError> {
    let meta = match fs::symlink_metadata(path) {
        Err(error) if error.kind() == io::ErrorKind::NotFound => return Ok(false),
        other => other.map_err(io_step("stat_dir"))?,
    };
    if meta.file_type().is_symlink() {
        return Err(RecoveryIoError::Symlink);
    }
    if !meta.is_dir() {
        return Err(RecoveryIoError::WrongType);
    }
    if meta.uid() != uid() {
        return Err(RecoveryIoError::NotOwned);
    }
    if meta.mode() & 0o077 != 0 {
        fs::set_permissions(path, fs::Permissions::from_mode(0o700)).map_err(io_step("chmod_dir"))?;
    }
    Ok(true)
}

/// Opens `path` read-only without following a link; it must be a regular file of the current
/// user. `Ok(None)` when absent.
pub(crate) fn open_regular(path: &Path) -> Result<Option<File>, RecoveryIoError> {
    let file = match OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC | libc::O_NONBLOCK)
        .open(path)
    {
        Err(error) if error.kind() == io::ErrorKind::NotFound => return Ok(None),
        other => other.map_err(io_step("open_file"))?,
    };
    let meta = file.metadata().map_err(io_step("stat_file"))?;
    if !meta.is_file() {
        return Err(RecoveryIoError::WrongType);
    }
    if meta.uid() != uid() {
        return Err(RecoveryIoError::NotOwned);
    }
    Ok(Some(file))
}

/// Reads an owner-only regular file of at most `max` bytes (`None` when absent; longer is
/// refused as `too_large`).
pub(crate) fn read_bounded(path: &Path, max: u64) -> Result<Option<Vec<u8>>, RecoveryIoError> {
    let Some(file) = open_regular(path)? else { return Ok(None) };
    let mut bytes = Vec::new();
    file.take(max + 1).read_to_end(&mut bytes).map_err(io_step("read_file"))?;
    if bytes.len() as u64 > max {
        return Err(RecoveryIoError::Io { step: "read_file", source: io::Error::other("file too large") });
    }
    Ok(Some(bytes))
}

/// Writes `contents` to `path` atomically with exactly `mode`: an exclusive `O_NOFOLLOW` temp
/// file in the same directory, fsync, `fault_point(<fault>:before-rename)`, rename over the
/// target, directory fsync, `fault_point(<fault>:after-rename)`.
pub(crate) fn write_atomic(path: &Path, contents: &[u8], mode: u32, fault: &str) -> Result<(), RecoveryIoError> {
    let dir = path.parent().ok_or(RecoveryIoError::WrongType)?;
    let name = path.file_name().ok_or(RecoveryIoError::WrongType)?;
    let tmp = dir.join(format!(".{}.tmp-{}", name.to_string_lossy(), random_hex(8)));
    let mut file = OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(mode)
        .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC)
        .open(&tmp)
        .map_err(io_step("create_temp"))?;
    let written = (|| {
        file.set_permissions(fs::Permissions::from_mode(mode))?;
        file.write_all(contents)?;
        file.sync_all()
    })();
    drop(file);
    if let Err(error) = written {
        let _ = fs::remove_file(&tmp);
        return Err(io_step("write_temp")(error));
    }
    crate::fault::fault_point(&format!("{fault}:before-rename"));
    if let Err(error) = fs::rename(&tmp, path) {
        let _ = fs::remove_file(&tmp);
        return Err(io_step("rename_temp")(error));
    }
    crate::datadir::sync_dir(dir).map_err(io_step("sync_dir"))?;
    crate::fault::fault_point(&format!("{fault}:after-rename"));
    Ok(())
}

/// Removes `path` and flushes its directory; absent is fine, a link or a non-file is refused.
pub(crate) fn remove_file(path: &Path) -> Result<(), RecoveryIoError> {
    match fs::symlink_metadata(path) {
        Err(error) if error.kind() == io::ErrorKind::NotFound => return Ok(()),
        Err(error) => return Err(io_step("stat_file")(error)),
        Ok(meta) if !meta.is_file() => return Err(RecoveryIoError::WrongType),
        Ok(_) => {}
    }
    fs::remove_file(path).map_err(io_step("remove_file"))?;
    sync_parent(path)
}

/// Removes a directory tree after checking with `lstat` that it is a real directory of the
/// current user (links inside are removed, never followed); absent is fine.
pub(crate) fn remove_tree(path: &Path) -> Result<(), RecoveryIoError> {
    if !check_private_dir(path)? {
        return Ok(());
    }
    fs::remove_dir_all(path).map_err(io_step("remove_tree"))?;
    sync_parent(path)
}

pub(crate) fn sync_parent(path: &Path) -> Result<(), RecoveryIoError> {
    match path.parent() {
        Some(parent) => crate::datadir::sync_dir(parent).map_err(io_step("sync_dir")),
        None => Ok(()),
    }
}

/// `renameat2(RENAME_NOREPLACE)` then an fsync of both parents.
pub(crate) fn rename_noreplace(from: &Path, to: &Path) -> Result<(), RecoveryIoError> {
    let c_path = |p: &Path| std::ffi::CString::new(p.as_os_str().as_bytes()).map_err(|_| RecoveryIoError::WrongType);
    let (c_from, c_to) = (c_path(from)?, c_path(to)?);
    // SAFETY: both are valid NUL-terminated paths; AT_FDCWD resolves them like rename(2).
    let result = unsafe {
        libc::renameat2(libc::AT_FDCWD, c_from.as_ptr(), libc::AT_FDCWD, c_to.as_ptr(), libc::RENAME_NOREPLACE)
    };
    if result != 0 {
        return Err(io_step("rename")(io::Error::last_os_error()));
    }
    sync_parent(from)?;
    sync_parent(to)
}

/// SHA-256 and SHA-512 of everything `reader` yields, written to `sink` on the way when given.
pub(crate) fn hash_copy(
    mut reader: impl Read,
    mut sink: Option<&mut dyn Write>,
) -> io::Result<([u8; 32], [u8; 64], u64)> {
    let (mut sha256, mut sha512) = (Sha256::new(), Sha512::new());
    let mut buffer = vec![0u8; 64 * 1024];
    let mut total = 0u64;
    loop {
        let read = reader.read(&mut buffer)?;
        if read == 0 {
            break;
        }
        sha256.update(&buffer[..read]);
        sha512.update(&buffer[..read]);
        if let Some(sink) = sink.as_mut() {
            sink.write_all(&buffer[..read])?;
        }
        total += read as u64;
    }
    Ok((sha256.finalize().into(), sha512.finalize().into(), total))
}

pub(crate) fn sha512_hex(bytes: &[u8]) -> String {
    hex(&Sha512::digest(bytes))
}

pub(crate) fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

pub(crate) fn is_lower_hex(text: &str, len: usize) -> bool {
    text.len() == len && text.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}

pub(crate) fn random_hex(bytes: usize) -> String {
    hex(&crate::ids::random_bytes(bytes))
}

/// Prefix of a directory being built (not yet activated by rename).
pub(crate) const PARTIAL_PREFIX: &str = ".partial-";
/// Prefix of a directory renamed away before its removal.
pub(crate) const TRASH_PREFIX: &str = ".trash-";

/// A fresh leftover-style name: `<prefix><32 hex>`.
pub(crate) fn leftover_name(prefix: &str) -> String {
    format!("{prefix}{}", random_hex(16))
}

/// Whether `name` is a partial or trash directory name this module creates.
pub(crate) fn is_leftover(name: &str) -> bool {
    [PARTIAL_PREFIX, TRASH_PREFIX]
        .iter()
        .any(|prefix| name.strip_prefix(prefix).is_some_and(|rest| is_lower_hex(rest, 32)))
}
