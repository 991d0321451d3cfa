//! Paired devices (public JWK, fingerprint, label, hostname, state, revision) and the pairing
//! challenges that create them.

use diesel::prelude::*;
use diesel::sqlite::SqliteConnection;

use super::schema::{relay_devices as devices, relay_pairing_challenges as challenges};
use super::DbResult;

#[derive(Debug, Clone, PartialEq, Eq, Queryable, Selectable, Insertable)]
#[diesel(table_name = devices)]
pub struct DeviceRow {
    pub id: String,
    pub account_id: String,
    pub label: String,
    pub hostname: String,
    pub public_jwk: String,
    pub fingerprint: String,
    pub state: String,
    pub revision: i64,
    pub created_ms: i64,
    pub updated_ms: i64,
}

impl DeviceRow {
    pub fn is_active(&self) -> bool {
        self.state == "active"
    }
}

pub fn insert_device(conn: &mut SqliteConnection, row: &DeviceRow) -> DbResult<()> {
    diesel::insert_into(devices::table).values(row).execute(conn).map(|_| ())
}

pub fn load_device(conn: &mut SqliteConnection, id: &str) -> DbResult<Option<DeviceRow>> {
    devices::table.find(id).select(DeviceRow::as_select()).first(conn).optional()
}

pub fn list_devices(conn: &mut SqliteConnection) -> DbResult<Vec<DeviceRow>> {
    devices::table.order(devices::created_ms.asc()).select(DeviceRow::as_select()).load(conn)
}

pub fn revoke_device(conn: &mut SqliteConnection, id: &str, now_ms: i64) -> DbResult<usize> {
    diesel::update(devices::table.find(id).filter(devices::state.eq("active")))
        .set((
            devices::state.eq("revoked"),
            devices::revision.eq(devices::revision + 1),
            devices::updated_ms.eq(now_ms),
        ))
        .execute(conn)
}

#[derive(Debug, Clone, PartialEq, Eq, Queryable, Selectable, Insertable)]
#[diesel(table_name = challenges)]
pub struct ChallengeRow {
    pub id: String,
    pub account_id: String,
    pub secret: Vec<u8>,
    pub code_mac: Vec<u8>,
    pub label: String,
    pub expires_ms: i64,
    pub failures: i64,
    pub state: String,
    pub created_ms: i64,
}

pub fn insert_challenge(conn: &mut SqliteConnection, row: &ChallengeRow) -> DbResult<()> {
    diesel::insert_into(challenges::table).values(row).execute(conn).map(|_| ())
}

/// Pending, unexpired challenges of an account, newest first.
pub fn pending_challenges(conn: &mut SqliteConnection, account_id: &str, now_ms: i64) -> DbResult<Vec<ChallengeRow>> {
    challenges::table
        .filter(challenges::account_id.eq(account_id))
        .filter(challenges::state.eq("pending"))
        .filter(challenges::expires_ms.gt(now_ms))
        .order(challenges::created_ms.desc())
        .select(ChallengeRow::as_select())
        .load(conn)
}

/// Counts a failed attempt; the challenge locks once `max_failures` is reached.
pub fn record_challenge_failure(conn: &mut SqliteConnection, id: &str, max_failures: i64) -> DbResult<()> {
    diesel::update(challenges::table.find(id)).set(challenges::failures.eq(challenges::failures + 1)).execute(conn)?;
    diesel::update(challenges::table.find(id).filter(challenges::failures.ge(max_failures)))
        .set(challenges::state.eq("locked"))
        .execute(conn)
        .map(|_| ())
}

pub fn mark_challenge_used(conn: &mut SqliteConnection, id: &str) -> DbResult<usize> {
    diesel::update(challenges::table.find(id).filter(challenges::state.eq("pending")))
        .set(challenges::state.eq("used"))
        .execute(conn)
}
