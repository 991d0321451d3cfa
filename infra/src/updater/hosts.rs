//! Where the updater's GitHub requests really go. Every URL the updater judges is a production
//! URL (`https://api.github.com/...`, a redirect to `https://objects.githubusercontent.com/...`),
//! and the pure rules of `domain::updater` decide on exactly that URL. [`GitHubHosts`] only
//! translates between that production URL and the wire: in release builds, and in debug builds
//! without an override, the translation is the identity; in debug builds the
//! `RELAY_TEST_UPSTREAM_<NAME>` loopback overrides of `infra::http::endpoints` (`GITHUB_API`,
//! `GITHUB_WEB`, `GITHUB_OBJECTS`, `GITHUB_RELEASE_ASSETS`) send a production host's requests to
//! a loopback fake, and a redirect `Location` on exactly such a fake's origin is read back as
//! the production host's URL before the domain rule sees it. It never relaxes a rule: a loopback
//! or plain-HTTP location that is not an override's exact origin reaches the domain rule as it
//! is and is refused there.

use url::Url;

use crate::http::endpoints::{self, Endpoint, GITHUB_API, GITHUB_OBJECTS, GITHUB_RELEASE_ASSETS, GITHUB_WEB};
use crate::http::HttpError;

/// The fixed GitHub hosts of the updater, in `domain::updater::download::ALLOWED_DOWNLOAD_HOSTS`
/// order.
pub const GITHUB_ENDPOINTS: [Endpoint; 4] = [GITHUB_API, GITHUB_WEB, GITHUB_OBJECTS, GITHUB_RELEASE_ASSETS];

/// One production host and the base its requests go to in this build.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Route {
    production: Url,
    wire: Url,
}

/// The production-to-wire translation of the updater's GitHub hosts (see the module doc).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GitHubHosts {
    routes: Vec<Route>,
}

impl GitHubHosts {
    /// The hosts of this build: production, or in debug builds the `RELAY_TEST_UPSTREAM_*`
    /// loopback overrides (`infra::http::upstream_base`).
    pub fn for_this_build() -> Result<GitHubHosts, HttpError> {
        GitHubHosts::resolve(endpoints::upstream_base)
    }

    /// The production hosts, whatever the build or the environment.
    pub fn production() -> GitHubHosts {
        let routes = GITHUB_ENDPOINTS
            .iter()
            .filter_map(|endpoint| {
                let production = endpoints::resolve_endpoint(endpoint, false, |_| None).ok()?;
                Some(Route { wire: production.clone(), production })
            })
            .collect();
        GitHubHosts { routes }
    }

    /// Points some GitHub hosts at loopback origins (fake upstreams) without the process-wide
    /// variables. Refused in release builds, like the variables.
    #[cfg(any(test, feature = "test-fixtures"))]
    pub fn with_overrides(overrides: &[(Endpoint, String)]) -> Result<GitHubHosts, HttpError> {
        if !cfg!(debug_assertions) {
            return Err(HttpError::Config { reason: "test upstream overrides exist only in debug builds" });
        }
        GitHubHosts::resolve(|endpoint| {
            let origin = overrides.iter().find(|(e, _)| e == endpoint).map(|(_, origin)| origin.clone());
            endpoints::resolve_endpoint(endpoint, true, |_| origin)
        })
    }

    fn resolve(base: impl Fn(&Endpoint) -> Result<Url, HttpError>) -> Result<GitHubHosts, HttpError> {
        let mut routes = Vec::with_capacity(GITHUB_ENDPOINTS.len());
        for endpoint in &GITHUB_ENDPOINTS {
            let production = endpoints::resolve_endpoint(endpoint, false, |_| None)?;
            routes.push(Route { production, wire: base(endpoint)? });
        }
        Ok(GitHubHosts { routes })
    }

    /// The URL a request for this production URL is sent to: the same URL, or the same path
    /// and query on the host's loopback override.
    pub fn to_wire(&self, production: &Url) -> Url {
        let Some(route) = self.routes.iter().find(|r| same_origin(&r.production, production)) else {
            return production.clone();
        };
        if route.wire == route.production {
            return production.clone();
        }
        let mut wire = route.wire.clone();
        wire.set_path(production.path());
        wire.set_query(production.query());
        wire
    }

    /// The `Location` the domain rule judges: a location on exactly an override's origin is
    /// rewritten to its production host (scheme `https`, no port; path, query and any user
    /// info kept so the rule still sees them); every other location is returned unchanged.
    pub fn from_wire(&self, location: &str) -> String {
        let Ok(url) = Url::parse(location) else {
            return location.to_owned();
        };
        let overridden = self.routes.iter().filter(|r| r.wire != r.production);
        let Some(route) = overridden.into_iter().find(|r| same_origin(&r.wire, &url)) else {
            return location.to_owned();
        };
        let mut production = url.clone();
        let host = route.production.host_str().unwrap_or_default();
        let rewritten = production.set_scheme("https").is_ok()
            && production.set_host(Some(host)).is_ok()
            && production.set_port(None).is_ok();
        if rewritten {
            production.into()
        } else {
            location.to_owned()
        }
    }
}

fn same_origin(a: &Url, b: &Url) -> bool {
    a.scheme() == b.scheme() && a.host() == b.host() && a.port_or_known_default() == b.port_or_known_default()
}

#[cfg(test)]
#[path = "hosts_tests.rs"]
mod tests;
