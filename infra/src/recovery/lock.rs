//! The exclusive recovery lock `recovery/lock`: an owner-only file (0600, opened with
//! `O_NOFOLLOW`, checked to be a regular file of the current user) held with
//! `flock(LOCK_EX)`. Every catalog, settlement, snapshot and runtime mutation takes a
//! `&RecoveryLock`, so the type system proves the caller holds it. The kernel releases it when
//! the holder dies, so a killed launcher never leaves it stuck. Waiting is bounded.

use std::fs::File;
use std::os::unix::fs::MetadataExt;
use std::time::{Duration, Instant};

use super::{fsutil, io_step, ManagedRoot, RecoveryIoError};

/// Held while alive; dropping it releases the lock.
#[derive(Debug)]
pub struct RecoveryLock {
    _file: File,
}

impl RecoveryLock {
    /// Takes the lock, retrying every 50 ms for at most `wait`; still held after that is
    /// [`RecoveryIoError::Locked`].
    pub fn acquire(root: &ManagedRoot, wait: Duration) -> Result<RecoveryLock, RecoveryIoError> {
        let file = crate::dir_lock::open_lock_file(&root.lock_path()).map_err(io_step("open_lock"))?;
        let meta = file.metadata().map_err(io_step("stat_lock"))?;
        if !meta.is_file() {
            return Err(RecoveryIoError::WrongType);
        }
        if meta.uid() != fsutil::uid() {
            return Err(RecoveryIoError::NotOwned);
        }
        let give_up = Instant::now() + wait;
        loop {
            if crate::dir_lock::try_lock_exclusive(&file).map_err(io_step("flock"))? {
                return Ok(RecoveryLock { _file: file });
            }
            if Instant::now() >= give_up {
                return Err(RecoveryIoError::Locked);
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_holder_waits_boundedly_and_is_refused_until_the_first_lets_go() {
        let tmp = tempfile::tempdir().unwrap();
        let root = ManagedRoot::open(&tmp.path().join("relay")).unwrap();
        let first = RecoveryLock::acquire(&root, Duration::ZERO).unwrap();
        let started = Instant::now();
        assert!(matches!(RecoveryLock::acquire(&root, Duration::from_millis(200)), Err(RecoveryIoError::Locked)));
        assert!(started.elapsed() >= Duration::from_millis(200));
        drop(first);
        RecoveryLock::acquire(&root, Duration::ZERO).unwrap();
    }

    #[test]
    fn a_linked_lock_file_is_refused_and_its_target_untouched() {
        let tmp = tempfile::tempdir().unwrap();
        let root = ManagedRoot::open(&tmp.path().join("relay")).unwrap();
        std::os::unix::fs::symlink(tmp.path().join("elsewhere"), root.lock_path()).unwrap();
        assert!(matches!(RecoveryLock::acquire(&root, Duration::ZERO), Err(RecoveryIoError::Symlink)));
        assert!(!tmp.path().join("elsewhere").exists());
    }
}
