//! A publisher's source PDF on the server PC (chosen in the trusted process: the CLI or the
//! desktop's native picker), read in bounded chunks. It is opened once with no link followed
//! and must be a regular file at an absolute path; before every chunk read its identity
//! (device, inode, size, modification time) is compared, by path and by handle, with the one
//! recorded at open, so a moved, replaced or rewritten file is reported as changed instead of
//! uploading different bytes under the announced checksum.

use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

/// Why a source chunk was not read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum SourceError {
    #[error("the source file changed or moved")]
    Changed,
    #[error("the source file cannot be read")]
    Unreadable,
}

type Identity = (u64, u64, u64, i64, i64);

fn identity(meta: &std::fs::Metadata) -> Identity {
    (meta.dev(), meta.ino(), meta.len(), meta.mtime(), meta.mtime_nsec())
}

/// An open source PDF.
#[derive(Debug)]
pub struct SourcePdf {
    file: File,
    path: PathBuf,
    identity: Identity,
}

impl SourcePdf {
    /// Opens `path` (absolute, a regular file, no link followed).
    pub fn open(path: &Path) -> Result<SourcePdf, SourceError> {
        if !path.is_absolute() {
            return Err(SourceError::Unreadable);
        }
        let file = std::fs::OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
            .open(path)
            .map_err(|_| SourceError::Unreadable)?;
        let meta = file.metadata().map_err(|_| SourceError::Unreadable)?;
        if !meta.file_type().is_file() {
            return Err(SourceError::Unreadable);
        }
        Ok(SourcePdf { identity: identity(&meta), file, path: path.to_path_buf() })
    }

    /// The size recorded at open.
    pub fn size(&self) -> u64 {
        self.identity.2
    }

    /// Chunk `index` of `chunk_bytes` bytes (the last one shorter), after the identity check.
    pub fn read_chunk(&mut self, index: u64, chunk_bytes: u64) -> Result<Vec<u8>, SourceError> {
        let by_path = std::fs::symlink_metadata(&self.path).map_err(|_| SourceError::Changed)?;
        let by_handle = self.file.metadata().map_err(|_| SourceError::Changed)?;
        if identity(&by_path) != self.identity || identity(&by_handle) != self.identity {
            return Err(SourceError::Changed);
        }
        let start = index.checked_mul(chunk_bytes).ok_or(SourceError::Unreadable)?;
        let len = chunk_bytes.min(self.size().saturating_sub(start));
        let mut bytes = vec![0u8; len as usize];
        self.file.seek(SeekFrom::Start(start)).map_err(|_| SourceError::Unreadable)?;
        self.file.read_exact(&mut bytes).map_err(|_| SourceError::Changed)?;
        Ok(bytes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunks_are_read_until_the_file_changes_or_moves() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("runbook.pdf");
        std::fs::write(&path, b"%PDF-0123456789").unwrap();
        let mut source = SourcePdf::open(&path).unwrap();
        assert_eq!(source.size(), 15);
        assert_eq!(source.read_chunk(0, 10).unwrap(), b"%PDF-01234");
        assert_eq!(source.read_chunk(1, 10).unwrap(), b"56789");
        std::fs::write(&path, b"%PDF-9876543210").unwrap();
        assert_eq!(source.read_chunk(0, 10), Err(SourceError::Changed), "rewritten in place");

        let mut source = SourcePdf::open(&path).unwrap();
        std::fs::rename(&path, tmp.path().join("moved.pdf")).unwrap();
        assert_eq!(source.read_chunk(0, 10), Err(SourceError::Changed), "moved away");
    }

    #[test]
    fn links_relative_paths_and_directories_are_refused() {
        let tmp = tempfile::tempdir().unwrap();
        let target = tmp.path().join("real.pdf");
        std::fs::write(&target, b"%PDF-").unwrap();
        let link = tmp.path().join("link.pdf");
        std::os::unix::fs::symlink(&target, &link).unwrap();
        assert_eq!(SourcePdf::open(&link).unwrap_err(), SourceError::Unreadable);
        assert_eq!(SourcePdf::open(Path::new("real.pdf")).unwrap_err(), SourceError::Unreadable);
        assert_eq!(SourcePdf::open(tmp.path()).unwrap_err(), SourceError::Unreadable);
    }
}
