//! The privileged command service: plain synchronous logic over the database, shared by the
//! privileged actor (remote requests on the server) and the server-local `relay admin` CLI. It
//! owns bootstrap of the protected accounts, server-local credential setup, pairing, fresh-
//! password reauthentication proofs and the signed-envelope pipeline in the security model's
//! order. Roles are always derived from the stored records, never from a claim.

use serde_json::{json, Value};

use diesel::sqlite::SqliteConnection;
use domain::envelope::{parse_envelope, verify_signature, Envelope, PublicJwk};
use domain::migration::{plan_migration, MigrationOutcome, MigrationPlan};
use domain::privileged_command::PrivilegedCommand;
use domain::problem::HttpProblem;
use domain::roles::{
    check_password_policy, effective_role, normalize_username, Account, AccountKind, AuthorityState, Capability, Role,
    BOOTSTRAP_ADMINS,
};
use infra::clock::SharedClock;
use infra::db::{DbConn, DbPool};
use infra::privileged::{self as store, AccountRow, AuditEvent, Claim, RequestRow};

use super::commands::{self, CommandRequest};
use super::error::PrivError;
use super::pairing;
use super::password_check::PasswordCheck;

/// Reauthentication proofs live this long.
pub const PROOF_TTL_MS: i64 = 5 * 60_000;
/// Stored command results are cut to this size.
pub const MAX_RESULT_BYTES: usize = 4096;

#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CommandOutcome {
    pub request_id: String,
    pub status: &'static str,
    pub result: Value,
    /// True when this answer replays an earlier identical request.
    pub replayed: bool,
    /// Work the actor does after the authorized, audited step (never serialized).
    #[serde(skip)]
    pub follow_up: Option<FollowUp>,
}

/// Network work a command needs after its authorized, audited database step.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FollowUp {
    /// `dynatrace.testConnection`: the Dynatrace actor runs the test.
    DynatraceTestConnection,
}

impl FollowUp {
    pub fn of(command: &PrivilegedCommand) -> Option<FollowUp> {
        matches!(command, PrivilegedCommand::DynatraceTestConnection {}).then_some(FollowUp::DynatraceTestConnection)
    }
}

/// What `ensure_ready` did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Readiness {
    Ready,
    Bootstrapped,
    Migrated(usize),
    /// A legacy roster exists but cannot be converted safely; nothing was changed.
    Deferred(Vec<String>),
}

/// The planned legacy conversion, if any.
pub enum LegacyPlan {
    None,
    Planned(Box<MigrationPlan>, Vec<store::LegacyDeviceRow>),
    Deferred(Vec<String>),
}

#[derive(Clone)]
pub struct PrivilegedService {
    pool: DbPool,
    clock: SharedClock,
    /// The Dynatrace settings' token vault and sync actor (absent: `dynatrace.*` is refused).
    dynatrace: Option<super::dynatrace_ops::DynatraceHooks>,
    /// The Wiki's files and realtime publisher (absent: `wiki.*` is refused).
    wiki: Option<crate::wiki::WikiHooks>,
    /// Verifies passwords, with the same work for unknown accounts.
    passwords: PasswordCheck,
}

/// An authenticated principal after the pipeline's record checks.
pub struct Principal {
    pub account: AccountRow,
    pub role: Role,
    pub state: AuthorityState,
    pub device_id: Option<String>,
}

impl PrivilegedService {
    pub fn new(pool: DbPool, clock: SharedClock) -> PrivilegedService {
        PrivilegedService { pool, clock, dynatrace: None, wiki: None, passwords: PasswordCheck::default() }
    }

    /// Verifies passwords with `check` (tests count the verifications).
    pub fn with_password_check(mut self, check: PasswordCheck) -> PrivilegedService {
        self.passwords = check;
        self
    }

    /// Enables the `dynatrace.*` commands.
    pub fn with_dynatrace(mut self, hooks: super::dynatrace_ops::DynatraceHooks) -> PrivilegedService {
        self.dynatrace = Some(hooks);
        self
    }

    /// Enables the `wiki.*` commands.
    pub fn with_wiki(mut self, hooks: crate::wiki::WikiHooks) -> PrivilegedService {
        self.wiki = Some(hooks);
        self
    }

    /// The Wiki hooks, or the refusal a server without a data directory gives.
    pub(super) fn wiki(&self) -> Result<&crate::wiki::WikiHooks, PrivError> {
        self.wiki.as_ref().ok_or_else(|| PrivError::Invalid("the Wiki is not available on this server".into()))
    }

    /// After a command's transaction committed: the Wiki's work that waited for it.
    fn after_wiki_commit(&self, work: Vec<crate::wiki::AfterCommit>) {
        if let (Some(wiki), false) = (&self.wiki, work.is_empty()) {
            wiki.apply(work);
        }
    }

    /// The Dynatrace hooks, or the refusal a server without Dynatrace gives.
    pub(super) fn dynatrace(&self) -> Result<&super::dynatrace_ops::DynatraceHooks, PrivError> {
        self.dynatrace.as_ref().ok_or_else(|| PrivError::Invalid("Dynatrace is not available on this server".into()))
    }

    /// After a committed command: a Dynatrace settings change restarts the sync.
    fn after_commit(&self, command: &PrivilegedCommand) {
        if command.needs_dynatrace_revision() {
            if let Some(changed) = self.dynatrace.as_ref().and_then(|h| h.changed.as_ref()) {
                changed.do_send(crate::dynatrace::SettingsChanged);
            }
        }
    }

    pub fn now(&self) -> i64 {
        self.clock.now_ms()
    }

    pub(super) fn conn(&self) -> Result<DbConn, PrivError> {
        self.pool.get().map_err(|_| PrivError::Internal)
    }

    /// Makes the privileged runtime ready: nothing to do when the authority record exists; else a
    /// legacy `relay_operators` roster is converted (planned and validated first, applied in one
    /// transaction) or, when the plan defers, nothing is changed and the reasons are returned;
    /// else a fresh store gets the bootstrap accounts.
    pub fn ensure_ready(&self) -> Result<Readiness, PrivError> {
        let mut conn = self.conn()?;
        if store::load_state(&mut conn)?.is_some() {
            return Ok(Readiness::Ready);
        }
        match self.plan_legacy(&mut conn)? {
            LegacyPlan::None => {
                // Bootstrap takes its own connection: give this one back first (the CLI's pool
                // has one).
                drop(conn);
                Ok(if self.ensure_bootstrap()? { Readiness::Bootstrapped } else { Readiness::Ready })
            }
            LegacyPlan::Deferred(reasons) => Ok(Readiness::Deferred(reasons)),
            LegacyPlan::Planned(plan, devices) => {
                let n = store::apply_migration(&mut conn, &plan, &devices, self.now())?;
                self.audit(&mut conn, &plan.state.owner_account_id, None, "local.migrateRoles", "local", "done")?;
                Ok(Readiness::Migrated(n))
            }
        }
    }

    /// Plans the legacy roster conversion without writing anything.
    pub fn plan_legacy(&self, conn: &mut SqliteConnection) -> Result<LegacyPlan, PrivError> {
        let legacy = match store::read_legacy(conn) {
            Ok(None) => return Ok(LegacyPlan::None),
            Ok(Some(legacy)) => legacy,
            Err(e) => {
                tracing::warn!(error = %e, "legacy roster not readable");
                return Ok(LegacyPlan::Deferred(vec!["the legacy roster's schema is not the expected one".into()]));
            }
        };
        let existing: Vec<Account> = store::list_accounts(conn)?.iter().map(AccountRow::to_account).collect();
        let outcome = plan_migration(
            &legacy.operators,
            &legacy.device_refs(),
            &legacy.attributions,
            &existing,
            legacy.view_sql.as_deref(),
        );
        Ok(match outcome {
            MigrationOutcome::NothingToDo => LegacyPlan::None,
            MigrationOutcome::Deferred(reasons) => {
                LegacyPlan::Deferred(reasons.iter().map(|r| format!("{r:?}")).collect())
            }
            MigrationOutcome::Planned(plan) => LegacyPlan::Planned(Box::new(plan), legacy.devices),
        })
    }

    /// Creates the two inactive bootstrap Administrators (no usable credential) on a fresh store.
    pub fn ensure_bootstrap(&self) -> Result<bool, PrivError> {
        let now = self.now();
        let rows = BOOTSTRAP_ADMINS.map(|(username, display)| {
            AccountRow::new(infra::ids::record_id(), username.into(), display.into(), AccountKind::Administrator, now)
        });
        let mut conn = self.conn()?;
        Ok(store::ensure_bootstrap(&mut conn, &rows)?)
    }

    pub(super) fn state(&self, conn: &mut SqliteConnection) -> Result<AuthorityState, PrivError> {
        store::load_state(conn)?.ok_or(PrivError::NotBootstrapped)
    }

    fn account_by_username(&self, conn: &mut SqliteConnection, username: &str) -> Result<AccountRow, PrivError> {
        let username = normalize_username(username).map_err(|_| PrivError::InvalidCredentials)?;
        store::find_account_by_username(conn, &username)?.ok_or(PrivError::InvalidCredentials)
    }

    /// Checks a username/password for an active account with a role (server-local sign-in). An
    /// unknown username costs the same hash verification as a known one (`password_check`).
    pub fn authenticate(&self, username: &str, password: &str) -> Result<Principal, PrivError> {
        let mut conn = self.conn()?;
        let account = match self.account_by_username(&mut conn, username) {
            Ok(account) => Some(account),
            Err(PrivError::InvalidCredentials) => None,
            Err(e) => return Err(e),
        };
        let matches = self.passwords.matches(account.as_ref().and_then(|a| a.password_hash.as_deref()), password);
        let account = account.filter(|a| matches && a.active).ok_or(PrivError::InvalidCredentials)?;
        let state = self.state(&mut conn)?;
        let role = effective_role(&account.to_account(), &state).ok_or(PrivError::InvalidCredentials)?;
        Ok(Principal { account, role, state, device_id: None })
    }

    /// Server-local: sets (or replaces) an account's password. Revokes the account's devices.
    pub fn set_password(&self, username: &str, password: &str) -> Result<Account, PrivError> {
        check_password_policy(password).map_err(|e| PrivError::Invalid(e.to_string()))?;
        let mut conn = self.conn()?;
        let account =
            self.account_by_username(&mut conn, username).map_err(|_| PrivError::Invalid("unknown account".into()))?;
        let hash = infra::password::hash_password(password).map_err(|_| PrivError::Internal)?;
        let now = self.now();
        store::replace_password(&mut conn, &account.id, &hash, now)?;
        self.audit(&mut conn, &account.id, None, "local.setPassword", "local", "done")?;
        Ok(store::load_account(&mut conn, &account.id)?.ok_or(PrivError::Internal)?.to_account())
    }

    /// Server-local activation or deactivation (initial setup and recovery).
    pub fn set_active(&self, username: &str, active: bool) -> Result<Account, PrivError> {
        let mut conn = self.conn()?;
        let account =
            self.account_by_username(&mut conn, username).map_err(|_| PrivError::Invalid("unknown account".into()))?;
        if active && account.password_hash.is_none() {
            return Err(PrivError::Invalid("set a password before activating the account".into()));
        }
        let state = self.state(&mut conn)?;
        if !active && state.owner_account_id == account.id {
            return Err(PrivError::Invalid("the Owner cannot be deactivated; transfer ownership first".into()));
        }
        store::set_account_active(&mut conn, &account.id, active, self.now())?;
        let command = if active { "local.activate" } else { "local.deactivate" };
        self.audit(&mut conn, &account.id, None, command, "local", "done")?;
        Ok(store::load_account(&mut conn, &account.id)?.ok_or(PrivError::Internal)?.to_account())
    }

    pub fn accounts(&self) -> Result<Vec<(Account, Option<Role>)>, PrivError> {
        let mut conn = self.conn()?;
        let state = self.state(&mut conn)?;
        Ok(store::list_accounts(&mut conn)?
            .into_iter()
            .map(|row| {
                let account = row.to_account();
                let role = effective_role(&account, &state);
                (account, role)
            })
            .collect())
    }

    pub(super) fn audit(
        &self,
        conn: &mut SqliteConnection,
        account_id: &str,
        device_id: Option<&str>,
        command: &str,
        request_id: &str,
        outcome: &str,
    ) -> Result<(), PrivError> {
        let event = AuditEvent { at_ms: self.now(), account_id, device_id, command, request_id, outcome };
        store::append_audit(conn, event)?;
        Ok(())
    }

    /// Verifies the audit chain and its head; returns the number of entries.
    pub fn verify_audit(&self) -> Result<usize, String> {
        let mut conn = self.conn().map_err(|e| e.to_string())?;
        store::verify_audit(&mut conn).map_err(|e| e.to_string())
    }

    /// Server-local: an Owner or Administrator (with devices.manage) starts pairing for
    /// `target_username`. Returns the human code and its expiry.
    pub fn start_pairing(
        &self,
        actor: &Principal,
        target_username: &str,
        label: &str,
    ) -> Result<pairing::PairingTicket, PrivError> {
        if !domain::roles::capabilities(actor.role).contains(&Capability::DevicesManage) {
            return Err(PrivError::Forbidden("devices.manage is required".into()));
        }
        let mut conn = self.conn()?;
        let target = self
            .account_by_username(&mut conn, target_username)
            .map_err(|_| PrivError::Invalid("unknown account".into()))?;
        let target_role = effective_role(&target.to_account(), &actor.state)
            .ok_or_else(|| PrivError::Invalid("the account must be active with a role before pairing".into()))?;
        if actor.role == Role::Administrator && target.id != actor.account.id && target_role != Role::Publisher {
            return Err(PrivError::Forbidden("Administrators may pair devices for themselves or the Publisher".into()));
        }
        let ticket = pairing::create_challenge(&mut conn, &target.id, label, self.now())?;
        self.audit(&mut conn, &actor.account.id, None, "local.startPairing", &ticket.challenge_id, "done")?;
        Ok(ticket)
    }

    /// Remote: completes pairing with the code, registering the device's public key.
    pub fn complete_pairing(
        &self,
        username: &str,
        code: &str,
        jwk: &PublicJwk,
        label: &str,
        hostname: &str,
    ) -> Result<pairing::PairedDevice, PrivError> {
        jwk.validate().map_err(PrivError::from)?;
        let mut conn = self.conn()?;
        let account = self.account_by_username(&mut conn, username).map_err(|_| PrivError::PairingInvalid)?;
        let mut device = pairing::redeem(&mut conn, &account.id, code, jwk, label, hostname, self.now())?;
        let state = self.state(&mut conn)?;
        device.role = effective_role(&account.to_account(), &state).map(|r| r.as_str().to_string());
        self.audit(&mut conn, &account.id, Some(&device.device_id), "pairing.complete", &device.device_id, "done")?;
        Ok(device)
    }

    /// Loads and checks account, authority state and device for a remote caller.
    fn principal_for_device(
        &self,
        conn: &mut SqliteConnection,
        account_id: &str,
        device_id: &str,
    ) -> Result<(Principal, store::DeviceRow), PrivError> {
        let account = store::load_account(conn, account_id)?.ok_or(PrivError::AccountUnavailable)?;
        if !account.active {
            return Err(PrivError::AccountUnavailable);
        }
        let state = self.state(conn)?;
        let device = store::load_device(conn, device_id)?.ok_or(PrivError::DeviceUnavailable)?;
        if device.account_id != account.id || !device.is_active() {
            return Err(PrivError::DeviceUnavailable);
        }
        let role = effective_role(&account.to_account(), &state).ok_or(PrivError::AccountUnavailable)?;
        Ok((Principal { account, role, state, device_id: Some(device.id.clone()) }, device))
    }

    /// Remote: fresh-password reauthentication for a paired device; returns a single-use proof.
    pub fn reauth(&self, account_id: &str, device_id: &str, password: &str) -> Result<(String, i64), PrivError> {
        let mut conn = self.conn()?;
        let principal = self.principal_for_device(&mut conn, account_id, device_id).ok().map(|(p, _)| p);
        let stored = principal.as_ref().and_then(|p| p.account.password_hash.as_deref());
        if !self.passwords.matches(stored, password) || principal.is_none() {
            return Err(PrivError::InvalidCredentials);
        }
        let proof_id = infra::ids::client_id();
        let expires = self.now() + PROOF_TTL_MS;
        conn.immediate_transaction(|c| store::insert_proof(c, &proof_id, account_id, device_id, expires))?;
        Ok((proof_id, expires))
    }

    /// Remote: the signed-envelope pipeline, steps 1-6 of the security model.
    pub fn execute_signed(&self, raw: &[u8]) -> Result<CommandOutcome, PrivError> {
        let now = self.now();
        // 1. shape, size, clock skew and lifetime.
        let envelope: Envelope = parse_envelope(raw, now)?;
        // 2. current account, authority state and device.
        let mut conn = self.conn()?;
        let (principal, device) = self.principal_for_device(&mut conn, &envelope.account_id, &envelope.device_id)?;
        // 3. capabilities come from the records; a stale claim is refused.
        if Role::parse(&envelope.role_claim) != Some(principal.role) {
            return Err(PrivError::RoleChanged);
        }
        // 4. fingerprint and signature.
        let jwk: PublicJwk = serde_json::from_str(&device.public_jwk).map_err(|_| PrivError::Internal)?;
        if jwk.fingerprint() != device.fingerprint {
            return Err(PrivError::DeviceUnavailable);
        }
        verify_signature(&envelope, &jwk)?;
        // The verified name and payload become a typed command once; unknown names and
        // malformed payloads are refused here, before the request id is claimed.
        let command = PrivilegedCommand::parse(&envelope.command, &envelope.payload)?;
        if command.local_only() {
            return Err(PrivError::Forbidden("this command is available only on the Relay server PC".into()));
        }
        let request = CommandRequest {
            command: &command,
            expected_revision: envelope.expected_revision,
            fresh_local_password: false,
        };
        commands::check_allowed(&mut conn, &principal, &request)?;
        // 5. claim the unique request id before running the handler.
        let claim = RequestRow {
            request_id: envelope.request_id.clone(),
            account_id: envelope.account_id.clone(),
            device_id: envelope.device_id.clone(),
            command: envelope.command.clone(),
            payload_hash: envelope.payload_hash.clone(),
            status: "running".into(),
            result: None,
            error: None,
            created_ms: now,
            finished_ms: None,
        };
        match store::claim_request(&mut conn, &claim)? {
            Claim::Claimed => {}
            Claim::Existing(existing) => return replay(*existing, &claim),
        }
        // 6. run the allowlisted handler; keep only a bounded safe result or a generic error.
        let outcome = conn.immediate_transaction(|c| {
            let ran = commands::run(self, c, &principal, &request)?;
            let text = bounded_result(&ran.result);
            store::finish_request(c, &envelope.request_id, true, Some(&text), None, self.now())?;
            self.audit(
                c,
                &principal.account.id,
                principal.device_id.as_deref(),
                command.name(),
                &envelope.request_id,
                "done",
            )?;
            Ok::<commands::Ran, PrivError>(ran)
        });
        match outcome {
            Ok(commands::Ran { result, wiki_after_commit }) => {
                self.after_wiki_commit(wiki_after_commit);
                self.after_commit(&command);
                Ok(CommandOutcome {
                    request_id: envelope.request_id,
                    status: "done",
                    result,
                    replayed: false,
                    follow_up: FollowUp::of(&command),
                })
            }
            Err(err) => {
                conn.immediate_transaction(|c| {
                    store::finish_request(c, &envelope.request_id, false, None, Some(err.code()), self.now())?;
                    self.audit(
                        c,
                        &principal.account.id,
                        principal.device_id.as_deref(),
                        command.name(),
                        &envelope.request_id,
                        err.code(),
                    )
                })?;
                Err(err)
            }
        }
    }
}

impl PrivilegedService {
    /// The principal of a session signed in as `role`, its `account` as the records hold it now
    /// (the session check loaded it): the authority state is loaded and the role re-derived here,
    /// once per command. The records giving no role refuse with `AccountUnavailable`, another
    /// role with `RoleChanged`.
    pub fn session_principal(&self, account: AccountRow, role: Role) -> Result<Principal, PrivError> {
        let mut conn = self.conn()?;
        let state = self.state(&mut conn)?;
        let derived = effective_role(&account.to_account(), &state).ok_or(PrivError::AccountUnavailable)?;
        if derived != role {
            return Err(PrivError::RoleChanged);
        }
        Ok(Principal { account, role, state, device_id: None })
    }

    /// Server-local: `who` (built for this decision: `authenticate` or `session_principal`) may
    /// take `action` needing `capability` when its role holds it; the decision is audited with
    /// `target` as the request id.
    pub fn authorize_local_action(
        &self,
        who: &Principal,
        capability: Capability,
        action: &str,
        target: &str,
    ) -> Result<(), PrivError> {
        let mut conn = self.conn()?;
        let allowed = domain::roles::has_capability(who.role, capability);
        let outcome = if allowed { "authorized" } else { "forbidden" };
        self.audit(&mut conn, &who.account.id, None, action, target, outcome)?;
        if allowed {
            Ok(())
        } else {
            let who = if domain::roles::has_capability(Role::Administrator, capability) {
                "an Owner or Administrator"
            } else {
                "the Owner"
            };
            Err(PrivError::Forbidden(format!("{action} needs {who}")))
        }
    }

    /// Server-local execution for a principal built earlier (tests hold one across commands):
    /// its account, authority state and role are loaded again from the records, then
    /// [`PrivilegedService::execute_as`] runs the command.
    pub fn execute_local(
        &self,
        principal: &Principal,
        command: &PrivilegedCommand,
        expected_revision: Option<i64>,
        fresh_password: bool,
    ) -> Result<Value, PrivError> {
        let mut conn = self.conn()?;
        let state = self.state(&mut conn)?;
        let account = store::load_account(&mut conn, &principal.account.id)?.ok_or(PrivError::AccountUnavailable)?;
        drop(conn);
        let role = effective_role(&account.to_account(), &state).ok_or(PrivError::AccountUnavailable)?;
        if role != principal.role {
            return Err(PrivError::RoleChanged);
        }
        let who = Principal { account, role, state, device_id: None };
        self.execute_as(&who, command, expected_revision, fresh_password)
    }

    /// Server-local execution of the same typed handlers without a device signature, for `who`,
    /// a principal built for this command from the current records (`authenticate`,
    /// `session_principal`). Every call is authorized and audited like a remote one.
    pub fn execute_as(
        &self,
        who: &Principal,
        command: &PrivilegedCommand,
        expected_revision: Option<i64>,
        fresh_password: bool,
    ) -> Result<Value, PrivError> {
        let mut conn = self.conn()?;
        let request = CommandRequest { command, expected_revision, fresh_local_password: fresh_password };
        commands::check_allowed(&mut conn, who, &request)?;
        let request_id = format!("local-{}", infra::ids::client_id());
        let ran = conn.immediate_transaction(|c| {
            let ran = commands::run(self, c, who, &request)?;
            self.audit(c, &who.account.id, None, command.name(), &request_id, "done")?;
            Ok::<commands::Ran, PrivError>(ran)
        });
        match ran {
            Ok(commands::Ran { result, wiki_after_commit }) => {
                self.after_wiki_commit(wiki_after_commit);
                self.after_commit(command);
                Ok(result)
            }
            Err(e) => {
                self.audit(&mut conn, &who.account.id, None, command.name(), &request_id, e.code())?;
                Err(e)
            }
        }
    }
}

fn bounded_result(result: &Value) -> String {
    let text = result.to_string();
    if text.len() <= MAX_RESULT_BYTES {
        text
    } else {
        json!({ "truncated": true }).to_string()
    }
}

/// A second use of a request id: identical requests get the stored outcome, others are refused.
fn replay(existing: RequestRow, attempt: &RequestRow) -> Result<CommandOutcome, PrivError> {
    let same = existing.account_id == attempt.account_id
        && existing.device_id == attempt.device_id
        && existing.command == attempt.command
        && existing.payload_hash == attempt.payload_hash;
    if !same {
        return Err(PrivError::RequestConflict);
    }
    match existing.status.as_str() {
        "done" => {
            let result = existing.result.as_deref().and_then(|r| serde_json::from_str(r).ok()).unwrap_or(Value::Null);
            Ok(CommandOutcome {
                request_id: existing.request_id,
                status: "done",
                result,
                replayed: true,
                follow_up: None,
            })
        }
        "failed" => Ok(CommandOutcome {
            request_id: existing.request_id,
            status: "failed",
            result: json!({ "error": existing.error.unwrap_or_else(|| "failed".into()) }),
            replayed: true,
            follow_up: None,
        }),
        _ => Err(PrivError::InProgress),
    }
}
