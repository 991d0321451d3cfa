//! Relay's one outbound HTTP policy: every request Relay makes to the outside (the updater's
//! GitHub calls, Dynatrace, status feeds, and the desktop/CLI calls to a configured Relay
//! server) goes through a client built here, over rustls. The policy refuses redirects unless
//! an explicit HTTPS-host allowlist says otherwise, enforces a connect deadline and an overall
//! deadline that stays armed while the body is read, streams bodies under a hard byte cap that
//! `Content-Length` must agree with, turns `429`/`503` + `Retry-After` into a typed error,
//! honours caller cancellation, and names URLs in logs and errors by origin only. It does not
//! retry, cache, or decide what a response means; callers own that. Every client shares one
//! TLS configuration whose root certificates are read on the first handshake (`tls`).
//!
//! Two profiles: [`Profile::Upstream`] for the fixed production endpoints in [`endpoints`]
//! (HTTPS only), and [`Profile::RelayPeer`] for a Relay server URL that
//! `domain::server_url::check_server_url` already validated (HTTP allowed, no redirects).

mod client;
pub mod endpoints;
mod error;
pub mod headers;
pub mod origin;
pub mod redirect;
mod tls;

use std::time::Duration;

use url::Url;

use crate::clock::SharedClock;

pub use client::{HttpClient, HttpResponse};
pub use endpoints::{upstream_base, Endpoint};
pub use error::{HttpError, RedirectRefusal};
pub use redirect::RedirectAllowlist;
pub use tokio_util::sync::CancellationToken;

/// Who is on the other end.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Profile {
    /// A fixed production endpoint (GitHub, Dynatrace, a status feed): HTTPS only. Debug builds
    /// also accept plain HTTP to loopback, where the test overrides of [`endpoints`] point.
    Upstream,
    /// A user-configured Relay server whose origin `domain::server_url` validated: HTTP or
    /// HTTPS; redirects are always refused.
    RelayPeer,
}

/// Limits and rules for one client. Start from [`HttpPolicy::upstream`] or
/// [`HttpPolicy::relay_peer`] and override fields with struct-update syntax.
#[derive(Debug, Clone)]
pub struct HttpPolicy {
    pub profile: Profile,
    /// Deadline for establishing the connection (TCP and TLS); never longer than `timeout`.
    pub connect_timeout: Duration,
    /// Deadline for the whole exchange, from connecting until the last body byte.
    pub timeout: Duration,
    /// Largest body [`HttpClient::execute`] reads; a larger declared or streamed body fails.
    pub max_body_bytes: u64,
    /// Hosts redirects may lead to; empty refuses every redirect.
    pub redirects: RedirectAllowlist,
    /// Longest `Retry-After` reported; larger values are cut to this.
    pub max_retry_after_secs: u64,
    /// Reads the time for HTTP-date `Retry-After` values.
    pub clock: SharedClock,
    /// How a failed request is logged: `Warn` (one line per failure) unless the caller reports
    /// failures itself, throttled (the status feeds log once per provider state change).
    pub failure_log: FailureLog,
}

/// The level a failed request is logged at by the client.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FailureLog {
    Warn,
    /// The caller reports failures itself; the client logs them at debug.
    Debug,
}

impl HttpPolicy {
    /// Fixed production endpoints: 10 s to connect, 30 s in all, 2 MiB bodies, no redirects,
    /// `Retry-After` capped at one hour.
    pub fn upstream() -> HttpPolicy {
        HttpPolicy {
            profile: Profile::Upstream,
            connect_timeout: Duration::from_secs(10),
            timeout: Duration::from_secs(30),
            max_body_bytes: 2 * 1024 * 1024,
            redirects: RedirectAllowlist::none(),
            max_retry_after_secs: 3600,
            clock: crate::clock::system(),
            failure_log: FailureLog::Warn,
        }
    }

    /// A configured Relay server: 10 s to connect, 15 s in all (the legacy client numbers),
    /// 4 MiB bodies, no redirects, `Retry-After` capped at one hour.
    pub fn relay_peer() -> HttpPolicy {
        HttpPolicy {
            profile: Profile::RelayPeer,
            timeout: Duration::from_secs(15),
            max_body_bytes: 4 * 1024 * 1024,
            ..HttpPolicy::upstream()
        }
    }

    /// Builds the client. Fails when the policy contradicts its profile (a Relay peer with a
    /// redirect allowlist, a zero deadline or body cap) or TLS cannot be set up.
    pub fn build(&self) -> Result<HttpClient, HttpError> {
        if self.profile == Profile::RelayPeer && !self.redirects.is_empty() {
            return Err(HttpError::Config { reason: "a Relay peer never follows redirects" });
        }
        if self.timeout.is_zero() || self.connect_timeout.is_zero() || self.max_body_bytes == 0 {
            return Err(HttpError::Config { reason: "deadlines and the body cap must be positive" });
        }
        // One TLS configuration for the process; its root certificates are read on the first
        // handshake (`tls`), not here.
        let tls = tls::client_config().map_err(|_| HttpError::Config { reason: "cannot set up the TLS client" })?;
        let builder = reqwest::Client::builder()
            .tls_backend_preconfigured(tls)
            .redirect(redirect::reqwest_policy(&self.redirects))
            .referer(false)
            .connect_timeout(self.connect_timeout.min(self.timeout))
            .timeout(self.timeout)
            .https_only(self.profile == Profile::Upstream && !cfg!(debug_assertions));
        let inner = builder.build().map_err(|_| HttpError::Config { reason: "cannot set up the TLS client" })?;
        Ok(HttpClient::new(inner, self.clone()))
    }
}

impl Default for HttpPolicy {
    /// The strictest profile, [`HttpPolicy::upstream`].
    fn default() -> Self {
        HttpPolicy::upstream()
    }
}

/// Whether `url` may be requested under `profile`. `loopback_http` is `cfg!(debug_assertions)`
/// in production code: it lets the upstream profile reach a loopback test override over HTTP.
pub fn check_request_url(profile: Profile, url: &Url, loopback_http: bool) -> Result<(), HttpError> {
    let refused = |reason| Err(HttpError::InvalidUrl { origin: origin::describe(url), reason });
    let Some(host) = url.host() else {
        return refused("no host");
    };
    if !url.username().is_empty() || url.password().is_some() {
        return refused("credentials in URL");
    }
    match (profile, url.scheme()) {
        (_, "https") => Ok(()),
        (Profile::RelayPeer, "http") => Ok(()),
        (Profile::Upstream, "http") if loopback_http && endpoints::is_loopback(&host) => Ok(()),
        (Profile::Upstream, "http") => refused("upstream endpoints require https"),
        _ => refused("not an http(s) URL"),
    }
}

#[cfg(test)]
mod tests;
#[cfg(test)]
mod upstream_tests;
