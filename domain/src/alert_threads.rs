//! Alert threads (issue #38 item 7b): an alert and its updates are one thread of
//! `alert_history` rows, one row per send. The server owns the thread fields: `threadId` is the
//! first send's record id (a client names an existing thread to continue it, or leaves it empty
//! to start one) and `updateNumber` is 0 for the first send and one more than the thread's
//! highest for each later one, drawn inside the write transaction so two clients sending at once
//! get distinct, consecutive numbers. Rows written before threads existed have an empty
//! `threadId`: each is a thread of one send whose id is its own. This module holds the pure
//! rules; `infra::store` applies them where every record write stores its values.

use crate::record::RecordError;

/// The collection whose rows form threads.
pub const COLLECTION: &str = "alert_history";
/// The thread a send belongs to: the first send's id (server-validated on create).
pub const THREAD_ID: &str = "threadId";
/// The send's place in its thread: 0 first, then 1, 2, … (server-assigned on create).
pub const UPDATE_NUMBER: &str = "updateNumber";
/// Fields clients never change on an existing row: an update's values for them are dropped.
pub const SERVER_OWNED_FIELDS: &[&str] = &[THREAD_ID, UPDATE_NUMBER];
/// Highest update number a thread reaches (the field's limit).
pub const MAX_UPDATE_NUMBER: i64 = 1_000_000;
/// The typed validation code of a refused `threadId`.
pub const UNKNOWN_THREAD_CODE: &str = "validation_unknown_alert_thread";

/// Where a new send goes, from the `threadId` a client sent with its create.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ThreadRequest {
    /// Start a thread (no `threadId`, or the new record's own id): the send is its first.
    Start,
    /// Continue the thread with this id, which must exist.
    Continue(String),
}

impl ThreadRequest {
    /// The request a create names: `requested` is the client's `threadId` ("" when none) and
    /// `record_id` the new record's id.
    pub fn from_create(requested: &str, record_id: &str) -> ThreadRequest {
        let requested = requested.trim();
        if requested.is_empty() || requested == record_id {
            ThreadRequest::Start
        } else {
            ThreadRequest::Continue(requested.to_string())
        }
    }
}

/// A create named a thread that does not exist (never started, or every send of it deleted).
/// Answered as a validation error on `threadId`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("Unknown alert thread {thread_id:?}.")]
pub struct UnknownAlertThread {
    pub thread_id: String,
}

impl From<UnknownAlertThread> for RecordError {
    fn from(_: UnknownAlertThread) -> RecordError {
        RecordError::field(
            THREAD_ID,
            UNKNOWN_THREAD_CODE,
            "The alert thread does not exist (it may have been deleted); send it as a new alert.",
        )
    }
}

/// The thread fields a new send stores: its thread's id and its update number.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ThreadPlacement {
    pub thread_id: String,
    pub update_number: i64,
}

/// Places a new send: `highest` is the thread's highest update number among its stored sends
/// (`None` when the thread has none, i.e. does not exist), read in the same transaction.
pub fn place_send(
    request: &ThreadRequest,
    record_id: &str,
    highest: Option<i64>,
) -> Result<ThreadPlacement, UnknownAlertThread> {
    match request {
        ThreadRequest::Start => Ok(ThreadPlacement { thread_id: record_id.to_string(), update_number: 0 }),
        ThreadRequest::Continue(thread_id) => match highest {
            Some(highest) => Ok(ThreadPlacement {
                thread_id: thread_id.clone(),
                update_number: (highest.max(0) + 1).min(MAX_UPDATE_NUMBER),
            }),
            None => Err(UnknownAlertThread { thread_id: thread_id.clone() }),
        },
    }
}

/// The thread a stored row belongs to: its `threadId`, or its own id for a row written before
/// threads existed (a single-send thread).
pub fn thread_of(record: &serde_json::Value) -> Option<&str> {
    let thread = record.get(THREAD_ID).and_then(serde_json::Value::as_str).filter(|t| !t.is_empty());
    thread.or_else(|| record.get("id").and_then(serde_json::Value::as_str))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn an_empty_or_own_thread_id_starts_a_thread_at_zero() {
        for requested in ["", "  ", "aaaaaaaaaaaaaaa"] {
            let request = ThreadRequest::from_create(requested, "aaaaaaaaaaaaaaa");
            assert_eq!(request, ThreadRequest::Start, "{requested:?}");
            let placed = place_send(&request, "aaaaaaaaaaaaaaa", None).unwrap();
            assert_eq!(placed, ThreadPlacement { thread_id: "aaaaaaaaaaaaaaa".into(), update_number: 0 });
        }
    }

    #[test]
    fn a_continued_thread_takes_one_more_than_its_highest() {
        let request = ThreadRequest::from_create("thread000000001", "new000000000001");
        assert_eq!(place_send(&request, "new000000000001", Some(0)).unwrap().update_number, 1);
        assert_eq!(place_send(&request, "new000000000001", Some(6)).unwrap().update_number, 7);
        assert_eq!(place_send(&request, "new000000000001", Some(6)).unwrap().thread_id, "thread000000001");
    }

    #[test]
    fn an_unknown_thread_is_a_typed_validation_error_on_thread_id() {
        let request = ThreadRequest::from_create("nosuchthread000", "new000000000001");
        let refused = place_send(&request, "new000000000001", None).unwrap_err();
        assert_eq!(refused, UnknownAlertThread { thread_id: "nosuchthread000".into() });
        match RecordError::from(refused) {
            RecordError::Validation(fields) => assert_eq!(fields[THREAD_ID].code, UNKNOWN_THREAD_CODE),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn rows_without_a_thread_are_their_own_single_send_thread() {
        assert_eq!(thread_of(&json!({"id": "old000000000001"})), Some("old000000000001"));
        assert_eq!(thread_of(&json!({"id": "old000000000001", "threadId": ""})), Some("old000000000001"));
        assert_eq!(
            thread_of(&json!({"id": "new000000000002", "threadId": "old000000000001"})),
            Some("old000000000001")
        );
    }
}
