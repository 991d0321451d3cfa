//! Notification e-mail subjects, the optional presentation name of a problem: reading the NOC
//! workflow's `noc.notification` business events into [`NotificationRef`]s, choosing which
//! e-mail task of a workflow execution to read ([`pick_email_task`]), and keeping only the
//! validated `subject` of that task's input. Task inputs also hold recipients and bodies; this
//! module refuses to return anything from them but the subject, refuses template text and
//! control characters, and never decides lifecycle: a subject is shown only while its recorded
//! status matches the problem's. Fetching executions and caching subjects is the server's job.

use super::problem::{timestamp_ms, ProblemStatus, MAX_PROBLEM_ID_CHARS};
use super::{clean_text, is_forbidden_char};
use serde_json::Value;

/// Longest subject kept (characters, after trimming).
pub const MAX_SUBJECT_CHARS: usize = 1_000;
/// Most executions whose tasks one background run reads that are not cached yet.
pub const MAX_UNCACHED_EXECUTIONS: usize = 25;
/// Execution reads in flight at once.
pub const MAX_CONCURRENT_EXECUTION_READS: usize = 4;
/// Deadline of one background run of subject reads.
pub const SUBJECT_RUN_DEADLINE_MS: u64 = 10_000;
/// The Automation action of an e-mail task.
pub const EMAIL_ACTION: &str = "dynatrace.email:send-email";
/// The NOC workflow's e-mail task, read before any other.
pub const PREFERRED_EMAIL_TASK: &str = "email_noc";
/// Task states after which a task never changes.
pub const TERMINAL_TASK_STATES: [&str; 5] = ["SUCCESS", "ERROR", "CANCELLED", "SKIPPED", "DISCARDED"];

/// Whether `s` is a workflow execution id Relay will put into a URL: 1..=128 of
/// `[A-Za-z0-9_-]`.
pub fn is_execution_id(s: &str) -> bool {
    (1..=128).contains(&s.len()) && s.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

/// A subject as kept: trimmed, 1..=[`MAX_SUBJECT_CHARS`] characters, without `{{`/`{%`
/// (an unrendered template) or control characters; anything else is no subject at all.
pub fn validate_subject(raw: &str) -> Option<String> {
    let subject = raw.trim();
    let valid = !subject.is_empty()
        && subject.chars().count() <= MAX_SUBJECT_CHARS
        && !subject.contains("{{")
        && !subject.contains("{%")
        && !subject.chars().any(is_forbidden_char);
    valid.then(|| subject.to_string())
}

/// Which e-mail task of an execution to read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TaskPick {
    /// An e-mail task has not finished: try again on a later run.
    Pending,
    /// The execution sent no e-mail (no task with the e-mail action).
    NoEmailTask,
    /// Read this task's input.
    Succeeded { task_name: String },
    /// Every e-mail task finished without success.
    Failed,
}

/// Picks from `GET /platform/automation/v1/executions/<id>/tasks` (an object keyed by task
/// name, or an array of tasks with `name`). Only tasks whose `action` is [`EMAIL_ACTION`]
/// count, [`PREFERRED_EMAIL_TASK`] first. Any of them not in a terminal state (a missing state
/// included) makes the pick [`TaskPick::Pending`]; otherwise the first `SUCCESS` wins.
pub fn pick_email_task(tasks: &Value) -> TaskPick {
    let named: Vec<(&str, &Value)> = match tasks {
        Value::Object(map) => map.iter().map(|(name, task)| (name.as_str(), task)).collect(),
        Value::Array(items) => items.iter().filter_map(|task| Some((task.get("name")?.as_str()?, task))).collect(),
        _ => Vec::new(),
    };
    let mut email: Vec<(&str, &str)> = named
        .into_iter()
        .filter(|(_, task)| task.get("action").and_then(Value::as_str) == Some(EMAIL_ACTION))
        .map(|(name, task)| (name, task.get("state").and_then(Value::as_str).unwrap_or("")))
        .collect();
    if email.is_empty() {
        return TaskPick::NoEmailTask;
    }
    email.sort_by_key(|(name, _)| *name != PREFERRED_EMAIL_TASK);
    if email.iter().any(|(_, state)| !TERMINAL_TASK_STATES.contains(state)) {
        return TaskPick::Pending;
    }
    match email.iter().find(|(_, state)| *state == "SUCCESS") {
        Some((name, _)) => TaskPick::Succeeded { task_name: name.to_string() },
        None => TaskPick::Failed,
    }
}

/// The validated `subject` of a task input (`GET …/tasks/<task>/input`); nothing else of the
/// input is read.
pub fn subject_from_task_input(input: &Value) -> Option<String> {
    input.get("subject").and_then(Value::as_str).and_then(validate_subject)
}

/// One `noc.notification` event: which execution notified about which problem, in which state.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NotificationRef {
    pub problem_id: String,
    pub execution_id: String,
    pub status: ProblemStatus,
    pub time_ms: i64,
}

/// A record of `dql::notifications_query`: `problemId` (1..=200 characters after cleaning),
/// `executionId` ([`is_execution_id`]), `notificationStatus` (ACTIVE or OPEN is open, anything
/// else closed) and `notificationTime`. Records missing any of them are skipped (`None`).
pub fn parse_notification_record(record: &Value) -> Option<NotificationRef> {
    let problem_id = clean_text(record.get("problemId")?.as_str()?, usize::MAX);
    if problem_id.is_empty() || problem_id.chars().count() > MAX_PROBLEM_ID_CHARS {
        return None;
    }
    let execution_id = record.get("executionId")?.as_str()?.trim();
    if !is_execution_id(execution_id) {
        return None;
    }
    let status = ProblemStatus::from_upstream(record.get("notificationStatus").and_then(Value::as_str));
    let time_ms = timestamp_ms(record.get("notificationTime")?)?;
    Some(NotificationRef { problem_id, execution_id: execution_id.to_string(), status, time_ms })
}

#[cfg(test)]
#[path = "subjects_tests.rs"]
mod tests;
