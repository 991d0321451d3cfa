//! The logo files: `DATA/store/assets/<kind>-logo.png`, owner-only (files 0600, directories
//! 0700), written atomically (an `O_EXCL` 0600 temp file in the same folder, fsync, rename over
//! the target, fsync of the folder), read back bounded and refusing links and special files,
//! removed idempotently. Living under `DATA/store/` puts them in every backup
//! (`crate::backup::files::store_extra_files`). Also [`read_input_file`], the bounded read of
//! an operator's image file for `relay branding set-logo`. Pixels are never looked at here.

use std::fs;
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};

use domain::images::{LogoKind, MAX_LOGO_OUTPUT_BYTES};

use crate::datadir::{create_private_file, ensure_private_dir, sync_dir, STORE_DIR};

/// The folder of `DATA/store/` that holds the logos.
pub const ASSETS_DIR: &str = "assets";

/// The stored logos of one data directory.
#[derive(Debug, Clone)]
pub struct LogoStore {
    store: PathBuf,
}

fn other(e: impl std::fmt::Display) -> io::Error {
    io::Error::other(e.to_string())
}

impl LogoStore {
    /// The logos under `data_root/store/assets/` (nothing is created until the first write).
    pub fn new(data_root: &Path) -> LogoStore {
        LogoStore { store: data_root.join(STORE_DIR) }
    }

    pub fn dir(&self) -> PathBuf {
        self.store.join(ASSETS_DIR)
    }

    pub fn path(&self, kind: LogoKind) -> PathBuf {
        self.dir().join(kind.file_name())
    }

    /// Replaces the logo atomically: the previous file stays intact until the rename.
    pub fn put(&self, kind: LogoKind, png: &[u8]) -> io::Result<()> {
        if png.len() > MAX_LOGO_OUTPUT_BYTES {
            return Err(io::Error::new(io::ErrorKind::InvalidInput, "logo over the output bound"));
        }
        ensure_private_dir(&self.store).map_err(other)?;
        let dir = self.dir();
        ensure_private_dir(&dir).map_err(other)?;
        let target = self.path(kind);
        let tmp = dir.join(format!(".{}.tmp-{}", kind.file_name(), std::process::id()));
        let _ = fs::remove_file(&tmp);
        let written = (|| {
            let mut file = create_private_file(&tmp)?;
            file.write_all(png)?;
            file.sync_all()?;
            drop(file);
            fs::rename(&tmp, &target)?;
            sync_dir(&dir)
        })();
        if written.is_err() {
            let _ = fs::remove_file(&tmp);
        }
        written
    }

    /// The stored PNG, if any. A link, special file or oversized file is an error.
    pub fn get(&self, kind: LogoKind) -> io::Result<Option<Vec<u8>>> {
        let path = self.path(kind);
        match fs::symlink_metadata(&path) {
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(e),
            Ok(meta) if !meta.file_type().is_file() => {
                return Err(io::Error::new(io::ErrorKind::InvalidData, "stored logo is not a regular file"))
            }
            Ok(_) => {}
        }
        let mut bytes = Vec::new();
        fs::File::open(&path)?.take(MAX_LOGO_OUTPUT_BYTES as u64 + 1).read_to_end(&mut bytes)?;
        if bytes.len() > MAX_LOGO_OUTPUT_BYTES {
            return Err(io::Error::new(io::ErrorKind::InvalidData, "stored logo over the output bound"));
        }
        Ok(Some(bytes))
    }

    /// Removes the logo; one that is already absent is fine.
    pub fn remove(&self, kind: LogoKind) -> io::Result<()> {
        match fs::remove_file(self.path(kind)) {
            Err(e) if e.kind() != io::ErrorKind::NotFound => Err(e),
            _ => sync_dir(&self.dir()).or(Ok(())),
        }
    }
}

/// Why an operator's input file was not read.
#[derive(Debug, thiserror::Error)]
pub enum InputFileError {
    #[error("the file is larger than the limit")]
    TooLarge,
    #[error("not a regular file")]
    NotRegular,
    #[error("cannot read the file: {0}")]
    Io(#[from] io::Error),
}

/// Reads at most `limit` bytes of a regular file (opened non-blocking, so a FIFO cannot hang
/// the caller; a device or directory is refused before any read).
pub fn read_input_file(path: &Path, limit: usize) -> Result<Vec<u8>, InputFileError> {
    let mut options = fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NONBLOCK);
    }
    let file = options.open(path)?;
    if !file.metadata()?.is_file() {
        return Err(InputFileError::NotRegular);
    }
    let mut bytes = Vec::new();
    file.take(limit as u64 + 1).read_to_end(&mut bytes)?;
    if bytes.len() > limit {
        return Err(InputFileError::TooLarge);
    }
    Ok(bytes)
}
