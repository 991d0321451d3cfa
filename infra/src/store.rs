//! The record store: list, get, create, update and delete for any managed collection, built from
//! its descriptor. Writes run in IMMEDIATE transactions that also draw the next store-wide
//! revision, so every committed change has a unique, increasing revision. Rows are rendered to
//! record JSON by SQLite itself (`json_object`), only for the rows of the requested page, and
//! all user values are bound parameters. Statements whose text is fixed per collection (create,
//! view, the revision counter) are prepared once per connection (`cached`). A list's `~` terms
//! use the search index when it narrows them to few candidates for the collection's size (their
//! rowids are read once and bound into the page and total queries), and its total uses the same
//! predicate; a term just seen to be too broad for the index scans at once (`plan_memo`), and a
//! newest-first list without a total takes the index when the scan would walk far (`long_walk`).
//! Record-API writes arrive in groups (`batch`): one transaction, a savepoint each.

use diesel::query_builder::{BoxedSqlQuery, SqlQuery};
use diesel::result::{DatabaseErrorKind, Error as DieselError};
use diesel::sql_types::{BigInt, Double, Text};
use diesel::sqlite::{Sqlite, SqliteConnection};
use diesel::{QueryableByName, RunQueryDsl};
use serde_json::Value;

use domain::collections::CollectionSpec;
use domain::filter::Expr;
use domain::record::{ListPage, ListQuery, RecordError};
use domain::search::SearchIndex;
use domain::time::format_ms;
use domain::validation::{SqlValue, ValidatedWrite};

use crate::db::{DbConn, DbPool};

mod offline;
pub use offline::{PreparedReplay, PreparedSync, ReplayOutcome};
pub(crate) mod alert_threads;
mod batch;
mod cached;
mod in_tx;
mod long_walk;
mod plan_memo;
mod retention;
mod search_merge;
pub use batch::{BatchedChange, BatchedWrite};
use cached::Cached;
pub use in_tx::{create_in, delete_in, get_in, select_in, update_in};
use plan_memo::PlanMemo;
#[cfg(test)]
mod oncall_history_tests;
#[cfg(test)]
mod search_tests;
use crate::sql::{
    compile_filter, compile_filter_with, order_by, quote_ident, record_json, Narrowing, SearchPlan, Where,
};

#[derive(QueryableByName)]
pub(crate) struct JsonRow {
    #[diesel(sql_type = Text)]
    pub(crate) data: String,
}

#[derive(QueryableByName)]
struct CountRow {
    #[diesel(sql_type = BigInt)]
    n: i64,
}

type Query<'a> = BoxedSqlQuery<'a, Sqlite, SqlQuery>;

fn bind_all<'a>(mut q: Query<'a>, binds: &[SqlValue]) -> Query<'a> {
    for b in binds {
        q = match b {
            SqlValue::Text(s) => q.bind::<Text, _>(s.clone()),
            SqlValue::Real(n) => q.bind::<Double, _>(*n),
            SqlValue::Integer(i) => q.bind::<BigInt, _>(*i),
        };
    }
    q
}

fn parse_rows(rows: Vec<JsonRow>) -> Result<Vec<Value>, RecordError> {
    rows.into_iter().map(|r| serde_json::from_str(&r.data).map_err(|_| RecordError::Internal)).collect()
}

/// Maps a database error to the API vocabulary; unique violations name the offending field.
pub(crate) fn map_db_error(spec: &CollectionSpec, err: DieselError) -> RecordError {
    match &err {
        DieselError::DatabaseError(DatabaseErrorKind::UniqueViolation, info) => {
            let column = info.message().rsplit('.').next().unwrap_or("id").trim().to_string();
            let field = if column == "id" || spec.field(&column).is_some() { column } else { "id".to_string() };
            RecordError::field(&field, "validation_not_unique", "Value must be unique.")
        }
        DieselError::NotFound => RecordError::NotFound,
        DieselError::SerializationError(e) if e.is::<domain::alert_threads::UnknownAlertThread>() => {
            let refused = e.downcast_ref::<domain::alert_threads::UnknownAlertThread>().expect("checked by the guard");
            RecordError::from(refused.clone())
        }
        DieselError::SerializationError(e) if e.is::<crate::html::HtmlRefused>() => {
            let refused = e.downcast_ref::<crate::html::HtmlRefused>().expect("checked by the guard");
            RecordError::field(refused.field, refused.code, refused.message.clone())
        }
        _ => {
            tracing::error!(collection = spec.name, error = %err, "store query failed");
            RecordError::Internal
        }
    }
}

fn next_revision(conn: &mut SqliteConnection) -> Result<i64, DieselError> {
    let sql = "UPDATE relay_sequence SET value = value + 1 WHERE name = 'revision' RETURNING value AS n";
    let rows: Vec<CountRow> = Cached { sql, binds: Vec::new() }.load(conn)?;
    rows.first().map(|r| r.n).ok_or(DieselError::NotFound)
}

pub(crate) fn single(rows: Vec<JsonRow>) -> Result<Value, DieselError> {
    let row = rows.into_iter().next().ok_or(DieselError::NotFound)?;
    serde_json::from_str(&row.data).map_err(|e| DieselError::DeserializationError(Box::new(e)))
}

/// Inserts one validated record inside the caller's transaction, drawing the next revision.
/// Rich-HTML fields are stored sanitized (`crate::html::clean_values`), as in [`update_row`]; an
/// alert send is placed in its thread (`alert_threads`) in the same transaction.
pub(crate) fn insert_row(
    conn: &mut SqliteConnection,
    spec: &CollectionSpec,
    id: &str,
    write: &ValidatedWrite,
    now_ms: i64,
) -> Result<Value, DieselError> {
    let now = format_ms(now_ms);
    let write = &*alert_threads::place_in_thread(conn, spec, id, write)?;
    let mut columns: Vec<String> = ["id", "created", "updated", "revision"].iter().map(|c| quote_ident(c)).collect();
    columns.extend(write.values.iter().map(|(name, _)| quote_ident(name)));
    let placeholders = vec!["?"; columns.len()].join(", ");
    let sql = format!(
        "INSERT INTO {} ({}) VALUES ({placeholders}) RETURNING {} AS data",
        quote_ident(spec.name),
        columns.join(", "),
        record_json(spec)
    );
    let values = crate::html::clean_values(spec, write)?;
    let revision = next_revision(conn)?;
    // A create names every field of the collection, so this text is fixed per collection.
    let mut binds = Vec::with_capacity(values.len() + 4);
    binds.extend([SqlValue::Text(id.to_string()), SqlValue::Text(now.clone()), SqlValue::Text(now)]);
    binds.push(SqlValue::Integer(revision));
    binds.extend(values);
    single(Cached { sql: &sql, binds }.load::<JsonRow>(conn)?)
}

/// [`insert_row`] under the write's own (validated) id, or a fresh one when it names none.
pub(crate) fn insert_new_row(
    conn: &mut SqliteConnection,
    spec: &CollectionSpec,
    write: &ValidatedWrite,
    now_ms: i64,
) -> Result<Value, DieselError> {
    let id = write.id.clone().unwrap_or_else(crate::ids::record_id);
    insert_row(conn, spec, &id, write, now_ms)
}

/// Updates one record inside the caller's transaction; `NotFound` when the id does not exist.
pub(crate) fn update_row(
    conn: &mut SqliteConnection,
    spec: &CollectionSpec,
    id: &str,
    write: &ValidatedWrite,
    now_ms: i64,
) -> Result<Value, DieselError> {
    let write = &*alert_threads::keep_server_owned(spec, write);
    let mut sets = vec!["\"updated\" = ?".to_string(), "\"revision\" = ?".to_string()];
    sets.extend(write.values.iter().map(|(name, _)| format!("{} = ?", quote_ident(name))));
    let sql = format!(
        "UPDATE {} SET {} WHERE id = ? RETURNING {} AS data",
        quote_ident(spec.name),
        sets.join(", "),
        record_json(spec)
    );
    let values = crate::html::clean_values(spec, write)?;
    let revision = next_revision(conn)?;
    let q = diesel::sql_query(sql).into_boxed().bind::<Text, _>(format_ms(now_ms)).bind::<BigInt, _>(revision);
    single(bind_all(q, &values).bind::<Text, _>(id.to_string()).load::<JsonRow>(conn)?)
}

/// Deletes record `id` inside the caller's transaction and returns it; `NotFound` when there is
/// none.
pub(crate) fn delete_row(conn: &mut SqliteConnection, spec: &CollectionSpec, id: &str) -> Result<Value, DieselError> {
    let sql = format!("DELETE FROM {} WHERE id = ? RETURNING {} AS data", quote_ident(spec.name), record_json(spec));
    single(diesel::sql_query(sql).bind::<Text, _>(id).load::<JsonRow>(conn)?)
}

#[derive(QueryableByName)]
struct CandidateRows {
    #[diesel(sql_type = BigInt)]
    n: i64,
    #[diesel(sql_type = Text)]
    rowids: String,
}

/// The rowids the index selects for `query` (at most `limit + 1` of them, so the caller can tell
/// that there are more than `limit`): how many, and the JSON array `[r1,r2,...]` that
/// [`Narrowing::Rowids`] binds, both built by SQLite in one pass. `None` (and a log line) when
/// the index cannot answer, so the caller scans.
fn candidates(conn: &mut SqliteConnection, index: &SearchIndex, query: &str, limit: u32) -> Option<(u32, String)> {
    let fts = quote_ident(index.table);
    let sql = format!(
        "SELECT count(*) AS n, json_group_array(rowid) AS rowids FROM \
         (SELECT rowid FROM {fts} WHERE {fts} MATCH ? LIMIT ?)"
    );
    let rows =
        diesel::sql_query(sql).bind::<Text, _>(query).bind::<BigInt, _>(limit as i64 + 1).load::<CandidateRows>(conn);
    match rows {
        Ok(rows) => rows.into_iter().next().map(|r| (r.n as u32, r.rowids)),
        Err(e) => {
            tracing::error!(index = index.table, error = %e, "search index query failed");
            None
        }
    }
}

/// About how many rows `spec` holds: its largest rowid (one index step; deleted rows make it an
/// overestimate).
fn approximate_rows(conn: &mut SqliteConnection, spec: &CollectionSpec) -> u64 {
    let sql = format!("SELECT COALESCE(MAX(rowid), 0) AS n FROM {}", quote_ident(spec.name));
    match diesel::sql_query(sql).load::<CountRow>(conn) {
        Ok(rows) => rows.first().map_or(0, |r| r.n.max(0) as u64),
        Err(e) => {
            tracing::error!(collection = spec.name, error = %e, "row estimate failed");
            0
        }
    }
}

/// How `plan` narrows the term whose FTS5 query on `index` is `query`. `BySize` is resolved by
/// [`RecordStore::list_planned`]; alone it takes the smaller, total-less limit. A term `memo`
/// knows to overflow the limit scans without reading the index again.
fn choose_index(
    conn: &mut SqliteConnection,
    memo: &PlanMemo,
    plan: SearchPlan,
    index: &SearchIndex,
    query: &str,
) -> Narrowing {
    match plan {
        SearchPlan::Indexed => Narrowing::Match,
        SearchPlan::Scan => Narrowing::Scan,
        SearchPlan::BySize => {
            let max_candidates = domain::search::INDEX_MAX_CANDIDATES;
            choose_index(conn, memo, SearchPlan::Selective { max_candidates }, index, query)
        }
        SearchPlan::Selective { max_candidates } if memo.known_to_overflow(index.table, query, max_candidates) => {
            Narrowing::Scan
        }
        SearchPlan::Selective { max_candidates } => match candidates(conn, index, query, max_candidates) {
            Some((n, rowids)) if n <= max_candidates => {
                memo.fits(index.table, query);
                Narrowing::Rowids(rowids)
            }
            Some(_) => {
                memo.overflowed(index.table, query, max_candidates);
                Narrowing::Scan
            }
            None => Narrowing::Scan,
        },
    }
}

/// A handle to the pool that performs record operations; cheap to clone.
#[derive(Clone)]
pub struct RecordStore {
    pool: DbPool,
    /// Search terms recently too broad for the index (shared by the clones).
    memo: std::sync::Arc<PlanMemo>,
}

impl RecordStore {
    pub fn new(pool: DbPool) -> RecordStore {
        RecordStore { pool, memo: std::sync::Arc::new(PlanMemo::new(plan_memo::MEMO_TTL)) }
    }

    pub(crate) fn conn(&self) -> Result<DbConn, RecordError> {
        self.pool.get().map_err(|e| {
            tracing::error!(error = %e, "no database connection available");
            RecordError::Unavailable
        })
    }

    pub fn pool(&self) -> &DbPool {
        &self.pool
    }

    /// Bytes the database occupies (pages plus write-ahead log).
    pub fn database_size(&self) -> Result<crate::db::DatabaseSize, RecordError> {
        let mut conn = self.conn()?;
        crate::db::database_size(&mut conn).map_err(|e| {
            tracing::error!(error = %e, "database size query failed");
            RecordError::Internal
        })
    }

    /// A PASSIVE checkpoint of the WAL (`crate::db::checkpoint`; the store's checkpointer).
    pub fn checkpoint(&self) -> Result<crate::db::Checkpointed, RecordError> {
        let mut conn = self.conn()?;
        crate::db::checkpoint(&mut conn).map_err(|e| {
            tracing::error!(error = %e, "WAL checkpoint failed");
            RecordError::Internal
        })
    }

    /// One page of records; a `~` term uses the search index when it narrows the collection to
    /// few enough rows (`domain::search::max_index_candidates`), and the total (unless
    /// `skipTotal`) is counted with the same predicate.
    pub fn list(&self, spec: &CollectionSpec, q: &ListQuery) -> Result<ListPage, RecordError> {
        self.list_planned(spec, q, SearchPlan::BySize)
    }

    /// [`RecordStore::list`] with the `~` plan chosen by the caller (tests and benches compare
    /// the plans).
    pub fn list_planned(
        &self,
        spec: &CollectionSpec,
        q: &ListQuery,
        plan: SearchPlan,
    ) -> Result<ListPage, RecordError> {
        let mut conn = self.conn()?;
        let filter = match &q.filter {
            Some(expr) => {
                let by_size = plan == SearchPlan::BySize;
                let newest_first_without_total =
                    q.skip_total && q.sort.first().is_some_and(|k| k.field == "created" && k.descending);
                let mut plan = plan;
                let mut rows = 0;
                let mut use_index = |index: &SearchIndex, query: &str| {
                    if plan == SearchPlan::BySize {
                        rows = approximate_rows(&mut conn, spec);
                        let max_candidates = domain::search::max_index_candidates(rows, !q.skip_total);
                        plan = SearchPlan::Selective { max_candidates };
                    }
                    let chosen = choose_index(&mut conn, &self.memo, plan, index, query);
                    if chosen == Narrowing::Scan && by_size && newest_first_without_total {
                        let page_end = u64::from(q.page) * u64::from(q.per_page);
                        let limit = domain::search::max_index_candidates(rows, true);
                        let memo = &self.memo;
                        let rescue = long_walk::rescue_long_walk(&mut conn, index, query, page_end, rows, limit, memo);
                        if let Some(rowids) = rescue {
                            memo.rescued();
                            return rowids;
                        }
                    }
                    chosen
                };
                compile_filter_with(spec, expr, &mut use_index).map_err(RecordError::BadRequest)?
            }
            None => Where { sql: "1".into(), binds: vec![] },
        };
        let filter = crate::sql::readable(spec, filter);
        let order = order_by(spec, &q.sort).map_err(RecordError::BadRequest)?;
        let table = quote_ident(spec.name);
        let offset = (q.page as i64 - 1) * q.per_page as i64;
        // The page's rowids are chosen first and only those rows are rendered: rendering inside
        // the sorted query would build the JSON of every matching row before the sort.
        let sql = format!(
            "SELECT {} AS data FROM {table} WHERE rowid IN \
             (SELECT rowid FROM {table} WHERE {} {order} LIMIT ? OFFSET ?) {order}",
            record_json(spec),
            filter.sql
        );
        let query = bind_all(diesel::sql_query(sql).into_boxed(), &filter.binds)
            .bind::<BigInt, _>(q.per_page as i64)
            .bind::<BigInt, _>(offset);
        let items = parse_rows(query.load(&mut conn).map_err(|e| map_db_error(spec, e))?)?;
        let total = if q.skip_total {
            None
        } else {
            let sql = format!("SELECT COUNT(*) AS n FROM {table} WHERE {}", filter.sql);
            let rows: Vec<CountRow> = bind_all(diesel::sql_query(sql).into_boxed(), &filter.binds)
                .load(&mut conn)
                .map_err(|e| map_db_error(spec, e))?;
            rows.first().map(|r| r.n)
        };
        Ok(ListPage::new(q, total, items))
    }

    /// One record a client may read (`CollectionSpec::reads`); a hidden one is `NotFound`.
    pub fn get(&self, spec: &CollectionSpec, id: &str) -> Result<Value, RecordError> {
        let mut conn = self.conn()?;
        let clause = crate::sql::readable(spec, Where { sql: "id = ?".into(), binds: vec![SqlValue::Text(id.into())] });
        let sql = format!("SELECT {} AS data FROM {} WHERE {}", record_json(spec), quote_ident(spec.name), clause.sql);
        let rows: Vec<JsonRow> =
            Cached { sql: &sql, binds: clause.binds }.load(&mut conn).map_err(|e| map_db_error(spec, e))?;
        parse_rows(rows)?.pop().ok_or(RecordError::NotFound)
    }

    /// The id of the first record whose `field` equals `value`, if any.
    pub fn find_id_by(&self, spec: &CollectionSpec, field: &str, value: &str) -> Result<Option<String>, RecordError> {
        if spec.field(field).is_none() {
            return Err(RecordError::BadRequest(format!("Invalid field {field:?}.")));
        }
        let mut conn = self.conn()?;
        let sql = format!(
            "SELECT id AS data FROM {} WHERE {} = ? ORDER BY rowid LIMIT 1",
            quote_ident(spec.name),
            quote_ident(field)
        );
        let rows: Vec<JsonRow> =
            diesel::sql_query(sql).bind::<Text, _>(value).load(&mut conn).map_err(|e| map_db_error(spec, e))?;
        Ok(rows.into_iter().next().map(|r| r.data))
    }

    pub fn create(&self, spec: &CollectionSpec, write: &ValidatedWrite, now_ms: i64) -> Result<Value, RecordError> {
        let mut conn = self.conn()?;
        conn.immediate_transaction(|c| insert_new_row(c, spec, write, now_ms)).map_err(|e| map_db_error(spec, e))
    }

    pub fn update(
        &self,
        spec: &CollectionSpec,
        id: &str,
        write: &ValidatedWrite,
        now_ms: i64,
    ) -> Result<Value, RecordError> {
        let mut conn = self.conn()?;
        conn.immediate_transaction(|c| update_row(c, spec, id, write, now_ms)).map_err(|e| map_db_error(spec, e))
    }

    pub fn delete(&self, spec: &CollectionSpec, id: &str) -> Result<Value, RecordError> {
        let mut deleted = self.delete_matching(spec, "id = ?", &[SqlValue::Text(id.to_string())], 1)?;
        deleted.pop().ok_or(RecordError::NotFound)
    }

    /// Deletes up to `limit` records matching `expr` (oldest first) and returns them.
    pub fn delete_where(&self, spec: &CollectionSpec, expr: &Expr, limit: u32) -> Result<Vec<Value>, RecordError> {
        let w = compile_filter(spec, expr).map_err(RecordError::BadRequest)?;
        self.delete_matching(spec, &w.sql, &w.binds, limit)
    }

    fn delete_matching(
        &self,
        spec: &CollectionSpec,
        where_sql: &str,
        binds: &[SqlValue],
        limit: u32,
    ) -> Result<Vec<Value>, RecordError> {
        let mut conn = self.conn()?;
        let table = quote_ident(spec.name);
        let sql = format!(
            "DELETE FROM {table} WHERE rowid IN (SELECT rowid FROM {table} WHERE {where_sql} ORDER BY rowid LIMIT ?) \
             RETURNING {} AS data",
            record_json(spec)
        );
        conn.immediate_transaction(|c| {
            bind_all(diesel::sql_query(sql.as_str()).into_boxed(), binds)
                .bind::<BigInt, _>(limit as i64)
                .load::<JsonRow>(c)
        })
        .map_err(|e| map_db_error(spec, e))
        .and_then(parse_rows)
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use domain::collections::{CLIENT_PRESENCE, CONTACTS, ONCALL_BOARD_SETTINGS};
    use domain::record::RawListParams;
    use domain::validation::{validate_write, WriteMode};
    use serde_json::json;

    /// A store over a fresh temporary database (shared by this crate's tests).
    pub(crate) fn store() -> (tempfile::TempDir, RecordStore) {
        let tmp = tempfile::tempdir().unwrap();
        let (pool, _) = crate::db::open(&tmp.path().join("relay.db"), 2).unwrap();
        (tmp, RecordStore::new(pool))
    }

    fn create(s: &RecordStore, spec: &CollectionSpec, body: Value, now: i64) -> Result<Value, RecordError> {
        s.create(spec, &validate_write(spec, &body, WriteMode::Create)?, now)
    }

    fn list(s: &RecordStore, filter: &str, sort: &str) -> ListPage {
        let raw = RawListParams { filter: Some(filter.into()), sort: Some(sort.into()), ..Default::default() };
        s.list(&CONTACTS, &ListQuery::parse(&CONTACTS, &raw).unwrap()).unwrap()
    }

    #[test]
    fn crud_round_trip_with_monotonic_revisions() {
        let (_t, s) = store();
        let a = create(&s, &CONTACTS, json!({"name": "Ada", "email": "ada@x.io"}), 1_000).unwrap();
        assert_eq!(a["collectionName"], "contacts");
        assert_eq!(a["created"], "1970-01-01 00:00:01.000Z");
        assert_eq!(a["revision"], 1);
        let id = a["id"].as_str().unwrap().to_string();
        let w = validate_write(&CONTACTS, &json!({"title": "NOC lead"}), WriteMode::Update).unwrap();
        let b = s.update(&CONTACTS, &id, &w, 2_500).unwrap();
        assert_eq!(
            (b["title"].as_str(), b["name"].as_str(), b["revision"].as_i64()),
            (Some("NOC lead"), Some("Ada"), Some(2))
        );
        assert_eq!(b["updated"], "1970-01-01 00:00:02.500Z");
        assert_eq!(b["created"], a["created"]);
        assert_eq!(s.get(&CONTACTS, &id).unwrap(), b);
        assert_eq!(s.delete(&CONTACTS, &id).unwrap()["id"], id.as_str());
        assert_eq!(s.get(&CONTACTS, &id), Err(RecordError::NotFound));
        assert_eq!(s.delete(&CONTACTS, &id), Err(RecordError::NotFound));
        assert_eq!(s.update(&CONTACTS, &id, &w, 3_000), Err(RecordError::NotFound));
        let c = create(&s, &CONTACTS, json!({"name": "Bob"}), 4_000).unwrap();
        assert_eq!(c["revision"], 3, "a failed update must not consume a revision");
    }

    #[test]
    fn filters_sorting_paging_and_injection_attempts() {
        let (_t, s) = store();
        for (i, name) in ["Cleo", "ada", "Bob", "O'Brien"].iter().enumerate() {
            create(&s, &CONTACTS, json!({"name": name, "title": format!("t{i}")}), i as i64).unwrap();
        }
        let names = |p: &ListPage| p.items.iter().map(|r| r["name"].as_str().unwrap().to_string()).collect::<Vec<_>>();
        assert_eq!(names(&list(&s, "", "name")), vec!["Bob", "Cleo", "O'Brien", "ada"]);
        assert_eq!(names(&list(&s, "name ~ 'o'", "-name")), vec!["O'Brien", "Cleo", "Bob"]);
        assert_eq!(names(&list(&s, "name = \"O'Brien\"", "")), vec!["O'Brien"]);
        assert_eq!(names(&list(&s, "title = 't1' || (name = 'Bob' && title != 'x')", "name")), vec!["Bob", "ada"]);
        for attack in ["x' OR '1'='1", "'; DROP TABLE contacts; --", "%' OR 1=1 --"] {
            let quoted = attack.replace('\\', "\\\\").replace('\'', "\\'");
            assert_eq!(list(&s, &format!("name = '{quoted}'"), "").total_items, 0, "{attack}");
        }
        assert_eq!(list(&s, "", "").total_items, 4, "table survived the attempts");
        let raw = RawListParams {
            page: Some("2".into()),
            per_page: Some("3".into()),
            sort: Some("name".into()),
            ..Default::default()
        };
        let p = s.list(&CONTACTS, &ListQuery::parse(&CONTACTS, &raw).unwrap()).unwrap();
        assert_eq!((p.total_items, p.total_pages, names(&p)), (4, 2, vec!["ada".to_string()]));
    }

    #[test]
    fn unique_keys_report_the_field_and_leave_data_unchanged() {
        let (_t, s) = store();
        create(&s, &ONCALL_BOARD_SETTINGS, json!({"key": "primary"}), 1).unwrap();
        let e = create(&s, &ONCALL_BOARD_SETTINGS, json!({"key": "primary", "locked": true}), 2).unwrap_err();
        assert_eq!(e, RecordError::field("key", "validation_not_unique", "Value must be unique."));
        let body = json!({"sessionId": "s1", "hostname": "h", "mode": "client", "lastSeen": "2026-01-01T00:00:00Z"});
        let first = create(&s, &CLIENT_PRESENCE, body.clone(), 3).unwrap();
        assert!(matches!(create(&s, &CLIENT_PRESENCE, body, 4), Err(RecordError::Validation(_))));
        let dup =
            json!({"id": first["id"], "sessionId": "s2", "hostname": "h", "mode": "client", "lastSeen": "2026-01-01"});
        let e = create(&s, &CLIENT_PRESENCE, dup, 5).unwrap_err();
        assert_eq!(e, RecordError::field("id", "validation_not_unique", "Value must be unique."));
    }

    #[test]
    fn delete_where_removes_only_matches() {
        let (_t, s) = store();
        for (sid, seen) in [("a", "2026-01-01T00:00:00Z"), ("b", "2026-06-01T00:00:00Z"), ("c", "2026-01-02T00:00:00Z")]
        {
            let body = json!({"sessionId": sid, "hostname": "h", "mode": "client", "lastSeen": seen});
            create(&s, &CLIENT_PRESENCE, body, 1).unwrap();
        }
        let expr = domain::filter::parse_filter("lastSeen < '2026-03-01 00:00:00.000Z'").unwrap();
        let gone = s.delete_where(&CLIENT_PRESENCE, &expr, 10).unwrap();
        let mut ids: Vec<&str> = gone.iter().map(|r| r["sessionId"].as_str().unwrap()).collect();
        ids.sort();
        assert_eq!(ids, vec!["a", "c"]);
        let rest =
            s.list(&CLIENT_PRESENCE, &ListQuery::parse(&CLIENT_PRESENCE, &RawListParams::default()).unwrap()).unwrap();
        assert_eq!(rest.total_items, 1);
    }
}
