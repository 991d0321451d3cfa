//! Archive rules: the checksum line (the two-space text form only, line endings, every malformation,
//! the exact name, the size bound), each ZIP entry refusal (count, name variants and
//! traversal, encryption, compression, size bounds, file type), the extraction and ELF header
//! checks, and the three-way digest agreement, plus properties: arbitrary checksum files and
//! headers never panic.

use super::*;
use proptest::prelude::*;

const NAME: &str = "relay-v1.3.0-linux-x86_64.zip";
const HEX: &str = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08";
const MIB: u64 = 1024 * 1024;

#[test]
fn the_checksum_file_is_one_sha256sum_line_for_the_exact_asset() {
    let expected = Sha256Digest::parse_hex(HEX).unwrap();
    for text in [format!("{HEX}  {NAME}"), format!("{HEX}  {NAME}\n"), format!("{HEX}  {NAME}\r\n")] {
        assert_eq!(parse_checksum_file(text.as_bytes(), NAME), Ok(expected), "{text:?}");
    }
}

#[test]
fn every_other_checksum_file_shape_is_refused() {
    let malformed = Err(ArchiveError::ChecksumFileMalformed);
    for text in [
        format!("{HEX} {NAME}"),
        format!("{HEX}\t{NAME}"),
        format!("{}  {NAME}", HEX.to_uppercase()),
        format!("{}  {NAME}", &HEX[..63]),
        format!("{HEX}   {NAME}"),
        format!("{HEX}  {NAME}\n\n"),
        format!("{HEX}  {NAME}\r"),
        format!("{HEX}  {NAME}\n{HEX}  {NAME}\n"),
        format!(" {HEX}  {NAME}"),
        HEX.to_string(),
    ] {
        let parsed = parse_checksum_file(text.as_bytes(), NAME);
        assert!(
            parsed == malformed || parsed == Err(ArchiveError::ChecksumFileNameMismatch),
            "{text:?} gave {parsed:?}"
        );
    }
    assert_eq!(parse_checksum_file(format!("{HEX}  {NAME}\n\n").as_bytes(), NAME), malformed);
    assert_eq!(parse_checksum_file(format!("{HEX} {NAME}").as_bytes(), NAME), malformed);
    // sha256sum's binary-mode marker is not the one accepted form.
    assert_eq!(parse_checksum_file(format!("{HEX} *{NAME}\n").as_bytes(), NAME), malformed);
    assert_eq!(parse_checksum_file(b"\xff\xfe", NAME), malformed);
    let mut non_utf8 = format!("{HEX}  ").into_bytes();
    non_utf8.extend_from_slice(b"\xffname");
    assert_eq!(parse_checksum_file(&non_utf8, NAME), malformed);
    assert_eq!(ArchiveError::ChecksumFileMalformed.code(), "checksum_file_malformed");
}

#[test]
fn the_checksum_file_must_name_exactly_the_asset_and_fit_256_bytes() {
    let mismatch = Err(ArchiveError::ChecksumFileNameMismatch);
    for name in
        ["Relay-v1.3.0-linux-x86_64.zip", "./relay-v1.3.0-linux-x86_64.zip", "relay-v1.3.0-linux-x86_64.zip ", ""]
    {
        assert_eq!(parse_checksum_file(format!("{HEX}  {name}\n").as_bytes(), NAME), mismatch, "{name:?}");
    }
    assert_eq!(parse_checksum_file(b"", NAME), Err(ArchiveError::ChecksumFileSize));
    let long_name = "a".repeat(256 - 66);
    assert_eq!(parse_checksum_file(format!("{HEX}  {long_name}").as_bytes(), &long_name).map(|_| ()), Ok(()));
    let too_long = "a".repeat(256 - 65);
    assert_eq!(
        parse_checksum_file(format!("{HEX}  {too_long}").as_bytes(), &too_long),
        Err(ArchiveError::ChecksumFileSize)
    );
}

fn entry(name: &[u8]) -> ZipEntryFacts<'_> {
    ZipEntryFacts {
        name,
        encrypted: false,
        compression_method: ZIP_DEFLATED,
        uncompressed_size: 30 * MIB,
        unix_mode: Some(0o100_755),
        dos_directory: false,
    }
}

#[test]
fn a_zip_with_one_regular_relay_desktop_is_accepted() {
    assert_eq!(check_zip_entries(&[entry(b"relay-desktop")]), Ok(30 * MIB));
    let stored =
        ZipEntryFacts { compression_method: ZIP_STORED, unix_mode: Some(0o100_600), ..entry(b"relay-desktop") };
    assert_eq!(check_zip_entries(&[stored]), Ok(30 * MIB));
}

#[test]
fn the_zip_must_hold_exactly_one_member() {
    assert_eq!(check_zip_entries(&[]), Err(ArchiveError::EntryCount));
    let two = [entry(b"relay-desktop"), entry(b"README")];
    assert_eq!(check_zip_entries(&two), Err(ArchiveError::EntryCount));
    let twice = [entry(b"relay-desktop"), entry(b"relay-desktop")];
    assert_eq!(check_zip_entries(&twice), Err(ArchiveError::EntryCount));
}

#[test]
fn the_member_name_must_be_exact() {
    for name in [
        &b"Relay-Desktop"[..],
        b"RELAY-DESKTOP",
        b"relay-desktop/",
        b"./relay-desktop",
        b"../relay-desktop",
        b"bin/relay-desktop",
        b"/relay-desktop",
        b"relay-desktop\0",
        b"relay-desktop ",
        b"relay\\desktop",
        b"relay-desktop.exe",
    ] {
        assert_eq!(check_zip_entries(&[entry(name)]), Err(ArchiveError::EntryName), "{name:?}");
    }
}

#[test]
fn the_member_must_be_unencrypted_stored_or_deflated_and_bounded() {
    let base = entry(b"relay-desktop");
    assert_eq!(check_zip_entries(&[ZipEntryFacts { encrypted: true, ..base }]), Err(ArchiveError::EntryEncrypted));
    for method in [1, 9, 12, 14, 93, 99] {
        assert_eq!(
            check_zip_entries(&[ZipEntryFacts { compression_method: method, ..base }]),
            Err(ArchiveError::EntryCompression)
        );
    }
    for (size, expected) in [
        (0, Err(ArchiveError::EntrySize)),
        (1, Err(ArchiveError::EntrySize)),
        (2, Ok(2)),
        (512 * MIB, Ok(512 * MIB)),
        (512 * MIB + 1, Err(ArchiveError::EntrySize)),
        (u64::MAX, Err(ArchiveError::EntrySize)),
    ] {
        assert_eq!(check_zip_entries(&[ZipEntryFacts { uncompressed_size: size, ..base }]), expected, "{size}");
    }
}

#[test]
fn the_member_must_be_a_regular_file() {
    let base = entry(b"relay-desktop");
    for mode in [Some(0o120_777), Some(0o040_755), Some(0o020_644), Some(0o010_644), Some(0o140_755), Some(0o755), None]
    {
        assert_eq!(
            check_zip_entries(&[ZipEntryFacts { unix_mode: mode, ..base }]),
            Err(ArchiveError::EntryNotRegularFile),
            "{mode:?}"
        );
    }
    assert_eq!(
        check_zip_entries(&[ZipEntryFacts { dos_directory: true, ..base }]),
        Err(ArchiveError::EntryNotRegularFile)
    );
}

#[test]
fn the_extraction_must_match_the_declared_size_and_crc() {
    assert_eq!(check_extraction(100, 100, true), Ok(()));
    assert_eq!(check_extraction(100, 99, true), Err(ArchiveError::ExtractionMismatch));
    assert_eq!(check_extraction(100, 101, true), Err(ArchiveError::ExtractionMismatch));
    assert_eq!(check_extraction(100, 100, false), Err(ArchiveError::ExtractionMismatch));
}

fn elf_header() -> Vec<u8> {
    let mut header = vec![0u8; 64];
    header[..4].copy_from_slice(b"\x7fELF");
    header[4] = 2;
    header[5] = 1;
    header[6] = 1;
    header[16] = 3;
    header[18] = 62;
    header
}

#[test]
fn the_executable_must_be_a_64_bit_little_endian_x86_64_elf() {
    assert_eq!(check_executable_header(&elf_header()), Ok(()));
    assert_eq!(check_executable_header(&elf_header()[..20]), Ok(()));
    assert_eq!(check_executable_header(&elf_header()[..19]), Err(ArchiveError::NotAnExecutable));
    assert_eq!(check_executable_header(b"MZ\x90\0"), Err(ArchiveError::NotAnExecutable));
    assert_eq!(check_executable_header(b"#!/bin/sh\nexec evil\n"), Err(ArchiveError::NotAnExecutable));
    for (index, value) in [(0, 0x7e), (3, b'G'), (4, 1), (5, 2), (6, 0), (18, 183), (19, 1)] {
        let mut header = elf_header();
        header[index] = value;
        assert_eq!(check_executable_header(&header), Err(ArchiveError::NotAnExecutable), "byte {index}");
    }
}

#[test]
fn the_archive_digest_must_agree_with_github_and_the_checksum_file() {
    let a = Sha256Digest::from_bytes([1; 32]);
    let b = Sha256Digest::from_bytes([2; 32]);
    assert_eq!(check_archive_digests(&a, &a, &a), Ok(()));
    assert_eq!(check_archive_digests(&a, &b, &a), Err(ArchiveError::GithubDigestMismatch));
    assert_eq!(check_archive_digests(&a, &a, &b), Err(ArchiveError::ChecksumFileDigestMismatch));
    assert_eq!(
        check_archive_digests(&a, &b, &b),
        Err(ArchiveError::GithubDigestMismatch),
        "GitHub and file agree, archive differs"
    );
}

proptest! {
    #[test]
    fn arbitrary_checksum_files_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..300), text in "\\PC{0,120}") {
        let _ = parse_checksum_file(&bytes, NAME);
        let _ = parse_checksum_file(text.as_bytes(), NAME);
    }

    #[test]
    fn near_valid_checksum_lines_parse_only_when_exact(hex in "[0-9a-fA-F]{62,66}", sep in "[ *\t]{1,3}", end in prop_oneof![Just(""), Just("\n"), Just("\r\n"), Just("\n\n")]) {
        let text = format!("{hex}{sep}{NAME}{end}");
        let exact = hex.len() == 64 && !hex.bytes().any(|b| b.is_ascii_uppercase()) && (sep == "  " || sep == " *") && end != "\n\n";
        prop_assert_eq!(parse_checksum_file(text.as_bytes(), NAME).is_ok(), exact);
    }

    #[test]
    fn arbitrary_headers_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..40)) {
        let _ = check_executable_header(&bytes);
    }
}
