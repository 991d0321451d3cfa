//! The guarded writes behind offline replay and Servers sync. Replay: a batch of queued changes
//! in one IMMEDIATE transaction, each change in its own savepoint: the stored record is read,
//! its `updated` and fingerprint compared with what the client last saw, and only on a match
//! is it updated or deleted; on a mismatch nothing of the change is written but a `conflict_log`
//! row keeps the server copy. Servers sync: every operation of a batch in one transaction that
//! commits only when each reviewed record still equals the stored one and every write succeeds.

use diesel::connection::Connection;
use diesel::result::Error as DieselError;
use diesel::sql_types::Text;
use diesel::sqlite::SqliteConnection;
use diesel::RunQueryDsl;
use serde_json::{json, Value};

use domain::collections::{CollectionSpec, CONFLICT_LOG, SERVERS};
use domain::offline::record_fingerprint;
use domain::offline::replay::{ReplayAction, ReplayChange};
use domain::offline::servers_sync::SyncError;
use domain::record::{Action, RecordError};
use domain::time::parse_datetime;
use domain::validation::{validate_write, ValidatedWrite, WriteMode};

use super::{insert_row, map_db_error, single, update_row, JsonRow, RecordStore};
use crate::sql::{quote_ident, record_json};

/// A replay change whose update data already passed collection validation.
#[derive(Debug, Clone)]
pub struct PreparedReplay {
    pub change: ReplayChange,
    /// The validated update (`None` for a delete).
    pub write: Option<ValidatedWrite>,
}

/// What happened to one replayed change.
#[derive(Debug, Clone, PartialEq)]
pub enum ReplayOutcome {
    Updated(Value),
    Deleted(Value),
    /// The record was already gone: a delete succeeds idempotently.
    AlreadyDeleted,
    /// The record changed (or vanished) since the client saw it; `log` is the `conflict_log`
    /// record written with the server copy, when there was one to keep.
    Conflict {
        log: Option<Value>,
    },
    /// The write itself failed (for example a unique key); nothing of it was kept.
    Failed(RecordError),
}

/// One Servers sync operation ready for the store: the reviewed record's fingerprint and the
/// validated write.
#[derive(Debug, Clone)]
pub enum PreparedSync {
    Create { write: ValidatedWrite },
    Update { record_id: String, expected_fingerprint: String, write: ValidatedWrite },
    Delete { record_id: String, expected_fingerprint: String },
}

fn current(conn: &mut SqliteConnection, spec: &CollectionSpec, id: &str) -> Result<Option<Value>, DieselError> {
    let sql = format!("SELECT {} AS data FROM {} WHERE id = ?", record_json(spec), quote_ident(spec.name));
    let rows: Vec<JsonRow> = diesel::sql_query(sql).bind::<Text, _>(id).load(conn)?;
    if rows.is_empty() {
        return Ok(None);
    }
    single(rows).map(Some)
}

fn delete_row(conn: &mut SqliteConnection, spec: &CollectionSpec, id: &str) -> Result<Value, DieselError> {
    let sql = format!("DELETE FROM {} WHERE id = ? RETURNING {} AS data", quote_ident(spec.name), record_json(spec));
    single(diesel::sql_query(sql).bind::<Text, _>(id).load(conn)?)
}

fn fingerprint_of(record: &Value) -> Option<String> {
    record_fingerprint(record).ok()
}

/// Whether the stored record is the one the client saw: same `updated` instant and same
/// fingerprint (which also catches a peer edit within the same millisecond).
fn unchanged(stored: &Value, change: &ReplayChange) -> bool {
    let stored_updated = stored.get("updated").and_then(Value::as_str).and_then(|u| parse_datetime(u).ok());
    stored_updated.is_some()
        && stored_updated == parse_datetime(&change.expected_updated).ok()
        && fingerprint_of(stored).as_deref() == Some(change.expected_fingerprint.as_str())
}

fn log_conflict(
    conn: &mut SqliteConnection,
    change: &ReplayChange,
    server_copy: Value,
    now_ms: i64,
) -> Result<Option<Value>, DieselError> {
    let body = json!({
        "collection": change.spec.name,
        "recordId": change.record_id,
        "overwrittenData": server_copy,
        "overwrittenBy": "client",
    });
    match validate_write(&CONFLICT_LOG, &body, WriteMode::Create) {
        Ok(write) => insert_row(conn, &CONFLICT_LOG, &crate::ids::record_id(), &write, now_ms).map(Some),
        Err(_) => {
            // The change is still refused; only the copy is too large to keep.
            tracing::warn!(collection = change.spec.name, "conflict copy exceeds the conflict log's limits; not kept");
            Ok(None)
        }
    }
}

fn replay_one(
    conn: &mut SqliteConnection,
    prepared: &PreparedReplay,
    now_ms: i64,
) -> Result<ReplayOutcome, DieselError> {
    let change = &prepared.change;
    let Some(stored) = current(conn, change.spec, &change.record_id)? else {
        return Ok(match change.action {
            ReplayAction::Delete => ReplayOutcome::AlreadyDeleted,
            ReplayAction::Update => ReplayOutcome::Conflict { log: None },
        });
    };
    if !unchanged(&stored, change) {
        return Ok(ReplayOutcome::Conflict { log: log_conflict(conn, change, stored, now_ms)? });
    }
    Ok(match (&change.action, &prepared.write) {
        (ReplayAction::Update, Some(write)) => {
            ReplayOutcome::Updated(update_row(conn, change.spec, &change.record_id, write, now_ms)?)
        }
        _ => ReplayOutcome::Deleted(delete_row(conn, change.spec, &change.record_id)?),
    })
}

/// Errors inside the sync transaction: the database's, or the batch's own refusal.
enum SyncTxError {
    Db(DieselError),
    Refused(SyncError),
}

impl From<DieselError> for SyncTxError {
    fn from(e: DieselError) -> Self {
        SyncTxError::Db(e)
    }
}

fn expect_unchanged(
    conn: &mut SqliteConnection,
    record_id: &str,
    expected_fingerprint: &str,
) -> Result<(), SyncTxError> {
    let stored = current(conn, &SERVERS, record_id)?;
    match stored.as_ref().and_then(fingerprint_of) {
        Some(fp) if fp == expected_fingerprint => Ok(()),
        _ => Err(SyncTxError::Refused(SyncError::Conflict)),
    }
}

fn sync_one(
    conn: &mut SqliteConnection,
    index: usize,
    op: &PreparedSync,
    now_ms: i64,
) -> Result<(Action, Value), SyncTxError> {
    let refused = |e: DieselError| SyncTxError::Refused(SyncError::from_record(index, map_db_error(&SERVERS, e)));
    match op {
        PreparedSync::Create { write } => {
            Ok((Action::Create, insert_row(conn, &SERVERS, &crate::ids::record_id(), write, now_ms).map_err(refused)?))
        }
        PreparedSync::Update { record_id, expected_fingerprint, write } => {
            expect_unchanged(conn, record_id, expected_fingerprint)?;
            Ok((Action::Update, update_row(conn, &SERVERS, record_id, write, now_ms).map_err(refused)?))
        }
        PreparedSync::Delete { record_id, expected_fingerprint } => {
            expect_unchanged(conn, record_id, expected_fingerprint)?;
            Ok((Action::Delete, delete_row(conn, &SERVERS, record_id).map_err(refused)?))
        }
    }
}

impl RecordStore {
    /// Replays `changes` in one write transaction, each guarded on its own (see the module
    /// documentation); returns one outcome per change, in order.
    pub fn replay_offline(&self, changes: &[PreparedReplay], now_ms: i64) -> Result<Vec<ReplayOutcome>, RecordError> {
        let mut conn = self.conn()?;
        conn.immediate_transaction(|c| {
            let mut outcomes = Vec::with_capacity(changes.len());
            for prepared in changes {
                // A savepoint per change: a failed write leaves no revision drawn and no row.
                let outcome = match c.transaction(|c| replay_one(c, prepared, now_ms)) {
                    Ok(outcome) => outcome,
                    Err(e) => ReplayOutcome::Failed(map_db_error(prepared.change.spec, e)),
                };
                outcomes.push(outcome);
            }
            Ok::<_, DieselError>(outcomes)
        })
        .map_err(|e| map_db_error(&CONFLICT_LOG, e))
    }

    /// Applies one Servers sync batch all-or-nothing; returns each written record with its
    /// action, in operation order.
    pub fn sync_servers(&self, ops: &[PreparedSync], now_ms: i64) -> Result<Vec<(Action, Value)>, SyncError> {
        let mut conn = self.conn().map_err(SyncError::Store)?;
        let result = conn.immediate_transaction(|c| {
            ops.iter().enumerate().map(|(i, op)| sync_one(c, i, op, now_ms)).collect::<Result<Vec<_>, _>>()
        });
        result.map_err(|e| match e {
            SyncTxError::Refused(refusal) => refusal,
            SyncTxError::Db(e) => SyncError::Store(map_db_error(&SERVERS, e)),
        })
    }
}

#[cfg(test)]
#[path = "offline_tests.rs"]
mod tests;
