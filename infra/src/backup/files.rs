//! The files around archives: the owner-only `DATA/backups/` directory, listing the archives
//! that are ours (strict names, regular files only, links ignored), an archive's fingerprint
//! (`lstat`: size, mtime, ctime, inode), sweeping `.part` files an interrupted write left, the
//! live data size the preflight needs, and `DATA/backup-health.json` loaded fail-closed and
//! saved atomically (0600 temp file, fsync, rename, directory fsync) through `crate::datadir`.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use domain::backup::health::{
    FileFingerprint, HealthError, HealthState, LoadedHealth, HEALTH_FILE_NAME, MAX_HEALTH_FILE_BYTES,
};
use domain::backup::names::ArchiveName;

use crate::datadir::{ensure_private_dir, read_private_file, sync_dir, write_private_file, DataDirError};

pub const BACKUPS_DIR: &str = "backups";

/// `DATA/backups`.
pub fn backups_dir(data_root: &Path) -> PathBuf {
    data_root.join(BACKUPS_DIR)
}

/// Creates `DATA/backups` (0700) if needed, refusing a link or a file in its place.
pub fn ensure_backups_dir(data_root: &Path) -> Result<PathBuf, DataDirError> {
    let dir = backups_dir(data_root);
    ensure_private_dir(&dir)?;
    Ok(dir)
}

/// The fingerprint of a regular, non-empty file (no link followed); `None` otherwise.
pub fn fingerprint(path: &Path) -> io::Result<Option<FileFingerprint>> {
    use std::os::unix::fs::MetadataExt;
    let meta = match fs::symlink_metadata(path) {
        Ok(meta) => meta,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e),
    };
    if !meta.file_type().is_file() || meta.len() == 0 {
        return Ok(None);
    }
    let ns = |secs: i64, nanos: i64| secs.saturating_mul(1_000_000_000).saturating_add(nanos);
    Ok(Some(FileFingerprint {
        size: meta.len(),
        mtime_ns: ns(meta.mtime(), meta.mtime_nsec()),
        ctime_ns: ns(meta.ctime(), meta.ctime_nsec()),
        inode: meta.ino(),
    }))
}

/// The archives in `backups_dir` that Relay could have written (strict names, regular files),
/// newest first by the time in their names. A missing directory lists nothing.
pub fn list_archives(backups_dir: &Path) -> io::Result<Vec<(ArchiveName, FileFingerprint)>> {
    let entries = match fs::read_dir(backups_dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(e),
    };
    let mut archives = Vec::new();
    for entry in entries {
        let entry = entry?;
        let Some(name) = entry.file_name().to_str().and_then(|n| ArchiveName::parse(n).ok()) else { continue };
        if let Some(print) = fingerprint(&entry.path())? {
            archives.push((name, print));
        }
    }
    archives.sort_by(|(a, _), (b, _)| b.created_ms().cmp(&a.created_ms()).then_with(|| b.as_str().cmp(a.as_str())));
    Ok(archives)
}

/// Removes what an interrupted write left in `backups_dir`: `NAME.zip.part` and its snapshot
/// `NAME.zip.part.snapshot`, for names that are ours (regular files only). Call at start,
/// before any backup runs. Returns how many were removed.
pub fn remove_stale_parts(backups_dir: &Path) -> io::Result<usize> {
    let entries = match fs::read_dir(backups_dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(0),
        Err(e) => return Err(e),
    };
    let mut removed = 0;
    for entry in entries {
        let entry = entry?;
        let Some(file_name) = entry.file_name().to_str().map(str::to_string) else { continue };
        let archive = file_name.strip_suffix(".snapshot").unwrap_or(&file_name);
        let ours =
            archive.strip_suffix(domain::backup::names::PART_EXTENSION).is_some_and(|n| ArchiveName::parse(n).is_ok());
        if ours && entry.file_type()?.is_file() {
            fs::remove_file(entry.path())?;
            removed += 1;
        }
    }
    if removed > 0 {
        sync_dir(backups_dir)?;
    }
    Ok(removed)
}

/// The bytes of live data a backup has to copy: regular files under the data directory's
/// `store/` folder (the authoritative store; `backups/`, secrets, the control socket and the
/// desktop's files sit outside it), not following links. A missing store counts 0. With
/// `domain::backup::entries::preflight_required_bytes` this gives the free space a backup needs
/// before it starts.
pub fn live_data_bytes(data_root: &Path) -> io::Result<u64> {
    fn walk(dir: &Path, total: &mut u64) -> io::Result<()> {
        for entry in fs::read_dir(dir)? {
            let entry = entry?;
            let kind = entry.file_type()?;
            if kind.is_dir() {
                walk(&entry.path(), total)?;
            } else if kind.is_file() {
                *total = total.saturating_add(entry.metadata()?.len());
            }
        }
        Ok(())
    }
    let store = data_root.join(crate::datadir::STORE_DIR);
    match fs::symlink_metadata(&store) {
        Ok(meta) if meta.is_dir() => {}
        Ok(_) => return Err(io::Error::new(io::ErrorKind::InvalidInput, "the store is not a directory")),
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(0),
        Err(e) => return Err(e),
    }
    let mut total = 0;
    walk(&store, &mut total)?;
    Ok(total)
}

/// The database's own files in the store, which the snapshot covers (never archived as files).
const DATABASE_FILES: [&str; 4] = ["relay.db", "relay.db-wal", "relay.db-shm", "relay.db-journal"];

/// Every other authoritative file in `DATA/store` (Wiki documents and covers, logos, whatever a
/// subsystem keeps there), as archive entries named by their path inside the store, sorted.
/// A link or special file in the store is an error: a backup never follows or records one.
pub fn store_extra_files(data_root: &Path) -> io::Result<Vec<crate::backup::writer::ExtraFile>> {
    fn walk(dir: &Path, prefix: &str, out: &mut Vec<crate::backup::writer::ExtraFile>) -> io::Result<()> {
        for entry in fs::read_dir(dir)? {
            let entry = entry?;
            let name = entry.file_name().into_string().map_err(|_| {
                io::Error::new(io::ErrorKind::InvalidData, "a file name in the store is not valid UTF-8")
            })?;
            let path = format!("{prefix}{name}");
            let kind = entry.file_type()?;
            if kind.is_dir() {
                walk(&entry.path(), &format!("{path}/"), out)?;
            } else if kind.is_file() {
                if !(prefix.is_empty() && DATABASE_FILES.contains(&name.as_str())) {
                    out.push(crate::backup::writer::ExtraFile { archive_path: path, source: entry.path() });
                }
            } else {
                return Err(io::Error::new(
                    io::ErrorKind::InvalidData,
                    format!("{path} in the store is not a regular file"),
                ));
            }
        }
        Ok(())
    }
    let store = data_root.join(crate::datadir::STORE_DIR);
    let mut files = Vec::new();
    if fs::symlink_metadata(&store).is_ok_and(|m| m.is_dir()) {
        walk(&store, "", &mut files)?;
    }
    files.sort_by(|a, b| a.archive_path.cmp(&b.archive_path));
    Ok(files)
}

/// Reads `DATA/backup-health.json` and loads it fail-closed at `now_ms` (see
/// `HealthState::load`). A file over the cap is refused before it is read; a link or a
/// non-regular file loads like a malformed one.
pub fn load_health(data_root: &Path, now_ms: i64) -> LoadedHealth {
    let path = data_root.join(HEALTH_FILE_NAME);
    let refused = |error: HealthError| {
        tracing::warn!(%error, "backup health file not used; retention stays paused");
        let mut loaded = HealthState::load(None, now_ms);
        loaded.rejected = Some(error);
        loaded
    };
    if fs::symlink_metadata(&path).is_ok_and(|m| m.len() > MAX_HEALTH_FILE_BYTES as u64) {
        return refused(HealthError::TooLarge);
    }
    match read_private_file(&path) {
        Ok(bytes) => {
            let loaded = HealthState::load(bytes.as_deref(), now_ms);
            if let Some(error) = loaded.rejected {
                tracing::warn!(%error, "backup health file not used; retention stays paused");
            }
            loaded
        }
        Err(_) => refused(HealthError::Malformed),
    }
}

/// Saves the health state atomically and durably.
pub fn save_health(data_root: &Path, state: &HealthState) -> Result<(), DataDirError> {
    let path = data_root.join(HEALTH_FILE_NAME);
    write_private_file(&path, &state.to_json())?;
    sync_dir(data_root).map_err(|source| DataDirError::Io { path: data_root.display().to_string(), source })
}

#[cfg(test)]
mod tests {
    use super::*;
    use domain::backup::health::FailureText;
    use domain::backup::names::ArchiveKind;
    use std::os::unix::fs::PermissionsExt;

    const T: i64 = 1_796_216_231_000;

    #[test]
    fn store_files_beside_the_database_are_archived_and_links_are_refused() {
        let tmp = tempfile::tempdir().unwrap();
        let store = tmp.path().join("store");
        fs::create_dir_all(store.join("wiki/covers")).unwrap();
        for file in ["relay.db", "relay.db-wal", "relay.db-shm", "logo.png", "wiki/guide.pdf", "wiki/covers/guide.png"]
        {
            fs::write(store.join(file), b"x").unwrap();
        }
        // A file named like the database but inside a folder is a document, not the database.
        fs::write(store.join("wiki/relay.db"), b"x").unwrap();
        let names: Vec<String> = store_extra_files(tmp.path()).unwrap().into_iter().map(|f| f.archive_path).collect();
        assert_eq!(names, ["logo.png", "wiki/covers/guide.png", "wiki/guide.pdf", "wiki/relay.db"]);

        std::os::unix::fs::symlink("/etc/passwd", store.join("wiki/passwd")).unwrap();
        assert!(store_extra_files(tmp.path()).is_err(), "a link in the store is refused");
        assert!(store_extra_files(&tmp.path().join("none")).unwrap().is_empty(), "no store, nothing extra");
    }

    #[test]
    fn lists_only_our_regular_archives_newest_first() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = ensure_backups_dir(tmp.path()).unwrap();
        assert_eq!(fs::metadata(&dir).unwrap().permissions().mode() & 0o777, 0o700);
        let old = ArchiveName::new(ArchiveKind::Regular, T, "aaaaaaaa").unwrap();
        let new = ArchiveName::new(ArchiveKind::PreRestore, T + 1000, "bbbbbbbb").unwrap();
        let linked = ArchiveName::new(ArchiveKind::Regular, T + 2000, "cccccccc").unwrap();
        let empty = ArchiveName::new(ArchiveKind::Regular, T + 3000, "dddddddd").unwrap();
        fs::write(dir.join(old.as_str()), b"zip").unwrap();
        fs::write(dir.join(new.as_str()), b"zip").unwrap();
        fs::write(dir.join(empty.as_str()), b"").unwrap();
        std::os::unix::fs::symlink(dir.join(old.as_str()), dir.join(linked.as_str())).unwrap();
        for other in ["relay.db", "invalid..zip", "backup_x.zip"] {
            fs::write(dir.join(other), b"x").unwrap();
        }
        fs::write(dir.join(new.part_file_name()), b"partial").unwrap();
        fs::create_dir(dir.join(ArchiveName::new(ArchiveKind::Regular, T + 4000, "eeeeeeee").unwrap().as_str()))
            .unwrap();
        let names: Vec<ArchiveName> = list_archives(&dir).unwrap().into_iter().map(|(n, _)| n).collect();
        assert_eq!(names, vec![new, old]);
        assert!(list_archives(&tmp.path().join("absent")).unwrap().is_empty());
    }

    #[test]
    fn stale_parts_are_removed_and_nothing_else() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = ensure_backups_dir(tmp.path()).unwrap();
        let name = ArchiveName::new(ArchiveKind::Regular, T, "aaaaaaaa").unwrap();
        let keep = ["notes.zip.part", "backup_x.zip.part", name.as_str(), "operator.txt"];
        for file in
            keep.iter().copied().chain([name.part_file_name().as_str(), &format!("{}.snapshot", name.part_file_name())])
        {
            fs::write(dir.join(file), b"x").unwrap();
        }
        assert_eq!(remove_stale_parts(&dir).unwrap(), 2);
        let mut left: Vec<String> =
            fs::read_dir(&dir).unwrap().map(|e| e.unwrap().file_name().into_string().unwrap()).collect();
        left.sort();
        let mut expected: Vec<String> = keep.iter().map(|s| s.to_string()).collect();
        expected.sort();
        assert_eq!(left, expected);
        assert_eq!(remove_stale_parts(&tmp.path().join("absent")).unwrap(), 0);
    }

    #[test]
    fn live_data_counts_the_store_folder_only_without_links() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path();
        assert_eq!(live_data_bytes(root).unwrap(), 0, "no store yet");
        let store = root.join("store");
        fs::create_dir_all(store.join("files/wiki")).unwrap();
        fs::write(store.join("relay.db"), vec![0u8; 1000]).unwrap();
        fs::write(store.join("relay.db-wal"), vec![0u8; 24]).unwrap();
        fs::write(store.join("files/wiki/a.pdf"), vec![0u8; 200]).unwrap();
        let backups = ensure_backups_dir(root).unwrap();
        fs::write(backups.join("big.zip"), vec![0u8; 5000]).unwrap();
        fs::create_dir(root.join("secrets")).unwrap();
        fs::write(root.join("secrets/token.key"), vec![0u8; 32]).unwrap();
        fs::write(root.join("desktop.json"), b"{}").unwrap();
        std::os::unix::fs::symlink(&backups, store.join("linked")).unwrap();
        std::os::unix::fs::symlink(backups.join("big.zip"), store.join("linked.db")).unwrap();
        assert_eq!(live_data_bytes(root).unwrap(), 1224);
        fs::remove_dir_all(&store).unwrap();
        std::os::unix::fs::symlink(&backups, &store).unwrap();
        assert!(live_data_bytes(root).is_err(), "a linked store is not walked");
    }

    #[test]
    fn fingerprints_change_when_the_file_is_replaced() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("a.zip");
        assert_eq!(fingerprint(&path).unwrap(), None);
        fs::write(&path, b"first").unwrap();
        let first = fingerprint(&path).unwrap().unwrap();
        assert_eq!(fingerprint(&path).unwrap(), Some(first));
        fs::write(tmp.path().join("b.zip"), b"other").unwrap();
        fs::rename(tmp.path().join("b.zip"), &path).unwrap();
        let second = fingerprint(&path).unwrap().unwrap();
        assert_ne!(first, second, "same size, different file");
    }

    #[test]
    fn health_is_saved_owner_only_and_loaded_fail_closed() {
        let tmp = tempfile::tempdir().unwrap();
        let loaded = load_health(tmp.path(), T);
        assert_eq!((loaded.state, loaded.rejected), (HealthState::default(), None));
        let mut state = HealthState::default();
        state.begin_attempt(T);
        save_health(tmp.path(), &state).unwrap();
        let path = tmp.path().join(HEALTH_FILE_NAME);
        assert_eq!(fs::metadata(&path).unwrap().permissions().mode() & 0o777, 0o600);
        let loaded = load_health(tmp.path(), T + 1);
        assert!(loaded.recovered_interrupted);
        assert_eq!(loaded.state.last_failure, Some(FailureText::Interrupted));

        fs::write(&path, vec![b' '; MAX_HEALTH_FILE_BYTES + 1]).unwrap();
        assert_eq!(load_health(tmp.path(), T).rejected, Some(HealthError::TooLarge));
        fs::remove_file(&path).unwrap();
        fs::write(tmp.path().join("elsewhere.json"), state.to_json()).unwrap();
        std::os::unix::fs::symlink(tmp.path().join("elsewhere.json"), &path).unwrap();
        let linked = load_health(tmp.path(), T);
        assert_eq!((linked.state, linked.rejected), (HealthState::default(), Some(HealthError::Malformed)));
    }
}
