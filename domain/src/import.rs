//! Bulk import rules (Data Manager): which collections accept imports, their upsert keys, the
//! metadata keys stripped from incoming rows, the coercion of CSV-shaped values (JSON arrays and
//! objects that arrive as strings), and per-row validation. Planning is all-or-nothing: the
//! store applies a plan only when no row has an error, in a single transaction. Also the bounds
//! an import body is read against before any record becomes a `Value` (body size, record count,
//! bytes per record) and their typed refusals; planning takes one record at a time, so at most
//! one is held as a `Value`.

use std::borrow::Borrow;

use serde::Serialize;
use serde_json::{Map, Value};

use crate::collections::{collection, CollectionSpec, FieldKind};
use crate::problem::HttpProblem;
use crate::record::RecordError;
use crate::validation::{validate_write, ValidatedWrite, WriteMode};

pub const MAX_IMPORT_RECORDS: usize = 10_000;
/// Largest import request body: a 25 MB file's rows as JSON, with room for the column names
/// every row repeats.
pub const MAX_IMPORT_BODY_BYTES: usize = 32 * 1024 * 1024;
/// Largest record in an import body, as JSON: what the record API takes for one create (an
/// alert's HTML body of up to 750,000 characters with its other fields).
pub const MAX_IMPORT_RECORD_BYTES: usize = 1024 * 1024;
/// Keys removed from every incoming row before validation.
pub const STRIPPED_KEYS: &[&str] =
    &["id", "created", "updated", "createdAt", "updatedAt", "collectionId", "collectionName", "expand", "revision"];

/// The logical key an import row is matched on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UpsertKey {
    pub field: &'static str,
    pub case_insensitive: bool,
}

impl UpsertKey {
    /// The comparable form of a key value (trimmed; lowercased when case-insensitive).
    pub fn normalize(&self, raw: &str) -> String {
        let trimmed = raw.trim();
        if self.case_insensitive {
            trimmed.to_lowercase()
        } else {
            trimmed.to_string()
        }
    }
}

/// Collections that accept imports and their upsert key (None: always insert).
pub fn import_target(name: &str) -> Option<(&'static CollectionSpec, Option<UpsertKey>)> {
    let key = |field, case_insensitive| Some(UpsertKey { field, case_insensitive });
    let upsert = match name {
        "contacts" => key("email", true),
        "servers" => key("name", false),
        "bridge_groups" => key("name", false),
        "notes" => key("entityKey", false),
        "oncall" | "bridge_history" | "alert_history" | "standalone_notes" => None,
        _ => return None,
    };
    collection(name).map(|spec| (spec, upsert))
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RowError {
    /// 1-based row number in the submitted list.
    pub row: usize,
    pub field: Option<String>,
    pub code: &'static str,
    pub message: String,
}

/// One validated row: the full create form, the update form (only the fields present) and its
/// normalized key, if the collection has one and the row carries a non-empty value.
#[derive(Debug, Clone, PartialEq)]
pub struct PlannedRow {
    pub row: usize,
    pub key: Option<String>,
    pub create: ValidatedWrite,
    pub update: ValidatedWrite,
}

#[derive(Debug, Clone, PartialEq)]
pub struct ImportPlan {
    pub spec: &'static CollectionSpec,
    pub key: Option<UpsertKey>,
    pub rows: Vec<PlannedRow>,
    pub errors: Vec<RowError>,
}

/// Parses a CSV-style string into JSON for array/object fields; other values pass through.
fn coerce(spec: &CollectionSpec, key: &str, value: Value) -> Value {
    match (spec.field(key).map(|f| f.kind), value) {
        (Some(FieldKind::Json { .. }), Value::String(s)) if s.trim().is_empty() => Value::Null,
        (Some(FieldKind::Json { .. }), Value::String(s)) => serde_json::from_str(&s).unwrap_or(Value::String(s)),
        (_, v) => v,
    }
}

fn clean_row(spec: &CollectionSpec, row: &Map<String, Value>) -> Value {
    let cleaned: Map<String, Value> = row
        .iter()
        .filter(|(k, _)| !STRIPPED_KEYS.contains(&k.as_str()))
        .map(|(k, v)| (k.clone(), coerce(spec, k, v.clone())))
        .collect();
    Value::Object(cleaned)
}

fn row_errors(row: usize, err: RecordError) -> Vec<RowError> {
    match err {
        RecordError::Validation(fields) => fields
            .into_iter()
            .map(|(field, e)| RowError { row, field: Some(field), code: e.code, message: e.message })
            .collect(),
        other => vec![RowError { row, field: None, code: "validation_invalid_row", message: other.to_string() }],
    }
}

/// Validates every row of an import; collects all row errors instead of stopping at the first.
pub fn plan_import(collection_name: &str, records: &[Value]) -> Result<ImportPlan, RecordError> {
    plan_import_each(collection_name, records.iter().map(Ok))
}

/// `plan_import` over records produced one at a time (each a `Value`, or why it could not be
/// read as one), so a caller holding the records as JSON text never has them all as `Value`s.
pub fn plan_import_each<R, I>(collection_name: &str, records: I) -> Result<ImportPlan, RecordError>
where
    R: Borrow<Value>,
    I: ExactSizeIterator<Item = Result<R, String>>,
{
    let (spec, key) = import_target(collection_name)
        .ok_or_else(|| RecordError::BadRequest(format!("{collection_name:?} does not accept imports.")))?;
    if records.len() > MAX_IMPORT_RECORDS {
        return Err(RecordError::BadRequest(format!("At most {MAX_IMPORT_RECORDS} records can be imported at once.")));
    }
    let mut rows = Vec::with_capacity(records.len());
    let mut errors = Vec::new();
    for (i, record) in records.enumerate() {
        let row = i + 1;
        let invalid = |message: String| RowError { row, field: None, code: "validation_invalid_row", message };
        let record = match record {
            Ok(record) => record,
            Err(message) => {
                errors.push(invalid(message));
                continue;
            }
        };
        let Some(map) = record.borrow().as_object() else {
            errors.push(invalid("Each record must be an object.".into()));
            continue;
        };
        let body = clean_row(spec, map);
        let create = validate_write(spec, &body, WriteMode::Create);
        let update = validate_write(spec, &body, WriteMode::Update);
        match (create, update) {
            (Ok(create), Ok(update)) => {
                let key_value = key.and_then(|k| body.get(k.field).and_then(Value::as_str).map(|v| k.normalize(v)));
                rows.push(PlannedRow { row, key: key_value.filter(|v| !v.is_empty()), create, update });
            }
            (Err(e), _) | (_, Err(e)) => errors.extend(row_errors(row, e)),
        }
    }
    Ok(ImportPlan { spec, key, rows, errors })
}

/// Why an import request was refused before planning, or the store's own refusal. Nothing is
/// stored when any of these is answered.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ImportError {
    #[error("At most {MAX_IMPORT_RECORDS} records can be imported at once.")]
    TooManyRecords,
    #[error("Record {row} is larger than {} KiB of JSON, the most one imported record may hold.", MAX_IMPORT_RECORD_BYTES / 1024)]
    RecordTooLarge { row: usize },
    /// Not `{records: [...], apply?: bool}` JSON (the record API's 400 for malformed bodies).
    #[error("Failed to load the submitted data due to invalid formatting.")]
    Malformed,
    #[error(transparent)]
    Record(#[from] RecordError),
}

impl HttpProblem for ImportError {
    fn status(&self) -> u16 {
        match self {
            ImportError::TooManyRecords | ImportError::RecordTooLarge { .. } => 413,
            ImportError::Malformed => 400,
            ImportError::Record(e) => e.status(),
        }
    }

    fn code(&self) -> &'static str {
        match self {
            ImportError::TooManyRecords => "too_many_records",
            ImportError::RecordTooLarge { .. } => "record_too_large",
            ImportError::Malformed => "bad_request",
            ImportError::Record(e) => e.code(),
        }
    }

    fn retry_after_secs(&self) -> Option<u64> {
        match self {
            ImportError::Record(e) => e.retry_after_secs(),
            _ => None,
        }
    }

    /// `{code}` for the size refusals; the record family's own `data` (`{}` or the field map)
    /// otherwise, as the route answered before these bounds existed.
    fn data(&self) -> Value {
        match self {
            ImportError::Malformed => serde_json::json!({}),
            ImportError::Record(e) => e.data(),
            _ => serde_json::json!({ "code": self.code() }),
        }
    }
}

/// The outcome reported to the Data Manager (for a preview or an applied import).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ImportReport {
    pub collection: &'static str,
    pub total: usize,
    pub creates: usize,
    pub updates: usize,
    pub applied: bool,
    pub errors: Vec<RowError>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn only_data_manager_collections_import() {
        assert_eq!(import_target("contacts").unwrap().1, Some(UpsertKey { field: "email", case_insensitive: true }));
        assert_eq!(import_target("oncall").unwrap().1, None);
        for name in ["alert_reminders", "client_presence", "conflict_log", "oncall_board_settings", "users"] {
            assert!(import_target(name).is_none(), "{name}");
            assert!(plan_import(name, &[]).is_err());
        }
    }

    #[test]
    fn strips_metadata_coerces_csv_values_and_normalizes_keys() {
        let rows = vec![
            json!({"id": "abc", "created": "x", "collectionName": "contacts", "name": "Ada", "email": "  Ada@X.io "}),
            json!({"name": "Bob", "email": ""}),
        ];
        let plan = plan_import("contacts", &rows).unwrap();
        assert!(plan.errors.is_empty(), "{:?}", plan.errors);
        assert_eq!(plan.rows[0].key.as_deref(), Some("ada@x.io"));
        assert_eq!(plan.rows[1].key, None, "empty keys always insert");
        let groups =
            plan_import("bridge_groups", &[json!({"name": "DBAs", "contacts": "[\"a@x.io\",\"b@x.io\"]"})]).unwrap();
        assert!(groups.errors.is_empty(), "{:?}", groups.errors);
        let history = plan_import("bridge_history", &[json!({"recipientCount": "3", "groups": ""})]).unwrap();
        assert!(history.errors.is_empty(), "{:?}", history.errors);
        let alerts = plan_import("alert_history", &[json!({"pinned": "true", "severity": "INFO"})]).unwrap();
        assert!(alerts.errors.is_empty(), "{:?}", alerts.errors);
    }

    #[test]
    fn reports_every_bad_row_with_its_number() {
        let rows = vec![
            json!({"name": "ok"}),
            json!({"email": "bad"}),
            json!("not an object"),
            json!({"name": "x", "bogus": 1}),
        ];
        let plan = plan_import("contacts", &rows).unwrap();
        assert_eq!(plan.rows.len(), 1);
        let summary: Vec<(usize, Option<&str>, &str)> =
            plan.errors.iter().map(|e| (e.row, e.field.as_deref(), e.code)).collect();
        assert_eq!(
            summary,
            vec![
                (2, Some("email"), "validation_invalid_email"),
                (2, Some("name"), "validation_required"),
                (3, None, "validation_invalid_row"),
                (4, Some("bogus"), "validation_unknown_field"),
            ]
        );
        let too_many = vec![json!({"name": "x"}); MAX_IMPORT_RECORDS + 1];
        assert!(matches!(plan_import("contacts", &too_many), Err(RecordError::BadRequest(_))));
    }

    #[test]
    fn records_planned_one_at_a_time_report_unreadable_ones_by_row() {
        let records = vec![Ok(json!({"name": "ok"})), Err("The record could not be read: depth.".to_string())];
        let plan = plan_import_each("contacts", records.into_iter()).unwrap();
        assert_eq!(plan.rows.len(), 1);
        assert_eq!((plan.errors[0].row, plan.errors[0].code), (2, "validation_invalid_row"));
        assert_eq!(plan.errors[0].message, "The record could not be read: depth.");
    }

    #[test]
    fn import_refusals_name_their_limit_and_keep_the_record_familys_shape() {
        assert_eq!(
            (ImportError::TooManyRecords.status(), ImportError::TooManyRecords.code()),
            (413, "too_many_records")
        );
        let large = ImportError::RecordTooLarge { row: 7 };
        assert_eq!((large.status(), large.code()), (413, "record_too_large"));
        assert_eq!(
            large.to_string(),
            "Record 7 is larger than 1024 KiB of JSON, the most one imported record may hold."
        );
        assert_eq!(large.data(), json!({"code": "record_too_large"}));
        assert_eq!((ImportError::Malformed.status(), ImportError::Malformed.data()), (400, json!({})));
        let unavailable = ImportError::from(RecordError::Unavailable);
        assert_eq!((unavailable.status(), unavailable.data()), (503, json!({})));
    }
}
