//! [`StatusFeedClient`]: every status source fetched in parallel (one task, `join_all`, so it
//! runs on whatever runtime polls it, an actix arbiter included) through the outbound HTTP
//! policy: fixed endpoints from `http::endpoints`, a deadline per request, a byte cap per
//! format (JSON and RSS, HTML), `Cache-Control: no-cache`, no credentials, no cookie store, no
//! redirects. Each provider gets exactly one [`ProviderPoll`], in `PROVIDERS` order, with its
//! items finalized or a bounded error that names at most the origin. It never retries or
//! caches; the caller keeps the last good items.

use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use domain::status_feeds::{
    feed_error_message, finalize_items, FeedFormat, ProviderId, StatusItem, MIST_REGIONS, PROVIDERS,
};
use futures_util::future::join_all;
use reqwest::header::{ACCEPT, CACHE_CONTROL, CONTENT_TYPE, PRAGMA};
use url::Url;

use super::{google, mist, proofpoint, rss, salesforce, statusgator, statusio, statuspage};
use super::{CancellationToken, FeedParseError, FeedPoller, ProviderPoll};
use crate::http::endpoints::{self, Endpoint};
use crate::http::{origin, FailureLog, HttpClient, HttpError, HttpPolicy};

const ACCEPT_JSON: &str = "application/json";
const ACCEPT_FEED: &str = "application/rss+xml, application/atom+xml, application/xml;q=0.9, text/xml;q=0.8";
const ACCEPT_HTML: &str = "text/html";

/// Deadlines and byte caps of the status fetches.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FeedLimits {
    /// Deadline of each request, from connecting to the last body byte.
    pub timeout: Duration,
    /// Largest JSON, RSS or Atom body.
    pub json_max_bytes: u64,
    /// Largest HTML page (Proofpoint, StatusGator).
    pub html_max_bytes: u64,
}

impl Default for FeedLimits {
    /// The original's numbers: 10 s per request, 2 MiB JSON/RSS, 1 MiB HTML.
    fn default() -> Self {
        FeedLimits { timeout: Duration::from_secs(10), json_max_bytes: 2 * 1024 * 1024, html_max_bytes: 1024 * 1024 }
    }
}

/// The endpoint and path (with query) each provider is fetched from. The four Mist regions
/// share the notice list; [`mist`] names the other Mist paths.
pub fn source(provider: ProviderId) -> (&'static Endpoint, &'static str) {
    use ProviderId::*;
    match provider {
        Aws => (&endpoints::STATUS_AWS, "/rss/all.rss"),
        Azure => (&endpoints::STATUS_AZURE, "/en-us/status/feed/"),
        M365 => (&endpoints::STATUS_M365, "/api/feed/mac"),
        Jira => (&endpoints::STATUS_JIRA, statuspage::SUMMARY_PATH),
        Github => (&endpoints::STATUS_GITHUB, statuspage::SUMMARY_PATH),
        Cloudflare => (&endpoints::STATUS_CLOUDFLARE, statuspage::SUMMARY_PATH),
        Google => (&endpoints::STATUS_GOOGLE, "/incidents.json"),
        Anthropic => (&endpoints::STATUS_CLAUDE, statuspage::SUMMARY_PATH),
        Openai => (&endpoints::STATUS_OPENAI, statuspage::SUMMARY_PATH),
        Salesforce => (&endpoints::STATUS_SALESFORCE, "/v1/incidents/active"),
        MistGlobal | MistEmea | MistApac | MistFederal => (&endpoints::STATUS_MIST, mist::NOTICES_PATH),
        Dynatrace => (&endpoints::STATUS_DYNATRACE, statusio::DYNATRACE_PATH),
        Proofpoint => (&endpoints::STATUS_PROOFPOINT, proofpoint::PAGE_PATH),
        Crowdstrike => (&endpoints::STATUS_CROWDSTRIKE, statusgator::PAGE_PATH),
    }
}

/// Parses the one document of a single-document provider (every format but Mist and
/// Proofpoint, which take several requests).
pub fn parse_document(provider: ProviderId, bytes: &[u8], now_ms: i64) -> Result<Vec<StatusItem>, FeedParseError> {
    match provider.info().format {
        FeedFormat::RssAtom => rss::parse(provider, bytes, now_ms),
        FeedFormat::Statuspage => statuspage::parse(provider, bytes, now_ms),
        FeedFormat::GoogleIncidents => google::parse(bytes, now_ms),
        FeedFormat::Salesforce => salesforce::parse(bytes, now_ms),
        FeedFormat::StatusIo => statusio::parse(bytes, now_ms),
        FeedFormat::StatusGatorHtml => statusgator::parse(bytes, now_ms),
        FeedFormat::ProofpointAura => proofpoint::parse_aura(bytes, now_ms),
        FeedFormat::Mist => Err(FeedParseError::Missing("a single Mist document")),
    }
}

/// Fetches and parses every status source. Cheap to clone (the clients are shared).
#[derive(Debug, Clone)]
pub struct StatusFeedClient {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    /// JSON, RSS and Atom (and the aura call).
    json: HttpClient,
    /// HTML pages.
    html: HttpClient,
    /// Every status endpoint at this loopback origin (tests; debug builds only).
    upstream_override: Option<String>,
}

type Polls<'a> = Pin<Box<dyn Future<Output = Vec<ProviderPoll>> + Send + 'a>>;

fn unreadable(origin: &str, e: &FeedParseError) -> String {
    format!("response from {origin} is unreadable: {e}")
}

fn poll(provider: ProviderId, outcome: Result<Vec<StatusItem>, String>) -> ProviderPoll {
    ProviderPoll { provider, outcome: outcome.map(finalize_items).map_err(|m| feed_error_message(&m)) }
}

impl StatusFeedClient {
    /// A client with the default [`FeedLimits`].
    pub fn new() -> Result<StatusFeedClient, HttpError> {
        StatusFeedClient::with_limits(FeedLimits::default())
    }

    /// A client under `HttpPolicy::upstream()` with these deadlines and caps.
    pub fn with_limits(limits: FeedLimits) -> Result<StatusFeedClient, HttpError> {
        let upstream = HttpPolicy::upstream();
        // The status feeds actor logs a failing provider once per state change.
        let base = HttpPolicy {
            timeout: limits.timeout,
            connect_timeout: upstream.connect_timeout.min(limits.timeout),
            failure_log: FailureLog::Debug,
            ..upstream
        };
        let json = HttpPolicy { max_body_bytes: limits.json_max_bytes, ..base.clone() }.build()?;
        let html = HttpPolicy { max_body_bytes: limits.html_max_bytes, ..base }.build()?;
        Ok(StatusFeedClient { inner: Arc::new(Inner { json, html, upstream_override: None }) })
    }

    /// Points every status endpoint at one loopback origin (a fake upstream), without the
    /// process-wide `RELAY_TEST_UPSTREAM_*` variables. Refused (each fetch fails) in release
    /// builds, like the variables.
    #[cfg(any(test, feature = "test-fixtures"))]
    pub fn with_upstream_override(self, origin: &str) -> StatusFeedClient {
        let inner = &self.inner;
        StatusFeedClient {
            inner: Arc::new(Inner {
                json: inner.json.clone(),
                html: inner.html.clone(),
                upstream_override: Some(origin.to_string()),
            }),
        }
    }

    fn base(&self, endpoint: &Endpoint) -> Result<Url, HttpError> {
        match &self.inner.upstream_override {
            Some(origin) if cfg!(debug_assertions) => {
                endpoints::resolve_endpoint(endpoint, true, |_| Some(origin.clone()))
            }
            Some(_) => Err(HttpError::Config { reason: "test upstream overrides exist only in debug builds" }),
            None => endpoints::upstream_base(endpoint),
        }
    }

    fn url(&self, endpoint: &Endpoint, path: &str) -> Result<(Url, String), String> {
        let base = self.base(endpoint).map_err(|e| e.to_string())?;
        let origin = origin::describe(&base);
        let url = base.join(path).map_err(|_| format!("refused URL {origin}: the path does not join"))?;
        Ok((url, origin))
    }

    /// `GET` under the policy; the body and the origin, or an origin-only message.
    async fn get(
        &self,
        client: &HttpClient,
        endpoint: &Endpoint,
        path: &str,
        accept: &str,
        cancel: &CancellationToken,
    ) -> Result<(Bytes, String), String> {
        let (url, origin) = self.url(endpoint, path)?;
        let request = client
            .get(url.as_str())
            .header(ACCEPT, accept)
            .header(CACHE_CONTROL, "no-cache")
            .header(PRAGMA, "no-cache");
        let response = client.execute(request, cancel).await.map_err(|e| e.to_string())?;
        Ok((response.into_body(), origin))
    }

    /// Polls every provider once: exactly one entry per provider, in `PROVIDERS` order.
    pub async fn poll_all(&self, now_ms: i64, cancel: &CancellationToken) -> Vec<ProviderPoll> {
        let mut sources: Vec<Polls<'_>> = Vec::new();
        for info in PROVIDERS {
            match info.format {
                FeedFormat::Mist if info.id == MIST_REGIONS[0] => sources.push(Box::pin(self.mist(now_ms, cancel))),
                FeedFormat::Mist => {}
                FeedFormat::ProofpointAura => sources.push(Box::pin(self.proofpoint(now_ms, cancel))),
                _ => sources.push(Box::pin(self.single(info.id, now_ms, cancel))),
            }
        }
        let mut polls: Vec<ProviderPoll> = join_all(sources).await.into_iter().flatten().collect();
        polls.sort_by_key(|p| PROVIDERS.iter().position(|info| info.id == p.provider));
        polls
    }

    async fn single(&self, provider: ProviderId, now_ms: i64, cancel: &CancellationToken) -> Vec<ProviderPoll> {
        let (endpoint, path) = source(provider);
        let (client, accept) = match provider.info().format {
            FeedFormat::StatusGatorHtml => (&self.inner.html, ACCEPT_HTML),
            FeedFormat::RssAtom => (&self.inner.json, ACCEPT_FEED),
            _ => (&self.inner.json, ACCEPT_JSON),
        };
        let outcome = match self.get(client, endpoint, path, accept, cancel).await {
            Ok((body, origin)) => parse_document(provider, &body, now_ms).map_err(|e| unreadable(&origin, &e)),
            Err(message) => Err(message),
        };
        vec![poll(provider, outcome)]
    }

    /// The page, then the aura call with the page's framework id and app version.
    async fn proofpoint(&self, now_ms: i64, cancel: &CancellationToken) -> Vec<ProviderPoll> {
        let outcome = async {
            let endpoint = &endpoints::STATUS_PROOFPOINT;
            let (page, origin) =
                self.get(&self.inner.html, endpoint, proofpoint::PAGE_PATH, ACCEPT_HTML, cancel).await?;
            let bootstrap = proofpoint::parse_bootstrap(&page).map_err(|e| unreadable(&origin, &e))?;
            let (url, origin) = self.url(endpoint, proofpoint::AURA_PATH)?;
            let form = url::form_urlencoded::Serializer::new(String::new())
                .extend_pairs(proofpoint::aura_form(&bootstrap))
                .finish();
            let client = &self.inner.json;
            let request = client
                .post(url.as_str())
                .header(CONTENT_TYPE, "application/x-www-form-urlencoded; charset=UTF-8")
                .header(ACCEPT, ACCEPT_JSON)
                .header(CACHE_CONTROL, "no-cache")
                .body(form);
            let response = client.execute(request, cancel).await.map_err(|e| e.to_string())?;
            proofpoint::parse_aura(response.body(), now_ms).map_err(|e| unreadable(&origin, &e))
        }
        .await;
        vec![poll(ProviderId::Proofpoint, outcome)]
    }

    /// Notices and components in parallel, then the details of up to
    /// [`mist::MAX_NOTICE_DETAILS`] notices in parallel.
    async fn mist(&self, _now_ms: i64, cancel: &CancellationToken) -> Vec<ProviderPoll> {
        let endpoint = &endpoints::STATUS_MIST;
        let client = &self.inner.json;
        let (notices, components) = futures_util::future::join(
            self.get(client, endpoint, mist::NOTICES_PATH, ACCEPT_JSON, cancel),
            self.get(client, endpoint, mist::COMPONENTS_PATH, ACCEPT_JSON, cancel),
        )
        .await;
        let notices =
            notices.and_then(|(body, origin)| mist::parse_notices(&body).map_err(|e| unreadable(&origin, &e)));
        let notices = match notices {
            Ok(notices) => notices,
            Err(message) => return MIST_REGIONS.iter().map(|r| poll(*r, Err(message.clone()))).collect(),
        };
        let wanted: Vec<(String, String)> = notices
            .iter()
            .take(mist::MAX_NOTICE_DETAILS)
            .filter_map(|n| {
                let id = n.id();
                mist::notice_path(&id).map(|path| (id, path))
            })
            .collect();
        let fetched = join_all(wanted.iter().map(|(id, path)| async move {
            let detail = self.get(client, endpoint, path, ACCEPT_JSON, cancel).await;
            (id.clone(), detail.ok().and_then(|(body, _)| mist::parse_notice_detail(&body).ok()))
        }))
        .await;
        let details: HashMap<String, mist::Notice> =
            fetched.into_iter().filter_map(|(id, detail)| detail.map(|d| (id, d))).collect();
        let components =
            components.and_then(|(body, origin)| mist::parse_components(&body).map_err(|e| unreadable(&origin, &e)));
        let components = components.as_deref().map_err(String::as_str);
        mist::build(&notices, &details, components).into_iter().map(|(region, outcome)| poll(region, outcome)).collect()
    }
}

impl FeedPoller for StatusFeedClient {
    fn poll_all(
        &self,
        now_ms: i64,
        cancel: CancellationToken,
    ) -> Pin<Box<dyn Future<Output = Vec<ProviderPoll>> + Send>> {
        let this = self.clone();
        Box::pin(async move { StatusFeedClient::poll_all(&this, now_ms, &cancel).await })
    }
}
