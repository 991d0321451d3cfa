//! Errors of the privileged subsystem. Messages are safe to show a remote caller: they never
//! say which of several authentication facts failed beyond what the caller already knows, and
//! never echo submitted secrets. Each variant has a stable code and an HTTP status, given by its
//! `HttpProblem` impl (the body's `data` is `{"code": …}`); this module knows nothing else of HTTP.

use domain::envelope::EnvelopeError;
use domain::privileged_command::CommandParseError;
use domain::problem::HttpProblem;
use domain::roles::AuthzError;

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PrivError {
    #[error("invalid signed request: {0}")]
    Envelope(EnvelopeError),
    #[error("the account is unknown or not active")]
    AccountUnavailable,
    #[error("the device is unknown, revoked or not paired with this account")]
    DeviceUnavailable,
    #[error("the account's role changed; sign in again")]
    RoleChanged,
    #[error("the signature does not verify")]
    BadSignature,
    #[error("not permitted: {0}")]
    Forbidden(String),
    #[error("the record changed meanwhile; reload and retry")]
    StaleRevision,
    #[error("this request id was already used for a different request")]
    RequestConflict,
    #[error("the request is still being processed")]
    InProgress,
    #[error("this is done on the Relay server PC or a paired laptop, not in a browser")]
    NotOnTheWeb,
    #[error("invalid username or password")]
    InvalidCredentials,
    #[error("a fresh password confirmation is required")]
    ReauthRequired,
    #[error("the pairing code is invalid or expired")]
    PairingInvalid,
    #[error("invalid input: {0}")]
    Invalid(String),
    #[error("too many attempts; retry in {retry_after_secs} s")]
    RateLimited { retry_after_secs: u64 },
    #[error("privileged commands are not ready")]
    NotBootstrapped,
    #[error("internal error")]
    Internal,
}

impl HttpProblem for PrivError {
    fn code(&self) -> &'static str {
        match self {
            PrivError::Envelope(_) => "invalid_envelope",
            PrivError::AccountUnavailable => "account_unavailable",
            PrivError::DeviceUnavailable => "device_unavailable",
            PrivError::RoleChanged => "role_changed",
            PrivError::BadSignature => "bad_signature",
            PrivError::Forbidden(_) => "forbidden",
            PrivError::StaleRevision => "stale_revision",
            PrivError::RequestConflict => "request_conflict",
            PrivError::InProgress => "in_progress",
            PrivError::NotOnTheWeb => "not_on_the_web",
            PrivError::InvalidCredentials => "invalid_credentials",
            PrivError::ReauthRequired => "reauth_required",
            PrivError::PairingInvalid => "pairing_invalid",
            PrivError::Invalid(_) => "invalid_input",
            PrivError::RateLimited { .. } => "rate_limited",
            PrivError::NotBootstrapped => "not_bootstrapped",
            PrivError::Internal => "internal",
        }
    }

    fn status(&self) -> u16 {
        match self {
            PrivError::Envelope(_) | PrivError::Invalid(_) | PrivError::PairingInvalid => 400,
            PrivError::BadSignature | PrivError::InvalidCredentials => 401,
            PrivError::AccountUnavailable
            | PrivError::DeviceUnavailable
            | PrivError::Forbidden(_)
            | PrivError::NotOnTheWeb
            | PrivError::ReauthRequired => 403,
            PrivError::RoleChanged | PrivError::StaleRevision | PrivError::RequestConflict | PrivError::InProgress => {
                409
            }
            PrivError::RateLimited { .. } => 429,
            PrivError::NotBootstrapped => 503,
            PrivError::Internal => 500,
        }
    }

    fn retry_after_secs(&self) -> Option<u64> {
        match self {
            PrivError::RateLimited { retry_after_secs } => Some(*retry_after_secs),
            _ => None,
        }
    }
}

impl From<EnvelopeError> for PrivError {
    fn from(e: EnvelopeError) -> Self {
        match e {
            EnvelopeError::BadSignature => PrivError::BadSignature,
            other => PrivError::Envelope(other),
        }
    }
}

/// The reason travels once: `PrivError::Forbidden` adds its own "not permitted: " prefix.
impl From<AuthzError> for PrivError {
    fn from(e: AuthzError) -> Self {
        match e {
            AuthzError::Forbidden(why) => PrivError::Forbidden(why.to_string()),
            AuthzError::InvalidTarget(_) => PrivError::Forbidden(e.to_string()),
        }
    }
}

/// An unknown command name is refused as before the typed commands existed (403 `forbidden`,
/// "not permitted: unknown command"); a malformed payload is invalid input (400
/// `invalid_input`), whose message names a missing field but never echoes a submitted value.
impl From<CommandParseError> for PrivError {
    fn from(e: CommandParseError) -> Self {
        match e {
            CommandParseError::UnknownCommand => PrivError::Forbidden(e.to_string()),
            CommandParseError::NotAnObject
            | CommandParseError::MissingField(_)
            | CommandParseError::UnknownField
            | CommandParseError::InvalidField => PrivError::Invalid(e.to_string()),
        }
    }
}

/// A `wiki.*` command's refusal, answered as the pipeline's own.
impl From<crate::wiki::CommandError> for PrivError {
    fn from(e: crate::wiki::CommandError) -> Self {
        match e {
            crate::wiki::CommandError::Invalid(why) => PrivError::Invalid(why),
            crate::wiki::CommandError::StaleRevision => PrivError::StaleRevision,
            crate::wiki::CommandError::Internal => PrivError::Internal,
        }
    }
}

impl From<diesel::result::Error> for PrivError {
    fn from(e: diesel::result::Error) -> Self {
        tracing::error!(error = %e, "privileged store error");
        PrivError::Internal
    }
}
