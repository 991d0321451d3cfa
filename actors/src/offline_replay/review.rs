//! The pending-change review (the status bar's badge): a paged list of queued changes with the
//! reason each waits, a review of one change beside the server's current copy, and its
//! resolution: "keep server" (the change is dropped and the server copy cached) or "retry with
//! my change" (the change is re-based on the server copy, with optional edits of existing
//! scalar fields, and replayed). A review issues a single-use token valid for 10 minutes (at
//! most 32 held) that pins the change's version and the server copy it showed; anything that
//! moved since, or a replay in progress, refuses the resolution.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use domain::offline::queue::MutationAction;
use domain::text::truncate_chars;
use infra::offline_store::PendingChange;

use super::engine::CONFLICT;

pub const PAGE_SIZE: u32 = 25;
pub const TOKEN_TTL_MS: i64 = 10 * 60 * 1000;
pub const MAX_TOKENS: usize = 32;
const MAX_LABEL_CHARS: usize = 200;
const MAX_RECORD_ID_CHARS: usize = 512;
const PROTECTED: &[&str] =
    &["id", "created", "updated", "revision", "queuedAt", "collectionId", "collectionName", "expand"];

pub const SYNC_IN_PROGRESS: &str = "Sync is in progress. Wait for it to finish, then review again.";
pub const STALE: &str = "This change or connection has changed. Review it again before resolving.";
pub const WAITING: &str = "Waiting to sync";
pub const COULD_NOT_SAVE: &str = "Could not save. Retry or review current server values.";

/// One line of the review list.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PendingSummary {
    pub id: i64,
    pub collection: String,
    pub action: &'static str,
    pub record_id: String,
    pub label: String,
    pub reason: &'static str,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PendingPage {
    pub items: Vec<PendingSummary>,
    pub next_after_id: Option<i64>,
}

/// What the server holds for the reviewed record.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "state", rename_all = "camelCase")]
pub enum ServerSide {
    Present {
        record: Value,
    },
    Deleted,
    /// Offline or not signed in: only "keep" is impossible, the change stays queued.
    Unavailable,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ReviewView {
    pub token: String,
    pub change: Value,
    pub local: Option<Value>,
    pub server: ServerSide,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Resolution {
    Server,
    Retry,
}

/// What a token pins.
#[derive(Debug, Clone, PartialEq)]
pub struct Ticket {
    pub change_id: i64,
    pub version: i64,
    pub server: ServerSide,
    issued_ms: i64,
}

/// The held review tokens.
#[derive(Debug, Default)]
pub struct Tickets {
    held: HashMap<String, Ticket>,
}

impl Tickets {
    pub fn issue(&mut self, token: String, change_id: i64, version: i64, server: ServerSide, now_ms: i64) {
        self.held.retain(|_, t| now_ms - t.issued_ms < TOKEN_TTL_MS);
        while self.held.len() >= MAX_TOKENS {
            let oldest = self.held.iter().min_by_key(|(_, t)| t.issued_ms).map(|(k, _)| k.clone());
            match oldest {
                Some(k) => self.held.remove(&k),
                None => break,
            };
        }
        self.held.insert(token, Ticket { change_id, version, server, issued_ms: now_ms });
    }

    /// Takes the ticket (single use) if it is known and fresh.
    pub fn take(&mut self, token: &str, now_ms: i64) -> Option<Ticket> {
        self.held.remove(token).filter(|t| now_ms - t.issued_ms < TOKEN_TTL_MS)
    }

    pub fn clear(&mut self) {
        self.held.clear();
    }
}

pub fn action_name(action: MutationAction) -> &'static str {
    match action {
        MutationAction::Create => "create",
        MutationAction::Update => "update",
        MutationAction::Delete => "delete",
    }
}

pub fn reason(change: &PendingChange) -> &'static str {
    match change.sync_error.as_str() {
        "" => WAITING,
        CONFLICT => "Server conflict",
        _ => COULD_NOT_SAVE,
    }
}

/// The record's name, title or team (from the change, else the cached copy), bounded.
pub fn label(change: &PendingChange, cached: Option<&Value>) -> String {
    let from = |v: Option<&Value>| {
        ["name", "title", "team"]
            .iter()
            .find_map(|k| v.and_then(|v| v.get(*k)).and_then(Value::as_str).map(str::to_string))
    };
    let data = change.data.as_ref().map(|d| Value::Object(d.clone()));
    let text = from(data.as_ref()).or_else(|| from(cached)).unwrap_or_default();
    truncate_chars(&text, MAX_LABEL_CHARS)
}

pub fn summary(change: &PendingChange, cached: Option<&Value>) -> PendingSummary {
    PendingSummary {
        id: change.id,
        collection: change.collection.clone(),
        action: action_name(change.action),
        record_id: truncate_chars(&change.record_id, MAX_RECORD_ID_CHARS),
        label: label(change, cached),
        reason: reason(change),
    }
}

/// The change's data with `edits` applied: each edit must name a field the change or the local
/// record already has, not a protected one, with a scalar value of the same JSON type.
pub fn apply_edits(
    data: Option<&Map<String, Value>>,
    local: Option<&Value>,
    edits: &Map<String, Value>,
) -> Result<Map<String, Value>, &'static str> {
    let mut out = data.cloned().unwrap_or_default();
    for (key, value) in edits {
        if PROTECTED.contains(&key.as_str()) {
            return Err("That field cannot be edited.");
        }
        let current = out.get(key).or_else(|| local.and_then(|l| l.get(key)));
        let same_scalar = matches!(
            (current, value),
            (Some(Value::String(_)), Value::String(_))
                | (Some(Value::Bool(_)), Value::Bool(_))
                | (Some(Value::Number(_)), Value::Number(_))
        );
        if !same_scalar {
            return Err("Only existing text, number and yes/no fields can be edited.");
        }
        out.insert(key.clone(), value.clone());
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn change(sync_error: &str, data: Value) -> PendingChange {
        PendingChange {
            id: 3,
            mutation_id: "m".into(),
            collection: "contacts".into(),
            record_id: "abcdefghijklmno".into(),
            action: MutationAction::Update,
            data: data.as_object().cloned(),
            timestamp_ms: 0,
            base_updated: String::new(),
            expected_fingerprint: String::new(),
            version: 1,
            sync_error: sync_error.into(),
        }
    }

    #[test]
    fn reasons_and_labels() {
        assert_eq!(reason(&change("", json!({}))), WAITING);
        assert_eq!(reason(&change(CONFLICT, json!({}))), "Server conflict");
        assert_eq!(reason(&change("The offline change failed record validation.", json!({}))), COULD_NOT_SAVE);
        assert_eq!(label(&change("", json!({"title": "Lead"})), Some(&json!({"name": "Ada"}))), "Lead");
        assert_eq!(label(&change("", json!({"email": "x"})), Some(&json!({"name": "Ada"}))), "Ada");
        assert_eq!(label(&change("", json!({"name": "x".repeat(500)})), None).chars().count(), 200);
    }

    #[test]
    fn edits_touch_only_existing_scalars_of_the_same_type() {
        let data = json!({"title": "Lead"});
        let local = json!({"name": "Ada", "locked": false, "tags": ["a"]});
        let ok = apply_edits(
            data.as_object(),
            Some(&local),
            json!({"title": "Chief", "name": "Ada L"}).as_object().unwrap(),
        );
        assert_eq!(Value::Object(ok.unwrap()), json!({"title": "Chief", "name": "Ada L"}));
        for bad in [
            json!({"id": "x"}),
            json!({"updated": "x"}),
            json!({"title": 3}),
            json!({"tags": ["b"]}),
            json!({"new": "x"}),
        ] {
            assert!(apply_edits(data.as_object(), Some(&local), bad.as_object().unwrap()).is_err(), "{bad}");
        }
    }

    #[test]
    fn tokens_are_single_use_expire_and_are_bounded() {
        let mut t = Tickets::default();
        t.issue("a".into(), 1, 1, ServerSide::Deleted, 0);
        assert!(t.take("a", TOKEN_TTL_MS - 1).is_some());
        assert!(t.take("a", 1).is_none(), "single use");
        t.issue("b".into(), 1, 1, ServerSide::Deleted, 0);
        assert!(t.take("b", TOKEN_TTL_MS).is_none(), "expired");
        for i in 0..40 {
            t.issue(format!("t{i}"), i, 1, ServerSide::Deleted, 100 + i);
        }
        assert!(t.held.len() <= MAX_TOKENS);
        assert!(t.take("t0", 200).is_none(), "the oldest went first");
        assert!(t.take("t39", 200).is_some());
    }
}
