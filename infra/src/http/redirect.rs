//! The redirect rule. By default nothing is followed: the 3xx comes back and the client turns it
//! into `RedirectRefused`. A policy may name an allowlist of HTTPS hosts (GitHub's asset hosts,
//! for the updater); a hop is followed only to a listed host, over HTTPS, on the default port,
//! without credentials, and only while the chain stays within the hop cap. Debug builds also
//! follow hops to listed loopback hosts over plain HTTP on any port, so tests can redirect
//! between fake upstreams; release builds do not contain that exception.

use url::Url;

use super::endpoints::is_loopback;
use super::error::RedirectRefusal;
use super::origin;

/// Hops an allowlist follows unless told otherwise.
pub const DEFAULT_MAX_HOPS: usize = 3;
/// The most hops any allowlist may follow.
pub const MAX_HOPS_CEILING: usize = 10;

/// Hosts a redirect may lead to. Empty means "refuse every redirect".
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RedirectAllowlist {
    hosts: Vec<String>,
    max_hops: usize,
}

impl RedirectAllowlist {
    /// Refuse every redirect (the default).
    pub fn none() -> RedirectAllowlist {
        RedirectAllowlist::default()
    }

    /// Follow up to [`DEFAULT_MAX_HOPS`] hops among these exact host names (compared
    /// case-insensitively, trailing dot ignored).
    pub fn https_hosts(hosts: &[&str]) -> RedirectAllowlist {
        RedirectAllowlist { hosts: hosts.iter().map(|h| normalize(h)).collect(), max_hops: DEFAULT_MAX_HOPS }
    }

    /// Sets the hop cap (at most [`MAX_HOPS_CEILING`]).
    pub fn max_hops(mut self, hops: usize) -> RedirectAllowlist {
        self.max_hops = hops.min(MAX_HOPS_CEILING);
        self
    }

    pub fn hop_cap(&self) -> usize {
        self.max_hops
    }

    pub fn is_empty(&self) -> bool {
        self.hosts.is_empty() || self.max_hops == 0
    }

    fn allows_host(&self, host: &str) -> bool {
        let host = normalize(host);
        self.hosts.contains(&host)
    }
}

fn normalize(host: &str) -> String {
    host.trim_end_matches('.').to_ascii_lowercase()
}

/// Whether the hop to `target` may be followed. `hop` is the 1-based number of this redirect
/// in the chain; `loopback_exempt` is `cfg!(debug_assertions)` in production code.
pub fn check_redirect(
    target: &Url,
    hop: usize,
    allow: &RedirectAllowlist,
    loopback_exempt: bool,
) -> Result<(), RedirectRefusal> {
    if allow.is_empty() {
        return Err(RedirectRefusal::NotAllowed);
    }
    if hop > allow.max_hops {
        return Err(RedirectRefusal::TooManyHops);
    }
    if !target.username().is_empty() || target.password().is_some() {
        return Err(RedirectRefusal::Userinfo);
    }
    let Some(host) = target.host() else {
        return Err(RedirectRefusal::NotAllowed);
    };
    if !allow.allows_host(&host.to_string()) {
        return Err(RedirectRefusal::NotAllowed);
    }
    if loopback_exempt && is_loopback(&host) && matches!(target.scheme(), "http" | "https") {
        return Ok(());
    }
    if target.scheme() != "https" {
        return Err(RedirectRefusal::Scheme);
    }
    if target.port().is_some() {
        return Err(RedirectRefusal::CustomPort);
    }
    Ok(())
}

/// A refused hop, carried through reqwest's error chain back to the client.
#[derive(Debug)]
pub(crate) struct Refused {
    pub(crate) origin: String,
    pub(crate) reason: RedirectRefusal,
}

impl std::fmt::Display for Refused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "redirect to {} refused: {}", self.origin, self.reason)
    }
}

impl std::error::Error for Refused {}

/// The reqwest policy for an allowlist: `none()` when empty (the 3xx is returned as is),
/// otherwise [`check_redirect`] on every hop.
pub(crate) fn reqwest_policy(allow: &RedirectAllowlist) -> reqwest::redirect::Policy {
    if allow.is_empty() {
        return reqwest::redirect::Policy::none();
    }
    let allow = allow.clone();
    reqwest::redirect::Policy::custom(move |attempt| {
        let hop = attempt.previous().len();
        match check_redirect(attempt.url(), hop, &allow, cfg!(debug_assertions)) {
            Ok(()) => attempt.follow(),
            Err(reason) => {
                let origin = origin::describe(attempt.url());
                tracing::warn!(target: "relay::http", origin = %origin, reason = %reason, "redirect refused");
                attempt.error(Refused { origin, reason })
            }
        }
    })
}
