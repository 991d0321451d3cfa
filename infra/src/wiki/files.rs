//! The Wiki's files on disk. Published PDFs and covers are content-addressed under
//! `DATA/store/wiki/` (`documents/<sha256>.pdf`, `covers/<sha256>.png`), beside the database,
//! so every backup carries them; uploads in progress are staged under `DATA/wiki-staging/<id>/`
//! (one file per stored chunk, then the assembled PDF), outside `store/`, because staging is
//! disposable and needs no restore. Directories are 0700 and files 0600, every file is written
//! to an exclusive temp name, fsynced and renamed, and reads refuse links and special files.
//! Names are built only from validated checksums (64 lowercase hex), record ids and chunk
//! indexes, never from an operator's file name. Nothing here decides whether an upload may be
//! stored: the wiki actor checks each chunk with `domain::wiki::check_chunk` first.

use std::fs::{self, File};
use std::io::{self, BufWriter, Read, Write};
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use domain::validation::is_record_id;
use domain::wiki::is_sha256_hex;

use crate::datadir::{create_private_file, ensure_private_dir, sync_dir, STORE_DIR};

/// `DATA/store/<WIKI_DIR>` holds the published library.
pub const WIKI_DIR: &str = "wiki";
/// `DATA/<STAGING_DIR>` holds uploads in progress.
pub const STAGING_DIR: &str = "wiki-staging";
const ASSEMBLED: &str = "upload.pdf";

fn invalid(what: &str) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidInput, what.to_string())
}

fn private(e: crate::datadir::DataDirError) -> io::Error {
    io::Error::other(e.to_string())
}

/// Lowercase hex SHA-256 of `bytes`.
pub fn sha256_hex(bytes: &[u8]) -> String {
    hex_of(&Sha256::digest(bytes))
}

fn hex_of(digest: &[u8]) -> String {
    digest.iter().map(|b| format!("{b:02x}")).collect()
}

/// Writes `bytes` to `target` atomically (exclusive temp file beside it, fsync, rename, fsync
/// of the folder).
fn write_atomically(dir: &Path, target: &Path, bytes: &[u8]) -> io::Result<()> {
    let name = target.file_name().and_then(|n| n.to_str()).ok_or_else(|| invalid("file name"))?;
    let tmp = dir.join(format!(".{name}.tmp-{}", std::process::id()));
    let _ = fs::remove_file(&tmp);
    let written = (|| {
        let mut file = create_private_file(&tmp)?;
        file.write_all(bytes)?;
        file.sync_all()?;
        drop(file);
        fs::rename(&tmp, target)?;
        sync_dir(dir)
    })();
    if written.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    written
}

/// Opens a regular file for reading without following a link; returns it with its size.
fn open_regular(path: &Path) -> io::Result<(File, u64)> {
    let mut options = fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK);
    }
    let file = options.open(path)?;
    let meta = file.metadata()?;
    if !meta.file_type().is_file() {
        return Err(io::Error::new(io::ErrorKind::InvalidData, "not a regular file"));
    }
    Ok((file, meta.len()))
}

/// The Wiki files of one data directory.
#[derive(Debug, Clone)]
pub struct WikiFiles {
    root: PathBuf,
    library: PathBuf,
    staging: PathBuf,
}

impl WikiFiles {
    /// The Wiki files under `data_root` (nothing is created until the first write).
    pub fn new(data_root: &Path) -> WikiFiles {
        WikiFiles {
            root: data_root.to_path_buf(),
            library: data_root.join(STORE_DIR).join(WIKI_DIR),
            staging: data_root.join(STAGING_DIR),
        }
    }

    fn documents_dir(&self) -> PathBuf {
        self.library.join("documents")
    }

    fn covers_dir(&self) -> PathBuf {
        self.library.join("covers")
    }

    /// Whether `path` lies inside the data directory (a source PDF never may: secrets, the
    /// store and staging are not uploads). Both sides are resolved, so a link cannot hide it.
    pub fn is_inside_data_dir(&self, path: &Path) -> bool {
        let resolved = |p: &Path| fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
        resolved(path).starts_with(resolved(&self.root))
    }

    /// Where the published PDF with this checksum lives.
    pub fn pdf_path(&self, checksum: &str) -> io::Result<PathBuf> {
        if !is_sha256_hex(checksum) {
            return Err(invalid("checksum"));
        }
        Ok(self.documents_dir().join(format!("{checksum}.pdf")))
    }

    /// Where the cover PNG with this checksum lives.
    pub fn cover_path(&self, checksum: &str) -> io::Result<PathBuf> {
        if !is_sha256_hex(checksum) {
            return Err(invalid("checksum"));
        }
        Ok(self.covers_dir().join(format!("{checksum}.png")))
    }

    /// The staging folder of one upload.
    pub fn upload_dir(&self, upload_id: &str) -> io::Result<PathBuf> {
        if !is_record_id(upload_id) {
            return Err(invalid("upload id"));
        }
        Ok(self.staging.join(upload_id))
    }

    fn chunk_path(&self, upload_id: &str, index: u64) -> io::Result<PathBuf> {
        Ok(self.upload_dir(upload_id)?.join(format!("chunk-{index:05}")))
    }

    /// Stores one checked chunk (replacing an earlier copy of the same index, so a resent
    /// chunk after a dropped connection is harmless).
    pub fn write_chunk(&self, upload_id: &str, index: u64, bytes: &[u8]) -> io::Result<()> {
        let dir = self.upload_dir(upload_id)?;
        ensure_private_dir(&self.staging).map_err(private)?;
        ensure_private_dir(&dir).map_err(private)?;
        write_atomically(&dir, &self.chunk_path(upload_id, index)?, bytes)
    }

    /// Concatenates chunks `0..chunk_count` into the upload's assembled PDF, refusing a chunk
    /// whose size differs from `chunk_sizes` and stopping past `max_bytes`; returns the
    /// assembled file and its SHA-256. The chunk files are removed once the whole is fsynced.
    pub fn assemble(&self, upload_id: &str, chunk_sizes: &[u64], max_bytes: u64) -> io::Result<(PathBuf, String)> {
        let dir = self.upload_dir(upload_id)?;
        let target = dir.join(ASSEMBLED);
        let tmp = dir.join(format!(".{ASSEMBLED}.tmp-{}", std::process::id()));
        let _ = fs::remove_file(&tmp);
        let assembled = (|| {
            let mut out = BufWriter::with_capacity(1 << 20, create_private_file(&tmp)?);
            let mut hasher = Sha256::new();
            let mut total = 0u64;
            let mut buf = vec![0u8; 1 << 20];
            for (index, expected) in chunk_sizes.iter().enumerate() {
                let (file, size) = open_regular(&self.chunk_path(upload_id, index as u64)?)?;
                total = total.saturating_add(size);
                if size != *expected || total > max_bytes {
                    return Err(io::Error::new(io::ErrorKind::InvalidData, "chunk size changed"));
                }
                let mut reader = file.take(size);
                loop {
                    let n = reader.read(&mut buf)?;
                    if n == 0 {
                        break;
                    }
                    hasher.update(&buf[..n]);
                    out.write_all(&buf[..n])?;
                }
            }
            let file = out.into_inner().map_err(|e| e.into_error())?;
            file.sync_all()?;
            drop(file);
            fs::rename(&tmp, &target)?;
            sync_dir(&dir)?;
            Ok(hex_of(&hasher.finalize()))
        })();
        match assembled {
            Ok(checksum) => {
                for index in 0..chunk_sizes.len() {
                    let _ = fs::remove_file(self.chunk_path(upload_id, index as u64)?);
                }
                Ok((target, checksum))
            }
            Err(e) => {
                let _ = fs::remove_file(&tmp);
                Err(e)
            }
        }
    }

    /// The assembled PDF of an upload, if it exists.
    pub fn assembled_path(&self, upload_id: &str) -> io::Result<PathBuf> {
        Ok(self.upload_dir(upload_id)?.join(ASSEMBLED))
    }

    /// Moves an upload's assembled PDF into the library under its checksum. When the library
    /// already holds that checksum (the same PDF published twice), the stored copy is kept.
    pub fn promote_pdf(&self, upload_id: &str, checksum: &str) -> io::Result<PathBuf> {
        let target = self.pdf_path(checksum)?;
        ensure_private_dir(&self.library).map_err(private)?;
        let dir = self.documents_dir();
        ensure_private_dir(&dir).map_err(private)?;
        let source = self.assembled_path(upload_id)?;
        if fs::symlink_metadata(&target).is_ok_and(|m| m.file_type().is_file()) {
            let _ = fs::remove_file(&source);
            return Ok(target);
        }
        fs::rename(&source, &target)?;
        sync_dir(&dir)?;
        Ok(target)
    }

    /// Stores a cover PNG under its checksum (idempotent); returns the checksum.
    pub fn put_cover(&self, png: &[u8]) -> io::Result<String> {
        let checksum = sha256_hex(png);
        let target = self.cover_path(&checksum)?;
        ensure_private_dir(&self.library).map_err(private)?;
        let dir = self.covers_dir();
        ensure_private_dir(&dir).map_err(private)?;
        if !fs::symlink_metadata(&target).is_ok_and(|m| m.file_type().is_file()) {
            write_atomically(&dir, &target, png)?;
        }
        Ok(checksum)
    }

    /// Opens a published PDF for reading (no link followed); returns it with its size.
    pub fn open_pdf(&self, checksum: &str) -> io::Result<(File, u64)> {
        open_regular(&self.pdf_path(checksum)?)
    }

    /// Reads a cover PNG, at most `limit` bytes.
    pub fn read_cover(&self, checksum: &str, limit: u64) -> io::Result<Vec<u8>> {
        let (file, size) = open_regular(&self.cover_path(checksum)?)?;
        if size > limit {
            return Err(io::Error::new(io::ErrorKind::InvalidData, "cover over its bound"));
        }
        let mut bytes = Vec::with_capacity(size as usize);
        file.take(limit).read_to_end(&mut bytes)?;
        Ok(bytes)
    }

    /// Removes a published PDF (the caller checked no document references it any more).
    pub fn remove_pdf(&self, checksum: &str) -> io::Result<()> {
        remove_quietly(&self.pdf_path(checksum)?)
    }

    /// Removes a cover (the caller checked no document references it any more).
    pub fn remove_cover(&self, checksum: &str) -> io::Result<()> {
        remove_quietly(&self.cover_path(checksum)?)
    }

    /// Removes an upload's whole staging folder (cancel, expiry, publish).
    pub fn remove_upload(&self, upload_id: &str) -> io::Result<()> {
        match fs::remove_dir_all(self.upload_dir(upload_id)?) {
            Err(e) if e.kind() != io::ErrorKind::NotFound => Err(e),
            _ => Ok(()),
        }
    }

    /// The upload ids that have a staging folder (to remove those no upload owns any more).
    pub fn staged_uploads(&self) -> io::Result<Vec<String>> {
        let entries = match fs::read_dir(&self.staging) {
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
            other => other?,
        };
        let mut ids = Vec::new();
        for entry in entries {
            let name = entry?.file_name().to_string_lossy().into_owned();
            if is_record_id(&name) {
                ids.push(name);
            }
        }
        ids.sort();
        Ok(ids)
    }
}

fn remove_quietly(path: &Path) -> io::Result<()> {
    match fs::remove_file(path) {
        Err(e) if e.kind() != io::ErrorKind::NotFound => Err(e),
        _ => Ok(()),
    }
}

#[cfg(test)]
#[path = "files_tests.rs"]
mod tests;
