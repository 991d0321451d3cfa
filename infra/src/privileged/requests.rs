//! Claimed privileged request ids and reauthentication proofs. A request id is claimed before
//! its handler runs; a second claim returns the first one's record so the caller can tell a
//! matching retry from a conflicting reuse. Only the payload hash and a bounded outcome are kept.

use diesel::prelude::*;
use diesel::result::{DatabaseErrorKind, Error as DieselError};
use diesel::sqlite::SqliteConnection;

use super::schema::{relay_privileged_requests as requests, relay_reauth_proofs as proofs};
use super::DbResult;

#[derive(Debug, Clone, PartialEq, Eq, Queryable, Selectable, Insertable)]
#[diesel(table_name = requests)]
pub struct RequestRow {
    pub request_id: String,
    pub account_id: String,
    pub device_id: String,
    pub command: String,
    pub payload_hash: String,
    pub status: String,
    pub result: Option<String>,
    pub error: Option<String>,
    pub created_ms: i64,
    pub finished_ms: Option<i64>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Claim {
    /// The id was free and is now claimed by this request.
    Claimed,
    /// The id was already claimed; here is that claim.
    Existing(Box<RequestRow>),
}

pub fn claim_request(conn: &mut SqliteConnection, row: &RequestRow) -> DbResult<Claim> {
    match diesel::insert_into(requests::table).values(row).execute(conn) {
        Ok(_) => Ok(Claim::Claimed),
        Err(DieselError::DatabaseError(DatabaseErrorKind::UniqueViolation, _)) => {
            let existing = requests::table.find(&row.request_id).select(RequestRow::as_select()).first(conn)?;
            Ok(Claim::Existing(Box::new(existing)))
        }
        Err(e) => Err(e),
    }
}

pub fn finish_request(
    conn: &mut SqliteConnection,
    request_id: &str,
    ok: bool,
    result: Option<&str>,
    error: Option<&str>,
    now_ms: i64,
) -> DbResult<()> {
    diesel::update(requests::table.find(request_id))
        .set((
            requests::status.eq(if ok { "done" } else { "failed" }),
            requests::result.eq(result),
            requests::error.eq(error),
            requests::finished_ms.eq(Some(now_ms)),
        ))
        .execute(conn)
        .map(|_| ())
}

pub fn insert_proof(
    conn: &mut SqliteConnection,
    id: &str,
    account_id: &str,
    device_id: &str,
    expires_ms: i64,
) -> DbResult<()> {
    diesel::insert_into(proofs::table)
        .values((
            proofs::id.eq(id),
            proofs::account_id.eq(account_id),
            proofs::device_id.eq(device_id),
            proofs::expires_ms.eq(expires_ms),
            proofs::used.eq(false),
        ))
        .execute(conn)
        .map(|_| ())
}

/// Consumes a proof if it is unused, unexpired and bound to this account and device.
pub fn consume_proof(
    conn: &mut SqliteConnection,
    id: &str,
    account_id: &str,
    device_id: &str,
    now_ms: i64,
) -> DbResult<bool> {
    let n = diesel::update(
        proofs::table
            .find(id)
            .filter(proofs::account_id.eq(account_id))
            .filter(proofs::device_id.eq(device_id))
            .filter(proofs::expires_ms.gt(now_ms))
            .filter(proofs::used.eq(false)),
    )
    .set(proofs::used.eq(true))
    .execute(conn)?;
    Ok(n == 1)
}
