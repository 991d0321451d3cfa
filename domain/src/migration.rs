//! Planning the one-time conversion of the legacy `relay_operators` roster into protected role
//! accounts. This module owns the pure planner: it validates the whole conversion (ids,
//! usernames, roles, the single Owner, the optional single active Publisher, device bindings,
//! historical attributions, collisions with existing protected accounts, and the exact legacy
//! `relay_login_roster` view) before anything is written, and either returns a complete plan that
//! preserves every id or defers with every reason found. It never guesses: ambiguous data
//! defers, and the operator restores the pre-migration backup.

use std::collections::{HashMap, HashSet};

use crate::envelope::is_record_id;
use crate::roles::{normalize_username, Account, AccountKind, AuthorityState};

/// The legacy view's query; the found SQL must match after whitespace normalization.
pub const EXPECTED_ROSTER_VIEW_SQL: &str = "SELECT id, username, displayName, role, active FROM relay_operators";

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LegacyOperator {
    pub id: String,
    pub username: String,
    pub display_name: String,
    /// "owner" | "admin" | "administrator" | "publisher" as found; anything else is ambiguous.
    pub role: String,
    pub active: bool,
    pub password_hash: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LegacyDevice {
    pub id: String,
    pub operator_id: String,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LegacyAttribution {
    pub collection: String,
    pub record_id: String,
    pub field: String,
    pub operator_id: String,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MigrationPlan {
    /// Target state of every legacy operator, keyed by the preserved legacy id (write as upserts:
    /// an id that already exists as the same protected account is included unchanged in kind).
    pub accounts: Vec<Account>,
    pub state: AuthorityState,
    /// `(device_id, account_id)`.
    pub device_bindings: Vec<(String, String)>,
    /// Non-empty attributions, ids unchanged, each verified to reference a known account.
    pub attributions: Vec<LegacyAttribution>,
    /// `(account_id, legacy password hash)` for operators that had a credential.
    pub password_hashes: Vec<(String, String)>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DeferReason {
    DuplicateUsername(String),
    InvalidUsername(String),
    UnknownRole {
        operator_id: String,
        role: String,
    },
    NoOwner,
    MultipleOwners,
    MultiplePublishers,
    DeviceForUnknownOperator(String),
    AttributionForUnknownOperator(String),
    /// A legacy id equals an existing protected account id with a different username or kind,
    /// or a legacy operator/device id appears twice.
    IdCollision(String),
    RosterViewMismatch,
    InvalidId(String),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MigrationOutcome {
    NothingToDo,
    Planned(MigrationPlan),
    Deferred(Vec<DeferReason>),
}

fn normalize_sql(sql: &str) -> String {
    crate::text::collapse_whitespace(sql)
}

fn defer(r: DeferReason, reasons: &mut Vec<DeferReason>) {
    if !reasons.contains(&r) {
        reasons.push(r);
    }
}

fn legacy_kind(role: &str) -> Option<(AccountKind, bool)> {
    match role {
        "owner" => Some((AccountKind::Administrator, true)),
        "admin" | "administrator" => Some((AccountKind::Administrator, false)),
        "publisher" => Some((AccountKind::Publisher, false)),
        _ => None,
    }
}

/// Plans the whole conversion and collects every deferral reason (deduplicated, in discovery
/// order). An empty roster with no devices or attributions is [`MigrationOutcome::NothingToDo`];
/// an absent view (`None`) is accepted, a present one must match [`EXPECTED_ROSTER_VIEW_SQL`].
pub fn plan_migration(
    operators: &[LegacyOperator],
    devices: &[LegacyDevice],
    attributions: &[LegacyAttribution],
    existing: &[Account],
    legacy_roster_view_sql: Option<&str>,
) -> MigrationOutcome {
    if operators.is_empty() && devices.is_empty() && attributions.iter().all(|a| a.operator_id.is_empty()) {
        return MigrationOutcome::NothingToDo;
    }
    let mut reasons: Vec<DeferReason> = Vec::new();

    if let Some(sql) = legacy_roster_view_sql {
        if normalize_sql(sql) != normalize_sql(EXPECTED_ROSTER_VIEW_SQL) {
            defer(DeferReason::RosterViewMismatch, &mut reasons);
        }
    }

    let existing_by_id: HashMap<&str, &Account> = existing.iter().map(|a| (a.id.as_str(), a)).collect();
    let existing_by_username: HashMap<&str, &Account> = existing.iter().map(|a| (a.username.as_str(), a)).collect();
    let mut seen_ids: HashSet<&str> = HashSet::new();
    let mut seen_usernames: HashSet<String> = HashSet::new();
    let mut accounts = Vec::new();
    let mut password_hashes = Vec::new();
    let mut owners = Vec::new();
    let mut active_publishers = Vec::new();

    for op in operators {
        if !is_record_id(&op.id) {
            defer(DeferReason::InvalidId(op.id.clone()), &mut reasons);
        } else if !seen_ids.insert(op.id.as_str()) {
            defer(DeferReason::IdCollision(op.id.clone()), &mut reasons);
        }
        let username = match normalize_username(&op.username) {
            Ok(u) => Some(u),
            Err(_) => {
                defer(DeferReason::InvalidUsername(op.username.clone()), &mut reasons);
                None
            }
        };
        if let Some(u) = &username {
            if !seen_usernames.insert(u.clone()) {
                defer(DeferReason::DuplicateUsername(u.clone()), &mut reasons);
            }
        }
        let kind = match legacy_kind(&op.role) {
            Some((kind, is_owner)) => {
                if is_owner {
                    owners.push(op.id.clone());
                }
                if kind == AccountKind::Publisher && op.active {
                    active_publishers.push(op.id.clone());
                }
                Some(kind)
            }
            None => {
                defer(DeferReason::UnknownRole { operator_id: op.id.clone(), role: op.role.clone() }, &mut reasons);
                None
            }
        };
        let (Some(username), Some(kind)) = (username, kind) else { continue };
        if let Some(ex) = existing_by_id.get(op.id.as_str()) {
            if ex.username != username || ex.kind != kind {
                defer(DeferReason::IdCollision(op.id.clone()), &mut reasons);
            }
        }
        if let Some(ex) = existing_by_username.get(username.as_str()) {
            if ex.id != op.id {
                defer(DeferReason::DuplicateUsername(username.clone()), &mut reasons);
            }
        }
        let hash = op.password_hash.as_deref().filter(|h| !h.is_empty());
        if let Some(h) = hash {
            password_hashes.push((op.id.clone(), h.to_string()));
        }
        let display = op.display_name.trim();
        accounts.push(Account {
            id: op.id.clone(),
            display_name: if display.is_empty() { username.clone() } else { display.to_string() },
            username,
            kind,
            active: op.active,
            credential_set: hash.is_some(),
        });
    }

    match owners.len() {
        0 => defer(DeferReason::NoOwner, &mut reasons),
        1 => {}
        _ => defer(DeferReason::MultipleOwners, &mut reasons),
    }
    if active_publishers.len() > 1 {
        defer(DeferReason::MultiplePublishers, &mut reasons);
    }

    let known = |id: &str| seen_ids.contains(id) || existing_by_id.contains_key(id);
    let mut seen_devices: HashSet<&str> = HashSet::new();
    let mut device_bindings = Vec::new();
    for d in devices {
        if !is_record_id(&d.id) {
            defer(DeferReason::InvalidId(d.id.clone()), &mut reasons);
        } else if !seen_devices.insert(d.id.as_str()) {
            defer(DeferReason::IdCollision(d.id.clone()), &mut reasons);
        }
        if known(&d.operator_id) {
            device_bindings.push((d.id.clone(), d.operator_id.clone()));
        } else {
            defer(DeferReason::DeviceForUnknownOperator(d.id.clone()), &mut reasons);
        }
    }

    let mut kept_attributions = Vec::new();
    for a in attributions.iter().filter(|a| !a.operator_id.is_empty()) {
        if known(&a.operator_id) {
            kept_attributions.push(a.clone());
        } else {
            defer(DeferReason::AttributionForUnknownOperator(a.operator_id.clone()), &mut reasons);
        }
    }

    if !reasons.is_empty() {
        return MigrationOutcome::Deferred(reasons);
    }
    MigrationOutcome::Planned(MigrationPlan {
        accounts,
        state: AuthorityState {
            owner_account_id: owners.remove(0),
            publisher_account_id: active_publishers.pop(),
            revision: 1,
        },
        device_bindings,
        attributions: kept_attributions,
        password_hashes,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn op(id: &str, username: &str, role: &str, active: bool) -> LegacyOperator {
        LegacyOperator {
            id: id.into(),
            username: username.into(),
            display_name: format!("{username} display"),
            role: role.into(),
            active,
            password_hash: Some(format!("$2a$10${id}")),
        }
    }

    fn roster() -> Vec<LegacyOperator> {
        vec![
            op("ryan00000000001", "Ryan", "owner", true),
            op("chrl00000000001", "charles", "admin", true),
            op("mike00000000001", "mike", "administrator", false),
            op("publ00000000001", "wiki.pub", "publisher", true),
            LegacyOperator { password_hash: None, ..op("publ00000000002", "old-pub", "publisher", false) },
        ]
    }

    fn dev(id: &str, operator: &str) -> LegacyDevice {
        LegacyDevice { id: id.into(), operator_id: operator.into() }
    }

    fn attr(record: &str, operator: &str) -> LegacyAttribution {
        LegacyAttribution {
            collection: "bridges".into(),
            record_id: record.into(),
            field: "createdBy".into(),
            operator_id: operator.into(),
        }
    }

    fn deferred(out: MigrationOutcome) -> Vec<DeferReason> {
        match out {
            MigrationOutcome::Deferred(r) => r,
            other => panic!("expected Deferred, got {other:?}"),
        }
    }

    fn plan_with(ops: &[LegacyOperator]) -> MigrationOutcome {
        plan_migration(ops, &[], &[], &[], Some(EXPECTED_ROSTER_VIEW_SQL))
    }

    #[test]
    fn successful_plan_preserves_ids_bindings_and_attribution() {
        let devices = [dev("devc00000000001", "ryan00000000001"), dev("devc00000000002", "publ00000000001")];
        let attrs = [
            attr("brdg00000000001", "chrl00000000001"),
            attr("brdg00000000002", ""),
            attr("brdg00000000003", "mike00000000001"),
        ];
        let sql = "SELECT id, username,\n  displayName, role, active\n  FROM relay_operators ";
        let MigrationOutcome::Planned(p) = plan_migration(&roster(), &devices, &attrs, &[], Some(sql)) else {
            panic!("expected a plan");
        };
        let ids: Vec<&str> = p.accounts.iter().map(|a| a.id.as_str()).collect();
        assert_eq!(
            ids,
            ["ryan00000000001", "chrl00000000001", "mike00000000001", "publ00000000001", "publ00000000002"]
        );
        assert_eq!(p.accounts[0].username, "ryan");
        assert_eq!(p.accounts[0].kind, AccountKind::Administrator);
        assert_eq!(p.accounts[3].kind, AccountKind::Publisher);
        assert!(!p.accounts[2].active);
        assert!(!p.accounts[4].credential_set && p.accounts[0].credential_set);
        assert_eq!(p.state.owner_account_id, "ryan00000000001");
        assert_eq!(p.state.publisher_account_id.as_deref(), Some("publ00000000001"));
        assert_eq!(
            p.device_bindings,
            [
                ("devc00000000001".into(), "ryan00000000001".into()),
                ("devc00000000002".into(), "publ00000000001".into())
            ]
        );
        assert_eq!(p.attributions, [attrs[0].clone(), attrs[2].clone()]);
        assert_eq!(p.password_hashes.len(), 4);
        assert_eq!(p.password_hashes[0], ("ryan00000000001".into(), "$2a$10$ryan00000000001".into()));
        // Effective roles of the planned accounts.
        use crate::roles::{effective_role, Role};
        let roles: Vec<_> = p.accounts.iter().map(|a| effective_role(a, &p.state)).collect();
        assert_eq!(roles, [Some(Role::Owner), Some(Role::Administrator), None, Some(Role::Publisher), None]);
    }

    #[test]
    fn empty_roster_is_nothing_to_do() {
        assert_eq!(plan_migration(&[], &[], &[], &[], None), MigrationOutcome::NothingToDo);
        assert_eq!(
            plan_migration(&[], &[], &[attr("brdg00000000001", "")], &[], Some("garbage")),
            MigrationOutcome::NothingToDo
        );
        // Orphaned references without a roster are not "nothing".
        let r = deferred(plan_migration(&[], &[dev("devc00000000001", "ryan00000000001")], &[], &[], None));
        assert!(r.contains(&DeferReason::DeviceForUnknownOperator("devc00000000001".into())));
    }

    #[test]
    fn view_absent_is_accepted_and_mismatch_defers() {
        assert!(matches!(plan_migration(&roster(), &[], &[], &[], None), MigrationOutcome::Planned(_)));
        for sql in [
            "SELECT id, username, displayName, role, active, email FROM relay_operators",
            "select id, username, displayName, role, active from relay_operators",
            "SELECT id, username, displayName, role, active FROM relay_operators WHERE active",
            "",
        ] {
            assert_eq!(
                deferred(plan_migration(&roster(), &[], &[], &[], Some(sql))),
                [DeferReason::RosterViewMismatch],
                "{sql}"
            );
        }
    }

    #[test]
    fn each_deferral_reason() {
        let mut ops = roster();
        ops.push(op("dupe00000000001", " RYAN ", "admin", true));
        assert_eq!(deferred(plan_with(&ops)), [DeferReason::DuplicateUsername("ryan".into())]);

        let mut ops = roster();
        ops.push(op("bad000000000001", "ops@example.com", "admin", true));
        ops.push(op("bad000000000002", "x", "admin", true));
        assert_eq!(
            deferred(plan_with(&ops)),
            [DeferReason::InvalidUsername("ops@example.com".into()), DeferReason::InvalidUsername("x".into())]
        );

        let mut ops = roster();
        ops.push(op("odd000000000001", "odd", "Admin", true));
        assert_eq!(
            deferred(plan_with(&ops)),
            [DeferReason::UnknownRole { operator_id: "odd000000000001".into(), role: "Admin".into() }]
        );

        assert_eq!(deferred(plan_with(&roster()[1..])), [DeferReason::NoOwner]);

        let mut ops = roster();
        ops.push(op("ownr00000000002", "other", "owner", false));
        assert_eq!(deferred(plan_with(&ops)), [DeferReason::MultipleOwners]);

        let mut ops = roster();
        ops[4].active = true;
        assert_eq!(deferred(plan_with(&ops)), [DeferReason::MultiplePublishers]);

        let r = plan_migration(&roster(), &[dev("devc00000000001", "gone00000000001")], &[], &[], None);
        assert_eq!(deferred(r), [DeferReason::DeviceForUnknownOperator("devc00000000001".into())]);

        let r = plan_migration(&roster(), &[], &[attr("brdg00000000001", "gone00000000001")], &[], None);
        assert_eq!(deferred(r), [DeferReason::AttributionForUnknownOperator("gone00000000001".into())]);

        let mut ops = roster();
        ops[0].id = "Ryan-1".into();
        assert_eq!(deferred(plan_with(&ops)), [DeferReason::InvalidId("Ryan-1".into())]);
        let r = plan_migration(&roster(), &[dev("short", "ryan00000000001")], &[], &[], None);
        assert_eq!(deferred(r), [DeferReason::InvalidId("short".into())]);
    }

    #[test]
    fn collisions_with_existing_protected_accounts() {
        let existing = |id: &str, username: &str, kind| Account {
            id: id.into(),
            username: username.into(),
            display_name: username.into(),
            kind,
            active: false,
            credential_set: false,
        };
        // Same id, different username.
        let ex = [existing("chrl00000000001", "charlie", AccountKind::Administrator)];
        assert_eq!(
            deferred(plan_migration(&roster(), &[], &[], &ex, None)),
            [DeferReason::IdCollision("chrl00000000001".into())]
        );
        // Same id and username but a different kind.
        let ex = [existing("chrl00000000001", "charles", AccountKind::Publisher)];
        assert_eq!(
            deferred(plan_migration(&roster(), &[], &[], &ex, None)),
            [DeferReason::IdCollision("chrl00000000001".into())]
        );
        // Same username under a different id (e.g. a fresh bootstrap record).
        let ex = [existing("rand0000000000x", "ryan", AccountKind::Administrator)];
        assert_eq!(
            deferred(plan_migration(&roster(), &[], &[], &ex, None)),
            [DeferReason::DuplicateUsername("ryan".into())]
        );
        // The same account already present is fine, and references to it are known.
        let ex = [
            existing("chrl00000000001", "charles", AccountKind::Administrator),
            existing("xtra00000000001", "xtra", AccountKind::Administrator),
        ];
        let r = plan_migration(&roster(), &[dev("devc00000000001", "xtra00000000001")], &[], &ex, None);
        assert!(matches!(r, MigrationOutcome::Planned(_)), "{r:?}");
        // Duplicate legacy ids.
        let mut ops = roster();
        ops.push(op("chrl00000000001", "charles2", "admin", true));
        assert_eq!(deferred(plan_with(&ops)), [DeferReason::IdCollision("chrl00000000001".into())]);
    }

    #[test]
    fn all_reasons_are_collected_not_just_the_first() {
        let ops = [
            op("BAD", "a@b", "root", true),
            op("ownr00000000001", "dup", "publisher", true),
            op("ownr00000000002", "dup", "publisher", true),
        ];
        let r = plan_migration(
            &ops,
            &[dev("devc00000000001", "nobody000000001")],
            &[attr("brdg00000000001", "nobody000000002")],
            &[],
            Some("SELECT *"),
        );
        assert_eq!(
            r,
            MigrationOutcome::Deferred(vec![
                DeferReason::RosterViewMismatch,
                DeferReason::InvalidId("BAD".into()),
                DeferReason::InvalidUsername("a@b".into()),
                DeferReason::UnknownRole { operator_id: "BAD".into(), role: "root".into() },
                DeferReason::DuplicateUsername("dup".into()),
                DeferReason::NoOwner,
                DeferReason::MultiplePublishers,
                DeferReason::DeviceForUnknownOperator("devc00000000001".into()),
                DeferReason::AttributionForUnknownOperator("nobody000000002".into()),
            ])
        );
    }
}
