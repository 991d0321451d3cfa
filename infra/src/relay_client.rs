//! The desktop client's calls to its Relay server for offline replay, under the Relay-peer HTTP
//! policy (no redirects, deadlines, body caps, origin-only logging): read one record, create a
//! record with its client-chosen id, and send a batch of guarded changes to `POST
//! /api/relay/offline/replay/batch`. Answers are typed: a missing record is `None`, and every
//! refusal keeps its HTTP status so the caller can tell a confirmed refusal (4xx) from an
//! outcome it cannot know (network failure, timeout, 5xx). It never retries and never decides
//! what a conflict means; the offline replay actor does.

use std::time::Duration;

use serde::Deserialize;
use serde_json::{json, Value};
use url::Url;

use crate::http::{CancellationToken, HttpClient, HttpError, HttpPolicy};

/// Largest answer read from the server (a batch's results or one record).
const MAX_ANSWER_BYTES: u64 = 4 * 1024 * 1024;

/// One change's answer from the batch route.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct ChangeAnswer {
    pub status: u16,
    #[serde(default)]
    pub applied: bool,
    #[serde(default)]
    pub code: Option<String>,
    #[serde(default)]
    pub message: Option<String>,
}

#[derive(Deserialize)]
struct BatchAnswer {
    results: Vec<ChangeAnswer>,
}

/// A Relay server reached with an app-user token.
#[derive(Clone)]
pub struct RelayClient {
    http: HttpClient,
    base: Url,
}

impl RelayClient {
    /// `origin` must already be a validated server origin (`domain::server_url`).
    pub fn new(origin: &str, timeout: Duration) -> Result<RelayClient, HttpError> {
        let base = Url::parse(origin).map_err(|_| HttpError::InvalidUrl {
            origin: "<unparseable-url>".into(),
            reason: "the server origin does not parse",
        })?;
        let http = HttpPolicy { timeout, max_body_bytes: MAX_ANSWER_BYTES, ..HttpPolicy::relay_peer() }.build()?;
        Ok(RelayClient { http, base })
    }

    fn url(&self, path: &str) -> String {
        let mut url = self.base.clone();
        url.set_path(path);
        url.to_string()
    }

    fn record_path(collection: &str, id: Option<&str>) -> String {
        match id {
            Some(id) => format!("/api/collections/{collection}/records/{id}"),
            None => format!("/api/collections/{collection}/records"),
        }
    }

    /// The record as the server renders it, or `None` when it does not exist (404).
    pub async fn get_record(
        &self,
        token: &str,
        collection: &str,
        id: &str,
        cancel: &CancellationToken,
    ) -> Result<Option<Value>, HttpError> {
        let request = self.http.get(&self.url(&Self::record_path(collection, Some(id)))).header("Authorization", token);
        match self.http.execute(request, cancel).await {
            Ok(res) => res.json().map(Some),
            Err(HttpError::Status { status: 404, .. }) => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// Creates a record with the fields of `data` and the client-chosen `id`.
    pub async fn create_record(
        &self,
        token: &str,
        collection: &str,
        id: &str,
        data: &Value,
        cancel: &CancellationToken,
    ) -> Result<Value, HttpError> {
        let mut body = match data {
            Value::Object(map) => Value::Object(map.clone()),
            _ => json!({}),
        };
        body["id"] = Value::String(id.to_string());
        let request =
            self.http.post(&self.url(&Self::record_path(collection, None))).header("Authorization", token).json(&body);
        self.http.execute(request, cancel).await?.json()
    }

    /// Sends up to 100 guarded changes; one answer per change, in order. A server without the
    /// route answers `Status { status: 404 }`.
    pub async fn replay_batch(
        &self,
        token: &str,
        changes: &[Value],
        cancel: &CancellationToken,
    ) -> Result<Vec<ChangeAnswer>, HttpError> {
        let request = self
            .http
            .post(&self.url("/api/relay/offline/replay/batch"))
            .header("Authorization", token)
            .json(&json!({ "changes": changes }));
        let answer: BatchAnswer = self.http.execute(request, cancel).await?.json()?;
        if answer.results.len() != changes.len() {
            return Err(HttpError::Decode { origin: crate::http::origin::describe(&self.base) });
        }
        Ok(answer.results)
    }
}

/// Whether `error` is the server's confirmed refusal (a 4xx answer) rather than an outcome the
/// client cannot know.
pub fn is_confirmed_refusal(error: &HttpError) -> Option<u16> {
    match error {
        HttpError::Status { status, .. } if (400..500).contains(status) => Some(*status),
        HttpError::RateLimited { status, .. } => Some(*status),
        _ => None,
    }
}
