//! On-call history (issue #38 item 7a): the server-side record of every change to the On-Call
//! board's `oncall` rows, and the pure reconstruction of the board as it stood at any moment.
//!
//! The `oncall_history` collection is written only by the database itself (triggers on `oncall`,
//! migration `2026-12-07-000001_oncall_history`), in the same statement as the change it records,
//! so every write path is covered and a refused write leaves nothing. Clients read it through the
//! record API; record-API writes answer 403. Each row carries the time of the change (`created`),
//! the store-wide `revision` that orders changes made in the same millisecond, the changed row's
//! id, the action and the row's board fields before and after (`{}` when there is none).
//!
//! [`board_at`] answers "who was on call for Network at 02:00 last Tuesday?": it starts from the
//! current rows and undoes, newest first, every change made after that moment. It needs only the
//! history newer than the moment, which retention keeps for [`RETENTION_DAYS`] days.

use serde_json::Value;

use crate::collections::{CollectionSpec, FieldKind, FieldSpec, JsonShape, Reads, Writes, FIELD_LEN, NAME_LEN};
use crate::time::parse_datetime;

/// How long history rows are kept (the retention plan in `domain::retention`).
pub const RETENTION_DAYS: i64 = 400;
/// At most this many history rows are kept, whatever their age.
pub const RETENTION_MAX_ROWS: usize = 50_000;
/// The actions a history row records.
pub const ACTIONS: &[&str] = &["create", "update", "delete"];
/// Upper bound of a serialized row state: seven bounded `oncall` fields, four bytes a character.
const STATE_MAX_BYTES: usize = 32 * 1024;

const fn state(name: &'static str) -> FieldSpec {
    FieldSpec {
        name,
        kind: FieldKind::Json { shape: JsonShape::Object { max_bytes: STATE_MAX_BYTES } },
        required: false,
    }
}

/// One row per change of an `oncall` row; written only by the database triggers.
pub static ONCALL_HISTORY: CollectionSpec = CollectionSpec {
    name: "oncall_history",
    id: "pbc_oncall_history",
    fields: &[
        FieldSpec { name: "recordId", kind: FieldKind::Text { max_len: 15 }, required: true },
        FieldSpec { name: "action", kind: FieldKind::Select { values: ACTIONS }, required: true },
        FieldSpec { name: "teamId", kind: FieldKind::Text { max_len: NAME_LEN }, required: false },
        FieldSpec { name: "team", kind: FieldKind::Text { max_len: NAME_LEN }, required: false },
        state("stateBefore"),
        state("stateAfter"),
    ],
    unique: &[],
    writes: Writes::ServerOnly,
    reads: Reads::All,
};

/// One person on a card: an `oncall` row's board fields.
#[derive(Debug, Clone, PartialEq)]
pub struct OnCallEntry {
    pub id: String,
    pub team: String,
    pub role: String,
    pub name: String,
    pub contact: String,
    pub time_window: String,
    pub sort_order: f64,
    pub team_id: String,
}

fn text_of(state: &Value, field: &str) -> String {
    let text = state.get(field).and_then(Value::as_str).unwrap_or_default();
    text.chars().take(FIELD_LEN).collect()
}

impl OnCallEntry {
    /// The entry of row `id` from a record or a history state; `None` for `{}` (no row).
    pub fn from_state(id: &str, state: &Value) -> Option<OnCallEntry> {
        let object = state.as_object()?;
        if object.is_empty() {
            return None;
        }
        Some(OnCallEntry {
            id: id.to_string(),
            team: text_of(state, "team"),
            role: text_of(state, "role"),
            name: text_of(state, "name"),
            contact: text_of(state, "contact"),
            time_window: text_of(state, "timeWindow"),
            sort_order: state.get("sortOrder").and_then(Value::as_f64).unwrap_or(0.0),
            team_id: text_of(state, "teamId"),
        })
    }

    /// The entry of a current `oncall` record (its id is the record's own).
    pub fn from_record(record: &Value) -> Option<OnCallEntry> {
        OnCallEntry::from_state(record.get("id")?.as_str()?, record)
    }

    /// The card this entry belongs to: `teamId`, or the lowercased team name for legacy rows.
    pub fn card_key(&self) -> String {
        if self.team_id.is_empty() {
            self.team.trim().to_lowercase()
        } else {
            self.team_id.clone()
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HistoryAction {
    Create,
    Update,
    Delete,
}

/// One recorded change.
#[derive(Debug, Clone, PartialEq)]
pub struct HistoryChange {
    /// When the change was made (epoch milliseconds, the row's `created`).
    pub at_ms: i64,
    /// Store-wide revision: orders changes made in the same millisecond.
    pub revision: i64,
    pub record_id: String,
    pub action: HistoryAction,
    pub before: Option<OnCallEntry>,
    pub after: Option<OnCallEntry>,
}

impl HistoryChange {
    /// Reads an `oncall_history` record; `None` when it is malformed.
    pub fn from_record(record: &Value) -> Option<HistoryChange> {
        let at_ms = parse_datetime(record.get("created")?.as_str()?).ok()?;
        let record_id = record.get("recordId")?.as_str()?.to_string();
        let action = match record.get("action")?.as_str()? {
            "create" => HistoryAction::Create,
            "update" => HistoryAction::Update,
            "delete" => HistoryAction::Delete,
            _ => return None,
        };
        let state = |field: &str| record.get(field).and_then(|s| OnCallEntry::from_state(&record_id, s));
        Some(HistoryChange {
            at_ms,
            revision: record.get("revision").and_then(Value::as_i64).unwrap_or(0),
            action,
            before: state("stateBefore"),
            after: state("stateAfter"),
            record_id,
        })
    }
}

/// The board's rows as they stood at `at_ms`: the `current` rows with every change made after
/// `at_ms` undone, newest first (a create removes the row, an update or delete restores the state
/// before it). Sorted by card, then `sortOrder`, then id, so equal boards compare equal.
pub fn board_at(current: &[OnCallEntry], history: &[HistoryChange], at_ms: i64) -> Vec<OnCallEntry> {
    let mut rows: Vec<OnCallEntry> = current.to_vec();
    let mut later: Vec<&HistoryChange> = history.iter().filter(|c| c.at_ms > at_ms).collect();
    later.sort_by_key(|c| std::cmp::Reverse((c.at_ms, c.revision)));
    for change in later {
        rows.retain(|row| row.id != change.record_id);
        if change.action != HistoryAction::Create {
            rows.extend(change.before.clone());
        }
    }
    rows.sort_by(|a, b| {
        a.card_key().cmp(&b.card_key()).then(a.sort_order.total_cmp(&b.sort_order)).then_with(|| a.id.cmp(&b.id))
    });
    rows
}

/// The people on card `team` (a team id or name, compared case-insensitively) on a board.
pub fn on_call_for<'a>(board: &'a [OnCallEntry], team: &str) -> Vec<&'a OnCallEntry> {
    let wanted = team.trim().to_lowercase();
    board.iter().filter(|row| row.card_key() == wanted || row.team.trim().to_lowercase() == wanted).collect()
}

#[cfg(test)]
#[path = "oncall_history_tests.rs"]
mod tests;
