//! Fetching and parsing the status feeds of `domain::status_feeds::PROVIDERS`: one module per
//! wire format (RSS/Atom, Statuspage, Google, Salesforce, Mist, Status.io, Proofpoint's aura
//! flow, StatusGator HTML), each a pure, bounded `parse(bytes, now_ms)` that turns a body into
//! normalized [`StatusItem`]s by calling `domain::status_feeds::rules` (no parser decides a
//! severity itself), and [`StatusFeedClient`], which fetches every source in parallel through
//! the one outbound HTTP policy (fixed endpoints, no credentials or cookies, no redirects,
//! deadlines, byte caps). It keeps no state between polls: keeping the last good items,
//! cadence and toasts belong to the caller.

mod fetch;
pub mod google;
pub mod mist;
pub mod proofpoint;
pub mod rss;
pub mod salesforce;
pub mod statusgator;
pub mod statusio;
pub mod statuspage;
mod text;

#[cfg(any(test, feature = "test-fixtures"))]
pub mod testdata;

use std::future::Future;
use std::pin::Pin;

pub use domain::status_feeds::{ProviderId, Severity, StatusItem};
pub use fetch::{parse_document, source, FeedLimits, StatusFeedClient};
pub use text::{html_to_text, parse_date_ms};
pub use tokio_util::sync::CancellationToken;

/// Why a body could not be read as its format. Messages never echo the body.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FeedParseError {
    /// The XML is not well-formed (or not UTF-8).
    #[error("the feed is not well-formed XML")]
    Xml,
    /// The XML nests deeper than the parser's bound.
    #[error("the feed nests deeper than {0} elements")]
    TooDeep(usize),
    /// Neither an RSS `<channel>` nor an Atom `<feed>`.
    #[error("the document is not an RSS or Atom feed")]
    NotAFeed,
    /// The JSON does not parse or does not have the expected shape.
    #[error("the response does not match the expected {0} shape")]
    Shape(&'static str),
    /// The page does not contain what the parser looks for.
    #[error("the page does not contain {0}")]
    Missing(&'static str),
}

impl FeedParseError {
    /// A stable machine-readable code.
    pub fn code(&self) -> &'static str {
        match self {
            FeedParseError::Xml => "xml",
            FeedParseError::TooDeep(_) => "too_deep",
            FeedParseError::NotAFeed => "not_a_feed",
            FeedParseError::Shape(_) => "shape",
            FeedParseError::Missing(_) => "missing",
        }
    }
}

/// The outcome of one provider in one poll: its finalized items, or a bounded, single-line
/// operator-readable error naming at most the provider's origin.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProviderPoll {
    pub provider: ProviderId,
    pub outcome: Result<Vec<StatusItem>, String>,
}

/// What the status actor needs from the fetcher, so it can be tested without HTTP.
pub trait FeedPoller: Send + Sync + 'static {
    /// One entry per provider in `PROVIDERS` order.
    fn poll_all(
        &self,
        now_ms: i64,
        cancel: CancellationToken,
    ) -> Pin<Box<dyn Future<Output = Vec<ProviderPoll>> + Send>>;
}

/// Decodes JSON as `T`, mapping any failure to [`FeedParseError::Shape`].
pub(crate) fn json<'a, T: serde::Deserialize<'a>>(bytes: &'a [u8], what: &'static str) -> Result<T, FeedParseError> {
    serde_json::from_slice(bytes).map_err(|_| FeedParseError::Shape(what))
}

#[cfg(test)]
mod fetch_tests;

/// The production poller: [`StatusFeedClient`] over the fixed endpoints. If the TLS client
/// cannot be set up, every provider reports that (the Status tab shows them as Unknown).
pub fn production_poller() -> std::sync::Arc<dyn FeedPoller> {
    match StatusFeedClient::new() {
        Ok(client) => std::sync::Arc::new(client),
        Err(e) => {
            tracing::error!(error = %e, "the status-feed client cannot be set up");
            struct Unavailable(String);
            impl FeedPoller for Unavailable {
                fn poll_all(
                    &self,
                    _: i64,
                    _: CancellationToken,
                ) -> Pin<Box<dyn Future<Output = Vec<ProviderPoll>> + Send>> {
                    let message = self.0.clone();
                    let polls = domain::status_feeds::PROVIDERS
                        .iter()
                        .map(|p| ProviderPoll { provider: p.id, outcome: Err(message.clone()) })
                        .collect();
                    Box::pin(async move { polls })
                }
            }
            std::sync::Arc::new(Unavailable(format!("the status-feed client cannot be set up: {e}")))
        }
    }
}
