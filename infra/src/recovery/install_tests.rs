use std::fs;

use domain::updater::{CommitSha, Sha256Digest, Version};
use sha2::{Digest, Sha256};

use super::*;
use crate::recovery::catalog::{Catalog, CatalogBuild};
use crate::recovery::marker::verify_runtime;
use crate::recovery::test_support::{add_runtime, lock, root};

fn staged(dir: &Path, bytes: &[u8]) -> (std::path::PathBuf, Sha256Digest) {
    let path = dir.join("staged-relay-desktop");
    fs::write(&path, bytes).unwrap();
    let digest = Sha256Digest::parse_hex(&crate::recovery::fsutil::hex(&Sha256::digest(bytes))).unwrap();
    (path, digest)
}

fn with_current(root: &ManagedRoot) -> CatalogBuild {
    let current = add_runtime(root, "v1-0-0-aaaaaaaa", b"current", 1);
    write_catalog(root, &lock(root), &Catalog::with_current(current.clone())).unwrap();
    current
}

fn release() -> (Version, CommitSha) {
    (Version::parse("1.2.3").unwrap(), CommitSha::parse_hex(&format!("0123abcd{}", "e".repeat(32))).unwrap())
}

#[test]
fn an_installed_candidate_is_registered_with_a_marker_that_verifies() {
    let (tmp, root) = root();
    let current = with_current(&root);
    let (path, digest) = staged(tmp.path(), b"new runtime bytes");
    let (version, commit) = release();
    let ticket = install_candidate(&root, &path, &digest, version, commit).unwrap();
    assert_eq!(ticket.build.as_str(), "v1-2-3-0123abcd");
    let catalog = read_catalog(&root).unwrap().unwrap();
    let candidate = catalog.candidate.unwrap();
    assert_eq!((candidate.build.clone(), candidate.transaction.clone()), (ticket.build.clone(), ticket.transaction));
    assert_eq!(candidate.source_build, current.build);
    assert_eq!((candidate.attempts, candidate.snapshot), (0, None));
    let verified = verify_runtime(&root, &ticket.build, &candidate.marker_sha512).unwrap();
    assert_eq!(verified.marker.commit, commit.to_hex());
    assert_eq!(fs::read(root.runtime_dir(&ticket.build).join(EXECUTABLE_NAME)).unwrap(), b"new runtime bytes");
    use std::os::unix::fs::PermissionsExt;
    let mode = |p: &Path| fs::metadata(p).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(&root.runtime_dir(&ticket.build).join(EXECUTABLE_NAME)), 0o700);
    assert_eq!(mode(&root.runtime_dir(&ticket.build).join(MARKER_NAME)), 0o600);
    crate::recovery::check_disk(&root, &read_catalog(&root).unwrap().unwrap(), None).unwrap();
}

#[test]
fn a_digest_mismatch_installs_nothing() {
    let (tmp, root) = root();
    with_current(&root);
    let (path, _) = staged(tmp.path(), b"new runtime bytes");
    let other = Sha256Digest::parse_hex(&"0".repeat(64)).unwrap();
    let (version, commit) = release();
    assert!(matches!(install_candidate(&root, &path, &other, version, commit), Err(RecoveryIoError::DigestMismatch)));
    assert_eq!(read_catalog(&root).unwrap().unwrap().candidate, None);
    assert_eq!(fs::read_dir(root.runtimes_dir()).unwrap().count(), 1, "no partial directory left");
}

#[test]
fn a_pending_candidate_a_quarantined_release_or_no_catalog_refuses_installation() {
    let (tmp, root) = root();
    let (path, digest) = staged(tmp.path(), b"new runtime bytes");
    let (version, commit) = release();
    assert!(matches!(install_candidate(&root, &path, &digest, version, commit), Err(RecoveryIoError::NoCatalog)));
    with_current(&root);
    install_candidate(&root, &path, &digest, version, commit).unwrap();
    let next = Version::parse("1.2.4").unwrap();
    assert!(matches!(install_candidate(&root, &path, &digest, next, commit), Err(RecoveryIoError::CandidateExists)));

    let held = lock(&root);
    let mut catalog = read_catalog(&root).unwrap().unwrap();
    let candidate = catalog.candidate.take().unwrap();
    fs::remove_dir_all(root.runtime_dir(&candidate.build)).unwrap();
    catalog.quarantine.quarantine(candidate.release);
    write_catalog(&root, &held, &catalog).unwrap();
    drop(held);
    assert!(matches!(install_candidate(&root, &path, &digest, version, commit), Err(RecoveryIoError::Quarantined)));
    assert_eq!(quarantined(&root).unwrap().entries(), &[candidate.release]);
    install_candidate(&root, &path, &digest, next, commit).unwrap();
}

#[test]
fn only_the_catalogs_own_runtime_path_is_a_managed_build() {
    let (tmp, root) = root();
    assert_eq!(
        managed_build_of(root.path(), &root.path().join("runtimes/v1-0-0-aaaaaaaa/relay-desktop")).unwrap(),
        None
    );
    let current = with_current(&root);
    let exe = root.runtime_dir(&current.build).join(EXECUTABLE_NAME);
    assert_eq!(managed_build_of(root.path(), &exe).unwrap(), Some(current.build.clone()));
    assert_eq!(managed_build_of(root.path(), &tmp.path().join("relay-desktop")).unwrap(), None);
    let nested = root.runtime_dir(&current.build).join("sub/relay-desktop");
    assert_eq!(managed_build_of(root.path(), &nested).unwrap(), None);
    // A build directory the catalog does not name is not managed.
    add_runtime(&root, "v0-1-0-11111111", b"old", 0);
    let stray = root.runtimes_dir().join("v0-1-0-11111111").join(EXECUTABLE_NAME);
    assert_eq!(managed_build_of(root.path(), &stray).unwrap(), None);
    // A linked executable is refused.
    fs::remove_file(&exe).unwrap();
    std::os::unix::fs::symlink(&stray, &exe).unwrap();
    assert!(managed_build_of(root.path(), &exe).is_err());
}

#[test]
fn build_ids_are_version_and_commit_prefix() {
    let (version, commit) = release();
    assert_eq!(build_id_for(&version, &commit).as_str(), "v1-2-3-0123abcd");
}
