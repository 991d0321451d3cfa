//! The Dynatrace SaaS environment URL an administrator saves, and the one error type every
//! Dynatrace setting shares. [`EnvironmentUrl::parse`] accepts only
//! `https://<one DNS label>.apps.dynatrace.com` and normalizes it (lowercase, no trailing
//! slash), so the token is only ever sent to a real Dynatrace platform host. It refuses
//! ports, credentials, paths, queries, fragments, IP hosts, lookalike and punycode hosts, and
//! never uses a general URL parser whose forgiving normalization could turn a hostile string
//! into an accepted host. [`ConfigError`] messages are plain words for operators and never
//! echo the submitted value (it may be a pasted secret).

use thiserror::Error;

/// Longest environment URL accepted (characters, after trimming).
pub const MAX_ENVIRONMENT_URL_CHARS: usize = 200;
/// The only host suffix accepted: the SaaS platform (the `live.dynatrace.com` classic hosts
/// and Managed clusters do not serve the Grail and Automation APIs Relay reads).
pub const PLATFORM_HOST_SUFFIX: &str = ".apps.dynatrace.com";

/// A refused Dynatrace setting. Messages name the field in plain words and never contain the
/// submitted text.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ConfigError {
    #[error("The environment URL must look like https://abc12345.apps.dynatrace.com")]
    InvalidEnvironmentUrl,
    #[error("Choose at most 50 alerting profiles")]
    TooManyAlertingProfiles,
    #[error("Alerting profile names must be at most 200 characters long")]
    AlertingProfileNameTooLong,
    #[error("Alerting profile names must not contain control characters or line breaks")]
    InvalidAlertingProfileName,
    #[error("The custom DQL matcher is not accepted: {reason}")]
    InvalidMatcher { reason: &'static str },
    #[error("The workflow id must be 1 to 64 letters, digits or hyphens")]
    InvalidWorkflowId,
    #[error("The platform token must be 16 to 2048 printable characters without spaces")]
    InvalidToken,
}

impl ConfigError {
    /// A stable, machine-readable code (`snake_case`).
    pub fn code(&self) -> &'static str {
        match self {
            ConfigError::InvalidEnvironmentUrl => "invalid_environment_url",
            ConfigError::TooManyAlertingProfiles => "too_many_alerting_profiles",
            ConfigError::AlertingProfileNameTooLong => "alerting_profile_name_too_long",
            ConfigError::InvalidAlertingProfileName => "invalid_alerting_profile_name",
            ConfigError::InvalidMatcher { .. } => "invalid_matcher",
            ConfigError::InvalidWorkflowId => "invalid_workflow_id",
            ConfigError::InvalidToken => "invalid_token",
        }
    }
}

impl crate::problem::HttpProblem for ConfigError {
    fn status(&self) -> u16 {
        400
    }

    fn code(&self) -> &'static str {
        ConfigError::code(self)
    }
}

/// A validated SaaS environment URL: `https://<envid>.apps.dynatrace.com`, lowercase, with no
/// trailing slash. The only way to build one is [`EnvironmentUrl::parse`].
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct EnvironmentUrl(String);

impl EnvironmentUrl {
    /// Validates and normalizes what an administrator typed. See the module doc for what is
    /// refused; every refusal is [`ConfigError::InvalidEnvironmentUrl`].
    pub fn parse(raw: &str) -> Result<EnvironmentUrl, ConfigError> {
        const INVALID: ConfigError = ConfigError::InvalidEnvironmentUrl;
        let trimmed = raw.trim();
        if trimmed.is_empty()
            || trimmed.chars().count() > MAX_ENVIRONMENT_URL_CHARS
            || !trimmed.is_ascii()
            || trimmed.chars().any(|c| c.is_ascii_control() || c.is_ascii_whitespace())
        {
            return Err(INVALID);
        }
        let scheme_end = "https://".len();
        if trimmed.len() < scheme_end || !trimmed[..scheme_end].eq_ignore_ascii_case("https://") {
            return Err(INVALID);
        }
        let rest = &trimmed[scheme_end..];
        let (authority, path) = match rest.find('/') {
            Some(at) => rest.split_at(at),
            None => (rest, ""),
        };
        if !(path.is_empty() || path == "/") {
            return Err(INVALID);
        }
        let host = authority.to_ascii_lowercase();
        let label = host.strip_suffix(PLATFORM_HOST_SUFFIX).ok_or(INVALID)?;
        if !is_environment_label(label) {
            return Err(INVALID);
        }
        Ok(EnvironmentUrl(format!("https://{host}")))
    }

    /// The normalized URL (`https://abc12345.apps.dynatrace.com`).
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The host (`abc12345.apps.dynatrace.com`).
    pub fn host(&self) -> &str {
        &self.0["https://".len()..]
    }

    /// The environment id, the host's first label (`abc12345`).
    pub fn environment_id(&self) -> &str {
        &self.host()[..self.host().len() - PLATFORM_HOST_SUFFIX.len()]
    }
}

impl std::fmt::Display for EnvironmentUrl {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// One lowercase DNS label of `[a-z0-9-]`, 1..=63 long, with no leading or trailing hyphen and
/// no `xx--` at positions 3-4 (the IDNA/punycode prefix `xn--` and its reserved siblings).
/// Anything with `.`, `@`, `:`, `%`, `?`, `#` or `\` is therefore refused here as well.
fn is_environment_label(label: &str) -> bool {
    let bytes = label.as_bytes();
    (1..=63).contains(&bytes.len())
        && bytes.iter().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || *b == b'-')
        && bytes[0] != b'-'
        && bytes[bytes.len() - 1] != b'-'
        && !(bytes.len() >= 4 && &bytes[2..4] == b"--")
}

#[cfg(test)]
#[path = "environment_tests.rs"]
mod tests;
