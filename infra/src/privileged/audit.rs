//! The append-only, hash-chained audit log of privileged commands. Each entry commits to the
//! previous entry's hash (see `domain::audit`); the head row records the last sequence number
//! and hash so removing entries from the end is detected too.

use diesel::prelude::*;
use diesel::sqlite::SqliteConnection;

use domain::audit::{next_entry, verify_chain_with_head, AuditEntry, AuditError};

use super::schema::{relay_audit_head as head, relay_audit_log as log};
use super::DbResult;

/// What to record about one privileged command.
#[derive(Debug, Clone, Copy)]
pub struct AuditEvent<'a> {
    pub at_ms: i64,
    pub account_id: &'a str,
    pub device_id: Option<&'a str>,
    pub command: &'a str,
    pub request_id: &'a str,
    pub outcome: &'a str,
}

fn last_entry(conn: &mut SqliteConnection) -> DbResult<Option<AuditEntry>> {
    let row: Option<String> = log::table.order(log::seq.desc()).select(log::entry).first(conn).optional()?;
    Ok(row.and_then(|e| serde_json::from_str(&e).ok()))
}

/// Appends one entry (call inside the transaction that performs the command).
pub fn append_audit(conn: &mut SqliteConnection, event: AuditEvent<'_>) -> DbResult<AuditEntry> {
    let prev = last_entry(conn)?;
    let entry = next_entry(
        prev.as_ref(),
        event.at_ms,
        event.account_id,
        event.device_id,
        event.command,
        event.request_id,
        event.outcome,
    );
    let json = serde_json::to_string(&entry).map_err(|e| diesel::result::Error::SerializationError(Box::new(e)))?;
    diesel::insert_into(log::table).values((log::seq.eq(entry.seq), log::entry.eq(json))).execute(conn)?;
    diesel::replace_into(head::table)
        .values((head::singleton.eq(1), head::seq.eq(entry.seq), head::hash.eq(&entry.hash)))
        .execute(conn)?;
    Ok(entry)
}

/// Why the stored audit log does not verify.
#[derive(Debug, thiserror::Error)]
pub enum AuditCheckError {
    #[error(transparent)]
    Chain(#[from] AuditError),
    #[error("audit entry {0} is unreadable")]
    Unreadable(i64),
    #[error(transparent)]
    Db(#[from] diesel::result::Error),
}

/// Verifies every stored entry and the head; returns the number of entries.
pub fn verify_audit(conn: &mut SqliteConnection) -> Result<usize, AuditCheckError> {
    let rows: Vec<(i64, String)> = log::table.order(log::seq.asc()).select((log::seq, log::entry)).load(conn)?;
    let mut entries = Vec::with_capacity(rows.len());
    for (seq, json) in rows {
        entries.push(serde_json::from_str::<AuditEntry>(&json).map_err(|_| AuditCheckError::Unreadable(seq))?);
    }
    let stored_head: Option<(i64, String)> = head::table.select((head::seq, head::hash)).first(conn).optional()?;
    Ok(verify_chain_with_head(&entries, stored_head.as_ref().map(|(s, h)| (*s, h.as_str())))?)
}
