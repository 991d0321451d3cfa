//! The release archive's rules: the checksum file's one strict line ([`parse_checksum_file`]),
//! the ZIP's single member judged from the entry metadata the caller read
//! ([`check_zip_entries`]: exactly one regular, unencrypted, stored-or-deflated
//! [`EXECUTABLE_NAME`] of 2 B..512 MiB), the extracted executable's header
//! ([`check_executable_header`]: a 64-bit little-endian x86-64 ELF) and size, and the rule that
//! the archive's SHA-256 agrees with both GitHub's digest and the checksum file
//! ([`check_archive_digests`]). It refuses to open ZIPs, inflate, hash or write files; names
//! are compared as raw bytes, so traversal (`../`), directories, case variants and other
//! encodings simply fail the exact-name rule.

use super::digest::Sha256Digest;
use super::release::MAX_CHECKSUM_BYTES;
use thiserror::Error;

/// The one member of a release archive.
pub const EXECUTABLE_NAME: &str = "relay-desktop";
/// Smallest extracted executable.
pub const MIN_EXECUTABLE_BYTES: u64 = 2;
/// Largest extracted executable.
pub const MAX_EXECUTABLE_BYTES: u64 = 512 * 1024 * 1024;
/// ZIP compression method "stored".
pub const ZIP_STORED: u16 = 0;
/// ZIP compression method "deflate".
pub const ZIP_DEFLATED: u16 = 8;
/// Bytes of the executable the header check needs.
pub const EXECUTABLE_HEADER_BYTES: usize = 20;

const UNIX_FILE_TYPE_MASK: u32 = 0o170_000;
const UNIX_REGULAR_FILE: u32 = 0o100_000;

/// An archive the updater refuses; the caller removes the staging directory.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ArchiveError {
    #[error("The checksum file is empty or larger than 256 bytes.")]
    ChecksumFileSize,
    #[error("The checksum file is not one '<sha256>  <name>' line.")]
    ChecksumFileMalformed,
    #[error("The checksum file names another file.")]
    ChecksumFileNameMismatch,
    #[error("The archive must hold exactly one file.")]
    EntryCount,
    #[error("The archive member has the wrong name.")]
    EntryName,
    #[error("The archive member is encrypted.")]
    EntryEncrypted,
    #[error("The archive member uses an unsupported compression method.")]
    EntryCompression,
    #[error("The archive member's size is out of bounds.")]
    EntrySize,
    #[error("The archive member is not a regular file.")]
    EntryNotRegularFile,
    #[error("The extracted executable does not have the declared size or CRC.")]
    ExtractionMismatch,
    #[error("The extracted file is not a Linux x86-64 executable.")]
    NotAnExecutable,
    #[error("The archive digest differs from GitHub's digest.")]
    GithubDigestMismatch,
    #[error("The archive digest differs from the checksum file.")]
    ChecksumFileDigestMismatch,
}

impl ArchiveError {
    /// A stable, machine-readable code (`snake_case`).
    pub fn code(&self) -> &'static str {
        match self {
            ArchiveError::ChecksumFileSize => "checksum_file_size",
            ArchiveError::ChecksumFileMalformed => "checksum_file_malformed",
            ArchiveError::ChecksumFileNameMismatch => "checksum_file_name_mismatch",
            ArchiveError::EntryCount => "archive_entry_count",
            ArchiveError::EntryName => "archive_entry_name",
            ArchiveError::EntryEncrypted => "archive_entry_encrypted",
            ArchiveError::EntryCompression => "archive_entry_compression",
            ArchiveError::EntrySize => "archive_entry_size",
            ArchiveError::EntryNotRegularFile => "archive_entry_not_regular_file",
            ArchiveError::ExtractionMismatch => "extraction_mismatch",
            ArchiveError::NotAnExecutable => "not_an_executable",
            ArchiveError::GithubDigestMismatch => "github_digest_mismatch",
            ArchiveError::ChecksumFileDigestMismatch => "checksum_file_digest_mismatch",
        }
    }
}

/// Parses the checksum file: 1..=256 bytes, exactly one line `<64 lowercase hex>  <name>` (two
/// spaces, as `sha256sum` writes in text mode; the binary-mode `*` marker is refused) with an
/// optional final `\n` or `\r\n`, where `<name>` is exactly `asset_name`.
pub fn parse_checksum_file(bytes: &[u8], asset_name: &str) -> Result<Sha256Digest, ArchiveError> {
    if bytes.is_empty() || bytes.len() as u64 > MAX_CHECKSUM_BYTES {
        return Err(ArchiveError::ChecksumFileSize);
    }
    let line = bytes.strip_suffix(b"\r\n").or_else(|| bytes.strip_suffix(b"\n")).unwrap_or(bytes);
    if line.iter().any(|&b| b == b'\n' || b == b'\r') {
        return Err(ArchiveError::ChecksumFileMalformed);
    }
    let line = std::str::from_utf8(line).map_err(|_| ArchiveError::ChecksumFileMalformed)?;
    let (Some(hex), Some("  "), Some(name)) = (line.get(..64), line.get(64..66), line.get(66..)) else {
        return Err(ArchiveError::ChecksumFileMalformed);
    };
    let digest = Sha256Digest::parse_hex(hex).ok_or(ArchiveError::ChecksumFileMalformed)?;
    if name != asset_name {
        return Err(ArchiveError::ChecksumFileNameMismatch);
    }
    Ok(digest)
}

/// One ZIP member as the caller's ZIP reader reports it (central directory, cross-checked with
/// the local header by the reader).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ZipEntryFacts<'a> {
    /// The raw name bytes.
    pub name: &'a [u8],
    pub encrypted: bool,
    pub compression_method: u16,
    pub uncompressed_size: u64,
    /// The Unix mode from the external attributes, when the archive was made on Unix.
    pub unix_mode: Option<u32>,
    /// The MS-DOS directory attribute.
    pub dos_directory: bool,
}

/// The ZIP must hold exactly one member, named exactly [`EXECUTABLE_NAME`], not encrypted,
/// stored or deflated, [`MIN_EXECUTABLE_BYTES`]..=[`MAX_EXECUTABLE_BYTES`] when extracted, and a
/// regular file by its Unix mode (no symlink, no directory, no missing mode). Returns the size
/// the extraction must produce.
pub fn check_zip_entries(entries: &[ZipEntryFacts<'_>]) -> Result<u64, ArchiveError> {
    let [entry] = entries else {
        return Err(ArchiveError::EntryCount);
    };
    if entry.name != EXECUTABLE_NAME.as_bytes() {
        return Err(ArchiveError::EntryName);
    }
    if entry.encrypted {
        return Err(ArchiveError::EntryEncrypted);
    }
    if entry.compression_method != ZIP_STORED && entry.compression_method != ZIP_DEFLATED {
        return Err(ArchiveError::EntryCompression);
    }
    if !(MIN_EXECUTABLE_BYTES..=MAX_EXECUTABLE_BYTES).contains(&entry.uncompressed_size) {
        return Err(ArchiveError::EntrySize);
    }
    let regular = entry.unix_mode.is_some_and(|mode| mode & UNIX_FILE_TYPE_MASK == UNIX_REGULAR_FILE);
    if !regular || entry.dos_directory {
        return Err(ArchiveError::EntryNotRegularFile);
    }
    Ok(entry.uncompressed_size)
}

/// After streaming the member out: the byte count equals the declared size and the reader's
/// CRC-32 check passed.
pub fn check_extraction(declared_size: u64, extracted_bytes: u64, crc_matched: bool) -> Result<(), ArchiveError> {
    if extracted_bytes == declared_size && crc_matched {
        Ok(())
    } else {
        Err(ArchiveError::ExtractionMismatch)
    }
}

/// The executable's first bytes: `\x7fELF`, 64-bit class, little-endian, ELF version 1, and
/// machine x86-64 (`e_machine` 62). Fewer than [`EXECUTABLE_HEADER_BYTES`] bytes are refused.
pub fn check_executable_header(first_bytes: &[u8]) -> Result<(), ArchiveError> {
    let Some(header) = first_bytes.get(..EXECUTABLE_HEADER_BYTES) else {
        return Err(ArchiveError::NotAnExecutable);
    };
    let magic = header[..4] == *b"\x7fELF";
    let class_64 = header[4] == 2;
    let little_endian = header[5] == 1;
    let version_1 = header[6] == 1;
    let machine_x86_64 = header[18..20] == [62, 0];
    if magic && class_64 && little_endian && version_1 && machine_x86_64 {
        Ok(())
    } else {
        Err(ArchiveError::NotAnExecutable)
    }
}

/// The archive's SHA-256 must equal GitHub's `digest` and the checksum file's digest (the
/// publisher signature is the third, independent agreement: see `signature`).
pub fn check_archive_digests(
    archive: &Sha256Digest,
    github: &Sha256Digest,
    checksum_file: &Sha256Digest,
) -> Result<(), ArchiveError> {
    if archive != github {
        return Err(ArchiveError::GithubDigestMismatch);
    }
    if archive != checksum_file {
        return Err(ArchiveError::ChecksumFileDigestMismatch);
    }
    Ok(())
}

#[cfg(test)]
#[path = "archive_tests.rs"]
mod tests;
