//! The owner-only rules beside the command rows: [`authorize`] matches the typed
//! [`PrivilegedCommand`] exhaustively and is enforced again on every call. A row's capability
//! ([`CommandSpec::capability`](super::CommandSpec)) is what every use needs; the rules here add
//! what depends on the target (an Administrator-kind account needs the Owner, the Owner's devices
//! and laptops need the Owner, ownership goes only to an active Administrator, ...). Roles come
//! from `roles::effective_role`, never from a claim. This module depends on `roles` and the
//! command enum; `roles` depends on neither.

use super::PrivilegedCommand;
use crate::roles::{
    effective_role, has_capability, Account, AccountKind, AuthorityState, AuthzError, Capability, Role,
};

fn require(actor: Role, cap: Capability, why: &'static str) -> Result<(), AuthzError> {
    if has_capability(actor, cap) {
        Ok(())
    } else {
        Err(AuthzError::Forbidden(why))
    }
}

/// The account commands' shared rule: an Administrator-kind target needs `AccountsManage` (the
/// Owner), a Publisher-kind target `cap` (`PublisherManage`).
fn manageable_account(actor: Role, cap: Capability, target: Option<&Account>) -> Result<&Account, AuthzError> {
    let t = target.ok_or(AuthzError::InvalidTarget("an account is required"))?;
    match t.kind {
        AccountKind::Administrator => {
            require(actor, Capability::AccountsManage, "only the Owner can manage Administrator accounts")?
        }
        AccountKind::Publisher => require(actor, cap, "Publisher accounts need an Owner or Administrator")?,
    }
    Ok(t)
}

/// The owner-only rules for an allowlisted command, enforced again for every call. The
/// allowlist itself is [`PrivilegedCommand`]: a name without a variant never gets here.
/// `actor` must come from [`effective_role`]; `target` is the account the command acts on (for
/// `devices.revoke`, the account that owns the device; for `accounts.create`, the proposed
/// record).
pub fn authorize(
    command: &PrivilegedCommand,
    actor: Role,
    target: Option<&Account>,
    state: &AuthorityState,
) -> Result<(), AuthzError> {
    use PrivilegedCommand as C;
    let target_required = |why| target.ok_or(AuthzError::InvalidTarget(why));
    let cap = command.capability();
    match command {
        C::PrivilegedProbe { .. } => require(actor, cap, "probe"),
        C::AdminSnapshot {} => require(actor, cap, "the administration snapshot needs an Owner or Administrator"),
        C::DevicesRevoke { .. } => {
            require(actor, cap, "device management needs an Owner or Administrator")?;
            let t = target_required("the device's account is required")?;
            if actor != Role::Owner && t.id == state.owner_account_id {
                return Err(AuthzError::Forbidden("only the Owner can revoke the Owner's devices"));
            }
            Ok(())
        }
        C::AccountsCreate { .. } => {
            let t = manageable_account(actor, cap, target)?;
            if t.id == state.owner_account_id {
                return Err(AuthzError::InvalidTarget("the account already exists"));
            }
            Ok(())
        }
        C::AccountsRename { .. } => manageable_account(actor, cap, target).map(|_| ()),
        C::AccountsSetActive { .. } => {
            let t = manageable_account(actor, cap, target)?;
            if t.id == state.owner_account_id {
                return Err(AuthzError::InvalidTarget("the Owner account's state is changed only on the server PC"));
            }
            Ok(())
        }
        C::AccountsSetPassword { .. } => manageable_account(actor, cap, target).map(|_| ()),
        C::PairingStart { .. } => {
            require(actor, cap, "pairing needs an Owner or Administrator")?;
            let t = target_required("the laptop's account is required")?;
            match effective_role(t, state) {
                None => Err(AuthzError::InvalidTarget("the account must be active with a role before pairing")),
                Some(Role::Owner) if actor != Role::Owner => {
                    Err(AuthzError::Forbidden("only the Owner can pair the Owner's laptops"))
                }
                Some(_) => Ok(()),
            }
        }
        C::AuditVerify {} => require(actor, cap, "the audit log needs an Owner or Administrator"),
        C::OwnershipTransfer { .. } => {
            require(actor, cap, "only the Owner can transfer ownership")?;
            let t = target_required("a new Owner is required")?;
            if t.kind != AccountKind::Administrator || !t.active {
                return Err(AuthzError::InvalidTarget("the new Owner must be an active Administrator"));
            }
            if t.id == state.owner_account_id {
                return Err(AuthzError::InvalidTarget("that account is already the Owner"));
            }
            Ok(())
        }
        C::PublisherAssign { .. } => {
            require(actor, cap, "Publisher assignment needs an Owner or Administrator")?;
            let t = target_required("a Publisher account is required")?;
            if t.kind != AccountKind::Publisher || t.id == state.owner_account_id {
                return Err(AuthzError::InvalidTarget("only a Publisher account can be assigned"));
            }
            Ok(())
        }
        C::DynatraceStatus {}
        | C::DynatraceConfigure { .. }
        | C::DynatraceSetToken { .. }
        | C::DynatraceRemoveToken {}
        | C::DynatraceTestConnection {} => require(actor, cap, "Dynatrace settings need an Owner or Administrator"),
        C::Wiki(_) => require(actor, cap, "Wiki publishing needs the Owner, an Administrator or the Publisher"),
    }
}

#[cfg(test)]
#[path = "policy_tests.rs"]
mod tests;
