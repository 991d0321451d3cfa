//! A consistent copy of the live SQLite store taken while it keeps serving: `VACUUM INTO` on a
//! connection of the running pool (one read transaction, so the copy is one committed state
//! and writers carry on in the WAL), never a file copy of a WAL database. The destination is
//! created owner-only and empty first (SQLite accepts an empty file) and fsynced after. Also
//! reads the migrations applied to a database, for the manifest.

use std::fs;
use std::path::Path;

use diesel::sql_types::Text;
use diesel::sqlite::SqliteConnection;
use diesel::{QueryableByName, RunQueryDsl};

use crate::datadir::create_private_file;

#[derive(Debug, thiserror::Error)]
pub enum SnapshotError {
    #[error("the snapshot destination already exists or cannot be created: {0}")]
    Destination(std::io::Error),
    #[error("the snapshot path is not valid UTF-8")]
    NonUtf8Path,
    #[error("the database snapshot failed: {0}")]
    Database(#[from] diesel::result::Error),
    #[error("the snapshot could not be flushed to disk: {0}")]
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
            SnapshotError::NonUtf8Path | SnapshotError::Open(_) => false,
        }
    }
}

/// Writes a consistent copy of the database behind `conn` to `dest`, which must not exist.
/// On failure nothing is left at `dest`. Returns the copy's size in bytes.
pub fn snapshot_database(conn: &mut SqliteConnection, dest: &Path) -> Result<u64, SnapshotError> {
    let dest_text = dest.to_str().ok_or(SnapshotError::NonUtf8Path)?;
    drop(create_private_file(dest).map_err(SnapshotError::Destination)?);
    let result = (|| {
        diesel::sql_query("VACUUM INTO ?").bind::<Text, _>(dest_text).execute(conn)?;
        let file = fs::File::open(dest).map_err(SnapshotError::Sync)?;
        file.sync_all().map_err(SnapshotError::Sync)?;
        Ok(file.metadata().map_err(SnapshotError::Sync)?.len())
    })();
    if result.is_err() {
        let _ = fs::remove_file(dest);
    }
    result
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
