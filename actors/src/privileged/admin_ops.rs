//! Server-local administration (`relay admin ...`) as typed operations over the privileged
//! service: listing accounts, creating one, setting passwords, activation, assigning the
//! Publisher, starting device pairing, revoking a device and verifying the audit chain. The
//! running server reaches this through the control socket and the privileged actor (`RunCommand<CliAdmin>`),
//! so the actor owns the change; with no server running the CLI calls [`run_without_server`] on
//! its own service over the same database. Either way the rules and the audit log are the same,
//! the acting account's password (`--as`) is checked behind the server PC's budget (the actor's,
//! or the same budget kept in the store), and nothing here is reachable over TCP.

use domain::control::{AccountLine, AdminOp, AdminReply, ControlError, ControlErrorCode, SecretText};
use domain::privileged_command::PrivilegedCommand;

use infra::rate_limits::RateLimitStore;

use super::error::PrivError;
use super::reauth_guard::check_on_server_pc_in_store;
use super::service::{Principal, PrivilegedService, Readiness};
use super::PrivilegedLimits;

/// Why an admin operation failed. Messages are safe to print on the operator's terminal.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AdminOpError {
    #[error(transparent)]
    Privileged(#[from] PrivError),
    #[error("role-account migration deferred ({0}); run `relay admin migrate-roles`")]
    Deferred(String),
    #[error("the audit log does not verify: {0}")]
    AuditBroken(String),
}

impl From<AdminOpError> for ControlError {
    fn from(e: AdminOpError) -> ControlError {
        let code = match &e {
            AdminOpError::Privileged(PrivError::Internal) => ControlErrorCode::Internal,
            AdminOpError::Privileged(PrivError::NotBootstrapped) => ControlErrorCode::Unavailable,
            _ => ControlErrorCode::Refused,
        };
        ControlError::new(code, e.to_string())
    }
}

/// Checks the acting account's username and password (`--as`) behind the server PC's budget.
pub type ActingPasswordCheck<'a> = dyn FnMut(&str, &str) -> Result<Principal, PrivError> + 'a;

/// Runs one admin operation with no server running: the acting account's password is checked
/// behind the server PC's budget as kept in `limits` (scope `privileged.local`).
pub fn run_without_server(
    svc: &PrivilegedService,
    limits: &RateLimitStore,
    op: AdminOp,
) -> Result<AdminReply, AdminOpError> {
    let budget = PrivilegedLimits::default().local;
    let now = svc.now().max(0) as u64;
    run(svc, op, &mut |actor, password| {
        check_on_server_pc_in_store(limits, budget, now, || svc.authenticate(actor, password))
    })
}

/// Runs one admin operation (after making sure the protected accounts exist), checking the
/// acting account's password with `authenticate`.
pub fn run(
    svc: &PrivilegedService,
    op: AdminOp,
    authenticate: &mut ActingPasswordCheck<'_>,
) -> Result<AdminReply, AdminOpError> {
    if let Readiness::Deferred(reasons) = svc.ensure_ready()? {
        return Err(AdminOpError::Deferred(reasons.join("; ")));
    }
    Ok(match op {
        AdminOp::List {} => AdminReply::Accounts { accounts: accounts(svc)? },
        AdminOp::SetPassword { username, password } => {
            let account = svc.set_password(&username, password.expose())?;
            AdminReply::PasswordSet { username: account.username }
        }
        AdminOp::SetActive { username, active } => {
            let account = svc.set_active(&username, active)?;
            AdminReply::ActiveSet { username: account.username, active: account.active }
        }
        AdminOp::PairDevice { actor, password, target, label } => {
            let principal = authenticate(&actor, password.expose())?;
            let ticket = svc.start_pairing(&principal, &target, &label)?;
            AdminReply::PairingCode { target, code: SecretText(ticket.code), expires_ms: ticket.expires_ms }
        }
        AdminOp::RevokeDevice { actor, password, device } => {
            let principal = authenticate(&actor, password.expose())?;
            let command = PrivilegedCommand::DevicesRevoke { device_id: device };
            AdminReply::Revoked { result: svc.execute_as(&principal, &command, None, true)? }
        }
        AdminOp::CreateAccount { actor, password, username, display_name, kind } => {
            let principal = authenticate(&actor, password.expose())?;
            let command = PrivilegedCommand::AccountsCreate { username, display_name, kind };
            AdminReply::Changed { result: svc.execute_as(&principal, &command, None, true)? }
        }
        AdminOp::AssignPublisher { actor, password, username } => {
            let principal = authenticate(&actor, password.expose())?;
            let account_id = Some(account_id_of(svc, &username)?);
            let revision = Some(principal.state.revision);
            let command = PrivilegedCommand::PublisherAssign { account_id, reauth_proof: None };
            AdminReply::Changed { result: svc.execute_as(&principal, &command, revision, true)? }
        }
        AdminOp::VerifyAudit {} => {
            AdminReply::AuditVerified { entries: svc.verify_audit().map_err(AdminOpError::AuditBroken)? }
        }
    })
}

/// The id of the account named `username` (as typed; usernames are stored normalized).
fn account_id_of(svc: &PrivilegedService, username: &str) -> Result<String, PrivError> {
    let wanted = username.trim().to_lowercase();
    let found = svc.accounts()?.into_iter().find(|(a, _)| a.username == wanted);
    found.map(|(a, _)| a.id).ok_or_else(|| PrivError::Invalid("unknown account".into()))
}

fn accounts(svc: &PrivilegedService) -> Result<Vec<AccountLine>, PrivError> {
    Ok(svc
        .accounts()?
        .into_iter()
        .map(|(account, role)| AccountLine {
            id: account.id,
            username: account.username,
            kind: format!("{:?}", account.kind).to_lowercase(),
            active: account.active,
            role: role.map(|r| r.as_str().to_string()),
            credential_set: account.credential_set,
        })
        .collect())
}
