//! Reading the Grail Query API's answers: a `query:execute` or `query:poll` body (with the
//! request token an answer may carry in a header) becomes [`QueryProgress`] — still pending
//! with the token to poll with, or done with the records and whether Grail truncated them —
//! and an HTTP status or rate-limit hint becomes a [`GrailError`] whose message an operator
//! can act on. It refuses to trust the answer's shape: records must be objects, tokens must be
//! short printable ASCII, and anything unexpected is [`GrailError::Malformed`]. Messages never
//! contain upstream text. No HTTP happens here.

use super::dql::MAX_RESULT_RECORDS;
use serde_json::Value;
use std::sync::OnceLock;
use thiserror::Error;

/// Longest request token accepted (characters).
pub const MAX_REQUEST_TOKEN_CHARS: usize = 512;
/// Wait used when a 429 carries no usable hint (seconds).
pub const DEFAULT_RETRY_AFTER_SECS: u64 = 60;
/// Longest wait a rate-limit hint may impose (seconds).
pub const MAX_RETRY_AFTER_SECS: u64 = 3_600;

/// A query that failed, or an answer Relay cannot use.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum GrailError {
    #[error("Dynatrace rejected the platform token")]
    TokenRejected,
    #[error("The platform token needs storage:events:read and storage:buckets:read")]
    MissingScopes,
    #[error("Use the SaaS environment URL ending in .apps.dynatrace.com")]
    NotFound,
    #[error("Dynatrace is limiting requests; Relay retries in {retry_after_secs} seconds")]
    RateLimited { retry_after_secs: u64 },
    #[error("Dynatrace could not run the query")]
    QueryFailed,
    #[error("Dynatrace cancelled the query")]
    QueryCancelled,
    #[error("The query result expired before Relay could read it")]
    ResultGone,
    #[error("Dynatrace answered in a form Relay does not understand")]
    Malformed,
    #[error("Dynatrace did not finish the query in time")]
    Timeout,
    #[error("Dynatrace answered with HTTP status {status}")]
    Upstream { status: u16 },
}

impl GrailError {
    /// A stable, machine-readable code (`snake_case`).
    pub fn code(&self) -> &'static str {
        match self {
            GrailError::TokenRejected => "token_rejected",
            GrailError::MissingScopes => "missing_scopes",
            GrailError::NotFound => "not_found",
            GrailError::RateLimited { .. } => "rate_limited",
            GrailError::QueryFailed => "query_failed",
            GrailError::QueryCancelled => "query_cancelled",
            GrailError::ResultGone => "result_gone",
            GrailError::Malformed => "malformed_answer",
            GrailError::Timeout => "timeout",
            GrailError::Upstream { .. } => "upstream_status",
        }
    }

    /// Seconds to wait before the next attempt, when Dynatrace said so.
    pub fn retry_after_secs(&self) -> Option<u64> {
        match self {
            GrailError::RateLimited { retry_after_secs } => Some(*retry_after_secs),
            _ => None,
        }
    }
}

/// Where a query stands after one answer.
#[derive(Debug, Clone, PartialEq)]
pub enum QueryProgress {
    /// Still running: poll `query:poll?request-token=<request_token>`.
    Pending { request_token: String },
    /// Finished with these records.
    Done(QueryResult),
}

/// The records of a finished query.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct QueryResult {
    /// At most [`MAX_RESULT_RECORDS`] JSON objects.
    pub records: Vec<Value>,
    /// Grail stopped at its record limit: the records are not the whole answer.
    pub truncated: bool,
}

/// Reads one `query:execute` / `query:poll` body. `header_token` is the request token from the
/// `request-token`, `x-request-token` or `x-dynatrace-request-token` header, used when the body
/// carries none.
///
/// - `NOT_STARTED`, `RUNNING` -> [`QueryProgress::Pending`] (a usable token is required);
/// - `SUCCEEDED` with a `result` -> [`QueryProgress::Done`]; without one (an execute answer
///   whose result "may only come from poll") -> `Pending` when a token is known;
/// - `FAILED`, `CANCELLED`, `RESULT_GONE` -> the matching error; anything else -> `Malformed`.
pub fn parse_query_answer(body: &Value, header_token: Option<&str>) -> Result<QueryProgress, GrailError> {
    let state = body.get("state").and_then(Value::as_str).ok_or(GrailError::Malformed)?;
    let pending = || -> Result<QueryProgress, GrailError> {
        let token = body
            .get("requestToken")
            .and_then(Value::as_str)
            .filter(|t| !t.is_empty())
            .or(header_token)
            .map(str::trim)
            .filter(|t| is_request_token(t))
            .ok_or(GrailError::Malformed)?;
        Ok(QueryProgress::Pending { request_token: token.to_string() })
    };
    match state {
        "NOT_STARTED" | "RUNNING" => pending(),
        "SUCCEEDED" => match body.get("result") {
            Some(result) if !result.is_null() => read_result(result).map(QueryProgress::Done),
            _ => pending(),
        },
        "FAILED" => Err(GrailError::QueryFailed),
        "CANCELLED" => Err(GrailError::QueryCancelled),
        "RESULT_GONE" => Err(GrailError::ResultGone),
        _ => Err(GrailError::Malformed),
    }
}

/// A request token Relay will put back into a URL: 1..=512 printable ASCII characters.
pub fn is_request_token(token: &str) -> bool {
    (1..=MAX_REQUEST_TOKEN_CHARS).contains(&token.len()) && token.bytes().all(|b| b.is_ascii_graphic())
}

fn read_result(result: &Value) -> Result<QueryResult, GrailError> {
    let records = result.get("records").and_then(Value::as_array).ok_or(GrailError::Malformed)?;
    if !records.iter().all(Value::is_object) {
        return Err(GrailError::Malformed);
    }
    let truncated = records.len() >= MAX_RESULT_RECORDS || grail_reports_truncation(result);
    let records = records.iter().take(MAX_RESULT_RECORDS).cloned().collect();
    Ok(QueryResult { records, truncated })
}

/// Whether `result.metadata.grail.notifications[]` says the result hit a limit: a
/// `notificationType` naming RESULT and LIMIT (or TRUNCATED), or a `message`/`messageFormat`
/// like "result ... limit ... reached / exceeded / truncated".
fn grail_reports_truncation(result: &Value) -> bool {
    static LIMIT_MESSAGE: OnceLock<regex::Regex> = OnceLock::new();
    let limit_message = LIMIT_MESSAGE
        .get_or_init(|| regex::Regex::new(r"(?is)result.*limit.*(reach|exceed|truncat)").expect("a valid pattern"));
    let Some(notifications) = result.pointer("/metadata/grail/notifications").and_then(Value::as_array) else {
        return false;
    };
    notifications.iter().any(|notification| {
        let kind = notification.get("notificationType").and_then(Value::as_str).unwrap_or("").to_ascii_uppercase();
        let kind_says_limit = kind.contains("RESULT") && (kind.contains("LIMIT") || kind.contains("TRUNCAT"));
        let message_says_limit = ["message", "messageFormat"]
            .iter()
            .filter_map(|key| notification.get(key).and_then(Value::as_str))
            .any(|text| limit_message.is_match(text));
        kind_says_limit || message_says_limit
    })
}

/// The error an HTTP status means, or `None` for 2xx. 401 token rejected, 403 missing scopes,
/// 404 wrong environment URL, 410 result gone, 429 rate limited (with `retry_after_secs`, else
/// [`DEFAULT_RETRY_AFTER_SECS`], at most [`MAX_RETRY_AFTER_SECS`]); anything else `Upstream`.
pub fn error_for_status(status: u16, retry_after_secs: Option<u64>) -> Option<GrailError> {
    Some(match status {
        200..=299 => return None,
        401 => GrailError::TokenRejected,
        403 => GrailError::MissingScopes,
        404 => GrailError::NotFound,
        410 => GrailError::ResultGone,
        429 => GrailError::RateLimited {
            retry_after_secs: retry_after_secs.unwrap_or(DEFAULT_RETRY_AFTER_SECS).clamp(1, MAX_RETRY_AFTER_SECS),
        },
        status => GrailError::Upstream { status },
    })
}

/// `error.retryAfterSeconds` of an error body (a non-negative number or numeric string,
/// rounded up).
pub fn retry_after_from_body(body: &Value) -> Option<u64> {
    let value = body.pointer("/error/retryAfterSeconds")?;
    let seconds = match value {
        Value::Number(n) => n.as_f64()?,
        Value::String(s) => s.trim().parse::<f64>().ok()?,
        _ => return None,
    };
    (seconds.is_finite() && seconds >= 0.0).then(|| seconds.ceil().min(u64::MAX as f64) as u64)
}

/// A `Retry-After` header: whole seconds, or an IMF-fixdate (`Wed, 21 Oct 2015 07:28:00 GMT`)
/// turned into seconds from `now_ms` (0 when already past).
pub fn retry_after_from_header(value: &str, now_ms: i64) -> Option<u64> {
    let value = value.trim();
    if !value.is_empty() && value.bytes().all(|b| b.is_ascii_digit()) {
        return value.parse().ok();
    }
    let at_ms = parse_http_date(value)?;
    Some(((at_ms - now_ms).max(0) as u64).div_ceil(1000))
}

/// Epoch ms of an IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`).
fn parse_http_date(value: &str) -> Option<i64> {
    const MONTHS: [&str; 12] = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
    let (_weekday, rest) = value.split_once(", ")?;
    let parts: Vec<&str> = rest.split(' ').collect();
    let [day, month, year, clock, "GMT"] = parts.as_slice() else {
        return None;
    };
    let month = MONTHS.iter().position(|m| m == month)? + 1;
    if day.len() != 2 || year.len() != 4 {
        return None;
    }
    crate::time::parse_datetime(&format!("{year}-{month:02}-{day}T{clock}Z")).ok()
}

#[cfg(test)]
#[path = "grail_tests.rs"]
mod tests;
