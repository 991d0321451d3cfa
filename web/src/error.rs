//! HTTP rendering of `RecordError`: PocketBase-style bodies `{status, message, data}`, the
//! right status code, and `Retry-After` on 429. Also the extractor configs that turn malformed
//! JSON, oversized bodies and bad paths or queries into the same typed errors.

use actix_web::http::header::{HeaderValue, RETRY_AFTER};
use actix_web::http::StatusCode;
use actix_web::{error, web, HttpRequest, HttpResponse, ResponseError};

use domain::record::RecordError;

#[derive(Debug)]
pub struct ApiError(pub RecordError);

impl std::fmt::Display for ApiError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

impl From<RecordError> for ApiError {
    fn from(e: RecordError) -> Self {
        ApiError(e)
    }
}

impl From<actix::MailboxError> for ApiError {
    fn from(_: actix::MailboxError) -> Self {
        ApiError(RecordError::Unavailable)
    }
}

impl ResponseError for ApiError {
    fn status_code(&self) -> StatusCode {
        StatusCode::from_u16(self.0.status()).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR)
    }

    fn error_response(&self) -> HttpResponse {
        let mut res = HttpResponse::build(self.status_code());
        if let RecordError::RateLimited { retry_after_secs } = self.0 {
            if let Ok(v) = HeaderValue::from_str(&retry_after_secs.max(1).to_string()) {
                res.insert_header((RETRY_AFTER, v));
            }
        }
        res.json(self.0.body())
    }
}

pub type ApiResult<T> = Result<T, ApiError>;

fn bad_request(message: &str) -> error::Error {
    ApiError(RecordError::BadRequest(message.into())).into()
}

pub fn json_config(limit: usize) -> web::JsonConfig {
    web::JsonConfig::default().limit(limit).error_handler(|err, _| match err {
        error::JsonPayloadError::OverflowKnownLength { .. } | error::JsonPayloadError::Overflow { .. } => {
            ApiError(RecordError::TooLarge).into()
        }
        error::JsonPayloadError::ContentType => bad_request("The request body must be application/json."),
        _ => bad_request("Failed to load the submitted data due to invalid formatting."),
    })
}

pub fn query_config() -> web::QueryConfig {
    web::QueryConfig::default().error_handler(|_, _| bad_request("Invalid query parameters."))
}

pub fn path_config() -> web::PathConfig {
    web::PathConfig::default().error_handler(|_, _| ApiError(RecordError::NotFound).into())
}

pub async fn not_found(_: HttpRequest) -> HttpResponse {
    ApiError(RecordError::NotFound).error_response()
}
