//! Alert threads at the store's choke point (`domain::alert_threads`): every create of an
//! `alert_history` row (record API, batch, offline replay, in-transaction writes) goes through
//! `insert_row`, which calls [`place_in_thread`] inside its IMMEDIATE transaction: the client's
//! `threadId` is checked against the stored rows and the send's `updateNumber` is one more than
//! the thread's highest, read in that same transaction, so concurrent sends to one thread are
//! serialized by SQLite's write lock and get distinct, consecutive numbers (the partial unique
//! index on `threadId, updateNumber` backs this up). On update, [`keep_server_owned`] drops any
//! value a client sent for the thread fields: a send never moves to another thread or number.
//! An import gives every row a fresh id, so [`ImportedThreads`] rebases the threads an exported
//! file names onto the new ids, inserting each thread's sends in their exported order.

use std::borrow::Cow;
use std::collections::HashMap;

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

fn number_value(write: &ValidatedWrite, field: &str) -> f64 {
    write
        .values
        .iter()
        .find_map(|(name, value)| match value {
            SqlValue::Real(n) if *name == field => Some(*n),
            _ => None,
        })
        .unwrap_or(0.0)
}

/// The order an import inserts its rows in: as given, except that alert sends go by their
/// exported update number (stable), so a thread's first send is in place before its updates and
/// the server numbers them in their original order whichever order the file lists them in.
pub(crate) fn import_order<'a>(spec: &CollectionSpec, creates: impl Iterator<Item = &'a ValidatedWrite>) -> Vec<usize> {
    let numbers: Vec<f64> = creates.map(|write| number_value(write, UPDATE_NUMBER)).collect();
    let mut order: Vec<usize> = (0..numbers.len()).collect();
    if spec.name == COLLECTION {
        order.sort_by(|a, b| numbers[*a].total_cmp(&numbers[*b]));
    }
    order
}

/// The threads of one import: the thread id a file names, mapped to the new id of the first of
/// its sends imported. The first imported send of a thread starts it; the later ones continue it.
#[derive(Debug, Default)]
pub(crate) struct ImportedThreads {
    new_ids: HashMap<String, String>,
}

impl ImportedThreads {
    /// The create `write` of imported row `id` with its `threadId` naming the imported thread
    /// (other collections' writes unchanged).
    pub(crate) fn rebase<'a>(
        &mut self,
        spec: &CollectionSpec,
        id: &str,
        write: &'a ValidatedWrite,
    ) -> Cow<'a, ValidatedWrite> {
        let named = text_value(write, THREAD_ID).trim();
        if spec.name != COLLECTION || named.is_empty() {
            return Cow::Borrowed(write);
        }
        let thread = match self.new_ids.get(named) {
            Some(thread) => thread.clone(),
            None => {
                self.new_ids.insert(named.to_string(), id.to_string());
                String::new()
            }
        };
        let mut rebased = write.clone();
        rebased.values.retain(|(name, _)| *name != THREAD_ID);
        rebased.values.push((THREAD_ID, SqlValue::Text(thread)));
        Cow::Owned(rebased)
    }
}

#[cfg(test)]
#[path = "alert_threads_tests.rs"]
mod tests;
