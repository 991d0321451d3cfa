//! The archive writer: `DATA/backups/NAME.zip` holding `relay.db` (a [`snapshot`] of the live
//! store), the extra authoritative files the caller lists (archive path, source file), and
//! `manifest.json` (format and Relay version, applied migrations, creation time, size and
//! SHA-256 of every entry, hashed in the same pass that copies it), written last. The database
//! entry is always stored uncompressed (SQLite pages barely compress at a fast level and DEFLATE
//! was the slowest phase; the ZIP CRC still covers it); the other entries use the requested
//! [`ArchiveCompression`]. The time of each phase is logged at info level. The archive is built in `NAME.zip.part`, created
//! `O_EXCL` 0600 in the 0700 `backups/` directory, fsynced, renamed into place and the directory
//! fsynced, so a crash leaves either no archive or a whole one (a stale `.part` is never listed).
//! Extra files are opened without following links and must be regular files. Progress (bytes
//! and entries) goes to a [`ProgressSink`]. It never deletes or prunes anything else.
//!
//! [`snapshot`]: super::snapshot

use std::fs::{self, File};
use std::io::{self, BufWriter, Read, Write};
use std::path::{Path, PathBuf};
use std::time::Instant;

use diesel::sqlite::SqliteConnection;
use sha2::{Digest, Sha256};
use zip::write::SimpleFileOptions;
use zip::{CompressionMethod, ZipWriter};

use domain::backup::entries::EntryNameSet;
use domain::backup::manifest::{
    is_valid_file_path, Manifest, ManifestEntry, DATABASE_PATH, FORMAT_VERSION, MANIFEST_PATH,
};
use domain::backup::names::ArchiveName;
use domain::canonical::hex_lower;

use super::files::ensure_backups_dir;
use super::snapshot::{snapshot_database, snapshot_migrations, SnapshotError};
use super::{is_no_space, Progress, ProgressSink, PROGRESS_STEP_BYTES};
use crate::datadir::{create_private_file, sync_dir, DataDirError};

/// A file outside the store that belongs in the archive (Wiki documents, logos...).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExtraFile {
    /// Where it goes in the archive (the entry-name rules apply; not `relay.db` or the manifest).
    pub archive_path: String,
    pub source: PathBuf,
}

/// How the entries other than `relay.db` (always stored) are written. `Deflated` (fast level)
/// is the default; `Stored` trades disk for speed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum ArchiveCompression {
    #[default]
    Deflated,
    Stored,
}

/// What to write.
#[derive(Debug, Clone)]
pub struct ArchiveRequest<'a> {
    /// The data directory; the archive goes to its `backups/`.
    pub data_root: &'a Path,
    pub name: &'a ArchiveName,
    pub relay_version: &'a str,
    pub created_ms: i64,
    pub extra_files: &'a [ExtraFile],
    pub compression: ArchiveCompression,
}

/// The archive on disk, renamed into place and synced.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WrittenArchive {
    pub path: PathBuf,
    pub size: u64,
    pub manifest: Manifest,
}

#[derive(Debug, thiserror::Error)]
pub enum ArchiveError {
    #[error("not enough disk space to write the backup")]
    NoSpace,
    #[error("a backup with this name already exists")]
    AlreadyExists,
    #[error("an extra backup file is invalid: {0}")]
    InvalidExtraFile(String),
    #[error("the database snapshot failed")]
    Snapshot(#[source] SnapshotError),
    #[error("the backups directory is unusable")]
    BackupsDir(#[source] DataDirError),
    #[error("writing the backup failed")]
    Io(#[source] io::Error),
    #[error("writing the backup failed")]
    Zip(#[source] zip::result::ZipError),
}

impl ArchiveError {
    /// Short stable code for logs and the actor's error mapping.
    pub fn code(&self) -> &'static str {
        match self {
            ArchiveError::NoSpace => "no_space",
            ArchiveError::AlreadyExists => "exists",
            ArchiveError::InvalidExtraFile(_) => "invalid_extra_file",
            ArchiveError::Snapshot(_) => "snapshot",
            ArchiveError::BackupsDir(_) => "backups_dir",
            ArchiveError::Io(_) | ArchiveError::Zip(_) => "io",
        }
    }
}

impl From<io::Error> for ArchiveError {
    fn from(error: io::Error) -> Self {
        if is_no_space(&error) {
            ArchiveError::NoSpace
        } else {
            ArchiveError::Io(error)
        }
    }
}

impl From<zip::result::ZipError> for ArchiveError {
    fn from(error: zip::result::ZipError) -> Self {
        match error {
            zip::result::ZipError::Io(io) => io.into(),
            other => ArchiveError::Zip(other),
        }
    }
}

impl From<SnapshotError> for ArchiveError {
    fn from(error: SnapshotError) -> Self {
        if error.is_no_space() {
            ArchiveError::NoSpace
        } else {
            ArchiveError::Snapshot(error)
        }
    }
}

/// Counts bytes and entries and reports them every few MiB and after each entry.
struct Tracker<'a> {
    progress: Progress,
    last_reported: u64,
    sink: &'a mut dyn ProgressSink,
}

impl Tracker<'_> {
    fn bytes(&mut self, n: u64) {
        self.progress.bytes_done += n;
        if self.progress.bytes_done - self.last_reported >= PROGRESS_STEP_BYTES {
            self.last_reported = self.progress.bytes_done;
            self.sink.report(self.progress);
        }
    }
    fn entry_done(&mut self) {
        self.progress.entries_done += 1;
        self.last_reported = self.progress.bytes_done;
        self.sink.report(self.progress);
    }
}

/// Write buffer of the archive file, and read size of each entry.
const ZIP_BUFFER_BYTES: usize = super::IO_CHUNK_BYTES;

/// Opens a regular file without following a link.
fn open_regular(path: &Path) -> io::Result<File> {
    use std::os::unix::fs::OpenOptionsExt;
    let file = fs::OpenOptions::new().read(true).custom_flags(libc::O_NOFOLLOW).open(path)?;
    if !file.metadata()?.is_file() {
        return Err(io::Error::new(io::ErrorKind::InvalidInput, "not a regular file"));
    }
    Ok(file)
}

fn zip_time(epoch_ms: i64) -> zip::DateTime {
    // format_ms: `YYYY-MM-DD HH:MM:SS.mmmZ`
    let text = domain::time::format_ms(epoch_ms);
    let field = |range: std::ops::Range<usize>| text.get(range).and_then(|s| s.parse::<u16>().ok()).unwrap_or(0);
    zip::DateTime::from_date_and_time(
        field(0..4),
        field(5..7) as u8,
        field(8..10) as u8,
        field(11..13) as u8,
        field(14..16) as u8,
        (field(17..19) as u8).min(58),
    )
    .unwrap_or_default()
}

fn add_entry(
    zip: &mut ZipWriter<BufWriter<File>>,
    archive_path: &str,
    mut input: File,
    options: SimpleFileOptions,
    tracker: &mut Tracker<'_>,
) -> Result<ManifestEntry, ArchiveError> {
    let declared = input.metadata()?.len();
    zip.start_file(archive_path, options.large_file(declared >= u64::from(u32::MAX) / 2))?;
    let mut hasher = Sha256::new();
    let mut buf = vec![0u8; ZIP_BUFFER_BYTES];
    let mut size = 0u64;
    loop {
        let n = input.read(&mut buf)?;
        if n == 0 {
            break;
        }
        hasher.update(&buf[..n]);
        zip.write_all(&buf[..n])?;
        size += n as u64;
        tracker.bytes(n as u64);
    }
    tracker.entry_done();
    Ok(ManifestEntry { path: archive_path.to_string(), size, sha256: hex_lower(&hasher.finalize()) })
}

/// Writes the archive described by `request`, snapshotting the store behind `conn` (a
/// connection of the live pool; the store keeps serving). Leaves no `.part` or snapshot file
/// behind on failure.
pub fn write_archive(
    conn: &mut SqliteConnection,
    request: &ArchiveRequest<'_>,
    progress: &mut dyn ProgressSink,
) -> Result<WrittenArchive, ArchiveError> {
    let dir = ensure_backups_dir(request.data_root).map_err(ArchiveError::BackupsDir)?;
    let final_path = dir.join(request.name.as_str());
    if fs::symlink_metadata(&final_path).is_ok() {
        return Err(ArchiveError::AlreadyExists);
    }
    let part = dir.join(request.name.part_file_name());
    let snapshot = dir.join(format!("{}.snapshot", request.name.part_file_name()));
    let result = write_parts(conn, request, &part, &snapshot, progress).and_then(|manifest| {
        crate::fault::fault_point("backup:create:before:Rename");
        fs::rename(&part, &final_path)?;
        crate::fault::fault_point("backup:create:after:Rename");
        sync_dir(&dir)?;
        Ok(WrittenArchive { size: fs::metadata(&final_path)?.len(), path: final_path, manifest })
    });
    let _ = fs::remove_file(&snapshot);
    if result.is_err() {
        let _ = fs::remove_file(&part);
    }
    result
}

fn write_parts(
    conn: &mut SqliteConnection,
    request: &ArchiveRequest<'_>,
    part: &Path,
    snapshot: &Path,
    progress: &mut dyn ProgressSink,
) -> Result<Manifest, ArchiveError> {
    let mut names = EntryNameSet::new();
    for reserved in [MANIFEST_PATH, DATABASE_PATH] {
        names.insert(reserved).map_err(|e| ArchiveError::InvalidExtraFile(e.to_string()))?;
    }
    let mut sources = Vec::with_capacity(request.extra_files.len());
    for extra in request.extra_files {
        let invalid = |why: String| ArchiveError::InvalidExtraFile(format!("{}: {why}", extra.archive_path));
        if !is_valid_file_path(&extra.archive_path) {
            return Err(invalid("not a valid file path".into()));
        }
        names.insert(&extra.archive_path).map_err(|e| invalid(e.to_string()))?;
        sources.push((extra.archive_path.as_str(), open_regular(&extra.source).map_err(|e| invalid(e.to_string()))?));
    }

    let started = Instant::now();
    snapshot_database(conn, snapshot)?;
    crate::fault::fault_point("backup:create:after:Snapshot");
    let migrations = snapshot_migrations(snapshot)?;
    let snapshot_ms = started.elapsed().as_millis() as u64;
    sources.insert(0, (DATABASE_PATH, open_regular(snapshot)?));

    let mut bytes_total = 0;
    for (_, file) in &sources {
        bytes_total += file.metadata()?.len();
    }
    let mut tracker = Tracker {
        progress: Progress { bytes_total, entries_total: sources.len() + 1, ..Progress::default() },
        last_reported: 0,
        sink: progress,
    };
    tracker.sink.report(tracker.progress);

    let options = SimpleFileOptions::default()
        .compression_method(match request.compression {
            ArchiveCompression::Deflated => CompressionMethod::Deflated,
            ArchiveCompression::Stored => CompressionMethod::Stored,
        })
        .compression_level(match request.compression {
            ArchiveCompression::Deflated => Some(1),
            ArchiveCompression::Stored => None,
        })
        .unix_permissions(0o600)
        .last_modified_time(zip_time(request.created_ms));
    let database_options = options.compression_method(CompressionMethod::Stored).compression_level(None);
    let started = Instant::now();
    let mut zip = ZipWriter::new(BufWriter::with_capacity(ZIP_BUFFER_BYTES, create_private_file(part)?));
    let mut entries = Vec::with_capacity(sources.len());
    for (path, file) in sources {
        let options = if path == DATABASE_PATH { database_options } else { options };
        entries.push(add_entry(&mut zip, path, file, options, &mut tracker)?);
    }
    let manifest = Manifest {
        format_version: FORMAT_VERSION,
        relay_version: request.relay_version.to_string(),
        migrations,
        created: request.created_ms,
        entries,
    };
    manifest.check().map_err(|e| ArchiveError::InvalidExtraFile(e.to_string()))?;
    zip.start_file(MANIFEST_PATH, options)?;
    zip.write_all(&manifest.to_json())?;
    let file = zip.finish()?.into_inner().map_err(|e| ArchiveError::from(e.into_error()))?;
    let zip_ms = started.elapsed().as_millis() as u64;
    let started = Instant::now();
    file.sync_all()?;
    let fsync_ms = started.elapsed().as_millis() as u64;
    let mib = tracker.progress.bytes_done / (1024 * 1024);
    tracing::info!(snapshot_ms, zip_ms, fsync_ms, mib, "backup archive written");
    tracker.entry_done();
    Ok(manifest)
}

#[cfg(test)]
#[path = "writer_tests.rs"]
mod tests;
