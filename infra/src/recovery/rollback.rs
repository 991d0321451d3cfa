//! Manual rollback to a retained build (issue #14 item 5) and what the desktop may read of the
//! recovery state. The desktop, after the Owner's freshly reauthenticated approval, calls
//! [`request_rollback`] under the recovery lock: the request `recovery/rollback-request.json`
//! names the current build (its source), one retained predecessor (its target) and when it was
//! made, and is written only when [`check_rollback`] passes (no candidate pending, the target is
//! a predecessor whose runtime verifies, and both data epochs of its marker equal the current
//! build's, so the older build can read today's data unchanged). The desktop then exits into the
//! launcher, which calls [`apply_rollback_request`] at its next start, after reconciliation and
//! before any candidate: it re-checks everything (the source must still be current and the
//! request at most [`ROLLBACK_REQUEST_MAX_AGE_MS`] old), activates one catalog (target current,
//! the old current its newest predecessor; nothing deleted, nothing quarantined, data untouched)
//! and removes the request. Any request that does not pass is removed without effect: a request
//! can only pick among builds the catalog already trusts. [`recovery_overview`] answers the
//! retained builds with their markers' version and commit, for Settings → About; it reads
//! markers, not executables.

use domain::updater::BuildId;
use serde::{Deserialize, Serialize};

use super::catalog::{read_catalog, write_catalog_at, Catalog, CatalogBuild};
use super::marker::{read_marker, verify_runtime, DataEpochs};
use super::{fsutil, ManagedRoot, RecoveryIoError, RecoveryLock};

/// How long a written request stays valid (the desktop exits into the launcher at once).
pub const ROLLBACK_REQUEST_MAX_AGE_MS: u64 = 10 * 60 * 1_000;
/// How far in the future a request's time may lie (clock adjustments).
const FUTURE_SKEW_MS: u64 = 60 * 1_000;
const REQUEST_PROTOCOL: u32 = 1;
const MAX_REQUEST_BYTES: u64 = 1024;

#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct RawRequest {
    protocol: u32,
    source_build: String,
    target_build: String,
    requested_at_ms: u64,
}

/// A validated rollback request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RollbackRequest {
    pub source: BuildId,
    pub target: BuildId,
    pub requested_at_ms: u64,
}

impl RollbackRequest {
    pub fn parse(bytes: &[u8]) -> Result<RollbackRequest, RecoveryIoError> {
        let invalid = || RecoveryIoError::RollbackRefused("invalid_request");
        let raw: RawRequest = serde_json::from_slice(bytes).map_err(|_| invalid())?;
        if raw.protocol != REQUEST_PROTOCOL {
            return Err(invalid());
        }
        Ok(RollbackRequest {
            source: BuildId::parse(&raw.source_build).map_err(|_| invalid())?,
            target: BuildId::parse(&raw.target_build).map_err(|_| invalid())?,
            requested_at_ms: raw.requested_at_ms,
        })
    }

    pub fn to_json(&self) -> Vec<u8> {
        let raw = RawRequest {
            protocol: REQUEST_PROTOCOL,
            source_build: self.source.to_string(),
            target_build: self.target.to_string(),
            requested_at_ms: self.requested_at_ms,
        };
        serde_json::to_vec_pretty(&raw).expect("a request serializes")
    }
}

fn refused(reason: &'static str) -> RecoveryIoError {
    RecoveryIoError::RollbackRefused(reason)
}

fn epochs_of(root: &ManagedRoot, build: &CatalogBuild) -> Result<DataEpochs, RecoveryIoError> {
    let (marker_sha512, marker) = read_marker(root, &build.build)?.ok_or(RecoveryIoError::RuntimeMismatch)?;
    if marker_sha512 != build.marker_sha512 {
        return Err(RecoveryIoError::RuntimeMismatch);
    }
    Ok(marker.data_epochs)
}

/// Whether `catalog` allows a manual rollback to `target`; answers the target's entry. Re-hashes
/// the target's executable.
pub fn check_rollback<'a>(
    root: &ManagedRoot,
    catalog: &'a Catalog,
    target: &BuildId,
) -> Result<&'a CatalogBuild, RecoveryIoError> {
    if catalog.candidate.is_some() {
        return Err(refused("candidate_pending"));
    }
    let entry = catalog.predecessors.iter().find(|p| &p.build == target).ok_or(refused("not_retained"))?;
    verify_runtime(root, &entry.build, &entry.marker_sha512).map_err(|_| refused("target_unusable"))?;
    if epochs_of(root, entry)? != epochs_of(root, &catalog.current)? {
        return Err(refused("data_epoch_mismatch"));
    }
    Ok(entry)
}

/// Writes the request for a rollback from the current build to `target` (see the module
/// paragraph). Fault points `recovery:rollback-request:{before,after}-rename`.
pub fn request_rollback(
    root: &ManagedRoot,
    _lock: &RecoveryLock,
    target: &BuildId,
    now_ms: u64,
) -> Result<RollbackRequest, RecoveryIoError> {
    let catalog = read_catalog(root)?.ok_or(RecoveryIoError::NoCatalog)?;
    check_rollback(root, &catalog, target)?;
    let request =
        RollbackRequest { source: catalog.current.build.clone(), target: target.clone(), requested_at_ms: now_ms };
    fsutil::write_atomic(&root.rollback_request_path(), &request.to_json(), 0o600, "recovery:rollback-request")?;
    Ok(request)
}

/// What [`apply_rollback_request`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RollbackApplied {
    /// No request was waiting.
    NoRequest,
    /// The target is current now (the new catalog).
    Applied(Box<Catalog>),
    /// The request was removed without effect (the refusal's reason).
    Discarded(&'static str),
}

/// Carries out a waiting request if it still passes every check; removes it in every case.
/// Fault points `recovery:catalog-manual-rollback:{before,after}-rename` and
/// `recovery:rollback-request:after-apply`.
pub fn apply_rollback_request(
    root: &ManagedRoot,
    lock: &RecoveryLock,
    catalog: &Catalog,
    now_ms: u64,
) -> Result<RollbackApplied, RecoveryIoError> {
    let path = root.rollback_request_path();
    let Some(bytes) = fsutil::read_bounded(&path, MAX_REQUEST_BYTES)? else { return Ok(RollbackApplied::NoRequest) };
    let decided = decide(root, catalog, &bytes, now_ms);
    let applied = match decided {
        Ok(next) => {
            write_catalog_at(root, lock, &next, "recovery:catalog-manual-rollback")?;
            crate::fault::fault_point("recovery:rollback-request:after-apply");
            RollbackApplied::Applied(Box::new(next))
        }
        Err(RecoveryIoError::RollbackRefused(reason)) => RollbackApplied::Discarded(reason),
        Err(RecoveryIoError::RuntimeMismatch | RecoveryIoError::InvalidMarker(_)) => {
            RollbackApplied::Discarded("current_unusable")
        }
        Err(other) => return Err(other),
    };
    fsutil::remove_file(&path)?;
    Ok(applied)
}

fn decide(root: &ManagedRoot, catalog: &Catalog, bytes: &[u8], now_ms: u64) -> Result<Catalog, RecoveryIoError> {
    let request = RollbackRequest::parse(bytes)?;
    if request.source != catalog.current.build {
        return Err(refused("source_changed"));
    }
    let age_ok = request.requested_at_ms <= now_ms.saturating_add(FUTURE_SKEW_MS)
        && now_ms.saturating_sub(request.requested_at_ms) <= ROLLBACK_REQUEST_MAX_AGE_MS;
    if !age_ok {
        return Err(refused("request_expired"));
    }
    let target = check_rollback(root, catalog, &request.target)?.clone();
    Ok(rolled_back_to(catalog, target, now_ms))
}

/// The catalog with `target` (a predecessor) current and the old current its newest
/// predecessor; the other predecessors keep their order.
fn rolled_back_to(catalog: &Catalog, target: CatalogBuild, now_ms: u64) -> Catalog {
    let current = CatalogBuild { promoted_at_ms: now_ms.max(catalog.current.promoted_at_ms + 1), ..target };
    let mut predecessors = vec![catalog.current.clone()];
    predecessors.extend(catalog.predecessors.iter().filter(|p| p.build != current.build).cloned());
    Catalog { current, predecessors, candidate: None, quarantine: catalog.quarantine.clone() }
}

/// One retained build as Settings → About shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RetainedBuildView {
    pub build: String,
    pub version: String,
    pub commit: String,
    pub promoted_at_ms: u64,
    /// `current` for the current build; for a predecessor `available`, or why not:
    /// `data_epoch_mismatch`, `marker_unusable`.
    pub rollback: &'static str,
}

/// The recovery state the desktop may show.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RecoveryOverview {
    pub current: RetainedBuildView,
    pub predecessors: Vec<RetainedBuildView>,
    pub candidate_pending: bool,
    pub rollback_requested: bool,
    pub quarantined_releases: usize,
}

fn view(root: &ManagedRoot, build: &CatalogBuild, current: Option<DataEpochs>) -> RetainedBuildView {
    let marker = read_marker(root, &build.build).ok().flatten().filter(|(sha, _)| *sha == build.marker_sha512);
    let (version, commit, rollback) = match (&marker, current) {
        (None, _) => (String::new(), String::new(), "marker_unusable"),
        (Some((_, m)), Some(epochs)) if m.data_epochs != epochs => {
            (m.version.clone(), m.commit.clone(), "data_epoch_mismatch")
        }
        (Some((_, m)), _) => (m.version.clone(), m.commit.clone(), "available"),
    };
    RetainedBuildView {
        build: build.build.to_string(),
        version,
        commit,
        promoted_at_ms: build.promoted_at_ms,
        rollback,
    }
}

/// The catalog's builds with their markers' facts; `Ok(None)` without a catalog.
pub fn recovery_overview(root: &ManagedRoot) -> Result<Option<RecoveryOverview>, RecoveryIoError> {
    let Some(catalog) = read_catalog(root)? else { return Ok(None) };
    let current_epochs = epochs_of(root, &catalog.current).ok();
    let current = RetainedBuildView { rollback: "current", ..view(root, &catalog.current, None) };
    let predecessors = catalog
        .predecessors
        .iter()
        .map(|p| {
            let mut seen = view(root, p, current_epochs);
            if current_epochs.is_none() && seen.rollback == "available" {
                seen.rollback = "marker_unusable";
            }
            seen
        })
        .collect();
    Ok(Some(RecoveryOverview {
        current,
        predecessors,
        candidate_pending: catalog.candidate.is_some(),
        rollback_requested: fsutil::read_bounded(&root.rollback_request_path(), MAX_REQUEST_BYTES)?.is_some(),
        quarantined_releases: catalog.quarantine.entries().len(),
    }))
}

#[cfg(test)]
#[path = "rollback_tests.rs"]
mod tests;
