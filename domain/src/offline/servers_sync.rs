//! One batch of a Servers complete-file sync as `POST /api/relay/servers/sync` receives it:
//! `{operations: [...]}` with 1 to 100 operations, each `{action: create, data}`, `{action:
//! update, recordId, expected, data}` or `{action: delete, recordId, expected}`, where
//! `expected` is the whole record the operator reviewed in the preview. The store applies a
//! batch only when every `expected` still equals the stored record (compared by fingerprint),
//! all in one write transaction; [`SyncError`] is the route's error vocabulary.

use std::collections::HashSet;

use serde_json::{Map, Value};

use crate::problem::HttpProblem;
use crate::record::FieldErrors;
use crate::record::RecordError;
use crate::validation::is_record_id;

use super::MAX_REPLAY_BATCH;

/// Keys removed from an operation's `data` before validation: the server maintains them.
const SERVER_KEYS: &[&str] = &["id", "created", "updated", "revision", "collectionId", "collectionName", "expand"];

#[derive(Debug, Clone, PartialEq)]
pub enum SyncOperation {
    Create { data: Value },
    Update { record_id: String, expected: Value, data: Value },
    Delete { record_id: String, expected: Value },
}

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SyncError {
    #[error("Invalid Servers sync request: {0}")]
    Invalid(&'static str),
    #[error("The Servers list changed after the preview.")]
    Conflict,
    #[error("The Servers import failed record validation.")]
    Validation { operation: usize, fields: FieldErrors },
    #[error("{0}")]
    Store(RecordError),
}

impl SyncError {
    /// The error for operation `index` failing in the store.
    pub fn from_record(index: usize, e: RecordError) -> SyncError {
        match e {
            RecordError::Validation(fields) => SyncError::Validation { operation: index, fields },
            RecordError::BadRequest(_) => SyncError::Invalid("an operation's data is not an object"),
            other => SyncError::Store(other),
        }
    }
}

impl From<RecordError> for SyncError {
    fn from(e: RecordError) -> SyncError {
        SyncError::Store(e)
    }
}

impl HttpProblem for SyncError {
    fn status(&self) -> u16 {
        match self {
            SyncError::Invalid(_) | SyncError::Validation { .. } => 400,
            SyncError::Conflict => 409,
            SyncError::Store(e) => e.status(),
        }
    }

    fn code(&self) -> &'static str {
        match self {
            SyncError::Invalid(_) => "invalid_sync",
            SyncError::Conflict => "sync_conflict",
            SyncError::Validation { .. } => "validation_failed",
            SyncError::Store(e) => e.code(),
        }
    }

    fn data(&self) -> Value {
        match self {
            SyncError::Validation { operation, fields } => {
                serde_json::json!({ "code": self.code(), "operation": operation, "fields": fields })
            }
            _ => serde_json::json!({ "code": self.code() }),
        }
    }
}

fn clean_data(value: Option<&Value>) -> Result<Value, SyncError> {
    let Some(Value::Object(fields)) = value else {
        return Err(SyncError::Invalid("create and update need an object `data`"));
    };
    let mut fields: Map<String, Value> = fields.clone();
    fields.retain(|k, _| !SERVER_KEYS.contains(&k.as_str()));
    Ok(Value::Object(fields))
}

fn target(op: &Map<String, Value>) -> Result<(String, Value), SyncError> {
    let record_id = op.get("recordId").and_then(Value::as_str).filter(|id| is_record_id(id));
    let record_id = record_id.ok_or(SyncError::Invalid("`recordId` must be a record id"))?;
    let expected = match op.get("expected") {
        Some(Value::Object(e))
            if e.get("id").and_then(Value::as_str) == Some(record_id)
                && e.get("updated").is_some_and(Value::is_string) =>
        {
            Value::Object(e.clone())
        }
        _ => return Err(SyncError::Invalid("`expected` must be the reviewed record with this id")),
    };
    Ok((record_id.to_string(), expected))
}

fn parse_operation(op: &Value) -> Result<SyncOperation, SyncError> {
    let op = op.as_object().ok_or(SyncError::Invalid("each operation must be an object"))?;
    let allowed: &[&str] = match op.get("action").and_then(Value::as_str) {
        Some("create") => &["action", "data"],
        Some("update") => &["action", "recordId", "expected", "data"],
        Some("delete") => &["action", "recordId", "expected"],
        _ => return Err(SyncError::Invalid("`action` must be create, update or delete")),
    };
    if op.keys().any(|k| !allowed.contains(&k.as_str())) {
        return Err(SyncError::Invalid("an operation carries a key its action does not take"));
    }
    Ok(match op["action"].as_str() {
        Some("create") => SyncOperation::Create { data: clean_data(op.get("data"))? },
        Some("update") => {
            let (record_id, expected) = target(op)?;
            SyncOperation::Update { record_id, expected, data: clean_data(op.get("data"))? }
        }
        _ => {
            let (record_id, expected) = target(op)?;
            SyncOperation::Delete { record_id, expected }
        }
    })
}

/// Parses a sync batch body; refuses empty or oversized batches and two operations on the
/// same record.
pub fn parse_sync_batch(body: &Value) -> Result<Vec<SyncOperation>, SyncError> {
    let map = body.as_object().ok_or(SyncError::Invalid("the body must be an object"))?;
    if map.keys().any(|k| k != "operations") {
        return Err(SyncError::Invalid("the body takes only `operations`"));
    }
    let ops = map.get("operations").and_then(Value::as_array).ok_or(SyncError::Invalid("`operations` is required"))?;
    if ops.is_empty() || ops.len() > MAX_REPLAY_BATCH {
        return Err(SyncError::Invalid("a batch holds 1 to 100 operations"));
    }
    let parsed: Vec<SyncOperation> = ops.iter().map(parse_operation).collect::<Result<_, _>>()?;
    let mut targets = HashSet::new();
    for op in &parsed {
        if let SyncOperation::Update { record_id, .. } | SyncOperation::Delete { record_id, .. } = op {
            if !targets.insert(record_id.as_str()) {
                return Err(SyncError::Invalid("two operations target the same record"));
            }
        }
    }
    Ok(parsed)
}
