//! Typed privileged commands: the one place where a command name and its JSON payload become a
//! [`PrivilegedCommand`], and where each command's properties are kept. Parsing happens once,
//! after the envelope is verified (or, on the server PC, after the local session is checked),
//! and everything downstream (`policy::authorize`, the handlers in
//! `actors::privileged::commands`, `relay admin`) matches on the enum exhaustively. The enum is
//! the only allowlist: a name without a variant is an unknown command, and each payload is
//! strict (unknown, missing and mistyped fields are refused). Every property of one command
//! (name, capability, where it may run, which revision it checks, whether it needs a fresh
//! password) is one row ([`CommandSpec`]) of the registration list [`PrivilegedCommand::SPECS`]
//! (the `wiki.*` rows are `WikiCommand::SPECS`), and [`PrivilegedCommand::spec`] is the one
//! `match` from a variant to its row. The owner-only rules beside the rows are [`policy`]. This
//! module does not touch the envelope's canonical bytes (the envelope still carries `command` and
//! `payload` as signed).
//!
//! # Adding a command (for example `wiki.publish`)
//!
//! 1. Add one variant here, with its payload fields and
//!    `#[serde(rename = "wiki.publish")]`; add its row to `row` and to [`PrivilegedCommand::SPECS`]
//!    and its arm to [`PrivilegedCommand::spec`] (and to `target` when it acts on an account; the
//!    compiler lists every `match` that needs it).
//! 2. Add one arm to `policy::authorize` and one to `actors::privileged::commands::run`.
//! 3. Add its canonical payload to `privileged_command_tests::canonical`; the round-trip tests
//!    then check its row, name, capability and parsing.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::control::SecretText;
use crate::roles::{AccountKind, Capability};
use crate::wiki::command::WikiCommand;

pub mod policy;
pub mod spec;

pub use policy::authorize;
pub use spec::{CommandSpec, Revision};

/// One allowlisted privileged command with its typed payload. The serde form is adjacently
/// tagged, `{"command": "<name>", "payload": {..}}`, with camelCase payload fields; use
/// [`PrivilegedCommand::parse`] rather than deserializing directly, so unknown names and
/// malformed payloads get a typed [`CommandParseError`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "command", content = "payload", deny_unknown_fields, rename_all_fields = "camelCase")]
pub enum PrivilegedCommand {
    /// `privileged.probe`: reports the caller's derived role. `note` is an optional caller tag
    /// that is ignored and never stored.
    #[serde(rename = "privileged.probe")]
    PrivilegedProbe {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        note: Option<String>,
    },
    /// `admin.snapshot`: accounts, devices and the authority record, without secrets.
    #[serde(rename = "admin.snapshot")]
    AdminSnapshot {},
    /// `devices.revoke`: revokes one paired device.
    #[serde(rename = "devices.revoke")]
    DevicesRevoke { device_id: String },
    /// `accounts.create`: a new inactive account without a credential.
    #[serde(rename = "accounts.create")]
    AccountsCreate { username: String, display_name: String, kind: AccountKind },
    /// `accounts.rename`: changes an account's display name.
    #[serde(rename = "accounts.rename")]
    AccountsRename { account_id: String, display_name: String },
    /// `accounts.setActive`: activates or deactivates an account (deactivation revokes its
    /// devices).
    #[serde(rename = "accounts.setActive")]
    AccountsSetActive { account_id: String, active: bool },
    /// `ownership.transfer`: makes another active Administrator the Owner. Authority command.
    #[serde(rename = "ownership.transfer")]
    OwnershipTransfer {
        account_id: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        reauth_proof: Option<String>,
    },
    /// `accounts.setPassword`: sets or resets an account's password and revokes its devices.
    /// Server-local only (never in a signed envelope); needs a fresh local password.
    #[serde(rename = "accounts.setPassword")]
    AccountsSetPassword { account_id: String, password: SecretText },
    /// `pairing.start`: a one-time pairing code (10 minutes) for a laptop of this account.
    /// Server-local only.
    #[serde(rename = "pairing.start")]
    PairingStart { account_id: String, label: String },
    /// `audit.verify`: checks the hash chain of the audit log.
    #[serde(rename = "audit.verify")]
    AuditVerify {},
    /// `publisher.assign`: assigns (or, with `accountId` null or absent, clears) the Publisher.
    /// Authority command.
    #[serde(rename = "publisher.assign")]
    PublisherAssign {
        #[serde(default)]
        account_id: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        reauth_proof: Option<String>,
    },
    /// `dynatrace.status`: the Dynatrace configuration without the token (only whether one is
    /// configured) and its revision.
    #[serde(rename = "dynatrace.status")]
    DynatraceStatus {},
    /// `dynatrace.configure`: environment URL, scope (alerting profiles or a custom matcher) and
    /// optional workflow id. Revision-checked; changing the environment removes the token.
    #[serde(rename = "dynatrace.configure")]
    DynatraceConfigure {
        environment_url: Option<String>,
        #[serde(default)]
        alerting_profiles: Vec<String>,
        #[serde(default)]
        matcher: Option<String>,
        #[serde(default)]
        workflow_id: Option<String>,
        /// Take the scope from the workflow's DQL query task ("follow workflow DQL").
        #[serde(default)]
        follow_workflow: bool,
        /// The workflow's DQL query task to follow (none: its only one).
        #[serde(default)]
        workflow_task: Option<String>,
    },
    /// `dynatrace.setToken`: replaces the platform token (kept in the secret store, never
    /// returned). Revision-checked.
    #[serde(rename = "dynatrace.setToken")]
    DynatraceSetToken { token: SecretText },
    /// `dynatrace.removeToken`: forgets the platform token. Revision-checked.
    #[serde(rename = "dynatrace.removeToken")]
    DynatraceRemoveToken {},
    /// `dynatrace.testConnection`: one bounded query with the stored URL and token.
    #[serde(rename = "dynatrace.testConnection")]
    DynatraceTestConnection {},
    /// `wiki.*`: the Wiki library's commands ([`WikiCommand`], parsed by its own strict serde
    /// form; this variant is never (de)serialized itself).
    #[serde(skip)]
    Wiki(WikiCommand),
}

/// The account a command acts on, before any record is loaded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CommandTarget<'a> {
    /// No account (the probe, the snapshot, clearing the Publisher).
    None,
    /// An existing account, by id.
    Account(&'a str),
    /// The account that owns this device (by device id).
    DeviceOwner(&'a str),
    /// The proposed record of `accounts.create`.
    NewAccount { username: &'a str, display_name: &'a str, kind: AccountKind },
}

/// Why a command name and payload were refused. Messages never echo submitted values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum CommandParseError {
    #[error("unknown command")]
    UnknownCommand,
    #[error("payload must be a JSON object")]
    NotAnObject,
    #[error("payload.{0} is required")]
    MissingField(&'static str),
    #[error("payload has a field this command does not take")]
    UnknownField,
    #[error("a payload field has the wrong type or value")]
    InvalidField,
}

impl CommandParseError {
    /// Stable machine-readable code.
    pub fn code(&self) -> &'static str {
        match self {
            CommandParseError::UnknownCommand => "unknown_command",
            CommandParseError::NotAnObject => "payload_not_object",
            CommandParseError::MissingField(_) => "missing_field",
            CommandParseError::UnknownField => "unknown_field",
            CommandParseError::InvalidField => "invalid_field",
        }
    }
}

/// Every payload field name of every command, so a serde "missing field" message maps back to
/// a `&'static str` without echoing anything the caller sent.
const PAYLOAD_FIELDS: &[&str] = &[
    "note",
    "deviceId",
    "username",
    "displayName",
    "kind",
    "accountId",
    "active",
    "reauthProof",
    "password",
    "label",
    "environmentUrl",
    "alertingProfiles",
    "matcher",
    "workflowId",
    "token",
];

/// One row per command: every property of the command together.
mod row {
    use super::spec::{CommandSpec, Revision};
    use crate::roles::Capability as Cap;

    pub const PROBE: CommandSpec = CommandSpec::new("privileged.probe", Cap::Probe).on_the_web();
    pub const ADMIN_SNAPSHOT: CommandSpec = CommandSpec::new("admin.snapshot", Cap::AdminSnapshot).on_the_web();
    pub const DEVICES_REVOKE: CommandSpec = CommandSpec::new("devices.revoke", Cap::DevicesManage);
    // The account commands need `PublisherManage` at least; `policy::authorize` also requires
    // `AccountsManage` when the target is an Administrator-kind account.
    pub const ACCOUNTS_CREATE: CommandSpec = CommandSpec::new("accounts.create", Cap::PublisherManage);
    pub const ACCOUNTS_RENAME: CommandSpec = CommandSpec::new("accounts.rename", Cap::PublisherManage);
    pub const ACCOUNTS_SET_ACTIVE: CommandSpec = CommandSpec::new("accounts.setActive", Cap::PublisherManage);
    pub const ACCOUNTS_SET_PASSWORD: CommandSpec =
        CommandSpec::new("accounts.setPassword", Cap::PublisherManage).local_only().fresh_password();
    pub const PAIRING_START: CommandSpec = CommandSpec::new("pairing.start", Cap::DevicesManage).local_only();
    pub const AUDIT_VERIFY: CommandSpec = CommandSpec::new("audit.verify", Cap::AdminSnapshot).on_the_web();
    pub const OWNERSHIP_TRANSFER: CommandSpec =
        CommandSpec::new("ownership.transfer", Cap::OwnershipTransfer).revision(Revision::Authority).fresh_password();
    pub const PUBLISHER_ASSIGN: CommandSpec =
        CommandSpec::new("publisher.assign", Cap::PublisherManage).revision(Revision::Authority).fresh_password();
    pub const DYNATRACE_STATUS: CommandSpec = CommandSpec::new("dynatrace.status", Cap::DynatraceManage).on_the_web();
    pub const DYNATRACE_CONFIGURE: CommandSpec =
        CommandSpec::new("dynatrace.configure", Cap::DynatraceManage).revision(Revision::Dynatrace);
    pub const DYNATRACE_SET_TOKEN: CommandSpec =
        CommandSpec::new("dynatrace.setToken", Cap::DynatraceManage).revision(Revision::Dynatrace);
    pub const DYNATRACE_REMOVE_TOKEN: CommandSpec =
        CommandSpec::new("dynatrace.removeToken", Cap::DynatraceManage).revision(Revision::Dynatrace);
    pub const DYNATRACE_TEST_CONNECTION: CommandSpec =
        CommandSpec::new("dynatrace.testConnection", Cap::DynatraceManage);

    /// The registration list, in the order of `PrivilegedCommand::NAMES`.
    pub const ALL: [CommandSpec; 16] = [
        PROBE,
        ADMIN_SNAPSHOT,
        DEVICES_REVOKE,
        ACCOUNTS_CREATE,
        ACCOUNTS_RENAME,
        ACCOUNTS_SET_ACTIVE,
        ACCOUNTS_SET_PASSWORD,
        PAIRING_START,
        AUDIT_VERIFY,
        OWNERSHIP_TRANSFER,
        PUBLISHER_ASSIGN,
        DYNATRACE_STATUS,
        DYNATRACE_CONFIGURE,
        DYNATRACE_SET_TOKEN,
        DYNATRACE_REMOVE_TOKEN,
        DYNATRACE_TEST_CONNECTION,
    ];
}

impl PrivilegedCommand {
    /// The registration list: one row per command but the `wiki.*` ones (those are
    /// [`WikiCommand::SPECS`]).
    pub const SPECS: &'static [CommandSpec] = &row::ALL;

    /// The allowlist: every command name but the `wiki.*` ones, in [`Self::SPECS`] order.
    pub const NAMES: &'static [&'static str] = &spec::names(row::ALL);

    /// Every row: [`Self::SPECS`] then [`WikiCommand::SPECS`].
    pub fn all_specs() -> impl Iterator<Item = &'static CommandSpec> {
        Self::SPECS.iter().chain(WikiCommand::SPECS)
    }

    /// True when `name` has a variant.
    pub fn is_known(name: &str) -> bool {
        Self::NAMES.contains(&name) || WikiCommand::NAMES.contains(&name)
    }

    /// Every command name: [`Self::NAMES`] then the `wiki.*` names.
    pub fn all_names() -> impl Iterator<Item = &'static str> {
        Self::NAMES.iter().chain(WikiCommand::NAMES).copied()
    }

    /// Parses a command name and its payload (a JSON object). Unknown names are refused before
    /// the payload is looked at.
    pub fn parse(name: &str, payload: &Value) -> Result<PrivilegedCommand, CommandParseError> {
        if !Self::is_known(name) {
            return Err(CommandParseError::UnknownCommand);
        }
        if !payload.is_object() {
            return Err(CommandParseError::NotAnObject);
        }
        let tagged = serde_json::json!({ "command": name, "payload": payload });
        if WikiCommand::NAMES.contains(&name) {
            return serde_json::from_value(tagged)
                .map(PrivilegedCommand::Wiki)
                .map_err(|e| classify(&e, WikiCommand::PAYLOAD_FIELDS));
        }
        serde_json::from_value(tagged).map_err(|e| classify(&e, PAYLOAD_FIELDS))
    }

    /// The command's row: every property of it together. The one `match` from a variant to
    /// its properties.
    pub fn spec(&self) -> &'static CommandSpec {
        use PrivilegedCommand as C;
        match self {
            C::PrivilegedProbe { .. } => &row::PROBE,
            C::AdminSnapshot {} => &row::ADMIN_SNAPSHOT,
            C::DevicesRevoke { .. } => &row::DEVICES_REVOKE,
            C::AccountsCreate { .. } => &row::ACCOUNTS_CREATE,
            C::AccountsRename { .. } => &row::ACCOUNTS_RENAME,
            C::AccountsSetActive { .. } => &row::ACCOUNTS_SET_ACTIVE,
            C::OwnershipTransfer { .. } => &row::OWNERSHIP_TRANSFER,
            C::AccountsSetPassword { .. } => &row::ACCOUNTS_SET_PASSWORD,
            C::PairingStart { .. } => &row::PAIRING_START,
            C::AuditVerify {} => &row::AUDIT_VERIFY,
            C::PublisherAssign { .. } => &row::PUBLISHER_ASSIGN,
            C::DynatraceStatus {} => &row::DYNATRACE_STATUS,
            C::DynatraceConfigure { .. } => &row::DYNATRACE_CONFIGURE,
            C::DynatraceSetToken { .. } => &row::DYNATRACE_SET_TOKEN,
            C::DynatraceRemoveToken {} => &row::DYNATRACE_REMOVE_TOKEN,
            C::DynatraceTestConnection {} => &row::DYNATRACE_TEST_CONNECTION,
            C::Wiki(wiki) => wiki.spec(),
        }
    }

    /// The canonical (wire) name.
    pub fn name(&self) -> &'static str {
        self.spec().name
    }

    /// The capability every use of the command needs (see [`CommandSpec::capability`]).
    pub fn capability(&self) -> Capability {
        self.spec().capability
    }

    /// Authority commands change who holds authority: they need the current authority revision
    /// and a fresh password proof ([`Self::reauth_proof`]).
    pub fn needs_authority_revision(&self) -> bool {
        self.spec().revision == Revision::Authority
    }

    /// Commands that change the Dynatrace configuration: the expected revision they carry is the
    /// configuration's revision (not the authority's), and it is required.
    pub fn needs_dynatrace_revision(&self) -> bool {
        self.spec().revision == Revision::Dynatrace
    }

    /// The fresh-password proof a command from a laptop carries, if any (only commands whose
    /// row needs a fresh password have the field).
    pub fn reauth_proof(&self) -> Option<&str> {
        use PrivilegedCommand as C;
        match self {
            C::OwnershipTransfer { reauth_proof, .. } | C::PublisherAssign { reauth_proof, .. } => {
                reauth_proof.as_deref()
            }
            C::Wiki(wiki) => wiki.reauth_proof(),
            _ => None,
        }
    }

    /// Commands that exist only on the server PC's local session: a signed envelope naming one
    /// is refused (a password never travels in an envelope; pairing codes are issued where the
    /// Owner or an Administrator sits).
    pub fn local_only(&self) -> bool {
        self.spec().local_only
    }

    /// Commands a browser may run through Relay Web's server-mediated protected session: the
    /// reads an Owner or Administrator needs (the snapshot, the audit check, Dynatrace's status)
    /// and the Wiki library's commands for publishing. Account, device, pairing, authority and
    /// Dynatrace-settings commands stay on the server PC and paired laptops; a Wiki chunk's claim
    /// is never a command of its own on the web (the gateway's chunk route authorizes the
    /// session instead).
    pub fn on_the_web(&self) -> bool {
        self.spec().on_the_web
    }

    /// Commands that need a fresh password: the authority commands, password changes and
    /// deleting a Wiki document.
    pub fn needs_fresh_password(&self) -> bool {
        self.spec().fresh_password
    }

    /// The account the command acts on.
    pub fn target(&self) -> CommandTarget<'_> {
        use PrivilegedCommand as C;
        match self {
            C::PrivilegedProbe { .. }
            | C::AdminSnapshot {}
            | C::AuditVerify {}
            | C::DynatraceStatus {}
            | C::DynatraceConfigure { .. }
            | C::DynatraceSetToken { .. }
            | C::DynatraceRemoveToken {}
            | C::DynatraceTestConnection {}
            | C::Wiki(_) => CommandTarget::None,
            C::DevicesRevoke { device_id } => CommandTarget::DeviceOwner(device_id),
            C::AccountsCreate { username, display_name, kind } => {
                CommandTarget::NewAccount { username, display_name, kind: *kind }
            }
            C::AccountsRename { account_id, .. }
            | C::AccountsSetActive { account_id, .. }
            | C::AccountsSetPassword { account_id, .. }
            | C::PairingStart { account_id, .. }
            | C::OwnershipTransfer { account_id, .. } => CommandTarget::Account(account_id),
            C::PublisherAssign { account_id, .. } => match account_id {
                Some(id) => CommandTarget::Account(id),
                None => CommandTarget::None,
            },
        }
    }

    /// The id of the existing account the command acts on, if any (not a device's owner,
    /// which needs a lookup, nor a proposed account).
    pub fn target_account_id(&self) -> Option<&str> {
        match self.target() {
            CommandTarget::Account(id) => Some(id),
            CommandTarget::None | CommandTarget::DeviceOwner(_) | CommandTarget::NewAccount { .. } => None,
        }
    }
}

/// Maps serde's messages (written by `serde::de::Error`'s default methods) to typed errors,
/// without keeping anything from the message that the caller supplied.
fn classify(e: &serde_json::Error, fields: &[&'static str]) -> CommandParseError {
    let msg = e.to_string();
    if let Some(rest) = msg.strip_prefix("missing field `") {
        let field = rest.split('`').next().unwrap_or_default();
        return match fields.iter().find(|f| **f == field) {
            Some(f) => CommandParseError::MissingField(f),
            None => CommandParseError::InvalidField,
        };
    }
    if msg.starts_with("unknown field `") {
        return CommandParseError::UnknownField;
    }
    CommandParseError::InvalidField
}

#[cfg(test)]
#[path = "privileged_command_tests.rs"]
pub(crate) mod tests;
