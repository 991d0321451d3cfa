//! The privileged command handlers, one `match` arm per [`PrivilegedCommand`] variant.
//! `check_allowed` runs before the request id is claimed: it resolves the command's target
//! account (`PrivilegedCommand::target`), applies `privileged_command::policy::authorize` (the
//! owner-only rules, enforced again for every call) and checks the expected revision the
//! command's row names. `run` consumes a fresh reauthentication proof where the row needs one and
//! performs the command inside the caller's transaction. Nothing here parses names or payload
//! JSON: the command arrives already parsed and the enum is the allowlist.

use diesel::sqlite::SqliteConnection;
use serde_json::{json, Value};

use domain::privileged_command::{authorize, CommandTarget, PrivilegedCommand, Revision};
use domain::roles::{check_password_policy, effective_role, normalize_username, Account, Role};
use infra::privileged::{self as store, AccountRow};

use super::dynatrace_ops;
use super::error::PrivError;
use super::service::{Principal, PrivilegedService};

const MAX_DISPLAY_NAME: usize = 100;

/// What a handler sees of a request, whether it came in a signed envelope or from a
/// server-local session.
#[derive(Debug, Clone, Copy)]
pub struct CommandRequest<'a> {
    pub command: &'a PrivilegedCommand,
    pub expected_revision: Option<i64>,
    /// Server-local only: the session's password was checked within the proof lifetime.
    pub fresh_local_password: bool,
}

fn load_target(conn: &mut SqliteConnection, id: &str) -> Result<AccountRow, PrivError> {
    store::load_account(conn, id)?.ok_or_else(|| PrivError::Invalid("unknown target account".into()))
}

/// The account a command acts on, if any (a proposed account for `accounts.create`).
fn target_of(conn: &mut SqliteConnection, command: &PrivilegedCommand) -> Result<Option<Account>, PrivError> {
    Ok(match command.target() {
        CommandTarget::None => None,
        CommandTarget::Account(id) => Some(load_target(conn, id)?.to_account()),
        CommandTarget::DeviceOwner(device_id) => {
            let device =
                store::load_device(conn, device_id)?.ok_or_else(|| PrivError::Invalid("unknown device".into()))?;
            Some(load_target(conn, &device.account_id)?.to_account())
        }
        CommandTarget::NewAccount { username, display_name, kind } => Some(Account {
            id: String::new(),
            username: username.to_string(),
            display_name: display_name.to_string(),
            kind,
            active: false,
            credential_set: false,
        }),
    })
}

/// Authorization and revision checks; runs before the request id is claimed.
pub fn check_allowed(conn: &mut SqliteConnection, who: &Principal, req: &CommandRequest<'_>) -> Result<(), PrivError> {
    let target = target_of(conn, req.command)?;
    authorize(req.command, who.role, target.as_ref(), &who.state)?;
    let stale = match (req.command.spec().revision, req.expected_revision) {
        (Revision::Dynatrace, expected) => expected != Some(super::dynatrace_ops::revision(conn)?),
        (Revision::Authority, expected) => expected != Some(who.state.revision),
        (Revision::AuthorityIfSent, Some(expected)) => expected != who.state.revision,
        (Revision::AuthorityIfSent, None) => false,
    };
    if stale {
        Err(PrivError::StaleRevision)
    } else {
        Ok(())
    }
}

/// Commands whose row needs a fresh password consume a fresh, account- and device-bound password
/// proof from a laptop; on the server PC (and the web) the session's password must be fresh
/// instead.
fn require_proof(
    conn: &mut SqliteConnection,
    who: &Principal,
    req: &CommandRequest<'_>,
    now_ms: i64,
) -> Result<(), PrivError> {
    let local = who.device_id.is_none();
    let needs_proof = req.command.spec().fresh_password;
    if local && needs_proof && !req.fresh_local_password {
        return Err(PrivError::ReauthRequired);
    }
    if !needs_proof || (req.fresh_local_password && local) {
        return Ok(());
    }
    let proof = req.command.reauth_proof().ok_or(PrivError::ReauthRequired)?;
    let device = who.device_id.as_deref().unwrap_or_default();
    if store::consume_proof(conn, proof, &who.account.id, device, now_ms)? {
        Ok(())
    } else {
        Err(PrivError::ReauthRequired)
    }
}

fn display_name(raw: &str) -> Result<String, PrivError> {
    let name = raw.trim().to_string();
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

/// A command's answer, and the Wiki's work that waits for the transaction to commit (none for
/// the other commands).
#[derive(Debug, Clone, PartialEq)]
pub struct Ran {
    pub result: Value,
    pub wiki_after_commit: Vec<crate::wiki::AfterCommit>,
}

/// Runs the command inside the caller's transaction.
pub fn run(
    svc: &PrivilegedService,
    conn: &mut SqliteConnection,
    who: &Principal,
    req: &CommandRequest<'_>,
) -> Result<Ran, PrivError> {
    use PrivilegedCommand as C;
    let now = svc.now();
    require_proof(conn, who, req, now)?;
    let result = match req.command {
        C::PrivilegedProbe { note: _ } => {
            Ok(json!({"accountId": who.account.id, "role": who.role.as_str(), "deviceId": who.device_id}))
        }
        C::AdminSnapshot {} => snapshot(conn, &who.state),
        C::DevicesRevoke { device_id } => {
            let n = store::revoke_device(conn, device_id, now)?;
            Ok(json!({"revoked": n == 1}))
        }
        C::AccountsCreate { username, display_name: name, kind } => {
            let username = normalize_username(username).map_err(|e| PrivError::Invalid(e.to_string()))?;
            if store::find_account_by_username(conn, &username)?.is_some() {
                return Err(PrivError::Invalid("that username is taken".into()));
            }
            let row = AccountRow::new(infra::ids::record_id(), username, display_name(name)?, *kind, now);
            store::insert_account(conn, &row)?;
            Ok(json!({"accountId": row.id, "active": false, "password": "Not configured"}))
        }
        C::AccountsRename { account_id, display_name: name } => {
            store::rename_account(conn, account_id, &display_name(name)?, now)?;
            Ok(json!({"renamed": true}))
        }
        C::AccountsSetActive { account_id, active } => {
            let (id, active) = (account_id.as_str(), *active);
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
        C::AccountsSetPassword { account_id, password } => {
            check_password_policy(password.expose()).map_err(|e| PrivError::Invalid(e.to_string()))?;
            let hash = infra::password::hash_password(password.expose()).map_err(|_| PrivError::Internal)?;
            let revoked = store::set_password_hash(conn, account_id, &hash, now)?;
            Ok(json!({"passwordSet": true, "devicesRevoked": revoked}))
        }
        C::PairingStart { account_id, label } => {
            let target = load_target(conn, account_id)?.to_account();
            let publisher = effective_role(&target, &who.state) == Some(Role::Publisher);
            if who.role == Role::Administrator && target.id != who.account.id && !publisher {
                return Err(PrivError::Forbidden(
                    "Administrators may pair laptops for themselves or the Publisher".into(),
                ));
            }
            let ticket = super::pairing::create_challenge(conn, account_id, label, now)?;
            Ok(json!({"code": ticket.code, "expiresAtMs": ticket.expires_ms}))
        }
        C::AuditVerify {} => Ok(match store::verify_audit(conn) {
            Ok(entries) => json!({"ok": true, "entries": entries}),
            Err(store::AuditCheckError::Db(e)) => return Err(e.into()),
            Err(e) => json!({"ok": false, "problem": e.to_string()}),
        }),
        C::OwnershipTransfer { account_id, reauth_proof: _ } => {
            let revision = store::save_state(conn, account_id, who.state.publisher_account_id.as_deref())?;
            Ok(json!({"ownerAccountId": account_id, "revision": revision}))
        }
        C::PublisherAssign { account_id, reauth_proof: _ } => {
            let next = account_id.as_deref();
            if let Some(previous) = who.state.publisher_account_id.as_deref().filter(|prev| Some(*prev) != next) {
                store::revoke_account_devices(conn, previous, now)?;
            }
            let revision = store::save_state(conn, &who.state.owner_account_id, next)?;
            Ok(json!({"publisherAccountId": next, "revision": revision}))
        }
        C::DynatraceStatus {} => dynatrace_ops::status(conn, svc.dynatrace()?),
        C::DynatraceConfigure {
            environment_url,
            alerting_profiles,
            matcher,
            workflow_id,
            follow_workflow,
            workflow_task,
        } => {
            let change = dynatrace_ops::Configure {
                environment_url: environment_url.as_deref(),
                alerting_profiles,
                matcher: matcher.as_deref(),
                workflow_id: workflow_id.as_deref(),
                follow_workflow: *follow_workflow,
                workflow_task: workflow_task.as_deref(),
            };
            dynatrace_ops::configure(conn, svc.dynatrace()?, change, &domain::time::format_ms(now))
        }
        C::DynatraceSetToken { token } => {
            dynatrace_ops::set_token(conn, svc.dynatrace()?, token.expose(), &domain::time::format_ms(now))
        }
        C::DynatraceRemoveToken {} => {
            dynatrace_ops::remove_token(conn, svc.dynatrace()?, &domain::time::format_ms(now))
        }
        // The test itself is a network call: the privileged actor runs it after this
        // authorized, audited step (`PrivilegedActor::follow_up`).
        C::DynatraceTestConnection {} => {
            svc.dynatrace()?;
            Ok(json!({"authorized": true}))
        }
        C::Wiki(wiki) => {
            let caller = crate::wiki::Caller {
                account_id: &who.account.id,
                display_name: &who.account.display_name,
                device_id: who.device_id.as_deref(),
            };
            let done = crate::wiki::ops::run(conn, &svc.wiki()?.files, caller, wiki, now)?;
            return Ok(Ran { result: done.result, wiki_after_commit: done.after_commit });
        }
    }?;
    Ok(Ran { result, wiki_after_commit: Vec::new() })
}
