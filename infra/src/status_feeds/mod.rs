//! Fetching the service-status feeds. (Placeholder for the poller contract; the parsers and the
//! HTTP client land with the status feeds parsers branch.)

use std::future::Future;
use std::pin::Pin;

use domain::status_feeds::{ProviderId, StatusItem};
use tokio_util::sync::CancellationToken;

/// One provider's result of one poll: its finalized items, or a bounded error message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProviderPoll {
    pub provider: ProviderId,
    pub outcome: Result<Vec<StatusItem>, String>,
}

/// Polls every provider once; one entry per provider in `PROVIDERS` order.
pub trait FeedPoller: Send + Sync + 'static {
    fn poll_all(
        &self,
        now_ms: i64,
        cancel: CancellationToken,
    ) -> Pin<Box<dyn Future<Output = Vec<ProviderPoll>> + Send>>;
}

/// The production poller. (Placeholder until the feed parsers land: every provider reports
/// that its feed is not available in this build.)
pub fn production_poller() -> std::sync::Arc<dyn FeedPoller> {
    struct NotBuilt;
    impl FeedPoller for NotBuilt {
        fn poll_all(&self, _: i64, _: CancellationToken) -> Pin<Box<dyn Future<Output = Vec<ProviderPoll>> + Send>> {
            let polls = domain::status_feeds::PROVIDERS
                .iter()
                .map(|p| ProviderPoll { provider: p.id, outcome: Err("feed not available in this build".into()) })
                .collect();
            Box::pin(async move { polls })
        }
    }
    std::sync::Arc::new(NotBuilt)
}
