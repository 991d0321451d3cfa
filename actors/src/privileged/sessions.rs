//! Server-local privileged sessions (the Relay server PC's administration surface), and the
//! store Relay Web's protected sessions keep theirs in. A session is opened with a protected
//! account's password, lives only in memory, and follows `session_policy` (idle lock, fresh
//! password, the account's credential version); lock, a Relay sign-out on the server PC and
//! reconfiguration clear it. Session ids are random and never logged.

use std::collections::HashMap;

use domain::roles::Role;
use infra::privileged::AccountRow;

use super::session_policy::{is_idle, SessionStore};

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

#[derive(Debug, Default)]
pub struct Sessions {
    by_id: HashMap<String, LocalSession>,
}

impl Sessions {
    /// Opens session `id` for `account` (as the records hold it after its password check).
    pub fn open(&mut self, id: String, account: &AccountRow, role: Role, now_ms: i64) {
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

    pub fn lock(&mut self, id: &str) -> bool {
        self.by_id.remove(id).is_some()
    }

    /// Clears every session (disconnect, reconfiguration, shutdown).
    pub fn clear(&mut self) {
        self.by_id.clear();
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

impl SessionStore for Sessions {
    fn touch(&mut self, id: &str, now_ms: i64) -> Option<LocalSession> {
        Sessions::touch(self, id, now_ms)
    }

    fn peek(&mut self, id: &str, now_ms: i64) -> Option<LocalSession> {
        Sessions::peek(self, id, now_ms)
    }

    fn end(&mut self, id: &str) -> bool {
        self.lock(id)
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
        s.open("a".into(), &account("ryan"), Role::Owner, 0);
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
        assert!(s.lock("s5"));
        assert!(!s.lock("s5"));
        s.clear();
        assert!(s.touch("s6", 100).is_none());
    }

    #[test]
    fn reconfirming_the_password_makes_it_fresh_and_counts_as_activity() {
        let mut s = Sessions::default();
        s.open("a".into(), &account("ryan"), Role::Owner, 0);
        let again = s.reconfirm("a", FRESH_PASSWORD_MS * 2).unwrap();
        assert_eq!((again.authenticated_ms, again.last_activity_ms), (FRESH_PASSWORD_MS * 2, FRESH_PASSWORD_MS * 2));
        assert_eq!(s.peek("a", FRESH_PASSWORD_MS * 2).unwrap().authenticated_ms, FRESH_PASSWORD_MS * 2);
        assert!(s.reconfirm("missing", 0).is_none());
    }
}
