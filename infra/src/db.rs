//! Opening the SQLite database: an r2d2 pool of Diesel connections, each configured with WAL,
//! a 5 s busy timeout, foreign keys and NORMAL synchronous mode; the embedded migrations from
//! `migrations/` run at open (idempotent: applied ones are skipped); and a scan that reports
//! tables Relay does not manage, which are always left in place.

use diesel::connection::SimpleConnection;
use diesel::r2d2::{ConnectionManager, CustomizeConnection, Pool, PooledConnection};
use diesel::sql_types::Text;
use diesel::sqlite::SqliteConnection;
use diesel::{QueryableByName, RunQueryDsl};
use diesel_migrations::{embed_migrations, EmbeddedMigrations, MigrationHarness};

pub const MIGRATIONS: EmbeddedMigrations = embed_migrations!("../migrations");
pub const BUSY_TIMEOUT_MS: u32 = 5000;

pub type DbPool = Pool<ConnectionManager<SqliteConnection>>;
pub type DbConn = PooledConnection<ConnectionManager<SqliteConnection>>;

#[derive(Debug, thiserror::Error)]
pub enum DbError {
    #[error("could not open the database pool: {0}")]
    Pool(String),
    #[error("migrations failed: {0}")]
    Migration(String),
    #[error("database error: {0}")]
    Query(#[from] diesel::result::Error),
}

#[derive(Debug, Clone, Copy)]
struct Pragmas;

impl CustomizeConnection<SqliteConnection, diesel::r2d2::Error> for Pragmas {
    fn on_acquire(&self, conn: &mut SqliteConnection) -> Result<(), diesel::r2d2::Error> {
        conn.batch_execute(&format!(
            "PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}; PRAGMA journal_mode = WAL; \
             PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON;"
        ))
        .map_err(diesel::r2d2::Error::QueryError)
    }
}

/// Opens the pool at `path` (created if missing) with `size` connections and runs migrations.
/// Returns the pool and the migrations applied now (empty when already up to date).
pub fn open(path: &std::path::Path, size: u32) -> Result<(DbPool, Vec<String>), DbError> {
    let manager = ConnectionManager::<SqliteConnection>::new(path.to_string_lossy());
    let pool = Pool::builder()
        .max_size(size.max(1))
        .connection_customizer(Box::new(Pragmas))
        .build(manager)
        .map_err(|e| DbError::Pool(e.to_string()))?;
    let mut conn = pool.get().map_err(|e| DbError::Pool(e.to_string()))?;
    let applied = conn
        .run_pending_migrations(MIGRATIONS)
        .map_err(|e| DbError::Migration(e.to_string()))?
        .into_iter()
        .map(|v| v.to_string())
        .collect();
    Ok((pool, applied))
}

#[derive(QueryableByName)]
struct TableName {
    #[diesel(sql_type = Text)]
    name: String,
}

/// Tables in the database that are neither managed collections nor Relay/SQLite internals.
pub fn unmanaged_tables(conn: &mut SqliteConnection) -> Result<Vec<String>, DbError> {
    let rows: Vec<TableName> =
        diesel::sql_query("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").load(conn)?;
    Ok(rows
        .into_iter()
        .map(|r| r.name)
        .filter(|n| {
            domain::collections::collection(n).is_none()
                && !n.starts_with("sqlite_")
                && !n.starts_with("relay_")
                && n != "__diesel_schema_migrations"
        })
        .collect())
}

/// Column names of a table, in order (used by the schema drift test and diagnostics).
pub fn table_columns(conn: &mut SqliteConnection, table: &str) -> Result<Vec<String>, DbError> {
    let rows: Vec<TableName> =
        diesel::sql_query("SELECT name FROM pragma_table_info(?) ORDER BY cid").bind::<Text, _>(table).load(conn)?;
    Ok(rows.into_iter().map(|r| r.name).collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use domain::collections::{MANAGED, SYSTEM_FIELDS};

    #[test]
    fn migrations_are_idempotent_and_match_the_collection_specs() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("relay.db");
        let (_, applied) = open(&path, 1).unwrap();
        let shipped = std::fs::read_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/../migrations")).unwrap().count();
        assert_eq!(applied.len(), shipped, "every shipped migration applies on a fresh database");
        let (pool, applied) = open(&path, 2).unwrap();
        assert!(applied.is_empty());
        let mut conn = pool.get().unwrap();
        for spec in MANAGED {
            let expected: Vec<String> =
                SYSTEM_FIELDS.iter().copied().chain(spec.fields.iter().map(|f| f.name)).map(String::from).collect();
            assert_eq!(table_columns(&mut conn, spec.name).unwrap(), expected, "{}", spec.name);
        }
    }

    #[test]
    fn pragmas_apply_to_every_pooled_connection() {
        #[derive(QueryableByName)]
        struct Mode {
            #[diesel(sql_type = Text)]
            journal_mode: String,
        }
        let tmp = tempfile::tempdir().unwrap();
        let (pool, _) = open(&tmp.path().join("relay.db"), 2).unwrap();
        let mut conn = pool.get().unwrap();
        let mode: Vec<Mode> = diesel::sql_query("PRAGMA journal_mode").load(&mut conn).unwrap();
        assert_eq!(mode[0].journal_mode, "wal");
    }

    #[test]
    fn unmanaged_tables_are_reported_not_removed() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("relay.db");
        let (pool, _) = open(&path, 1).unwrap();
        let mut conn = pool.get().unwrap();
        conn.batch_execute("CREATE TABLE operator_extras (x TEXT); INSERT INTO operator_extras VALUES ('keep');")
            .unwrap();
        drop(conn);
        drop(pool);
        let (pool, _) = open(&path, 1).unwrap();
        let mut conn = pool.get().unwrap();
        assert_eq!(unmanaged_tables(&mut conn).unwrap(), vec!["operator_extras".to_string()]);
        assert_eq!(table_columns(&mut conn, "operator_extras").unwrap(), vec!["x".to_string()]);
    }
}
