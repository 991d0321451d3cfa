//! Preparing a downloaded release: the verified ZIP in its version directory is opened without
//! following links, re-hashed against the digest the download verified, and judged by the
//! domain archive rules (`check_zip_entries`: exactly one regular, unencrypted, stored or
//! deflated member named exactly `relay-desktop`, of bounded size; traversal, links,
//! directories, case variants and extra members all fail). The member is streamed out into the
//! same directory as an executable 0700 file created `O_EXCL|O_NOFOLLOW`, counted against its
//! declared size, CRC-checked by the ZIP reader at the end of its data, and its header must be
//! an x86-64 ELF; then it is fsynced with the directory. Any failure removes the whole version
//! directory. [`verify_staged`] is the check before every execution: the path is re-resolved
//! without links, the file must be a regular file of the current user that nobody else can
//! write, and its SHA-256 must still be the prepared one. This module is blocking (run it off
//! the async threads); it never executes anything and never writes outside the version
//! directory.

use std::fs::File;
use std::io::{self, Read, Seek, Write};
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};
use zip::{CompressionMethod, HasZipMetadata, ZipArchive};

use domain::updater::archive::{EXECUTABLE_HEADER_BYTES, ZIP_DEFLATED, ZIP_STORED};
use domain::updater::{
    check_executable_header, check_extraction, check_zip_entries, ArchiveError, CommitSha, Sha256Digest, UpdateFailure,
    Version, ZipEntryFacts, EXECUTABLE_NAME,
};

use super::download::DownloadedRelease;
use super::staging::{open_owned_regular, walk_without_links, StagingError, VersionDir};

/// Bytes read from the archive at a time.
const READ_CHUNK: usize = 256 * 1024;
/// The ZIP "version made by" host system of Unix.
const ZIP_SYSTEM_UNIX: u8 = 3;
/// The MS-DOS directory bit of a ZIP entry's external attributes.
const DOS_DIRECTORY_ATTRIBUTE: u32 = 0x10;

/// Why a release could not be prepared; the version directory is gone.
#[derive(Debug, thiserror::Error)]
pub enum PrepareError {
    #[error("{0}")]
    Archive(ArchiveError),
    #[error("The archive is not a readable ZIP file.")]
    NotAZip,
    #[error("The archive changed after it was verified.")]
    ArchiveChanged,
    #[error("{0}")]
    Staging(StagingError),
}

impl PrepareError {
    /// Always `prepare-failed`: the download was verified, its contents are what failed.
    pub fn failure(&self) -> UpdateFailure {
        UpdateFailure::PrepareFailed
    }

    /// A stable, machine-readable code (`snake_case`) for the logs.
    pub fn code(&self) -> &'static str {
        match self {
            PrepareError::Archive(error) => error.code(),
            PrepareError::NotAZip => "archive_not_a_zip",
            PrepareError::ArchiveChanged => "archive_changed",
            PrepareError::Staging(error) => error.code(),
        }
    }
}

impl From<ArchiveError> for PrepareError {
    fn from(error: ArchiveError) -> Self {
        PrepareError::Archive(error)
    }
}
impl From<StagingError> for PrepareError {
    fn from(error: StagingError) -> Self {
        PrepareError::Staging(error)
    }
}

fn io_failure(error: io::Error) -> PrepareError {
    PrepareError::Staging(StagingError::Io(error))
}

/// The extracted executable, ready for the launcher. Dropping it removes the version directory
/// unless [`PreparedRelease::keep`] hands the directory over.
#[derive(Debug)]
pub struct PreparedRelease {
    pub version: Version,
    pub commit: CommitSha,
    /// SHA-256 of the extracted executable: what [`verify_staged`] requires before each run.
    pub executable_sha256: Sha256Digest,
    pub executable_size: u64,
    dir: VersionDir,
}

impl PreparedRelease {
    /// `<version dir>/relay-desktop`.
    pub fn executable_path(&self) -> PathBuf {
        self.dir.file(EXECUTABLE_NAME)
    }

    pub fn dir(&self) -> &VersionDir {
        &self.dir
    }

    /// Keeps the version directory from now on and returns its path.
    pub fn keep(self) -> PathBuf {
        self.dir.keep()
    }
}

/// Prepares a downloaded release (see the module doc). On failure the version directory has
/// been removed.
pub fn prepare_release(downloaded: DownloadedRelease) -> Result<PreparedRelease, PrepareError> {
    let DownloadedRelease { version, commit, archive_sha256, archive_size, archive_name, dir } = downloaded;
    match extract(&dir, &archive_name, &archive_sha256, archive_size) {
        Ok((executable_sha256, executable_size)) => {
            tracing::info!(target: "relay::updater", version = %version, bytes = executable_size, "release prepared");
            Ok(PreparedRelease { version, commit, executable_sha256, executable_size, dir })
        }
        Err(error) => {
            tracing::warn!(target: "relay::updater", code = error.code(), "release preparation failed: {error}");
            if let Err(remove) = dir.remove() {
                tracing::warn!(target: "relay::updater", code = remove.code(), "cannot remove the staging directory");
            }
            Err(error)
        }
    }
}

fn extract(
    dir: &VersionDir,
    archive_name: &str,
    archive_sha256: &Sha256Digest,
    archive_size: u64,
) -> Result<(Sha256Digest, u64), PrepareError> {
    let mut archive = dir.open_file(archive_name)?;
    let (digest, size) = hash_reader(&mut archive).map_err(io_failure)?;
    if digest != *archive_sha256 || size != archive_size {
        return Err(PrepareError::ArchiveChanged);
    }
    archive.rewind().map_err(io_failure)?;
    let mut zip = ZipArchive::new(archive).map_err(|_| PrepareError::NotAZip)?;
    let entries = entry_facts(&mut zip)?;
    let declared = check_zip_entries(&entries.iter().map(EntryFacts::as_facts).collect::<Vec<_>>())?;

    let mut member = zip.by_index(0).map_err(|_| PrepareError::NotAZip)?;
    let mut out = dir.create_file(EXECUTABLE_NAME, 0o700)?;
    let mut hasher = Sha256::new();
    let mut header = Vec::with_capacity(EXECUTABLE_HEADER_BYTES);
    let mut buf = vec![0u8; READ_CHUNK];
    let mut written: u64 = 0;
    let mut crc_matched = true;
    loop {
        // The reader checks the CRC-32 when it reaches the end of the member's data.
        let n = match member.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(_) => {
                crc_matched = false;
                break;
            }
        };
        written += n as u64;
        if written > declared {
            return Err(ArchiveError::ExtractionMismatch.into());
        }
        let chunk = &buf[..n];
        if header.len() < EXECUTABLE_HEADER_BYTES {
            let wanted = (EXECUTABLE_HEADER_BYTES - header.len()).min(n);
            header.extend_from_slice(&chunk[..wanted]);
            if header.len() == EXECUTABLE_HEADER_BYTES {
                check_executable_header(&header)?;
            }
        }
        hasher.update(chunk);
        out.write_all(chunk).map_err(io_failure)?;
    }
    check_extraction(declared, written, crc_matched)?;
    check_executable_header(&header)?;
    out.sync_all().map_err(io_failure)?;
    drop(out);
    crate::datadir::sync_dir(dir.path()).map_err(io_failure)?;
    Ok((Sha256Digest::from_bytes(hasher.finalize().into()), written))
}

/// What the domain rule needs of one entry, read from the central directory without
/// decompressing anything.
struct EntryFacts {
    name: Vec<u8>,
    encrypted: bool,
    compression_method: u16,
    uncompressed_size: u64,
    unix_mode: Option<u32>,
    dos_directory: bool,
}

impl EntryFacts {
    fn as_facts(&self) -> ZipEntryFacts<'_> {
        ZipEntryFacts {
            name: &self.name,
            encrypted: self.encrypted,
            compression_method: self.compression_method,
            uncompressed_size: self.uncompressed_size,
            unix_mode: self.unix_mode,
            dos_directory: self.dos_directory,
        }
    }
}

fn entry_facts(zip: &mut ZipArchive<File>) -> Result<Vec<EntryFacts>, PrepareError> {
    let mut facts = Vec::with_capacity(zip.len());
    for index in 0..zip.len() {
        let entry = zip.by_index_raw(index).map_err(|_| PrepareError::NotAZip)?;
        let meta = entry.get_metadata();
        let compression_method = match entry.compression() {
            CompressionMethod::Stored => ZIP_STORED,
            CompressionMethod::Deflated => ZIP_DEFLATED,
            _ => u16::MAX,
        };
        // A mode is only meaningful when the archive says it was made on Unix.
        let made_on_unix = u8::from(meta.system) == ZIP_SYSTEM_UNIX;
        facts.push(EntryFacts {
            name: entry.name_raw().to_vec(),
            encrypted: entry.encrypted(),
            compression_method,
            uncompressed_size: entry.size(),
            unix_mode: if made_on_unix { entry.unix_mode() } else { None },
            dos_directory: meta.external_attributes & DOS_DIRECTORY_ATTRIBUTE != 0,
        });
    }
    Ok(facts)
}

/// SHA-256 and length of everything `reader` yields.
fn hash_reader(reader: &mut impl Read) -> io::Result<(Sha256Digest, u64)> {
    let mut hasher = Sha256::new();
    let mut buf = vec![0u8; READ_CHUNK];
    let mut total: u64 = 0;
    loop {
        let n = reader.read(&mut buf)?;
        if n == 0 {
            break;
        }
        total += n as u64;
        hasher.update(&buf[..n]);
    }
    Ok((Sha256Digest::from_bytes(hasher.finalize().into()), total))
}

/// Why a staged executable may not be run.
#[derive(Debug, thiserror::Error)]
pub enum StagedError {
    #[error("{0}")]
    Path(StagingError),
    #[error("The staged executable can be written by other users.")]
    Writable,
    #[error("The staged executable changed after it was prepared.")]
    DigestMismatch,
}

impl StagedError {
    /// A stable, machine-readable code (`snake_case`).
    pub fn code(&self) -> &'static str {
        match self {
            StagedError::Path(error) => error.code(),
            StagedError::Writable => "staged_executable_writable",
            StagedError::DigestMismatch => "staged_executable_changed",
        }
    }
}

/// The check before every execution of a staged executable: `path` (absolute) is re-resolved
/// component by component without following a link, opened `O_NOFOLLOW`, must be a regular
/// file owned by the current user without group or other write permission, and must hash to
/// `expected`. Returns the open, verified file so the caller can execute exactly it.
pub fn verify_staged(path: &Path, expected: &Sha256Digest) -> Result<File, StagedError> {
    walk_without_links(path, false).map_err(StagedError::Path)?;
    let mut file = open_owned_regular(path).map_err(StagedError::Path)?;
    let meta = file.metadata().map_err(|e| StagedError::Path(StagingError::Io(e)))?;
    if meta.mode() & 0o022 != 0 {
        return Err(StagedError::Writable);
    }
    let (digest, _) = hash_reader(&mut file).map_err(|e| StagedError::Path(StagingError::Io(e)))?;
    if digest != *expected {
        return Err(StagedError::DigestMismatch);
    }
    file.rewind().map_err(|e| StagedError::Path(StagingError::Io(e)))?;
    Ok(file)
}

#[cfg(test)]
#[path = "prepare_tests.rs"]
mod tests;
