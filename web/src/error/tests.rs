//! Every error family rendered through the one adapter: status, body shape (PocketBase
//! `{status, message, data}`; `data.code` for Relay's own families) and `Retry-After` only on
//! the rate-limited variants.

use actix_web::body::to_bytes;
use actix_web::http::header::{CONTENT_TYPE, RETRY_AFTER};
use actix_web::ResponseError;
use serde_json::{json, Value};

use actors::privileged::PrivError;
use actors::web_sessions::WebError;
use domain::envelope::EnvelopeError;
use domain::problem::HttpProblem;
use domain::record::RecordError;

use super::Problem;
use crate::gateway::guard::Refused;

/// Status, `Retry-After` (if any) and the JSON body of one error rendered by `Problem`.
async fn render<E: HttpProblem + std::fmt::Debug + 'static>(e: E) -> (u16, Option<String>, Value) {
    let res = Problem(e).error_response();
    let status = res.status().as_u16();
    let retry = res.headers().get(RETRY_AFTER).map(|v| v.to_str().unwrap().to_string());
    assert_eq!(res.headers().get(CONTENT_TYPE).unwrap(), "application/json");
    let bytes = to_bytes(res.into_body()).await.unwrap();
    (status, retry, serde_json::from_slice(&bytes).unwrap())
}

#[actix_web::test]
async fn record_errors_keep_pocketbase_bodies() {
    let (status, retry, body) = render(RecordError::NotFound).await;
    assert_eq!((status, retry), (404, None));
    assert_eq!(body, json!({"status": 404, "message": "The requested resource wasn't found.", "data": {}}));

    let invalid = RecordError::field("email", "validation_invalid_email", "Must be a valid email address.");
    assert_eq!(invalid.code(), "validation_failed");
    let (status, retry, body) = render(invalid).await;
    assert_eq!((status, retry), (400, None));
    assert_eq!(
        body,
        json!({"status": 400, "message": "Failed to validate the submitted data.",
            "data": {"email": {"code": "validation_invalid_email", "message": "Must be a valid email address."}}})
    );

    let (status, retry, body) = render(RecordError::RateLimited { retry_after_secs: 7 }).await;
    assert_eq!((status, retry.as_deref()), (429, Some("7")));
    assert_eq!(body, json!({"status": 429, "message": "Too many requests.", "data": {}}));
    let (_, retry, _) = render(RecordError::RateLimited { retry_after_secs: 0 }).await;
    assert_eq!(retry.as_deref(), Some("1"), "never tell a client to retry at once");

    let (status, retry, body) = render(RecordError::TooLarge).await;
    assert_eq!((status, retry, body["status"].clone()), (413, None, json!(413)));
}

#[actix_web::test]
async fn privileged_errors_carry_their_code() {
    let (status, retry, body) = render(PrivError::StaleRevision).await;
    assert_eq!((status, retry), (409, None));
    assert_eq!(
        body,
        json!({"status": 409, "message": "the record changed meanwhile; reload and retry",
            "data": {"code": "stale_revision"}})
    );
    let (status, _, body) = render(PrivError::Envelope(EnvelopeError::BadSignature)).await;
    assert_eq!((status, body["data"]["code"].as_str()), (400, Some("invalid_envelope")));
    let (status, retry, body) = render(PrivError::RateLimited { retry_after_secs: 12 }).await;
    assert_eq!((status, retry.as_deref()), (429, Some("12")));
    assert_eq!(body["data"], json!({"code": "rate_limited"}));
    let (status, _, body) = render(PrivError::Internal).await;
    assert_eq!((status, body["message"].as_str()), (500, Some("internal error")));
}

#[actix_web::test]
async fn web_session_errors_carry_their_code_and_sign_in_keeps_the_record_body() {
    let (status, retry, body) = render(WebError::Csrf).await;
    assert_eq!((status, retry), (403, None));
    assert_eq!(
        body,
        json!({"status": 403, "message": "the request is missing a valid CSRF token", "data": {"code": "csrf"}})
    );
    let (status, retry, body) = render(WebError::RateLimited(0)).await;
    assert_eq!((status, retry.as_deref(), body["data"]["code"].as_str()), (429, Some("1"), Some("rate_limited")));
    let (status, _, body) = render(WebError::NoSession).await;
    assert_eq!((status, body["data"]["code"].as_str()), (401, Some("no_session")));

    let (status, retry, body) = render(WebError::SignIn(RecordError::InvalidCredentials)).await;
    assert_eq!((status, retry), (400, None));
    assert_eq!(body, json!({"status": 400, "message": "Failed to authenticate.", "data": {}}));
    let (status, retry, _) = render(WebError::SignIn(RecordError::RateLimited { retry_after_secs: 30 })).await;
    assert_eq!((status, retry.as_deref()), (429, Some("30")));

    let unreachable: Problem<WebError> = actix::MailboxError::Closed.into();
    assert_eq!(unreachable.status_code().as_u16(), 503);
}

#[actix_web::test]
async fn gateway_guard_refusals() {
    let (status, retry, body) = render(Refused::ForeignHost).await;
    assert_eq!((status, retry), (421, None));
    assert_eq!(
        body,
        json!({"status": 421, "message": "This host name is not served here.", "data": {"code": "foreign_host"}})
    );
    for (refused, code) in [
        (Refused::CrossOrigin, "cross_origin"),
        (Refused::MissingOrigin, "missing_origin"),
        (Refused::CrossSite, "cross_site"),
    ] {
        let (status, retry, body) = render(refused).await;
        assert_eq!((status, retry, body["data"]["code"].as_str()), (403, None, Some(code)));
    }
    assert_eq!(render(Refused::Misconfigured).await.0, 500);
}

#[test]
fn an_unreachable_actor_is_a_record_503() {
    let e: super::ApiError = actix::MailboxError::Timeout.into();
    assert_eq!(e, Problem(RecordError::Unavailable));
}
