//! The server-local control channel's wire vocabulary: the typed requests `relay admin` (and,
//! later, `relay backup`) send to a running server over the Unix domain socket in its data
//! directory, the replies, and the channel's bounds. One request and one reply per connection,
//! each a single line of JSON. Parsing is strict (unknown operations and unknown fields are
//! refused) and secrets inside requests never appear in `Debug` output. No IO here: the
//! listener lives in `actors::control`, the socket file rules in `infra::control_socket`.

use std::fmt;

use serde::{Deserialize, Serialize};

/// File name of the control socket inside the data directory.
pub const SOCKET_FILE: &str = "control.sock";
/// Version of the line protocol; a server refuses any other.
pub const PROTOCOL_VERSION: u32 = 1;
/// Largest request line a server reads (a request is a few hundred bytes).
pub const MAX_REQUEST_BYTES: usize = 16 * 1024;
/// Largest reply line a client reads (an account list of a few hundred accounts).
pub const MAX_REPLY_BYTES: usize = 1024 * 1024;
/// How long either side waits for the other's line.
pub const IO_DEADLINE_MS: u64 = 10_000;
/// How long a client waits for the reply to a long operation (a backup create or verify runs
/// while the client waits; the server bounds each step itself).
pub const LONG_OPERATION_DEADLINE_MS: u64 = 2 * 60 * 60 * 1000;
/// Connections a server handles at once; further ones are closed at accept.
pub const MAX_CONNECTIONS: usize = 8;

/// A password or other secret carried in a request: serialized as is, never shown by `Debug`.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct SecretText(pub String);

impl fmt::Debug for SecretText {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("SecretText(<redacted>)")
    }
}

impl SecretText {
    pub fn expose(&self) -> &str {
        &self.0
    }
}

/// Server-local administration of protected accounts (`relay admin ...`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "camelCase", deny_unknown_fields)]
pub enum AdminOp {
    /// Protected accounts with their effective roles. (Struct variants throughout, so extra
    /// fields are refused: serde ignores them on unit variants of internally tagged enums.)
    List {},
    /// Set or reset a password; revokes the account's paired devices.
    SetPassword { username: String, password: SecretText },
    /// Activate or deactivate an account.
    SetActive { username: String, active: bool },
    /// Start pairing a laptop for `target`, authorised by `actor`'s password.
    PairDevice { actor: String, password: SecretText, target: String, label: String },
    /// Revoke a paired device, authorised by `actor`'s password.
    RevokeDevice { actor: String, password: SecretText, device: String },
    /// Verify the hash-chained audit log.
    VerifyAudit {},
    /// Create an account (inactive, no password), authorised by `actor`'s password: the Owner
    /// creates Administrators, the Owner or an Administrator the Publisher account.
    CreateAccount {
        actor: String,
        password: SecretText,
        username: String,
        display_name: String,
        kind: crate::roles::AccountKind,
    },
    /// Make `username` the Publisher, authorised by `actor`'s password; the previous Publisher's
    /// devices are revoked.
    AssignPublisher { actor: String, password: SecretText, username: String },
}

/// One request over the control socket.
/// `relay backup ...`: server-local backup operations (never on HTTP).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "camelCase", deny_unknown_fields)]
pub enum BackupOp {
    Create {},
    Verify {
        name: String,
    },
    List {},
    Health {},
    /// Restore on the running server (the operator confirmed on the client side): verify the
    /// archive and a fresh safety backup, then the server restarts on the restored data.
    Restore {
        name: String,
    },
}

/// `relay branding ...`: set or remove the company and footer logos (server-local).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "camelCase", deny_unknown_fields)]
pub enum BrandingOp {
    /// Process and store the image file at `path` (absolute; the server reads at most 2 MiB).
    SetLogo {
        kind: crate::images::LogoKind,
        path: String,
    },
    RemoveLogo {
        kind: crate::images::LogoKind,
    },
}

/// `relay radar ...`: the server PC's Radar session (the cookie header of a signed-in CW
/// Dashboard session; travels only over the control socket, never logged).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "camelCase", deny_unknown_fields)]
pub enum RadarOp {
    SignIn { cookie: SecretText },
    SignOut {},
}

/// `relay dynatrace ...`: the Dynatrace settings through the typed `dynatrace.*` privileged
/// commands, authorised by an Owner's or Administrator's password, and an immediate sync.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "camelCase", deny_unknown_fields)]
pub enum DynatraceOp {
    /// One `dynatrace.*` command (`command` must name one) run as `actor`. A token travels in
    /// `token` (never inside `payload`, whose `Debug` would show it).
    Run {
        actor: String,
        password: SecretText,
        command: String,
        payload: serde_json::Value,
        token: Option<SecretText>,
        expected_revision: Option<i64>,
    },
    /// Sync now (joining a sync in flight) and report what it did.
    Sync {},
}

/// `relay wiki ...`: the Wiki library from the server PC.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "camelCase", rename_all_fields = "camelCase", deny_unknown_fields)]
pub enum WikiOp {
    /// One `wiki.*` command (`command` must name one) run as `actor`, whose password is
    /// checked behind the local sign-in budget and counts as fresh for this one command.
    Run { actor: String, password: SecretText, command: String, payload: serde_json::Value },
    /// Feed a PDF on the server PC (an absolute path the CLI resolved) into `actor`'s upload
    /// `uploadId`, opened by `wiki.upload.begin`; answers the upload's progress.
    Feed { actor: String, password: SecretText, upload_id: String, path: String },
}

/// How long a Wiki operation may take: a 50 MiB upload fed from disk plus its extraction
/// (60 s worker deadline).
pub const WIKI_DEADLINE_MS: u64 = 5 * 60_000;

/// How long a Dynatrace operation may take: one whole Grail query (60 s) plus its writes.
pub const DYNATRACE_DEADLINE_MS: u64 = 5 * 60_000;

/// How long a Radar operation may take: storing the session plus one read of the page (15 s).
pub const RADAR_DEADLINE_MS: u64 = 30_000;

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ControlRequest {
    pub version: u32,
    pub request: ControlOp,
}

/// What a request asks for.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", content = "body", rename_all = "camelCase", deny_unknown_fields)]
pub enum ControlOp {
    /// Liveness: the server answers with its version.
    Ping,
    Admin(AdminOp),
    Backup(BackupOp),
    Branding(BrandingOp),
    Radar(RadarOp),
    Dynatrace(DynatraceOp),
    Wiki(WikiOp),
}

impl ControlRequest {
    pub fn new(request: ControlOp) -> ControlRequest {
        ControlRequest { version: PROTOCOL_VERSION, request }
    }

    /// Strict parse of one request line: bounded, known version, known operation, no extra
    /// fields.
    pub fn parse(line: &[u8]) -> Result<ControlRequest, ControlError> {
        if line.len() > MAX_REQUEST_BYTES {
            return Err(ControlError::new(ControlErrorCode::TooLarge, "the request is too large"));
        }
        let request: ControlRequest = serde_json::from_slice(line).map_err(|_| {
            ControlError::new(ControlErrorCode::BadRequest, "the request is not a valid control request")
        })?;
        if request.version != PROTOCOL_VERSION {
            return Err(ControlError::new(ControlErrorCode::BadRequest, "unsupported control protocol version"));
        }
        Ok(request)
    }

    /// A short name for logs (never the payload).
    /// How long the client waits for this request's reply.
    pub fn reply_deadline_ms(&self) -> u64 {
        match &self.request {
            ControlOp::Backup(BackupOp::Create {} | BackupOp::Verify { .. } | BackupOp::Restore { .. }) => {
                LONG_OPERATION_DEADLINE_MS
            }
            ControlOp::Radar(_) => RADAR_DEADLINE_MS,
            ControlOp::Dynatrace(_) => DYNATRACE_DEADLINE_MS,
            ControlOp::Wiki(_) => WIKI_DEADLINE_MS,
            _ => IO_DEADLINE_MS,
        }
    }

    pub fn name(&self) -> &'static str {
        match &self.request {
            ControlOp::Ping => "ping",
            ControlOp::Admin(op) => match op {
                AdminOp::List {} => "admin.list",
                AdminOp::SetPassword { .. } => "admin.setPassword",
                AdminOp::SetActive { .. } => "admin.setActive",
                AdminOp::PairDevice { .. } => "admin.pairDevice",
                AdminOp::RevokeDevice { .. } => "admin.revokeDevice",
                AdminOp::VerifyAudit {} => "admin.verifyAudit",
                AdminOp::CreateAccount { .. } => "admin.createAccount",
                AdminOp::AssignPublisher { .. } => "admin.assignPublisher",
            },
            ControlOp::Backup(op) => match op {
                BackupOp::Create {} => "backup.create",
                BackupOp::Verify { .. } => "backup.verify",
                BackupOp::List {} => "backup.list",
                BackupOp::Health {} => "backup.health",
                BackupOp::Restore { .. } => "backup.restore",
            },
            ControlOp::Branding(op) => match op {
                BrandingOp::SetLogo { .. } => "branding.setLogo",
                BrandingOp::RemoveLogo { .. } => "branding.removeLogo",
            },
            ControlOp::Radar(op) => match op {
                RadarOp::SignIn { .. } => "radar.signIn",
                RadarOp::SignOut {} => "radar.signOut",
            },
            ControlOp::Dynatrace(op) => match op {
                DynatraceOp::Run { .. } => "dynatrace.run",
                DynatraceOp::Sync {} => "dynatrace.sync",
            },
            ControlOp::Wiki(WikiOp::Run { .. }) => "wiki.run",
            ControlOp::Wiki(WikiOp::Feed { .. }) => "wiki.feed",
        }
    }
}

/// One protected account as `relay admin list` shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AccountLine {
    pub id: String,
    pub username: String,
    pub kind: String,
    pub active: bool,
    pub role: Option<String>,
    pub credential_set: bool,
}

/// What an admin operation did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum AdminReply {
    Accounts {
        accounts: Vec<AccountLine>,
    },
    PasswordSet {
        username: String,
    },
    ActiveSet {
        username: String,
        active: bool,
    },
    PairingCode {
        target: String,
        code: SecretText,
        expires_ms: i64,
    },
    Revoked {
        result: serde_json::Value,
    },
    AuditVerified {
        entries: usize,
    },
    /// A typed privileged command's answer (account creation, Publisher assignment).
    Changed {
        result: serde_json::Value,
    },
}

/// A successful reply.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", content = "body", rename_all = "camelCase")]
pub enum ControlReply {
    Pong {
        version: String,
    },
    Admin(AdminReply),
    Backup(BackupReply),
    Branding(BrandingReply),
    Radar(RadarReply),
    /// The command's answer, or the sync summary.
    Dynatrace(serde_json::Value),
    /// The `wiki.*` command's answer.
    Wiki(serde_json::Value),
}

/// The Radar after a session change: the board's colour, whether it still asks for sign-in,
/// and the read's error, if any.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RadarReply {
    pub color: crate::radar::StatusColor,
    pub sign_in_required: bool,
    pub error: Option<String>,
}

/// What a branding operation did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum BrandingReply {
    LogoSet { logo: crate::images::LogoKind, width: u32, height: u32, bytes: usize },
    LogoRemoved { logo: crate::images::LogoKind },
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum BackupReply {
    Created {
        backup: crate::backup::status::CreatedBackup,
    },
    Verified {
        backup: crate::backup::status::VerifiedBackup,
    },
    Listed {
        archives: Vec<crate::backup::status::ArchiveListing>,
    },
    Status {
        status: Box<crate::backup::status::BackupStatus>,
    },
    /// The restore is verified and staged; the server is restarting onto it (poll `Health`
    /// for `lastRestore`).
    RestoreStaged {
        staged: crate::backup::status::RestoreStaged,
    },
}

/// Stable failure codes of the control channel.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ControlErrorCode {
    /// The peer is not the server's own user.
    PeerRefused,
    BadRequest,
    TooLarge,
    /// The operation was refused by the subsystem (the message says why).
    Refused,
    /// The subsystem is not available (restarting, shutting down).
    Unavailable,
    Internal,
}

/// A failed reply: a stable code and a message safe to print on the operator's terminal.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, thiserror::Error)]
#[error("{message}")]
pub struct ControlError {
    pub code: ControlErrorCode,
    pub message: String,
}

impl ControlError {
    pub fn new(code: ControlErrorCode, message: impl Into<String>) -> ControlError {
        ControlError { code, message: message.into() }
    }
}

/// The reply line: either the result or the error.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ControlResponse {
    pub result: Result<ControlReply, ControlError>,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(v: serde_json::Value) -> Vec<u8> {
        serde_json::to_vec(&v).unwrap()
    }

    #[test]
    fn requests_round_trip_and_parse_strictly() {
        let req = ControlRequest::new(ControlOp::Admin(AdminOp::SetPassword {
            username: "ryan".into(),
            password: SecretText("hunter2 hunter2".into()),
        }));
        let bytes = serde_json::to_vec(&req).unwrap();
        assert_eq!(ControlRequest::parse(&bytes).unwrap(), req);
        assert_eq!(req.name(), "admin.setPassword");
        let ping = line(serde_json::json!({"version": 1, "request": {"kind": "ping"}}));
        assert_eq!(ControlRequest::parse(&ping).unwrap().request, ControlOp::Ping);
    }

    #[test]
    fn unknown_operations_fields_and_versions_are_refused() {
        let cases = [
            serde_json::json!({"version": 1, "request": {"kind": "shell", "body": "rm -rf /"}}),
            serde_json::json!({"version": 1, "request": {"kind": "admin", "body": {"op": "dropTables"}}}),
            serde_json::json!({"version": 1, "request": {"kind": "admin", "body": {"op": "list", "extra": 1}}}),
            serde_json::json!({"version": 1, "request": {"kind": "ping"}, "sudo": true}),
            serde_json::json!({"version": 2, "request": {"kind": "ping"}}),
            serde_json::json!({"version": 1, "request": {"kind": "admin", "body": {"op": "setActive", "username": "x", "active": "yes"}}}),
        ];
        for case in cases {
            let err = ControlRequest::parse(&line(case.clone())).unwrap_err();
            assert_eq!(err.code, ControlErrorCode::BadRequest, "{case}");
        }
        let huge = vec![b' '; MAX_REQUEST_BYTES + 1];
        assert_eq!(ControlRequest::parse(&huge).unwrap_err().code, ControlErrorCode::TooLarge);
    }

    #[test]
    fn radar_operations_parse_strictly_and_never_show_the_cookie() {
        let sign_in = line(serde_json::json!({"version": 1, "request": {"kind": "radar",
            "body": {"op": "signIn", "cookie": "a=1"}}}));
        let parsed = ControlRequest::parse(&sign_in).unwrap();
        assert_eq!((parsed.name(), parsed.reply_deadline_ms()), ("radar.signIn", RADAR_DEADLINE_MS));
        assert!(!format!("{parsed:?}").contains("a=1"), "Debug redacts the cookie");
        for body in [
            serde_json::json!({"op": "signIn"}),
            serde_json::json!({"op": "signOut", "cookie": "a=1"}),
            serde_json::json!({"op": "signIn", "cookie": "a=1", "url": "https://evil.example/"}),
        ] {
            let bad = line(serde_json::json!({"version": 1, "request": {"kind": "radar", "body": body}}));
            assert_eq!(ControlRequest::parse(&bad).unwrap_err().code, ControlErrorCode::BadRequest);
        }
    }

    #[test]
    fn branding_operations_parse_strictly() {
        let set = line(serde_json::json!({"version": 1, "request": {"kind": "branding",
            "body": {"op": "setLogo", "kind": "footer", "path": "/tmp/logo.png"}}}));
        let parsed = ControlRequest::parse(&set).unwrap();
        assert_eq!(parsed.name(), "branding.setLogo");
        assert_eq!(
            parsed.request,
            ControlOp::Branding(BrandingOp::SetLogo {
                kind: crate::images::LogoKind::Footer,
                path: "/tmp/logo.png".into()
            })
        );
        for body in [
            serde_json::json!({"op": "setLogo", "kind": "header", "path": "/x"}),
            serde_json::json!({"op": "removeLogo", "kind": "company", "path": "/x"}),
        ] {
            let bad = line(serde_json::json!({"version": 1, "request": {"kind": "branding", "body": body}}));
            assert_eq!(ControlRequest::parse(&bad).unwrap_err().code, ControlErrorCode::BadRequest);
        }
        let reply = ControlReply::Branding(BrandingReply::LogoSet {
            logo: crate::images::LogoKind::Company,
            width: 400,
            height: 100,
            bytes: 1234,
        });
        let bytes = serde_json::to_vec(&reply).unwrap();
        assert_eq!(serde_json::from_slice::<ControlReply>(&bytes).unwrap(), reply);
    }

    #[test]
    fn secrets_never_show_in_debug_output() {
        let op = AdminOp::PairDevice {
            actor: "ryan".into(),
            password: SecretText("correct horse".into()),
            target: "pat".into(),
            label: "Laptop".into(),
        };
        let shown = format!("{:?}", ControlRequest::new(ControlOp::Admin(op)));
        assert!(!shown.contains("correct horse"), "{shown}");
        let reply =
            AdminReply::PairingCode { target: "pat".into(), code: SecretText("ABCD2345".into()), expires_ms: 1 };
        assert!(!format!("{reply:?}").contains("ABCD2345"));
    }

    #[test]
    fn responses_round_trip() {
        let ok = ControlResponse { result: Ok(ControlReply::Pong { version: "0.1.0".into() }) };
        let bytes = serde_json::to_vec(&ok).unwrap();
        assert_eq!(serde_json::from_slice::<ControlResponse>(&bytes).unwrap(), ok);
        let err = ControlResponse { result: Err(ControlError::new(ControlErrorCode::PeerRefused, "refused")) };
        let bytes = serde_json::to_vec(&err).unwrap();
        assert_eq!(serde_json::from_slice::<ControlResponse>(&bytes).unwrap(), err);
    }
}
