//! The client a policy builds, and the one guarded exchange every bounded caller uses:
//! profile check, caller cancellation, one deadline over headers and body, status mapping
//! (redirects, `429`/`503` + `Retry-After`, other failures), `Content-Length` checks and a
//! streamed read that stops at the byte cap. It never logs or returns more of a URL than its
//! origin, and it never interprets the body beyond the optional JSON decode.

use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use bytes::{Bytes, BytesMut};
use reqwest::header::{HeaderMap, ACCEPT, LOCATION, RETRY_AFTER};
use reqwest::StatusCode;
use serde::de::DeserializeOwned;
use tokio_util::sync::CancellationToken;

use super::error::{HttpError, RedirectRefusal};
use super::{check_request_url, headers, origin, redirect, HttpPolicy};

/// A client under one [`HttpPolicy`]. Cheap to clone (the connection pool is shared).
#[derive(Debug, Clone)]
pub struct HttpClient {
    inner: reqwest::Client,
    policy: Arc<HttpPolicy>,
}

/// A successful (2xx) response whose body was read completely within the cap.
#[derive(Debug, Clone)]
pub struct HttpResponse {
    status: u16,
    headers: HeaderMap,
    body: Bytes,
    origin: String,
}

impl HttpResponse {
    pub fn status(&self) -> u16 {
        self.status
    }

    pub fn headers(&self) -> &HeaderMap {
        &self.headers
    }

    pub fn body(&self) -> &[u8] {
        &self.body
    }

    pub fn into_body(self) -> Bytes {
        self.body
    }

    /// Origin of the URL that produced the response (after any allowed redirects).
    pub fn origin(&self) -> &str {
        &self.origin
    }

    /// Whether `Content-Type` is `application/json` or `…+json`.
    pub fn is_json(&self) -> bool {
        headers::has_json_content_type(&self.headers)
    }

    /// Decodes the body as `T` after checking the content type.
    pub fn json<T: DeserializeOwned>(&self) -> Result<T, HttpError> {
        if !self.is_json() {
            return Err(HttpError::BadContentType { origin: self.origin.clone() });
        }
        serde_json::from_slice(&self.body).map_err(|_| HttpError::Decode { origin: self.origin.clone() })
    }
}

impl HttpClient {
    pub(super) fn new(inner: reqwest::Client, policy: HttpPolicy) -> HttpClient {
        HttpClient { inner, policy: Arc::new(policy) }
    }

    pub fn policy(&self) -> &HttpPolicy {
        &self.policy
    }

    /// The underlying client, already carrying the policy's redirect rule and both deadlines.
    /// For callers that send and read requests themselves; they own the body bound then.
    pub fn reqwest(&self) -> &reqwest::Client {
        &self.inner
    }

    pub fn get(&self, url: &str) -> reqwest::RequestBuilder {
        self.inner.get(url)
    }

    pub fn post(&self, url: &str) -> reqwest::RequestBuilder {
        self.inner.post(url)
    }

    /// `GET url` with `Accept: application/json`, decoded as `T`.
    pub async fn get_json<T: DeserializeOwned>(&self, url: &str, cancel: &CancellationToken) -> Result<T, HttpError> {
        self.execute(self.get(url).header(ACCEPT, "application/json"), cancel).await?.json()
    }

    /// Sends `request` under the policy and reads the whole body within the cap. Non-2xx
    /// statuses are errors: 3xx `RedirectRefused`, `429` (or `503` with `Retry-After`)
    /// `RateLimited`, anything else `Status`. `cancel` ends the request with `Cancelled`.
    pub async fn execute(
        &self,
        request: reqwest::RequestBuilder,
        cancel: &CancellationToken,
    ) -> Result<HttpResponse, HttpError> {
        let request = request.build().map_err(|_| HttpError::InvalidUrl {
            origin: "<unparseable-url>".to_string(),
            reason: "the request does not build",
        })?;
        let origin = origin::describe(request.url());
        let result = self.guarded(request, &origin, cancel).await;
        if let Err(e) = &result {
            log_failure(&origin, e, self.policy.failure_log);
        }
        result
    }

    async fn guarded(
        &self,
        request: reqwest::Request,
        origin: &str,
        cancel: &CancellationToken,
    ) -> Result<HttpResponse, HttpError> {
        check_request_url(self.policy.profile, request.url(), cfg!(debug_assertions))?;
        let deadline = tokio::time::Instant::now() + self.policy.timeout;
        tokio::select! {
            biased;
            _ = cancel.cancelled() => Err(HttpError::Cancelled { origin: origin.to_string() }),
            done = tokio::time::timeout_at(deadline, self.exchange(request, origin)) => {
                done.unwrap_or_else(|_| Err(HttpError::Timeout { origin: origin.to_string() }))
            }
        }
    }

    async fn exchange(&self, request: reqwest::Request, origin: &str) -> Result<HttpResponse, HttpError> {
        let requested = request.url().clone();
        let mut res = self.inner.execute(request).await.map_err(|e| map_error(&e, origin))?;
        let origin = origin::describe(res.url());
        let status = res.status();
        if status.is_redirection() && status != StatusCode::NOT_MODIFIED {
            let target = res.headers().get(LOCATION).and_then(|v| v.to_str().ok()).and_then(|l| requested.join(l).ok());
            let origin = target.map(|t| origin::describe(&t)).unwrap_or(origin);
            return Err(HttpError::RedirectRefused { origin, reason: RedirectRefusal::NotAllowed });
        }
        let limited = status == StatusCode::TOO_MANY_REQUESTS
            || (status == StatusCode::SERVICE_UNAVAILABLE && res.headers().contains_key(RETRY_AFTER));
        if limited {
            let retry_after_secs = headers::retry_after(res.headers(), self.now(), self.policy.max_retry_after_secs);
            return Err(HttpError::RateLimited { origin, status: status.as_u16(), retry_after_secs });
        }
        if !status.is_success() {
            return Err(HttpError::Status { origin, status: status.as_u16() });
        }
        let cap = self.policy.max_body_bytes;
        let declared =
            headers::declared_length(res.headers()).map_err(|_| HttpError::Transport { origin: origin.clone() })?;
        if declared.is_some_and(|d| d > cap) {
            return Err(HttpError::TooLarge { origin, limit: cap });
        }
        let body = read_capped(&mut res, cap, declared, &origin).await?;
        Ok(HttpResponse { status: status.as_u16(), headers: res.headers().clone(), body, origin })
    }

    fn now(&self) -> SystemTime {
        UNIX_EPOCH + Duration::from_millis(self.policy.clock.now_ms().max(0) as u64)
    }
}

/// Reads the body chunk by chunk, failing as soon as it would pass `cap` (the chunk that would
/// pass it is never kept) and when the received length disagrees with `declared`.
async fn read_capped(
    res: &mut reqwest::Response,
    cap: u64,
    declared: Option<u64>,
    origin: &str,
) -> Result<Bytes, HttpError> {
    let mut body = BytesMut::with_capacity(declared.unwrap_or(0).min(cap).min(64 * 1024) as usize);
    loop {
        match res.chunk().await {
            Ok(Some(chunk)) => {
                if body.len() as u64 + chunk.len() as u64 > cap {
                    return Err(HttpError::TooLarge { origin: origin.to_string(), limit: cap });
                }
                body.extend_from_slice(&chunk);
            }
            Ok(None) => break,
            Err(e) if e.is_timeout() => return Err(HttpError::Timeout { origin: origin.to_string() }),
            Err(e) => {
                let received = body.len() as u64;
                return Err(match declared {
                    // The connection ended before the declared length arrived.
                    Some(declared) if received < declared => {
                        HttpError::LengthMismatch { origin: origin.to_string(), declared, received }
                    }
                    _ => map_error(&e, origin),
                });
            }
        }
    }
    match declared {
        Some(declared) if declared != body.len() as u64 => {
            Err(HttpError::LengthMismatch { origin: origin.to_string(), declared, received: body.len() as u64 })
        }
        _ => Ok(body.freeze()),
    }
}

/// Maps a reqwest failure without keeping its message (which contains the full URL).
fn map_error(e: &reqwest::Error, origin: &str) -> HttpError {
    let origin = origin.to_string();
    if e.is_timeout() {
        return HttpError::Timeout { origin };
    }
    if e.is_redirect() {
        let mut source = std::error::Error::source(e);
        while let Some(s) = source {
            if let Some(refused) = s.downcast_ref::<redirect::Refused>() {
                return HttpError::RedirectRefused { origin: refused.origin.clone(), reason: refused.reason };
            }
            source = s.source();
        }
        return HttpError::RedirectRefused { origin, reason: RedirectRefusal::TooManyHops };
    }
    if e.is_connect() {
        return HttpError::Connect { origin };
    }
    if e.is_builder() {
        return HttpError::InvalidUrl { origin, reason: "the request does not build" };
    }
    HttpError::Transport { origin }
}

fn log_failure(origin: &str, e: &HttpError, level: super::FailureLog) {
    match e {
        _ if level == super::FailureLog::Debug => {
            tracing::debug!(target: "relay::http", origin = %origin, code = e.code(), "outbound request failed: {e}");
        }
        HttpError::Cancelled { .. } | HttpError::Status { .. } | HttpError::RateLimited { .. } => {
            tracing::debug!(target: "relay::http", origin = %origin, code = e.code(), "outbound request ended: {e}");
        }
        _ => tracing::warn!(target: "relay::http", origin = %origin, code = e.code(), "outbound request failed: {e}"),
    }
}
