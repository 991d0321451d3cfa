//! The privileged sessions' messages, for both families (`SessionKind::Local`, the server PC's
//! Administration screen; `SessionKind::Browser`, Relay Web's server-mediated protected session,
//! keyed by the web logical session's binding: server-side, never a cookie or a token the
//! browser can use on its own). Opening a session and confirming its password are door-specific
//! (`OpenLocalSession` / `ReconfirmLocalPassword` on the server PC, behind its own budget;
//! `OpenBrowserSession` / `ConfirmBrowserPassword` from a browser, behind the LAN budgets of
//! `reauth_guard` keyed by its address); what a confirmation grants, and everything after
//! sign-in, follows the family's `SessionPolicy`. [`SessionStatus`] and [`EndSession`] serve
//! both families, and commands run through `RunCommand` with a `Session` origin. The browser
//! never holds a signing key, a protected token or a proof: it names commands, limited to those
//! `PrivilegedCommand::on_the_web` allows; its session ends with its web session (the gateway
//! sends `EndSession` when the web session's `ended` signal fires: logout, replacement, expiry).

use std::net::IpAddr;

use actix::prelude::*;

use super::session_policy::{Freshness, SessionKind, SessionUse};
use super::{service, LocalSessionView, PrivError, PrivilegedActor};

/// Server-local: opens an in-memory session; returns its id.
#[derive(Message)]
#[rtype(result = "Result<String, PrivError>")]
pub struct OpenLocalSession {
    pub username: String,
    pub password: String,
}

/// Server-local: checks the session's password again, so the sensitive commands that need a
/// fresh password (5 minutes) may run. Limited like the sign-in.
#[derive(Message)]
#[rtype(result = "Result<LocalSessionView, PrivError>")]
pub struct ReconfirmLocalPassword {
    pub session_id: String,
    pub password: String,
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

/// Confirms the session's password again, approving one destructive command.
#[derive(Message)]
#[rtype(result = "Result<LocalSessionView, PrivError>")]
pub struct ConfirmBrowserPassword {
    pub binding: String,
    pub password: String,
    pub source: IpAddr,
}

/// The session's user, role and idle-lock time, without counting as activity; `None` once it is
/// locked or gone (a session whose account's credential changed ends here too).
#[derive(Message)]
#[rtype(result = "Option<LocalSessionView>")]
pub struct SessionStatus {
    pub family: SessionKind,
    pub id: String,
}

/// Ends one session (the server PC's lock; a web session's logout, expiry or replacement).
#[derive(Message)]
#[rtype(result = "()")]
pub struct EndSession {
    pub family: SessionKind,
    pub id: String,
}

impl Handler<OpenLocalSession> for PrivilegedActor {
    type Result = Result<String, PrivError>;
    fn handle(&mut self, msg: OpenLocalSession, _: &mut Context<Self>) -> Self::Result {
        self.check_ready()?;
        let principal = self.authenticate_locally(&msg.username, &msg.password)?;
        let id = infra::ids::client_id();
        let now = self.subsystem.now_ms();
        self.sessions.of(SessionKind::Local).open(id.clone(), &principal.account, principal.role, now);
        Ok(id)
    }
}

impl Handler<OpenBrowserSession> for PrivilegedActor {
    type Result = Result<LocalSessionView, PrivError>;
    fn handle(&mut self, msg: OpenBrowserSession, _: &mut Context<Self>) -> Self::Result {
        self.check_ready()?;
        let family = SessionKind::Browser;
        self.sessions.of(family).end(&msg.binding);
        let principal = self.authenticate_from(msg.source, &msg.username, &msg.password)?;
        let now = self.subsystem.now_ms();
        self.sessions.of(family).open(msg.binding.as_str(), &principal.account, principal.role, now);
        tracing::info!(role = principal.role.as_str(), "Relay Web protected sign-in");
        let session = self.sessions.of(family).peek(&msg.binding, now).ok_or(PrivError::Internal)?;
        Ok(LocalSessionView::of(&session))
    }
}

impl Handler<ReconfirmLocalPassword> for PrivilegedActor {
    type Result = Result<LocalSessionView, PrivError>;
    fn handle(&mut self, msg: ReconfirmLocalPassword, _: &mut Context<Self>) -> Self::Result {
        self.confirm_password(SessionKind::Local, &msg.session_id, |a, username| {
            a.authenticate_locally(username, &msg.password)
        })
    }
}

impl Handler<ConfirmBrowserPassword> for PrivilegedActor {
    type Result = Result<LocalSessionView, PrivError>;
    fn handle(&mut self, msg: ConfirmBrowserPassword, _: &mut Context<Self>) -> Self::Result {
        self.confirm_password(SessionKind::Browser, &msg.binding, |a, username| {
            a.authenticate_from(msg.source, username, &msg.password)
        })
    }
}

impl Handler<SessionStatus> for PrivilegedActor {
    type Result = Option<LocalSessionView>;
    fn handle(&mut self, msg: SessionStatus, _: &mut Context<Self>) -> Self::Result {
        let current = self.current_session(msg.family, &msg.id, SessionUse::Status);
        current.ok().map(|(session, _)| LocalSessionView::of(&session))
    }
}

impl Handler<EndSession> for PrivilegedActor {
    type Result = ();
    fn handle(&mut self, msg: EndSession, _: &mut Context<Self>) {
        self.sessions.of(msg.family).end(&msg.id);
    }
}

impl PrivilegedActor {
    /// Checks session `id`'s password again with `check` (behind the door's budget), looking the
    /// session up as the family's policy says; by the family's [`Freshness`] the confirmation
    /// makes the session's password fresh or approves one command.
    fn confirm_password(
        &mut self,
        family: SessionKind,
        id: &str,
        check: impl FnOnce(&mut Self, &str) -> Result<service::Principal, PrivError>,
    ) -> Result<LocalSessionView, PrivError> {
        self.check_ready()?;
        let policy = family.policy();
        let (session, _) = self.current_session(family, id, policy.confirm_lookup)?;
        let principal = check(self, &session.username)?;
        if principal.account.id != session.account_id {
            return Err(PrivError::InvalidCredentials);
        }
        let now = self.subsystem.now_ms();
        let sessions = self.sessions.of(family);
        let confirmed = match policy.freshness {
            Freshness::SessionCheck => sessions.reconfirm(id, now),
            Freshness::SingleUseApproval => sessions.approve(id, now),
        };
        Ok(LocalSessionView::of(&confirmed.ok_or(PrivError::ReauthRequired)?))
    }

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
