//! Errors of the updater actor's messages. Each variant has a stable `code()` and an HTTP-style
//! status through `HttpProblem` (the desktop bridge answers with the same codes); messages name
//! no URL, path or header. Failures of the update itself (a refused download, a bad signature)
//! are not errors of a message: they are the state machine's failure codes in `UpdateSnapshot`.

use domain::problem::HttpProblem;
use domain::updater::TransitionError;

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum UpdaterError {
    /// An on-demand check came too soon after the previous one.
    #[error("Relay checked for updates moments ago; try again in {retry_after_secs} s.")]
    RateLimited { retry_after_secs: u64 },
    /// GitHub asked Relay to wait (`429`/`Retry-After`); no check goes out before then.
    #[error("GitHub asked Relay to wait; try again in {retry_after_secs} s.")]
    GitHubRateLimited { retry_after_secs: u64 },
    /// The check did not produce an answer (network, or an answer the rules refuse); logged.
    #[error("The update check did not complete.")]
    CheckFailed,
    /// The request does not fit the current state (nothing to download, not prepared...).
    #[error("{0}")]
    NotAllowed(TransitionError),
    /// The prepared executable failed its check before a restart and was dropped.
    #[error("The prepared update changed on disk and was removed; download it again.")]
    PreparedChanged,
    /// Another preparation or check of staged files is still running.
    #[error("The updater is busy; try again shortly.")]
    Busy,
    /// The updater's work could not be run or did not report back.
    #[error("The updater is unavailable.")]
    Unavailable,
    /// A repair's release could not be fetched, verified or prepared (`code` says which step).
    #[error("The build's release could not be downloaded and verified ({code}).")]
    RepairFailed { code: &'static str },
}

impl From<TransitionError> for UpdaterError {
    fn from(error: TransitionError) -> Self {
        UpdaterError::NotAllowed(error)
    }
}

impl HttpProblem for UpdaterError {
    fn status(&self) -> u16 {
        match self {
            UpdaterError::RateLimited { .. } | UpdaterError::GitHubRateLimited { .. } => 429,
            UpdaterError::CheckFailed | UpdaterError::RepairFailed { .. } => 502,
            UpdaterError::NotAllowed(_) | UpdaterError::PreparedChanged => 409,
            UpdaterError::Busy | UpdaterError::Unavailable => 503,
        }
    }

    fn code(&self) -> &'static str {
        match self {
            UpdaterError::RateLimited { .. } => "update_check_rate_limited",
            UpdaterError::GitHubRateLimited { .. } => "update_github_rate_limited",
            UpdaterError::CheckFailed => "update_check_failed",
            UpdaterError::NotAllowed(error) => error.code(),
            UpdaterError::PreparedChanged => "update_prepared_changed",
            UpdaterError::Busy => "updater_busy",
            UpdaterError::Unavailable => "updater_unavailable",
            UpdaterError::RepairFailed { .. } => "update_repair_failed",
        }
    }

    fn retry_after_secs(&self) -> Option<u64> {
        match self {
            UpdaterError::RateLimited { retry_after_secs } | UpdaterError::GitHubRateLimited { retry_after_secs } => {
                Some(*retry_after_secs)
            }
            UpdaterError::Busy => Some(1),
            _ => None,
        }
    }
}

impl UpdaterError {
    /// The stable code (the same as [`HttpProblem::code`]).
    pub fn code(&self) -> &'static str {
        HttpProblem::code(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_variant_has_a_stable_code_and_status() {
        let cases = [
            (UpdaterError::RateLimited { retry_after_secs: 5 }, "update_check_rate_limited", 429, Some(5)),
            (UpdaterError::GitHubRateLimited { retry_after_secs: 60 }, "update_github_rate_limited", 429, Some(60)),
            (UpdaterError::CheckFailed, "update_check_failed", 502, None),
            (UpdaterError::NotAllowed(TransitionError::NothingToDownload), "nothing_to_download", 409, None),
            (UpdaterError::NotAllowed(TransitionError::NotPrepared), "not_prepared", 409, None),
            (UpdaterError::PreparedChanged, "update_prepared_changed", 409, None),
            (UpdaterError::Busy, "updater_busy", 503, Some(1)),
            (UpdaterError::Unavailable, "updater_unavailable", 503, None),
            (UpdaterError::RepairFailed { code: "signature_mismatch" }, "update_repair_failed", 502, None),
        ];
        for (error, code, status, retry) in cases {
            assert_eq!((error.code(), error.status(), error.retry_after_secs()), (code, status, retry), "{error:?}");
        }
    }
}
