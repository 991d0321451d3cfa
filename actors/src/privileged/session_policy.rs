//! The one policy of privileged sessions, for the server PC's local sessions (`sessions`, the
//! Administration screen) and Relay Web's protected sessions alike: a session
//! idle-locks 15 minutes after its last privileged activity; a password check counts as fresh for
//! 5 minutes; a session ends when its account's credential changes (the account's
//! `credential_version` moved: a new password from `relay admin set-password` or the
//! Administration screen) or the account is gone, checked against the records at every use, a
//! status read included; and every command re-derives the session's role from the records, a
//! refusal saying the role or the account is gone (`RoleChanged`, `AccountUnavailable`) ending the
//! session. The actor applies it to either family (one store, `sessions::SessionTable`, keyed by
//! family) through [`PrivilegedActor::current_session`] / [`PrivilegedActor::settle`], so the two
//! cannot diverge.
//! Where the families differ on purpose, the difference is a named field of [`SessionPolicy`]
//! (`SessionKind::policy`): which commands run, when the command is checked, how a password
//! counts as fresh and how a confirmation looks its session up. (Their sign-ins differ too, by
//! door: the server PC's spend its own budget, a browser's the LAN budgets keyed by its address;
//! see `reauth_guard`.)

use domain::privileged_command::PrivilegedCommand;
use infra::privileged::AccountRow;

use super::run::NamedCommand;
use super::sessions::LocalSession;
use super::{PrivError, PrivilegedActor};

/// A session locks this long after its last privileged activity.
pub const IDLE_LOCK_MS: i64 = 15 * 60_000;
/// A session's password check counts as "fresh" for authority commands this long.
pub const FRESH_PASSWORD_MS: i64 = 5 * 60_000;

/// Whether a session last active at `last_activity_ms` has idle-locked by `now_ms`.
pub fn is_idle(last_activity_ms: i64, now_ms: i64) -> bool {
    now_ms - last_activity_ms >= IDLE_LOCK_MS
}

/// Whether a password checked at `checked_ms` is still fresh at `now_ms`.
pub fn is_fresh(checked_ms: i64, now_ms: i64) -> bool {
    now_ms - checked_ms < FRESH_PASSWORD_MS
}

/// The account as the records hold it now, when it still carries `session`: it exists and its
/// credential is the one the session signed in with. `None` ends the session.
pub fn account_still_carrying(session: &LocalSession, account: Option<AccountRow>) -> Option<AccountRow> {
    account.filter(|a| a.id == session.account_id && a.credential_version == session.credential_version)
}

/// Whether a command's refusal says the records no longer give the session its role (or its
/// account): the session ends.
pub fn ends_the_session(refusal: &PrivError) -> bool {
    matches!(refusal, PrivError::RoleChanged | PrivError::AccountUnavailable)
}

/// Which family a session id belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SessionKind {
    /// The server PC's Administration screen.
    Local,
    /// Relay Web's protected sessions, by web-session binding.
    Browser,
}

impl SessionKind {
    /// The family's policy.
    pub const fn policy(self) -> SessionPolicy {
        match self {
            SessionKind::Local => SessionPolicy {
                commands: CommandScope::Every,
                parse_before_session: false,
                freshness: Freshness::SessionCheck,
                confirm_lookup: SessionUse::Status,
            },
            SessionKind::Browser => SessionPolicy {
                commands: CommandScope::OnTheWeb,
                parse_before_session: true,
                freshness: Freshness::SingleUseApproval,
                confirm_lookup: SessionUse::Activity,
            },
        }
    }
}

/// Where the two session families differ on purpose; everything else (idle lock, the fresh
/// window, ending on a credential change or a role the records no longer give) is common.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SessionPolicy {
    /// Which commands the family may run: every command on the server PC (local-only ones
    /// included); in a browser only those `PrivilegedCommand::on_the_web` allows.
    pub commands: CommandScope,
    /// Whether the command is parsed and checked against `commands` before the session is looked
    /// up: in a browser yes (a command no browser may run is refused, `NotOnTheWeb`, whatever the
    /// session); on the server PC after (a locked session answers `ReauthRequired` first).
    pub parse_before_session: bool,
    /// How a password counts as fresh for the commands that need one (and so what a password
    /// confirmation grants).
    pub freshness: Freshness,
    /// How a password confirmation looks its session up: on the server PC as a status read (a
    /// wrong password keeps nothing alive), in a browser as activity.
    pub confirm_lookup: SessionUse,
}

/// Which commands a session family may run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CommandScope {
    /// Every command (the server PC).
    Every,
    /// Only `PrivilegedCommand::on_the_web` commands (Relay Web).
    OnTheWeb,
}

/// How a session's password counts as fresh ([`FRESH_PASSWORD_MS`] either way).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Freshness {
    /// The session's last password check (sign-in or reconfirmation) covers every command for
    /// 5 minutes (the server PC's Administration screen).
    SessionCheck,
    /// A password confirmation approves one command that needs it, within 5 minutes (Relay Web).
    SingleUseApproval,
}

impl SessionPolicy {
    /// `named` as a typed command, when the family may run it.
    pub fn admit(&self, named: &NamedCommand) -> Result<PrivilegedCommand, PrivError> {
        let command = PrivilegedCommand::parse(&named.name, &named.payload)?;
        if self.commands == CommandScope::OnTheWeb && !command.on_the_web() {
            return Err(PrivError::NotOnTheWeb);
        }
        Ok(command)
    }
}

/// What a use of a session counts as.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SessionUse {
    /// A command or an authorization: restarts the idle timer.
    Activity,
    /// A status read: keeps nothing alive.
    Status,
}

impl PrivilegedActor {
    /// The live session `id` of `kind` with its account as the records hold it now; a session
    /// whose account's credential changed, or whose account is gone, ends (`ReauthRequired`).
    pub(super) fn current_session(
        &mut self,
        kind: SessionKind,
        id: &str,
        usage: SessionUse,
    ) -> Result<(LocalSession, AccountRow), PrivError> {
        let now = self.subsystem.now_ms();
        let store = self.sessions.of(kind);
        let session = match usage {
            SessionUse::Activity => store.touch(id, now),
            SessionUse::Status => store.peek(id, now),
        };
        let session = session.ok_or(PrivError::ReauthRequired)?;
        let mut conn = self.service.conn()?;
        let account = infra::privileged::load_account(&mut conn, &session.account_id)?;
        drop(conn);
        match account_still_carrying(&session, account) {
            Some(account) => Ok((session, account)),
            None => {
                self.sessions.of(kind).end(id);
                Err(PrivError::ReauthRequired)
            }
        }
    }

    /// Whether `session` (`id` of `kind`) may run a command that needs a fresh password, by its
    /// family's [`Freshness`]; with `needed` false nothing is asked and no approval is spent.
    pub(super) fn fresh_in_session(
        &mut self,
        kind: SessionKind,
        id: &str,
        session: &LocalSession,
        needed: bool,
        now_ms: i64,
    ) -> bool {
        match kind.policy().freshness {
            Freshness::SessionCheck => is_fresh(session.authenticated_ms, now_ms),
            Freshness::SingleUseApproval => needed && self.sessions.of(kind).take_approval(id, now_ms),
        }
    }

    /// Ends session `id` of `kind` when `result` says the records no longer give it its role.
    pub(super) fn settle<T>(&mut self, kind: SessionKind, id: &str, result: &Result<T, PrivError>) {
        if result.as_ref().err().is_some_and(ends_the_session) {
            self.sessions.of(kind).end(id);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use domain::roles::{AccountKind, Role};

    fn account(credential_version: i64) -> AccountRow {
        let mut a = AccountRow::new("acct".into(), "pat".into(), "Pat".into(), AccountKind::Publisher, 0);
        a.credential_version = credential_version;
        a
    }

    fn session_of(account: &AccountRow) -> LocalSession {
        let mut sessions = super::super::sessions::Sessions::default();
        sessions.open("s", account, Role::Publisher, 0);
        sessions.peek("s", 0).unwrap()
    }

    #[test]
    fn a_session_is_carried_only_by_its_account_with_the_credential_it_signed_in_with() {
        let session = session_of(&account(3));
        assert_eq!(account_still_carrying(&session, Some(account(3))), Some(account(3)));
        assert_eq!(account_still_carrying(&session, Some(account(4))), None, "the password changed");
        assert_eq!(account_still_carrying(&session, None), None, "the account is gone");
        let other = AccountRow { id: "other".into(), ..account(3) };
        assert_eq!(account_still_carrying(&session, Some(other)), None, "another account");
    }

    #[test]
    fn the_families_differ_only_in_the_policys_named_fields() {
        let (local, browser) = (SessionKind::Local.policy(), SessionKind::Browser.policy());
        assert_eq!((local.commands, browser.commands), (CommandScope::Every, CommandScope::OnTheWeb));
        assert_eq!((local.parse_before_session, browser.parse_before_session), (false, true));
        assert_eq!((local.freshness, browser.freshness), (Freshness::SessionCheck, Freshness::SingleUseApproval));
        assert_eq!((local.confirm_lookup, browser.confirm_lookup), (SessionUse::Status, SessionUse::Activity));
        let probe = NamedCommand::new("privileged.probe", serde_json::json!({}), None);
        assert!(local.admit(&probe).is_ok() && browser.admit(&probe).is_ok());
        let set_password = serde_json::json!({"accountId": "acct00000000001", "password": "a long password"});
        let local_only = NamedCommand::new("accounts.setPassword", set_password, None);
        assert!(local.admit(&local_only).is_ok());
        assert_eq!(browser.admit(&local_only), Err(PrivError::NotOnTheWeb));
    }

    #[test]
    fn idle_lock_fresh_password_and_role_refusals_have_one_definition() {
        assert!(!is_idle(0, IDLE_LOCK_MS - 1) && is_idle(0, IDLE_LOCK_MS));
        assert!(is_fresh(0, FRESH_PASSWORD_MS - 1) && !is_fresh(0, FRESH_PASSWORD_MS));
        assert!(ends_the_session(&PrivError::RoleChanged) && ends_the_session(&PrivError::AccountUnavailable));
        assert!(!ends_the_session(&PrivError::ReauthRequired) && !ends_the_session(&PrivError::InvalidCredentials));
    }
}
