//! The pure rules of retained-build recovery that the stable launcher and the updater share:
//! which build ids are valid ([`BuildId`]), which retained builds to keep (the current one plus
//! the [`MAX_RETAINED_PREDECESSORS`] most recently promoted, never a referenced one) and which to
//! delete ([`plan_retention`]), whether a candidate on probation is promoted, kept waiting,
//! relaunched or rolled back ([`decide_probation`]: [`PROBATION_HEALTHY_MS`] of continuous health
//! within a [`PROBATION_DEADLINE_MS`] launcher deadline, at most [`MAX_CANDIDATE_ATTEMPTS`]
//! launches), the bounded history of quarantined `tag@commit` fingerprints
//! ([`QuarantineHistory`]), and the staging directory names `v<version>-<uuid v4>` with the
//! 24-hour abandoned-staging rule ([`staging_cleanup`]). It refuses to touch files, read clocks,
//! start processes or decide health itself: the launcher passes in ids, instants (milliseconds)
//! and observations, and fails closed on anything these rules reject.

use super::digest::CommitSha;
use super::version::Version;
use serde::{Serialize, Serializer};
use std::fmt;
use thiserror::Error;

/// Retained predecessors kept besides the current build.
pub const MAX_RETAINED_PREDECESSORS: usize = 3;
/// Continuous health a candidate must show before promotion (milliseconds).
pub const PROBATION_HEALTHY_MS: u64 = 60_000;
/// The launcher's whole probation deadline, shared by all attempts (milliseconds).
pub const PROBATION_DEADLINE_MS: u64 = 195_000;
/// Launches of a candidate within one probation.
pub const MAX_CANDIDATE_ATTEMPTS: u32 = 2;
/// Quarantined release fingerprints kept (oldest dropped first).
pub const MAX_QUARANTINED_RELEASES: usize = 20;
/// Age after which a recognized staging directory that is not in use is abandoned (milliseconds).
pub const STAGING_ABANDONED_AFTER_MS: u64 = 24 * 60 * 60 * 1_000;
/// Longest build id.
pub const MAX_BUILD_ID_CHARS: usize = 64;

/// A recovery rule violation; the launcher treats every one as "cannot prove the state".
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum RecoveryError {
    #[error("A build id must be 1 to 64 of a-z, 0-9, '.', '_' or '-', starting with a letter or digit.")]
    InvalidBuildId,
    #[error("A build is listed twice.")]
    DuplicateBuild,
    #[error("A quarantined release must be written v<version>@<40-hex commit>.")]
    InvalidFingerprint,
    #[error("The quarantine history lists a release twice.")]
    DuplicateFingerprint,
    #[error("The quarantine history holds more than 20 releases.")]
    QuarantineTooLong,
    #[error("A staging directory must be named v<version>-<uuid v4>.")]
    InvalidStagingName,
}

impl RecoveryError {
    /// A stable, machine-readable code (`snake_case`).
    pub fn code(&self) -> &'static str {
        match self {
            RecoveryError::InvalidBuildId => "invalid_build_id",
            RecoveryError::DuplicateBuild => "duplicate_build",
            RecoveryError::InvalidFingerprint => "invalid_release_fingerprint",
            RecoveryError::DuplicateFingerprint => "duplicate_release_fingerprint",
            RecoveryError::QuarantineTooLong => "quarantine_too_long",
            RecoveryError::InvalidStagingName => "invalid_staging_name",
        }
    }
}

/// A retained runtime's id, `^[a-z0-9][a-z0-9._-]{0,63}$`; also its directory name.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct BuildId(String);

impl BuildId {
    /// Parses a build id (no normalization: uppercase is refused, not lowered).
    pub fn parse(text: &str) -> Result<BuildId, RecoveryError> {
        let bytes = text.as_bytes();
        let valid = matches!(bytes.first(), Some(b'a'..=b'z' | b'0'..=b'9'))
            && bytes.len() <= MAX_BUILD_ID_CHARS
            && bytes.iter().all(|b| matches!(b, b'a'..=b'z' | b'0'..=b'9' | b'.' | b'_' | b'-'));
        if valid {
            Ok(BuildId(text.to_owned()))
        } else {
            Err(RecoveryError::InvalidBuildId)
        }
    }

    /// The id text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for BuildId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// A retained build and when it was promoted to current.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RetainedBuild {
    pub id: BuildId,
    pub promoted_at_ms: u64,
}

/// Which retained builds stay and which may be deleted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RetentionPlan {
    /// The current build first, then kept predecessors, most recently promoted first.
    pub keep: Vec<BuildId>,
    pub delete: Vec<BuildId>,
}

/// Keeps `current` and the [`MAX_RETAINED_PREDECESSORS`] most recently promoted other builds
/// (ties: smaller id first), plus every build in `referenced` (a candidate, a snapshot's owner),
/// which is never deleted; the rest may be deleted. A build listed twice refuses the plan.
pub fn plan_retention(
    current: &BuildId,
    retained: &[RetainedBuild],
    referenced: &[BuildId],
) -> Result<RetentionPlan, RecoveryError> {
    for (index, build) in retained.iter().enumerate() {
        if retained[..index].iter().any(|earlier| earlier.id == build.id) {
            return Err(RecoveryError::DuplicateBuild);
        }
    }
    let mut predecessors: Vec<&RetainedBuild> = retained.iter().filter(|build| &build.id != current).collect();
    predecessors.sort_by(|a, b| b.promoted_at_ms.cmp(&a.promoted_at_ms).then_with(|| a.id.cmp(&b.id)));
    let mut plan = RetentionPlan { keep: vec![current.clone()], delete: Vec::new() };
    for (rank, build) in predecessors.into_iter().enumerate() {
        if rank < MAX_RETAINED_PREDECESSORS || referenced.contains(&build.id) {
            plan.keep.push(build.id.clone());
        } else {
            plan.delete.push(build.id.clone());
        }
    }
    Ok(plan)
}

/// What the launcher has observed of a candidate on probation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ProbationObservation {
    /// When the first attempt was launched; the deadline counts from here.
    pub started_at_ms: u64,
    pub now_ms: u64,
    /// Since when the current attempt has continuously reported renderer mounted, startup
    /// complete and server healthy; `None` until then or after any unhealthy report.
    pub healthy_since_ms: Option<u64>,
    /// Whether the current attempt's process is still running.
    pub candidate_running: bool,
    /// Attempts launched so far (1 or 2).
    pub attempts_started: u32,
}

/// Why a candidate is rolled back.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum RollbackReason {
    DeadlineExpired,
    CannotBecomeHealthyInTime,
    AttemptsExhausted,
    InvalidObservation,
}

/// The launcher's next step for a candidate on probation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProbationDecision {
    Promote,
    /// Nothing to do before this instant unless an observation changes.
    KeepWaiting {
        check_again_at_ms: u64,
    },
    /// The candidate exited early and one attempt with enough time remains.
    Relaunch,
    RollBack(RollbackReason),
}

/// Promotes a candidate healthy for [`PROBATION_HEALTHY_MS`] completed within
/// [`PROBATION_DEADLINE_MS`] of the first launch; rolls back as soon as that can no longer
/// happen; relaunches an exited candidate once while a full health window still fits.
/// Inconsistent observations (time before the start, health before the start or in the future,
/// an attempt count outside 1..=2) roll back.
pub fn decide_probation(observation: &ProbationObservation) -> ProbationDecision {
    let ProbationObservation { started_at_ms, now_ms, healthy_since_ms, candidate_running, attempts_started } =
        *observation;
    let invalid = ProbationDecision::RollBack(RollbackReason::InvalidObservation);
    let Some(deadline) = started_at_ms.checked_add(PROBATION_DEADLINE_MS) else {
        return invalid;
    };
    if now_ms < started_at_ms || !(1..=MAX_CANDIDATE_ATTEMPTS).contains(&attempts_started) {
        return invalid;
    }
    if healthy_since_ms.is_some_and(|since| since < started_at_ms || since > now_ms) {
        return invalid;
    }
    // Both sums are at most now_ms + 60 s, which cannot overflow once now_ms < deadline.
    let healthy_until = healthy_since_ms.map(|since| since.saturating_add(PROBATION_HEALTHY_MS));
    if candidate_running && healthy_until.is_some_and(|until| until <= now_ms && until <= deadline) {
        return ProbationDecision::Promote;
    }
    if now_ms >= deadline {
        return ProbationDecision::RollBack(RollbackReason::DeadlineExpired);
    }
    let fresh_window_ends = now_ms + PROBATION_HEALTHY_MS;
    if !candidate_running {
        return if attempts_started >= MAX_CANDIDATE_ATTEMPTS {
            ProbationDecision::RollBack(RollbackReason::AttemptsExhausted)
        } else if fresh_window_ends > deadline {
            ProbationDecision::RollBack(RollbackReason::CannotBecomeHealthyInTime)
        } else {
            ProbationDecision::Relaunch
        };
    }
    let earliest_promotion = healthy_until.unwrap_or(fresh_window_ends);
    if earliest_promotion > deadline {
        ProbationDecision::RollBack(RollbackReason::CannotBecomeHealthyInTime)
    } else {
        ProbationDecision::KeepWaiting { check_again_at_ms: earliest_promotion }
    }
}

/// The exact release a failed candidate came from: `v<version>@<commit>`. A later commit at the
/// same version is a different fingerprint.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ReleaseFingerprint {
    pub version: Version,
    pub commit: CommitSha,
}

impl ReleaseFingerprint {
    /// Parses `v<version>@<40 lowercase hex>`.
    pub fn parse(text: &str) -> Result<ReleaseFingerprint, RecoveryError> {
        let (tag, commit) = text.split_once('@').ok_or(RecoveryError::InvalidFingerprint)?;
        let version = Version::parse_tag(tag).map_err(|_| RecoveryError::InvalidFingerprint)?;
        let commit = CommitSha::parse_hex(commit).ok_or(RecoveryError::InvalidFingerprint)?;
        Ok(ReleaseFingerprint { version, commit })
    }
}

impl fmt::Display for ReleaseFingerprint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}@{}", self.version.tag(), self.commit)
    }
}

impl Serialize for ReleaseFingerprint {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

/// The releases whose candidates failed probation, oldest first, at most
/// [`MAX_QUARANTINED_RELEASES`]; update checks suppress exactly these.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[serde(transparent)]
pub struct QuarantineHistory {
    entries: Vec<ReleaseFingerprint>,
}

impl QuarantineHistory {
    /// An empty history.
    pub fn new() -> QuarantineHistory {
        QuarantineHistory::default()
    }

    /// A stored history, oldest first; refused whole when any entry is invalid or repeated, or
    /// when it is longer than the bound.
    pub fn from_entries<S: AsRef<str>>(entries: &[S]) -> Result<QuarantineHistory, RecoveryError> {
        if entries.len() > MAX_QUARANTINED_RELEASES {
            return Err(RecoveryError::QuarantineTooLong);
        }
        let mut history = QuarantineHistory::new();
        for entry in entries {
            let fingerprint = ReleaseFingerprint::parse(entry.as_ref())?;
            if history.entries.contains(&fingerprint) {
                return Err(RecoveryError::DuplicateFingerprint);
            }
            history.entries.push(fingerprint);
        }
        Ok(history)
    }

    /// Records a failed release as the newest entry, dropping the oldest beyond the bound.
    pub fn quarantine(&mut self, fingerprint: ReleaseFingerprint) {
        self.entries.retain(|entry| *entry != fingerprint);
        self.entries.push(fingerprint);
        if self.entries.len() > MAX_QUARANTINED_RELEASES {
            let excess = self.entries.len() - MAX_QUARANTINED_RELEASES;
            self.entries.drain(..excess);
        }
    }

    /// Whether this exact version and commit is quarantined.
    pub fn contains(&self, version: &Version, commit: &CommitSha) -> bool {
        self.entries.iter().any(|entry| entry.version == *version && entry.commit == *commit)
    }

    /// The entries, oldest first.
    pub fn entries(&self) -> &[ReleaseFingerprint] {
        &self.entries
    }
}

/// A staging directory's name: `v<version>-<uuid v4>` (lowercase, hyphenated).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct StagingDirName {
    pub version: Version,
    uuid: [u8; 16],
}

impl StagingDirName {
    /// A fresh name from 16 random bytes; the UUID version and variant bits are set here.
    pub fn from_random(version: Version, mut random: [u8; 16]) -> StagingDirName {
        random[6] = (random[6] & 0x0f) | 0x40;
        random[8] = (random[8] & 0x3f) | 0x80;
        StagingDirName { version, uuid: random }
    }

    /// Parses a directory name; only names this module formats are recognized.
    pub fn parse(name: &str) -> Result<StagingDirName, RecoveryError> {
        let invalid = RecoveryError::InvalidStagingName;
        let rest = name.strip_prefix('v').ok_or(invalid.clone())?;
        let (version, uuid) = rest.split_once('-').ok_or(invalid.clone())?;
        let version = Version::parse(version).map_err(|_| invalid.clone())?;
        let uuid = parse_uuid_v4(uuid).ok_or(invalid)?;
        Ok(StagingDirName { version, uuid })
    }
}

impl fmt::Display for StagingDirName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}-", self.version.tag())?;
        for (index, byte) in self.uuid.iter().enumerate() {
            if matches!(index, 4 | 6 | 8 | 10) {
                f.write_str("-")?;
            }
            write!(f, "{byte:02x}")?;
        }
        Ok(())
    }
}

fn parse_uuid_v4(text: &str) -> Option<[u8; 16]> {
    let bytes = text.as_bytes();
    if bytes.len() != 36 || [8, 13, 18, 23].iter().any(|&at| bytes[at] != b'-') {
        return None;
    }
    let hex: Vec<u8> = bytes.iter().copied().filter(|&b| b != b'-').collect();
    if hex.len() != 32 {
        return None;
    }
    let mut out = [0u8; 16];
    for (slot, pair) in out.iter_mut().zip(hex.chunks_exact(2)) {
        let high = char::from(pair[0]).to_digit(16).filter(|_| !pair[0].is_ascii_uppercase())?;
        let low = char::from(pair[1]).to_digit(16).filter(|_| !pair[1].is_ascii_uppercase())?;
        *slot = (high * 16 + low) as u8;
    }
    let is_v4 = out[6] >> 4 == 4 && out[8] >> 6 == 0b10;
    is_v4.then_some(out)
}

/// What to do with one entry of the updates directory.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StagingCleanup {
    /// A recognized staging directory, not in use, abandoned for 24 hours or more.
    Remove,
    /// Recognized but in use or recent (or stamped in the future).
    Keep,
    /// Not a name Relay creates: never touched.
    NotOurs,
}

/// The abandoned-staging rule: only a recognized `v<version>-<uuid v4>` directory other than
/// the `active` one, last modified at least [`STAGING_ABANDONED_AFTER_MS`] before `now_ms`, may
/// be removed.
pub fn staging_cleanup(
    name: &str,
    modified_at_ms: u64,
    now_ms: u64,
    active: Option<&StagingDirName>,
) -> StagingCleanup {
    let Ok(parsed) = StagingDirName::parse(name) else {
        return StagingCleanup::NotOurs;
    };
    if active == Some(&parsed) {
        return StagingCleanup::Keep;
    }
    match now_ms.checked_sub(modified_at_ms) {
        Some(age) if age >= STAGING_ABANDONED_AFTER_MS => StagingCleanup::Remove,
        _ => StagingCleanup::Keep,
    }
}

#[cfg(test)]
#[path = "recovery_tests.rs"]
mod tests;
