//! Tests of `privileged_command`: every command parses from its canonical JSON and round-trips
//! its name; unknown names (including `wiki.*` names without a variant) and wrong, missing or extra payload fields are
//! refused with a typed error.

use super::*;
use serde_json::json;

use PrivilegedCommand as C;

/// One canonical payload per command, in [`PrivilegedCommand::NAMES`] order.
pub(crate) fn canonical() -> Vec<(&'static str, Value)> {
    vec![
        ("privileged.probe", json!({})),
        ("admin.snapshot", json!({})),
        ("devices.revoke", json!({"deviceId": "dev000000000001"})),
        ("accounts.create", json!({"username": "pat", "displayName": "Pat", "kind": "publisher"})),
        ("accounts.rename", json!({"accountId": "acct00000000001", "displayName": "Ryan B."})),
        ("accounts.setActive", json!({"accountId": "acct00000000001", "active": false})),
        ("accounts.setPassword", json!({"accountId": "publ00000000001", "password": "a long enough password"})),
        ("pairing.start", json!({"accountId": "publ00000000001", "label": "NOC laptop 3"})),
        ("audit.verify", json!({})),
        ("ownership.transfer", json!({"accountId": "acct00000000002", "reauthProof": "proof-1"})),
        ("publisher.assign", json!({"accountId": "publ00000000001", "reauthProof": "proof-2"})),
        ("dynatrace.status", json!({})),
        (
            "dynatrace.configure",
            json!({"environmentUrl": "https://abc12345.apps.dynatrace.com", "alertingProfiles": ["NOC"], "matcher": null, "workflowId": null}),
        ),
        ("dynatrace.setToken", json!({"token": "dt0s16.SAMPLE.TOKENVALUE"})),
        ("dynatrace.removeToken", json!({})),
        ("dynatrace.testConnection", json!({})),
    ]
}

/// A command with a canonical payload, by name (for tests that only care about the variant).
pub(crate) fn example(name: &str) -> PrivilegedCommand {
    let (_, payload) = canonical().into_iter().find(|(n, _)| *n == name).expect("a known command");
    PrivilegedCommand::parse(name, &payload).unwrap()
}

/// Adding a variant breaks this `match` until it gets an index here and a canonical payload
/// above; `every_variant_has_a_name_capability_and_canonical_payload` checks the indices are
/// covered.
fn index(c: &PrivilegedCommand) -> usize {
    match c {
        C::PrivilegedProbe { .. } => 0,
        C::AdminSnapshot {} => 1,
        C::DevicesRevoke { .. } => 2,
        C::AccountsCreate { .. } => 3,
        C::AccountsRename { .. } => 4,
        C::AccountsSetActive { .. } => 5,
        C::AccountsSetPassword { .. } => 6,
        C::PairingStart { .. } => 7,
        C::AuditVerify {} => 8,
        C::OwnershipTransfer { .. } => 9,
        C::PublisherAssign { .. } => 10,
        C::DynatraceStatus {} => 11,
        C::DynatraceConfigure { .. } => 12,
        C::DynatraceSetToken { .. } => 13,
        C::DynatraceRemoveToken {} => 14,
        C::DynatraceTestConnection {} => 15,
        // The `wiki.*` commands have their own table in `wiki::command::tests`.
        C::Wiki(_) => usize::MAX,
    }
}

fn parse(name: &str, payload: Value) -> Result<PrivilegedCommand, CommandParseError> {
    PrivilegedCommand::parse(name, &payload)
}

#[test]
fn every_command_parses_from_its_canonical_json() {
    let cases = canonical();
    assert_eq!(
        cases.iter().map(|(n, _)| *n).collect::<Vec<_>>(),
        PrivilegedCommand::NAMES,
        "one canonical payload per name, in order"
    );
    let parsed: Vec<PrivilegedCommand> = cases.iter().map(|(n, p)| PrivilegedCommand::parse(n, p).unwrap()).collect();
    let expected = vec![
        C::PrivilegedProbe { note: None },
        C::AdminSnapshot {},
        C::DevicesRevoke { device_id: "dev000000000001".into() },
        C::AccountsCreate { username: "pat".into(), display_name: "Pat".into(), kind: AccountKind::Publisher },
        C::AccountsRename { account_id: "acct00000000001".into(), display_name: "Ryan B.".into() },
        C::AccountsSetActive { account_id: "acct00000000001".into(), active: false },
        C::AccountsSetPassword {
            account_id: "publ00000000001".into(),
            password: crate::control::SecretText("a long enough password".into()),
        },
        C::PairingStart { account_id: "publ00000000001".into(), label: "NOC laptop 3".into() },
        C::AuditVerify {},
        C::OwnershipTransfer { account_id: "acct00000000002".into(), reauth_proof: Some("proof-1".into()) },
        C::PublisherAssign { account_id: Some("publ00000000001".into()), reauth_proof: Some("proof-2".into()) },
        C::DynatraceStatus {},
        C::DynatraceConfigure {
            environment_url: Some("https://abc12345.apps.dynatrace.com".into()),
            alerting_profiles: vec!["NOC".into()],
            matcher: None,
            workflow_id: None,
            follow_workflow: false,
            workflow_task: None,
        },
        C::DynatraceSetToken { token: crate::control::SecretText("dt0s16.SAMPLE.TOKENVALUE".into()) },
        C::DynatraceRemoveToken {},
        C::DynatraceTestConnection {},
    ];
    assert_eq!(parsed, expected);
}

#[test]
fn every_variant_has_a_name_capability_and_canonical_payload() {
    let all: Vec<PrivilegedCommand> = PrivilegedCommand::NAMES.iter().map(|n| example(n)).collect();
    let indices: Vec<usize> = all.iter().map(index).collect();
    assert_eq!(indices, (0..PrivilegedCommand::NAMES.len()).collect::<Vec<_>>(), "every variant is covered once");
    for c in &all {
        assert!(PrivilegedCommand::is_known(c.name()));
        assert_eq!(PrivilegedCommand::NAMES[index(c)], c.name(), "NAMES is in declaration order");
        // The serde tag and name() agree, and serializing then parsing gives the same command.
        let wire = serde_json::to_value(c).unwrap();
        assert_eq!(wire["command"], json!(c.name()));
        assert_eq!(&PrivilegedCommand::parse(c.name(), &wire["payload"]).unwrap(), c, "{}", c.name());
        // The capability is one a role can hold; the Owner holds every one.
        assert!(crate::roles::has_capability(crate::roles::Role::Owner, c.capability()), "{}", c.name());
        assert_eq!(c.needs_authority_revision(), c.reauth_proof().is_some(), "{}", c.name());
    }
}

#[test]
fn capabilities_authority_and_targets() {
    use Capability::*;
    let caps: Vec<Capability> = PrivilegedCommand::NAMES.iter().map(|n| example(n).capability()).collect();
    assert_eq!(
        caps,
        [
            Probe,
            AdminSnapshot,
            DevicesManage,
            PublisherManage,
            PublisherManage,
            PublisherManage,
            PublisherManage,
            DevicesManage,
            AdminSnapshot,
            OwnershipTransfer,
            PublisherManage,
            DynatraceManage,
            DynatraceManage,
            DynatraceManage,
            DynatraceManage,
            DynatraceManage
        ]
    );
    let dynatrace_revision: Vec<&str> =
        PrivilegedCommand::NAMES.iter().copied().filter(|n| example(n).needs_dynatrace_revision()).collect();
    assert_eq!(dynatrace_revision, ["dynatrace.configure", "dynatrace.setToken", "dynatrace.removeToken"]);
    let authority: Vec<&str> =
        PrivilegedCommand::NAMES.iter().copied().filter(|n| example(n).needs_authority_revision()).collect();
    assert_eq!(authority, ["ownership.transfer", "publisher.assign"]);

    assert_eq!(example("privileged.probe").target(), CommandTarget::None);
    assert_eq!(example("admin.snapshot").target(), CommandTarget::None);
    assert_eq!(example("devices.revoke").target(), CommandTarget::DeviceOwner("dev000000000001"));
    assert_eq!(
        example("accounts.create").target(),
        CommandTarget::NewAccount { username: "pat", display_name: "Pat", kind: AccountKind::Publisher }
    );
    assert_eq!(example("accounts.rename").target_account_id(), Some("acct00000000001"));
    assert_eq!(example("accounts.setActive").target_account_id(), Some("acct00000000001"));
    assert_eq!(example("ownership.transfer").target_account_id(), Some("acct00000000002"));
    assert_eq!(example("publisher.assign").target_account_id(), Some("publ00000000001"));
    assert_eq!(example("devices.revoke").target_account_id(), None, "a device's owner needs a lookup");

    // Clearing the Publisher: accountId null or absent; the proof is optional (server-local).
    for payload in [json!({"accountId": null}), json!({})] {
        let c = parse("publisher.assign", payload).unwrap();
        assert_eq!(c, C::PublisherAssign { account_id: None, reauth_proof: None });
        assert_eq!((c.target(), c.reauth_proof()), (CommandTarget::None, None));
    }
    let probe = parse("privileged.probe", json!({"note": "n"})).unwrap();
    assert_eq!(probe, C::PrivilegedProbe { note: Some("n".into()) });
}

#[test]
fn unknown_commands_are_refused_including_wiki_names_without_a_variant() {
    for name in [
        "wiki.purge",
        "wiki.upload.chunks",
        "privileged.reauth.confirm",
        "settings.set",
        "accounts.delete",
        "wiki",
        "wiki.",
        "Admin.snapshot",
        "admin.snapshot ",
        "",
    ] {
        assert_eq!(parse(name, json!({})), Err(CommandParseError::UnknownCommand), "{name:?}");
        assert!(!PrivilegedCommand::is_known(name), "{name:?}");
    }
    // The name is checked before the payload.
    assert_eq!(parse("wiki.purge", json!("not an object")), Err(CommandParseError::UnknownCommand));
    assert_eq!(parse("wiki.publish", json!("not an object")), Err(CommandParseError::NotAnObject));
    assert_eq!(CommandParseError::UnknownCommand.code(), "unknown_command");
}

#[test]
fn wrong_payload_types_are_refused() {
    let cases = [
        ("accounts.setActive", json!({"accountId": "acct00000000001", "active": "yes"})),
        ("accounts.setActive", json!({"accountId": 7, "active": true})),
        ("accounts.create", json!({"username": "pat", "displayName": "Pat", "kind": "owner"})),
        ("accounts.create", json!({"username": "pat", "displayName": "Pat", "kind": "Publisher"})),
        ("accounts.rename", json!({"accountId": "acct00000000001", "displayName": ["Pat"]})),
        ("devices.revoke", json!({"deviceId": null})),
        ("publisher.assign", json!({"accountId": 5})),
        ("ownership.transfer", json!({"accountId": "acct00000000002", "reauthProof": 1})),
        ("privileged.probe", json!({"note": {}})),
    ];
    for (name, payload) in cases {
        let err = parse(name, payload.clone()).unwrap_err();
        assert_eq!(err, CommandParseError::InvalidField, "{name} {payload}");
        assert!(!err.to_string().contains("yes") && !err.to_string().contains("owner"), "no echo: {err}");
    }
    for payload in [json!("x"), json!([]), json!(null), json!(1)] {
        assert_eq!(parse("admin.snapshot", payload), Err(CommandParseError::NotAnObject));
    }
    assert_eq!(CommandParseError::InvalidField.code(), "invalid_field");
    assert_eq!(CommandParseError::NotAnObject.code(), "payload_not_object");
}

#[test]
fn missing_fields_are_refused_by_name() {
    let cases = [
        ("devices.revoke", json!({}), "deviceId"),
        ("accounts.create", json!({"displayName": "Pat", "kind": "publisher"}), "username"),
        ("accounts.create", json!({"username": "pat", "kind": "publisher"}), "displayName"),
        ("accounts.create", json!({"username": "pat", "displayName": "Pat"}), "kind"),
        ("accounts.rename", json!({"displayName": "Pat"}), "accountId"),
        ("accounts.rename", json!({"accountId": "acct00000000001"}), "displayName"),
        ("accounts.setActive", json!({"accountId": "acct00000000001"}), "active"),
        ("accounts.setActive", json!({"active": true}), "accountId"),
        ("ownership.transfer", json!({"reauthProof": "p"}), "accountId"),
    ];
    for (name, payload, field) in cases {
        let err = parse(name, payload).unwrap_err();
        assert_eq!(err, CommandParseError::MissingField(field), "{name}");
        assert_eq!(err.to_string(), format!("payload.{field} is required"));
        assert_eq!(err.code(), "missing_field");
    }
}

#[test]
fn extra_fields_are_refused_for_every_command() {
    for (name, mut payload) in canonical() {
        payload["secretExtra"] = json!("value-7731");
        let err = parse(name, payload).unwrap_err();
        assert_eq!(err, CommandParseError::UnknownField, "{name}");
        assert!(!err.to_string().contains("secretExtra"), "the field name is not echoed: {err}");
        assert_eq!(err.code(), "unknown_field");
    }
    // A proof only belongs to authority commands.
    let err = parse("accounts.rename", json!({"accountId": "a", "displayName": "b", "reauthProof": "p"}));
    assert_eq!(err, Err(CommandParseError::UnknownField));
    // Field names are exact (camelCase), so snake_case spellings are extra fields.
    assert_eq!(parse("devices.revoke", json!({"device_id": "d"})), Err(CommandParseError::UnknownField));
}

#[test]
fn every_payload_field_is_listed_for_missing_field_errors() {
    let mut seen = std::collections::BTreeSet::new();
    for (_, payload) in canonical() {
        seen.extend(payload.as_object().unwrap().keys().cloned());
    }
    seen.insert("note".into());
    let listed: std::collections::BTreeSet<String> = PAYLOAD_FIELDS.iter().map(|f| f.to_string()).collect();
    assert_eq!(seen, listed);
}

#[test]
fn passwords_in_commands_never_reach_debug_output_and_local_only_commands_are_marked() {
    let set = example("accounts.setPassword");
    assert!(!format!("{set:?}").contains("a long enough password"), "{set:?}");
    let local: Vec<&str> = PrivilegedCommand::NAMES.iter().copied().filter(|n| example(n).local_only()).collect();
    assert_eq!(local, vec!["accounts.setPassword", "pairing.start"]);
    let fresh: Vec<&str> =
        PrivilegedCommand::NAMES.iter().copied().filter(|n| example(n).needs_fresh_password()).collect();
    assert_eq!(fresh, vec!["accounts.setPassword", "ownership.transfer", "publisher.assign"]);
}

#[test]
fn only_reads_run_from_a_browser_among_the_non_wiki_commands() {
    // The `wiki.*` side (all but the chunk claim) is in `wiki::command::tests`.
    let web: Vec<&str> = PrivilegedCommand::NAMES.iter().copied().filter(|n| example(n).on_the_web()).collect();
    assert_eq!(web, vec!["privileged.probe", "admin.snapshot", "audit.verify", "dynatrace.status"]);
    assert!(!example("accounts.setPassword").on_the_web() && !example("pairing.start").on_the_web());
}

/// A command's wire form: `{"command": name, "payload": {..}}` (a `wiki.*` command's own serde
/// form; the `Wiki` variant itself is never serialized).
fn wire(c: &PrivilegedCommand) -> Value {
    match c {
        C::Wiki(wiki) => serde_json::to_value(wiki).unwrap(),
        other => serde_json::to_value(other).unwrap(),
    }
}

#[test]
fn every_command_has_exactly_one_row_and_its_wire_name_round_trips() {
    let payloads = canonical().into_iter().chain(crate::wiki::command::tests::canonical());
    let commands: Vec<PrivilegedCommand> = payloads.map(|(n, p)| PrivilegedCommand::parse(n, &p).unwrap()).collect();
    let rows: Vec<&CommandSpec> = PrivilegedCommand::all_specs().collect();
    assert_eq!(rows.len(), commands.len(), "one row per command, and a canonical payload per row");
    for (command, row) in commands.iter().zip(&rows) {
        let name = row.name;
        assert_eq!(command.spec(), *row, "{name}: the variant finds its row, in registration order");
        assert_eq!(rows.iter().filter(|r| r.name == name).count(), 1, "{name}: exactly one row");
        assert!(PrivilegedCommand::is_known(name), "{name}");
        // The row's name is the serde tag, and the wire form parses back to the same command.
        let wire = wire(command);
        assert_eq!(wire["command"], json!(name));
        assert_eq!(&PrivilegedCommand::parse(name, &wire["payload"]).unwrap(), command, "{name}");
        // A command that needs a fresh password from a laptop has a place for the proof.
        if row.fresh_password && !row.local_only {
            assert!(command.reauth_proof().is_some(), "{name}: the canonical payload carries a proof");
        }
        if row.revision == Revision::Authority {
            assert!(row.fresh_password, "{name}: authority commands need a fresh password");
        }
    }
    let names: Vec<&str> = PrivilegedCommand::all_names().collect();
    assert_eq!(names, rows.iter().map(|r| r.name).collect::<Vec<_>>(), "the allowlists are the rows' names");
    assert_eq!(PrivilegedCommand::NAMES.len() + WikiCommand::NAMES.len(), rows.len());
}
