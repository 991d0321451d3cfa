//! One Dynatrace problem as Relay stores it: [`normalize_problem`] turns a record of the
//! problems query (Grail's field names after `dql`'s projection) into a bounded [`Problem`] —
//! lifecycle status, the seven severities, the four impact levels, instants in epoch ms, the
//! root cause, the merged and deduplicated affected entities and the alerting profiles — and
//! [`Problem::to_record`] writes the `dynatrace_problems` body the server stores. Every text is
//! stripped of control characters and cut to its limit. It refuses records without a problem
//! id or start time, never invents values Grail did not send (a closed problem without an end
//! keeps none), and does not touch the e-mail subject fields (`subjects` owns those).

use super::clean_text;
use serde::Serialize;
use serde_json::{json, Map, Value};
use thiserror::Error;

/// Longest problem id accepted (characters); longer ids refuse the record.
pub const MAX_PROBLEM_ID_CHARS: usize = 200;
/// Longest display id, title, root cause id and root cause name kept (characters).
pub const MAX_DISPLAY_ID_CHARS: usize = 100;
pub const MAX_TITLE_CHARS: usize = 1_000;
pub const MAX_ROOT_CAUSE_ID_CHARS: usize = 500;
pub const MAX_ROOT_CAUSE_NAME_CHARS: usize = 1_000;
/// Most affected entities and alerting profiles kept, and characters per value.
pub const MAX_ENTITIES: usize = 100;
pub const MAX_ALERTING_PROFILES: usize = 100;
pub const MAX_VALUE_CHARS: usize = 512;

/// A problem's lifecycle as Relay shows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ProblemStatus {
    Open,
    Closed,
}

impl ProblemStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            ProblemStatus::Open => "OPEN",
            ProblemStatus::Closed => "CLOSED",
        }
    }

    /// `ACTIVE` (Grail) or `OPEN` (classic API), any case, is open; anything else is closed.
    pub fn from_upstream(value: Option<&str>) -> ProblemStatus {
        match value.map(|v| v.trim().to_ascii_uppercase()).as_deref() {
            Some("ACTIVE" | "OPEN") => ProblemStatus::Open,
            _ => ProblemStatus::Closed,
        }
    }
}

/// The problem's category (`event.category`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Severity {
    Availability,
    CustomAlert,
    Error,
    Info,
    MonitoringUnavailable,
    Performance,
    ResourceContention,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Availability => "AVAILABILITY",
            Severity::CustomAlert => "CUSTOM_ALERT",
            Severity::Error => "ERROR",
            Severity::Info => "INFO",
            Severity::MonitoringUnavailable => "MONITORING_UNAVAILABLE",
            Severity::Performance => "PERFORMANCE",
            Severity::ResourceContention => "RESOURCE_CONTENTION",
        }
    }

    /// Grail's category (any case); `SLOWDOWN` is performance and anything unknown is info.
    pub fn from_upstream(value: Option<&str>) -> Severity {
        match value.map(|v| v.trim().to_ascii_uppercase()).as_deref() {
            Some("AVAILABILITY") => Severity::Availability,
            Some("CUSTOM_ALERT") => Severity::CustomAlert,
            Some("ERROR") => Severity::Error,
            Some("MONITORING_UNAVAILABLE") => Severity::MonitoringUnavailable,
            Some("PERFORMANCE" | "SLOWDOWN") => Severity::Performance,
            Some("RESOURCE_CONTENTION") => Severity::ResourceContention,
            _ => Severity::Info,
        }
    }
}

/// What the problem impacts (`dt.davis.impact_level`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ImpactLevel {
    Application,
    Infrastructure,
    Services,
    Environment,
}

impl ImpactLevel {
    pub fn as_str(self) -> &'static str {
        match self {
            ImpactLevel::Application => "APPLICATION",
            ImpactLevel::Infrastructure => "INFRASTRUCTURE",
            ImpactLevel::Services => "SERVICES",
            ImpactLevel::Environment => "ENVIRONMENT",
        }
    }

    /// The first value (a string, or an array's first element), any case: APPLICATION,
    /// INFRASTRUCTURE or SERVICES; anything else (SYNTHETIC, missing...) is ENVIRONMENT.
    pub fn from_upstream(value: Option<&Value>) -> ImpactLevel {
        let first = match value {
            Some(Value::Array(items)) => items.first().and_then(Value::as_str),
            Some(v) => v.as_str(),
            None => None,
        };
        match first.map(|v| v.trim().to_ascii_uppercase()).as_deref() {
            Some("APPLICATION") => ImpactLevel::Application,
            Some("INFRASTRUCTURE") => ImpactLevel::Infrastructure,
            Some("SERVICES") => ImpactLevel::Services,
            _ => ImpactLevel::Environment,
        }
    }
}

/// An entity a problem affects, as stored in `affectedEntities`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct EntityRef {
    pub id: String,
    pub r#type: String,
    pub name: String,
}

/// A normalized, bounded problem.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    pub problem_id: String,
    pub display_id: String,
    pub title: String,
    pub status: ProblemStatus,
    pub severity: Severity,
    pub impact_level: ImpactLevel,
    pub start_ms: i64,
    /// `None` while open, and when a closed problem carries no end.
    pub end_ms: Option<i64>,
    pub root_cause_id: String,
    pub root_cause_name: String,
    pub affected_entities: Vec<EntityRef>,
    pub alerting_profiles: Vec<String>,
}

/// A record that cannot become a problem.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum NormalizeError {
    #[error("A Dynatrace problem record is not an object")]
    NotAnObject,
    #[error("A Dynatrace problem record has no problem id")]
    MissingProblemId,
    #[error("A Dynatrace problem id is longer than 200 characters")]
    ProblemIdTooLong,
    #[error("A Dynatrace problem record has no start time")]
    MissingStartTime,
}

impl NormalizeError {
    /// A stable, machine-readable code (`snake_case`).
    pub fn code(&self) -> &'static str {
        match self {
            NormalizeError::NotAnObject => "not_an_object",
            NormalizeError::MissingProblemId => "missing_problem_id",
            NormalizeError::ProblemIdTooLong => "problem_id_too_long",
            NormalizeError::MissingStartTime => "missing_start_time",
        }
    }
}

/// A problem from one record of the problems query. See the module doc for the rules.
pub fn normalize_problem(record: &Value) -> Result<Problem, NormalizeError> {
    let record = record.as_object().ok_or(NormalizeError::NotAnObject)?;
    let text = |key: &str| record.get(key).and_then(scalar_text);

    let problem_id = clean_text(&text("problemId").unwrap_or_default(), usize::MAX);
    if problem_id.is_empty() {
        return Err(NormalizeError::MissingProblemId);
    }
    if problem_id.chars().count() > MAX_PROBLEM_ID_CHARS {
        return Err(NormalizeError::ProblemIdTooLong);
    }
    let start_ms = record.get("startTime").and_then(timestamp_ms).ok_or(NormalizeError::MissingStartTime)?;
    let status = ProblemStatus::from_upstream(text("status").as_deref());
    let end_ms = match status {
        ProblemStatus::Open => None,
        ProblemStatus::Closed => record.get("endTime").and_then(timestamp_ms),
    };
    let affected_entities = merged_entities(record);
    let root_cause_id = root_cause_id(record.get("rootCause"));
    let root_cause_name = ["rootCauseEntityName", "rootCauseName"]
        .iter()
        .filter_map(|key| text(key))
        .map(|name| clean_text(&name, MAX_ROOT_CAUSE_NAME_CHARS))
        .find(|name| !name.is_empty())
        .or_else(|| {
            affected_entities
                .iter()
                .find(|e| !root_cause_id.is_empty() && e.id == root_cause_id)
                .map(|e| e.name.clone())
        })
        .unwrap_or_default();

    Ok(Problem {
        display_id: clean_text(&text("displayId").unwrap_or_default(), MAX_DISPLAY_ID_CHARS),
        title: clean_text(&text("title").unwrap_or_default(), MAX_TITLE_CHARS),
        status,
        severity: Severity::from_upstream(text("severity").as_deref()),
        impact_level: ImpactLevel::from_upstream(record.get("impactLevel")),
        start_ms,
        end_ms,
        root_cause_id,
        root_cause_name,
        affected_entities,
        alerting_profiles: bounded_strings(record.get("alertingProfiles"), MAX_ALERTING_PROFILES),
        problem_id,
    })
}

impl Problem {
    /// The `dynatrace_problems` record body (camelCase keys, PocketBase date strings, `endTime`
    /// empty while open). The `emailSubject` fields are not set here.
    pub fn to_record(&self, environment_url: &str, synced_at_ms: i64) -> Value {
        json!({
            "problemId": self.problem_id,
            "displayId": self.display_id,
            "title": self.title,
            "status": self.status.as_str(),
            "severity": self.severity.as_str(),
            "impactLevel": self.impact_level.as_str(),
            "startTime": crate::time::format_ms(self.start_ms),
            "endTime": self.end_ms.map(crate::time::format_ms).unwrap_or_default(),
            "rootCauseId": self.root_cause_id,
            "rootCauseName": self.root_cause_name,
            "affectedEntities": self.affected_entities,
            "alertingProfiles": self.alerting_profiles,
            "environmentUrl": environment_url,
            "syncedAt": crate::time::format_ms(synced_at_ms),
        })
    }
}

/// Epoch ms of a Grail instant. Numbers and numeric strings are read by magnitude: below 1e11
/// seconds, below 1e14 milliseconds, below 1e17 microseconds, else nanoseconds. Other strings
/// are read as RFC 3339 (`2024-12-01T10:00:00.123456789Z`, offsets allowed). Zero, negative
/// numbers (Grail's `-1` "not ended"), non-finite numbers and out-of-range values are `None`.
pub fn timestamp_ms(v: &Value) -> Option<i64> {
    match v {
        Value::Number(n) => epoch_ms_from_number(n.as_f64()?, n.as_i64()),
        Value::String(s) => {
            let s = s.trim();
            if is_decimal_number(s) {
                epoch_ms_from_number(s.parse::<f64>().ok()?, s.parse::<i64>().ok())
            } else {
                crate::time::parse_datetime(s).ok().filter(|ms| *ms > 0)
            }
        }
        _ => None,
    }
}

/// `-?digits[.digits]`: a number written as text (not a date, which also has digits and `-`).
fn is_decimal_number(s: &str) -> bool {
    let unsigned = s.strip_prefix('-').unwrap_or(s);
    let (whole, fraction) = unsigned.split_once('.').unwrap_or((unsigned, "0"));
    !whole.is_empty()
        && !fraction.is_empty()
        && whole.bytes().all(|b| b.is_ascii_digit())
        && fraction.bytes().all(|b| b.is_ascii_digit())
}

/// Largest instant accepted: year 9999.
const MAX_EPOCH_MS: i64 = 253_402_300_799_999;

fn epoch_ms_from_number(value: f64, exact: Option<i64>) -> Option<i64> {
    if !value.is_finite() || value <= 0.0 {
        return None;
    }
    let ms = match exact {
        // Integers are scaled exactly (nanoseconds do not fit an f64 without loss).
        Some(n) if n < 100_000_000_000 => n.checked_mul(1_000)?,
        Some(n) if n < 100_000_000_000_000 => n,
        Some(n) if n < 100_000_000_000_000_000 => n / 1_000,
        Some(n) => n / 1_000_000,
        None if value < 1e11 => (value * 1e3).round() as i64,
        None if value < 1e14 => value.floor() as i64,
        None if value < 1e17 => (value / 1e3).floor() as i64,
        None => (value / 1e6).floor() as i64,
    };
    (1..=MAX_EPOCH_MS).contains(&ms).then_some(ms)
}

/// A string, or a number's text; other JSON kinds are not text.
fn scalar_text(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

/// Every string of a string-or-array value (non-strings skipped).
fn string_values(v: Option<&Value>) -> Vec<String> {
    match v {
        Some(Value::Array(items)) => items.iter().filter_map(scalar_text).collect(),
        Some(v) => scalar_text(v).into_iter().collect(),
        None => Vec::new(),
    }
}

/// Cleaned, non-empty, deduplicated values, at most `max` of [`MAX_VALUE_CHARS`] each.
fn bounded_strings(v: Option<&Value>, max: usize) -> Vec<String> {
    let mut kept: Vec<String> = Vec::new();
    for value in string_values(v).iter().map(|s| clean_text(s, MAX_VALUE_CHARS)) {
        if kept.len() == max {
            break;
        }
        if !value.is_empty() && !kept.contains(&value) {
            kept.push(value);
        }
    }
    kept
}

/// The root cause entity id: a string, or an object's `id`/`entityId`.
fn root_cause_id(v: Option<&Value>) -> String {
    let raw = match v {
        Some(Value::Object(o)) => ["id", "entityId", "entity.id"].iter().find_map(|k| o.get(*k).and_then(scalar_text)),
        Some(v) => scalar_text(v),
        None => None,
    };
    clean_text(&raw.unwrap_or_default(), MAX_ROOT_CAUSE_ID_CHARS)
}

/// The first text among `keys` of an object.
fn first_text(o: &Map<String, Value>, keys: &[&str]) -> String {
    keys.iter().find_map(|k| o.get(*k).and_then(scalar_text)).unwrap_or_default()
}

/// Affected entities from the smartscape list (objects or bare ids) followed by the classic
/// parallel id/name/type arrays, merged by id: a later mention fills a type or name the first
/// lacked. Names default to the id; at most [`MAX_ENTITIES`], values cut to
/// [`MAX_VALUE_CHARS`].
fn merged_entities(record: &Map<String, Value>) -> Vec<EntityRef> {
    let mut mentions: Vec<(String, String, String)> = Vec::new();
    if let Some(Value::Array(items)) = record.get("affectedEntities") {
        for item in items {
            match item {
                Value::Object(o) => mentions.push((
                    first_text(o, &["id", "entityId", "entity.id", "dt.smartscape_source.id"]),
                    first_text(o, &["type", "entityType", "entity.type"]),
                    first_text(o, &["name", "entityName", "entity.name", "displayName"]),
                )),
                other => mentions.extend(scalar_text(other).map(|id| (id, String::new(), String::new()))),
            }
        }
    }
    let ids = string_values(record.get("affectedEntityIds"));
    let names = string_values(record.get("affectedEntityNames"));
    let types = string_values(record.get("affectedEntityTypes"));
    for (at, id) in ids.into_iter().enumerate() {
        let name = names.get(at).cloned().unwrap_or_default();
        let kind = types.get(at).cloned().unwrap_or_default();
        mentions.push((id, kind, name));
    }

    let mut entities: Vec<EntityRef> = Vec::new();
    for (id, kind, name) in mentions {
        let id = clean_text(&id, MAX_VALUE_CHARS);
        if id.is_empty() {
            continue;
        }
        let kind = clean_text(&kind, MAX_VALUE_CHARS);
        let name = clean_text(&name, MAX_VALUE_CHARS);
        if let Some(known) = entities.iter_mut().find(|e| e.id == id) {
            if known.r#type.is_empty() {
                known.r#type = kind;
            }
            if known.name == known.id && !name.is_empty() {
                known.name = name;
            }
        } else if entities.len() < MAX_ENTITIES {
            let name = if name.is_empty() { id.clone() } else { name };
            entities.push(EntityRef { id, r#type: kind, name });
        }
    }
    entities
}

#[cfg(test)]
#[path = "problem_tests.rs"]
mod tests;
