//! Reading the legacy `relay_operators` roster (and its paired devices and attributions) from
//! an upgraded database, and applying a validated migration plan in one transaction. The
//! legacy tables are only removed after the conversion has been written; any schema that does
//! not match what the old release wrote is reported, never guessed at.

use diesel::connection::SimpleConnection;
use diesel::prelude::*;
use diesel::sql_types::{BigInt, Nullable, Text};
use diesel::sqlite::SqliteConnection;

use domain::migration::{LegacyAttribution, LegacyDevice, LegacyOperator, MigrationPlan};

use super::accounts::AccountRow;
use super::devices::DeviceRow;
use super::schema::{relay_privileged_accounts as accounts, relay_privileged_state as state};
use super::DbResult;

pub const LEGACY_OPERATORS: &str = "relay_operators";
pub const LEGACY_DEVICES: &str = "relay_operator_devices";
pub const LEGACY_VIEW: &str = "relay_login_roster";

#[derive(QueryableByName)]
struct OperatorSql {
    #[diesel(sql_type = Text)]
    id: String,
    #[diesel(sql_type = Text)]
    username: String,
    #[diesel(sql_type = Text)]
    display_name: String,
    #[diesel(sql_type = Text)]
    role: String,
    #[diesel(sql_type = BigInt)]
    active: i64,
    #[diesel(sql_type = Nullable<Text>)]
    password_hash: Option<String>,
}

/// A legacy paired device with everything needed to keep it working after conversion.
#[derive(Debug, Clone, PartialEq, Eq, QueryableByName)]
pub struct LegacyDeviceRow {
    #[diesel(sql_type = Text)]
    pub id: String,
    #[diesel(sql_type = Text)]
    pub operator_id: String,
    #[diesel(sql_type = Text)]
    pub public_jwk: String,
    #[diesel(sql_type = Text)]
    pub fingerprint: String,
    #[diesel(sql_type = Text)]
    pub label: String,
    #[diesel(sql_type = Text)]
    pub hostname: String,
    #[diesel(sql_type = Text)]
    pub state: String,
}

#[derive(QueryableByName)]
struct Name {
    #[diesel(sql_type = Text)]
    name: String,
}

#[derive(QueryableByName)]
struct Attribution {
    #[diesel(sql_type = Text)]
    id: String,
    #[diesel(sql_type = Text)]
    by: String,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LegacyInput {
    pub operators: Vec<LegacyOperator>,
    pub devices: Vec<LegacyDeviceRow>,
    pub attributions: Vec<LegacyAttribution>,
    pub view_sql: Option<String>,
}

impl LegacyInput {
    pub fn device_refs(&self) -> Vec<LegacyDevice> {
        self.devices.iter().map(|d| LegacyDevice { id: d.id.clone(), operator_id: d.operator_id.clone() }).collect()
    }
}

fn object_sql(conn: &mut SqliteConnection, kind: &str, name: &str) -> DbResult<Option<String>> {
    let rows: Vec<Name> = diesel::sql_query("SELECT sql AS name FROM sqlite_master WHERE type = ? AND name = ?")
        .bind::<Text, _>(kind)
        .bind::<Text, _>(name)
        .load(conn)?;
    Ok(rows.into_iter().next().map(|r| r.name))
}

/// The query of a `CREATE VIEW name AS <query>` statement (the text after the first `AS`).
fn view_body(create_sql: &str) -> String {
    let upper = create_sql.to_ascii_uppercase();
    match upper.find(" AS ") {
        Some(i) => create_sql[i + 4..].trim().to_string(),
        None => create_sql.to_string(),
    }
}

/// The legacy roster, if the database has one. A roster whose columns are not the legacy ones
/// is an error (the caller defers).
pub fn read_legacy(conn: &mut SqliteConnection) -> DbResult<Option<LegacyInput>> {
    if object_sql(conn, "table", LEGACY_OPERATORS)?.is_none() {
        return Ok(None);
    }
    let operators: Vec<OperatorSql> = diesel::sql_query(
        "SELECT id, username, displayName AS display_name, role, CAST(active AS INTEGER) AS active, \
         passwordHash AS password_hash FROM relay_operators ORDER BY rowid",
    )
    .load(conn)?;
    let devices: Vec<LegacyDeviceRow> = if object_sql(conn, "table", LEGACY_DEVICES)?.is_some() {
        diesel::sql_query(
            "SELECT id, operatorId AS operator_id, publicJwk AS public_jwk, fingerprint, label, hostname, state \
             FROM relay_operator_devices ORDER BY rowid",
        )
        .load(conn)?
    } else {
        Vec::new()
    };
    let attributions: Vec<Attribution> = diesel::sql_query(
        "SELECT id, createdBy AS by FROM alert_reminders WHERE createdBy GLOB '[a-z0-9]*' AND length(createdBy) = 15",
    )
    .load(conn)?;
    Ok(Some(LegacyInput {
        operators: operators
            .into_iter()
            .map(|o| LegacyOperator {
                id: o.id,
                username: o.username,
                display_name: o.display_name,
                role: o.role,
                active: o.active != 0,
                password_hash: o.password_hash.filter(|h| !h.is_empty()),
            })
            .collect(),
        devices,
        attributions: attributions
            .into_iter()
            .map(|a| LegacyAttribution {
                collection: "alert_reminders".into(),
                record_id: a.id,
                field: "createdBy".into(),
                operator_id: a.by,
            })
            .collect(),
        view_sql: object_sql(conn, "view", LEGACY_VIEW)?.map(|sql| view_body(&sql)),
    }))
}

/// Writes the planned accounts (legacy ids preserved), the authority record and the device
/// bindings, then removes the legacy roster, device table and view, all in one transaction.
/// Only Argon2 credentials carry over; other legacy hashes require a server-local reset.
pub fn apply_migration(
    conn: &mut SqliteConnection,
    plan: &MigrationPlan,
    devices: &[LegacyDeviceRow],
    now_ms: i64,
) -> DbResult<usize> {
    conn.immediate_transaction(|c| {
        for account in &plan.accounts {
            let mut row = AccountRow::new(account.id.clone(), account.username.clone(), account.display_name.clone(), account.kind, now_ms);
            row.active = account.active;
            row.password_hash = plan
                .password_hashes
                .iter()
                .find(|(id, hash)| id == &account.id && hash.starts_with("$argon2"))
                .map(|(_, hash)| hash.clone());
            if row.password_hash.is_none() {
                row.active = false;
            }
            diesel::insert_into(accounts::table).values(&row).execute(c)?;
        }
        diesel::insert_into(state::table)
            .values((
                state::singleton.eq(1),
                state::owner_account_id.eq(&plan.state.owner_account_id),
                state::publisher_account_id.eq(&plan.state.publisher_account_id),
                state::revision.eq(plan.state.revision),
            ))
            .execute(c)?;
        for (device_id, account_id) in &plan.device_bindings {
            let Some(legacy) = devices.iter().find(|d| &d.id == device_id) else { continue };
            let row = DeviceRow {
                id: device_id.clone(),
                account_id: account_id.clone(),
                label: legacy.label.clone(),
                hostname: legacy.hostname.clone(),
                public_jwk: legacy.public_jwk.clone(),
                fingerprint: legacy.fingerprint.clone(),
                state: if legacy.state == "active" { "active".into() } else { "revoked".into() },
                revision: 1,
                created_ms: now_ms,
                updated_ms: now_ms,
            };
            super::devices::insert_device(c, &row)?;
        }
        c.batch_execute(&format!(
            "DROP VIEW IF EXISTS {LEGACY_VIEW}; DROP TABLE IF EXISTS {LEGACY_DEVICES}; DROP TABLE IF EXISTS {LEGACY_OPERATORS};"
        ))?;
        Ok(plan.accounts.len())
    })
}
