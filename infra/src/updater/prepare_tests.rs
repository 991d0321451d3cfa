//! Preparation on real ZIPs in a real version directory: a stored and a deflated release are
//! extracted into an executable 0700 file with the right bytes; every refusal (traversal,
//! symlink member, two members, wrong name, case variant, directory member, encrypted member,
//! bad CRC, not an ELF, an ELF for another machine, not a ZIP, an archive changed since its
//! download) removes the version directory; and the check before execution refuses a changed
//! file, a link, a link on the path and a file others can write.

use std::io::Write;
use std::os::unix::fs::{symlink, PermissionsExt};

use zip::CompressionMethod;

use domain::updater::release::archive_asset_name;
use domain::updater::ArchiveError;

use super::super::test_support::*;
use super::*;
use crate::updater::staging::UpdatesRoot;

/// A verified download holding `zip`, as `download` leaves it.
fn downloaded(root: &UpdatesRoot, zip: &[u8]) -> DownloadedRelease {
    let dir = root.create_version_dir(version()).unwrap();
    let archive_name = archive_asset_name(&version());
    dir.create_file(&archive_name, 0o600).unwrap().write_all(zip).unwrap();
    DownloadedRelease {
        version: version(),
        commit: commit(),
        archive_sha256: sha256(zip),
        archive_size: zip.len() as u64,
        archive_name,
        dir,
    }
}

fn root() -> (tempfile::TempDir, UpdatesRoot) {
    let tmp = tempfile::tempdir().unwrap();
    let root = UpdatesRoot::open(&tmp.path().join("updates")).unwrap();
    (tmp, root)
}

fn entries(root: &UpdatesRoot) -> usize {
    std::fs::read_dir(root.path()).unwrap().count()
}

/// Prepares `zip` and returns the error; the version directory must be gone.
fn refused(zip: &[u8]) -> PrepareError {
    let (_tmp, root) = root();
    let error = prepare_release(downloaded(&root, zip)).unwrap_err();
    assert_eq!(entries(&root), 0, "{error:?} left the version directory");
    assert_eq!(error.failure(), domain::updater::UpdateFailure::PrepareFailed);
    error
}

fn archive_error(error: PrepareError) -> ArchiveError {
    match error {
        PrepareError::Archive(error) => error,
        other => panic!("not an archive rule: {other:?}"),
    }
}

fn file<'a>(name: &'a str, bytes: &'a [u8]) -> Member<'a> {
    Member::File { name, bytes, method: CompressionMethod::Deflated, mode: 0o755 }
}

#[test]
fn a_release_is_extracted_into_a_private_executable() {
    let executable = fake_elf(300 * 1024);
    for method in [CompressionMethod::Stored, CompressionMethod::Deflated] {
        let (_tmp, root) = root();
        let zip = zip_of(&[Member::File { name: "relay-desktop", bytes: &executable, method, mode: 0o755 }]);
        let prepared = prepare_release(downloaded(&root, &zip)).unwrap();
        let path = prepared.executable_path();
        assert_eq!(std::fs::read(&path).unwrap(), executable);
        assert_eq!(std::fs::metadata(&path).unwrap().permissions().mode() & 0o7777, 0o700);
        assert_eq!(prepared.executable_sha256, sha256(&executable));
        assert_eq!(prepared.executable_size, executable.len() as u64);
        assert_eq!((prepared.version, prepared.commit), (version(), commit()));
        verify_staged(&path, &prepared.executable_sha256).unwrap();
        let kept = prepared.keep();
        assert!(kept.join("relay-desktop").is_file());
    }
}

#[test]
fn members_other_than_one_regular_relay_desktop_are_refused() {
    let elf = fake_elf(64);
    let cases: Vec<(&str, Vec<u8>, ArchiveError)> = vec![
        ("traversal", zip_of(&[file("../relay-desktop", &elf)]), ArchiveError::EntryName),
        ("absolute", zip_of(&[file("/relay-desktop", &elf)]), ArchiveError::EntryName),
        ("nested", zip_of(&[file("bin/relay-desktop", &elf)]), ArchiveError::EntryName),
        ("wrong name", zip_of(&[file("relay", &elf)]), ArchiveError::EntryName),
        ("case variant", zip_of(&[file("Relay-Desktop", &elf)]), ArchiveError::EntryName),
        (
            "symlink member",
            zip_of(&[Member::Symlink { name: "relay-desktop", target: "/bin/sh" }]),
            ArchiveError::EntryNotRegularFile,
        ),
        ("directory member", zip_of(&[Member::Directory { name: "relay-desktop" }]), ArchiveError::EntryName),
        ("two members", zip_of(&[file("relay-desktop", &elf), file("README", b"hi")]), ArchiveError::EntryCount),
        ("no member", zip_of(&[]), ArchiveError::EntryCount),
    ];
    for (case, zip, expected) in cases {
        assert_eq!(archive_error(refused(&zip)), expected, "{case}");
    }
}

/// Sets the "encrypted" flag of every local and central header.
fn mark_encrypted(zip: &mut [u8]) {
    for at in 0..zip.len() - 4 {
        match &zip[at..at + 4] {
            b"PK\x03\x04" => zip[at + 6] |= 1,
            b"PK\x01\x02" => zip[at + 8] |= 1,
            _ => {}
        }
    }
}

/// Rewrites the external attributes of every central header.
fn set_external_attributes(zip: &mut [u8], attributes: u32) {
    for at in 0..zip.len() - 4 {
        if &zip[at..at + 4] == b"PK\x01\x02" {
            zip[at + 38..at + 42].copy_from_slice(&attributes.to_le_bytes());
        }
    }
}

#[test]
fn a_relay_desktop_member_marked_as_a_directory_or_a_link_is_refused() {
    let regular = release_zip(&fake_elf(64));
    for (case, attributes) in [
        ("unix directory", 0o040_755 << 16),
        ("unix symlink", 0o120_777 << 16),
        ("dos directory", (0o100_755 << 16) | 0x10),
    ] {
        let mut zip = regular.clone();
        set_external_attributes(&mut zip, attributes);
        assert_eq!(archive_error(refused(&zip)), ArchiveError::EntryNotRegularFile, "{case}");
    }
    // Made on MS-DOS: no Unix mode, whatever the attributes say (the reader would make one up).
    let mut dos_made = regular.clone();
    let central = dos_made.windows(4).position(|w| w == b"PK\x01\x02").unwrap();
    dos_made[central + 5] = 0;
    assert_eq!(archive_error(refused(&dos_made)), ArchiveError::EntryNotRegularFile, "made on MS-DOS");
    let mut no_mode = regular.clone();
    set_external_attributes(&mut no_mode, 0);
    assert_eq!(archive_error(refused(&no_mode)), ArchiveError::EntryNotRegularFile, "no mode at all");
}

#[test]
fn an_encrypted_member_is_refused() {
    let mut zip = release_zip(&fake_elf(64));
    mark_encrypted(&mut zip);
    assert_eq!(archive_error(refused(&zip)), ArchiveError::EntryEncrypted);
}

#[test]
fn a_member_whose_crc_fails_is_refused() {
    let elf = fake_elf(4096);
    let mut zip =
        zip_of(&[Member::File { name: "relay-desktop", bytes: &elf, method: CompressionMethod::Stored, mode: 0o755 }]);
    let start = zip.windows(4).position(|w| w == b"\x7fELF").unwrap();
    zip[start + 2000] ^= 0xff;
    assert_eq!(archive_error(refused(&zip)), ArchiveError::ExtractionMismatch);
}

#[test]
fn a_member_that_is_not_an_x86_64_elf_is_refused() {
    let script = b"#!/bin/sh\necho not relay\n".repeat(4);
    assert_eq!(archive_error(refused(&release_zip(&script))), ArchiveError::NotAnExecutable);
    let mut arm = fake_elf(64);
    arm[18] = 183; // aarch64
    assert_eq!(archive_error(refused(&release_zip(&arm))), ArchiveError::NotAnExecutable);
    assert_eq!(archive_error(refused(&release_zip(b"\x7fELF"))), ArchiveError::NotAnExecutable);
}

#[test]
fn a_file_that_is_not_a_zip_is_refused() {
    assert!(matches!(refused(&fake_elf(64)), PrepareError::NotAZip));
}

#[test]
fn an_archive_changed_since_its_download_is_refused() {
    let (_tmp, root) = root();
    let mut release = downloaded(&root, &release_zip(&fake_elf(64)));
    release.archive_sha256 = sha256(b"what was verified");
    assert!(matches!(prepare_release(release), Err(PrepareError::ArchiveChanged)));
    assert_eq!(entries(&root), 0);
}

#[test]
fn a_staged_executable_is_checked_again_before_it_runs() {
    let (tmp, root) = root();
    let executable = fake_elf(1024);
    let prepared = prepare_release(downloaded(&root, &release_zip(&executable))).unwrap();
    let path = prepared.executable_path();
    let digest = prepared.executable_sha256;
    let dir = prepared.keep();

    assert!(matches!(verify_staged(&path, &sha256(b"another build")), Err(StagedError::DigestMismatch)));

    let link = tmp.path().join("link-to-exe");
    symlink(&path, &link).unwrap();
    assert!(matches!(verify_staged(&link, &digest), Err(StagedError::Path(StagingError::SymlinkInPath))));
    let linked_dir = tmp.path().join("link-to-dir");
    symlink(&dir, &linked_dir).unwrap();
    let through = linked_dir.join("relay-desktop");
    assert!(matches!(verify_staged(&through, &digest), Err(StagedError::Path(StagingError::SymlinkInPath))));
    assert!(matches!(verify_staged(Path::new("relay-desktop"), &digest), Err(StagedError::Path(_))));

    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o720)).unwrap();
    assert!(matches!(verify_staged(&path, &digest), Err(StagedError::Writable)));
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o700)).unwrap();

    let mut changed = executable.clone();
    changed[100] ^= 1;
    std::fs::write(&path, &changed).unwrap();
    assert!(matches!(verify_staged(&path, &digest), Err(StagedError::DigestMismatch)));
    std::fs::write(&path, &executable).unwrap();
    verify_staged(&path, &digest).unwrap();
}
