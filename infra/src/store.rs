//! The record store: list, get, create, update and delete for any managed collection, built from
//! its descriptor. Writes run in IMMEDIATE transactions that also draw the next store-wide
//! revision, so every committed change has a unique, increasing revision. Rows are rendered to
//! record JSON by SQLite itself (`json_object`), only for the rows of the requested page, and
//! all user values are bound parameters. Statements whose text is fixed per collection (create,
//! view, the revision counter) are prepared once per connection (`cached`). A list's `~` terms
//! use the search index when it narrows them to few candidates for the collection's size (their
//! rowids are read once and bound into the page and total queries), and its total uses the same
//! predicate; a term just seen to be too broad for the index scans at once (`plan_memo`). A
//! newest-first search without a total reads its page from the index in rowid order when the
//! database shows that order to be `created` order (`newest_first`), and otherwise takes the
//! index when the scan would walk far (`long_walk`).
//! Record-API writes arrive in groups (`batch`): one transaction, a savepoint each.
//!
//! The record API's list pages are rendered in two steps so that a page's memory is bounded by
//! a batch, not by the page (issue #39.5): [`RecordStore::list_ids`] reads the page's ids and
//! counts (the same choice and order as [`RecordStore::list`]), then [`RecordStore::render_batch`]
//! renders the records a few MiB at a time, each call on its own short use of a connection. The
//! steps are not one snapshot: a record deleted (or made unreadable) between them is skipped, so
//! such a page can hold fewer items than its ids, while `totalItems` stays the count taken with
//! the ids; a record changed between them is rendered as it is when its batch is read.

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
mod newest_first;
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

/// The first step of a list page ([`RecordStore::list_ids`]): the page's counts (a `ListPage`
/// without items) and its records' ids in page order.
#[derive(Debug, Clone, PartialEq)]
pub struct PageIds {
    pub page: ListPage,
    pub ids: Vec<String>,
}

/// Records rendered by [`RecordStore::render_batch`]: `text` is each record's JSON preceded by a
/// comma (`,{..},{..}`), `items` how many records it holds, `next` the index of the first id not
/// read yet (`ids.len()` at the end; ids of deleted records are passed over, not counted).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RenderedBatch {
    pub text: Vec<u8>,
    pub items: usize,
    pub next: usize,
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

/// The JSON text of record `id` if a client may read it (`CollectionSpec::reads`): the view
/// route's statement, also used per id by [`RecordStore::render_batch`].
fn readable_json(conn: &mut SqliteConnection, spec: &CollectionSpec, id: &str) -> Result<Option<String>, RecordError> {
    let clause = crate::sql::readable(spec, Where { sql: "id = ?".into(), binds: vec![SqlValue::Text(id.into())] });
    let sql = format!("SELECT {} AS data FROM {} WHERE {}", record_json(spec), quote_ident(spec.name), clause.sql);
    let rows: Vec<JsonRow> = Cached { sql: &sql, binds: clause.binds }.load(conn).map_err(|e| map_db_error(spec, e))?;
    Ok(rows.into_iter().next().map(|r| r.data))
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
        let filter = self.page_filter(&mut conn, spec, q, plan)?;
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
        let total = self.page_total(&mut conn, spec, q, &filter)?;
        Ok(ListPage::new(q, total, items))
    }

    /// The record API's list, first step: the ids of the page's records in page order and the
    /// page's counts, without rendering a record (so the page's size in memory is its ids).
    /// [`RecordStore::render_batch`] then renders the records a few MiB at a time, each call on
    /// a connection of its own, so no pooled connection is held while a client reads.
    pub fn list_ids(&self, spec: &CollectionSpec, q: &ListQuery) -> Result<PageIds, RecordError> {
        let mut conn = self.conn()?;
        let filter = self.page_filter(&mut conn, spec, q, SearchPlan::BySize)?;
        let order = order_by(spec, &q.sort).map_err(RecordError::BadRequest)?;
        let offset = (q.page as i64 - 1) * q.per_page as i64;
        // The same choice, in the same order, as `list_planned`'s inner query (the order ends
        // with rowid, so it is total).
        let sql =
            format!("SELECT id AS data FROM {} WHERE {} {order} LIMIT ? OFFSET ?", quote_ident(spec.name), filter.sql);
        let rows: Vec<JsonRow> = bind_all(diesel::sql_query(sql).into_boxed(), &filter.binds)
            .bind::<BigInt, _>(q.per_page as i64)
            .bind::<BigInt, _>(offset)
            .load(&mut conn)
            .map_err(|e| map_db_error(spec, e))?;
        let total = self.page_total(&mut conn, spec, q, &filter)?;
        Ok(PageIds { page: ListPage::new(q, total, Vec::new()), ids: rows.into_iter().map(|r| r.data).collect() })
    }

    /// Renders the records `ids[from..]` in order, exactly as [`RecordStore::list`] renders a
    /// page's items, each preceded by a comma, and stops after the record that brings the text
    /// to `max_bytes` (always taking at least one record, so a batch may exceed it by one
    /// record). Rows are read as they are now: an id whose record has been deleted since
    /// [`RecordStore::list_ids`] (or is no longer readable) is skipped, and a record changed
    /// since then is rendered as changed (the filter is not evaluated again). Records past the
    /// stopping point are not read. The batch holds one connection only while it renders.
    pub fn render_batch(
        &self,
        spec: &CollectionSpec,
        ids: &[String],
        from: usize,
        max_bytes: usize,
    ) -> Result<RenderedBatch, RecordError> {
        let rest = ids.get(from..).unwrap_or_default();
        if rest.is_empty() {
            return Ok(RenderedBatch { text: Vec::new(), items: 0, next: ids.len() });
        }
        let mut conn = self.conn()?;
        let mut batch = RenderedBatch { text: Vec::new(), items: 0, next: from };
        for id in rest {
            batch.next += 1;
            // One statement per id (the view route's, prepared once per connection): the rows
            // come in the page's order and only as far as the batch goes.
            let Some(data) = readable_json(&mut conn, spec, id)? else { continue };
            // Parsed and written again, as `list` does: the item's text is serde_json's, not
            // SQLite's (key order, number and escape spelling).
            let value: Value = serde_json::from_str(&data).map_err(|_| RecordError::Internal)?;
            drop(data);
            batch.text.push(b',');
            serde_json::to_writer(&mut batch.text, &value).map_err(|_| RecordError::Internal)?;
            batch.items += 1;
            if batch.text.len() >= max_bytes {
                break;
            }
        }
        Ok(batch)
    }

    /// The filter of a list page, with its `~` terms narrowed by the search index as `plan`
    /// (or the collection's size) says, restricted to the records a client may read.
    fn page_filter(
        &self,
        conn: &mut SqliteConnection,
        spec: &CollectionSpec,
        q: &ListQuery,
        plan: SearchPlan,
    ) -> Result<Where, RecordError> {
        // A newest-first search without a total: the page along the index, when it is exact.
        let walked = match &q.filter {
            Some(expr) if plan == SearchPlan::BySize && q.skip_total => {
                newest_first::walk(conn, spec, q, expr, &self.memo)
            }
            _ => None,
        };
        let filter = match (&q.filter, walked) {
            (_, Some(walked)) => walked,
            (Some(expr), None) => {
                let by_size = plan == SearchPlan::BySize;
                let newest_first_without_total =
                    q.skip_total && q.sort.first().is_some_and(|k| k.field == "created" && k.descending);
                let mut plan = plan;
                let mut rows = 0;
                let mut use_index = |index: &SearchIndex, query: &str| {
                    if plan == SearchPlan::BySize {
                        rows = approximate_rows(conn, spec);
                        let max_candidates = domain::search::max_index_candidates(rows, !q.skip_total);
                        plan = SearchPlan::Selective { max_candidates };
                    }
                    let chosen = choose_index(conn, &self.memo, plan, index, query);
                    if chosen == Narrowing::Scan && by_size && newest_first_without_total {
                        let page_end = u64::from(q.page) * u64::from(q.per_page);
                        let limit = domain::search::max_index_candidates(rows, true);
                        let memo = &self.memo;
                        let rescue = long_walk::rescue_long_walk(conn, index, query, page_end, rows, limit, memo);
                        if let Some(rowids) = rescue {
                            memo.rescued();
                            return rowids;
                        }
                    }
                    chosen
                };
                compile_filter_with(spec, expr, &mut use_index).map_err(RecordError::BadRequest)?
            }
            (None, None) => Where { sql: "1".into(), binds: vec![] },
        };
        Ok(crate::sql::readable(spec, filter))
    }

    /// The page's total (`None` under `skipTotal`), counted with the page's filter.
    fn page_total(
        &self,
        conn: &mut SqliteConnection,
        spec: &CollectionSpec,
        q: &ListQuery,
        filter: &Where,
    ) -> Result<Option<i64>, RecordError> {
        if q.skip_total {
            return Ok(None);
        }
        let sql = format!("SELECT COUNT(*) AS n FROM {} WHERE {}", quote_ident(spec.name), filter.sql);
        let rows: Vec<CountRow> = bind_all(diesel::sql_query(sql).into_boxed(), &filter.binds)
            .load(conn)
            .map_err(|e| map_db_error(spec, e))?;
        Ok(rows.first().map(|r| r.n))
    }

    /// One record a client may read (`CollectionSpec::reads`); a hidden one is `NotFound`.
    pub fn get(&self, spec: &CollectionSpec, id: &str) -> Result<Value, RecordError> {
        let mut conn = self.conn()?;
        let data = readable_json(&mut conn, spec, id)?.ok_or(RecordError::NotFound)?;
        serde_json::from_str(&data).map_err(|_| RecordError::Internal)
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
    use domain::collections::{CLIENT_PRESENCE, CONTACTS, ONCALL_BOARD_SETTINGS, STANDALONE_NOTES};
    use domain::record::{RawListParams, LIST_PAGE_END};
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

    /// A page as the record API sends it: the ids, then batches of at most `max_bytes`.
    fn streamed(
        s: &RecordStore,
        spec: &CollectionSpec,
        raw: &RawListParams,
        max_bytes: usize,
        between: impl Fn(usize),
    ) -> (String, usize) {
        let q = ListQuery::parse(spec, raw).unwrap();
        let PageIds { page, ids } = s.list_ids(spec, &q).unwrap();
        let (mut items, mut from, mut batches) = (Vec::new(), 0, 0);
        while from < ids.len() {
            between(batches);
            let batch = s.render_batch(spec, &ids, from, max_bytes).unwrap();
            assert!(batch.next > from, "every batch reads at least one id");
            items.extend_from_slice(&batch.text);
            (from, batches) = (batch.next, batches + 1);
        }
        let items = String::from_utf8(items).unwrap();
        (format!("{}{}{LIST_PAGE_END}", page.json_head(), items.strip_prefix(',').unwrap_or(&items)), batches)
    }

    #[test]
    fn pages_rendered_in_batches_are_the_whole_page_byte_for_byte() {
        let (_t, s) = store();
        for i in 0..12 {
            // Escapes, non-ASCII text, fractions and whole numbers, JSON arrays: the item text is
            // serde_json's, whichever path writes it.
            let body = json!({"title": format!("N{}", i % 5), "content": "é \"q\" \u{1}\n</x>", "sortOrder": i as f64 / 3.0 - 1.0,
                "tags": ["a", format!("t{i}")], "color": "blue"});
            create(&s, &STANDALONE_NOTES, body, i).unwrap();
        }
        let raw = |sort: &str, filter: &str, page: &str, per_page: &str, skip_total: &str| {
            let opt = |v: &str| (!v.is_empty()).then(|| v.to_string());
            RawListParams {
                sort: opt(sort),
                filter: opt(filter),
                page: opt(page),
                per_page: opt(per_page),
                skip_total: opt(skip_total),
            }
        };
        let raws = [
            raw("", "", "", "", ""),
            raw("-title,sortOrder", "", "2", "5", ""),
            raw("", "title ~ 'N1' || sortOrder > 2", "", "", "1"),
            raw("", "title = 'none'", "", "", ""),
        ];
        for raw in &raws {
            let q = ListQuery::parse(&STANDALONE_NOTES, raw).unwrap();
            let whole = serde_json::to_string(&s.list(&STANDALONE_NOTES, &q).unwrap()).unwrap();
            for max_bytes in [1, 300, 1000, usize::MAX] {
                let (text, _) = streamed(&s, &STANDALONE_NOTES, raw, max_bytes, |_| ());
                assert_eq!(text, whole, "{raw:?} in batches of {max_bytes} bytes");
            }
        }
        let (_, batches) = streamed(&s, &STANDALONE_NOTES, &RawListParams::default(), 1, |_| ());
        assert_eq!(batches, 12, "one record a batch");
    }

    #[test]
    fn a_record_deleted_between_the_ids_and_its_batch_is_left_out() {
        let (_t, s) = store();
        let ids: Vec<String> = (0..6)
            .map(|i| create(&s, &CONTACTS, json!({"name": format!("N{i}")}), i).unwrap()["id"].as_str().unwrap().into())
            .collect();
        let raw = RawListParams { sort: Some("name".into()), ..Default::default() };
        // Records 0 and 1 are sent in the first two batches; record 3 and the last one are
        // deleted before their batches are read.
        let (text, _) = streamed(&s, &CONTACTS, &raw, 1, |batch| {
            if batch == 2 {
                s.delete(&CONTACTS, &ids[3]).unwrap();
                s.delete(&CONTACTS, &ids[5]).unwrap();
            }
        });
        let page: Value = serde_json::from_str(&text).unwrap();
        let names: Vec<&str> = page["items"].as_array().unwrap().iter().map(|r| r["name"].as_str().unwrap()).collect();
        assert_eq!(names, ["N0", "N1", "N2", "N4"]);
        assert_eq!(
            (page["totalItems"].as_i64(), page["totalPages"].as_i64()),
            (Some(6), Some(1)),
            "the count read with the ids"
        );
        let q = ListQuery::parse(&CONTACTS, &raw).unwrap();
        let past_the_end = s.render_batch(&CONTACTS, &ids, 6, 1).unwrap();
        assert_eq!((past_the_end.items, past_the_end.next, past_the_end.text.len()), (0, 6, 0));
        assert_eq!(s.list_ids(&CONTACTS, &q).unwrap().ids.len(), 4);
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
