//! The pure rules of the Dynatrace Problems sync: which environment URL, token, alerting
//! profiles, custom DQL matcher and workflow id an administrator may save ([`environment`],
//! [`scope`]); the exact DQL the server sends, with user text entering a query only as an
//! escaped string literal ([`dql`]); how a Grail Query API answer and an HTTP status are read
//! ([`grail`]); how a Grail problem record becomes the bounded `dynatrace_problems` record
//! ([`problem`]); how notification e-mail subjects are picked from workflow executions
//! ([`subjects`]); how a workflow's DQL task becomes a matcher ([`workflow`]); and the poll
//! cadence and failure back-off below. It refuses to perform IO, hold secrets, read a clock or
//! decide storage: the server's sync actor does the HTTP, the token storage and the writes, and
//! passes every instant in as epoch milliseconds.

pub mod dql;
pub mod environment;
pub mod grail;
pub mod problem;
pub mod scope;
pub mod subjects;
pub mod workflow;

pub use dql::{
    connection_test_query, dql_string, incremental_lookback_minutes, notifications_query, problems_query, Lookback,
    MAX_RESULT_RECORDS,
};
pub use environment::{ConfigError, EnvironmentUrl};
pub use grail::{error_for_status, parse_query_answer, retry_after_from_body, GrailError, QueryProgress, QueryResult};
pub use problem::{
    normalize_problem, timestamp_ms, EntityRef, ImpactLevel, NormalizeError, Problem, ProblemStatus, Severity,
};
pub use scope::{validate_matcher, validate_profile_names, validate_token, validate_workflow_id, Scope};
pub use subjects::{
    is_execution_id, parse_notification_record, pick_email_task, subject_from_task_input, validate_subject,
    NotificationRef, TaskPick, MAX_CONCURRENT_EXECUTION_READS, MAX_UNCACHED_EXECUTIONS,
};
pub use workflow::{workflow_matcher, WorkflowDqlError};

/// How often the server polls Grail for problems (incremental sync).
pub const POLL_INTERVAL_MS: i64 = 60_000;
/// How often a full reconciliation (`from:-365d`) runs.
pub const RECONCILE_INTERVAL_MS: i64 = 24 * 3600 * 1000;
/// `requestTimeoutMilliseconds` sent with every `query:execute`.
pub const QUERY_REQUEST_TIMEOUT_MS: u64 = 12_000;
/// Deadline of one HTTP request (execute or poll).
pub const PER_REQUEST_DEADLINE_MS: u64 = 15_000;
/// Deadline of one whole query, execute plus every poll.
pub const OVERALL_QUERY_DEADLINE_MS: u64 = 60_000;
/// Pause between two `query:poll` requests of a pending query.
pub const POLL_EVERY_MS: u64 = 250;
/// Longest error text stored in `dynatrace_problem_sync.error` (characters).
pub const MAX_ERROR_CHARS: usize = 500;

/// The back-off ladder after failed syncs.
const RETRY_LADDER_MS: [i64; 4] = [60_000, 2 * 60_000, 5 * 60_000, 15 * 60_000];

/// How long to wait before the next sync attempt after `consecutive_failures` failed ones in a
/// row: 60 s after the first failure (the normal poll interval; also returned for 0), 2 min
/// after the second, 5 min after the third, and 15 min from the fourth on (the cap).
pub fn retry_delay_ms(consecutive_failures: u32) -> i64 {
    let step = (consecutive_failures.max(1) - 1) as usize;
    RETRY_LADDER_MS[step.min(RETRY_LADDER_MS.len() - 1)]
}

/// `text` on one line and cut to [`MAX_ERROR_CHARS`], for `dynatrace_problem_sync.error`.
pub fn bounded_error(text: &str) -> String {
    crate::text::one_line(text, MAX_ERROR_CHARS)
}

/// Whether a character may appear in stored or validated text: no control characters (C0,
/// DEL, C1) and no Unicode line or paragraph separators.
pub(crate) fn is_forbidden_char(c: char) -> bool {
    c.is_control() || c == '\u{2028}' || c == '\u{2029}'
}

/// `text` with control characters removed (tabs and line breaks become spaces), trimmed, and
/// cut to `max` characters on a character boundary.
pub(crate) fn clean_text(text: &str, max: usize) -> String {
    let cleaned: String = text
        .chars()
        .filter_map(|c| match c {
            '\t' | '\n' | '\r' | '\u{2028}' | '\u{2029}' => Some(' '),
            c if is_forbidden_char(c) => None,
            c => Some(c),
        })
        .collect();
    crate::text::truncate_chars(cleaned.trim(), max).trim_end().to_string()
}

#[cfg(test)]
mod tests;
