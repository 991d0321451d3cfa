//! Errors of the branding subsystem: an image refusal keeps its own status, code and message
//! (`domain::images::ImageError`); the rest are this subsystem's (no such logo, busy, invalid
//! control input, unavailable, internal). Each variant has a stable code through its
//! `HttpProblem` impl and a message safe for an operator's terminal; `Internal` never says more
//! than "internal error" (the cause is logged).

use domain::control::{ControlError, ControlErrorCode};
use domain::images::ImageError;
use domain::problem::HttpProblem;

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BrandingError {
    #[error(transparent)]
    Image(#[from] ImageError),
    #[error("No logo is set")]
    NotFound,
    #[error("Another image is being processed; retry in a moment")]
    Busy,
    #[error("{0}")]
    InvalidInput(String),
    #[error("the branding subsystem is unavailable; retry")]
    Unavailable,
    #[error("internal error")]
    Internal,
}

impl HttpProblem for BrandingError {
    fn status(&self) -> u16 {
        match self {
            BrandingError::Image(e) => e.status(),
            BrandingError::NotFound => 404,
            BrandingError::InvalidInput(_) => 400,
            BrandingError::Busy | BrandingError::Unavailable => 503,
            BrandingError::Internal => 500,
        }
    }

    fn code(&self) -> &'static str {
        match self {
            BrandingError::Image(e) => e.code(),
            BrandingError::NotFound => "not_found",
            BrandingError::InvalidInput(_) => "invalid_input",
            BrandingError::Busy => "busy",
            BrandingError::Unavailable => "unavailable",
            BrandingError::Internal => "internal",
        }
    }

    fn retry_after_secs(&self) -> Option<u64> {
        matches!(self, BrandingError::Busy | BrandingError::Unavailable).then_some(1)
    }
}

impl From<actix::MailboxError> for BrandingError {
    fn from(_: actix::MailboxError) -> Self {
        BrandingError::Unavailable
    }
}

/// On the control socket the stable code travels in the message: `Image must be under 2 MB
/// (too_large)`.
impl From<BrandingError> for ControlError {
    fn from(e: BrandingError) -> ControlError {
        let code = match e {
            BrandingError::Busy | BrandingError::Unavailable => ControlErrorCode::Unavailable,
            BrandingError::Internal => ControlErrorCode::Internal,
            _ => ControlErrorCode::Refused,
        };
        ControlError::new(code, format!("{e} ({})", e.code()))
    }
}
