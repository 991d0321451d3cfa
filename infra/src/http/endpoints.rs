//! Relay's fixed production endpoints, and the test-only way to point one at a fake upstream.
//! Production URLs are constants here. In debug builds only, `RELAY_TEST_UPSTREAM_<NAME>` may
//! replace an endpoint's base with a loopback origin (`127.0.0.0/8`, `::1` or `localhost`);
//! any other override is refused, not ignored, so a test never reaches the real service by
//! mistake. Release builds do not contain the environment lookup at all: [`upstream_base`]
//! calls [`resolve_endpoint`] with `override_allowed = false` and no reader.

use std::net::IpAddr;

use url::{Host, Url};

use super::error::HttpError;
use super::origin;

/// A fixed upstream service: a name for the override variable and the production base URL.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Endpoint {
    /// Upper-case name; the debug override is `RELAY_TEST_UPSTREAM_<name>`.
    pub name: &'static str,
    /// Production base (an HTTPS origin).
    pub production: &'static str,
}

/// GitHub's REST API (updater discovery: `/repos/CrimsonSoul/Relay/releases/latest`).
pub const GITHUB_API: Endpoint = Endpoint { name: "GITHUB_API", production: "https://api.github.com" };

/// GitHub's web host, the first hop of an asset download's redirect chain (updater only; no
/// request starts here).
pub const GITHUB_WEB: Endpoint = Endpoint { name: "GITHUB_WEB", production: "https://github.com" };
/// GitHub's release-asset storage hosts the asset API redirects to (updater only).
pub const GITHUB_OBJECTS: Endpoint =
    Endpoint { name: "GITHUB_OBJECTS", production: "https://objects.githubusercontent.com" };
pub const GITHUB_RELEASE_ASSETS: Endpoint =
    Endpoint { name: "GITHUB_RELEASE_ASSETS", production: "https://release-assets.githubusercontent.com" };

/// The CW Dashboard on the intranet (Dispatcher Radar); the page path is
/// `infra::radar::RADAR_PATH`. A build-time constant: no client can name another target.
pub const RADAR: Endpoint = Endpoint { name: "RADAR", production: "https://cw-intra-web" };

/// Status feeds (`infra::status_feeds`): one endpoint per upstream host; paths live in the
/// provider's fetch plan.
pub const STATUS_AWS: Endpoint = Endpoint { name: "STATUS_AWS", production: "https://status.aws.amazon.com" };
pub const STATUS_AZURE: Endpoint =
    Endpoint { name: "STATUS_AZURE", production: "https://azurestatuscdn.azureedge.net" };
pub const STATUS_M365: Endpoint = Endpoint { name: "STATUS_M365", production: "https://status.cloud.microsoft" };
pub const STATUS_JIRA: Endpoint =
    Endpoint { name: "STATUS_JIRA", production: "https://jira-software.status.atlassian.com" };
pub const STATUS_GITHUB: Endpoint = Endpoint { name: "STATUS_GITHUB", production: "https://www.githubstatus.com" };
pub const STATUS_CLOUDFLARE: Endpoint =
    Endpoint { name: "STATUS_CLOUDFLARE", production: "https://www.cloudflarestatus.com" };
pub const STATUS_GOOGLE: Endpoint = Endpoint { name: "STATUS_GOOGLE", production: "https://status.cloud.google.com" };
pub const STATUS_CLAUDE: Endpoint = Endpoint { name: "STATUS_CLAUDE", production: "https://status.claude.com" };
pub const STATUS_OPENAI: Endpoint = Endpoint { name: "STATUS_OPENAI", production: "https://status.openai.com" };
pub const STATUS_SALESFORCE: Endpoint =
    Endpoint { name: "STATUS_SALESFORCE", production: "https://api.status.salesforce.com" };
pub const STATUS_MIST: Endpoint = Endpoint { name: "STATUS_MIST", production: "https://status.mist.com" };
pub const STATUS_DYNATRACE: Endpoint = Endpoint { name: "STATUS_DYNATRACE", production: "https://api.status.io" };
pub const STATUS_PROOFPOINT: Endpoint =
    Endpoint { name: "STATUS_PROOFPOINT", production: "https://proofpoint.my.site.com" };
pub const STATUS_CROWDSTRIKE: Endpoint = Endpoint { name: "STATUS_CROWDSTRIKE", production: "https://statusgator.com" };

/// The status-feed endpoints, in `domain::status_feeds::PROVIDERS` order (Mist once).
pub const STATUS_FEEDS: &[Endpoint] = &[
    STATUS_AWS,
    STATUS_AZURE,
    STATUS_M365,
    STATUS_JIRA,
    STATUS_GITHUB,
    STATUS_CLOUDFLARE,
    STATUS_GOOGLE,
    STATUS_CLAUDE,
    STATUS_OPENAI,
    STATUS_SALESFORCE,
    STATUS_MIST,
    STATUS_DYNATRACE,
    STATUS_PROOFPOINT,
    STATUS_CROWDSTRIKE,
];

/// The endpoints outside the status feeds.
const OTHER_ENDPOINTS: &[Endpoint] = &[GITHUB_API, GITHUB_WEB, GITHUB_OBJECTS, GITHUB_RELEASE_ASSETS, RADAR];

/// Every fixed endpoint (each feature adds its own here or in its own group).
pub const ALL: &[&[Endpoint]] = &[OTHER_ENDPOINTS, STATUS_FEEDS];

/// Every fixed endpoint, one by one.
pub fn all() -> impl Iterator<Item = &'static Endpoint> {
    ALL.iter().flat_map(|group| group.iter())
}

/// Prefix of the debug-only override variables.
pub const OVERRIDE_PREFIX: &str = "RELAY_TEST_UPSTREAM_";

impl Endpoint {
    /// The base URL to use in this build; see [`upstream_base`].
    pub fn base(&self) -> Result<Url, HttpError> {
        upstream_base(self)
    }

    /// `RELAY_TEST_UPSTREAM_<name>`.
    pub fn override_var(&self) -> String {
        format!("{OVERRIDE_PREFIX}{}", self.name)
    }
}

/// The base URL of `endpoint`: the production constant, or (debug builds only) a loopback
/// override from `RELAY_TEST_UPSTREAM_<NAME>`.
pub fn upstream_base(endpoint: &Endpoint) -> Result<Url, HttpError> {
    #[cfg(debug_assertions)]
    {
        resolve_endpoint(endpoint, true, |var| std::env::var(var).ok())
    }
    #[cfg(not(debug_assertions))]
    {
        resolve_endpoint(endpoint, false, |_| None)
    }
}

/// The rule behind [`upstream_base`], with the build flavour and the environment injected.
/// When `override_allowed` is false `env_lookup` is never called. An empty override means none.
pub fn resolve_endpoint(
    endpoint: &Endpoint,
    override_allowed: bool,
    env_lookup: impl FnOnce(&str) -> Option<String>,
) -> Result<Url, HttpError> {
    let production =
        Url::parse(endpoint.production).ok().filter(|u| u.scheme() == "https").ok_or(HttpError::InvalidUrl {
            origin: origin::describe_str(endpoint.production),
            reason: "production endpoint",
        })?;
    if !override_allowed {
        return Ok(production);
    }
    let Some(raw) = env_lookup(&endpoint.override_var()).filter(|v| !v.trim().is_empty()) else {
        return Ok(production);
    };
    let refused = |reason| HttpError::InvalidUrl { origin: origin::describe_str(&raw), reason };
    let url = Url::parse(raw.trim()).map_err(|_| refused("test endpoint override does not parse"))?;
    let loopback = url.host().is_some_and(|h| is_loopback(&h));
    if !matches!(url.scheme(), "http" | "https") || !loopback {
        return Err(refused("test endpoint override must be a loopback http(s) origin"));
    }
    if !url.username().is_empty()
        || url.password().is_some()
        || url.query().is_some()
        || url.fragment().is_some()
        || !matches!(url.path(), "" | "/")
    {
        return Err(refused("test endpoint override must be an origin only"));
    }
    tracing::warn!(target: "relay::http", endpoint = endpoint.name, origin = %origin::describe(&url), "test endpoint override in use");
    Ok(url)
}

/// Loopback hosts: `127.0.0.0/8`, `::1` (and IPv4-mapped loopback), `localhost`.
pub fn is_loopback<S: AsRef<str>>(host: &Host<S>) -> bool {
    match host {
        Host::Ipv4(v4) => v4.is_loopback(),
        Host::Ipv6(v6) => IpAddr::V6(*v6).to_canonical().is_loopback(),
        Host::Domain(d) => d.as_ref().trim_end_matches('.').eq_ignore_ascii_case("localhost"),
    }
}
