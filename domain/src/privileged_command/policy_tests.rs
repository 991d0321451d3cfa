//! Tests of `policy::authorize` and of the allowlist it is matched over: the owner-only rules
//! for every command, roles and targets, and that a claim never grants.

use super::*;
use crate::privileged_command::tests::example as cmd;
use crate::privileged_command::{CommandParseError, PrivilegedCommand};
use crate::roles::{capabilities, claim_matches, effective_role, has_capability, AuthzError, Capability};

const OWNER: &str = "owner0000000001";

fn acct(id: &str, kind: AccountKind, active: bool) -> Account {
    Account { id: id.into(), username: id.into(), display_name: id.into(), kind, active, credential_set: true }
}

fn state() -> AuthorityState {
    AuthorityState { owner_account_id: OWNER.into(), publisher_account_id: Some("publ00000000001".into()), revision: 3 }
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
