//! Grail answer rules: every query state, where the request token comes from and how it is
//! bounded, record shape checks, the three truncation signals and the record cap, the HTTP
//! status mapping with its operator messages, and the rate-limit hints in bodies and headers.

use super::*;
use serde_json::json;

fn done(body: Value) -> QueryResult {
    match parse_query_answer(&body, None) {
        Ok(QueryProgress::Done(result)) => result,
        other => panic!("not done: {other:?}"),
    }
}

fn succeeded(records: Vec<Value>, notifications: Value) -> Value {
    json!({
        "state": "SUCCEEDED",
        "progress": 100,
        "result": { "records": records, "types": [], "metadata": { "grail": { "notifications": notifications } } }
    })
}

#[test]
fn running_queries_are_pending_with_a_token_from_the_body_or_the_header() {
    for state in ["NOT_STARTED", "RUNNING"] {
        let body = json!({ "state": state, "requestToken": "tok-1==", "ttlSeconds": 500 });
        assert_eq!(
            parse_query_answer(&body, Some("header-token")),
            Ok(QueryProgress::Pending { request_token: "tok-1==".into() }),
            "the body's token wins"
        );
        let headless = json!({ "state": state });
        assert_eq!(
            parse_query_answer(&headless, Some(" header-token ")),
            Ok(QueryProgress::Pending { request_token: "header-token".into() })
        );
        assert_eq!(parse_query_answer(&headless, None), Err(GrailError::Malformed), "no token at all");
    }
}

#[test]
fn request_tokens_must_be_short_printable_ascii() {
    let long = "t".repeat(MAX_REQUEST_TOKEN_CHARS);
    let body = json!({ "state": "RUNNING", "requestToken": long });
    assert!(matches!(parse_query_answer(&body, None), Ok(QueryProgress::Pending { .. })));
    for bad in ["t".repeat(MAX_REQUEST_TOKEN_CHARS + 1), "a b".into(), "a\nb".into(), "tök".into()] {
        let body = json!({ "state": "RUNNING", "requestToken": bad });
        assert_eq!(parse_query_answer(&body, None), Err(GrailError::Malformed), "{bad:?}");
    }
    assert_eq!(parse_query_answer(&json!({ "state": "RUNNING" }), Some("a&b c")), Err(GrailError::Malformed));
}

#[test]
fn succeeded_queries_carry_their_records() {
    let records = vec![json!({"problemId": "a"}), json!({"problemId": "b"})];
    let result = done(succeeded(records.clone(), json!([])));
    assert_eq!(result, QueryResult { records, truncated: false });
    let no_metadata = json!({ "state": "SUCCEEDED", "result": { "records": [] } });
    assert_eq!(done(no_metadata), QueryResult::default());
}

#[test]
fn a_succeeded_execute_without_a_result_is_polled_for_it() {
    let body = json!({ "state": "SUCCEEDED", "requestToken": "tok" });
    assert_eq!(parse_query_answer(&body, None), Ok(QueryProgress::Pending { request_token: "tok".into() }));
    let null_result = json!({ "state": "SUCCEEDED", "result": null });
    assert_eq!(parse_query_answer(&null_result, Some("h")), Ok(QueryProgress::Pending { request_token: "h".into() }));
    assert_eq!(parse_query_answer(&json!({ "state": "SUCCEEDED" }), None), Err(GrailError::Malformed));
}

#[test]
fn failed_states_and_malformed_answers_are_errors() {
    for (state, error) in [
        ("FAILED", GrailError::QueryFailed),
        ("CANCELLED", GrailError::QueryCancelled),
        ("RESULT_GONE", GrailError::ResultGone),
        ("PAUSED", GrailError::Malformed),
        ("succeeded", GrailError::Malformed),
    ] {
        let body = json!({ "state": state, "requestToken": "tok", "error": { "message": "secret detail" } });
        assert_eq!(parse_query_answer(&body, Some("tok")), Err(error), "{state}");
    }
    for body in [
        json!(null),
        json!([]),
        json!({}),
        json!({ "state": 3 }),
        json!({ "state": "SUCCEEDED", "result": {} }),
        json!({ "state": "SUCCEEDED", "result": { "records": {} } }),
        json!({ "state": "SUCCEEDED", "result": { "records": [1, 2] } }),
        json!({ "state": "SUCCEEDED", "result": { "records": [{}, "x"] } }),
    ] {
        assert_eq!(parse_query_answer(&body, None), Err(GrailError::Malformed), "{body}");
    }
}

#[test]
fn truncation_is_read_from_grail_notifications() {
    let one = vec![json!({"problemId": "a"})];
    for notification in [
        json!({ "notificationType": "RESULT_TRUNCATED", "severity": "WARNING" }),
        json!({ "notificationType": "result_limit_reached" }),
        json!({ "notificationType": "SCAN_LIMIT", "message": "The result limit of 10000 records was reached." }),
        json!({ "notificationType": "OTHER", "message": "Result records\nhit the LIMIT and were truncated" }),
        json!({ "messageFormat": "Result has exceeded the record limit; exceeded by {0}" }),
    ] {
        let result = done(succeeded(one.clone(), json!([{ "notificationType": "INFO" }, notification.clone()])));
        assert!(result.truncated, "{notification}");
        assert_eq!(result.records.len(), 1);
    }
    for notification in [
        json!({ "notificationType": "SCAN_LIMIT_GBYTES", "message": "Scan limit reached" }),
        json!({ "notificationType": "RESULT", "message": "Your result is ready" }),
        json!({ "notificationType": "LIMIT", "message": "limit result" }),
        json!("RESULT_TRUNCATED"),
    ] {
        assert!(!done(succeeded(one.clone(), json!([notification.clone()]))).truncated, "{notification}");
    }
}

#[test]
fn the_record_limit_itself_marks_and_cuts_the_result() {
    let at_limit: Vec<Value> = (0..MAX_RESULT_RECORDS).map(|i| json!({ "i": i })).collect();
    let result = done(succeeded(at_limit, json!([])));
    assert!(result.truncated);
    assert_eq!(result.records.len(), MAX_RESULT_RECORDS);
    let below: Vec<Value> = (0..MAX_RESULT_RECORDS - 1).map(|i| json!({ "i": i })).collect();
    assert!(!done(succeeded(below, json!([]))).truncated);
    let over: Vec<Value> = (0..MAX_RESULT_RECORDS + 3).map(|i| json!({ "i": i })).collect();
    let result = done(succeeded(over, json!([])));
    assert!(result.truncated);
    assert_eq!(result.records.len(), MAX_RESULT_RECORDS);
    assert_eq!(result.records.last(), Some(&json!({ "i": MAX_RESULT_RECORDS - 1 })));
}

#[test]
fn http_statuses_map_to_operator_messages() {
    for status in [200, 202, 204, 299] {
        assert_eq!(error_for_status(status, None), None, "{status}");
    }
    let cases = [
        (401, "token_rejected", "Dynatrace rejected the platform token"),
        (403, "missing_scopes", "The platform token needs storage:events:read and storage:buckets:read"),
        (404, "not_found", "Use the SaaS environment URL ending in .apps.dynatrace.com"),
        (410, "result_gone", "The query result expired before Relay could read it"),
        (302, "upstream_status", "Dynatrace answered with HTTP status 302"),
        (500, "upstream_status", "Dynatrace answered with HTTP status 500"),
        (503, "upstream_status", "Dynatrace answered with HTTP status 503"),
    ];
    for (status, code, message) in cases {
        let error = error_for_status(status, Some(5)).unwrap();
        assert_eq!((error.code(), error.to_string().as_str()), (code, message), "{status}");
        assert_eq!(error.retry_after_secs(), None);
    }
    assert_eq!(error_for_status(429, Some(30)), Some(GrailError::RateLimited { retry_after_secs: 30 }));
    assert_eq!(
        error_for_status(429, None),
        Some(GrailError::RateLimited { retry_after_secs: DEFAULT_RETRY_AFTER_SECS })
    );
    assert_eq!(error_for_status(429, Some(0)), Some(GrailError::RateLimited { retry_after_secs: 1 }));
    let capped = error_for_status(429, Some(1_000_000)).unwrap();
    assert_eq!(capped.retry_after_secs(), Some(MAX_RETRY_AFTER_SECS));
    assert_eq!(capped.code(), "rate_limited");
}

#[test]
fn every_error_has_a_distinct_code() {
    let all = [
        GrailError::TokenRejected,
        GrailError::MissingScopes,
        GrailError::NotFound,
        GrailError::RateLimited { retry_after_secs: 1 },
        GrailError::QueryFailed,
        GrailError::QueryCancelled,
        GrailError::ResultGone,
        GrailError::Malformed,
        GrailError::Timeout,
        GrailError::Upstream { status: 500 },
    ];
    let mut codes: Vec<&str> = all.iter().map(GrailError::code).collect();
    codes.sort_unstable();
    codes.dedup();
    assert_eq!(codes.len(), all.len());
}

#[test]
fn retry_hints_come_from_bodies_and_headers() {
    assert_eq!(retry_after_from_body(&json!({ "error": { "code": 429, "retryAfterSeconds": 42 } })), Some(42));
    assert_eq!(retry_after_from_body(&json!({ "error": { "retryAfterSeconds": 1.2 } })), Some(2));
    assert_eq!(retry_after_from_body(&json!({ "error": { "retryAfterSeconds": " 7 " } })), Some(7));
    for body in [
        json!({}),
        json!({ "retryAfterSeconds": 5 }),
        json!({ "error": { "retryAfterSeconds": -1 } }),
        json!({ "error": { "retryAfterSeconds": "soon" } }),
        json!({ "error": { "retryAfterSeconds": null } }),
    ] {
        assert_eq!(retry_after_from_body(&body), None, "{body}");
    }
    let now = crate::time::parse_datetime("2015-10-21T07:27:00Z").unwrap();
    assert_eq!(retry_after_from_header(" 120 ", now), Some(120));
    assert_eq!(retry_after_from_header("Wed, 21 Oct 2015 07:28:00 GMT", now), Some(60));
    assert_eq!(retry_after_from_header("Wed, 21 Oct 2015 07:20:00 GMT", now), Some(0), "a past date waits 0");
    for bad in ["", "-5", "1.5", "soon", "Wed, 21 Oct 2015 07:28:00 UTC", "Wed, 21 Foo 2015 07:28:00 GMT"] {
        assert_eq!(retry_after_from_header(bad, now), None, "{bad:?}");
    }
}
