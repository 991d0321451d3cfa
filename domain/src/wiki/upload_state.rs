//! The upload state machine (`knowledge_uploads.state`). The pipeline runs
//! `queued → uploading → assembling → extracting → ready → published`; any state before
//! `published` (and not yet failed) may fail or be cancelled; and any upload still in the
//! pipeline or failed expires once its retention runs out. `published`, `cancelled` and
//! `expired` are terminal; `failed` only waits for expiry. [`next`] is the one
//! place a state changes; it refuses to know why an event happened or when.

use thiserror::Error;

/// Where an upload is in its life.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum UploadState {
    /// Created, waiting for its first chunk.
    Queued,
    /// Chunks are arriving.
    Uploading,
    /// Every chunk arrived; the server joins and checks them.
    Assembling,
    /// The server reads page count, outline and cover.
    Extracting,
    /// Waiting for the publisher's review.
    Ready,
    /// Became a document (terminal).
    Published,
    /// Refused or broken; kept until it expires.
    Failed,
    /// Stopped by the publisher (terminal).
    Cancelled,
    /// Removed after the retention period (terminal).
    Expired,
}

/// What happened to an upload.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum UploadEvent {
    /// A chunk was accepted (the first one starts the upload).
    ChunkAccepted,
    /// The last chunk was accepted.
    AllChunksReceived,
    /// The file was joined and its checksum, signature and size verified.
    Assembled,
    /// Page count, outline and cover were extracted.
    Extracted,
    /// The publisher published it.
    Publish,
    /// Something refused or broke it.
    Fail,
    /// The publisher cancelled it.
    Cancel,
    /// Its retention period ran out.
    Expire,
}

impl UploadState {
    /// Every state, in pipeline order.
    pub const ALL: [UploadState; 9] = [
        UploadState::Queued,
        UploadState::Uploading,
        UploadState::Assembling,
        UploadState::Extracting,
        UploadState::Ready,
        UploadState::Published,
        UploadState::Failed,
        UploadState::Cancelled,
        UploadState::Expired,
    ];

    /// Reads the stored value.
    pub fn parse(value: &str) -> Option<UploadState> {
        UploadState::ALL.into_iter().find(|state| state.as_str() == value)
    }

    /// The stored value.
    pub fn as_str(self) -> &'static str {
        match self {
            UploadState::Queued => "queued",
            UploadState::Uploading => "uploading",
            UploadState::Assembling => "assembling",
            UploadState::Extracting => "extracting",
            UploadState::Ready => "ready",
            UploadState::Published => "published",
            UploadState::Failed => "failed",
            UploadState::Cancelled => "cancelled",
            UploadState::Expired => "expired",
        }
    }

    /// Whether no event changes this state any more.
    pub fn is_terminal(self) -> bool {
        matches!(self, UploadState::Published | UploadState::Cancelled | UploadState::Expired)
    }

    /// Whether the upload is still moving through the pipeline (may fail or be cancelled).
    pub fn is_active(self) -> bool {
        !self.is_terminal() && self != UploadState::Failed
    }
}

/// An event the upload's current state does not allow.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Error)]
#[error("The upload cannot do that in its current state.")]
pub struct TransitionError {
    pub from: UploadState,
    pub event: UploadEvent,
}

impl TransitionError {
    /// A stable, machine-readable code (`snake_case`).
    pub fn code(&self) -> &'static str {
        "invalid_upload_transition"
    }
}

impl crate::problem::HttpProblem for TransitionError {
    fn status(&self) -> u16 {
        409
    }

    fn code(&self) -> &'static str {
        TransitionError::code(self)
    }
}

/// The state after `event`, or the refusal when `state` does not allow it.
pub fn next(state: UploadState, event: UploadEvent) -> Result<UploadState, TransitionError> {
    use UploadEvent as E;
    use UploadState as S;
    let to = match (state, event) {
        (S::Queued | S::Uploading, E::ChunkAccepted) => S::Uploading,
        (S::Uploading, E::AllChunksReceived) => S::Assembling,
        (S::Assembling, E::Assembled) => S::Extracting,
        (S::Extracting, E::Extracted) => S::Ready,
        (S::Ready, E::Publish) => S::Published,
        (from, E::Fail) if from.is_active() => S::Failed,
        (from, E::Cancel) if from.is_active() => S::Cancelled,
        (from, E::Expire) if from.is_active() || from == S::Failed => S::Expired,
        (from, event) => return Err(TransitionError { from, event }),
    };
    Ok(to)
}

#[cfg(test)]
#[path = "upload_state_tests.rs"]
mod tests;
