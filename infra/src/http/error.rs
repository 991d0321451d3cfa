//! Errors of Relay's outbound HTTP. Each variant has a stable `code()`. A message names at most
//! the origin (`scheme://host[:port]`) of the URL involved, never its path, query or
//! credentials, and never echoes response bodies or headers, so it is safe to log and to show.

/// Why a redirect was not followed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RedirectRefusal {
    /// The target host is not on the allowlist (or the policy allows no redirects).
    NotAllowed,
    /// The target is not HTTPS.
    Scheme,
    /// The target carries a user name or password.
    Userinfo,
    /// The target names an explicit port.
    CustomPort,
    /// The chain is longer than the allowlist's hop cap.
    TooManyHops,
}

impl RedirectRefusal {
    pub fn as_str(self) -> &'static str {
        match self {
            RedirectRefusal::NotAllowed => "host not allowed",
            RedirectRefusal::Scheme => "not https",
            RedirectRefusal::Userinfo => "credentials in URL",
            RedirectRefusal::CustomPort => "custom port",
            RedirectRefusal::TooManyHops => "too many hops",
        }
    }
}

impl std::fmt::Display for RedirectRefusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum HttpError {
    /// The URL does not parse or is not allowed for the client's profile.
    #[error("refused URL {origin}: {reason}")]
    InvalidUrl { origin: String, reason: &'static str },
    /// The server redirected and the policy refused to follow. `origin` is the target's origin.
    #[error("redirect to {origin} refused: {reason}")]
    RedirectRefused { origin: String, reason: RedirectRefusal },
    /// The body is (or declared itself) larger than the cap; reading stopped at the cap.
    #[error("response from {origin} exceeds {limit} bytes")]
    TooLarge { origin: String, limit: u64 },
    /// `Content-Length` disagrees with the bytes actually received.
    #[error("response from {origin} declared {declared} bytes but sent {received}")]
    LengthMismatch { origin: String, declared: u64, received: u64 },
    /// The connect deadline or the overall deadline (headers and body) passed.
    #[error("request to {origin} timed out")]
    Timeout { origin: String },
    /// `429`, or `503` with `Retry-After`. The delay is capped by the policy.
    #[error("{origin} is rate limiting (status {status})")]
    RateLimited { origin: String, status: u16, retry_after_secs: Option<u64> },
    /// The response is not JSON (`application/json` or `…+json`).
    #[error("response from {origin} is not JSON")]
    BadContentType { origin: String },
    /// The body is JSON-typed but does not decode into the expected shape.
    #[error("response from {origin} does not match the expected shape")]
    Decode { origin: String },
    /// Any other non-success status.
    #[error("{origin} answered with status {status}")]
    Status { origin: String, status: u16 },
    /// The connection could not be established (DNS, refused, TLS).
    #[error("cannot connect to {origin}")]
    Connect { origin: String },
    /// The connection failed after it was established (reset, malformed response).
    #[error("transfer from {origin} failed")]
    Transport { origin: String },
    /// The caller cancelled the request.
    #[error("request to {origin} cancelled")]
    Cancelled { origin: String },
    /// The policy itself is unusable (for example, redirects allowed on a Relay peer).
    #[error("invalid HTTP policy: {reason}")]
    Config { reason: &'static str },
}

impl HttpError {
    /// A stable machine-readable code.
    pub fn code(&self) -> &'static str {
        match self {
            HttpError::InvalidUrl { .. } => "invalid_url",
            HttpError::RedirectRefused { .. } => "redirect_refused",
            HttpError::TooLarge { .. } => "too_large",
            HttpError::LengthMismatch { .. } => "length_mismatch",
            HttpError::Timeout { .. } => "timeout",
            HttpError::RateLimited { .. } => "rate_limited",
            HttpError::BadContentType { .. } => "bad_content_type",
            HttpError::Decode { .. } => "decode",
            HttpError::Status { .. } => "status",
            HttpError::Connect { .. } => "connect",
            HttpError::Transport { .. } => "transport",
            HttpError::Cancelled { .. } => "cancelled",
            HttpError::Config { .. } => "config",
        }
    }

    /// Seconds the server asked us to wait, for [`HttpError::RateLimited`].
    pub fn retry_after_secs(&self) -> Option<u64> {
        match self {
            HttpError::RateLimited { retry_after_secs, .. } => *retry_after_secs,
            _ => None,
        }
    }
}
