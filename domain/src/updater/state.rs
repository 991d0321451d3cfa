//! The desktop updater's state machine: phases [`UpdatePhase`] (idle, available, downloading,
//! downloaded, preparing, prepared, error), the events the updater actor feeds it
//! ([`UpdateEvent`]: check results, the user's download / cancel / prepare / restart requests,
//! and the outcomes of the work it started) and the side effects it asks for ([`UpdateEffect`]).
//! The only legal transitions encode the invariants "a check never downloads, a download never
//! prepares, a prepare never restarts": [`UpdateEffect::StartDownload`],
//! [`UpdateEffect::StartPrepare`] and [`UpdateEffect::Restart`] are produced only by the user's
//! own request for that step. A check for a different release cancels an in-flight download and
//! asks for staging to be cleared; a check for the same release keeps progress. A prepared
//! executable that fails its check before a restart ([`UpdateEvent::PreparedInvalid`]) ends in
//! `prepare-failed` with staging cleared, so restart is never offered for it. Typed errors of
//! the other rules map onto stable failure codes ([`UpdateFailure`]) without string matching,
//! and [`UpdateSnapshot`] is what the UI receives (camelCase JSON). It refuses to do the work it
//! asks for, keep time or decide installability itself.

use super::archive::ArchiveError;
use super::digest::CommitSha;
use super::download::DownloadError;
use super::recovery::QuarantineHistory;
use super::release::{NotInstallableReason, ReleaseCheck, ResolveError};
use super::signature::SignatureError;
use super::version::Version;
use serde::Serialize;
use thiserror::Error;

/// Where the updater is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum UpdatePhase {
    Idle,
    Available,
    Downloading,
    /// Downloaded, verified and staged.
    Downloaded,
    Preparing,
    /// The launcher holds a prepared candidate; only a restart remains.
    Prepared,
    Error,
}

/// Why an update is not offered or did not complete (the UI shows a plain reason per code).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum UpdateFailure {
    /// This installation cannot self-update (not the managed layout).
    Unsupported,
    ReleaseNotImmutable,
    /// Mutable in another way than the immutable flag: malformed assets, commit, sizes.
    ReleaseNotInstallable,
    ReleaseChanged,
    ReleaseQuarantined,
    DownloadFailed,
    VerificationFailed,
    SignatureInvalid,
    PrepareFailed,
    Cancelled,
}

impl UpdateFailure {
    /// A stable, machine-readable code (the serialized kebab-case name).
    pub fn code(self) -> &'static str {
        match self {
            UpdateFailure::Unsupported => "unsupported",
            UpdateFailure::ReleaseNotImmutable => "release-not-immutable",
            UpdateFailure::ReleaseNotInstallable => "release-not-installable",
            UpdateFailure::ReleaseChanged => "release-changed",
            UpdateFailure::ReleaseQuarantined => "release-quarantined",
            UpdateFailure::DownloadFailed => "download-failed",
            UpdateFailure::VerificationFailed => "verification-failed",
            UpdateFailure::SignatureInvalid => "signature-invalid",
            UpdateFailure::PrepareFailed => "prepare-failed",
            UpdateFailure::Cancelled => "cancelled",
        }
    }

    /// Whether the user may start the download again from this error without a new check.
    pub fn allows_retry(self) -> bool {
        matches!(
            self,
            UpdateFailure::DownloadFailed
                | UpdateFailure::VerificationFailed
                | UpdateFailure::PrepareFailed
                | UpdateFailure::Cancelled
        )
    }
}

impl From<&ResolveError> for UpdateFailure {
    fn from(error: &ResolveError) -> UpdateFailure {
        match error {
            ResolveError::ReleaseChanged | ResolveError::NotNewer => UpdateFailure::ReleaseChanged,
            ResolveError::NotImmutable => UpdateFailure::ReleaseNotImmutable,
            ResolveError::NotInstallable => UpdateFailure::ReleaseNotInstallable,
            ResolveError::Quarantined => UpdateFailure::ReleaseQuarantined,
        }
    }
}

impl From<&DownloadError> for UpdateFailure {
    fn from(error: &DownloadError) -> UpdateFailure {
        if error.is_integrity_failure() {
            UpdateFailure::VerificationFailed
        } else {
            UpdateFailure::DownloadFailed
        }
    }
}

impl From<&ArchiveError> for UpdateFailure {
    fn from(_: &ArchiveError) -> UpdateFailure {
        UpdateFailure::VerificationFailed
    }
}

impl From<&SignatureError> for UpdateFailure {
    fn from(_: &SignatureError) -> UpdateFailure {
        UpdateFailure::SignatureInvalid
    }
}

/// A discovery result as the state machine sees it, with the device's own facts folded in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CheckOutcome {
    pub latest_version: Version,
    pub update_available: bool,
    pub commit: Option<CommitSha>,
    /// Installable by the release rules, on this installation, and not quarantined.
    pub installable: bool,
    pub archive_size: Option<u64>,
    /// Why a newer release is advisory only.
    pub advisory_reason: Option<UpdateFailure>,
}

impl CheckOutcome {
    /// Folds in whether this installation can self-update and the quarantine history.
    pub fn new(check: &ReleaseCheck, supported: bool, quarantine: &QuarantineHistory) -> CheckOutcome {
        let quarantined =
            check.target_commitish.is_some_and(|commit| quarantine.contains(&check.latest_version, &commit));
        let advisory_reason = if !supported {
            Some(UpdateFailure::Unsupported)
        } else if quarantined {
            Some(UpdateFailure::ReleaseQuarantined)
        } else if check.not_installable_reasons.contains(&NotInstallableReason::NotImmutable) {
            Some(UpdateFailure::ReleaseNotImmutable)
        } else if !check.not_installable_reasons.is_empty() {
            Some(UpdateFailure::ReleaseNotInstallable)
        } else {
            None
        };
        CheckOutcome {
            latest_version: check.latest_version,
            update_available: check.update_available,
            commit: check.target_commitish,
            installable: check.installable && advisory_reason.is_none(),
            archive_size: check.archive_size,
            advisory_reason: advisory_reason.filter(|_| check.update_available),
        }
    }

    fn same_release(&self, other: &CheckOutcome) -> bool {
        self.latest_version == other.latest_version && self.commit == other.commit
    }
}

/// Something that happened.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UpdateEvent {
    CheckCompleted(CheckOutcome),
    DownloadRequested,
    DownloadProgress {
        version: Version,
        downloaded_bytes: u64,
    },
    DownloadFinished {
        version: Version,
    },
    DownloadFailed {
        version: Version,
        failure: UpdateFailure,
    },
    CancelRequested,
    PrepareRequested,
    PrepareFinished {
        version: Version,
    },
    PrepareFailed {
        version: Version,
        failure: UpdateFailure,
    },
    RestartRequested,
    /// The prepared executable failed its check before a restart (changed, gone, writable by
    /// others): it is dropped and the user may download again.
    PreparedInvalid {
        version: Version,
    },
}

/// Work the actor must do after a transition.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UpdateEffect {
    StartDownload {
        version: Version,
    },
    CancelDownload,
    /// Remove the staged files (and any prepared receipt) of the previous release.
    ClearStaging,
    StartPrepare {
        version: Version,
    },
    Restart {
        version: Version,
    },
}

/// An event that is not legal in the current state; the state is unchanged.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Error)]
pub enum TransitionError {
    #[error("No installable update is available to download.")]
    NothingToDownload,
    #[error("No download is in progress.")]
    NotDownloading,
    #[error("No downloaded update is waiting to be prepared.")]
    NotDownloaded,
    #[error("No prepared update is waiting for a restart.")]
    NotPrepared,
    #[error("The event belongs to another step or release.")]
    StaleEvent,
    #[error("Download progress went backwards or past the expected size.")]
    ProgressInvalid,
}

impl TransitionError {
    /// A stable, machine-readable code (`snake_case`).
    pub fn code(&self) -> &'static str {
        match self {
            TransitionError::NothingToDownload => "nothing_to_download",
            TransitionError::NotDownloading => "not_downloading",
            TransitionError::NotDownloaded => "not_downloaded",
            TransitionError::NotPrepared => "not_prepared",
            TransitionError::StaleEvent => "stale_event",
            TransitionError::ProgressInvalid => "progress_invalid",
        }
    }
}

/// The updater's whole state.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UpdateState {
    current_version: Version,
    phase: UpdatePhase,
    offer: Option<CheckOutcome>,
    downloaded_bytes: u64,
    failure: Option<UpdateFailure>,
}

/// The next state and the work to do for it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Transition {
    pub state: UpdateState,
    pub effects: Vec<UpdateEffect>,
}

/// What the UI receives on every change.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct UpdateSnapshot {
    pub phase: UpdatePhase,
    pub current_version: Version,
    pub latest_version: Option<Version>,
    pub installable: bool,
    pub downloaded_bytes: u64,
    pub total_bytes: Option<u64>,
    pub failure_code: Option<UpdateFailure>,
}

impl UpdateState {
    /// Idle, running `current_version`.
    pub fn new(current_version: Version) -> UpdateState {
        UpdateState { current_version, phase: UpdatePhase::Idle, offer: None, downloaded_bytes: 0, failure: None }
    }

    /// The phase.
    pub fn phase(&self) -> UpdatePhase {
        self.phase
    }

    /// The release on offer, if any.
    pub fn offer(&self) -> Option<&CheckOutcome> {
        self.offer.as_ref()
    }

    /// The UI's view.
    pub fn snapshot(&self) -> UpdateSnapshot {
        UpdateSnapshot {
            phase: self.phase,
            current_version: self.current_version,
            latest_version: self.offer.map(|offer| offer.latest_version),
            installable: self.offer.is_some_and(|offer| offer.installable),
            downloaded_bytes: self.downloaded_bytes,
            total_bytes: self.offer.and_then(|offer| offer.archive_size),
            failure_code: match self.phase {
                UpdatePhase::Error => self.failure,
                UpdatePhase::Available => self.offer.and_then(|offer| offer.advisory_reason),
                _ => None,
            },
        }
    }

    /// Applies one event; illegal events are refused and leave the state as it was.
    pub fn apply(&self, event: UpdateEvent) -> Result<Transition, TransitionError> {
        use UpdatePhase as P;
        let offered_version = self.offer.map(|offer| offer.latest_version);
        let matches = |version: Version| offered_version == Some(version);
        match event {
            UpdateEvent::CheckCompleted(outcome) => Ok(self.on_check(outcome)),
            UpdateEvent::DownloadRequested => {
                let retryable = self.phase == P::Error && self.failure.is_some_and(UpdateFailure::allows_retry);
                match self.offer {
                    Some(offer) if offer.installable && (self.phase == P::Available || retryable) => Ok(self.to(
                        P::Downloading,
                        0,
                        None,
                        vec![UpdateEffect::StartDownload { version: offer.latest_version }],
                    )),
                    _ => Err(TransitionError::NothingToDownload),
                }
            }
            UpdateEvent::DownloadProgress { version, downloaded_bytes } => {
                if self.phase != P::Downloading || !matches(version) {
                    return Err(TransitionError::StaleEvent);
                }
                let total = self.offer.and_then(|offer| offer.archive_size).unwrap_or(0);
                if downloaded_bytes < self.downloaded_bytes || downloaded_bytes > total {
                    return Err(TransitionError::ProgressInvalid);
                }
                Ok(self.to(P::Downloading, downloaded_bytes, None, Vec::new()))
            }
            UpdateEvent::DownloadFinished { version } if self.phase == P::Downloading && matches(version) => {
                let total = self.offer.and_then(|offer| offer.archive_size).unwrap_or(self.downloaded_bytes);
                Ok(self.to(P::Downloaded, total, None, Vec::new()))
            }
            UpdateEvent::DownloadFailed { version, failure } if self.phase == P::Downloading && matches(version) => {
                Ok(self.to(P::Error, 0, Some(failure), vec![UpdateEffect::ClearStaging]))
            }
            UpdateEvent::DownloadFinished { .. } | UpdateEvent::DownloadFailed { .. } => {
                Err(TransitionError::StaleEvent)
            }
            UpdateEvent::CancelRequested if self.phase == P::Downloading => {
                Ok(self.to(P::Available, 0, None, vec![UpdateEffect::CancelDownload, UpdateEffect::ClearStaging]))
            }
            UpdateEvent::CancelRequested => Err(TransitionError::NotDownloading),
            UpdateEvent::PrepareRequested => match (self.phase, offered_version) {
                (P::Downloaded, Some(version)) => {
                    Ok(self.to(P::Preparing, self.downloaded_bytes, None, vec![UpdateEffect::StartPrepare { version }]))
                }
                _ => Err(TransitionError::NotDownloaded),
            },
            UpdateEvent::PrepareFinished { version } if self.phase == P::Preparing && matches(version) => {
                Ok(self.to(P::Prepared, self.downloaded_bytes, None, Vec::new()))
            }
            UpdateEvent::PrepareFailed { version, failure } if self.phase == P::Preparing && matches(version) => {
                Ok(self.to(P::Error, 0, Some(failure), vec![UpdateEffect::ClearStaging]))
            }
            UpdateEvent::PrepareFinished { .. } | UpdateEvent::PrepareFailed { .. } => Err(TransitionError::StaleEvent),
            UpdateEvent::PreparedInvalid { version } if self.phase == P::Prepared && matches(version) => {
                Ok(self.to(P::Error, 0, Some(UpdateFailure::PrepareFailed), vec![UpdateEffect::ClearStaging]))
            }
            UpdateEvent::PreparedInvalid { .. } => Err(TransitionError::StaleEvent),
            UpdateEvent::RestartRequested => match (self.phase, offered_version) {
                (P::Prepared, Some(version)) => {
                    Ok(Transition { state: self.clone(), effects: vec![UpdateEffect::Restart { version }] })
                }
                _ => Err(TransitionError::NotPrepared),
            },
        }
    }

    fn on_check(&self, outcome: CheckOutcome) -> Transition {
        use UpdatePhase as P;
        let unchanged = || Transition { state: self.clone(), effects: Vec::new() };
        // Preparing is a short local step on verified files; the next periodic check decides.
        if self.phase == P::Preparing {
            return unchanged();
        }
        let same_release = self.offer.is_some_and(|offer| offer.same_release(&outcome));
        if outcome.update_available && same_release {
            let mut state = self.clone();
            if matches!(self.phase, P::Idle | P::Available | P::Error) {
                state.offer = Some(outcome);
            }
            if self.phase == P::Idle {
                state.phase = P::Available;
            }
            return Transition { state, effects: Vec::new() };
        }
        let effects = match self.phase {
            P::Downloading => vec![UpdateEffect::CancelDownload, UpdateEffect::ClearStaging],
            P::Downloaded | P::Prepared => vec![UpdateEffect::ClearStaging],
            _ => Vec::new(),
        };
        let (phase, offer) = if outcome.update_available { (P::Available, Some(outcome)) } else { (P::Idle, None) };
        let state =
            UpdateState { current_version: self.current_version, phase, offer, downloaded_bytes: 0, failure: None };
        Transition { state, effects }
    }

    fn to(
        &self,
        phase: UpdatePhase,
        downloaded_bytes: u64,
        failure: Option<UpdateFailure>,
        effects: Vec<UpdateEffect>,
    ) -> Transition {
        let state = UpdateState { phase, downloaded_bytes, failure, ..self.clone() };
        Transition { state, effects }
    }
}

#[cfg(test)]
#[path = "state_tests.rs"]
mod tests;
