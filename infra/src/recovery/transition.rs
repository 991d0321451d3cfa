//! The catalog transitions of one update transaction and what the launcher does at start.
//!
//! - [`bootstrap`]: no catalog and no intent yet: exactly one runtime directory with a valid
//!   marker whose executable verifies becomes `current`; anything else is refused.
//! - [`check_disk`]: `runtimes/` and `recovery/snapshots/` hold only what the catalog (and a
//!   pending intent) references, plus recognized `.partial-*`/`.trash-*` leftovers; an
//!   unreferenced build or snapshot, a link or a stray file makes the state unprovable.
//! - [`cleanup_leftovers`]: after `check_disk`, removes those leftovers, and a snapshot named by
//!   the candidate's transaction that the catalog has not recorded yet (an interrupted take).
//! - [`promote`]: intent, then each build `plan_retention` drops is renamed to `.trash-*`, then
//!   the terminal catalog (candidate → current, old current → newest predecessor), then the
//!   trash and the snapshot go, then the intent.
//! - [`roll_back`]: intent, then the data snapshot is restored (journaled), the candidate's
//!   runtime renamed to `.trash-*`, the terminal catalog (candidate gone, the release
//!   quarantined unless the outcome is `discard`) activated, the restore finished, the snapshot
//!   and trash removed, then the intent.
//! - [`reconcile`], first thing at every start. No intent: nothing (a restore journal without
//!   one cannot be explained and is refused). An intent whose transaction is still the catalog's
//!   candidate, bound to the same source, target and release ("pre-state"): the decided outcome
//!   is carried out again from the start (every step is idempotent), except that a promotion
//!   whose target no longer verifies is discarded, leaving the candidate to fail normally. An
//!   intent whose terminal catalog is already active (promote: target current and source the
//!   newest predecessor; rollback/discard: source current, no candidate, and for a rollback the
//!   release quarantined): the cleanup is finished and the intent removed. Anything else cannot
//!   be proved and is refused, touching nothing.
//!
//! Every step passes debug-only fault points (`recovery:<transition>:<step>`) for kill tests.

use std::fs;
use std::path::Path;

use domain::updater::{plan_retention, BuildId, RetainedBuild};

use super::catalog::{read_catalog, write_catalog_at, Catalog, CatalogBuild};
use super::marker::{read_marker, verify_runtime};
use super::restore::{finish_restore, pending_restore, restore_snapshot};
use super::settlement::{read_settlement, remove_settlement, write_settlement, Outcome, Settlement};
use super::snapshot::{take_snapshot, SnapshotManifest, SpaceProbe};
use super::{fsutil, io_step, ManagedRoot, RecoveryIoError, RecoveryLock, TransactionId};

fn fault(name: &str) {
    crate::fault::fault_point(name);
}

/// Creates the first catalog from the one verified runtime present (see the module paragraph).
pub fn bootstrap(root: &ManagedRoot, lock: &RecoveryLock, now_ms: u64) -> Result<Catalog, RecoveryIoError> {
    if read_catalog(root)?.is_some() || read_settlement(root)?.is_some() {
        return Err(RecoveryIoError::NoCatalog);
    }
    let mut builds = Vec::new();
    for entry in fs::read_dir(root.runtimes_dir()).map_err(io_step("list_runtimes"))? {
        let name = entry.map_err(io_step("list_runtimes"))?.file_name();
        let name = name.to_str().ok_or(RecoveryIoError::NoCatalog)?;
        if !fsutil::is_leftover(name) {
            builds.push(BuildId::parse(name).map_err(|_| RecoveryIoError::NoCatalog)?);
        }
    }
    let [build] = builds.as_slice() else { return Err(RecoveryIoError::NoCatalog) };
    let (marker_sha512, _) = read_marker(root, build)?.ok_or(RecoveryIoError::NoCatalog)?;
    verify_runtime(root, build, &marker_sha512)?;
    let catalog = Catalog::with_current(CatalogBuild { build: build.clone(), marker_sha512, promoted_at_ms: now_ms });
    write_catalog_at(root, lock, &catalog, "recovery:catalog-bootstrap")?;
    Ok(catalog)
}

/// Proves that the runtime and snapshot directories hold nothing the catalog does not explain.
pub fn check_disk(root: &ManagedRoot, catalog: &Catalog, intent: Option<&Settlement>) -> Result<(), RecoveryIoError> {
    let referenced = catalog.referenced_builds();
    for entry in fs::read_dir(root.runtimes_dir()).map_err(io_step("list_runtimes"))? {
        let entry = entry.map_err(io_step("list_runtimes"))?;
        let name = entry.file_name();
        let name = name.to_str().ok_or(RecoveryIoError::InvalidCatalog("unreferenced_runtime"))?;
        fsutil::check_private_dir(&entry.path())?;
        let known = BuildId::parse(name).is_ok_and(|build| referenced.contains(&&build));
        if !known && !fsutil::is_leftover(name) {
            return Err(RecoveryIoError::InvalidCatalog("unreferenced_runtime"));
        }
    }
    let candidate_txn = catalog.candidate.as_ref().map(|c| &c.transaction);
    for entry in fs::read_dir(root.snapshots_dir()).map_err(io_step("list_snapshots"))? {
        let entry = entry.map_err(io_step("list_snapshots"))?;
        let name = entry.file_name();
        let name = name.to_str().ok_or(RecoveryIoError::InvalidCatalog("unreferenced_snapshot"))?;
        fsutil::check_private_dir(&entry.path())?;
        let txn = TransactionId::parse(name);
        let known = txn
            .as_ref()
            .is_some_and(|txn| candidate_txn == Some(txn) || intent.is_some_and(|intent| intent.transaction == *txn));
        if !known && !fsutil::is_leftover(name) {
            return Err(RecoveryIoError::InvalidCatalog("unreferenced_snapshot"));
        }
    }
    Ok(())
}

/// Removes recognized leftovers and an unrecorded snapshot of the candidate (call after
/// [`check_disk`] with no intent pending).
pub fn cleanup_leftovers(root: &ManagedRoot, _lock: &RecoveryLock, catalog: &Catalog) -> Result<(), RecoveryIoError> {
    check_disk(root, catalog, None)?;
    for dir in [root.runtimes_dir(), root.snapshots_dir()] {
        for entry in fs::read_dir(&dir).map_err(io_step("list_leftovers"))? {
            let entry = entry.map_err(io_step("list_leftovers"))?;
            let name = entry.file_name().to_string_lossy().into_owned();
            let unrecorded = catalog
                .candidate
                .as_ref()
                .is_some_and(|c| c.snapshot.is_none() && c.transaction.as_str() == name && dir == root.snapshots_dir());
            if fsutil::is_leftover(&name) || unrecorded {
                fsutil::remove_tree(&entry.path())?;
            }
        }
    }
    for entry in fs::read_dir(root.recovery_dir()).map_err(io_step("list_recovery"))? {
        let entry = entry.map_err(io_step("list_recovery"))?;
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.starts_with('.') && name.contains(".tmp-") {
            fsutil::remove_file(&entry.path())?;
        }
    }
    Ok(())
}

/// Renames `runtimes/<build>` to a `.trash-*` name (absent is fine) so the catalog can stop
/// referencing it without leaving an unreferenced build directory behind.
fn trash_runtime(root: &ManagedRoot, build: &BuildId) -> Result<(), RecoveryIoError> {
    let dir = root.runtime_dir(build);
    if fsutil::check_private_dir(&dir)? {
        fsutil::rename_noreplace(&dir, &root.runtimes_dir().join(fsutil::leftover_name(fsutil::TRASH_PREFIX)))?;
    }
    Ok(())
}

fn remove_trash_and_snapshot(root: &ManagedRoot, transaction: &TransactionId) -> Result<(), RecoveryIoError> {
    fsutil::remove_tree(&root.snapshot_dir(transaction))?;
    for entry in fs::read_dir(root.runtimes_dir()).map_err(io_step("list_runtimes"))? {
        let entry = entry.map_err(io_step("list_runtimes"))?;
        if fsutil::is_leftover(&entry.file_name().to_string_lossy()) {
            fsutil::remove_tree(&entry.path())?;
        }
    }
    Ok(())
}

/// Records one more launch of the candidate (before the launch).
pub fn record_attempt(root: &ManagedRoot, lock: &RecoveryLock, catalog: &Catalog) -> Result<Catalog, RecoveryIoError> {
    let mut next = catalog.clone();
    let candidate = next.candidate.as_mut().ok_or(RecoveryIoError::InvalidCatalog("no_candidate"))?;
    candidate.attempts += 1;
    write_catalog_at(root, lock, &next, "recovery:catalog-attempt")?;
    Ok(next)
}

/// Takes the data snapshot for the candidate and records it in the catalog.
pub fn snapshot_for_candidate(
    root: &ManagedRoot,
    lock: &RecoveryLock,
    catalog: &Catalog,
    data_dir: &Path,
    probe: SpaceProbe<'_>,
) -> Result<(Catalog, SnapshotManifest), RecoveryIoError> {
    let mut next = catalog.clone();
    let candidate = next.candidate.as_mut().ok_or(RecoveryIoError::InvalidCatalog("no_candidate"))?;
    let manifest = take_snapshot(root, lock, data_dir, &candidate.transaction, probe)?;
    candidate.snapshot = Some(candidate.transaction.clone());
    write_catalog_at(root, lock, &next, "recovery:catalog-snapshot")?;
    Ok((next, manifest))
}

fn intent_for(catalog: &Catalog, outcome: Outcome) -> Result<Settlement, RecoveryIoError> {
    let candidate = catalog.candidate.as_ref().ok_or(RecoveryIoError::InvalidCatalog("no_candidate"))?;
    Ok(Settlement {
        transaction: candidate.transaction.clone(),
        source: catalog.current.build.clone(),
        target: candidate.build.clone(),
        release: candidate.release,
        outcome,
    })
}

/// The catalog after promoting the candidate, and the builds retention drops.
fn promoted(pre: &Catalog, now_ms: u64) -> Result<(Catalog, Vec<BuildId>), RecoveryIoError> {
    let candidate = pre.candidate.as_ref().ok_or(RecoveryIoError::InvalidCatalog("no_candidate"))?;
    let current = CatalogBuild {
        build: candidate.build.clone(),
        marker_sha512: candidate.marker_sha512.clone(),
        promoted_at_ms: now_ms.max(pre.current.promoted_at_ms + 1),
    };
    let mut known: Vec<CatalogBuild> = vec![pre.current.clone()];
    known.extend(pre.predecessors.iter().cloned());
    let retained: Vec<RetainedBuild> =
        known.iter().map(|b| RetainedBuild { id: b.build.clone(), promoted_at_ms: b.promoted_at_ms }).collect();
    let plan = plan_retention(&current.build, &retained, &[])
        .map_err(|_| RecoveryIoError::InvalidCatalog("duplicate_build"))?;
    let predecessors = plan.keep[1..]
        .iter()
        .map(|id| known.iter().find(|b| &b.build == id).cloned().expect("a kept build is known"))
        .collect();
    let next = Catalog { current, predecessors, candidate: None, quarantine: pre.quarantine.clone() };
    Ok((next, plan.delete))
}

/// Promotes the catalog's candidate (see the module paragraph); returns the terminal catalog.
pub fn promote(
    root: &ManagedRoot,
    lock: &RecoveryLock,
    pre: &Catalog,
    now_ms: u64,
) -> Result<Catalog, RecoveryIoError> {
    let intent = intent_for(pre, Outcome::Promote)?;
    write_settlement(root, lock, &intent)?;
    finish_promote(root, lock, pre, &intent, now_ms)
}

fn finish_promote(
    root: &ManagedRoot,
    lock: &RecoveryLock,
    pre: &Catalog,
    intent: &Settlement,
    now_ms: u64,
) -> Result<Catalog, RecoveryIoError> {
    let (terminal, dropped) = promoted(pre, now_ms)?;
    for build in &dropped {
        trash_runtime(root, build)?;
    }
    fault("recovery:promote:after-trash");
    write_catalog_at(root, lock, &terminal, "recovery:catalog-promote")?;
    fault("recovery:promote:after-catalog");
    remove_trash_and_snapshot(root, &intent.transaction)?;
    fault("recovery:promote:after-cleanup");
    remove_settlement(root, lock)?;
    Ok(terminal)
}

/// Rolls the candidate back (`Outcome::Rollback`, quarantining its release) or discards it
/// (`Outcome::Discard`); returns the terminal catalog.
pub fn roll_back(
    root: &ManagedRoot,
    lock: &RecoveryLock,
    pre: &Catalog,
    data_dir: &Path,
    outcome: Outcome,
) -> Result<Catalog, RecoveryIoError> {
    if outcome == Outcome::Promote {
        return Err(RecoveryIoError::InvalidSettlement("outcome"));
    }
    let intent = intent_for(pre, outcome)?;
    write_settlement(root, lock, &intent)?;
    finish_rollback(root, lock, pre, &intent, data_dir)
}

fn finish_rollback(
    root: &ManagedRoot,
    lock: &RecoveryLock,
    pre: &Catalog,
    intent: &Settlement,
    data_dir: &Path,
) -> Result<Catalog, RecoveryIoError> {
    let candidate = pre.candidate.as_ref().ok_or(RecoveryIoError::InvalidCatalog("no_candidate"))?;
    if let Some(snapshot) = &candidate.snapshot {
        restore_snapshot(root, lock, data_dir, snapshot, &intent.source)?;
    }
    fault("recovery:rollback:after-restore");
    trash_runtime(root, &candidate.build)?;
    fault("recovery:rollback:after-trash");
    let mut terminal = pre.clone();
    terminal.candidate = None;
    if intent.outcome == Outcome::Rollback {
        terminal.quarantine.quarantine(intent.release);
    }
    write_catalog_at(root, lock, &terminal, "recovery:catalog-rollback")?;
    fault("recovery:rollback:after-catalog");
    finish_rollback_cleanup(root, lock, &terminal, intent, data_dir)?;
    Ok(terminal)
}

fn finish_rollback_cleanup(
    root: &ManagedRoot,
    lock: &RecoveryLock,
    terminal: &Catalog,
    intent: &Settlement,
    data_dir: &Path,
) -> Result<(), RecoveryIoError> {
    finish_restore(root, lock, data_dir, terminal)?;
    fault("recovery:rollback:after-restore-cleanup");
    remove_trash_and_snapshot(root, &intent.transaction)?;
    fault("recovery:rollback:after-cleanup");
    remove_settlement(root, lock)
}

/// What [`reconcile`] found and did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reconciled {
    /// No intent was pending.
    Nothing,
    /// The pre-state was found and the intent's outcome carried out.
    Finished(Outcome),
    /// The terminal catalog was already active; its cleanup was finished.
    Cleaned(Outcome),
    /// A promotion whose target no longer verifies: the intent was removed, the candidate kept.
    DiscardedPromotion,
}

/// Settles an interrupted transaction at start (see the module paragraph).
pub fn reconcile(
    root: &ManagedRoot,
    lock: &RecoveryLock,
    data_dir: &Path,
    now_ms: u64,
) -> Result<Reconciled, RecoveryIoError> {
    let Some(intent) = read_settlement(root)? else {
        if pending_restore(root)?.is_some() {
            return Err(RecoveryIoError::InvalidSettlement("restore_without_intent"));
        }
        return Ok(Reconciled::Nothing);
    };
    let catalog = read_catalog(root)?.ok_or(RecoveryIoError::InvalidSettlement("no_catalog"))?;
    check_disk(root, &catalog, Some(&intent))?;
    if pending_restore(root)?.is_some_and(|txn| txn != intent.transaction) {
        return Err(RecoveryIoError::InvalidSettlement("restore_mismatch"));
    }
    let pre_state = catalog.candidate.as_ref().is_some_and(|c| {
        c.transaction == intent.transaction
            && c.build == intent.target
            && c.release == intent.release
            && catalog.current.build == intent.source
    });
    if pre_state {
        return match intent.outcome {
            Outcome::Promote => {
                let candidate = catalog.candidate.as_ref().expect("pre-state has a candidate");
                if verify_runtime(root, &candidate.build, &candidate.marker_sha512).is_err() {
                    remove_settlement(root, lock)?;
                    return Ok(Reconciled::DiscardedPromotion);
                }
                finish_promote(root, lock, &catalog, &intent, now_ms)?;
                Ok(Reconciled::Finished(Outcome::Promote))
            }
            outcome => {
                finish_rollback(root, lock, &catalog, &intent, data_dir)?;
                Ok(Reconciled::Finished(outcome))
            }
        };
    }
    if catalog.candidate.is_some() {
        return Err(RecoveryIoError::InvalidSettlement("mismatch"));
    }
    match intent.outcome {
        Outcome::Promote
            if catalog.current.build == intent.target
                && catalog.predecessors.first().is_some_and(|p| p.build == intent.source) =>
        {
            remove_trash_and_snapshot(root, &intent.transaction)?;
            remove_settlement(root, lock)?;
            Ok(Reconciled::Cleaned(Outcome::Promote))
        }
        Outcome::Rollback | Outcome::Discard
            if catalog.current.build == intent.source
                && (intent.outcome == Outcome::Discard
                    || catalog.quarantine.contains(&intent.release.version, &intent.release.commit)) =>
        {
            finish_rollback_cleanup(root, lock, &catalog, &intent, data_dir)?;
            Ok(Reconciled::Cleaned(intent.outcome))
        }
        _ => Err(RecoveryIoError::InvalidSettlement("mismatch")),
    }
}

#[cfg(test)]
#[path = "transition_tests.rs"]
mod tests;
