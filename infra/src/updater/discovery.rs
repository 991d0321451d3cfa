//! Release discovery over the network: `GET /repos/CrimsonSoul/Relay/releases/latest` on the
//! `GITHUB_API` endpoint through the one outbound HTTP policy (no redirects, an 8 s deadline
//! armed through the body, at most 64 KiB, no credentials), with GitHub's JSON `Accept`, its
//! `X-GitHub-Api-Version` and a `Relay/<version>` user agent. The answer is judged entirely by
//! `domain::updater::evaluate_latest_release` (status 200, `application/json`, size, shape,
//! installability) into a `ReleaseCheck`; [`ReleaseDiscovery::refetch_and_confirm`] asks
//! again right before a download, under the download's cancellation token, and requires the
//! domain's agreement rule (`confirm_refetch`). A `429` (or `503` with `Retry-After`) is the
//! typed [`DiscoveryFailure::RateLimited`] with GitHub's wait, which the updater actor honours
//! before it asks again. It never takes a URL, repository, version or
//! asset from its caller, never downloads, and logs origins and codes only.

use std::time::Duration;

use reqwest::header::{ACCEPT, CONTENT_TYPE, USER_AGENT};
use tokio_util::sync::CancellationToken;
use url::Url;

use domain::updater::release::{
    discovery_user_agent, release_by_tag_url, DISCOVERY_TIMEOUT_MS, GITHUB_API_VERSION_HEADER, GITHUB_JSON_ACCEPT,
    LATEST_RELEASE_URL, MAX_RELEASE_JSON_BYTES,
};
use domain::updater::{
    confirm_refetch, evaluate_latest_release, DiscoveryError, HttpFacts, InstallTarget, QuarantineHistory,
    ReleaseCheck, ResolveError, UpdateFailure, Version,
};

use super::hosts::GitHubHosts;
use crate::http::{headers, HttpClient, HttpError, HttpPolicy, HttpResponse, RedirectAllowlist};

/// A discovery that produced no release check (logged, never shown).
#[derive(Debug, thiserror::Error)]
pub enum DiscoveryFailure {
    #[error("{0}")]
    Http(HttpError),
    #[error("{0}")]
    Release(DiscoveryError),
    /// GitHub answered `429` (or `503` with `Retry-After`): ask again only after the wait it
    /// named (`None`: it named none; the caller picks a back-off).
    #[error("GitHub asked Relay to wait before asking again.")]
    RateLimited { retry_after_secs: Option<u64> },
}

impl DiscoveryFailure {
    /// A stable, machine-readable code (`snake_case`).
    pub fn code(&self) -> &'static str {
        match self {
            DiscoveryFailure::Http(error) => error.code(),
            DiscoveryFailure::Release(error) => error.code(),
            DiscoveryFailure::RateLimited { .. } => "github_rate_limited",
        }
    }
}

/// Why the re-fetch before a download does not go ahead.
#[derive(Debug, thiserror::Error)]
pub enum ConfirmError {
    #[error("{0}")]
    Discovery(DiscoveryFailure),
    #[error("{0}")]
    Resolve(ResolveError),
}

impl ConfirmError {
    /// The state machine's failure code: the domain's mapping for a disagreement;
    /// `cancelled` when the download was cancelled meanwhile; `release-changed` when the
    /// latest release is no longer a usable release at all; `download-failed` when GitHub
    /// could not be asked.
    pub fn failure(&self) -> UpdateFailure {
        match self {
            ConfirmError::Resolve(error) => UpdateFailure::from(error),
            ConfirmError::Discovery(DiscoveryFailure::Http(HttpError::Cancelled { .. })) => UpdateFailure::Cancelled,
            ConfirmError::Discovery(DiscoveryFailure::Release(
                DiscoveryError::Malformed
                | DiscoveryError::Draft
                | DiscoveryError::Prerelease
                | DiscoveryError::InvalidTag(_),
            )) => UpdateFailure::ReleaseChanged,
            ConfirmError::Discovery(_) => UpdateFailure::DownloadFailed,
        }
    }

    /// A stable, machine-readable code (`snake_case`).
    pub fn code(&self) -> &'static str {
        match self {
            ConfirmError::Discovery(error) => error.code(),
            ConfirmError::Resolve(error) => error.code(),
        }
    }
}

/// The policy of discovery requests: upstream, 8 s in all, 64 KiB, no redirects.
pub fn discovery_policy() -> HttpPolicy {
    let timeout = Duration::from_millis(DISCOVERY_TIMEOUT_MS);
    let upstream = HttpPolicy::upstream();
    HttpPolicy {
        timeout,
        connect_timeout: upstream.connect_timeout.min(timeout),
        max_body_bytes: MAX_RELEASE_JSON_BYTES,
        redirects: RedirectAllowlist::none(),
        ..upstream
    }
}

/// Asks GitHub for the latest release of the fixed repository.
#[derive(Debug, Clone)]
pub struct ReleaseDiscovery {
    client: HttpClient,
    hosts: GitHubHosts,
    current: Version,
}

impl ReleaseDiscovery {
    /// A discovery client under [`discovery_policy`] for the running version.
    pub fn new(hosts: GitHubHosts, current: Version) -> Result<ReleaseDiscovery, HttpError> {
        ReleaseDiscovery::with_policy(discovery_policy(), hosts, current)
    }

    /// Under another policy (tests shorten the deadline); redirects stay refused.
    pub fn with_policy(
        policy: HttpPolicy,
        hosts: GitHubHosts,
        current: Version,
    ) -> Result<ReleaseDiscovery, HttpError> {
        let policy = HttpPolicy { redirects: RedirectAllowlist::none(), ..policy };
        Ok(ReleaseDiscovery { client: policy.build()?, hosts, current })
    }

    /// One discovery: the latest release judged against the running version.
    pub async fn check_latest(&self, cancel: &CancellationToken) -> Result<ReleaseCheck, DiscoveryFailure> {
        let result = self.fetch_latest(cancel).await;
        if let Err(error) = &result {
            tracing::info!(target: "relay::updater", code = error.code(), "update discovery failed: {error}");
        }
        result
    }

    /// The re-fetch right before a download: asks again (under the download's `cancel`) and
    /// requires the answer to agree with `discovered` by the domain rule.
    pub async fn refetch_and_confirm(
        &self,
        discovered: &ReleaseCheck,
        quarantine: &QuarantineHistory,
        cancel: &CancellationToken,
    ) -> Result<InstallTarget, ConfirmError> {
        let refetched = self.check_latest(cancel).await.map_err(ConfirmError::Discovery)?;
        confirm_refetch(discovered, &refetched, quarantine).map_err(|error| {
            tracing::warn!(target: "relay::updater", code = error.code(), "release re-fetch disagrees: {error}");
            ConfirmError::Resolve(error)
        })
    }

    /// The release of exactly `version` (GitHub's "release by tag" endpoint of the fixed
    /// repository), judged like a discovery answer; a repair then requires it to be the retained
    /// build's (`domain::updater::repair_target`).
    pub async fn fetch_release(
        &self,
        version: Version,
        cancel: &CancellationToken,
    ) -> Result<ReleaseCheck, DiscoveryFailure> {
        let url = release_by_tag_url(&version);
        let sent = get_github_json(&self.client, &self.hosts, &self.current, &url, "by_tag", cancel).await;
        let result = self.judge(sent);
        if let Err(error) = &result {
            tracing::info!(target: "relay::updater", code = error.code(), "release lookup by tag failed: {error}");
        }
        result
    }

    async fn fetch_latest(&self, cancel: &CancellationToken) -> Result<ReleaseCheck, DiscoveryFailure> {
        let sent =
            get_github_json(&self.client, &self.hosts, &self.current, LATEST_RELEASE_URL, "latest", cancel).await;
        self.judge(sent)
    }

    fn judge(&self, sent: Result<HttpResponse, HttpError>) -> Result<ReleaseCheck, DiscoveryFailure> {
        let response = sent.map_err(|error| match error {
            // A rate limit carries its wait (`Retry-After`, bounded by the policy) to the caller.
            HttpError::RateLimited { retry_after_secs, .. } => DiscoveryFailure::RateLimited { retry_after_secs },
            // Other statuses and declared sizes are the domain's to judge.
            HttpError::Status { status, .. } => DiscoveryFailure::Release(DiscoveryError::UnexpectedStatus { status }),
            HttpError::TooLarge { .. } => DiscoveryFailure::Release(DiscoveryError::TooLarge),
            other => DiscoveryFailure::Http(other),
        })?;
        evaluate_latest_release(&facts_of(&response), response.body(), self.current).map_err(DiscoveryFailure::Release)
    }
}

/// One GitHub API JSON request as discovery and the release notes send it: the fixed production
/// `url` translated to the wire by `hosts`, GitHub's JSON `Accept`, its API version header and a
/// `Relay/<version>` user agent, under `client`'s policy (no credentials, bounded, deadline).
pub(super) async fn get_github_json(
    client: &HttpClient,
    hosts: &GitHubHosts,
    current: &Version,
    url: &str,
    what: &'static str,
    cancel: &CancellationToken,
) -> Result<HttpResponse, HttpError> {
    let url =
        Url::parse(url).map_err(|_| HttpError::InvalidUrl { origin: "https://api.github.com".into(), reason: what })?;
    let (version_header, version_value) = GITHUB_API_VERSION_HEADER;
    let request = client
        .get(hosts.to_wire(&url).as_str())
        .header(ACCEPT, GITHUB_JSON_ACCEPT)
        .header(version_header, version_value)
        .header(USER_AGENT, discovery_user_agent(current));
    client.execute(request, cancel).await
}

/// The HTTP facts the domain judges an answer by.
pub(super) fn facts_of(response: &HttpResponse) -> HttpFacts<'_> {
    HttpFacts {
        status: response.status(),
        content_type: response.headers().get(CONTENT_TYPE).and_then(|value| value.to_str().ok()),
        content_length: headers::declared_length(response.headers()).ok().flatten(),
        body_len: response.body().len() as u64,
    }
}

#[cfg(test)]
#[path = "discovery_tests.rs"]
mod tests;
