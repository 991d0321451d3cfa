//! Presence rules (pure): who owns a presence row and how many rows a caller may hold. A row's
//! key is the presence id, a digest of the caller's logical session (what its verified token
//! belongs to) and the tab id the client sends ([`presence_id`]); so a heartbeat can only ever
//! reach rows of its own session, and the ids others read (the presence list, the
//! `client_presence` collection) are neither a tab id nor usable as one. [`PresenceRegistry`]
//! bounds the rows: 8 tabs per logical session, 32 rows per source address, 1,000 in all. A new
//! tab over a bound takes the place of the least recently seen idle row in that scope (a closed
//! tab), or is refused while every row there is active.

use std::collections::HashMap;
use std::net::IpAddr;

use sha2::{Digest, Sha256};

/// The longest tab id a client may send.
pub const MAX_TAB_ID_LEN: usize = 200;

/// Bounds on presence rows; `Default` gives the production numbers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PresenceLimits {
    /// Rows (tabs, windows) of one logical session: 8.
    pub per_session: usize,
    /// Rows from one source address: 32.
    pub per_source: usize,
    /// Rows in all: 1,000 (as many as one presence sweep reads).
    pub total: usize,
    /// A row not seen for this long is idle and may give its place to a new tab: 45 s, the
    /// active window (three missed heartbeats).
    pub idle_after_ms: i64,
}

impl Default for PresenceLimits {
    fn default() -> Self {
        PresenceLimits { per_session: 8, per_source: 32, total: 1_000, idle_after_ms: 45_000 }
    }
}

/// Which bound refused a new tab.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum PresenceLimit {
    #[error("This session already shows {0} active clients.")]
    PerSession(usize),
    #[error("This address already shows {0} active clients.")]
    PerSource(usize),
    #[error("Presence already shows {0} active clients.")]
    Total(usize),
}

/// The tab id a client sent, trimmed, if it is usable (1 to 200 characters, no control
/// characters).
pub fn checked_tab_id(raw: &str) -> Option<&str> {
    let tab = raw.trim();
    let usable = !tab.is_empty() && tab.len() <= MAX_TAB_ID_LEN && !tab.chars().any(char::is_control);
    usable.then_some(tab)
}

/// The presence id of `tab_id` in `logical_session`: 32 hex digits, the same for every
/// heartbeat of that tab in that session, different in any other session.
pub fn presence_id(logical_session: &str, tab_id: &str) -> String {
    let digest = Sha256::digest(format!("relay-presence:{logical_session}:{tab_id}").as_bytes());
    digest[..16].iter().map(|b| format!("{b:02x}")).collect()
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct Tab {
    session: String,
    source: Option<IpAddr>,
    last_seen_ms: i64,
}

#[derive(Debug, Clone, Copy)]
enum Scope<'a> {
    Session(&'a str),
    Source(Option<IpAddr>),
    All,
}

impl Scope<'_> {
    fn holds(&self, tab: &Tab) -> bool {
        match self {
            Scope::Session(session) => tab.session == *session,
            Scope::Source(source) => tab.source == *source,
            Scope::All => true,
        }
    }
}

/// The rows the server knows the owner of (those heartbeated since it started), with their
/// session, source address and last heartbeat.
#[derive(Debug, Clone)]
pub struct PresenceRegistry {
    limits: PresenceLimits,
    tabs: HashMap<String, Tab>,
}

impl PresenceRegistry {
    pub fn new(limits: PresenceLimits) -> PresenceRegistry {
        PresenceRegistry { limits, tabs: HashMap::new() }
    }

    /// Records a heartbeat of row `id` (from [`presence_id`]) of `session` from `source` at
    /// `now_ms`. A known row is refreshed. A new row is admitted when every bound has room,
    /// after idle rows give theirs: answers the ids of those rows (to delete), or the bound
    /// that refuses it (nothing changes then).
    pub fn admit(
        &mut self,
        id: &str,
        session: &str,
        source: Option<IpAddr>,
        now_ms: i64,
    ) -> Result<Vec<String>, PresenceLimit> {
        if let Some(tab) = self.tabs.get_mut(id) {
            tab.last_seen_ms = tab.last_seen_ms.max(now_ms);
            tab.source = source;
            return Ok(Vec::new());
        }
        let limits = self.limits;
        let mut evicted: Vec<String> = Vec::new();
        let bounds = [
            (Scope::Session(session), limits.per_session, PresenceLimit::PerSession(limits.per_session)),
            (Scope::Source(source), limits.per_source, PresenceLimit::PerSource(limits.per_source)),
            (Scope::All, limits.total, PresenceLimit::Total(limits.total)),
        ];
        for (scope, cap, refusal) in bounds {
            let staying = |(id, tab): &(&String, &Tab)| scope.holds(tab) && !evicted.contains(id);
            let mut held = self.tabs.iter().filter(staying).count();
            while held >= cap.max(1) {
                let idle = self
                    .tabs
                    .iter()
                    .filter(|(id, tab)| {
                        scope.holds(tab) && !evicted.contains(id) && now_ms - tab.last_seen_ms > limits.idle_after_ms
                    })
                    .min_by(|(a_id, a), (b_id, b)| a.last_seen_ms.cmp(&b.last_seen_ms).then(a_id.cmp(b_id)))
                    .map(|(id, _)| id.clone());
                let Some(idle) = idle else {
                    return Err(refusal);
                };
                evicted.push(idle);
                held -= 1;
            }
        }
        for id in &evicted {
            self.tabs.remove(id);
        }
        self.tabs.insert(id.to_string(), Tab { session: session.to_string(), source, last_seen_ms: now_ms });
        Ok(evicted)
    }

    /// Forgets rows last seen before `cutoff_ms` (the store prunes them at the same time);
    /// answers how many.
    pub fn forget_unseen_since(&mut self, cutoff_ms: i64) -> usize {
        let before = self.tabs.len();
        self.tabs.retain(|_, tab| tab.last_seen_ms >= cutoff_ms);
        before - self.tabs.len()
    }

    /// How many rows the registry knows.
    pub fn len(&self) -> usize {
        self.tabs.len()
    }

    pub fn is_empty(&self) -> bool {
        self.tabs.is_empty()
    }
}

#[cfg(test)]
#[path = "presence_tests.rs"]
mod tests;
