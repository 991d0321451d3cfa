//! Offline writes and their guarded replay, as rules: which collections a desktop client may
//! change while the server is unreachable (`OFFLINE_WRITABLE`), the size and batch limits, and
//! the record fingerprint both sides compute (SHA-256 of the record's canonical record-form
//! JSON with `expand` dropped, see `docs/offline-replay.md`). `queue` holds the desktop client's side: checking and coalescing
//! queued changes. `replay` parses and checks one
//! queued change sent to `POST /api/relay/offline/replay`; `servers_sync` parses the operations
//! of a Servers complete-file sync batch. The store applies both inside one write transaction.

pub mod queue;
pub mod replay;
pub mod servers_sync;

use serde_json::Value;

use crate::canonical::{canonical_record_json, sha256_hex, CanonicalError};

/// Collections a desktop client may change offline (the original's twelve plus Relay's
/// standalone notes). Server-owned collections, the conflict log, presence and every protected
/// or managed collection are never writable offline; the two Dynatrace collections accept only
/// what their write rule permits (`Writes::permits`: no delete of an addressed state, notes
/// append-only).
pub const OFFLINE_WRITABLE: &[&str] = &[
    "contacts",
    "servers",
    "oncall",
    "bridge_groups",
    "bridge_history",
    "alert_history",
    "alert_reminders",
    "notes",
    "standalone_notes",
    "oncall_dismissals",
    "oncall_board_settings",
    "dynatrace_problem_states",
    "dynatrace_problem_notes",
];

/// Largest queued change (its `data` as JSON).
pub const MAX_CHANGE_DATA_BYTES: usize = 256 * 1024;
/// Largest body of the single-change replay route (a 256 KiB change plus its envelope).
pub const MAX_REPLAY_BODY: usize = 264 * 1024;
/// Most changes in one batch replay request.
pub const MAX_REPLAY_BATCH: usize = 100;
/// Largest body of the batch replay route and the Servers sync route.
pub const MAX_BATCH_BODY: usize = 4 * 1024 * 1024;

/// Whether `collection` may be changed offline.
pub fn is_offline_writable(collection: &str) -> bool {
    OFFLINE_WRITABLE.contains(&collection)
}

/// The fingerprint of a record as the record API renders it: SHA-256 (lowercase hex) of its
/// canonical record-form JSON, keys sorted recursively, with a top-level `expand` removed.
pub fn record_fingerprint(record: &Value) -> Result<String, CanonicalError> {
    match record {
        Value::Object(map) if map.contains_key("expand") => {
            let mut public = map.clone();
            public.remove("expand");
            Ok(sha256_hex(canonical_record_json(&Value::Object(public))?.as_bytes()))
        }
        other => Ok(sha256_hex(canonical_record_json(other)?.as_bytes())),
    }
}

/// Whether `s` is a fingerprint's shape (64 lowercase hex digits).
pub fn is_fingerprint(s: &str) -> bool {
    s.len() == 64 && s.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

#[cfg(test)]
mod tests;
