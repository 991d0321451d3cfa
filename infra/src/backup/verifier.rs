//! The disposable-restore verifier, the library the verification worker process runs: it
//! extracts an archive into a fresh private directory and proves the copy is readable. Before
//! any byte is written every entry is checked (the `domain::backup::entries` name rules,
//! case-insensitive duplicates, no link, device or other special entry, no encrypted entry,
//! only stored or deflated data), then the entry count, the declared total and the free space
//! (total <= free - 512 MiB; free space comes from a [`FreeSpace`] so tests can inject it).
//! Extraction is streamed: each file is created `O_EXCL` 0600, its bytes are counted against the
//! header and its CRC is checked by the `zip` reader at end of data (stored and deflated
//! entries alike). Extracted files are not fsynced: the directory is deleted after the check,
//! and a restore stage is fsynced by the swap before it is installed. Then the manifest must list
//! every file with the same size and SHA-256, and the extracted `relay.db` must open, pass
//! `PRAGMA integrity_check`, hold the migrations table (the manifest's list) and give up one row
//! of every table, unknown ones included. It never executes archived content, never opens a listener, never
//! touches the live store and never deletes the destination: the parent does that after the
//! worker exits. Errors are [`VerifyError`] variants with fixed texts (no archive content).
//! The time of the extraction and of the database check is returned for the logs.

use std::collections::HashMap;
use std::fs::{self, File};
use std::io::{self, Read, Write};
use std::path::Path;
use std::time::Instant;

use diesel::connection::SimpleConnection;
use diesel::sql_types::Text;
use diesel::sqlite::SqliteConnection;
use diesel::{Connection, QueryableByName, RunQueryDsl};
use sha2::{Digest, Sha256};
use zip::{CompressionMethod, ZipArchive};

use domain::backup::entries::{EntryNameSet, ExtractionLimits};
use domain::backup::manifest::{Manifest, DATABASE_PATH, MANIFEST_PATH, MAX_MANIFEST_BYTES};
use domain::canonical::hex_lower;

use super::snapshot::applied_migrations;
use super::{is_no_space, Progress, ProgressSink, PROGRESS_STEP_BYTES};
use crate::datadir::create_private_file;

/// The table Diesel records applied migrations in; a Relay store always has it.
pub const MIGRATIONS_TABLE: &str = "__diesel_schema_migrations";

/// Free space on the filesystem holding a directory.
pub trait FreeSpace {
    fn free_bytes(&self, dir: &Path) -> io::Result<u64>;
}

/// The real free space, from `statvfs` (blocks available to unprivileged users).
#[derive(Debug, Clone, Copy, Default)]
pub struct StatvfsFreeSpace;

impl FreeSpace for StatvfsFreeSpace {
    fn free_bytes(&self, dir: &Path) -> io::Result<u64> {
        use std::os::unix::ffi::OsStrExt;
        let path = std::ffi::CString::new(dir.as_os_str().as_bytes())
            .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "path contains NUL"))?;
        let mut stat: libc::statvfs = unsafe { std::mem::zeroed() };
        // SAFETY: `path` is a valid NUL-terminated string and `stat` a writable statvfs.
        if unsafe { libc::statvfs(path.as_ptr(), &mut stat) } != 0 {
            return Err(io::Error::last_os_error());
        }
        Ok((stat.f_bavail as u64).saturating_mul(stat.f_frsize as u64))
    }
}

/// What a passing verification found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VerifiedArchive {
    pub manifest: Manifest,
    /// Entries extracted (files and directories, the manifest included).
    pub entries: usize,
    pub extracted_bytes: u64,
    /// Every table of the extracted database, each read successfully.
    pub tables: Vec<String>,
    /// Milliseconds spent extracting (and hashing) the entries.
    pub extract_ms: u64,
    /// Milliseconds spent on the manifest and the database check (`integrity_check` mostly).
    pub check_ms: u64,
}

/// Why an archive failed verification. The texts are fixed and safe to show an operator.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum VerifyError {
    #[error("the verification directory must be an absolute, new, empty, owner-only directory on the data filesystem")]
    DestinationNotPrivate,
    #[error("the backup archive cannot be read")]
    Unreadable,
    #[error("the backup is not a valid ZIP archive")]
    NotAnArchive,
    #[error("the backup has too many entries")]
    TooManyEntries,
    #[error("the backup is larger than the extraction limit")]
    TooLarge,
    #[error("not enough free disk space to verify the backup")]
    NotEnoughSpace,
    #[error("the backup contains an unsafe entry name")]
    UnsafeEntryName,
    #[error("the backup contains the same entry twice")]
    DuplicateEntry,
    #[error("the backup contains a link or special file")]
    LinkOrSpecialEntry,
    #[error("the backup contains an encrypted entry")]
    EncryptedEntry,
    #[error("the backup uses an unsupported compression method")]
    UnsupportedCompression,
    #[error("a backup entry is not the size its header declares")]
    SizeMismatch,
    #[error("a backup entry failed its CRC check")]
    ChecksumMismatch,
    #[error("a backup entry is corrupt")]
    CorruptEntry,
    #[error("the verification copy could not be written")]
    WriteFailed,
    #[error("the backup has no manifest")]
    MissingManifest,
    #[error("the backup manifest is invalid")]
    InvalidManifest,
    #[error("the backup contents do not match its manifest")]
    ManifestMismatch,
    #[error("the backup database cannot be opened as SQLite")]
    NotSqlite,
    #[error("the backup database failed its integrity check")]
    IntegrityCheckFailed,
    #[error("the backup database has no migrations table")]
    MissingMigrations,
    #[error("a table of the backup database cannot be read")]
    UnreadableTable,
}

impl VerifyError {
    /// Every variant, for mapping a worker's code back.
    pub const ALL: [VerifyError; 22] = {
        use VerifyError::*;
        [
            DestinationNotPrivate,
            Unreadable,
            NotAnArchive,
            TooManyEntries,
            TooLarge,
            NotEnoughSpace,
            UnsafeEntryName,
            DuplicateEntry,
            LinkOrSpecialEntry,
            EncryptedEntry,
            UnsupportedCompression,
            SizeMismatch,
            ChecksumMismatch,
            CorruptEntry,
            WriteFailed,
            MissingManifest,
            InvalidManifest,
            ManifestMismatch,
            NotSqlite,
            IntegrityCheckFailed,
            MissingMigrations,
            UnreadableTable,
        ]
    };

    /// The variant whose [`code`](Self::code) is `code`.
    pub fn from_code(code: &str) -> Option<VerifyError> {
        VerifyError::ALL.into_iter().find(|e| e.code() == code)
    }

    /// Stable code for logs and the worker's report to its parent.
    pub fn code(self) -> &'static str {
        use VerifyError::*;
        match self {
            DestinationNotPrivate => "destination_not_private",
            Unreadable => "unreadable",
            NotAnArchive => "not_an_archive",
            TooManyEntries => "too_many_entries",
            TooLarge => "too_large",
            NotEnoughSpace => "not_enough_space",
            UnsafeEntryName => "unsafe_entry_name",
            DuplicateEntry => "duplicate_entry",
            LinkOrSpecialEntry => "link_or_special_entry",
            EncryptedEntry => "encrypted_entry",
            UnsupportedCompression => "unsupported_compression",
            SizeMismatch => "size_mismatch",
            ChecksumMismatch => "checksum_mismatch",
            CorruptEntry => "corrupt_entry",
            WriteFailed => "write_failed",
            MissingManifest => "missing_manifest",
            InvalidManifest => "invalid_manifest",
            ManifestMismatch => "manifest_mismatch",
            NotSqlite => "not_sqlite",
            IntegrityCheckFailed => "integrity_check_failed",
            MissingMigrations => "missing_migrations",
            UnreadableTable => "unreadable_table",
        }
    }
}

fn write_error(error: io::Error) -> VerifyError {
    if is_no_space(&error) {
        VerifyError::NotEnoughSpace
    } else {
        VerifyError::WriteFailed
    }
}

/// The destination must be absolute, a real (not linked) empty directory, owner-only, ours,
/// and on the archive's filesystem.
fn check_destination(destination: &Path, archive_device: u64) -> Result<(), VerifyError> {
    use std::os::unix::fs::MetadataExt;
    let refuse = VerifyError::DestinationNotPrivate;
    if !destination.is_absolute() {
        return Err(refuse);
    }
    let meta = fs::symlink_metadata(destination).map_err(|_| refuse)?;
    // SAFETY: geteuid has no preconditions.
    let uid = unsafe { libc::geteuid() };
    if !meta.file_type().is_dir() || meta.mode() & 0o077 != 0 || meta.uid() != uid || meta.dev() != archive_device {
        return Err(refuse);
    }
    if fs::read_dir(destination).map_err(|_| refuse)?.next().is_some() {
        return Err(refuse);
    }
    Ok(())
}

/// One entry as checked before extraction.
struct PlannedEntry {
    index: usize,
    name: String,
    is_dir: bool,
    size: u64,
}

const S_IFMT: u32 = 0o170000;
const S_IFREG: u32 = 0o100000;
const S_IFDIR: u32 = 0o040000;

fn plan_entries(
    zip: &mut ZipArchive<File>,
    limits: &ExtractionLimits,
) -> Result<(Vec<PlannedEntry>, u64), VerifyError> {
    if zip.len() > limits.max_entries {
        return Err(VerifyError::TooManyEntries);
    }
    let mut names = EntryNameSet::new();
    let mut planned = Vec::with_capacity(zip.len());
    let mut total: u64 = 0;
    for index in 0..zip.len() {
        let entry = zip.by_index_raw(index).map_err(|_| VerifyError::NotAnArchive)?;
        let name = std::str::from_utf8(entry.name_raw()).map_err(|_| VerifyError::UnsafeEntryName)?;
        if name != entry.name() {
            return Err(VerifyError::UnsafeEntryName);
        }
        names.insert(name).map_err(|e| match e {
            domain::backup::entries::EntryNameError::Duplicate => VerifyError::DuplicateEntry,
            _ => VerifyError::UnsafeEntryName,
        })?;
        if entry.encrypted() {
            return Err(VerifyError::EncryptedEntry);
        }
        let is_dir = name.ends_with('/');
        let kind = entry.unix_mode().unwrap_or(0) & S_IFMT;
        let kind_ok = kind == 0 || kind == if is_dir { S_IFDIR } else { S_IFREG };
        if entry.is_symlink() || !kind_ok {
            return Err(VerifyError::LinkOrSpecialEntry);
        }
        if !matches!(entry.compression(), CompressionMethod::Stored | CompressionMethod::Deflated) {
            return Err(VerifyError::UnsupportedCompression);
        }
        if is_dir && entry.size() != 0 {
            return Err(VerifyError::SizeMismatch);
        }
        total = total.checked_add(entry.size()).ok_or(VerifyError::TooLarge)?;
        if total > limits.max_extracted_bytes {
            return Err(VerifyError::TooLarge);
        }
        planned.push(PlannedEntry { index, name: name.to_string(), is_dir, size: entry.size() });
    }
    Ok((planned, total))
}

fn private_dirs(path: &Path) -> Result<(), VerifyError> {
    use std::os::unix::fs::DirBuilderExt;
    fs::DirBuilder::new().recursive(true).mode(0o700).create(path).map_err(write_error)
}

/// Streams one file entry to `out`, counting bytes against the header and letting the `zip`
/// reader check the CRC when it reaches the end of the data. Returns the SHA-256.
fn extract_file(
    zip: &mut ZipArchive<File>,
    planned: &PlannedEntry,
    mut out: File,
    progress: &mut dyn FnMut(u64),
) -> Result<String, VerifyError> {
    let mut entry = zip.by_index(planned.index).map_err(|_| VerifyError::CorruptEntry)?;
    let mut hasher = Sha256::new();
    let mut buf = vec![0u8; super::IO_CHUNK_BYTES];
    let mut written: u64 = 0;
    loop {
        let n = match entry.read(&mut buf) {
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::InvalidData && e.to_string().contains("checksum") => {
                return Err(VerifyError::ChecksumMismatch)
            }
            Err(_) => return Err(VerifyError::CorruptEntry),
        };
        if n == 0 {
            break;
        }
        written += n as u64;
        if written > planned.size {
            return Err(VerifyError::SizeMismatch);
        }
        hasher.update(&buf[..n]);
        out.write_all(&buf[..n]).map_err(write_error)?;
        progress(n as u64);
    }
    if written != planned.size {
        return Err(VerifyError::SizeMismatch);
    }
    drop(out); // not fsynced: see the module doc
    Ok(hex_lower(&hasher.finalize()))
}

/// Verifies `archive` by extracting it into `destination` (see the module doc for every check).
/// `destination` must be an absolute, freshly created, empty, owner-only directory on the same
/// filesystem as the archive; it is left in place (with whatever was extracted) for the caller
/// to delete, or, for a restore, to install.
pub fn verify_archive(
    archive: &Path,
    destination: &Path,
    limits: &ExtractionLimits,
    free_space: &dyn FreeSpace,
    progress: &mut dyn ProgressSink,
) -> Result<VerifiedArchive, VerifyError> {
    use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
    let file = fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW)
        .open(archive)
        .map_err(|_| VerifyError::Unreadable)?;
    let meta = file.metadata().map_err(|_| VerifyError::Unreadable)?;
    if !meta.is_file() {
        return Err(VerifyError::Unreadable);
    }
    check_destination(destination, meta.dev())?;
    let mut zip = ZipArchive::new(file).map_err(|_| VerifyError::NotAnArchive)?;
    let (planned, total) = plan_entries(&mut zip, limits)?;
    let free = free_space.free_bytes(destination).map_err(|_| VerifyError::NotEnoughSpace)?;
    if !limits.fits_free_space(total, free) {
        return Err(VerifyError::NotEnoughSpace);
    }

    let started = Instant::now();
    let mut state = Progress { bytes_total: total, entries_total: planned.len(), ..Progress::default() };
    progress.report(state);
    let mut last_reported = 0;
    let mut extracted: HashMap<String, (u64, String)> = HashMap::new();
    for entry in &planned {
        let target = destination.join(entry.name.trim_end_matches('/'));
        if entry.is_dir {
            private_dirs(&target)?;
        } else {
            if let Some(parent) = target.parent() {
                private_dirs(parent)?;
            }
            let out = create_private_file(&target).map_err(|e| match e.kind() {
                io::ErrorKind::AlreadyExists => VerifyError::DuplicateEntry,
                _ => write_error(e),
            })?;
            let sha = extract_file(&mut zip, entry, out, &mut |n| {
                state.bytes_done += n;
                if state.bytes_done - last_reported >= PROGRESS_STEP_BYTES {
                    last_reported = state.bytes_done;
                    progress.report(state);
                }
            })?;
            extracted.insert(entry.name.clone(), (entry.size, sha));
        }
        state.entries_done += 1;
        progress.report(state);
    }

    let extract_ms = started.elapsed().as_millis() as u64;
    let started = Instant::now();
    let manifest = read_manifest(destination, &extracted)?;
    let (tables, migrations) = check_database(&destination.join(DATABASE_PATH))?;
    if migrations != manifest.migrations {
        return Err(VerifyError::ManifestMismatch);
    }
    let check_ms = started.elapsed().as_millis() as u64;
    Ok(VerifiedArchive { manifest, entries: planned.len(), extracted_bytes: total, tables, extract_ms, check_ms })
}

/// The manifest must be there, parse, and match the extracted files exactly.
fn read_manifest(destination: &Path, extracted: &HashMap<String, (u64, String)>) -> Result<Manifest, VerifyError> {
    let (size, _) = extracted.get(MANIFEST_PATH).ok_or(VerifyError::MissingManifest)?;
    if *size as usize > MAX_MANIFEST_BYTES {
        return Err(VerifyError::InvalidManifest);
    }
    let bytes = fs::read(destination.join(MANIFEST_PATH)).map_err(|_| VerifyError::InvalidManifest)?;
    let manifest = Manifest::parse(&bytes).map_err(|_| VerifyError::InvalidManifest)?;
    if manifest.entries.len() + 1 != extracted.len() {
        return Err(VerifyError::ManifestMismatch);
    }
    for entry in &manifest.entries {
        match extracted.get(&entry.path) {
            Some((size, sha)) if *size == entry.size && *sha == entry.sha256 => {}
            _ => return Err(VerifyError::ManifestMismatch),
        }
    }
    Ok(manifest)
}

/// Quotes any identifier found in an archived database (embedded quotes doubled).
fn quote_identifier(name: &str) -> String {
    format!("\"{}\"", name.replace('"', "\"\""))
}

#[derive(QueryableByName)]
struct NameRow {
    #[diesel(sql_type = Text)]
    name: String,
}

#[derive(QueryableByName)]
struct ValueRow {
    #[diesel(sql_type = Text)]
    #[allow(dead_code)] // read only so SQLite decodes every column
    v: String,
}

#[derive(QueryableByName)]
struct CheckRow {
    #[diesel(sql_type = Text)]
    integrity_check: String,
}

/// Opens the extracted database read-only in effect (`query_only`, untrusted schema, waiting up
/// to 5 s for another connection's lock), runs the
/// integrity check, requires the migrations table and reads one row of every table. Returns
/// the tables and the applied migrations. A restore runs it on the installed store too.
pub fn check_database(path: &Path) -> Result<(Vec<String>, Vec<String>), VerifyError> {
    let meta = fs::symlink_metadata(path).map_err(|_| VerifyError::NotSqlite)?;
    if !meta.file_type().is_file() {
        return Err(VerifyError::NotSqlite);
    }
    let text = path.to_str().ok_or(VerifyError::NotSqlite)?;
    let mut conn = SqliteConnection::establish(text).map_err(|_| VerifyError::NotSqlite)?;
    // The busy timeout lets a restore's check wait for a connection of the just-reopened store
    // that the pool closes on another thread (its close checkpoints under an exclusive lock).
    conn.batch_execute("PRAGMA busy_timeout = 5000; PRAGMA query_only = ON; PRAGMA trusted_schema = OFF;")
        .map_err(|_| VerifyError::NotSqlite)?;
    // The first read of the file: "file is not a database" shows here.
    conn.batch_execute("SELECT count(*) FROM sqlite_master;").map_err(|_| VerifyError::NotSqlite)?;
    let check: Vec<CheckRow> =
        diesel::sql_query("PRAGMA integrity_check").load(&mut conn).map_err(|_| VerifyError::IntegrityCheckFailed)?;
    if check.len() != 1 || check[0].integrity_check != "ok" {
        return Err(VerifyError::IntegrityCheckFailed);
    }
    let tables: Vec<String> = diesel::sql_query("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
        .load::<NameRow>(&mut conn)
        .map_err(|_| VerifyError::UnreadableTable)?
        .into_iter()
        .map(|r| r.name)
        .collect();
    if !tables.iter().any(|t| t == MIGRATIONS_TABLE) {
        return Err(VerifyError::MissingMigrations);
    }
    for table in &tables {
        let columns: Vec<String> = diesel::sql_query("SELECT name FROM pragma_table_info(?) ORDER BY cid")
            .bind::<Text, _>(table)
            .load::<NameRow>(&mut conn)
            .map_err(|_| VerifyError::UnreadableTable)?
            .into_iter()
            .map(|r| format!("quote({})", quote_identifier(&r.name)))
            .collect();
        if columns.is_empty() {
            return Err(VerifyError::UnreadableTable);
        }
        let sql = format!("SELECT {} AS v FROM {} LIMIT 1", columns.join(" || ',' || "), quote_identifier(table));
        diesel::sql_query(sql).load::<ValueRow>(&mut conn).map_err(|_| VerifyError::UnreadableTable)?;
    }
    let migrations = applied_migrations(&mut conn).map_err(|_| VerifyError::UnreadableTable)?;
    Ok((tables, migrations))
}

#[cfg(test)]
#[path = "verifier_tests.rs"]
mod tests;
