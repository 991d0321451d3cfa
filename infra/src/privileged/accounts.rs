//! Protected accounts and the singleton authority record (Owner and optional Publisher).

use diesel::prelude::*;
use diesel::sqlite::SqliteConnection;

use domain::roles::{Account, AccountKind, AuthorityState};

use super::schema::{relay_devices, relay_privileged_accounts as accounts, relay_privileged_state as state};
use super::DbResult;

#[derive(Debug, Clone, PartialEq, Eq, Queryable, Selectable, Insertable)]
#[diesel(table_name = accounts)]
pub struct AccountRow {
    pub id: String,
    pub username: String,
    pub display_name: String,
    pub kind: String,
    pub active: bool,
    pub password_hash: Option<String>,
    pub credential_version: i64,
    pub created_ms: i64,
    pub updated_ms: i64,
}

impl AccountRow {
    pub fn new(id: String, username: String, display_name: String, kind: AccountKind, now_ms: i64) -> AccountRow {
        let kind = match kind {
            AccountKind::Administrator => "administrator",
            AccountKind::Publisher => "publisher",
        };
        AccountRow {
            id,
            username,
            display_name,
            kind: kind.into(),
            active: false,
            password_hash: None,
            credential_version: 0,
            created_ms: now_ms,
            updated_ms: now_ms,
        }
    }

    /// The domain view: no password material, only whether one is configured.
    pub fn to_account(&self) -> Account {
        Account {
            id: self.id.clone(),
            username: self.username.clone(),
            display_name: self.display_name.clone(),
            kind: if self.kind == "publisher" { AccountKind::Publisher } else { AccountKind::Administrator },
            active: self.active,
            credential_set: self.password_hash.is_some(),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Queryable, Selectable, Insertable)]
#[diesel(table_name = state)]
struct StateRow {
    singleton: i64,
    owner_account_id: String,
    publisher_account_id: Option<String>,
    revision: i64,
}

/// Creates the two bootstrap Administrator records (inactive, no credential) and points
/// ownership at the first, when no authority record exists yet. Returns whether it did.
pub fn ensure_bootstrap(conn: &mut SqliteConnection, admins: &[AccountRow; 2]) -> DbResult<bool> {
    conn.immediate_transaction(|c| {
        if state::table.count().get_result::<i64>(c)? > 0 {
            return Ok(false);
        }
        diesel::insert_into(accounts::table).values(&admins[..]).execute(c)?;
        let row =
            StateRow { singleton: 1, owner_account_id: admins[0].id.clone(), publisher_account_id: None, revision: 1 };
        diesel::insert_into(state::table).values(&row).execute(c)?;
        Ok(true)
    })
}

pub fn load_state(conn: &mut SqliteConnection) -> DbResult<Option<AuthorityState>> {
    let row = state::table.select(StateRow::as_select()).first(conn).optional()?;
    Ok(row.map(|r| AuthorityState {
        owner_account_id: r.owner_account_id,
        publisher_account_id: r.publisher_account_id,
        revision: r.revision,
    }))
}

/// Writes the authority record with the next revision; returns the new revision.
pub fn save_state(conn: &mut SqliteConnection, owner: &str, publisher: Option<&str>) -> DbResult<i64> {
    let next: i64 = state::table.select(state::revision).first::<i64>(conn)? + 1;
    diesel::update(state::table)
        .set((state::owner_account_id.eq(owner), state::publisher_account_id.eq(publisher), state::revision.eq(next)))
        .execute(conn)?;
    Ok(next)
}

pub fn load_account(conn: &mut SqliteConnection, id: &str) -> DbResult<Option<AccountRow>> {
    accounts::table.find(id).select(AccountRow::as_select()).first(conn).optional()
}

pub fn find_account_by_username(conn: &mut SqliteConnection, username: &str) -> DbResult<Option<AccountRow>> {
    accounts::table.filter(accounts::username.eq(username)).select(AccountRow::as_select()).first(conn).optional()
}

pub fn list_accounts(conn: &mut SqliteConnection) -> DbResult<Vec<AccountRow>> {
    accounts::table.order(accounts::created_ms.asc()).select(AccountRow::as_select()).load(conn)
}

pub fn insert_account(conn: &mut SqliteConnection, row: &AccountRow) -> DbResult<()> {
    diesel::insert_into(accounts::table).values(row).execute(conn).map(|_| ())
}

pub fn rename_account(conn: &mut SqliteConnection, id: &str, display_name: &str, now_ms: i64) -> DbResult<usize> {
    diesel::update(accounts::table.find(id))
        .set((accounts::display_name.eq(display_name), accounts::updated_ms.eq(now_ms)))
        .execute(conn)
}

pub fn set_account_active(conn: &mut SqliteConnection, id: &str, active: bool, now_ms: i64) -> DbResult<usize> {
    diesel::update(accounts::table.find(id))
        .set((accounts::active.eq(active), accounts::updated_ms.eq(now_ms)))
        .execute(conn)
}

/// Replaces an account's password hash, bumps its credential version and revokes every paired
/// device of that account (a credential change ends remote sessions).
pub fn replace_password(conn: &mut SqliteConnection, id: &str, hash: &str, now_ms: i64) -> DbResult<usize> {
    conn.immediate_transaction(|c| set_password_hash(c, id, hash, now_ms))
}

/// [`replace_password`] inside the caller's transaction: the new hash, the credential version
/// raised, every active device of the account revoked (returns how many).
pub fn set_password_hash(conn: &mut SqliteConnection, id: &str, hash: &str, now_ms: i64) -> DbResult<usize> {
    diesel::update(accounts::table.find(id))
        .set((
            accounts::password_hash.eq(Some(hash)),
            accounts::credential_version.eq(accounts::credential_version + 1),
            accounts::updated_ms.eq(now_ms),
        ))
        .execute(conn)?;
    revoke_account_devices(conn, id, now_ms)
}

/// Revokes every active device of an account; returns how many.
pub fn revoke_account_devices(conn: &mut SqliteConnection, account_id: &str, now_ms: i64) -> DbResult<usize> {
    diesel::update(
        relay_devices::table.filter(relay_devices::account_id.eq(account_id)).filter(relay_devices::state.eq("active")),
    )
    .set((
        relay_devices::state.eq("revoked"),
        relay_devices::revision.eq(relay_devices::revision + 1),
        relay_devices::updated_ms.eq(now_ms),
    ))
    .execute(conn)
}
