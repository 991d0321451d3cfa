//! The downloader's rules as pure decisions: which URL an asset may be requested from
//! ([`check_asset_url`]), whether a response is the final answer, a redirect to follow or a
//! refusal ([`next_hop`]: only HTTPS `302`s to the fixed GitHub hosts, no credentials, no port,
//! at most [`MAX_REDIRECTS`]), that the declared length equals the release metadata
//! ([`check_content_length`]), and a byte counter that refuses the first chunk that would go past
//! the expected size ([`ByteCounter`]). It refuses to open connections, write files, hash bytes
//! or keep time: the infra downloader does the IO and asks these rules at every step.

use super::release::{asset_api_url, ReleaseAsset};
use thiserror::Error;
use url::Url;

/// Redirects followed at most before the final answer.
pub const MAX_REDIRECTS: u32 = 3;
/// The only hosts a request or redirect may reach.
pub const ALLOWED_DOWNLOAD_HOSTS: [&str; 4] =
    ["api.github.com", "github.com", "objects.githubusercontent.com", "release-assets.githubusercontent.com"];
/// `Accept` header of asset requests.
pub const ASSET_ACCEPT: &str = "application/octet-stream";
/// `User-Agent` of asset requests.
pub const DOWNLOADER_USER_AGENT: &str = "Relay-Updater";
/// Whole-download deadline, kept armed while the body is read (milliseconds).
pub const DOWNLOAD_TIMEOUT_MS: u64 = 10 * 60 * 1_000;

/// A download the rules stop. Messages never echo URLs.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum DownloadError {
    #[error("The asset URL is not the fixed release asset URL.")]
    AssetUrlMismatch,
    #[error("The server answered with status {status}.")]
    UnexpectedStatus { status: u16 },
    #[error("A redirect has no usable Location.")]
    RedirectWithoutLocation,
    #[error("Too many redirects.")]
    TooManyRedirects,
    #[error("A redirect target is not an absolute URL.")]
    RedirectNotAbsolute,
    #[error("A redirect target is not HTTPS.")]
    RedirectNotHttps,
    #[error("A redirect target carries credentials.")]
    RedirectWithCredentials,
    #[error("A redirect target names a port.")]
    RedirectWithPort,
    #[error("A redirect target is not a GitHub release host.")]
    RedirectHostNotAllowed,
    #[error("The download does not declare its length.")]
    LengthMissing,
    #[error("The declared length differs from the release metadata.")]
    LengthMismatch,
    #[error("The download is longer than the release metadata says.")]
    TooLong,
    #[error("The download ended before the expected size.")]
    TooShort,
}

impl DownloadError {
    /// A stable, machine-readable code (`snake_case`).
    pub fn code(&self) -> &'static str {
        match self {
            DownloadError::AssetUrlMismatch => "asset_url_mismatch",
            DownloadError::UnexpectedStatus { .. } => "unexpected_status",
            DownloadError::RedirectWithoutLocation => "redirect_without_location",
            DownloadError::TooManyRedirects => "too_many_redirects",
            DownloadError::RedirectNotAbsolute => "redirect_not_absolute",
            DownloadError::RedirectNotHttps => "redirect_not_https",
            DownloadError::RedirectWithCredentials => "redirect_with_credentials",
            DownloadError::RedirectWithPort => "redirect_with_port",
            DownloadError::RedirectHostNotAllowed => "redirect_host_not_allowed",
            DownloadError::LengthMissing => "length_missing",
            DownloadError::LengthMismatch => "length_mismatch",
            DownloadError::TooLong => "too_long",
            DownloadError::TooShort => "too_short",
        }
    }

    /// Whether the failure is about the bytes (size or length) rather than the transport.
    pub fn is_integrity_failure(&self) -> bool {
        matches!(self, DownloadError::LengthMismatch | DownloadError::TooLong | DownloadError::TooShort)
    }
}

/// The first request of an asset goes to exactly its fixed API URL, which must also be the URL
/// the release metadata gave.
pub fn check_asset_url(asset: &ReleaseAsset) -> Result<Url, DownloadError> {
    let expected = asset_api_url(asset.id);
    if asset.api_url != expected {
        return Err(DownloadError::AssetUrlMismatch);
    }
    Url::parse(&expected).map_err(|_| DownloadError::AssetUrlMismatch)
}

/// What to do with one response.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Hop {
    /// Request this URL next (same headers, no cookies or credentials carried over).
    Follow(Url),
    /// `200`: read this response's body.
    Done,
    Refuse(DownloadError),
}

/// Decides one response: `200` is the answer; `302` with an acceptable absolute `Location` is
/// followed while fewer than [`MAX_REDIRECTS`] have been (`redirects_followed`); every other
/// status, and every other redirect, is refused.
pub fn next_hop(status: u16, location: Option<&str>, redirects_followed: u32) -> Hop {
    match status {
        200 => Hop::Done,
        302 => {
            if redirects_followed >= MAX_REDIRECTS {
                return Hop::Refuse(DownloadError::TooManyRedirects);
            }
            match location {
                None => Hop::Refuse(DownloadError::RedirectWithoutLocation),
                Some(location) => match check_redirect_target(location) {
                    Ok(url) => Hop::Follow(url),
                    Err(error) => Hop::Refuse(error),
                },
            }
        }
        _ => Hop::Refuse(DownloadError::UnexpectedStatus { status }),
    }
}

/// A redirect target: an absolute `https` URL with no user name or password, no explicit port
/// (not even `:443`) and a host in [`ALLOWED_DOWNLOAD_HOSTS`].
pub fn check_redirect_target(location: &str) -> Result<Url, DownloadError> {
    if location.is_empty() || location.chars().any(|c| c.is_control() || c.is_whitespace()) {
        return Err(DownloadError::RedirectWithoutLocation);
    }
    let url = Url::parse(location).map_err(|_| DownloadError::RedirectNotAbsolute)?;
    if url.scheme() != "https" {
        return Err(DownloadError::RedirectNotHttps);
    }
    if !url.username().is_empty() || url.password().is_some() {
        return Err(DownloadError::RedirectWithCredentials);
    }
    if url.port().is_some() || names_explicit_port(location) {
        return Err(DownloadError::RedirectWithPort);
    }
    match url.host_str() {
        Some(host) if ALLOWED_DOWNLOAD_HOSTS.contains(&host) => Ok(url),
        _ => Err(DownloadError::RedirectHostNotAllowed),
    }
}

/// `url` drops a default port (`https://github.com:443/`); the rule refuses any written port.
fn names_explicit_port(location: &str) -> bool {
    let after_scheme = location.split_once("://").map_or(location, |(_, rest)| rest);
    let authority = after_scheme.split(['/', '?', '#']).next().unwrap_or_default();
    let host_and_port = authority.rsplit_once('@').map_or(authority, |(_, host)| host);
    host_and_port.contains(':')
}

/// The final answer must declare exactly the size the release metadata gave.
pub fn check_content_length(declared: Option<u64>, expected_size: u64) -> Result<(), DownloadError> {
    match declared {
        None => Err(DownloadError::LengthMissing),
        Some(length) if length == expected_size => Ok(()),
        Some(_) => Err(DownloadError::LengthMismatch),
    }
}

/// Counts streamed bytes against the expected size.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ByteCounter {
    expected: u64,
    received: u64,
}

impl ByteCounter {
    /// A counter for a body of exactly `expected` bytes.
    pub fn new(expected: u64) -> ByteCounter {
        ByteCounter { expected, received: 0 }
    }

    /// Adds a chunk; refuses (and the caller aborts before writing it) as soon as the total would
    /// pass the expected size.
    pub fn record(&mut self, chunk_len: u64) -> Result<(), DownloadError> {
        match self.received.checked_add(chunk_len) {
            Some(total) if total <= self.expected => {
                self.received = total;
                Ok(())
            }
            _ => Err(DownloadError::TooLong),
        }
    }

    /// At the end of the body: exactly the expected size.
    pub fn finish(&self) -> Result<(), DownloadError> {
        if self.received == self.expected {
            Ok(())
        } else {
            Err(DownloadError::TooShort)
        }
    }

    /// Bytes accepted so far (the progress bar's value).
    pub fn received(&self) -> u64 {
        self.received
    }

    /// The expected size (the progress bar's maximum).
    pub fn expected(&self) -> u64 {
        self.expected
    }
}

#[cfg(test)]
#[path = "download_tests.rs"]
mod tests;
