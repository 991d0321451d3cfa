use std::fs;

use domain::updater::{CommitSha, Sha256Digest, Version};
use sha2::{Digest, Sha256};

use super::*;
use crate::recovery::catalog::{Catalog, CatalogBuild};
use crate::recovery::marker::verify_runtime;
use crate::recovery::test_support::{add_runtime, lock, root, runtime_names};

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

/// Bytes that pass the first install's ELF check (the magic, then anything).
fn elf(tail: &[u8]) -> Vec<u8> {
    [b"\x7fELF".as_slice(), tail].concat()
}

fn first_release() -> (Version, CommitSha) {
    parse_release("0.1.0", &format!("feedbeef{}", "1".repeat(32))).unwrap()
}

#[test]
fn a_fresh_root_gets_its_first_runtime_which_bootstrap_adopts() {
    let (tmp, root) = root();
    let source = tmp.path().join("relay-desktop");
    fs::write(&source, elf(b" first runtime")).unwrap();
    let (version, commit) = first_release();
    let build = install_first_runtime(&root, &lock(&root), &source, version, commit).unwrap();
    assert_eq!(build.as_str(), "v0-1-0-feedbeef");
    assert_eq!(runtime_names(&root), ["v0-1-0-feedbeef"]);
    let dir = root.runtime_dir(&build);
    assert_eq!(fs::read(dir.join(EXECUTABLE_NAME)).unwrap(), elf(b" first runtime"));
    use std::os::unix::fs::PermissionsExt;
    let mode = |p: &Path| fs::metadata(p).unwrap().permissions().mode() & 0o777;
    assert_eq!((mode(&dir), mode(&dir.join(EXECUTABLE_NAME)), mode(&dir.join(MARKER_NAME))), (0o700, 0o700, 0o600));
    assert_eq!(read_catalog(&root).unwrap(), None, "the launcher's run creates the catalog");
    let catalog = crate::recovery::bootstrap(&root, &lock(&root), 1_000).unwrap();
    assert_eq!(catalog.current.build, build);
    let verified = verify_runtime(&root, &build, &catalog.current.marker_sha512).unwrap();
    assert_eq!((verified.marker.version.as_str(), verified.marker.commit.clone()), ("0.1.0", commit.to_hex()));
}

#[test]
fn a_second_install_an_existing_catalog_settlement_or_runtime_is_refused() {
    let (tmp, root) = root();
    let source = tmp.path().join("relay-desktop");
    fs::write(&source, elf(b"")).unwrap();
    let (version, commit) = first_release();
    install_first_runtime(&root, &lock(&root), &source, version, commit).unwrap();
    let other = Version::parse("0.2.0").unwrap();
    let again = install_first_runtime(&root, &lock(&root), &source, other, commit);
    assert!(matches!(again, Err(RecoveryIoError::AlreadyInstalled)), "{again:?}");
    assert_eq!(runtime_names(&root), ["v0-1-0-feedbeef"]);

    // A catalog (even one naming nothing on disk), a settlement or a restore journal alone.
    for state in ["catalog.json", "settlement.json", "restore.json"] {
        let (_tmp, root) = crate::recovery::test_support::root();
        fs::write(root.recovery_dir().join(state), b"{}").unwrap();
        let refused = install_first_runtime(&root, &lock(&root), &source, version, commit);
        assert!(matches!(refused, Err(RecoveryIoError::AlreadyInstalled)), "{state}: {refused:?}");
        assert!(runtime_names(&root).is_empty(), "{state}");
    }
    // A real installation: catalog and runtime.
    let (_tmp, root) = crate::recovery::test_support::root();
    with_current(&root);
    let refused = install_first_runtime(&root, &lock(&root), &source, version, commit);
    assert!(matches!(refused, Err(RecoveryIoError::AlreadyInstalled)), "{refused:?}");
    assert_eq!(runtime_names(&root), ["v1-0-0-aaaaaaaa"]);
    // An unrecognized entry in runtimes/ (not a leftover name) counts as a runtime.
    let (_tmp, root) = crate::recovery::test_support::root();
    fs::create_dir(root.runtimes_dir().join(".partial-short")).unwrap();
    let refused = install_first_runtime(&root, &lock(&root), &source, version, commit);
    assert!(matches!(refused, Err(RecoveryIoError::AlreadyInstalled)), "{refused:?}");
}

#[test]
fn leftovers_of_an_interrupted_first_install_are_removed() {
    let (tmp, root) = root();
    let source = tmp.path().join("relay-desktop");
    fs::write(&source, elf(b"")).unwrap();
    let leftover = root.runtimes_dir().join(format!(".partial-{}", "0".repeat(32)));
    fs::create_dir(&leftover).unwrap();
    fs::write(leftover.join(EXECUTABLE_NAME), b"half").unwrap();
    let (version, commit) = first_release();
    install_first_runtime(&root, &lock(&root), &source, version, commit).unwrap();
    assert_eq!(runtime_names(&root), ["v0-1-0-feedbeef"]);
}

#[test]
fn a_linked_special_or_non_elf_source_is_refused_and_nothing_is_created() {
    let (tmp, root) = root();
    let real = tmp.path().join("real-relay-desktop");
    fs::write(&real, elf(b"")).unwrap();
    let link = tmp.path().join("linked-relay-desktop");
    std::os::unix::fs::symlink(&real, &link).unwrap();
    let script = tmp.path().join("script");
    fs::write(&script, b"#!/bin/sh\necho not a runtime\n").unwrap();
    let short = tmp.path().join("short");
    fs::write(&short, b"\x7fEL").unwrap();
    let (version, commit) = first_release();
    let install = |source: &Path| install_first_runtime(&root, &lock(&root), source, version, commit);
    assert!(matches!(install(&link), Err(RecoveryIoError::Symlink)));
    assert!(matches!(install(&script), Err(RecoveryIoError::NotExecutable)));
    assert!(matches!(install(&short), Err(RecoveryIoError::NotExecutable)));
    assert!(matches!(install(tmp.path()), Err(RecoveryIoError::WrongType)));
    assert!(install(&tmp.path().join("missing")).is_err());
    assert!(runtime_names(&root).is_empty());
    assert_eq!(read_catalog(&root).unwrap(), None);
}

#[test]
fn a_malformed_version_or_commit_is_refused() {
    let commit = "a".repeat(40);
    for version in ["1.2", "v1.2.3", "1.2.3-rc1", "01.2.3", ""] {
        assert!(
            matches!(parse_release(version, &commit), Err(RecoveryIoError::InvalidRelease("version"))),
            "{version}"
        );
    }
    for commit in ["abc1234", &"A".repeat(40), &"g".repeat(40), &"a".repeat(41), "main"] {
        assert!(matches!(parse_release("1.2.3", commit), Err(RecoveryIoError::InvalidRelease("commit"))), "{commit}");
    }
    assert_eq!(parse_release("1.2.3", &commit).unwrap().0, Version::parse("1.2.3").unwrap());
}

#[test]
fn a_seed_installs_only_when_its_bytes_match_the_manifest_digest() {
    let (tmp, root) = root();
    let source = tmp.path().join("relay-desktop");
    fs::write(&source, elf(b" packaged seed")).unwrap();
    let (version, commit) = first_release();
    let (_, wrong) = staged(tmp.path(), b"other bytes");
    let refused = install_seed_runtime(&root, &lock(&root), &source, &wrong, version, commit);
    assert!(matches!(refused, Err(RecoveryIoError::DigestMismatch)), "{refused:?}");
    assert!(fs::read_dir(root.runtimes_dir()).unwrap().next().is_none(), "no runtime and no partial directory left");
    let (_, digest) = staged(tmp.path(), &elf(b" packaged seed"));
    let build = install_seed_runtime(&root, &lock(&root), &source, &digest, version, commit).unwrap();
    assert_eq!(runtime_names(&root), [build.as_str()]);
    assert_eq!(fs::read(root.runtime_dir(&build).join(EXECUTABLE_NAME)).unwrap(), elf(b" packaged seed"));
    let again = install_seed_runtime(&root, &lock(&root), &source, &digest, version, commit);
    assert!(matches!(again, Err(RecoveryIoError::AlreadyInstalled)), "{again:?}");
}
