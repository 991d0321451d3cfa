//! A consistent copy of the live SQLite store taken while it keeps serving, with SQLite's
//! online backup API (what `sqlite3 .backup` does: pages copied as they are, no rebuild like
//! `VACUUM INTO`). A separate read-only connection to the file behind a pool connection opens
//! one read transaction first, so the copy is the committed state of that moment (every write
//! acknowledged before the backup started) while writers carry on in the WAL; the pages are
//! copied in steps of [`STEP_PAGES`] inside that one transaction, so the copy never restarts.
//! Never a file copy of a WAL database. The destination is created owner-only and empty first,
//! written without a journal, marked as a rollback-journal database (header bytes 18-19, as
//! `PRAGMA journal_mode = DELETE` leaves a checkpointed file) and deleted on failure; it is a
//! scratch file the archive writer reads once and deletes, so it is not fsynced (the archive
//! is). Also reads the migrations applied to a database, for the manifest.

use std::ffi::{CStr, CString};
use std::fs;
use std::os::raw::c_int;
use std::path::Path;
use std::time::Duration;

use diesel::sql_types::Text;
use diesel::sqlite::SqliteConnection;
use diesel::{QueryableByName, RunQueryDsl};
use libsqlite3_sys as ffi;

use crate::datadir::create_private_file;

/// Pages copied per backup step (4 MiB at the default 4 KiB page size).
pub const STEP_PAGES: c_int = 1024;
/// How often a busy or locked step is retried (10 ms apart) before the snapshot fails.
const BUSY_RETRIES: u32 = 500;

#[derive(Debug, thiserror::Error)]
pub enum SnapshotError {
    #[error("the snapshot destination already exists or cannot be created: {0}")]
    Destination(std::io::Error),
    #[error("the snapshot path is not valid UTF-8")]
    NonUtf8Path,
    #[error("the database snapshot failed: {0}")]
    Database(#[from] diesel::result::Error),
    #[error("the database snapshot failed: {message} (SQLite code {code})")]
    Backup { code: c_int, message: String },
    #[error("the snapshot could not be written: {0}")]
    Sync(std::io::Error),
    #[error("the snapshot could not be opened: {0}")]
    Open(#[from] diesel::ConnectionError),
}

impl SnapshotError {
    /// Whether the failure was a full disk (SQLite reports `SQLITE_FULL` as "database or disk is full").
    pub fn is_no_space(&self) -> bool {
        match self {
            SnapshotError::Destination(e) | SnapshotError::Sync(e) => super::is_no_space(e),
            SnapshotError::Database(e) => e.to_string().contains("disk is full"),
            SnapshotError::Backup { code, .. } => code & 0xff == ffi::SQLITE_FULL,
            SnapshotError::NonUtf8Path | SnapshotError::Open(_) => false,
        }
    }
}

/// A raw SQLite connection (closed on drop), for the backup API Diesel does not expose.
struct RawDb(*mut ffi::sqlite3);

impl RawDb {
    fn open(path: &str, flags: c_int) -> Result<RawDb, SnapshotError> {
        let path = CString::new(path).map_err(|_| SnapshotError::NonUtf8Path)?;
        let mut handle = std::ptr::null_mut();
        // SAFETY: valid NUL-terminated path, out-pointer to a handle, default VFS.
        let rc = unsafe { ffi::sqlite3_open_v2(path.as_ptr(), &mut handle, flags, std::ptr::null()) };
        let db = RawDb(handle); // a handle is returned (and must be closed) even on failure
        if rc != ffi::SQLITE_OK {
            return Err(db.error(rc));
        }
        // SAFETY: an open handle.
        unsafe { ffi::sqlite3_busy_timeout(db.0, 5_000) };
        Ok(db)
    }

    fn exec(&self, sql: &CStr) -> Result<(), SnapshotError> {
        // SAFETY: an open handle and a NUL-terminated statement; no callback.
        let rc = unsafe { ffi::sqlite3_exec(self.0, sql.as_ptr(), None, std::ptr::null_mut(), std::ptr::null_mut()) };
        if rc != ffi::SQLITE_OK {
            return Err(self.error(rc));
        }
        Ok(())
    }

    /// SQLite's message for the last failure on this connection (a fixed text, no path).
    fn error(&self, code: c_int) -> SnapshotError {
        let message = if self.0.is_null() {
            "out of memory".to_string()
        } else {
            // SAFETY: an open handle; the message is copied before the next call on it.
            unsafe { CStr::from_ptr(ffi::sqlite3_errmsg(self.0)) }.to_string_lossy().into_owned()
        };
        SnapshotError::Backup { code, message }
    }
}

impl Drop for RawDb {
    fn drop(&mut self) {
        // SAFETY: the handle is ours (or null, which sqlite3_close accepts); nothing uses it after.
        unsafe { ffi::sqlite3_close(self.0) };
    }
}

#[derive(QueryableByName)]
struct FileRow {
    #[diesel(sql_type = Text)]
    file: String,
}

/// The file of the `main` database behind `conn`, as SQLite reports it.
fn database_file(conn: &mut SqliteConnection) -> Result<String, SnapshotError> {
    let rows: Vec<FileRow> =
        diesel::sql_query("SELECT file FROM pragma_database_list WHERE name = 'main'").load(conn)?;
    match rows.into_iter().next() {
        Some(row) if !row.file.is_empty() => Ok(row.file),
        _ => Err(SnapshotError::Backup { code: ffi::SQLITE_CANTOPEN, message: "not a file database".into() }),
    }
}

/// Writes a consistent copy of the database behind `conn` (a connection of the live pool, used
/// only to find the file) to `dest`, which must not exist. On failure nothing is left at `dest`.
/// Returns the copy's size in bytes.
pub fn snapshot_database(conn: &mut SqliteConnection, dest: &Path) -> Result<u64, SnapshotError> {
    let dest_text = dest.to_str().ok_or(SnapshotError::NonUtf8Path)?;
    let source = database_file(conn)?;
    drop(create_private_file(dest).map_err(SnapshotError::Destination)?);
    let result = copy_pages(&source, dest_text)
        .and_then(|()| mark_rollback_journal(dest))
        .and_then(|()| Ok(fs::metadata(dest).map_err(SnapshotError::Sync)?.len()));
    if result.is_err() {
        let _ = fs::remove_file(dest);
    }
    result
}

fn copy_pages(source: &str, dest: &str) -> Result<(), SnapshotError> {
    let src = RawDb::open(source, ffi::SQLITE_OPEN_READONLY)?;
    let dst = RawDb::open(dest, ffi::SQLITE_OPEN_READWRITE | ffi::SQLITE_OPEN_NOFOLLOW)?;
    dst.exec(c"PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF;")?;
    // One read transaction for the whole copy: the state committed when it starts.
    src.exec(c"BEGIN; SELECT count(*) FROM sqlite_master;")?;
    // SAFETY: both handles are open and distinct; "main" is NUL-terminated.
    let backup = unsafe { ffi::sqlite3_backup_init(dst.0, c"main".as_ptr(), src.0, c"main".as_ptr()) };
    if backup.is_null() {
        // SAFETY: an open handle.
        return Err(dst.error(unsafe { ffi::sqlite3_errcode(dst.0) }));
    }
    let mut busy = 0;
    let step = loop {
        // SAFETY: a live backup handle (finished only below).
        match unsafe { ffi::sqlite3_backup_step(backup, STEP_PAGES) } {
            ffi::SQLITE_OK => std::thread::yield_now(),
            ffi::SQLITE_DONE => break ffi::SQLITE_OK,
            ffi::SQLITE_BUSY | ffi::SQLITE_LOCKED if busy < BUSY_RETRIES => {
                busy += 1;
                std::thread::sleep(Duration::from_millis(10));
            }
            failed => break failed,
        }
    };
    // SAFETY: finishes (and frees) the backup handle exactly once.
    let finish = unsafe { ffi::sqlite3_backup_finish(backup) };
    let _ = src.exec(c"COMMIT;");
    match (step, finish) {
        (ffi::SQLITE_OK, ffi::SQLITE_OK) => Ok(()),
        (ffi::SQLITE_OK, code) | (code, _) => Err(dst.error(code)),
    }
}

/// The copied header still names the source's WAL mode (bytes 18-19 = 2); the snapshot is a
/// whole checkpointed file, so it becomes a rollback-journal database (1), as
/// `PRAGMA journal_mode = DELETE` would leave it, and opening it creates no `-wal` file.
fn mark_rollback_journal(dest: &Path) -> Result<(), SnapshotError> {
    use std::io::{Read, Seek, SeekFrom, Write};
    let mut file = fs::OpenOptions::new().read(true).write(true).open(dest).map_err(SnapshotError::Sync)?;
    let mut header = [0u8; 20];
    file.read_exact(&mut header).map_err(SnapshotError::Sync)?;
    if !header.starts_with(b"SQLite format 3\0") {
        return Err(SnapshotError::Backup {
            code: ffi::SQLITE_NOTADB,
            message: "the copy has no SQLite header".into(),
        });
    }
    if header[18..20] != [1, 1] {
        file.seek(SeekFrom::Start(18)).map_err(SnapshotError::Sync)?;
        file.write_all(&[1, 1]).map_err(SnapshotError::Sync)?;
    }
    Ok(())
}

#[derive(QueryableByName)]
struct Version {
    #[diesel(sql_type = Text)]
    version: String,
}

/// The migration versions recorded in a database, oldest first.
pub fn applied_migrations(conn: &mut SqliteConnection) -> Result<Vec<String>, diesel::result::Error> {
    let rows: Vec<Version> =
        diesel::sql_query("SELECT version FROM __diesel_schema_migrations ORDER BY version").load(conn)?;
    Ok(rows.into_iter().map(|r| r.version).collect())
}

/// The migration versions recorded in the snapshot file at `path`.
pub fn snapshot_migrations(path: &Path) -> Result<Vec<String>, SnapshotError> {
    use diesel::Connection;
    let text = path.to_str().ok_or(SnapshotError::NonUtf8Path)?;
    let mut conn = SqliteConnection::establish(text)?;
    Ok(applied_migrations(&mut conn)?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use diesel::connection::SimpleConnection;
    use diesel::sql_types::BigInt;
    use diesel::Connection;
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::Arc;

    #[derive(QueryableByName)]
    struct Count {
        #[diesel(sql_type = BigInt)]
        n: i64,
    }

    #[derive(QueryableByName)]
    struct Check {
        #[diesel(sql_type = Text)]
        integrity_check: String,
    }

    fn count(conn: &mut SqliteConnection) -> i64 {
        diesel::sql_query("SELECT count(*) AS n FROM probe").load::<Count>(conn).unwrap()[0].n
    }

    #[test]
    fn snapshot_while_another_thread_writes_is_consistent_and_intact() {
        use std::os::unix::fs::PermissionsExt;
        let tmp = tempfile::tempdir().unwrap();
        let (pool, _) = crate::db::open(&tmp.path().join("relay.db"), 4).unwrap();
        pool.get().unwrap().batch_execute("CREATE TABLE probe (id INTEGER PRIMARY KEY, v TEXT NOT NULL)").unwrap();
        let stop = Arc::new(AtomicBool::new(false));
        let writer = {
            let (pool, stop) = (pool.clone(), stop.clone());
            std::thread::spawn(move || {
                let mut conn = pool.get().unwrap();
                let mut written = 0;
                while !stop.load(Ordering::Relaxed) || written < 200 {
                    conn.batch_execute(
                        "BEGIN IMMEDIATE; INSERT INTO probe (v) VALUES (hex(randomblob(200))); \
                         INSERT INTO probe (v) VALUES ('pair'); COMMIT;",
                    )
                    .unwrap();
                    written += 1;
                }
                written
            })
        };
        while count(&mut pool.get().unwrap()) < 100 {
            std::thread::yield_now();
        }
        let dest = tmp.path().join("snapshot.db");
        let size = snapshot_database(&mut pool.get().unwrap(), &dest).unwrap();
        let mut copy = SqliteConnection::establish(dest.to_str().unwrap()).unwrap();
        let copied = count(&mut copy);
        while count(&mut pool.get().unwrap()) <= copied {
            std::thread::yield_now(); // the live store keeps taking writes after the snapshot
        }
        stop.store(true, Ordering::Relaxed);
        let written = writer.join().unwrap();
        assert_eq!(fs::metadata(&dest).unwrap().len(), size);
        assert_eq!(fs::metadata(&dest).unwrap().permissions().mode() & 0o777, 0o600);

        let check: Vec<Check> = diesel::sql_query("PRAGMA integrity_check").load(&mut copy).unwrap();
        assert_eq!(check.iter().map(|c| c.integrity_check.as_str()).collect::<Vec<_>>(), ["ok"]);
        assert!(copied >= 100 && copied % 2 == 0, "whole transactions only: {copied}");
        assert!(copied < written * 2, "a snapshot of one moment ({copied} of {} rows)", written * 2);
        assert_eq!(applied_migrations(&mut copy).unwrap(), applied_migrations(&mut pool.get().unwrap()).unwrap());
        assert!(!applied_migrations(&mut copy).unwrap().is_empty());
    }

    #[derive(QueryableByName)]
    struct Mode {
        #[diesel(sql_type = Text)]
        journal_mode: String,
    }

    #[test]
    fn a_snapshot_of_many_steps_holds_every_acknowledged_row_and_is_a_rollback_journal_database() {
        let tmp = tempfile::tempdir().unwrap();
        let (pool, _) = crate::db::open(&tmp.path().join("relay.db"), 4).unwrap();
        let mut conn = pool.get().unwrap();
        conn.batch_execute("CREATE TABLE probe (id INTEGER PRIMARY KEY, v BLOB NOT NULL)").unwrap();
        // About three steps of pages, every row acknowledged (committed) before the snapshot.
        for _ in 0..12 {
            conn.batch_execute(
                "BEGIN IMMEDIATE; WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 256)                  INSERT INTO probe (v) SELECT randomblob(4000) FROM n; COMMIT;",
            )
            .unwrap();
        }
        let acknowledged = count(&mut conn);
        let stop = Arc::new(AtomicBool::new(false));
        let writer = {
            let (pool, stop) = (pool.clone(), stop.clone());
            std::thread::spawn(move || {
                let mut conn = pool.get().unwrap();
                while !stop.load(Ordering::Relaxed) {
                    conn.batch_execute("INSERT INTO probe (v) VALUES (randomblob(4000))").unwrap();
                }
            })
        };
        let dest = tmp.path().join("snapshot.db");
        snapshot_database(&mut conn, &dest).unwrap();
        stop.store(true, Ordering::Relaxed);
        writer.join().unwrap();

        let header = fs::read(&dest).unwrap();
        assert_eq!(&header[18..20], &[1, 1], "a rollback-journal database, not a WAL one");
        let mut copy = SqliteConnection::establish(dest.to_str().unwrap()).unwrap();
        let pages: Vec<Count> =
            diesel::sql_query("SELECT page_count AS n FROM pragma_page_count").load(&mut copy).unwrap();
        assert!(pages[0].n > 2 * i64::from(STEP_PAGES), "copied in several steps ({} pages)", pages[0].n);
        assert!(count(&mut copy) >= acknowledged, "every acknowledged row");
        let check: Vec<Check> = diesel::sql_query("PRAGMA integrity_check").load(&mut copy).unwrap();
        assert_eq!(check.iter().map(|c| c.integrity_check.as_str()).collect::<Vec<_>>(), ["ok"]);
        let mode: Vec<Mode> = diesel::sql_query("PRAGMA journal_mode").load(&mut copy).unwrap();
        assert_eq!(mode[0].journal_mode, "delete");
        assert!(!tmp.path().join("snapshot.db-wal").exists(), "opening the copy made no WAL");
    }

    #[test]
    fn an_existing_destination_is_refused_and_a_failed_snapshot_leaves_nothing() {
        let tmp = tempfile::tempdir().unwrap();
        let (pool, _) = crate::db::open(&tmp.path().join("relay.db"), 1).unwrap();
        let dest = tmp.path().join("taken.db");
        fs::write(&dest, b"operator file").unwrap();
        assert!(matches!(snapshot_database(&mut pool.get().unwrap(), &dest), Err(SnapshotError::Destination(_))));
        assert_eq!(fs::read(&dest).unwrap(), b"operator file", "never overwritten");
        let missing_dir = tmp.path().join("absent").join("x.db");
        assert!(snapshot_database(&mut pool.get().unwrap(), &missing_dir).is_err());
        assert!(!missing_dir.exists());
    }
}
