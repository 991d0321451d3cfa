//! Errors of the wiki subsystem. A refused chunk says only the fixed "Invalid upload chunk."
//! (its stable code names which check refused it, for logs and tests), never echoing what was
//! sent; file-system and database causes are logged and shown as "unavailable" or "internal".
//! Each variant has a stable code and an HTTP status through its `HttpProblem` impl. A refused
//! `wiki.*` command is a [`CommandError`], which the privileged pipeline answers as its own
//! refusal; this module knows nothing of that pipeline.

use domain::problem::HttpProblem;
use domain::wiki::{ChunkError, TransitionError, INVALID_CHUNK_MESSAGE};

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum WikiError {
    #[error("{}", INVALID_CHUNK_MESSAGE)]
    Chunk(ChunkError),
    #[error("The chunk does not match its checksum.")]
    ChecksumMismatch,
    #[error("The upload cannot do that in its current state.")]
    Transition(#[from] TransitionError),
    #[error("The file is not a PDF.")]
    NotPdf,
    #[error("The source PDF changed or moved while it was being uploaded; select it again.")]
    SourceChanged,
    #[error("The source PDF cannot be read (it must be an absolute path to a regular file).")]
    SourceUnreadable,
    #[error("{0}")]
    InvalidQuery(String),
    #[error("The chunk request needs a signed wiki.upload.chunk claim in X-Relay-Envelope.")]
    MissingClaim,
    #[error("The Wiki record was not found.")]
    NotFound,
    #[error("Another Wiki task is running; retry in a moment.")]
    Busy,
    #[error("the Wiki is unavailable; retry")]
    Unavailable,
    #[error("internal error")]
    Internal,
}

impl WikiError {
    /// A file-system failure: logged, shown as unavailable.
    pub fn io(e: std::io::Error) -> WikiError {
        tracing::warn!(error = %e, "wiki file operation failed");
        WikiError::Unavailable
    }
}

impl From<diesel::result::Error> for WikiError {
    fn from(e: diesel::result::Error) -> Self {
        tracing::error!(error = %e, "wiki store error");
        WikiError::Internal
    }
}

impl HttpProblem for WikiError {
    fn status(&self) -> u16 {
        match self {
            WikiError::Chunk(_)
            | WikiError::ChecksumMismatch
            | WikiError::NotPdf
            | WikiError::SourceChanged
            | WikiError::SourceUnreadable
            | WikiError::InvalidQuery(_)
            | WikiError::MissingClaim => 400,
            WikiError::Transition(_) => 409,
            WikiError::NotFound => 404,
            WikiError::Busy | WikiError::Unavailable => 503,
            WikiError::Internal => 500,
        }
    }

    fn code(&self) -> &'static str {
        match self {
            WikiError::Chunk(e) => e.code(),
            WikiError::ChecksumMismatch => "checksum_mismatch",
            WikiError::Transition(e) => e.code(),
            WikiError::NotPdf => "not_pdf",
            WikiError::SourceChanged => "source_changed",
            WikiError::SourceUnreadable => "source_unreadable",
            WikiError::InvalidQuery(_) => "invalid_query",
            WikiError::MissingClaim => "missing_claim",
            WikiError::NotFound => "not_found",
            WikiError::Busy => "busy",
            WikiError::Unavailable => "unavailable",
            WikiError::Internal => "internal",
        }
    }

    fn retry_after_secs(&self) -> Option<u64> {
        matches!(self, WikiError::Busy | WikiError::Unavailable).then_some(1)
    }
}

impl From<actix::MailboxError> for WikiError {
    fn from(_: actix::MailboxError) -> Self {
        WikiError::Unavailable
    }
}

/// Why a `wiki.*` command was refused (`ops::run`). The messages are safe to show the caller;
/// the privileged pipeline answers `Invalid` as invalid input, `StaleRevision` as a stale
/// revision and `Internal` as an internal error.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CommandError {
    #[error("{0}")]
    Invalid(String),
    #[error("the record changed meanwhile; reload and retry")]
    StaleRevision,
    #[error("internal error")]
    Internal,
}

impl From<diesel::result::Error> for CommandError {
    fn from(e: diesel::result::Error) -> Self {
        tracing::error!(error = %e, "privileged store error");
        CommandError::Internal
    }
}
