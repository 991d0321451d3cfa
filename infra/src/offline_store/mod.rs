//! The desktop client's offline storage: `DATA/offline/cache.db` (the last server snapshot of
//! each collection with the client's own writes over it) and `DATA/offline/queue.db` (the
//! writes waiting for replay), one Diesel SQLite connection with the queue ATTACHed so a write
//! changes cache and queue in one commit. Both files use a rollback journal (SQLite commits
//! across attached files atomically only then) with `synchronous = FULL`, are owner-only in an
//! owner-only folder, and carry their own embedded migrations. An unreadable cache is deleted
//! and rebuilt (it refills while connected); an unreadable queue is never deleted: it is moved
//! aside under a dated name and reported, so no offline work is erased silently. `cache` holds
//! the snapshot side, `queue` the pending changes.

mod cache;
mod queue;
#[cfg(test)]
mod tests;

use std::path::{Path, PathBuf};

use diesel::connection::SimpleConnection;
use diesel::sql_types::Text;
use diesel::sqlite::SqliteConnection;
use diesel::{Connection, QueryableByName, RunQueryDsl};
use diesel_migrations::{embed_migrations, EmbeddedMigrations, MigrationHarness};
use serde_json::{Map, Value};

use domain::offline::queue::{MutationAction, MutationError};

pub use cache::CachedCollection;
pub use queue::{MutationApplied, Settle};

const CACHE_MIGRATIONS: EmbeddedMigrations = embed_migrations!("migrations/offline_cache");
const QUEUE_MIGRATIONS: EmbeddedMigrations = embed_migrations!("migrations/offline_queue");

/// The folder under the data directory.
pub const OFFLINE_DIR: &str = "offline";
pub const CACHE_FILE: &str = "cache.db";
pub const QUEUE_FILE: &str = "queue.db";

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum OfflineStoreError {
    /// The files cannot be opened, read or written; `detail` is for the log only.
    #[error("Offline storage is unavailable")]
    Unavailable { detail: String },
    /// The write broke an offline rule (the operator-facing text).
    #[error("{0}")]
    Refused(#[from] MutationError),
    /// The queued change is gone or was edited since it was read (its version moved).
    #[error("the queued change has changed since it was read")]
    Stale,
}

pub(crate) fn unavailable(e: impl std::fmt::Display) -> OfflineStoreError {
    OfflineStoreError::Unavailable { detail: e.to_string() }
}

impl From<diesel::result::Error> for OfflineStoreError {
    fn from(e: diesel::result::Error) -> Self {
        unavailable(e)
    }
}

/// An unreadable queue moved aside at start.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Quarantine {
    pub reason: String,
    pub moved_to: PathBuf,
}

/// What opening had to repair.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct OpenReport {
    /// Why the cache was rebuilt, when it was.
    pub cache_rebuilt: Option<String>,
    pub queue_quarantined: Option<Quarantine>,
}

/// One queued offline write.
#[derive(Debug, Clone, PartialEq)]
pub struct PendingChange {
    pub id: i64,
    pub mutation_id: String,
    pub collection: String,
    pub record_id: String,
    pub action: MutationAction,
    pub data: Option<Map<String, Value>>,
    pub timestamp_ms: i64,
    /// The cached server copy's `updated` when the change was first made ('' for a create).
    pub base_updated: String,
    /// That copy's record fingerprint ('' for a create).
    pub expected_fingerprint: String,
    pub version: i64,
    /// Why the change waits for review ('' while it simply waits to sync).
    pub sync_error: String,
}

/// The cache and queue of one desktop client; one owner (the `offline_replay` actor).
pub struct OfflineStore {
    conn: SqliteConnection,
    dir: PathBuf,
}

#[derive(QueryableByName)]
struct CheckRow {
    #[diesel(sql_type = Text)]
    quick_check: String,
}

const PRAGMAS: &str = "PRAGMA busy_timeout = 5000; PRAGMA synchronous = FULL;";

/// Creates `path` owner-only before SQLite opens it (its journal inherits the mode).
fn create_private(path: &Path) -> std::io::Result<()> {
    use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
    std::fs::OpenOptions::new().create(true).append(true).mode(0o600).custom_flags(libc::O_NOFOLLOW).open(path)?;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600))
}

/// Opens one file alone, checks it and brings its schema up to date.
fn prepare(path: &Path, migrations: EmbeddedMigrations) -> Result<(), String> {
    create_private(path).map_err(|e| format!("cannot create the file: {e}"))?;
    let url = path.to_str().ok_or("the path is not UTF-8")?;
    let mut conn = SqliteConnection::establish(url).map_err(|e| e.to_string())?;
    conn.batch_execute(PRAGMAS).map_err(|e| e.to_string())?;
    conn.batch_execute("PRAGMA journal_mode = DELETE;").map_err(|e| e.to_string())?;
    let check: Vec<CheckRow> = diesel::sql_query("PRAGMA quick_check").load(&mut conn).map_err(|e| e.to_string())?;
    if check.len() != 1 || check[0].quick_check != "ok" {
        return Err(format!("integrity check failed: {}", check.first().map(|c| c.quick_check.as_str()).unwrap_or("")));
    }
    conn.run_pending_migrations(migrations).map_err(|e| e.to_string())?;
    Ok(())
}

fn remove_with_companions(path: &Path) {
    for suffix in ["", "-journal", "-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{}{suffix}", path.display()));
    }
}

/// Creates the owner-only folder, refusing a link or a file in its place.
fn private_dir(dir: &Path) -> Result<(), OfflineStoreError> {
    use std::os::unix::fs::{DirBuilderExt, PermissionsExt};
    match std::fs::symlink_metadata(dir) {
        Ok(meta) if !meta.is_dir() => Err(unavailable(format!("{} is not a folder", dir.display()))),
        Ok(_) => std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700)).map_err(unavailable),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            std::fs::DirBuilder::new().recursive(true).mode(0o700).create(dir).map_err(unavailable)
        }
        Err(e) => Err(unavailable(e)),
    }
}

impl OfflineStore {
    /// Opens (creating or repairing) the offline files under `data_dir/offline`.
    pub fn open(data_dir: &Path) -> Result<(OfflineStore, OpenReport), OfflineStoreError> {
        let dir = data_dir.join(OFFLINE_DIR);
        private_dir(&dir)?;
        let mut report = OpenReport::default();
        let queue_path = dir.join(QUEUE_FILE);
        if let Err(reason) = prepare(&queue_path, QUEUE_MIGRATIONS) {
            let moved_to = dir.join(format!("{QUEUE_FILE}.unreadable-{}", {
                use crate::clock::Clock;
                crate::clock::SystemClock.now_ms()
            }));
            std::fs::rename(&queue_path, &moved_to).map_err(unavailable)?;
            let journal = PathBuf::from(format!("{}-journal", queue_path.display()));
            if journal.exists() {
                let _ = std::fs::rename(&journal, format!("{}-journal", moved_to.display()));
            }
            prepare(&queue_path, QUEUE_MIGRATIONS).map_err(unavailable)?;
            report.queue_quarantined = Some(Quarantine { reason, moved_to });
        }
        let cache_path = dir.join(CACHE_FILE);
        if let Err(reason) = prepare(&cache_path, CACHE_MIGRATIONS) {
            remove_with_companions(&cache_path);
            prepare(&cache_path, CACHE_MIGRATIONS).map_err(unavailable)?;
            report.cache_rebuilt = Some(reason);
        }
        let url = cache_path.to_str().ok_or_else(|| unavailable("the path is not UTF-8"))?;
        let mut conn = SqliteConnection::establish(url).map_err(unavailable)?;
        conn.batch_execute(PRAGMAS)?;
        diesel::sql_query("ATTACH DATABASE ? AS q")
            .bind::<Text, _>(queue_path.to_str().ok_or_else(|| unavailable("the path is not UTF-8"))?)
            .execute(&mut conn)?;
        conn.batch_execute(
            "PRAGMA main.journal_mode = DELETE; PRAGMA q.journal_mode = DELETE; PRAGMA q.synchronous = FULL;",
        )?;
        Ok((OfflineStore { conn, dir }, report))
    }

    /// The folder holding the files.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Proves both files settled before the app exits into another runtime (the recovery
    /// launcher snapshots `DATA/offline` before a candidate's first start): a write lock is taken
    /// and released (rolling back any hot journal), both files pass `quick_check`, and no
    /// rollback journal remains beside either. The caller then drops the store, closing the
    /// connection.
    pub fn checkpoint(&mut self) -> Result<(), OfflineStoreError> {
        self.conn.batch_execute("BEGIN IMMEDIATE; COMMIT;")?;
        for schema in ["main", "q"] {
            let check: Vec<CheckRow> =
                diesel::sql_query(format!("PRAGMA {schema}.quick_check")).load(&mut self.conn)?;
            if check.len() != 1 || check[0].quick_check != "ok" {
                return Err(unavailable(format!("the {schema} offline file failed its check")));
            }
        }
        for file in [CACHE_FILE, QUEUE_FILE] {
            if self.dir.join(format!("{file}-journal")).exists() {
                return Err(unavailable(format!("a journal remains beside {file}")));
            }
        }
        Ok(())
    }
}
