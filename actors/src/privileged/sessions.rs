//! The one store of privileged sessions, for both families: the server PC's local sessions (the
//! Administration screen, by random session id) and Relay Web's protected sessions (by web-session
//! binding), each family in its own [`Sessions`] of the actor's [`SessionTable`]. A session is
//! opened with a protected account's password, lives only in memory, and follows
//! `session_policy` (idle lock, fresh password, the account's credential version); a password
//! confirmation may leave a single-use approval beside it (`Freshness::SingleUseApproval`). Lock,
//! a Relay sign-out on the server PC and reconfiguration clear sessions. Session ids are random
//! and never logged.

use std::collections::HashMap;

use domain::roles::Role;
use infra::privileged::AccountRow;

use super::session_policy::{is_fresh, is_idle, SessionKind};

/// Most sessions one family holds; opening another evicts the least recently active.
pub const MAX_SESSIONS: usize = 16;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LocalSession {
    pub account_id: String,
    pub username: String,
    pub role: Role,
    /// The account's credential version at sign-in: a password change ends the session.
    pub credential_version: i64,
    pub authenticated_ms: i64,
    pub last_activity_ms: i64,
}

/// One family's sessions and their single-use approvals, by id.
#[derive(Debug, Default)]
pub struct Sessions {
    by_id: HashMap<String, LocalSession>,
    /// When the password was last confirmed for a single-use approval (consumed by one command).
    approvals: HashMap<String, i64>,
}

impl Sessions {
    /// Opens (or replaces) session `id` for `account` (as the records hold it after its password
    /// check); a replaced session's approval goes with it.
    pub fn open(&mut self, id: impl Into<String>, account: &AccountRow, role: Role, now_ms: i64) {
        let id = id.into();
        self.end(&id);
        self.expire(now_ms);
        if self.by_id.len() >= MAX_SESSIONS {
            if let Some(oldest) = self.by_id.iter().min_by_key(|(_, s)| s.last_activity_ms).map(|(k, _)| k.clone()) {
                self.by_id.remove(&oldest);
            }
        }
        let session = LocalSession {
            account_id: account.id.clone(),
            username: account.username.clone(),
            role,
            credential_version: account.credential_version,
            authenticated_ms: now_ms,
            last_activity_ms: now_ms,
        };
        self.by_id.insert(id, session);
        let by_id = &self.by_id;
        self.approvals.retain(|k, _| by_id.contains_key(k));
    }

    /// The live session for `id`, marking privileged activity; `None` once idle-locked.
    pub fn touch(&mut self, id: &str, now_ms: i64) -> Option<LocalSession> {
        self.expire(now_ms);
        let session = self.by_id.get_mut(id)?;
        session.last_activity_ms = now_ms;
        Some(session.clone())
    }

    /// The live session for `id` without marking activity (a status read keeps nothing alive).
    pub fn peek(&mut self, id: &str, now_ms: i64) -> Option<LocalSession> {
        self.expire(now_ms);
        self.by_id.get(id).cloned()
    }

    /// The password was checked again: authority commands count as fresh from `now_ms`.
    pub fn reconfirm(&mut self, id: &str, now_ms: i64) -> Option<LocalSession> {
        let session = self.touch(id, now_ms)?;
        let stored = self.by_id.get_mut(id)?;
        stored.authenticated_ms = now_ms;
        Some(LocalSession { authenticated_ms: now_ms, ..session })
    }

    /// The password was confirmed again: one command that needs it may run within 5 minutes.
    pub fn approve(&mut self, id: &str, now_ms: i64) -> Option<LocalSession> {
        let session = self.touch(id, now_ms)?;
        self.approvals.insert(id.to_string(), now_ms);
        Some(session)
    }

    /// Takes the session's approval: true when it was confirmed within the last 5 minutes.
    pub fn take_approval(&mut self, id: &str, now_ms: i64) -> bool {
        self.approvals.remove(id).is_some_and(|at| is_fresh(at, now_ms))
    }

    /// Ends session `id` and its approval; false when there was none.
    pub fn end(&mut self, id: &str) -> bool {
        self.approvals.remove(id);
        self.by_id.remove(id).is_some()
    }

    /// Clears every session (disconnect, reconfiguration, shutdown).
    pub fn clear(&mut self) {
        self.by_id.clear();
        self.approvals.clear();
    }

    /// Whether `id` is held (locked or not yet swept).
    pub fn contains(&self, id: &str) -> bool {
        self.by_id.contains_key(id)
    }

    pub fn len(&self) -> usize {
        self.by_id.len()
    }

    pub fn is_empty(&self) -> bool {
        self.by_id.is_empty()
    }

    fn expire(&mut self, now_ms: i64) {
        self.by_id.retain(|_, s| !is_idle(s.last_activity_ms, now_ms));
    }
}

/// Every privileged session, keyed by family (`SessionKind`) and then by id.
#[derive(Debug, Default)]
pub struct SessionTable {
    local: Sessions,
    browser: Sessions,
}

impl SessionTable {
    /// The sessions of `family`.
    pub fn of(&mut self, family: SessionKind) -> &mut Sessions {
        match family {
            SessionKind::Local => &mut self.local,
            SessionKind::Browser => &mut self.browser,
        }
    }

    /// Sessions held in all.
    pub fn len(&self) -> usize {
        self.local.len() + self.browser.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Clears both families.
    pub fn clear(&mut self) {
        self.local.clear();
        self.browser.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::super::session_policy::{FRESH_PASSWORD_MS, IDLE_LOCK_MS};
    use super::*;

    fn account(username: &str) -> AccountRow {
        let kind = domain::roles::AccountKind::Administrator;
        AccountRow::new("acct".into(), username.into(), username.into(), kind, 0)
    }

    #[test]
    fn sessions_lock_after_idle_and_activity_extends_them() {
        let mut s = Sessions::default();
        s.open("a", &account("ryan"), Role::Owner, 0);
        assert_eq!(s.peek("a", IDLE_LOCK_MS - 2).map(|x| x.last_activity_ms), Some(0), "peeking is not activity");
        assert!(s.touch("a", IDLE_LOCK_MS - 1).is_some(), "activity just before the limit");
        assert!(s.touch("a", 2 * IDLE_LOCK_MS - 2).is_some(), "the last activity restarted the timer");
        assert!(s.touch("a", 3 * IDLE_LOCK_MS).is_none(), "idle for 15 minutes locks");
        assert!(s.is_empty());
    }

    #[test]
    fn lock_and_clear_remove_sessions_and_the_count_is_bounded() {
        let mut s = Sessions::default();
        for i in 0..(MAX_SESSIONS + 3) {
            s.open(format!("s{i}"), &account("admin"), Role::Administrator, i as i64);
        }
        assert_eq!(s.len(), MAX_SESSIONS);
        assert!(s.touch("s0", 100).is_none(), "oldest evicted");
        assert!(s.end("s5"));
        assert!(!s.end("s5"));
        s.clear();
        assert!(s.touch("s6", 100).is_none());
    }

    #[test]
    fn reconfirming_the_password_makes_it_fresh_and_counts_as_activity() {
        let mut s = Sessions::default();
        s.open("a", &account("ryan"), Role::Owner, 0);
        let again = s.reconfirm("a", FRESH_PASSWORD_MS * 2).unwrap();
        assert_eq!((again.authenticated_ms, again.last_activity_ms), (FRESH_PASSWORD_MS * 2, FRESH_PASSWORD_MS * 2));
        assert_eq!(s.peek("a", FRESH_PASSWORD_MS * 2).unwrap().authenticated_ms, FRESH_PASSWORD_MS * 2);
        assert!(s.reconfirm("missing", 0).is_none());
    }

    fn versioned(version: i64) -> infra::privileged::AccountRow {
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
        let mut s = Sessions::default();
        s.open("b", &versioned(1), Role::Publisher, 0);
        assert!(!s.take_approval("b", 10), "signing in is not an approval");
        s.approve("b", 100).unwrap();
        assert!(s.take_approval("b", 100 + FRESH_PASSWORD_MS - 1));
        assert!(!s.take_approval("b", 200), "one confirmation approves one command");
        s.approve("b", 1_000).unwrap();
        assert!(!s.take_approval("b", 1_000 + FRESH_PASSWORD_MS), "stale after 5 minutes");
    }

    #[test]
    fn ending_or_reopening_a_session_drops_its_approval_and_keeps_the_new_credential() {
        let mut s = Sessions::default();
        s.open("b", &versioned(3), Role::Publisher, 0);
        assert_eq!(s.peek("b", 0).map(|x| x.credential_version), Some(3));
        s.approve("b", 1).unwrap();
        s.open("b", &versioned(4), Role::Publisher, 2);
        assert!(!s.take_approval("b", 3), "a new sign-in starts without an approval");
        assert_eq!(s.peek("b", 3).map(|x| x.credential_version), Some(4));
        assert!(s.end("b"));
        assert!(s.touch("b", 4).is_none());
        assert!(s.approve("b", 5).is_none(), "no approval without a session");
    }
}
