//! The allowlisted privileged command handlers. `check_allowed` runs before the request id is
//! claimed: it resolves the command's target account from the payload and applies
//! `domain::roles::authorize` (the owner-only rules, enforced again for every call), checks the
//! expected authority revision and consumes a fresh reauthentication proof where one is
//! required. `run` performs the command inside the caller's transaction.

use diesel::sqlite::SqliteConnection;
use serde_json::{json, Value};

use domain::roles::{authorize, effective_role, normalize_username, Account, AccountKind};
use infra::privileged::{self as store, AccountRow};

use super::error::PrivError;
use super::service::{Principal, PrivilegedService};

/// Commands that change who holds authority: they need the current authority revision and a
/// fresh password proof.
const AUTHORITY_COMMANDS: &[&str] = &["ownership.transfer", "publisher.assign"];
const MAX_DISPLAY_NAME: usize = 100;

/// What a handler sees of a request, whether it came in a signed envelope or from a
/// server-local session.
#[derive(Debug, Clone, Copy)]
pub struct CommandRequest<'a> {
    pub command: &'a str,
    pub payload: &'a Value,
    pub expected_revision: Option<i64>,
    /// Server-local only: the session's password was checked within the proof lifetime.
    pub fresh_local_password: bool,
}

fn text<'a>(payload: &'a Value, key: &str) -> Result<&'a str, PrivError> {
    payload.get(key).and_then(Value::as_str).ok_or_else(|| PrivError::Invalid(format!("payload.{key} is required")))
}

fn load_target(conn: &mut SqliteConnection, id: &str) -> Result<AccountRow, PrivError> {
    store::load_account(conn, id)?.ok_or_else(|| PrivError::Invalid("unknown target account".into()))
}

/// The account a command acts on, if any (a proposed account for `accounts.create`).
fn target_of(conn: &mut SqliteConnection, env: &CommandRequest<'_>) -> Result<Option<Account>, PrivError> {
    let p = &env.payload;
    Ok(match env.command {
        "accounts.rename" | "accounts.setActive" | "ownership.transfer" => {
            Some(load_target(conn, text(p, "accountId")?)?.to_account())
        }
        "publisher.assign" => match p.get("accountId") {
            Some(Value::Null) | None => None,
            Some(_) => Some(load_target(conn, text(p, "accountId")?)?.to_account()),
        },
        "accounts.create" => {
            let kind = match text(p, "kind")? {
                "administrator" => AccountKind::Administrator,
                "publisher" => AccountKind::Publisher,
                _ => return Err(PrivError::Invalid("payload.kind must be administrator or publisher".into())),
            };
            Some(Account {
                id: String::new(),
                username: text(p, "username")?.to_string(),
                display_name: text(p, "displayName")?.to_string(),
                kind,
                active: false,
                credential_set: false,
            })
        }
        "devices.revoke" => {
            let device = store::load_device(conn, text(p, "deviceId")?)?
                .ok_or_else(|| PrivError::Invalid("unknown device".into()))?;
            Some(load_target(conn, &device.account_id)?.to_account())
        }
        _ => None,
    })
}

/// Authorization and revision checks; runs before the request id is claimed.
pub fn check_allowed(conn: &mut SqliteConnection, who: &Principal, env: &CommandRequest<'_>) -> Result<(), PrivError> {
    let target = target_of(conn, env)?;
    authorize(env.command, who.role, target.as_ref(), &who.state)?;
    let needs_revision = AUTHORITY_COMMANDS.contains(&env.command);
    match env.expected_revision {
        Some(expected) if expected != who.state.revision => Err(PrivError::StaleRevision),
        None if needs_revision => Err(PrivError::StaleRevision),
        _ => Ok(()),
    }
}

/// Authority commands consume a fresh, account- and device-bound password proof.
fn require_proof(
    conn: &mut SqliteConnection,
    who: &Principal,
    env: &CommandRequest<'_>,
    now_ms: i64,
) -> Result<(), PrivError> {
    if !AUTHORITY_COMMANDS.contains(&env.command) || (env.fresh_local_password && who.device_id.is_none()) {
        return Ok(());
    }
    let proof = env.payload.get("reauthProof").and_then(Value::as_str).ok_or(PrivError::ReauthRequired)?;
    let device = who.device_id.as_deref().unwrap_or_default();
    if store::consume_proof(conn, proof, &who.account.id, device, now_ms)? {
        Ok(())
    } else {
        Err(PrivError::ReauthRequired)
    }
}

fn display_name(payload: &Value) -> Result<String, PrivError> {
    let name = text(payload, "displayName")?.trim().to_string();
    if name.is_empty() || name.chars().count() > MAX_DISPLAY_NAME || name.chars().any(char::is_control) {
        return Err(PrivError::Invalid("displayName must be 1-100 plain characters".into()));
    }
    Ok(name)
}

fn snapshot(conn: &mut SqliteConnection, state: &domain::roles::AuthorityState) -> Result<Value, PrivError> {
    let accounts: Vec<Value> = store::list_accounts(conn)?
        .iter()
        .map(|row| {
            let account = row.to_account();
            json!({
                "id": account.id,
                "username": account.username,
                "displayName": account.display_name,
                "kind": account.kind,
                "active": account.active,
                "role": effective_role(&account, state).map(|r| r.as_str()),
                "password": if account.credential_set { "Configured" } else { "Not configured" },
            })
        })
        .collect();
    let devices: Vec<Value> = store::list_devices(conn)?
        .iter()
        .map(|d| {
            let suffix: String = d.fingerprint.chars().rev().take(8).collect::<Vec<_>>().into_iter().rev().collect();
            json!({"id": d.id, "accountId": d.account_id, "label": d.label, "hostname": d.hostname, "state": d.state, "fingerprintSuffix": suffix})
        })
        .collect();
    Ok(json!({
        "accounts": accounts,
        "devices": devices,
        "authority": {"ownerAccountId": state.owner_account_id, "publisherAccountId": state.publisher_account_id, "revision": state.revision},
    }))
}

pub fn run(
    svc: &PrivilegedService,
    conn: &mut SqliteConnection,
    who: &Principal,
    env: &CommandRequest<'_>,
) -> Result<Value, PrivError> {
    let p = &env.payload;
    let now = svc.now();
    require_proof(conn, who, env, now)?;
    match env.command {
        "privileged.probe" => {
            Ok(json!({"accountId": who.account.id, "role": who.role.as_str(), "deviceId": who.device_id}))
        }
        "admin.snapshot" => snapshot(conn, &who.state),
        "devices.revoke" => {
            let n = store::revoke_device(conn, text(p, "deviceId")?, now)?;
            Ok(json!({"revoked": n == 1}))
        }
        "accounts.create" => {
            let username = normalize_username(text(p, "username")?).map_err(|e| PrivError::Invalid(e.to_string()))?;
            if store::find_account_by_username(conn, &username)?.is_some() {
                return Err(PrivError::Invalid("that username is taken".into()));
            }
            let kind =
                if text(p, "kind")? == "publisher" { AccountKind::Publisher } else { AccountKind::Administrator };
            let row = AccountRow::new(infra::ids::record_id(), username, display_name(p)?, kind, now);
            store::insert_account(conn, &row)?;
            Ok(json!({"accountId": row.id, "active": false, "password": "Not configured"}))
        }
        "accounts.rename" => {
            store::rename_account(conn, text(p, "accountId")?, &display_name(p)?, now)?;
            Ok(json!({"renamed": true}))
        }
        "accounts.setActive" => {
            let id = text(p, "accountId")?;
            let active = p
                .get("active")
                .and_then(Value::as_bool)
                .ok_or_else(|| PrivError::Invalid("payload.active is required".into()))?;
            if !active && id == who.state.owner_account_id {
                return Err(PrivError::Invalid("the Owner cannot be deactivated".into()));
            }
            if active && load_target(conn, id)?.password_hash.is_none() {
                return Err(PrivError::Invalid("the account has no credential yet; set it on the server".into()));
            }
            store::set_account_active(conn, id, active, now)?;
            if !active {
                store::revoke_account_devices(conn, id, now)?;
            }
            Ok(json!({"active": active}))
        }
        "ownership.transfer" => {
            let id = text(p, "accountId")?;
            let revision = store::save_state(conn, id, who.state.publisher_account_id.as_deref())?;
            Ok(json!({"ownerAccountId": id, "revision": revision}))
        }
        "publisher.assign" => {
            let next = p.get("accountId").and_then(Value::as_str);
            if let Some(previous) = who.state.publisher_account_id.as_deref().filter(|prev| Some(*prev) != next) {
                store::revoke_account_devices(conn, previous, now)?;
            }
            let revision = store::save_state(conn, &who.state.owner_account_id, next)?;
            Ok(json!({"publisherAccountId": next, "revision": revision}))
        }
        _ => Err(PrivError::Forbidden("this command is not available".into())),
    }
}
