//! Relay Web's server-mediated protected sessions: a browser signs in to a protected role with a
//! username and password sent to the gateway, and the server keeps the session, keyed by the
//! web logical session's binding (server-side, never a cookie or a token the browser can use on
//! its own). The browser never holds a signing key, a protected token or a proof: it names
//! commands (`RunCommand` with a `Session` of `SessionKind::Browser`), which run through the
//! same typed pipeline as the server PC's local session (role re-derived from the records,
//! revision checks, audit), limited to the commands `PrivilegedCommand::on_the_web` allows
//! (`SessionKind::Browser.policy()`). Sessions follow
//! `session_policy` like the server PC's (idle lock after 15 minutes, ended by a credential
//! change or a role the records no longer give) and end with their web session (the gateway
//! sends `EndBrowserSession` when the web session's `ended` signal fires: logout, replacement,
//! expiry). Destructive approvals need a password confirmed on the server within 5
//! minutes, and one confirmation approves one such command. Sign-ins and confirmations go through
//! the LAN budgets of `reauth_guard`, keyed by the browser's address.

use std::collections::HashMap;
use std::net::IpAddr;

use actix::prelude::*;

use super::session_policy::{is_fresh, SessionKind, SessionStore, SessionUse};
use super::sessions::{LocalSession, Sessions};
use super::{service, LocalSessionView, PrivError, PrivilegedActor};

/// The sessions and their single-use approvals, by web-session binding.
#[derive(Debug, Default)]
pub struct BrowserSessions {
    sessions: Sessions,
    /// When the password was last confirmed for a destructive approval (consumed by one command).
    approvals: HashMap<String, i64>,
}

impl BrowserSessions {
    pub fn open(
        &mut self,
        binding: &str,
        account: &infra::privileged::AccountRow,
        role: domain::roles::Role,
        now: i64,
    ) {
        self.end(binding);
        self.sessions.open(binding.to_string(), account, role, now);
        self.approvals.retain(|k, _| self.sessions.contains(k));
    }

    /// The live session, marking privileged activity.
    pub fn touch(&mut self, binding: &str, now: i64) -> Option<LocalSession> {
        self.sessions.touch(binding, now)
    }

    /// The live session without marking activity.
    pub fn peek(&mut self, binding: &str, now: i64) -> Option<LocalSession> {
        self.sessions.peek(binding, now)
    }

    /// The password was confirmed again: one destructive command may run within 5 minutes.
    pub fn approve(&mut self, binding: &str, now: i64) -> Option<LocalSession> {
        let session = self.sessions.touch(binding, now)?;
        self.approvals.insert(binding.to_string(), now);
        Some(session)
    }

    /// Takes the session's approval: true when it was confirmed within the last 5 minutes.
    pub fn take_approval(&mut self, binding: &str, now: i64) -> bool {
        self.approvals.remove(binding).is_some_and(|at| is_fresh(at, now))
    }

    pub fn end(&mut self, binding: &str) -> bool {
        self.approvals.remove(binding);
        self.sessions.lock(binding)
    }

    pub fn clear(&mut self) {
        self.sessions.clear();
        self.approvals.clear();
    }

    pub fn len(&self) -> usize {
        self.sessions.len()
    }

    pub fn is_empty(&self) -> bool {
        self.sessions.is_empty()
    }
}

impl SessionStore for BrowserSessions {
    fn touch(&mut self, binding: &str, now_ms: i64) -> Option<LocalSession> {
        BrowserSessions::touch(self, binding, now_ms)
    }

    fn peek(&mut self, binding: &str, now_ms: i64) -> Option<LocalSession> {
        BrowserSessions::peek(self, binding, now_ms)
    }

    fn end(&mut self, binding: &str) -> bool {
        BrowserSessions::end(self, binding)
    }
}

/// Opens (or replaces) the protected session of one web session after a password check.
#[derive(Message)]
#[rtype(result = "Result<LocalSessionView, PrivError>")]
pub struct OpenBrowserSession {
    pub binding: String,
    pub username: String,
    pub password: String,
    pub source: IpAddr,
}

/// The protected session of a web session, without counting as activity.
#[derive(Message)]
#[rtype(result = "Option<LocalSessionView>")]
pub struct BrowserSessionStatus {
    pub binding: String,
}

/// Confirms the session's password again, approving one destructive command.
#[derive(Message)]
#[rtype(result = "Result<LocalSessionView, PrivError>")]
pub struct ConfirmBrowserPassword {
    pub binding: String,
    pub password: String,
    pub source: IpAddr,
}

/// Ends the protected session of a web session (lock, logout, expiry, replacement).
#[derive(Message)]
#[rtype(result = "()")]
pub struct EndBrowserSession {
    pub binding: String,
}

impl Handler<OpenBrowserSession> for PrivilegedActor {
    type Result = Result<LocalSessionView, PrivError>;
    fn handle(&mut self, msg: OpenBrowserSession, _: &mut Context<Self>) -> Self::Result {
        self.check_ready()?;
        self.browser.end(&msg.binding);
        let principal = self.authenticate_from(msg.source, &msg.username, &msg.password)?;
        let now = self.subsystem.now_ms();
        self.browser.open(&msg.binding, &principal.account, principal.role, now);
        tracing::info!(role = principal.role.as_str(), "Relay Web protected sign-in");
        let session = self.browser.peek(&msg.binding, now).ok_or(PrivError::Internal)?;
        Ok(LocalSessionView::of(&session))
    }
}

impl Handler<BrowserSessionStatus> for PrivilegedActor {
    type Result = Option<LocalSessionView>;
    fn handle(&mut self, msg: BrowserSessionStatus, _: &mut Context<Self>) -> Self::Result {
        let current = self.current_session(SessionKind::Browser, &msg.binding, SessionUse::Status);
        current.ok().map(|(session, _)| LocalSessionView::of(&session))
    }
}

impl Handler<ConfirmBrowserPassword> for PrivilegedActor {
    type Result = Result<LocalSessionView, PrivError>;
    fn handle(&mut self, msg: ConfirmBrowserPassword, _: &mut Context<Self>) -> Self::Result {
        self.check_ready()?;
        let (session, _) = self.current_session(SessionKind::Browser, &msg.binding, SessionUse::Activity)?;
        let principal = self.authenticate_from(msg.source, &session.username, &msg.password)?;
        if principal.account.id != session.account_id {
            return Err(PrivError::InvalidCredentials);
        }
        let approved = self.browser.approve(&msg.binding, self.subsystem.now_ms()).ok_or(PrivError::ReauthRequired)?;
        Ok(LocalSessionView::of(&approved))
    }
}

impl Handler<EndBrowserSession> for PrivilegedActor {
    type Result = ();
    fn handle(&mut self, msg: EndBrowserSession, _: &mut Context<Self>) {
        self.browser.end(&msg.binding);
    }
}

impl PrivilegedActor {
    /// A password check from a browser, behind the LAN budgets keyed by its address.
    fn authenticate_from(
        &mut self,
        source: IpAddr,
        username: &str,
        password: &str,
    ) -> Result<service::Principal, PrivError> {
        let now = self.now();
        self.persisted.mark_dirty();
        let service = &self.service;
        self.reauth_guard.check_from_lan(source, now, || service.authenticate(username, password))
    }
}

#[cfg(test)]
mod tests {
    use super::super::session_policy::FRESH_PASSWORD_MS;
    use super::*;
    use domain::roles::Role;

    fn account(version: i64) -> infra::privileged::AccountRow {
        let mut a = infra::privileged::AccountRow::new(
            "acct".into(),
            "pat".into(),
            "Pat".into(),
            domain::roles::AccountKind::Publisher,
            0,
        );
        a.credential_version = version;
        a
    }

    #[test]
    fn an_approval_is_used_once_and_only_within_five_minutes() {
        let mut s = BrowserSessions::default();
        s.open("b", &account(1), Role::Publisher, 0);
        assert!(!s.take_approval("b", 10), "signing in is not an approval");
        s.approve("b", 100).unwrap();
        assert!(s.take_approval("b", 100 + FRESH_PASSWORD_MS - 1));
        assert!(!s.take_approval("b", 200), "one confirmation approves one command");
        s.approve("b", 1_000).unwrap();
        assert!(!s.take_approval("b", 1_000 + FRESH_PASSWORD_MS), "stale after 5 minutes");
    }

    #[test]
    fn ending_or_reopening_a_session_drops_its_approval_and_keeps_the_new_credential() {
        let mut s = BrowserSessions::default();
        s.open("b", &account(3), Role::Publisher, 0);
        assert_eq!(s.peek("b", 0).map(|x| x.credential_version), Some(3));
        s.approve("b", 1).unwrap();
        s.open("b", &account(4), Role::Publisher, 2);
        assert!(!s.take_approval("b", 3), "a new sign-in starts without an approval");
        assert_eq!(s.peek("b", 3).map(|x| x.credential_version), Some(4));
        assert!(s.end("b"));
        assert!(s.touch("b", 4).is_none());
        assert!(s.approve("b", 5).is_none(), "no approval without a session");
    }
}
