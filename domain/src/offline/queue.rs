//! The desktop client's offline writes, as rules: the shape the renderer sends
//! (`OfflineMutation`), its checks with the operator-facing texts (`MutationError`, the
//! original's wording), how a new write folds into the change already queued for the same
//! record (`coalesce`: create+delete cancels, create+update stays a create, anything later
//! replaces the queued change at the next version), and the optimistic record the cache shows
//! until the server confirms (`optimistic_record`). The store applies these in one transaction.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::{MAX_CHANGE_DATA_BYTES, OFFLINE_WRITABLE};
use crate::validation::is_record_id;

/// Fields the server owns; an offline write never sets them.
pub const SERVER_FIELDS: &[&str] = &["id", "created", "updated", "collectionId", "collectionName", "expand"];

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum MutationAction {
    Create,
    Update,
    Delete,
}

impl MutationAction {
    pub fn as_str(self) -> &'static str {
        match self {
            MutationAction::Create => "create",
            MutationAction::Update => "update",
            MutationAction::Delete => "delete",
        }
    }

    pub fn parse(s: &str) -> Option<MutationAction> {
        match s {
            "create" => Some(MutationAction::Create),
            "update" => Some(MutationAction::Update),
            "delete" => Some(MutationAction::Delete),
            _ => None,
        }
    }
}

/// One offline write as the renderer sends it (exact keys).
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct OfflineMutation {
    pub collection: String,
    pub action: MutationAction,
    #[serde(default)]
    pub record_id: Option<String>,
    #[serde(default)]
    pub data: Option<Value>,
}

/// Why an offline write was refused; the texts are what the operator reads.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MutationError {
    #[error("Collection is not available offline")]
    CollectionNotOffline,
    #[error("Invalid record ID")]
    InvalidRecordId,
    #[error("Mutation data is required")]
    DataRequired,
    #[error("Delete mutations cannot include data")]
    DeleteWithData,
    #[error("Invalid mutation data")]
    InvalidData,
    #[error("Mutation exceeds size limit")]
    TooLarge,
}

/// A write that passed its checks: `data` has no server-owned field and fits the limit.
#[derive(Debug, Clone, PartialEq)]
pub struct CheckedMutation {
    pub collection: String,
    pub action: MutationAction,
    /// Present for update/delete; for a create, the client's chosen id if it gave one.
    pub record_id: Option<String>,
    pub data: Option<Map<String, Value>>,
}

/// Checks one write against the offline rules (collection, id, data presence and size).
pub fn check_mutation(m: &OfflineMutation) -> Result<CheckedMutation, MutationError> {
    if !OFFLINE_WRITABLE.contains(&m.collection.as_str()) {
        return Err(MutationError::CollectionNotOffline);
    }
    match (&m.record_id, m.action) {
        (Some(id), _) if !is_record_id(id) => return Err(MutationError::InvalidRecordId),
        (None, MutationAction::Update | MutationAction::Delete) => return Err(MutationError::InvalidRecordId),
        _ => {}
    }
    let data = match (m.action, &m.data) {
        (MutationAction::Delete, Some(_)) => return Err(MutationError::DeleteWithData),
        (MutationAction::Delete, None) => None,
        (_, None) => return Err(MutationError::DataRequired),
        (_, Some(Value::Object(map))) => {
            let mut map = map.clone();
            map.retain(|k, _| !SERVER_FIELDS.contains(&k.as_str()));
            let size = serde_json::to_vec(&map).map_err(|_| MutationError::InvalidData)?.len();
            if size > MAX_CHANGE_DATA_BYTES {
                return Err(MutationError::TooLarge);
            }
            Some(map)
        }
        (_, Some(_)) => return Err(MutationError::InvalidData),
    };
    Ok(CheckedMutation { collection: m.collection.clone(), action: m.action, record_id: m.record_id.clone(), data })
}

/// The change already queued for a record: its action and data.
#[derive(Debug, Clone, PartialEq)]
pub struct QueuedChange {
    pub action: MutationAction,
    pub data: Option<Map<String, Value>>,
}

/// What the queue does with a new write for a record.
#[derive(Debug, Clone, PartialEq)]
pub enum Coalesced {
    /// Nothing was queued: insert this change.
    Insert { action: MutationAction, data: Option<Map<String, Value>> },
    /// The queued change becomes this one at the next version (sync error cleared; the
    /// original base stays).
    Replace { action: MutationAction, data: Option<Map<String, Value>> },
    /// A queued create deleted before it reached the server: drop both.
    Cancel,
}

/// Folds `incoming` into what is queued for the same record. Refuses a create of a record that
/// is queued (or cached) and any write after a queued delete.
pub fn coalesce(
    queued: Option<&QueuedChange>,
    action: MutationAction,
    data: Option<Map<String, Value>>,
) -> Result<Coalesced, MutationError> {
    let Some(queued) = queued else { return Ok(Coalesced::Insert { action, data }) };
    match (queued.action, action) {
        (_, MutationAction::Create) | (MutationAction::Delete, _) => Err(MutationError::InvalidRecordId),
        (MutationAction::Create, MutationAction::Delete) => Ok(Coalesced::Cancel),
        (MutationAction::Create, MutationAction::Update) => {
            Ok(Coalesced::Replace { action: MutationAction::Create, data: Some(merge(queued.data.as_ref(), data)) })
        }
        (MutationAction::Update, MutationAction::Update) => {
            Ok(Coalesced::Replace { action: MutationAction::Update, data: Some(merge(queued.data.as_ref(), data)) })
        }
        (MutationAction::Update, MutationAction::Delete) => {
            Ok(Coalesced::Replace { action: MutationAction::Delete, data: None })
        }
    }
}

/// The queued fields with the new ones over them (an update sends only what it changes).
fn merge(queued: Option<&Map<String, Value>>, data: Option<Map<String, Value>>) -> Map<String, Value> {
    let mut out = queued.cloned().unwrap_or_default();
    out.extend(data.unwrap_or_default());
    out
}

/// The record the cache shows until the server answers: the cached record with the written
/// fields over it, its id, the cached `created` (or now) and `updated` now.
pub fn optimistic_record(existing: Option<&Value>, data: &Map<String, Value>, id: &str, now_iso: &str) -> Value {
    let mut record = existing.and_then(Value::as_object).cloned().unwrap_or_default();
    record.extend(data.clone());
    record.insert("id".into(), Value::String(id.into()));
    let created = existing.and_then(|e| e.get("created")).cloned().unwrap_or_else(|| Value::String(now_iso.into()));
    record.insert("created".into(), created);
    record.insert("updated".into(), Value::String(now_iso.into()));
    Value::Object(record)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn mutation(v: Value) -> OfflineMutation {
        serde_json::from_value(v).unwrap()
    }

    fn obj(v: Value) -> Map<String, Value> {
        v.as_object().unwrap().clone()
    }

    #[test]
    fn checks_collection_id_and_data_with_the_original_texts() {
        let ok = check_mutation(&mutation(
            json!({"collection": "contacts", "action": "create", "data": {"name": "A", "id": "x", "updated": "u"}}),
        ))
        .unwrap();
        assert_eq!(ok.data, Some(obj(json!({"name": "A"}))), "server-owned fields dropped");
        let cases = [
            (
                json!({"collection": "conflict_log", "action": "create", "data": {}}),
                "Collection is not available offline",
            ),
            (
                json!({"collection": "users", "action": "update", "recordId": "abcdefghijklmno", "data": {}}),
                "Collection is not available offline",
            ),
            (json!({"collection": "notes", "action": "update", "data": {}}), "Invalid record ID"),
            (json!({"collection": "notes", "action": "delete", "recordId": "ABC"}), "Invalid record ID"),
            (json!({"collection": "notes", "action": "create", "recordId": "short", "data": {}}), "Invalid record ID"),
            (json!({"collection": "notes", "action": "create"}), "Mutation data is required"),
            (
                json!({"collection": "notes", "action": "delete", "recordId": "abcdefghijklmno", "data": {}}),
                "Delete mutations cannot include data",
            ),
            (json!({"collection": "notes", "action": "create", "data": [1]}), "Invalid mutation data"),
            (
                json!({"collection": "notes", "action": "create", "data": {"note": "x".repeat(MAX_CHANGE_DATA_BYTES)}}),
                "Mutation exceeds size limit",
            ),
        ];
        for (input, text) in cases {
            assert_eq!(check_mutation(&mutation(input.clone())).unwrap_err().to_string(), text, "{input}");
        }
        assert!(serde_json::from_value::<OfflineMutation>(
            json!({"collection": "notes", "action": "create", "data": {}, "extra": 1})
        )
        .is_err());
        assert!(serde_json::from_value::<OfflineMutation>(json!({"collection": "notes", "action": "upsert"})).is_err());
    }

    #[test]
    fn coalescing_follows_the_original_rules() {
        let create = QueuedChange { action: MutationAction::Create, data: Some(obj(json!({"a": 1, "b": 1}))) };
        let update = QueuedChange { action: MutationAction::Update, data: Some(obj(json!({"a": 1}))) };
        let delete = QueuedChange { action: MutationAction::Delete, data: None };
        assert_eq!(
            coalesce(None, MutationAction::Update, Some(obj(json!({"a": 2})))).unwrap(),
            Coalesced::Insert { action: MutationAction::Update, data: Some(obj(json!({"a": 2}))) }
        );
        assert_eq!(coalesce(Some(&create), MutationAction::Delete, None).unwrap(), Coalesced::Cancel);
        assert_eq!(
            coalesce(Some(&create), MutationAction::Update, Some(obj(json!({"b": 2})))).unwrap(),
            Coalesced::Replace { action: MutationAction::Create, data: Some(obj(json!({"a": 1, "b": 2}))) }
        );
        assert_eq!(
            coalesce(Some(&update), MutationAction::Update, Some(obj(json!({"c": 3})))).unwrap(),
            Coalesced::Replace { action: MutationAction::Update, data: Some(obj(json!({"a": 1, "c": 3}))) }
        );
        assert_eq!(
            coalesce(Some(&update), MutationAction::Delete, None).unwrap(),
            Coalesced::Replace { action: MutationAction::Delete, data: None }
        );
        for queued in [&create, &update, &delete] {
            assert_eq!(
                coalesce(Some(queued), MutationAction::Create, Some(Map::new())),
                Err(MutationError::InvalidRecordId)
            );
        }
        assert_eq!(
            coalesce(Some(&delete), MutationAction::Update, Some(Map::new())),
            Err(MutationError::InvalidRecordId)
        );
        assert_eq!(coalesce(Some(&delete), MutationAction::Delete, None), Err(MutationError::InvalidRecordId));
    }

    #[test]
    fn optimistic_record_keeps_created_and_sets_updated() {
        let existing = json!({"id": "abcdefghijklmno", "name": "A", "title": "T", "created": "2026-01-01 00:00:00.000Z", "updated": "old"});
        let r = optimistic_record(
            Some(&existing),
            &obj(json!({"name": "B"})),
            "abcdefghijklmno",
            "2026-12-04 10:00:00.000Z",
        );
        assert_eq!(
            r,
            json!({"id": "abcdefghijklmno", "name": "B", "title": "T", "created": "2026-01-01 00:00:00.000Z", "updated": "2026-12-04 10:00:00.000Z"})
        );
        let fresh = optimistic_record(None, &obj(json!({"name": "C"})), "zzzzzzzzzzzzzzz", "now");
        assert_eq!(fresh, json!({"id": "zzzzzzzzzzzzzzz", "name": "C", "created": "now", "updated": "now"}));
    }
}
