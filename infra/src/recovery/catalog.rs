//! The recovery catalog `recovery/catalog.json`, protocol 1: the `current` build, at most
//! [`MAX_RETAINED_PREDECESSORS`] healthy `predecessors` (most recently promoted first, each with
//! a strictly older promotion instant), at most one transaction-bound `candidate` (its build,
//! marker hash, UUID v4 transaction, the source build it replaces, the release fingerprint
//! `v<version>@<commit>`, launch attempts so far, and the snapshot it is bound to), and the
//! bounded `quarantine` history. Parsing is strict: unknown keys, duplicate keys, a build listed
//! twice, a malformed id, hash, transaction or fingerprint, a candidate not bound to the current
//! build, a quarantined candidate, too many attempts or a file over 64 KiB each make the whole
//! catalog invalid ("cannot prove the state"), and nothing is inferred from the rest of it.
//! [`write_catalog`] validates again and writes atomically (0600, fsync, rename, directory
//! fsync) only while the caller holds the [`RecoveryLock`].

use domain::updater::recovery::{MAX_CANDIDATE_ATTEMPTS, MAX_RETAINED_PREDECESSORS};
use domain::updater::{BuildId, QuarantineHistory, ReleaseFingerprint};
use serde::{Deserialize, Serialize};

use super::fsutil::{self, is_lower_hex};
use super::{ManagedRoot, RecoveryIoError, RecoveryLock};

/// The catalog format this launcher writes and accepts.
pub const CATALOG_PROTOCOL: u32 = 1;
/// The largest catalog accepted.
pub const MAX_CATALOG_BYTES: u64 = 64 * 1024;

/// An update transaction's id: a lowercase, hyphenated UUID v4.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct TransactionId(String);

impl TransactionId {
    /// A fresh random transaction id.
    pub fn fresh() -> TransactionId {
        let mut bytes = crate::ids::random_bytes(16);
        bytes[6] = (bytes[6] & 0x0f) | 0x40;
        bytes[8] = (bytes[8] & 0x3f) | 0x80;
        let hex = fsutil::hex(&bytes);
        TransactionId(format!("{}-{}-{}-{}-{}", &hex[..8], &hex[8..12], &hex[12..16], &hex[16..20], &hex[20..]))
    }

    /// Parses a lowercase hyphenated UUID v4; anything else is refused.
    pub fn parse(text: &str) -> Option<TransactionId> {
        let bytes = text.as_bytes();
        let shape = bytes.len() == 36
            && bytes.iter().enumerate().all(|(at, b)| match at {
                8 | 13 | 18 | 23 => *b == b'-',
                _ => matches!(b, b'0'..=b'9' | b'a'..=b'f'),
            });
        (shape && bytes[14] == b'4' && matches!(bytes[19], b'8' | b'9' | b'a' | b'b'))
            .then(|| TransactionId(text.into()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Display for TransactionId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct RawBuild {
    build: String,
    marker_sha512: String,
    promoted_at_ms: u64,
}

#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct RawCandidate {
    build: String,
    marker_sha512: String,
    transaction: String,
    source_build: String,
    release: String,
    attempts: u32,
    snapshot: Option<String>,
}

#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct RawCatalog {
    protocol: u32,
    current: RawBuild,
    predecessors: Vec<RawBuild>,
    candidate: Option<RawCandidate>,
    quarantine: Vec<String>,
}

/// A promoted build: its id, its marker's SHA-512 and when it was promoted (ms since the epoch).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CatalogBuild {
    pub build: BuildId,
    pub marker_sha512: String,
    pub promoted_at_ms: u64,
}

/// The one candidate of an update transaction.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Candidate {
    pub build: BuildId,
    pub marker_sha512: String,
    pub transaction: TransactionId,
    /// The build that was current when the candidate was installed; rollback resumes it.
    pub source_build: BuildId,
    pub release: ReleaseFingerprint,
    /// Launches so far (0 until the first start, at most [`MAX_CANDIDATE_ATTEMPTS`]).
    pub attempts: u32,
    /// The data snapshot taken before the first launch (named by the transaction).
    pub snapshot: Option<TransactionId>,
}

/// A validated catalog.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Catalog {
    pub current: CatalogBuild,
    pub predecessors: Vec<CatalogBuild>,
    pub candidate: Option<Candidate>,
    pub quarantine: QuarantineHistory,
}

fn invalid(reason: &'static str) -> RecoveryIoError {
    RecoveryIoError::InvalidCatalog(reason)
}

fn build_id(text: &str) -> Result<BuildId, RecoveryIoError> {
    BuildId::parse(text).map_err(|_| invalid("build_id"))
}

fn marker_hash(text: String) -> Result<String, RecoveryIoError> {
    if is_lower_hex(&text, 128) {
        Ok(text)
    } else {
        Err(invalid("marker_sha512"))
    }
}

fn build(raw: RawBuild) -> Result<CatalogBuild, RecoveryIoError> {
    Ok(CatalogBuild {
        build: build_id(&raw.build)?,
        marker_sha512: marker_hash(raw.marker_sha512)?,
        promoted_at_ms: raw.promoted_at_ms,
    })
}

fn raw_build(build: &CatalogBuild) -> RawBuild {
    RawBuild {
        build: build.build.to_string(),
        marker_sha512: build.marker_sha512.clone(),
        promoted_at_ms: build.promoted_at_ms,
    }
}

impl Catalog {
    /// A catalog with only `current`.
    pub fn with_current(current: CatalogBuild) -> Catalog {
        Catalog { current, predecessors: Vec::new(), candidate: None, quarantine: QuarantineHistory::new() }
    }

    /// Parses and validates stored bytes.
    pub fn parse(bytes: &[u8]) -> Result<Catalog, RecoveryIoError> {
        if bytes.len() as u64 > MAX_CATALOG_BYTES {
            return Err(invalid("too_large"));
        }
        let raw: RawCatalog = serde_json::from_slice(bytes).map_err(|_| invalid("json"))?;
        if raw.protocol != CATALOG_PROTOCOL {
            return Err(invalid("protocol"));
        }
        let candidate = match raw.candidate {
            None => None,
            Some(raw) => Some(Candidate {
                build: build_id(&raw.build)?,
                marker_sha512: marker_hash(raw.marker_sha512)?,
                transaction: TransactionId::parse(&raw.transaction).ok_or(invalid("transaction"))?,
                source_build: build_id(&raw.source_build)?,
                release: ReleaseFingerprint::parse(&raw.release).map_err(|_| invalid("release"))?,
                attempts: raw.attempts,
                snapshot: match raw.snapshot {
                    None => None,
                    Some(text) => Some(TransactionId::parse(&text).ok_or(invalid("snapshot"))?),
                },
            }),
        };
        let catalog = Catalog {
            current: build(raw.current)?,
            predecessors: raw.predecessors.into_iter().map(build).collect::<Result<_, _>>()?,
            candidate,
            quarantine: QuarantineHistory::from_entries(&raw.quarantine).map_err(|_| invalid("quarantine"))?,
        };
        catalog.validate()?;
        Ok(catalog)
    }

    /// The cross-field rules (also checked before every write).
    pub fn validate(&self) -> Result<(), RecoveryIoError> {
        if self.predecessors.len() > MAX_RETAINED_PREDECESSORS {
            return Err(invalid("too_many_predecessors"));
        }
        let builds = self.referenced_builds();
        if builds.iter().enumerate().any(|(at, build)| builds[..at].contains(build)) {
            return Err(invalid("duplicate_build"));
        }
        let mut newer = self.current.promoted_at_ms;
        for predecessor in &self.predecessors {
            if predecessor.promoted_at_ms >= newer {
                return Err(invalid("promotion_order"));
            }
            newer = predecessor.promoted_at_ms;
        }
        if let Some(candidate) = &self.candidate {
            if candidate.source_build != self.current.build {
                return Err(invalid("candidate_source"));
            }
            if candidate.attempts > MAX_CANDIDATE_ATTEMPTS {
                return Err(invalid("candidate_attempts"));
            }
            if candidate.snapshot.as_ref().is_some_and(|snapshot| *snapshot != candidate.transaction) {
                return Err(invalid("candidate_snapshot"));
            }
            if self.quarantine.contains(&candidate.release.version, &candidate.release.commit) {
                return Err(invalid("candidate_quarantined"));
            }
        }
        Ok(())
    }

    /// Current, predecessors, then the candidate: every build the catalog references.
    pub fn referenced_builds(&self) -> Vec<&BuildId> {
        let mut builds = vec![&self.current.build];
        builds.extend(self.predecessors.iter().map(|p| &p.build));
        builds.extend(self.candidate.iter().map(|c| &c.build));
        builds
    }

    /// The stored form (protocol 1, pretty JSON).
    pub fn to_json(&self) -> Vec<u8> {
        let raw = RawCatalog {
            protocol: CATALOG_PROTOCOL,
            current: raw_build(&self.current),
            predecessors: self.predecessors.iter().map(raw_build).collect(),
            candidate: self.candidate.as_ref().map(|c| RawCandidate {
                build: c.build.to_string(),
                marker_sha512: c.marker_sha512.clone(),
                transaction: c.transaction.to_string(),
                source_build: c.source_build.to_string(),
                release: c.release.to_string(),
                attempts: c.attempts,
                snapshot: c.snapshot.as_ref().map(ToString::to_string),
            }),
            quarantine: self.quarantine.entries().iter().map(ToString::to_string).collect(),
        };
        serde_json::to_vec_pretty(&raw).expect("a catalog serializes")
    }
}

/// Reads `recovery/catalog.json`: `Ok(None)` when absent, an error when unsafe or invalid.
pub fn read_catalog(root: &ManagedRoot) -> Result<Option<Catalog>, RecoveryIoError> {
    fsutil::read_bounded(&root.catalog_path(), MAX_CATALOG_BYTES)?.map(|bytes| Catalog::parse(&bytes)).transpose()
}

/// Validates `catalog` and activates it atomically; the lock proves exclusive mutation.
/// Fault points `recovery:catalog:before-rename` and `recovery:catalog:after-rename`.
pub fn write_catalog(root: &ManagedRoot, lock: &RecoveryLock, catalog: &Catalog) -> Result<(), RecoveryIoError> {
    write_catalog_at(root, lock, catalog, "recovery:catalog")
}

/// [`write_catalog`] with the fault point prefix of the transition step writing it
/// (`recovery:catalog-<step>:before-rename` and `...:after-rename`).
pub(crate) fn write_catalog_at(
    root: &ManagedRoot,
    _lock: &RecoveryLock,
    catalog: &Catalog,
    fault: &str,
) -> Result<(), RecoveryIoError> {
    catalog.validate()?;
    fsutil::write_atomic(&root.catalog_path(), &catalog.to_json(), 0o600, fault)
}

#[cfg(test)]
#[path = "catalog_tests.rs"]
mod tests;
