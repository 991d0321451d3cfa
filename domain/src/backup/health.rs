//! The operator-owned `backup-health.json`: bounded attempt history, the last successful and
//! the last verified regular archive (each a restore point with the archive's file fingerprint),
//! the last verification, one of four fixed sanitized failure texts, the retry due time and the
//! consecutive failure count. Parsing is strict and capped at 64 KiB; a missing, oversized or
//! invalid file loads as the empty state, which grants no retention (fail closed). Attempts that
//! were still `started` when the previous process died become failures at load. The methods are
//! the bookkeeping of one backup; the retention decision lives in `super::retention`.

use serde::{Deserialize, Serialize};

use super::names::{ArchiveKind, ArchiveName};
use super::schedule::{after_cycle, CycleOutcome};

pub const HEALTH_FILE_NAME: &str = "backup-health.json";
pub const MAX_HEALTH_FILE_BYTES: usize = 64 * 1024;
/// Attempts kept in the file (the oldest are dropped).
pub const MAX_ATTEMPTS: usize = 20;
pub const MAX_FAILURES: u32 = 1_000_000;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum AttemptOutcome {
    Started,
    Success,
    Failed,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Attempt {
    #[serde(with = "super::iso_time")]
    pub started_at: i64,
    #[serde(default, with = "super::iso_time::option", skip_serializing_if = "Option::is_none")]
    pub completed_at: Option<i64>,
    pub outcome: AttemptOutcome,
}

/// What identifies an archive file on disk: size, modification and change times (ns) and
/// inode, read with `lstat`. Any rewrite, replacement or touch changes it. Stored as
/// `size:mtime:ctime:inode`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct FileFingerprint {
    pub size: u64,
    pub mtime_ns: i64,
    pub ctime_ns: i64,
    pub inode: u64,
}

impl FileFingerprint {
    pub fn parse(text: &str) -> Option<FileFingerprint> {
        let mut parts = text.split(':');
        let mut next = || parts.next().filter(|p| !p.is_empty() && p.len() <= 20);
        let fingerprint = FileFingerprint {
            size: next()?.parse().ok()?,
            mtime_ns: next()?.parse().ok()?,
            ctime_ns: next()?.parse().ok()?,
            inode: next()?.parse().ok()?,
        };
        (parts.next().is_none() && fingerprint.size > 0 && fingerprint.to_string() == text).then_some(fingerprint)
    }
}

impl std::fmt::Display for FileFingerprint {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}:{}:{}", self.size, self.mtime_ns, self.ctime_ns, self.inode)
    }
}

impl Serialize for FileFingerprint {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.to_string())
    }
}

impl<'de> Deserialize<'de> for FileFingerprint {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<FileFingerprint, D::Error> {
        let raw = String::deserialize(d)?;
        FileFingerprint::parse(&raw).ok_or_else(|| serde::de::Error::custom("invalid fingerprint"))
    }
}

/// An archive Relay created (or verified), as it was on disk then.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct RestorePoint {
    pub name: ArchiveName,
    #[serde(with = "super::iso_time")]
    pub completed_at: i64,
    pub fingerprint: FileFingerprint,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum VerificationOutcome {
    Success,
    Failed,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct VerificationRecord {
    pub name: ArchiveName,
    #[serde(with = "super::iso_time")]
    pub completed_at: i64,
    pub outcome: VerificationOutcome,
}

/// The only failure texts the file (and the operator) ever sees: no paths, errors or secrets.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum FailureText {
    #[serde(rename = "Backup failed. Check administrator access and available disk space, then retry.")]
    BackupFailed,
    #[serde(rename = "Not enough disk space. Free space outside Relay history and backups, then retry.")]
    NotEnoughSpace,
    #[serde(rename = "Disposable verification failed. Retention is paused; retain the earlier verified backup.")]
    VerificationFailed,
    #[serde(rename = "Previous backup was interrupted. Retry backup.")]
    Interrupted,
}

impl FailureText {
    pub fn text(self) -> &'static str {
        match self {
            FailureText::BackupFailed => {
                "Backup failed. Check administrator access and available disk space, then retry."
            }
            FailureText::NotEnoughSpace => {
                "Not enough disk space. Free space outside Relay history and backups, then retry."
            }
            FailureText::VerificationFailed => {
                "Disposable verification failed. Retention is paused; retain the earlier verified backup."
            }
            FailureText::Interrupted => "Previous backup was interrupted. Retry backup.",
        }
    }
}

/// The saved health state, the content of `backup-health.json`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct HealthState {
    pub attempts: Vec<Attempt>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_success: Option<RestorePoint>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_verified: Option<RestorePoint>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_verification: Option<VerificationRecord>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_failure: Option<FailureText>,
    #[serde(default, with = "super::iso_time::option", skip_serializing_if = "Option::is_none")]
    pub retry_due: Option<i64>,
    pub failures: u32,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum HealthError {
    #[error("the backup health file is larger than 64 KiB")]
    TooLarge,
    #[error("the backup health file is malformed")]
    Malformed,
    #[error("the backup health file holds values out of range")]
    Invalid,
}

/// What [`HealthState::load`] found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoadedHealth {
    pub state: HealthState,
    /// Why the file was not used (the state is then empty and grants nothing).
    pub rejected: Option<HealthError>,
    /// Interrupted attempts were turned into failures; the caller should save the state.
    pub recovered_interrupted: bool,
}

/// The health the status views show: the saved state plus what is derived at read time.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct HealthView {
    #[serde(flatten)]
    pub state: HealthState,
    pub retention_allowed: bool,
    pub restore_point_age_ms: Option<i64>,
    pub busy: bool,
}

/// What the operator health dashboard shows of backups (any signed-in client may read it, so
/// it names no archive and no path): when the restore point and the last successful
/// verification were made, the last failure's fixed text, whether retention may run, whether an
/// operation runs. Times are absolute; the dashboard turns them into ages when it is read.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct BackupSummary {
    pub restore_point_at_ms: Option<i64>,
    pub last_verified_at_ms: Option<i64>,
    pub last_failure: Option<&'static str>,
    pub failures: u32,
    pub retention_allowed: bool,
    pub busy: bool,
}

/// The dashboard's backup row: a [`BackupSummary`] with its times turned into ages.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct BackupDashboard {
    pub restore_point_age_ms: Option<i64>,
    pub last_verified_age_ms: Option<i64>,
    pub last_failure: Option<&'static str>,
    pub failures: u32,
    pub retention_allowed: bool,
    pub busy: bool,
}

impl BackupSummary {
    /// The row as seen at `now_ms` (a time in the future counts as age 0).
    pub fn at(&self, now_ms: i64) -> BackupDashboard {
        let age = |at: Option<i64>| at.map(|at| now_ms.saturating_sub(at).max(0));
        BackupDashboard {
            restore_point_age_ms: age(self.restore_point_at_ms),
            last_verified_age_ms: age(self.last_verified_at_ms),
            last_failure: self.last_failure,
            failures: self.failures,
            retention_allowed: self.retention_allowed,
            busy: self.busy,
        }
    }
}

impl HealthView {
    /// The dashboard's summary of this view.
    pub fn summary(&self) -> BackupSummary {
        BackupSummary {
            restore_point_at_ms: self.state.last_success.as_ref().map(|p| p.completed_at),
            last_verified_at_ms: self.state.last_verified.as_ref().map(|p| p.completed_at),
            last_failure: self.state.last_failure.map(FailureText::text),
            failures: self.state.failures,
            retention_allowed: self.retention_allowed,
            busy: self.busy,
        }
    }
}

impl HealthState {
    /// Parses the file strictly.
    pub fn parse(bytes: &[u8]) -> Result<HealthState, HealthError> {
        if bytes.len() > MAX_HEALTH_FILE_BYTES {
            return Err(HealthError::TooLarge);
        }
        let state: HealthState = serde_json::from_slice(bytes).map_err(|_| HealthError::Malformed)?;
        let attempts_consistent =
            state.attempts.iter().all(|a| (a.outcome == AttemptOutcome::Started) == a.completed_at.is_none());
        let regular = |p: &Option<RestorePoint>| p.as_ref().is_none_or(|p| p.name.kind() == ArchiveKind::Regular);
        if state.attempts.len() > MAX_ATTEMPTS
            || state.failures > MAX_FAILURES
            || !attempts_consistent
            || !regular(&state.last_success)
            || !regular(&state.last_verified)
        {
            return Err(HealthError::Invalid);
        }
        Ok(state)
    }

    /// Loads the file's bytes (`None` when absent), failing closed to the empty state, and
    /// turns attempts left `started` by a dead process into failures at `now_ms`.
    pub fn load(bytes: Option<&[u8]>, now_ms: i64) -> LoadedHealth {
        let (mut state, rejected) = match bytes.map(HealthState::parse) {
            None => (HealthState::default(), None),
            Some(Ok(state)) => (state, None),
            Some(Err(error)) => (HealthState::default(), Some(error)),
        };
        let recovered_interrupted = state.recover_interrupted(now_ms);
        LoadedHealth { state, rejected, recovered_interrupted }
    }

    /// Marks every `started` attempt failed with the "interrupted" text. Returns whether any was.
    pub fn recover_interrupted(&mut self, now_ms: i64) -> bool {
        let mut any = false;
        for attempt in self.attempts.iter_mut().filter(|a| a.outcome == AttemptOutcome::Started) {
            attempt.outcome = AttemptOutcome::Failed;
            attempt.completed_at = Some(now_ms);
            any = true;
        }
        if any {
            self.record_failure(FailureText::Interrupted, now_ms);
        }
        any
    }

    /// Step 1 of a backup: a `started` attempt, saved before any work.
    pub fn begin_attempt(&mut self, now_ms: i64) {
        self.attempts.push(Attempt { started_at: now_ms, completed_at: None, outcome: AttemptOutcome::Started });
        let excess = self.attempts.len().saturating_sub(MAX_ATTEMPTS);
        self.attempts.drain(..excess);
    }

    /// The archive exists on disk (written, fsynced, renamed). A regular archive becomes the
    /// latest restore point; a pre-restore safety archive is not one.
    pub fn record_created(&mut self, name: &ArchiveName, fingerprint: FileFingerprint, now_ms: i64) {
        if name.kind() == ArchiveKind::Regular {
            self.last_success = Some(RestorePoint { name: name.clone(), completed_at: now_ms, fingerprint });
        }
    }

    /// A verification finished. Success certifies the archive when it is the latest restore
    /// point, or when there is none yet and it is a regular archive; verifying an older or a
    /// safety archive is recorded but never moves the certificate.
    pub fn record_verification(
        &mut self,
        name: &ArchiveName,
        fingerprint: FileFingerprint,
        outcome: VerificationOutcome,
        now_ms: i64,
    ) {
        self.last_verification = Some(VerificationRecord { name: name.clone(), completed_at: now_ms, outcome });
        let certifies = match &self.last_success {
            Some(latest) => latest.name == *name,
            None => name.kind() == ArchiveKind::Regular,
        };
        if outcome == VerificationOutcome::Success && certifies {
            self.last_verified = Some(RestorePoint { name: name.clone(), completed_at: now_ms, fingerprint });
        }
    }

    /// The attempt succeeded: failures reset, next cycle daily.
    pub fn record_success(&mut self, now_ms: i64) {
        self.close_attempt(AttemptOutcome::Success, now_ms);
        self.last_failure = None;
        let (failures, due) = after_cycle(CycleOutcome::Success, self.failures, now_ms);
        self.failures = failures;
        self.retry_due = Some(due);
    }

    /// The attempt failed with one of the fixed texts: the retry ladder moves one step.
    pub fn record_failure(&mut self, failure: FailureText, now_ms: i64) {
        self.close_attempt(AttemptOutcome::Failed, now_ms);
        self.last_failure = Some(failure);
        let (failures, due) = after_cycle(CycleOutcome::Failure, self.failures, now_ms);
        self.failures = failures.min(MAX_FAILURES);
        self.retry_due = Some(due);
    }

    fn close_attempt(&mut self, outcome: AttemptOutcome, now_ms: i64) {
        if let Some(attempt) = self.attempts.iter_mut().rev().find(|a| a.outcome == AttemptOutcome::Started) {
            attempt.outcome = outcome;
            attempt.completed_at = Some(now_ms);
        }
    }

    /// How old the latest restore point is (negative if the clock went back).
    pub fn restore_point_age_ms(&self, now_ms: i64) -> Option<i64> {
        self.last_success.as_ref().map(|p| now_ms.saturating_sub(p.completed_at))
    }

    /// The file's content (always within [`MAX_HEALTH_FILE_BYTES`]: attempts are bounded).
    pub fn to_json(&self) -> Vec<u8> {
        serde_json::to_vec_pretty(self).expect("the health state always serializes")
    }
}

#[cfg(test)]
#[path = "health_tests.rs"]
mod tests;
