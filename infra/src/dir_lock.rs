//! The data directory's exclusive lock: `DATA/.relay.lock`, an owner-only file held with
//! `flock(LOCK_EX | LOCK_NB)` for as long as something works on the store directly. A server
//! process takes it once and keeps it across its restarts (a restore stops and restarts the
//! server inside the same process, and for that moment no control socket answers); the CLI
//! takes it before touching a data directory whose server does not answer. Whoever finds it
//! held is told a server is running or restarting and changes nothing. The kernel drops the
//! lock when the process dies, so a crash never leaves it stuck; the file itself stays.

use std::fs::{File, OpenOptions};
use std::io;
use std::os::unix::fs::OpenOptionsExt;
use std::os::unix::io::AsRawFd;
use std::path::Path;

/// The lock file's name inside the data directory.
pub const LOCK_FILE: &str = ".relay.lock";

/// Held while alive; dropping it releases the lock.
#[derive(Debug)]
pub struct DirLock {
    _file: File,
}

#[derive(Debug, thiserror::Error)]
pub enum LockError {
    #[error("a Relay server is running or restarting on this data directory; stop it or retry in a moment")]
    Held,
    #[error("the data directory lock cannot be taken: {0}")]
    Io(#[from] io::Error),
}

/// Takes the exclusive lock on `data_root` without waiting. The file is opened without
/// following a link and created 0600.
pub fn lock(data_root: &Path) -> Result<DirLock, LockError> {
    let file = open_lock_file(&data_root.join(LOCK_FILE))?;
    if try_lock_exclusive(&file)? {
        Ok(DirLock { _file: file })
    } else {
        Err(LockError::Held)
    }
}

/// Opens the lock file at `path` for `flock`, creating it 0600, never through a link
/// (`O_NOFOLLOW`: a link fails with `ELOOP`) and close-on-exec. Shared with the recovery lock.
pub fn open_lock_file(path: &Path) -> io::Result<File> {
    OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .mode(0o600)
        .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC)
        .open(path)
}

/// One non-blocking `flock(LOCK_EX)` attempt on `file`: `Ok(true)` taken, `Ok(false)` held by
/// another open file description.
pub fn try_lock_exclusive(file: &File) -> io::Result<bool> {
    // SAFETY: flock on a descriptor the caller owns; no memory is shared.
    if unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) } == 0 {
        return Ok(true);
    }
    match io::Error::last_os_error() {
        e if e.raw_os_error() == Some(libc::EWOULDBLOCK) => Ok(false),
        e => Err(e),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_holder_is_refused_until_the_first_lets_go() {
        let dir = tempfile::tempdir().unwrap();
        let first = lock(dir.path()).unwrap();
        assert!(matches!(lock(dir.path()), Err(LockError::Held)));
        drop(first);
        let again = lock(dir.path()).unwrap();
        drop(again);
    }

    #[test]
    fn the_lock_file_is_owner_only_and_never_a_followed_link() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        drop(lock(dir.path()).unwrap());
        let mode = std::fs::metadata(dir.path().join(LOCK_FILE)).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);

        let other = tempfile::tempdir().unwrap();
        std::fs::remove_file(dir.path().join(LOCK_FILE)).unwrap();
        std::os::unix::fs::symlink(other.path().join("target"), dir.path().join(LOCK_FILE)).unwrap();
        assert!(matches!(lock(dir.path()), Err(LockError::Io(_))));
        assert!(!other.path().join("target").exists());
    }
}
