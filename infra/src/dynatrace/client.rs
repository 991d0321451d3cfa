//! The Grail Query API client: `POST <env>/platform/storage/query/v1/query:execute`, then
//! `GET …/query:poll?request-token=…` every 250 ms until the query ends, under the outbound HTTP
//! policy (no redirects, 15 s per request, 32 MiB per answer, JSON only) and a 60 s deadline for
//! the whole query. The token is sent only as `Authorization: Bearer` to the configured
//! environment; no URL with a query string, no token and no answer body is ever logged. In
//! debug builds only, `RELAY_TEST_UPSTREAM_DYNATRACE` sends the requests to a loopback fake
//! instead of the configured environment (the configured URL is still validated as a SaaS URL).

use std::time::Duration;

use reqwest::header::{HeaderMap, ACCEPT, AUTHORIZATION, CONTENT_TYPE};
use serde_json::{json, Value};
use url::Url;

use domain::dynatrace::grail::{error_for_status, parse_query_answer, GrailError, QueryProgress, QueryResult};
use domain::dynatrace::{
    EnvironmentUrl, MAX_RESULT_RECORDS, OVERALL_QUERY_DEADLINE_MS, PER_REQUEST_DEADLINE_MS, POLL_EVERY_MS,
    QUERY_REQUEST_TIMEOUT_MS,
};

use crate::http::endpoints::{resolve_endpoint, Endpoint};
use crate::http::{CancellationToken, FailureLog, HttpClient, HttpError, HttpPolicy};

/// The debug-only override hook. The production base is always the configured environment;
/// this constant exists so the override variable has a name and is refused unless loopback.
pub const DYNATRACE_TEST_ENDPOINT: Endpoint = Endpoint { name: "DYNATRACE", production: "https://apps.dynatrace.com" };

const EXECUTE_PATH: &str = "/platform/storage/query/v1/query:execute";
const POLL_PATH: &str = "/platform/storage/query/v1/query:poll";
/// Largest answer read.
pub const MAX_ANSWER_BYTES: u64 = 32 * 1024 * 1024;

/// Why a query did not produce records: Grail's own answer or the HTTP exchange.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum QueryError {
    #[error(transparent)]
    Grail(#[from] GrailError),
    #[error(transparent)]
    Http(#[from] HttpError),
}

impl QueryError {
    /// Seconds Dynatrace asked to wait (429 `Retry-After`).
    pub fn retry_after_secs(&self) -> Option<u64> {
        match self {
            QueryError::Grail(GrailError::RateLimited { retry_after_secs }) => Some(*retry_after_secs),
            _ => None,
        }
    }
}

/// Turns an HTTP failure into Grail's meaning where the status says it (401/403/404/429).
pub(super) fn classify(e: HttpError) -> QueryError {
    match &e {
        HttpError::Status { status, .. } => error_for_status(*status, None).map(QueryError::Grail).unwrap_or(e.into()),
        HttpError::RateLimited { retry_after_secs, .. } => {
            QueryError::Grail(GrailError::RateLimited { retry_after_secs: retry_after_secs.unwrap_or(60) })
        }
        HttpError::Timeout { .. } => QueryError::Grail(GrailError::Timeout),
        _ => e.into(),
    }
}

/// Reads Grail under Relay's outbound policy.
#[derive(Clone)]
pub struct GrailClient {
    http: HttpClient,
    poll_every: Duration,
    overall: Duration,
}

impl GrailClient {
    /// The production client (the actor reports failures itself, so the client logs at debug).
    pub fn new() -> Result<GrailClient, HttpError> {
        let policy = HttpPolicy {
            timeout: Duration::from_millis(PER_REQUEST_DEADLINE_MS),
            max_body_bytes: MAX_ANSWER_BYTES,
            failure_log: FailureLog::Debug,
            ..HttpPolicy::upstream()
        };
        Ok(GrailClient {
            http: policy.build()?,
            poll_every: Duration::from_millis(POLL_EVERY_MS),
            overall: Duration::from_millis(OVERALL_QUERY_DEADLINE_MS),
        })
    }

    /// The HTTP client under Relay's outbound policy (the Automation reads share it).
    pub(super) fn http(&self) -> &HttpClient {
        &self.http
    }

    /// The same client with a shorter whole-query deadline (tests).
    pub fn with_overall_deadline(mut self, overall: Duration) -> GrailClient {
        self.overall = overall;
        self
    }

    /// Runs one DQL query to completion (or to the 60 s deadline, or `cancel`).
    pub async fn query(
        &self,
        environment: &EnvironmentUrl,
        token: &str,
        dql: &str,
        cancel: &CancellationToken,
    ) -> Result<QueryResult, QueryError> {
        let base = base_for(environment)?;
        let run = self.run(&base, token, dql, cancel);
        match tokio::time::timeout(self.overall, run).await {
            Ok(result) => result,
            Err(_) => Err(GrailError::Timeout.into()),
        }
    }

    async fn run(
        &self,
        base: &Url,
        token: &str,
        dql: &str,
        cancel: &CancellationToken,
    ) -> Result<QueryResult, QueryError> {
        let body = json!({
            "query": dql,
            "requestTimeoutMilliseconds": QUERY_REQUEST_TIMEOUT_MS,
            "maxResultRecords": MAX_RESULT_RECORDS,
        });
        let execute = join(base, EXECUTE_PATH)?;
        let request = self
            .http
            .post(execute.as_str())
            .header(AUTHORIZATION, format!("Bearer {token}"))
            .header(ACCEPT, "application/json")
            .header(CONTENT_TYPE, "application/json")
            .body(body.to_string());
        let answer = self.http.execute(request, cancel).await.map_err(classify)?;
        let mut progress = progress_of(answer.body(), answer.headers())?;
        loop {
            let request_token = match progress {
                QueryProgress::Done(result) => return Ok(result),
                QueryProgress::Pending { request_token } => request_token,
            };
            tokio::select! {
                _ = cancel.cancelled() => return Err(GrailError::QueryCancelled.into()),
                _ = tokio::time::sleep(self.poll_every) => {}
            }
            let mut poll = join(base, POLL_PATH)?;
            poll.query_pairs_mut().append_pair("request-token", &request_token);
            let request = self
                .http
                .get(poll.as_str())
                .header(AUTHORIZATION, format!("Bearer {token}"))
                .header(ACCEPT, "application/json");
            let answer = self.http.execute(request, cancel).await.map_err(classify)?;
            progress = progress_of(answer.body(), answer.headers())?;
        }
    }
}

fn progress_of(body: &[u8], headers: &HeaderMap) -> Result<QueryProgress, QueryError> {
    let value: Value = serde_json::from_slice(body).map_err(|_| GrailError::Malformed)?;
    let header_token = ["request-token", "x-request-token", "x-dynatrace-request-token"]
        .iter()
        .find_map(|name| headers.get(*name).and_then(|v| v.to_str().ok()));
    Ok(parse_query_answer(&value, header_token)?)
}

fn join(base: &Url, path: &str) -> Result<Url, QueryError> {
    base.join(path).map_err(|_| {
        HttpError::InvalidUrl { origin: crate::http::origin::describe(base), reason: "the query path does not join" }
            .into()
    })
}

/// The origin requests go to: the configured environment, or in debug builds a loopback
/// override from `RELAY_TEST_UPSTREAM_DYNATRACE`.
pub fn base_for(environment: &EnvironmentUrl) -> Result<Url, QueryError> {
    let configured = Url::parse(environment.as_str()).map_err(|_| HttpError::InvalidUrl {
        origin: "<dynatrace-environment>".into(),
        reason: "the configured environment URL does not parse",
    })?;
    if !cfg!(debug_assertions) {
        return Ok(configured);
    }
    let resolved = resolve_endpoint(&DYNATRACE_TEST_ENDPOINT, true, |var| std::env::var(var).ok())?;
    let overridden = resolved.host().is_some_and(|h| crate::http::endpoints::is_loopback(&h));
    Ok(if overridden { resolved } else { configured })
}
