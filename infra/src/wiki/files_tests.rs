//! Tests of the Wiki files: staging, assembly with checksums, content-addressed promotion,
//! owner-only modes, refused links and names, and cleanup.

use std::os::unix::fs::{symlink, PermissionsExt};

use super::*;

const UPLOAD: &str = "abcdefghij12345";

fn mode(path: &Path) -> u32 {
    fs::metadata(path).unwrap().permissions().mode() & 0o777
}

#[test]
fn chunks_assemble_into_one_checked_file_and_promote_under_their_checksum() {
    let tmp = tempfile::tempdir().unwrap();
    let files = WikiFiles::new(tmp.path());
    let whole = b"%PDF-1.7 first part|second part".to_vec();
    files.write_chunk(UPLOAD, 1, &whole[16..]).unwrap();
    files.write_chunk(UPLOAD, 0, b"stale copy that is replaced").unwrap();
    files.write_chunk(UPLOAD, 0, &whole[..16]).unwrap();
    let dir = files.upload_dir(UPLOAD).unwrap();
    assert_eq!(mode(&dir), 0o700);
    assert_eq!(mode(&dir.join("chunk-00000")), 0o600);

    let sizes = [16, whole.len() as u64 - 16];
    let (path, checksum) = files.assemble(UPLOAD, &sizes, 1024).unwrap();
    assert_eq!(fs::read(&path).unwrap(), whole);
    assert_eq!(checksum, sha256_hex(&whole));
    assert!(!dir.join("chunk-00000").exists(), "chunks are removed once assembled");

    let stored = files.promote_pdf(UPLOAD, &checksum).unwrap();
    assert_eq!(stored, tmp.path().join("store/wiki/documents").join(format!("{checksum}.pdf")));
    assert_eq!(mode(&stored), 0o600);
    assert_eq!(mode(&tmp.path().join("store/wiki")), 0o700);
    let (mut file, size) = files.open_pdf(&checksum).unwrap();
    let mut read = Vec::new();
    file.read_to_end(&mut read).unwrap();
    assert_eq!((read, size), (whole.clone(), whole.len() as u64));

    files.remove_upload(UPLOAD).unwrap();
    assert!(!dir.exists());
    assert!(files.staged_uploads().unwrap().is_empty());
}

#[test]
fn assembly_refuses_a_chunk_of_the_wrong_size_or_past_the_limit() {
    let tmp = tempfile::tempdir().unwrap();
    let files = WikiFiles::new(tmp.path());
    files.write_chunk(UPLOAD, 0, b"0123456789").unwrap();
    files.write_chunk(UPLOAD, 1, b"abc").unwrap();
    assert!(files.assemble(UPLOAD, &[10, 4], 1024).is_err(), "second chunk is 3 bytes, not 4");
    assert!(files.assemble(UPLOAD, &[10, 3], 12).is_err(), "13 bytes exceed the limit");
    assert!(!files.assembled_path(UPLOAD).unwrap().exists());
    assert!(files.upload_dir(UPLOAD).unwrap().join("chunk-00001").exists(), "a failed assembly keeps the chunks");
    assert!(files.assemble(UPLOAD, &[10, 3, 1], 1024).is_err(), "a missing chunk");
}

#[test]
fn a_linked_chunk_or_library_file_is_never_read() {
    let tmp = tempfile::tempdir().unwrap();
    let files = WikiFiles::new(tmp.path());
    let secret = tmp.path().join("secret");
    fs::write(&secret, b"secret").unwrap();
    files.write_chunk(UPLOAD, 0, b"%PDF-").unwrap();
    let chunk = files.upload_dir(UPLOAD).unwrap().join("chunk-00000");
    fs::remove_file(&chunk).unwrap();
    symlink(&secret, &chunk).unwrap();
    assert!(files.assemble(UPLOAD, &[6], 1024).is_err());

    let checksum = sha256_hex(b"secret");
    fs::create_dir_all(tmp.path().join("store/wiki/documents")).unwrap();
    symlink(&secret, files.pdf_path(&checksum).unwrap()).unwrap();
    assert!(files.open_pdf(&checksum).is_err());
}

#[test]
fn names_come_only_from_checksums_and_record_ids() {
    let tmp = tempfile::tempdir().unwrap();
    let files = WikiFiles::new(tmp.path());
    for bad in ["../../etc/passwd", "ABCDEF", "", "0123"] {
        assert!(files.pdf_path(bad).is_err(), "{bad}");
        assert!(files.cover_path(bad).is_err(), "{bad}");
    }
    for bad in ["../x", "abc", "ABCDEFGHIJ12345", "abcdefghij1234/"] {
        assert!(files.upload_dir(bad).is_err(), "{bad}");
        assert!(files.write_chunk(bad, 0, b"x").is_err(), "{bad}");
    }
}

#[test]
fn covers_are_content_addressed_and_bounded_on_read() {
    let tmp = tempfile::tempdir().unwrap();
    let files = WikiFiles::new(tmp.path());
    let png = b"\x89PNG\r\n\x1a\nnot really".to_vec();
    let checksum = files.put_cover(&png).unwrap();
    assert_eq!(files.put_cover(&png).unwrap(), checksum, "idempotent");
    assert_eq!(files.read_cover(&checksum, 1024).unwrap(), png);
    assert!(files.read_cover(&checksum, 4).is_err());
    files.remove_cover(&checksum).unwrap();
    files.remove_cover(&checksum).unwrap();
    assert!(files.read_cover(&checksum, 1024).is_err());
}

#[test]
fn promoting_a_pdf_the_library_already_holds_keeps_the_stored_copy() {
    let tmp = tempfile::tempdir().unwrap();
    let files = WikiFiles::new(tmp.path());
    let bytes = b"%PDF-1.4 same".to_vec();
    let checksum = sha256_hex(&bytes);
    for upload in [UPLOAD, "zyxwvutsrq98765"] {
        files.write_chunk(upload, 0, &bytes).unwrap();
        files.assemble(upload, &[bytes.len() as u64], 1024).unwrap();
        files.promote_pdf(upload, &checksum).unwrap();
        assert!(!files.assembled_path(upload).unwrap().exists());
    }
    assert_eq!(fs::read(files.pdf_path(&checksum).unwrap()).unwrap(), bytes);
}

#[test]
fn files_inside_the_data_directory_are_recognised_even_through_links() {
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    fs::create_dir_all(data.join("secrets")).unwrap();
    fs::write(data.join("secrets/passphrase"), b"x").unwrap();
    let files = WikiFiles::new(&data);
    assert!(files.is_inside_data_dir(&data.join("secrets/passphrase")));
    let outside = tmp.path().join("runbook.pdf");
    fs::write(&outside, b"%PDF-").unwrap();
    assert!(!files.is_inside_data_dir(&outside));
    let link = tmp.path().join("innocent.pdf");
    symlink(data.join("secrets/passphrase"), &link).unwrap();
    assert!(files.is_inside_data_dir(&link));
}
