//! Protected identity rules: the three effective roles (Owner, Administrator, Publisher)
//! derived only from account records and the singleton authority state, the capabilities each
//! role has, username and password policy, and `authorize`, the owner-only rules that every
//! privileged handler enforces again on every call, matched exhaustively over the typed
//! [`PrivilegedCommand`] (the allowlist lives there, not here). Role claims carried by
//! envelopes or sent by a renderer are never inputs here; [`claim_matches`] only lets the
//! caller reject a request whose claim no longer matches the derived role.

use crate::privileged_command::PrivilegedCommand;

/// Bootstrap Administrator records `(username, display name)`, created inactive and without a
/// usable credential; the first is the Owner. Account ids are random in production.
pub const BOOTSTRAP_ADMINS: [(&str, &str); 2] = [("ryan", "Ryan Bledsoe"), ("charles", "Charles Gibbs")];

pub const MIN_PASSWORD_LEN: usize = 12;
pub const MAX_PASSWORD_LEN: usize = 1024;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    Owner,
    Administrator,
    Publisher,
}

impl Role {
    pub fn as_str(&self) -> &'static str {
        match self {
            Role::Owner => "owner",
            Role::Administrator => "administrator",
            Role::Publisher => "publisher",
        }
    }

    /// Exact lowercase names only.
    pub fn parse(s: &str) -> Option<Role> {
        match s {
            "owner" => Some(Role::Owner),
            "administrator" => Some(Role::Administrator),
            "publisher" => Some(Role::Publisher),
            _ => None,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum AccountKind {
    Administrator,
    Publisher,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Account {
    pub id: String,
    pub username: String,
    pub display_name: String,
    pub kind: AccountKind,
    pub active: bool,
    pub credential_set: bool,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AuthorityState {
    pub owner_account_id: String,
    pub publisher_account_id: Option<String>,
    pub revision: i64,
}

/// Effective role derived from records only: inactive → None; Administrator kind whose id ==
/// owner → Owner; other Administrator → Administrator; Publisher kind whose id ==
/// publisher_account_id → Publisher; unassigned Publisher → None.
pub fn effective_role(account: &Account, state: &AuthorityState) -> Option<Role> {
    if !account.active {
        return None;
    }
    match account.kind {
        AccountKind::Administrator if account.id == state.owner_account_id => Some(Role::Owner),
        AccountKind::Administrator => Some(Role::Administrator),
        AccountKind::Publisher if state.publisher_account_id.as_deref() == Some(account.id.as_str()) => {
            Some(Role::Publisher)
        }
        AccountKind::Publisher => None,
    }
}

/// True when an envelope's `roleClaim` equals the role derived from the records. A mismatch
/// means the role changed after signing and the request must be rejected; a match grants
/// nothing (authorization always uses the derived role).
pub fn claim_matches(claim: &str, derived: Role) -> bool {
    Role::parse(claim) == Some(derived)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub enum Capability {
    AdminSnapshot,
    DevicesManage,
    AccountsManage,
    PublisherManage,
    OwnershipTransfer,
    WikiManage,
    /// Company and footer logos (set and removed from the server PC's Settings).
    BrandingManage,
    /// Dynatrace environment, token and scope (server-owned sync configuration).
    DynatraceManage,
    /// Manual rollback to a retained build (server PC, Owner only, fresh password).
    RecoveryManage,
    Probe,
}

/// Owner: all (only the Owner has RecoveryManage and the account and ownership capabilities);
/// Administrator: AdminSnapshot, DevicesManage, PublisherManage, WikiManage,
/// BrandingManage, DynatraceManage, Probe (account commands on Publisher-kind targets are granted through
/// PublisherManage in [`authorize`]); Publisher: WikiManage, Probe.
pub fn capabilities(role: Role) -> &'static [Capability] {
    use Capability::*;
    match role {
        Role::Owner => &[
            AdminSnapshot,
            DevicesManage,
            AccountsManage,
            PublisherManage,
            OwnershipTransfer,
            WikiManage,
            BrandingManage,
            DynatraceManage,
            RecoveryManage,
            Probe,
        ],
        Role::Administrator => {
            &[AdminSnapshot, DevicesManage, PublisherManage, WikiManage, BrandingManage, DynatraceManage, Probe]
        }
        Role::Publisher => &[WikiManage, Probe],
    }
}

pub fn has_capability(role: Role, cap: Capability) -> bool {
    capabilities(role).contains(&cap)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum IdentityError {
    #[error("username must be 2-64 characters: a lowercase letter, then letters, digits, '.', '_' or '-'")]
    InvalidUsername,
    #[error("sign in with a username, not an email address")]
    EmailNotAllowed,
    #[error("password must be at least 12 characters")]
    PasswordTooShort,
    #[error("password is too long")]
    PasswordTooLong,
}

/// Trim, lowercase ASCII, then require `^[a-z][a-z0-9._-]{1,63}$`; anything containing `@` is
/// rejected as an email address.
pub fn normalize_username(raw: &str) -> Result<String, IdentityError> {
    let s = raw.trim().to_ascii_lowercase();
    if s.contains('@') {
        return Err(IdentityError::EmailNotAllowed);
    }
    let b = s.as_bytes();
    let ok = (2..=64).contains(&b.len())
        && b[0].is_ascii_lowercase()
        && b[1..].iter().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || matches!(c, b'.' | b'_' | b'-'));
    if ok {
        Ok(s)
    } else {
        Err(IdentityError::InvalidUsername)
    }
}

/// At least [`MIN_PASSWORD_LEN`] characters (Unicode scalar values) and at most
/// [`MAX_PASSWORD_LEN`] bytes. No composition rules.
pub fn check_password_policy(pw: &str) -> Result<(), IdentityError> {
    if pw.len() > MAX_PASSWORD_LEN {
        return Err(IdentityError::PasswordTooLong);
    }
    if pw.chars().count() < MIN_PASSWORD_LEN {
        return Err(IdentityError::PasswordTooShort);
    }
    Ok(())
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum AuthzError {
    #[error("not permitted: {0}")]
    Forbidden(&'static str),
    #[error("invalid target: {0}")]
    InvalidTarget(&'static str),
}

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
mod tests {
    use super::*;
    use crate::privileged_command::tests::example as cmd;
    use crate::privileged_command::CommandParseError;

    const OWNER: &str = "owner0000000001";

    fn acct(id: &str, kind: AccountKind, active: bool) -> Account {
        Account { id: id.into(), username: id.into(), display_name: id.into(), kind, active, credential_set: true }
    }

    fn state() -> AuthorityState {
        AuthorityState {
            owner_account_id: OWNER.into(),
            publisher_account_id: Some("publ00000000001".into()),
            revision: 3,
        }
    }

    #[test]
    fn effective_roles_come_from_records_only() {
        let s = state();
        use AccountKind::*;
        assert_eq!(effective_role(&acct(OWNER, Administrator, true), &s), Some(Role::Owner));
        assert_eq!(effective_role(&acct(OWNER, Administrator, false), &s), None);
        assert_eq!(effective_role(&acct("admn00000000001", Administrator, true), &s), Some(Role::Administrator));
        assert_eq!(effective_role(&acct("admn00000000001", Administrator, false), &s), None);
        assert_eq!(effective_role(&acct("publ00000000001", Publisher, true), &s), Some(Role::Publisher));
        assert_eq!(effective_role(&acct("publ00000000001", Publisher, false), &s), None);
        assert_eq!(effective_role(&acct("publ00000000002", Publisher, true), &s), None);
        // A Publisher-kind record named by the owner pointer is still not an Owner.
        assert_eq!(effective_role(&acct(OWNER, Publisher, true), &s), None);
        // An Administrator named by the publisher pointer stays an Administrator.
        let s2 = AuthorityState { publisher_account_id: Some("admn00000000001".into()), ..s };
        assert_eq!(effective_role(&acct("admn00000000001", Administrator, true), &s2), Some(Role::Administrator));
    }

    #[test]
    fn claims_are_checked_but_never_grant() {
        let s = state();
        let admin = acct("admn00000000001", AccountKind::Administrator, true);
        let derived = effective_role(&admin, &s).unwrap();
        assert!(!claim_matches("owner", derived));
        assert!(claim_matches("administrator", derived));
        assert!(!claim_matches("Administrator", derived));
        let target = acct("admn00000000002", AccountKind::Administrator, true);
        assert!(authorize(&cmd("ownership.transfer"), derived, Some(&target), &s).is_err());
    }

    #[test]
    fn role_names_and_capabilities() {
        for r in [Role::Owner, Role::Administrator, Role::Publisher] {
            assert_eq!(Role::parse(r.as_str()), Some(r));
            assert_eq!(serde_json::to_value(r).unwrap(), serde_json::json!(r.as_str()));
        }
        assert_eq!(Role::parse("admin"), None);
        assert_eq!(capabilities(Role::Owner).len(), 10);
        assert!(has_capability(Role::Administrator, Capability::BrandingManage));
        assert!(!has_capability(Role::Publisher, Capability::BrandingManage));
        for name in ["dynatrace.status", "dynatrace.configure", "dynatrace.setToken", "dynatrace.removeToken"] {
            let state = state();
            assert_eq!(authorize(&cmd(name), Role::Owner, None, &state), Ok(()), "{name}");
            assert_eq!(authorize(&cmd(name), Role::Administrator, None, &state), Ok(()), "{name}");
            assert!(authorize(&cmd(name), Role::Publisher, None, &state).is_err(), "{name}");
        }
        assert!(!has_capability(Role::Administrator, Capability::AccountsManage));
        assert!(has_capability(Role::Owner, Capability::RecoveryManage));
        assert!(!has_capability(Role::Administrator, Capability::RecoveryManage));
        assert!(!has_capability(Role::Publisher, Capability::RecoveryManage));
        assert!(!has_capability(Role::Administrator, Capability::OwnershipTransfer));
        assert_eq!(capabilities(Role::Publisher), &[Capability::WikiManage, Capability::Probe]);
        assert_eq!(serde_json::to_value(Capability::AdminSnapshot).unwrap(), serde_json::json!("adminSnapshot"));
    }

    #[test]
    fn usernames() {
        assert_eq!(normalize_username("  Ryan ").unwrap(), "ryan");
        assert_eq!(normalize_username("c.gibbs_2-x").unwrap(), "c.gibbs_2-x");
        assert_eq!(normalize_username(&format!("a{}", "b".repeat(63))).unwrap().len(), 64);
        assert_eq!(normalize_username("ryan@example.com"), Err(IdentityError::EmailNotAllowed));
        assert_eq!(normalize_username("@"), Err(IdentityError::EmailNotAllowed));
        for bad in ["", "r", "1ryan", "_ryan", "ry an", "rÿan", "ryan!", &format!("a{}", "b".repeat(64))] {
            assert_eq!(normalize_username(bad), Err(IdentityError::InvalidUsername), "{bad}");
        }
        for (u, _) in BOOTSTRAP_ADMINS {
            assert_eq!(normalize_username(u).unwrap(), u);
        }
    }

    #[test]
    fn passwords() {
        assert_eq!(check_password_policy("short"), Err(IdentityError::PasswordTooShort));
        assert_eq!(check_password_policy("elevenchars"), Err(IdentityError::PasswordTooShort));
        assert!(check_password_policy("twelve chars").is_ok());
        assert!(check_password_policy("ééééééééééé€").is_ok()); // 12 characters, more bytes
        assert!(check_password_policy(&"x".repeat(MAX_PASSWORD_LEN)).is_ok());
        assert_eq!(check_password_policy(&"x".repeat(MAX_PASSWORD_LEN + 1)), Err(IdentityError::PasswordTooLong));
    }

    #[test]
    fn allowlist() {
        for c in PrivilegedCommand::all_names() {
            assert!(PrivilegedCommand::is_known(c));
        }
        // The enums are the only allowlist: `wiki.*` names are known one by one, never by
        // prefix (they were allowlisted by prefix once).
        for c in ["wiki.publish", "wiki.category.rename"] {
            assert!(PrivilegedCommand::is_known(c), "{c}");
        }
        for c in ["wiki.purge", "wiki.category", "wiki.upload.chunks"] {
            assert!(!PrivilegedCommand::is_known(c), "{c}");
        }
        for c in ["privileged.reauth.confirm", "settings.set", "wiki", "wiki.", "wiki.Bad", "accounts.delete", ""] {
            assert!(!PrivilegedCommand::is_known(c), "{c}");
        }
        let parse = |c| PrivilegedCommand::parse(c, &serde_json::json!({}));
        assert_eq!(parse("settings.set"), Err(CommandParseError::UnknownCommand));
        assert_eq!(parse("privileged.reauth.confirm"), Err(CommandParseError::UnknownCommand));
    }

    #[test]
    fn authorization_table() {
        use AccountKind::{Administrator as A, Publisher as P};
        use Role::{Administrator as Adm, Owner as Own, Publisher as Pub};
        let s = state();
        let owner = acct(OWNER, A, true);
        let admin = acct("admn00000000001", A, true);
        let inactive_admin = acct("admn00000000002", A, false);
        let publisher = acct("publ00000000001", P, true);
        let new_pub = acct("publ00000000002", P, false);
        let new_admin = acct("admn00000000003", A, false);
        let ok = |r: Result<(), AuthzError>| r.is_ok();
        let forbidden = |r: Result<(), AuthzError>| matches!(r, Err(AuthzError::Forbidden(_)));
        let invalid = |r: Result<(), AuthzError>| matches!(r, Err(AuthzError::InvalidTarget(_)));
        type Check = fn(Result<(), AuthzError>) -> bool;
        let (o, f, i): (Check, Check, Check) = (ok, forbidden, invalid);
        #[rustfmt::skip]
        let table: Vec<(&str, Role, Option<&Account>, Check)> = vec![
            ("privileged.probe", Own, None, o), ("privileged.probe", Adm, None, o), ("privileged.probe", Pub, None, o),
            ("admin.snapshot", Own, None, o), ("admin.snapshot", Adm, None, o), ("admin.snapshot", Pub, None, f),
            ("devices.revoke", Own, Some(&owner), o), ("devices.revoke", Own, Some(&admin), o),
            ("devices.revoke", Adm, Some(&owner), f), ("devices.revoke", Adm, Some(&admin), o),
            ("devices.revoke", Adm, Some(&publisher), o), ("devices.revoke", Pub, Some(&publisher), f),
            ("devices.revoke", Adm, None, i),
            ("accounts.create", Own, Some(&new_admin), o), ("accounts.create", Adm, Some(&new_admin), f),
            ("accounts.create", Own, Some(&new_pub), o), ("accounts.create", Adm, Some(&new_pub), o),
            ("accounts.create", Pub, Some(&new_pub), f), ("accounts.create", Own, None, i),
            ("accounts.rename", Own, Some(&admin), o), ("accounts.rename", Own, Some(&owner), o),
            ("accounts.rename", Adm, Some(&admin), f), ("accounts.rename", Adm, Some(&owner), f),
            ("accounts.rename", Adm, Some(&publisher), o), ("accounts.rename", Pub, Some(&publisher), f),
            ("accounts.setActive", Own, Some(&inactive_admin), o), ("accounts.setActive", Adm, Some(&inactive_admin), f),
            ("accounts.setActive", Adm, Some(&admin), f), ("accounts.setActive", Adm, Some(&publisher), o),
            ("accounts.setActive", Own, Some(&owner), i), ("accounts.setActive", Pub, Some(&publisher), f),
            ("ownership.transfer", Own, Some(&admin), o), ("ownership.transfer", Adm, Some(&admin), f),
            ("ownership.transfer", Pub, Some(&admin), f), ("ownership.transfer", Own, Some(&owner), i),
            ("ownership.transfer", Own, Some(&inactive_admin), i), ("ownership.transfer", Own, Some(&publisher), i),
            ("ownership.transfer", Own, None, i),
            ("publisher.assign", Own, Some(&new_pub), o), ("publisher.assign", Adm, Some(&new_pub), o),
            ("publisher.assign", Pub, Some(&new_pub), f), ("publisher.assign", Own, Some(&admin), i),
            ("publisher.assign", Adm, Some(&owner), i), ("publisher.assign", Adm, None, i),
            ("accounts.setPassword", Own, Some(&owner), o), ("accounts.setPassword", Own, Some(&new_admin), o),
            ("accounts.setPassword", Adm, Some(&admin), f), ("accounts.setPassword", Adm, Some(&owner), f),
            ("accounts.setPassword", Adm, Some(&new_pub), o), ("accounts.setPassword", Pub, Some(&publisher), f),
            ("accounts.setPassword", Own, None, i),
            ("pairing.start", Own, Some(&owner), o), ("pairing.start", Own, Some(&publisher), o),
            ("pairing.start", Adm, Some(&publisher), o), ("pairing.start", Adm, Some(&owner), f),
            ("pairing.start", Own, Some(&new_pub), i), ("pairing.start", Own, Some(&inactive_admin), i),
            ("pairing.start", Pub, Some(&publisher), f), ("pairing.start", Adm, None, i),
            ("audit.verify", Own, None, o), ("audit.verify", Adm, None, o), ("audit.verify", Pub, None, f),
        ];
        for (name, role, target, check) in table {
            let r = authorize(&cmd(name), role, target, &s);
            assert!(check(r), "{name} as {role:?} on {:?}: {r:?}", target.map(|t| &t.id));
        }
    }

    #[test]
    fn every_command_needs_its_capability() {
        let s = state();
        let (owner, admin) =
            (acct(OWNER, AccountKind::Administrator, true), acct("admn00000000001", AccountKind::Administrator, true));
        let publisher = acct("publ00000000001", AccountKind::Publisher, true);
        for name in PrivilegedCommand::NAMES {
            let c = cmd(name);
            for role in [Role::Owner, Role::Administrator, Role::Publisher] {
                if has_capability(role, c.capability()) {
                    continue;
                }
                for target in [None, Some(&owner), Some(&admin), Some(&publisher)] {
                    assert!(authorize(&c, role, target, &s).is_err(), "{name} as {role:?}");
                }
            }
        }
    }

    #[test]
    fn publisher_can_only_run_wiki_and_probe() {
        let s = state();
        let any = acct("publ00000000001", AccountKind::Publisher, true);
        for c in PrivilegedCommand::NAMES.iter().filter(|c| **c != "privileged.probe") {
            assert!(authorize(&cmd(c), Role::Publisher, Some(&any), &s).is_err(), "{c}");
        }
        let publish = PrivilegedCommand::parse(
            "wiki.publish",
            &serde_json::json!({"uploadId": "u", "title": "T", "categoryId": "c", "documentType": "sop"}),
        )
        .unwrap();
        for role in [Role::Owner, Role::Administrator, Role::Publisher] {
            assert!(authorize(&publish, role, None, &s).is_ok(), "{role:?}");
        }
    }
}
