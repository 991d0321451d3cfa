//! The download against a fake GitHub serving the real release JSON shape and the asset API's
//! `302` to storage: the happy path (files, digests, modes, progress, request headers), each of
//! the three digest agreements (GitHub metadata, checksum file, signature), signature refusals
//! (another key, another version's trusted comment) before the archive is requested, a
//! pre-existing `.part` file, and the byte counter that refuses the first byte beyond the
//! metadata size. Redirects, lengths, stalls and cancellation are in `download_transport_tests`.

use std::os::unix::fs::PermissionsExt;

use bytes::Bytes;
use domain::updater::release::archive_asset_name;
use domain::updater::{expected_trusted_comment, ArchiveError, SignatureError, UpdateFailure};

use super::super::test_support::*;
use super::*;

fn mode(path: &std::path::Path) -> u32 {
    std::fs::symlink_metadata(path).unwrap().permissions().mode() & 0o7777
}

#[tokio::test]
async fn a_release_downloads_into_a_private_version_directory() {
    let setup = Setup::start().await;
    let (result, progress) = setup.download(&setup.downloader()).await;
    let downloaded = result.unwrap();

    let files = &setup.files;
    assert_eq!(downloaded.archive_sha256, sha256(&files.archive));
    assert_eq!(downloaded.archive_size, files.archive.len() as u64);
    assert_eq!((downloaded.version, downloaded.commit), (version(), commit()));
    let dir = downloaded.dir().path();
    assert_eq!(mode(dir), 0o700);
    assert_eq!(setup.root_entries(), [dir.file_name().unwrap().to_string_lossy().into_owned()]);
    let name = archive_asset_name(&version());
    let mut names: Vec<String> =
        std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    names.sort();
    assert_eq!(names, [name.clone(), format!("{name}.minisig"), format!("{name}.sha256")], "no .part is left");
    for file in &names {
        assert_eq!(mode(&dir.join(file)), 0o600, "{file}");
    }
    assert_eq!(std::fs::read(dir.join(&name)).unwrap(), files.archive);
    assert_eq!(std::fs::read(dir.join(format!("{name}.sha256"))).unwrap(), files.checksum);

    let total = files.archive.len() as u64;
    assert_eq!(progress.first(), Some(&DownloadProgress { bytes_done: 0, bytes_total: total }));
    assert_eq!(progress.last(), Some(&DownloadProgress { bytes_done: total, bytes_total: total }));
    assert!(progress.len() >= 3 && progress.windows(2).all(|w| w[0].bytes_done < w[1].bytes_done), "{progress:?}");

    // The checksum and the signature come first, each through the asset API and its redirect.
    let api = setup.github.api.requests();
    let asked: Vec<&str> = api.iter().map(|r| r.path()).collect();
    assert_eq!(asked, [asset_path(CHECKSUM_ID), asset_path(SIGNATURE_ID), asset_path(ARCHIVE_ID)]);
    assert_eq!(
        setup.storage_paths(),
        [storage_path(CHECKSUM_ID), storage_path(SIGNATURE_ID), storage_path(ARCHIVE_ID)]
    );
    for request in api.iter().chain(setup.github.storage.requests().iter()) {
        assert_eq!(request.header("accept"), Some("application/octet-stream"));
        assert_eq!(request.header("user-agent"), Some("Relay-Updater"));
        assert_eq!(request.header("authorization"), None);
    }
    assert_eq!(downloaded.dir().path(), dir);
}

/// Downloads and returns the error; the updates root must be empty afterwards.
async fn refused(setup: &Setup, downloader: &ReleaseDownloader) -> UpdateDownloadError {
    let (result, _) = setup.download(downloader).await;
    let error = result.unwrap_err();
    assert_eq!(setup.root_entries(), Vec::<String>::new(), "{error:?} left files behind");
    error
}

#[tokio::test]
async fn an_archive_that_differs_from_githubs_digest_is_refused() {
    let publisher = Publisher::new();
    let mut files = ReleaseFiles::signed(&publisher, test_archive());
    files.archive_digest = sha256(b"what GitHub says it holds");
    let setup = Setup::with_files(publisher, files).await;
    let error = refused(&setup, &setup.downloader()).await;
    assert!(matches!(error, UpdateDownloadError::Archive(ArchiveError::GithubDigestMismatch)), "{error:?}");
    assert_eq!(error.failure(), UpdateFailure::VerificationFailed);
}

#[tokio::test]
async fn an_archive_that_differs_from_the_checksum_file_is_refused() {
    let publisher = Publisher::new();
    let archive = test_archive();
    let signature = publisher.sign(&archive, &expected_trusted_comment(&version(), &commit()));
    let files = ReleaseFiles::from_parts(archive, checksum_file(&sha256(b"another archive")), signature);
    let setup = Setup::with_files(publisher, files).await;
    let error = refused(&setup, &setup.downloader()).await;
    assert!(matches!(error, UpdateDownloadError::Archive(ArchiveError::ChecksumFileDigestMismatch)), "{error:?}");
    assert_eq!(error.failure(), UpdateFailure::VerificationFailed);
}

#[tokio::test]
async fn an_archive_the_signature_does_not_cover_is_refused() {
    let publisher = Publisher::new();
    let archive = test_archive();
    let signature = publisher.sign(b"another archive", &expected_trusted_comment(&version(), &commit()));
    let files = ReleaseFiles::from_parts(archive.clone(), checksum_file(&sha256(&archive)), signature);
    let setup = Setup::with_files(publisher, files).await;
    let error = refused(&setup, &setup.downloader()).await;
    assert!(matches!(error, UpdateDownloadError::Signature(SignatureError::SignatureMismatch)), "{error:?}");
    assert_eq!(error.failure(), UpdateFailure::SignatureInvalid);
}

#[tokio::test]
async fn a_signature_by_another_key_stops_before_the_archive_is_requested() {
    let setup = Setup::start().await;
    let error = refused(&setup, &setup.downloader_with(Duration::from_secs(5), Publisher::new().key)).await;
    assert!(matches!(error, UpdateDownloadError::Signature(SignatureError::KeyIdMismatch)), "{error:?}");
    assert_eq!(error.failure(), UpdateFailure::SignatureInvalid);
    assert!(!setup.storage_paths().contains(&storage_path(ARCHIVE_ID)), "the archive was never requested");
}

#[tokio::test]
async fn a_genuine_signature_for_another_release_is_refused() {
    let publisher = Publisher::new();
    let archive = test_archive();
    let other_version = expected_trusted_comment(&Version::new(1, 2, 9), &commit());
    let other_commit = expected_trusted_comment(&version(), &CommitSha::parse_hex(OTHER_COMMIT).unwrap());
    for comment in [other_version, other_commit] {
        let signature = publisher.sign(&archive, &comment);
        let files = ReleaseFiles::from_parts(archive.clone(), checksum_file(&sha256(&archive)), signature);
        let setup = Setup::with_files(Publisher::new(), files).await;
        let downloader = setup.downloader_with(Duration::from_secs(5), publisher.key.clone());
        let error = refused(&setup, &downloader).await;
        assert!(matches!(error, UpdateDownloadError::Signature(SignatureError::TrustedCommentMismatch)), "{error:?}");
    }
}

#[tokio::test]
async fn small_assets_must_match_githubs_digest_of_them() {
    let publisher = Publisher::new();
    let mut files = ReleaseFiles::signed(&publisher, test_archive());
    files.signature_digest = sha256(b"another signature file");
    let setup = Setup::with_files(publisher, files).await;
    let error = refused(&setup, &setup.downloader()).await;
    assert!(matches!(error, UpdateDownloadError::Archive(ArchiveError::GithubDigestMismatch)), "{error:?}");
    assert!(!setup.storage_paths().contains(&storage_path(ARCHIVE_ID)));
}

#[tokio::test]
async fn an_existing_part_file_is_refused() {
    let setup = Setup::start().await;
    let downloader = setup.downloader();
    let dir = setup.root.create_version_dir(version()).unwrap();
    let target = target(&setup.files);
    std::fs::write(dir.file(&part_name(&target.assets.checksum)), b"planted").unwrap();
    let mut bytes = Vec::new();
    let cancel = CancellationToken::new();
    let result = bounded(downloader.fetch(&dir, &target.assets.checksum, Sink::Memory(&mut bytes), &cancel)).await;
    assert!(matches!(result, Err(UpdateDownloadError::Staging(StagingError::AlreadyExists))), "{result:?}");
    assert_eq!(std::fs::read(dir.file(&part_name(&target.assets.checksum))).unwrap(), b"planted");
}

#[tokio::test]
async fn the_first_byte_beyond_the_expected_size_is_never_written() {
    let tmp = tempfile::tempdir().unwrap();
    let root = UpdatesRoot::open(&tmp.path().join("updates")).unwrap();
    let dir = root.create_version_dir(version()).unwrap();
    let chunks = [b"0123".as_slice(), b"4567", b"89"].map(|c| Ok(Bytes::from_static(c)));
    let file = dir.create_file("x.part", 0o600).unwrap();
    let mut kept = Vec::new();
    let result = write_body(futures_util::stream::iter(chunks), file, 9, Sink::Memory(&mut kept)).await;
    assert!(matches!(result, Err(UpdateDownloadError::Rule(DownloadError::TooLong))), "{result:?}");
    assert_eq!(std::fs::read(dir.file("x.part")).unwrap(), b"01234567", "the refused chunk was not written");
    assert_eq!(kept, b"01234567");

    let file = dir.create_file("y.part", 0o600).unwrap();
    let chunks = [Ok(Bytes::from_static(b"0123")), Err(BodyError::Broken)];
    let result = write_body(futures_util::stream::iter(chunks), file, 9, Sink::Memory(&mut Vec::new())).await;
    assert!(matches!(result, Err(UpdateDownloadError::Rule(DownloadError::TooShort))), "{result:?}");
}
