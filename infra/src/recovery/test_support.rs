//! Shared fixtures of the recovery module's unit tests: a managed root in a temporary
//! directory and runtimes written into it with valid markers.

use std::fs;
use std::os::unix::fs::PermissionsExt;

use domain::updater::{BuildId, CommitSha, ReleaseFingerprint, Version};

use super::catalog::CatalogBuild;
use super::fsutil;
use super::marker::{RuntimeMarker, EXECUTABLE_NAME, MARKER_NAME};
use super::{ManagedRoot, RecoveryLock};

pub(crate) fn root() -> (tempfile::TempDir, ManagedRoot) {
    let tmp = tempfile::tempdir().unwrap();
    let root = ManagedRoot::open(&tmp.path().join("relay")).unwrap();
    (tmp, root)
}

pub(crate) fn lock(root: &ManagedRoot) -> RecoveryLock {
    RecoveryLock::acquire(root, std::time::Duration::ZERO).unwrap()
}

pub(crate) fn build(id: &str) -> BuildId {
    BuildId::parse(id).unwrap()
}

pub(crate) fn fingerprint(version: &str, commit: char) -> ReleaseFingerprint {
    ReleaseFingerprint {
        version: Version::parse(version).unwrap(),
        commit: CommitSha::parse_hex(&commit.to_string().repeat(40)).unwrap(),
    }
}

/// Writes `runtimes/<id>/relay-desktop` (0700) holding `contents` and a valid marker; returns
/// the catalog entry (promoted at `promoted_at_ms`).
pub(crate) fn add_runtime(root: &ManagedRoot, id: &str, contents: &[u8], promoted_at_ms: u64) -> CatalogBuild {
    let build = build(id);
    let dir = root.runtime_dir(&build);
    fs::create_dir(&dir).unwrap();
    fs::set_permissions(&dir, fs::Permissions::from_mode(0o700)).unwrap();
    fs::write(dir.join(EXECUTABLE_NAME), contents).unwrap();
    fs::set_permissions(dir.join(EXECUTABLE_NAME), fs::Permissions::from_mode(0o700)).unwrap();
    let (_, sha512, _) = fsutil::hash_copy(contents, None).unwrap();
    let marker = RuntimeMarker::new(
        &build,
        &Version::parse("1.0.0").unwrap(),
        &CommitSha::parse_hex(&"c".repeat(40)).unwrap(),
        &sha512,
    )
    .to_json();
    fs::write(dir.join(MARKER_NAME), &marker).unwrap();
    CatalogBuild { build, marker_sha512: fsutil::sha512_hex(&marker), promoted_at_ms }
}

/// The names in `runtimes/`, sorted.
pub(crate) fn runtime_names(root: &ManagedRoot) -> Vec<String> {
    let mut names: Vec<String> =
        fs::read_dir(root.runtimes_dir()).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into()).collect();
    names.sort();
    names
}
