//! Alert threads at the store's choke point (`domain::alert_threads`): every create of an
//! `alert_history` row (record API, batch, offline replay, in-transaction writes) goes through
//! `insert_row`, which calls [`place_in_thread`] inside its IMMEDIATE transaction: the client's
//! `threadId` is checked against the stored rows and the send's `updateNumber` is one more than
//! the thread's highest, read in that same transaction, so concurrent sends to one thread are
//! serialized by SQLite's write lock and get distinct, consecutive numbers (the partial unique
//! index on `threadId, updateNumber` backs this up). On update, [`keep_server_owned`] drops any
//! value a client sent for the thread fields: a send never moves to another thread or number.

use std::borrow::Cow;

use diesel::result::Error as DieselError;
use diesel::sql_types::{Double, Nullable, Text};
use diesel::sqlite::SqliteConnection;
use diesel::{QueryableByName, RunQueryDsl};

use domain::alert_threads::{place_send, ThreadRequest, COLLECTION, SERVER_OWNED_FIELDS, THREAD_ID, UPDATE_NUMBER};
use domain::collections::CollectionSpec;
use domain::validation::{SqlValue, ValidatedWrite};

#[derive(QueryableByName)]
struct Highest {
    #[diesel(sql_type = Nullable<Double>)]
    n: Option<f64>,
}

/// The thread's highest stored update number; `None` when no row belongs to it. A row written
/// before threads existed (empty `threadId`) is the thread named by its own id.
fn highest_update(conn: &mut SqliteConnection, thread_id: &str) -> Result<Option<i64>, DieselError> {
    let sql = "SELECT MAX(\"updateNumber\") AS n FROM \"alert_history\" \
               WHERE \"threadId\" = ? OR (\"id\" = ? AND \"threadId\" = '')";
    let rows: Vec<Highest> = diesel::sql_query(sql).bind::<Text, _>(thread_id).bind::<Text, _>(thread_id).load(conn)?;
    Ok(rows.into_iter().next().and_then(|r| r.n).map(|n| n as i64))
}

fn text_value<'a>(write: &'a ValidatedWrite, field: &str) -> &'a str {
    write
        .values
        .iter()
        .find_map(|(name, value)| match value {
            SqlValue::Text(text) if *name == field => Some(text.as_str()),
            _ => None,
        })
        .unwrap_or("")
}

/// The create `write` of record `id` with its thread fields assigned (other collections'
/// writes unchanged); `UnknownAlertThread` (as a serialization error `map_db_error` answers on
/// `threadId`) when it names a thread that does not exist.
pub(crate) fn place_in_thread<'a>(
    conn: &mut SqliteConnection,
    spec: &CollectionSpec,
    id: &str,
    write: &'a ValidatedWrite,
) -> Result<Cow<'a, ValidatedWrite>, DieselError> {
    if spec.name != COLLECTION {
        return Ok(Cow::Borrowed(write));
    }
    let request = ThreadRequest::from_create(text_value(write, THREAD_ID), id);
    let highest = match &request {
        ThreadRequest::Start => None,
        ThreadRequest::Continue(thread_id) => highest_update(conn, thread_id)?,
    };
    let placed = place_send(&request, id, highest).map_err(|e| DieselError::SerializationError(Box::new(e)))?;
    let mut placed_write = write.clone();
    placed_write.values.retain(|(name, _)| !SERVER_OWNED_FIELDS.contains(name));
    placed_write.values.push((THREAD_ID, SqlValue::Text(placed.thread_id)));
    placed_write.values.push((UPDATE_NUMBER, SqlValue::Real(placed.update_number as f64)));
    Ok(Cow::Owned(placed_write))
}

/// The update `write` without the server-owned thread fields (other collections' unchanged).
pub(crate) fn keep_server_owned<'a>(spec: &CollectionSpec, write: &'a ValidatedWrite) -> Cow<'a, ValidatedWrite> {
    if spec.name != COLLECTION || !write.values.iter().any(|(name, _)| SERVER_OWNED_FIELDS.contains(name)) {
        return Cow::Borrowed(write);
    }
    let mut kept = write.clone();
    kept.values.retain(|(name, _)| !SERVER_OWNED_FIELDS.contains(name));
    Cow::Owned(kept)
}

#[cfg(test)]
#[path = "alert_threads_tests.rs"]
mod tests;
