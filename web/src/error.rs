//! The one error path from a typed error to HTTP. `Problem<E>` wraps any error that implements
//! `domain::problem::HttpProblem` and is the only `ResponseError` in Relay: it answers the
//! error's status with the JSON body `{status, message, data}` and, when the error says so,
//! `Retry-After` (at least 1 s). A new subsystem error implements `HttpProblem` and nothing
//! here changes. Also the extractor configs and the raw-body extractor that turn malformed
//! JSON, oversized bodies and bad paths or queries into `RecordError`s through the same path.

use std::fmt;

use actix_web::dev::Payload;
use actix_web::error::{JsonPayloadError, PayloadError};
use actix_web::http::header::RETRY_AFTER;
use actix_web::http::StatusCode;
use actix_web::{error, web, FromRequest, HttpRequest, HttpResponse, ResponseError};
use bytes::Bytes;
use futures_util::future::LocalBoxFuture;

use actors::web_sessions::WebError;
use domain::problem::{problem_body, retry_after_header, HttpProblem};
use domain::record::RecordError;

/// Any `HttpProblem` as an actix error response.
#[derive(Debug, Clone, PartialEq)]
pub struct Problem<E>(pub E);

/// The record (PocketBase) family, the error of most data-API handlers and extractors.
pub type ApiError = Problem<RecordError>;
pub type ApiResult<T> = Result<T, ApiError>;

impl<E: HttpProblem> fmt::Display for Problem<E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.0, f)
    }
}

impl<E: HttpProblem> From<E> for Problem<E> {
    fn from(e: E) -> Self {
        Problem(e)
    }
}

/// An actor that cannot be reached answers 503 "temporarily unavailable".
impl From<actix::MailboxError> for Problem<RecordError> {
    fn from(_: actix::MailboxError) -> Self {
        Problem(RecordError::Unavailable)
    }
}

/// The same 503 on the gateway's own routes.
impl From<actix::MailboxError> for Problem<WebError> {
    fn from(_: actix::MailboxError) -> Self {
        Problem(WebError::SignIn(RecordError::Unavailable))
    }
}

impl<E: HttpProblem + fmt::Debug + 'static> ResponseError for Problem<E> {
    fn status_code(&self) -> StatusCode {
        StatusCode::from_u16(self.0.status()).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR)
    }

    fn error_response(&self) -> HttpResponse {
        let mut res = HttpResponse::build(self.status_code());
        if let Some(secs) = retry_after_header(&self.0) {
            res.insert_header((RETRY_AFTER, secs.to_string()));
        }
        res.json(problem_body(&self.0))
    }
}

fn bad_request(message: &str) -> error::Error {
    ApiError::from(RecordError::BadRequest(message.into())).into()
}

const MALFORMED: &str = "Failed to load the submitted data due to invalid formatting.";

pub fn json_config(limit: usize) -> web::JsonConfig {
    web::JsonConfig::default().limit(limit).error_handler(|err, _| match err {
        JsonPayloadError::OverflowKnownLength { .. }
        | JsonPayloadError::Overflow { .. }
        | JsonPayloadError::Payload(PayloadError::Overflow) => ApiError::from(RecordError::TooLarge).into(),
        JsonPayloadError::ContentType => bad_request("The request body must be application/json."),
        _ => bad_request(MALFORMED),
    })
}

pub fn query_config() -> web::QueryConfig {
    web::QueryConfig::default().error_handler(|_, _| bad_request("Invalid query parameters."))
}

pub fn path_config() -> web::PathConfig {
    web::PathConfig::default().error_handler(|_, _| ApiError::from(RecordError::NotFound).into())
}

/// The request body as bytes, bounded by the route's `web::PayloadConfig` like `web::Bytes`,
/// but refused through `Problem`: over the limit is 413 with the JSON body (actix's own
/// `Bytes` extractor answers that in plain text).
pub struct RawBody(pub Bytes);

impl FromRequest for RawBody {
    type Error = ApiError;
    type Future = LocalBoxFuture<'static, Result<Self, ApiError>>;

    fn from_request(req: &HttpRequest, payload: &mut Payload) -> Self::Future {
        let body = Bytes::from_request(req, payload);
        Box::pin(async move { body.await.map(RawBody).map_err(|e| Problem(payload_refusal(&e))) })
    }
}

fn payload_refusal(err: &error::Error) -> RecordError {
    match err.as_error::<PayloadError>() {
        Some(PayloadError::Overflow) => RecordError::TooLarge,
        _ => RecordError::BadRequest(MALFORMED.into()),
    }
}

pub async fn not_found(_: HttpRequest) -> HttpResponse {
    ApiError::from(RecordError::NotFound).error_response()
}

#[cfg(test)]
mod tests;
