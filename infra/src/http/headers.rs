//! Pure readings of response headers: `Retry-After` (delta-seconds or HTTP-date, capped),
//! `Content-Length`, and whether a `Content-Type` is JSON. They take the current time as an
//! argument and never touch the network.

use std::time::{Duration, SystemTime};

use reqwest::header::{HeaderMap, CONTENT_LENGTH, CONTENT_TYPE, RETRY_AFTER};

/// Seconds to wait from a `Retry-After` value, at most `cap_secs`. Delta-seconds (`120`) and
/// HTTP-dates (`Wed, 21 Oct 2015 07:28:00 GMT`, rounded up to whole seconds; past dates give 0)
/// are understood; anything else gives `None`.
pub fn parse_retry_after(value: &str, now: SystemTime, cap_secs: u64) -> Option<u64> {
    let value = value.trim();
    if !value.is_empty() && value.bytes().all(|b| b.is_ascii_digit()) {
        // Longer than u64: far beyond any cap.
        return Some(value.parse::<u64>().unwrap_or(u64::MAX).min(cap_secs));
    }
    let at = httpdate::parse_http_date(value).ok()?;
    let wait = at.duration_since(now).unwrap_or(Duration::ZERO);
    let secs = wait.as_secs() + u64::from(wait.subsec_nanos() > 0);
    Some(secs.min(cap_secs))
}

/// The `Retry-After` of a response, if present and readable.
pub fn retry_after(headers: &HeaderMap, now: SystemTime, cap_secs: u64) -> Option<u64> {
    let value = headers.get(RETRY_AFTER)?.to_str().ok()?;
    parse_retry_after(value, now, cap_secs)
}

/// A `Content-Length` that is unreadable or repeated with different values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct InvalidContentLength;

/// The declared `Content-Length`: `Ok(None)` when absent, `Err` when present but unreadable
/// (or repeated with different values).
pub fn declared_length(headers: &HeaderMap) -> Result<Option<u64>, InvalidContentLength> {
    let mut declared = None;
    for value in headers.get_all(CONTENT_LENGTH) {
        let text = value.to_str().map_err(|_| InvalidContentLength)?.trim();
        if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
            return Err(InvalidContentLength);
        }
        let n = text.parse::<u64>().map_err(|_| InvalidContentLength)?;
        if declared.is_some_and(|d| d != n) {
            return Err(InvalidContentLength);
        }
        declared = Some(n);
    }
    Ok(declared)
}

/// Whether a `Content-Type` value is JSON: `application/json` or any `type/subtype+json`,
/// parameters (`; charset=utf-8`) allowed, case-insensitive.
pub fn is_json_content_type(value: &str) -> bool {
    let essence = value.split(';').next().unwrap_or_default().trim().to_ascii_lowercase();
    let Some((kind, subtype)) = essence.split_once('/') else {
        return false;
    };
    let token = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_alphanumeric() || b"!#$&-^_.+".contains(&b));
    token(kind)
        && token(subtype)
        && (essence == "application/json" || (subtype.len() > 5 && subtype.ends_with("+json")))
}

/// Whether a response's `Content-Type` is JSON (absent means no).
pub fn has_json_content_type(headers: &HeaderMap) -> bool {
    headers.get(CONTENT_TYPE).and_then(|v| v.to_str().ok()).is_some_and(is_json_content_type)
}
