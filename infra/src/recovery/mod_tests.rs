use std::ffi::OsStr;
use std::fs;
use std::os::unix::fs::PermissionsExt;

use super::*;

#[test]
fn the_managed_root_is_under_the_xdg_data_home_else_the_home_default() {
    let root = managed_root_from(Some(OsStr::new("/x/data")), Some(OsStr::new("/home/u")));
    assert_eq!(root, Some(PathBuf::from("/x/data/relay")));
    let root = managed_root_from(Some(OsStr::new("relative")), Some(OsStr::new("/home/u")));
    assert_eq!(root, Some(PathBuf::from("/home/u/.local/share/relay")));
    assert_eq!(managed_root_from(None, Some(OsStr::new("relative"))), None);
}

#[test]
fn opening_creates_owner_only_fixed_directories_and_tightens_loose_ones() {
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join("data/relay");
    let root = ManagedRoot::open(&path).unwrap();
    for dir in [root.path().to_path_buf(), root.runtimes_dir(), root.recovery_dir(), root.snapshots_dir()] {
        assert_eq!(fs::metadata(&dir).unwrap().permissions().mode() & 0o777, 0o700, "{dir:?}");
    }
    fs::set_permissions(root.runtimes_dir(), fs::Permissions::from_mode(0o755)).unwrap();
    ManagedRoot::open(&path).unwrap();
    assert_eq!(fs::metadata(root.runtimes_dir()).unwrap().permissions().mode() & 0o777, 0o700);
}

#[test]
fn links_and_wrong_types_anywhere_on_the_path_are_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let elsewhere = tmp.path().join("elsewhere");
    fs::create_dir(&elsewhere).unwrap();
    std::os::unix::fs::symlink(&elsewhere, tmp.path().join("linked")).unwrap();
    assert!(matches!(ManagedRoot::open(&tmp.path().join("linked/relay")), Err(RecoveryIoError::Symlink)));
    assert!(!elsewhere.join("relay").exists());

    let path = tmp.path().join("relay");
    let root = ManagedRoot::open(&path).unwrap();
    fs::remove_dir(root.snapshots_dir()).unwrap();
    std::os::unix::fs::symlink(&elsewhere, root.snapshots_dir()).unwrap();
    assert!(matches!(ManagedRoot::open(&path), Err(RecoveryIoError::Symlink)));
    fs::remove_file(root.snapshots_dir()).unwrap();
    fs::write(root.snapshots_dir(), b"file").unwrap();
    assert!(matches!(ManagedRoot::open(&path), Err(RecoveryIoError::WrongType)));
    assert!(matches!(ManagedRoot::open(Path::new("relative/relay")), Err(RecoveryIoError::RootNotAbsolute)));
}

#[test]
fn open_existing_creates_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    assert_eq!(ManagedRoot::open_existing(&tmp.path().join("relay")).unwrap(), None);
    assert!(!tmp.path().join("relay").exists());
}

/// A security test's precondition: in CI (`CI` set) it must hold, so the test can never pass
/// without running; elsewhere an unmet one skips the test with a "SKIPPED: <reason>" line written
/// past the test harness's output capture.
fn precondition_met(met: bool, reason: &str) -> bool {
    if met {
        return true;
    }
    assert!(std::env::var_os("CI").is_none(), "CI must run this security test, but it {reason}");
    use std::io::Write;
    let _ = writeln!(std::io::stderr(), "SKIPPED: {reason}");
    false
}

#[test]
fn a_directory_of_another_user_is_refused() {
    // Only root can hand a directory to another user; elsewhere this case cannot be built.
    if !precondition_met(fsutil::uid() == 0, "needs root to chown a directory to another user") {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join("relay");
    let root = ManagedRoot::open(&path).unwrap();
    std::os::unix::fs::chown(root.recovery_dir(), Some(4242), Some(4242)).unwrap();
    assert!(matches!(ManagedRoot::open(&path), Err(RecoveryIoError::NotOwned)));
}
