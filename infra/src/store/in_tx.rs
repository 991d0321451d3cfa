//! Server-owned record writes inside a caller's transaction: the privileged pipeline's `wiki.*`
//! commands change Wiki categories and documents in the same transaction as their audit entry,
//! so a command and its record changes commit or roll back together. Every body is validated
//! against the collection's descriptor exactly as the record API would validate it, reads here
//! ignore the collection's client read rule (the server sees trashed documents), and nothing
//! here publishes: the caller publishes the returned records after its commit.

use diesel::sqlite::SqliteConnection;
use diesel::RunQueryDsl;
use serde_json::Value;

use domain::collections::CollectionSpec;
use domain::record::RecordError;
use domain::validation::{validate_write, SqlValue, WriteMode};

use super::{bind_all, delete_row, insert_new_row, map_db_error, parse_rows, update_row, JsonRow};
use crate::sql::{quote_ident, record_json};

/// Creates a record with a fresh id; `body` is validated as a create.
pub fn create_in(
    conn: &mut SqliteConnection,
    spec: &CollectionSpec,
    body: &Value,
    now_ms: i64,
) -> Result<Value, RecordError> {
    let write = validate_write(spec, body, WriteMode::Create)?;
    insert_new_row(conn, spec, &write, now_ms).map_err(|e| map_db_error(spec, e))
}

/// Updates the fields `body` names on record `id`; `NotFound` when there is none.
pub fn update_in(
    conn: &mut SqliteConnection,
    spec: &CollectionSpec,
    id: &str,
    body: &Value,
    now_ms: i64,
) -> Result<Value, RecordError> {
    let write = validate_write(spec, body, WriteMode::Update)?;
    update_row(conn, spec, id, &write, now_ms).map_err(|e| map_db_error(spec, e))
}

/// Deletes record `id` and returns it; `NotFound` when there is none.
pub fn delete_in(conn: &mut SqliteConnection, spec: &CollectionSpec, id: &str) -> Result<Value, RecordError> {
    delete_row(conn, spec, id).map_err(|e| map_db_error(spec, e))
}

/// Records matching `clause` (SQL over the descriptor's quoted fields, values bound), in
/// `order`, at most `limit`; the client read rule does not apply.
pub fn select_in(
    conn: &mut SqliteConnection,
    spec: &CollectionSpec,
    clause: &str,
    binds: &[SqlValue],
    order: &str,
    limit: i64,
) -> Result<Vec<Value>, RecordError> {
    let sql = format!(
        "SELECT {} AS data FROM {} WHERE {clause} ORDER BY {order} LIMIT {limit}",
        record_json(spec),
        quote_ident(spec.name)
    );
    let rows: Vec<JsonRow> =
        bind_all(diesel::sql_query(sql).into_boxed(), binds).load(conn).map_err(|e| map_db_error(spec, e))?;
    parse_rows(rows)
}

/// Record `id` whatever the read rule says; `None` when there is none.
pub fn get_in(conn: &mut SqliteConnection, spec: &CollectionSpec, id: &str) -> Result<Option<Value>, RecordError> {
    Ok(select_in(conn, spec, "id = ?", &[SqlValue::Text(id.to_string())], "id", 1)?.pop())
}
