//! Typed per-collection validation of record writes. A create or update body (a JSON object)
//! is checked against the collection's `FieldSpec`s: required values, select values, lengths,
//! number ranges, date formats, email shape and JSON shapes. The result is a list of typed SQL
//! values ready to bind, or every field error at once; nothing is written when any field fails.

use std::sync::LazyLock;

use regex::Regex;
use serde_json::{Map, Value};

use crate::collections::{CollectionSpec, FieldKind, FieldSpec, JsonShape, IGNORED_INPUT_KEYS};
use crate::record::{FieldError, FieldErrors, RecordError};
use crate::time::normalize_datetime;

static EMAIL: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"^[^\s@<>(),;:\x22]+@[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)+$",
    )
    .unwrap()
});
static RECORD_ID: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"^[a-z0-9]{15}$").unwrap());

pub const MAX_EMAIL_LEN: usize = 320;

/// A value in the form the store binds it.
#[derive(Debug, Clone, PartialEq)]
pub enum SqlValue {
    Text(String),
    Real(f64),
    Integer(i64),
}

/// A validated write: the optional client-chosen id (create only) and the column values.
#[derive(Debug, Clone, PartialEq)]
pub struct ValidatedWrite {
    pub id: Option<String>,
    pub values: Vec<(&'static str, SqlValue)>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WriteMode {
    Create,
    Update,
}

/// Whether `s` has the shape of a Relay record id (15 lowercase alphanumerics).
pub fn is_record_id(s: &str) -> bool {
    RECORD_ID.is_match(s)
}

pub fn is_valid_email(s: &str) -> bool {
    s.len() <= MAX_EMAIL_LEN && EMAIL.is_match(s)
}

fn err(code: &'static str, message: impl Into<String>) -> FieldError {
    FieldError { code, message: message.into() }
}

/// Coerces scalars to text the way PocketBase's text fields do (numbers and bools are cast).
fn as_text(value: &Value) -> Result<String, FieldError> {
    match value {
        Value::Null => Ok(String::new()),
        Value::String(s) => Ok(s.clone()),
        Value::Number(n) => Ok(n.to_string()),
        Value::Bool(b) => Ok(b.to_string()),
        _ => Err(err("validation_invalid_type", "Must be a text value.")),
    }
}

fn check_text(s: &str, max_len: usize) -> Result<(), FieldError> {
    if s.chars().count() > max_len {
        return Err(err("validation_max_text_constraint", format!("Must be no more than {max_len} character(s).")));
    }
    if s.chars().any(|c| c == '\0') {
        return Err(err("validation_invalid_text", "Must not contain NUL characters."));
    }
    Ok(())
}

fn number_value(value: &Value, min: f64, max: f64, integer: bool) -> Result<f64, FieldError> {
    let n = match value {
        Value::Null => 0.0,
        Value::Number(n) => n.as_f64().unwrap_or(f64::NAN),
        Value::String(s) if s.trim().is_empty() => 0.0,
        Value::String(s) => {
            s.trim().parse::<f64>().map_err(|_| err("validation_invalid_number", "Must be a number."))?
        }
        _ => return Err(err("validation_invalid_number", "Must be a number.")),
    };
    if !n.is_finite() {
        return Err(err("validation_invalid_number", "Must be a finite number."));
    }
    if integer && n.fract() != 0.0 {
        return Err(err("validation_no_decimal_constraint", "Decimal numbers are not allowed."));
    }
    if n < min || n > max {
        return Err(err("validation_number_range", format!("Must be between {min} and {max}.")));
    }
    Ok(n)
}

fn bool_value(value: &Value) -> Result<i64, FieldError> {
    match value {
        Value::Null => Ok(0),
        Value::Bool(b) => Ok(*b as i64),
        Value::String(s) if matches!(s.as_str(), "true" | "1") => Ok(1),
        Value::String(s) if matches!(s.as_str(), "false" | "0" | "") => Ok(0),
        Value::Number(n) if n.as_i64() == Some(0) || n.as_i64() == Some(1) => Ok(n.as_i64().unwrap_or(0)),
        _ => Err(err("validation_invalid_bool", "Must be true or false.")),
    }
}

fn json_value(value: &Value, shape: JsonShape) -> Result<String, FieldError> {
    match shape {
        JsonShape::StringArray { max_items, max_len } => {
            let items = match value {
                Value::Null => return Ok("[]".into()),
                Value::Array(items) => items,
                _ => return Err(err("validation_invalid_json", "Must be a list of text values.")),
            };
            if items.len() > max_items {
                return Err(err("validation_json_max_items", format!("Must have at most {max_items} item(s).")));
            }
            for item in items {
                match item {
                    Value::String(s) => check_text(s, max_len)?,
                    _ => return Err(err("validation_invalid_json", "Must be a list of text values.")),
                }
            }
            Ok(value.to_string())
        }
        JsonShape::ObjectArray { max_items, max_bytes } => {
            let items = match value {
                Value::Null => return Ok("[]".into()),
                Value::Array(items) => items,
                _ => return Err(err("validation_invalid_json", "Must be a list of JSON objects.")),
            };
            if items.len() > max_items {
                return Err(err("validation_json_max_items", format!("Must have at most {max_items} item(s).")));
            }
            if !items.iter().all(Value::is_object) {
                return Err(err("validation_invalid_json", "Must be a list of JSON objects."));
            }
            let text = value.to_string();
            if text.len() > max_bytes {
                return Err(err("validation_json_size_limit", format!("Must be at most {max_bytes} bytes.")));
            }
            Ok(text)
        }
        JsonShape::Object { max_bytes } => {
            if !value.is_object() {
                return Err(err("validation_invalid_json", "Must be a JSON object."));
            }
            let text = value.to_string();
            if text.len() > max_bytes {
                return Err(err("validation_json_size_limit", format!("Must be at most {max_bytes} bytes.")));
            }
            Ok(text)
        }
    }
}

/// The stored value for a field that a create omits.
fn default_value(field: &FieldSpec) -> SqlValue {
    match field.kind {
        FieldKind::Number { .. } => SqlValue::Real(0.0),
        FieldKind::Bool => SqlValue::Integer(0),
        FieldKind::Json { shape: JsonShape::StringArray { .. } | JsonShape::ObjectArray { .. } } => {
            SqlValue::Text("[]".into())
        }
        FieldKind::Json { shape: JsonShape::Object { .. } } => SqlValue::Text("null".into()),
        _ => SqlValue::Text(String::new()),
    }
}

fn validate_field(field: &FieldSpec, value: &Value) -> Result<SqlValue, FieldError> {
    let required = || err("validation_required", "Missing required value.");
    let out = match field.kind {
        FieldKind::Text { max_len } => {
            let s = as_text(value)?;
            check_text(&s, max_len)?;
            if field.required && s.trim().is_empty() {
                return Err(required());
            }
            SqlValue::Text(s)
        }
        FieldKind::Email => {
            let s = as_text(value)?.trim().to_string();
            if !s.is_empty() && !is_valid_email(&s) {
                return Err(err("validation_invalid_email", "Must be a valid email address."));
            }
            if field.required && s.is_empty() {
                return Err(required());
            }
            SqlValue::Text(s)
        }
        FieldKind::Number { min, max, integer } => SqlValue::Real(number_value(value, min, max, integer)?),
        FieldKind::Bool => SqlValue::Integer(bool_value(value)?),
        FieldKind::Date => {
            let s = as_text(value)?;
            let s = if s.trim().is_empty() {
                String::new()
            } else {
                normalize_datetime(&s).map_err(|_| err("validation_invalid_date", "Must be a valid date."))?
            };
            if field.required && s.is_empty() {
                return Err(required());
            }
            SqlValue::Text(s)
        }
        FieldKind::Select { values } => {
            let s = as_text(value)?;
            if s.is_empty() {
                if field.required {
                    return Err(required());
                }
            } else if !values.contains(&s.as_str()) {
                return Err(err("validation_invalid_value", format!("Must be one of: {}.", values.join(", "))));
            }
            SqlValue::Text(s)
        }
        FieldKind::Json { shape } => {
            if field.required && value.is_null() {
                return Err(required());
            }
            SqlValue::Text(json_value(value, shape)?)
        }
    };
    Ok(out)
}

/// Validates a create or update body against `spec`. Unknown keys are rejected so typos never
/// silently drop data; server-maintained keys (`created`, `updated`, ...) are ignored.
pub fn validate_write(spec: &CollectionSpec, body: &Value, mode: WriteMode) -> Result<ValidatedWrite, RecordError> {
    let map: &Map<String, Value> =
        body.as_object().ok_or_else(|| RecordError::BadRequest("The request body must be a JSON object.".into()))?;
    let mut errors = FieldErrors::new();
    let mut id = None;
    for key in map.keys() {
        if key == "id" || IGNORED_INPUT_KEYS.contains(&key.as_str()) || spec.field(key).is_some() {
            continue;
        }
        errors.insert(key.clone(), err("validation_unknown_field", "Unknown field."));
    }
    if mode == WriteMode::Create {
        match map.get("id") {
            None | Some(Value::Null) => {}
            Some(Value::String(s)) if s.is_empty() => {}
            Some(Value::String(s)) if is_record_id(s) => id = Some(s.clone()),
            Some(_) => {
                errors.insert("id".into(), err("validation_invalid_id", "Must be 15 lowercase letters or digits."));
            }
        }
    }
    let mut values = Vec::with_capacity(spec.fields.len());
    for field in spec.fields {
        let result = match (map.get(field.name), mode) {
            (Some(v), _) => validate_field(field, v),
            (None, WriteMode::Create) if field.required => Err(err("validation_required", "Missing required value.")),
            (None, WriteMode::Create) => Ok(default_value(field)),
            (None, WriteMode::Update) => continue,
        };
        match result {
            Ok(v) => values.push((field.name, v)),
            Err(e) => {
                errors.insert(field.name.to_string(), e);
            }
        }
    }
    if errors.is_empty() {
        Ok(ValidatedWrite { id, values })
    } else {
        Err(RecordError::Validation(errors))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::collections::*;
    use serde_json::json;

    fn codes(e: RecordError) -> Vec<(String, &'static str)> {
        match e {
            RecordError::Validation(m) => m.into_iter().map(|(k, v)| (k, v.code)).collect(),
            other => panic!("expected validation error, got {other:?}"),
        }
    }

    #[test]
    fn create_fills_defaults_and_requires_required_fields() {
        let w = validate_write(&CONTACTS, &json!({"name": "Ada"}), WriteMode::Create).unwrap();
        assert_eq!(w.values.len(), 4);
        assert_eq!(w.values[0], ("name", SqlValue::Text("Ada".into())));
        let e = validate_write(&CONTACTS, &json!({"email": "a@b.co"}), WriteMode::Create).unwrap_err();
        assert_eq!(codes(e), vec![("name".into(), "validation_required")]);
        let e = validate_write(&CONTACTS, &json!({"name": "   "}), WriteMode::Create).unwrap_err();
        assert_eq!(codes(e), vec![("name".into(), "validation_required")]);
    }

    #[test]
    fn update_validates_only_present_fields() {
        let w = validate_write(&CONTACTS, &json!({"title": "NOC"}), WriteMode::Update).unwrap();
        assert_eq!(w.values, vec![("title", SqlValue::Text("NOC".into()))]);
        let e = validate_write(&CONTACTS, &json!({"name": ""}), WriteMode::Update).unwrap_err();
        assert_eq!(codes(e), vec![("name".into(), "validation_required")]);
        let w = validate_write(
            &CONTACTS,
            &json!({"id": "ignored", "created": "x", "collectionName": "contacts"}),
            WriteMode::Update,
        )
        .unwrap();
        assert!(w.values.is_empty() && w.id.is_none());
    }

    #[test]
    fn rejects_unknown_fields_bad_types_and_limits() {
        let e = validate_write(
            &CONTACTS,
            &json!({"name": "A", "passwd": 1, "email": "nope", "phone": {"x": 1}}),
            WriteMode::Create,
        )
        .unwrap_err();
        assert_eq!(
            codes(e),
            vec![
                ("email".into(), "validation_invalid_email"),
                ("passwd".into(), "validation_unknown_field"),
                ("phone".into(), "validation_invalid_type"),
            ]
        );
        let long = "x".repeat(NAME_LEN + 1);
        let e = validate_write(&CONTACTS, &json!({ "name": long }), WriteMode::Create).unwrap_err();
        assert_eq!(codes(e), vec![("name".into(), "validation_max_text_constraint")]);
        let e = validate_write(&CONTACTS, &json!({"name": "a\u{0}b"}), WriteMode::Create).unwrap_err();
        assert_eq!(codes(e), vec![("name".into(), "validation_invalid_text")]);
        assert!(matches!(validate_write(&CONTACTS, &json!([1]), WriteMode::Create), Err(RecordError::BadRequest(_))));
    }

    #[test]
    fn selects_dates_numbers_bools_and_json_shapes() {
        let ok = json!({"title": "t", "dueAt": "2026-12-02T12:00:00Z", "status": "pending", "severity": "ISSUE"});
        let w = validate_write(&ALERT_REMINDERS, &ok, WriteMode::Create).unwrap();
        assert!(w.values.contains(&("dueAt", SqlValue::Text("2026-12-02 12:00:00.000Z".into()))));
        let bad = json!({"title": "t", "dueAt": "tomorrow", "status": "later", "severity": "issue"});
        let e = validate_write(&ALERT_REMINDERS, &bad, WriteMode::Create).unwrap_err();
        assert_eq!(
            codes(e),
            vec![
                ("dueAt".into(), "validation_invalid_date"),
                ("severity".into(), "validation_invalid_value"),
                ("status".into(), "validation_invalid_value"),
            ]
        );
        let e = validate_write(&BRIDGE_HISTORY, &json!({"recipientCount": 1.5}), WriteMode::Create).unwrap_err();
        assert_eq!(codes(e), vec![("recipientCount".into(), "validation_no_decimal_constraint")]);
        let e = validate_write(&BRIDGE_HISTORY, &json!({"recipientCount": 100_001}), WriteMode::Create).unwrap_err();
        assert_eq!(codes(e), vec![("recipientCount".into(), "validation_number_range")]);
        let w = validate_write(&ALERT_HISTORY, &json!({"pinned": "true"}), WriteMode::Create).unwrap();
        assert!(w.values.contains(&("pinned", SqlValue::Integer(1))));
        let e =
            validate_write(&BRIDGE_GROUPS, &json!({"name": "g", "contacts": ["a", 2]}), WriteMode::Create).unwrap_err();
        assert_eq!(codes(e), vec![("contacts".into(), "validation_invalid_json")]);
        let many: Vec<String> = (0..201).map(|i| format!("u{i}@x.io")).collect();
        let e = validate_write(&BRIDGE_GROUPS, &json!({"name": "g", "contacts": many}), WriteMode::Create).unwrap_err();
        assert_eq!(codes(e), vec![("contacts".into(), "validation_json_max_items")]);
        let e =
            validate_write(&CONFLICT_LOG, &json!({"collection": "c", "recordId": "r"}), WriteMode::Create).unwrap_err();
        assert_eq!(codes(e), vec![("overwrittenData".into(), "validation_required")]);
        let e = validate_write(&STANDALONE_NOTES, &json!({"color": "chartreuse"}), WriteMode::Create).unwrap_err();
        assert_eq!(codes(e), vec![("color".into(), "validation_invalid_value")]);
    }

    #[test]
    fn custom_ids_must_have_record_id_shape() {
        let w = validate_write(&CONTACTS, &json!({"id": "abcdefghij12345", "name": "A"}), WriteMode::Create).unwrap();
        assert_eq!(w.id.as_deref(), Some("abcdefghij12345"));
        for bad in [json!("short"), json!("ABCDEFGHIJ12345"), json!("abcdefghij1234'"), json!(5)] {
            let e = validate_write(&CONTACTS, &json!({"id": bad, "name": "A"}), WriteMode::Create).unwrap_err();
            assert_eq!(codes(e), vec![("id".into(), "validation_invalid_id")]);
        }
    }

    #[test]
    fn email_shapes() {
        for ok in ["a@b.co", "first.last+tag@sub.example.org"] {
            assert!(is_valid_email(ok), "{ok}");
        }
        for bad in ["", "a", "a@b", "a b@c.io", "a@-b.io", "<a>@b.io", "a@b..io"] {
            assert!(!is_valid_email(bad), "{bad}");
        }
    }
}
