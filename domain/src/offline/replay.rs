//! One queued offline change as the replay route receives it: `{collection, action, recordId,
//! expectedUpdated, expectedFingerprint, data?}` with exactly these keys. Only updates and
//! deletes of an offline-writable collection are replayed this way (a queued create is an
//! ordinary create with its client-chosen id); an update carries an object `data` of at most
//! 256 KiB, a delete carries none. [`ReplayError`] is the route's error vocabulary, and
//! [`ChangeResult`] the per-change answer of the batch form.

use serde::Serialize;
use serde_json::{Map, Value};

use crate::collections::{collection, CollectionSpec, WriteOp};
use crate::problem::HttpProblem;
use crate::record::FieldErrors;
use crate::record::RecordError;
use crate::time::parse_datetime;
use crate::validation::is_record_id;

use super::{is_fingerprint, is_offline_writable, MAX_CHANGE_DATA_BYTES};

/// Longest accepted `expectedUpdated` text.
const MAX_UPDATED_LEN: usize = 40;
const KEYS: &[&str] = &["collection", "action", "recordId", "expectedUpdated", "expectedFingerprint", "data"];

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ReplayAction {
    Update,
    Delete,
}

/// A change that passed the route's shape checks (its `data` is validated by the store
/// against the collection like any update).
#[derive(Debug, Clone, PartialEq)]
pub struct ReplayChange {
    pub spec: &'static CollectionSpec,
    pub action: ReplayAction,
    pub record_id: String,
    /// The server record's `updated` the client last saw, in wire form.
    pub expected_updated: String,
    pub expected_fingerprint: String,
    /// The fields to write (update only), without `id`, `created` and `updated`.
    pub data: Option<Value>,
}

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ReplayError {
    #[error("Invalid offline replay request.")]
    Invalid,
    #[error("This collection cannot be changed by offline replay.")]
    Forbidden,
    #[error("The server record changed. The offline change remains queued.")]
    Conflict,
    #[error("The offline change failed record validation.")]
    Validation(FieldErrors),
    #[error("{0}")]
    Store(RecordError),
}

impl From<RecordError> for ReplayError {
    fn from(e: RecordError) -> ReplayError {
        match e {
            RecordError::Validation(fields) => ReplayError::Validation(fields),
            RecordError::BadRequest(_) => ReplayError::Invalid,
            other => ReplayError::Store(other),
        }
    }
}

impl HttpProblem for ReplayError {
    fn status(&self) -> u16 {
        match self {
            ReplayError::Invalid | ReplayError::Validation(_) => 400,
            ReplayError::Forbidden => 403,
            ReplayError::Conflict => 409,
            ReplayError::Store(e) => e.status(),
        }
    }

    fn code(&self) -> &'static str {
        match self {
            ReplayError::Invalid => "invalid_replay",
            ReplayError::Forbidden => "forbidden",
            ReplayError::Conflict => "replay_conflict",
            ReplayError::Validation(_) => "validation_failed",
            ReplayError::Store(e) => e.code(),
        }
    }

    fn data(&self) -> Value {
        match self {
            ReplayError::Validation(fields) => serde_json::json!({ "code": self.code(), "fields": fields }),
            _ => serde_json::json!({ "code": self.code() }),
        }
    }
}

/// One change's answer in the batch form: `{status: 200, applied: true}` or `{status, code,
/// message}` (a 409 means the change stays queued on the client).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ChangeResult {
    pub status: u16,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub applied: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub code: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
}

impl ChangeResult {
    pub fn of(outcome: &Result<(), ReplayError>) -> ChangeResult {
        match outcome {
            Ok(()) => ChangeResult { status: 200, applied: true, code: None, message: None },
            Err(e) => {
                ChangeResult { status: e.status(), applied: false, code: Some(e.code()), message: Some(e.message()) }
            }
        }
    }
}

fn text<'a>(map: &'a Map<String, Value>, key: &str) -> Result<&'a str, ReplayError> {
    map.get(key).and_then(Value::as_str).ok_or(ReplayError::Invalid)
}

/// Checks one change's shape. Collections outside the offline allowlist answer `Forbidden`
/// (403) when they are managed collections and `Invalid` otherwise, so the route never says
/// which unmanaged names exist.
pub fn parse_replay_change(body: &Value) -> Result<ReplayChange, ReplayError> {
    let map = body.as_object().ok_or(ReplayError::Invalid)?;
    if map.keys().any(|k| !KEYS.contains(&k.as_str())) {
        return Err(ReplayError::Invalid);
    }
    let name = text(map, "collection")?;
    let spec = collection(name).ok_or(ReplayError::Invalid)?;
    if !is_offline_writable(name) {
        return Err(ReplayError::Forbidden);
    }
    let action = match text(map, "action")? {
        "update" => ReplayAction::Update,
        "delete" => ReplayAction::Delete,
        _ => return Err(ReplayError::Invalid),
    };
    let op = match action {
        ReplayAction::Update => WriteOp::Update,
        ReplayAction::Delete => WriteOp::Delete,
    };
    if !spec.writes.permits(op) {
        return Err(ReplayError::Forbidden);
    }
    let record_id = text(map, "recordId")?;
    if !is_record_id(record_id) {
        return Err(ReplayError::Invalid);
    }
    let expected_updated = text(map, "expectedUpdated")?;
    if expected_updated.len() > MAX_UPDATED_LEN || parse_datetime(expected_updated).is_err() {
        return Err(ReplayError::Invalid);
    }
    let expected_fingerprint = text(map, "expectedFingerprint")?;
    if !is_fingerprint(expected_fingerprint) {
        return Err(ReplayError::Invalid);
    }
    let data = match (action, map.get("data")) {
        (ReplayAction::Update, Some(Value::Object(fields))) => {
            let size = serde_json::to_vec(fields).map(|b| b.len()).unwrap_or(usize::MAX);
            if size > MAX_CHANGE_DATA_BYTES {
                return Err(ReplayError::Invalid);
            }
            let mut fields = fields.clone();
            for key in ["id", "created", "updated"] {
                fields.remove(key);
            }
            Some(Value::Object(fields))
        }
        (ReplayAction::Delete, None) => None,
        _ => return Err(ReplayError::Invalid),
    };
    Ok(ReplayChange {
        spec,
        action,
        record_id: record_id.to_string(),
        expected_updated: expected_updated.to_string(),
        expected_fingerprint: expected_fingerprint.to_string(),
        data,
    })
}
