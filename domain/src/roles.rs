//! Protected identity rules: the three effective roles (Owner, Administrator, Publisher)
//! derived only from account records and the singleton authority state, the capabilities each
//! role has, and username and password policy. The owner-only rules per command
//! (`privileged_command::policy::authorize`) live beside the command rows and build on these;
//! this module knows nothing of commands. Role claims carried by envelopes or sent by a renderer
//! are never inputs here; [`claim_matches`] only lets the caller reject a request whose claim no
//! longer matches the derived role.

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
/// PublisherManage in `privileged_command::policy::authorize`); Publisher: WikiManage, Probe.
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

#[cfg(test)]
mod tests {
    use super::*;

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
}
