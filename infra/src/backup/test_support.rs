//! Shared setup for the backup IO tests: a live store with an unknown table, a data
//! directory, a fresh private verification directory, and injected free space.

use std::path::{Path, PathBuf};

use diesel::connection::SimpleConnection;

use domain::backup::names::{ArchiveKind, ArchiveName};

use super::verifier::FreeSpace;
use super::writer::{write_archive, ArchiveCompression, ArchiveRequest, ExtraFile, WrittenArchive};
use crate::db::DbPool;

pub const T: i64 = 1_796_216_231_000;

/// A data directory (0700) with a migrated store (`store/relay.db`) holding an operator's
/// unknown table.
pub fn live_store(tmp: &Path) -> (PathBuf, DbPool) {
    let dir = crate::datadir::DataDir::open(tmp.join("data")).unwrap();
    let root = dir.root().to_path_buf();
    let (pool, _) = crate::db::open(&dir.db_path(), 2).unwrap();
    pool.get()
        .unwrap()
        .batch_execute(
            "CREATE TABLE operator_extras (id INTEGER PRIMARY KEY, note TEXT, blob BLOB); \
             INSERT INTO operator_extras (note, blob) VALUES ('keep me', x'00ff10'); \
             CREATE TABLE \"odd \"\"name\"\"\" (x); INSERT INTO \"odd \"\"name\"\"\" VALUES (1);",
        )
        .unwrap();
    (root, pool)
}

/// Writes a regular archive of the store with one extra file; returns it.
pub fn good_archive(root: &Path, pool: &DbPool, suffix: &str) -> WrittenArchive {
    let extra = root.join("runbook.pdf");
    std::fs::write(&extra, b"%PDF-1.7 runbook").unwrap();
    let name = ArchiveName::new(ArchiveKind::Regular, T, suffix).unwrap();
    let extras = [ExtraFile { archive_path: "files/wiki/runbook.pdf".into(), source: extra }];
    let request = ArchiveRequest {
        data_root: root,
        name: &name,
        relay_version: "0.1.0",
        created_ms: T,
        extra_files: &extras,
        compression: ArchiveCompression::Deflated,
    };
    write_archive(&mut pool.get().unwrap(), &request, &mut |_| {}).unwrap()
}

/// A fresh owner-only directory inside the data directory, as the parent creates it.
pub fn fresh_destination(root: &Path, suffix: &str) -> PathBuf {
    use std::os::unix::fs::DirBuilderExt;
    let dir = root.join(format!(".relay-backup-verify-{suffix}"));
    std::fs::DirBuilder::new().mode(0o700).create(&dir).unwrap();
    dir
}

/// Free space as the test says.
pub struct FixedFreeSpace(pub u64);

impl FreeSpace for FixedFreeSpace {
    fn free_bytes(&self, _dir: &Path) -> std::io::Result<u64> {
        Ok(self.0)
    }
}

pub const PLENTY: FixedFreeSpace = FixedFreeSpace(u64::MAX / 4);
