//! One launcher run. Under the recovery lock: `reconcile` an interrupted settlement, read the
//! catalog (or, on a first start, install the packaged seed build when there is one and no
//! runtime yet, then bootstrap the first catalog from the only runtime present), prove the disk against
//! it and remove recognized leftovers, then carry out (or discard) a waiting manual rollback
//! request (`infra::recovery::rollback`). With a candidate: verify it (unusable → discarded), give
//! up at once when its two attempts are used, take the data snapshot before its first launch
//! (impossible → discarded), run its probation, then promote it (and keep running it as
//! current) or roll it back (data restored, release quarantined, runtime removed) and continue
//! with the previous build. Without one: release the lock (so the running desktop can install
//! a candidate), start the verified current build, else the newest predecessor that verifies,
//! and wait. Exit code 75 means "a candidate was installed": the run repeats, at most
//! [`MAX_HANDOFFS`] times. When nothing can be proved or started, only the fixed releases page
//! is opened. Logs name builds and codes, never paths or transaction ids.

use std::path::Path;
use std::process::ExitStatus;
use std::time::Duration;

use domain::updater::recovery::MAX_CANDIDATE_ATTEMPTS;
use infra::recovery::snapshot::available_bytes;
use infra::recovery::transition::{record_attempt, snapshot_for_candidate};
use infra::recovery::{
    apply_rollback_request, bootstrap, cleanup_leftovers, promote, read_catalog, reconcile, roll_back, verify_runtime,
    Catalog, ManagedRoot, Outcome, RecoveryIoError, RecoveryLock, RollbackApplied, VerifiedRuntime,
};

use crate::config::{Config, HANDOFF_EXIT_CODE, MAX_HANDOFFS};
use crate::probation::{self, ProbationClock, Verdict};
use crate::supervise::{self, Runtime};

const LOCK_WAIT: Duration = Duration::from_secs(15);
const LOG: &str = "relay::launcher";

/// Why a run could not start any runtime.
#[derive(Debug)]
pub enum Failure {
    Recovery(RecoveryIoError),
    Start(std::io::Error),
    NothingUsable,
    TooManyHandoffs,
}

impl From<RecoveryIoError> for Failure {
    fn from(error: RecoveryIoError) -> Failure {
        Failure::Recovery(error)
    }
}

impl Failure {
    pub fn code(&self) -> &'static str {
        match self {
            Failure::Recovery(error) => error.code(),
            Failure::Start(_) => "runtime_start_failed",
            Failure::NothingUsable => "no_usable_runtime",
            Failure::TooManyHandoffs => "too_many_handoffs",
        }
    }
}

fn wall_ms() -> u64 {
    infra::clock::wall_ms()
}

/// Runs runtimes until one exits for good; returns the launcher's exit code.
pub fn run(config: &Config) -> Result<i32, Failure> {
    let root = ManagedRoot::open(&config.managed_root)?;
    let clock = ProbationClock::new(config.time_scale);
    for round in 0..=MAX_HANDOFFS {
        // The recovery entry prefers a retained build for its first start only: after a
        // hand-off (an update's candidate or the Owner's rollback) the catalog decides again.
        let prefer_retained = config.prefer_retained && round == 0;
        let status = run_once(config, &root, &clock, prefer_retained)?;
        match status.code() {
            Some(HANDOFF_EXIT_CODE) => {
                tracing::info!(target: LOG, "the runtime handed off to the launcher (an update or a rollback)")
            }
            Some(code) => return Ok(code),
            None => return Ok(128 + std::os::unix::process::ExitStatusExt::signal(&status).unwrap_or(0)),
        }
    }
    Err(Failure::TooManyHandoffs)
}

fn run_once(
    config: &Config,
    root: &ManagedRoot,
    clock: &ProbationClock,
    prefer_retained: bool,
) -> Result<ExitStatus, Failure> {
    let lock = RecoveryLock::acquire(root, LOCK_WAIT)?;
    let reconciled = reconcile(root, &lock, &config.data_dir, wall_ms())?;
    tracing::info!(target: LOG, ?reconciled, "settlement reconciled");
    let mut catalog = match read_catalog(root)? {
        Some(catalog) => catalog,
        None => {
            // A user's first start from the package: the seed becomes the first runtime.
            if let Some(seed_dir) = &config.seed_dir {
                crate::seed::install_on_first_start(root, &lock, seed_dir);
            }
            let catalog = bootstrap(root, &lock, wall_ms())?;
            tracing::info!(target: LOG, build = %catalog.current.build, "recovery catalog created");
            catalog
        }
    };
    cleanup_leftovers(root, &lock, &catalog)?;
    match apply_rollback_request(root, &lock, &catalog, wall_ms())? {
        RollbackApplied::NoRequest => {}
        RollbackApplied::Applied(after) => {
            tracing::warn!(target: LOG, from = %catalog.current.build, to = %after.current.build, "manual rollback applied");
            catalog = *after;
        }
        RollbackApplied::Discarded(reason) => {
            tracing::warn!(target: LOG, reason, "a manual rollback request was discarded");
        }
    }
    if catalog.candidate.is_some() {
        match settle_candidate(config, root, &lock, clock, catalog)? {
            Settled::Promoted(mut runtime) => {
                drop(lock);
                return runtime.wait().map_err(Failure::Start);
            }
            Settled::Resume(after) => catalog = *after,
        }
    }
    let verified = usable_runtime(root, &catalog, prefer_retained).ok_or(Failure::NothingUsable)?;
    drop(lock);
    let mut runtime = supervise::start(&verified, &config.data_dir, None).map_err(Failure::Start)?;
    drop(verified);
    runtime.wait().map_err(Failure::Start)
}

/// The current build if it verifies, else the newest predecessor that does; with
/// `prefer_retained` (the recovery entry), the newest predecessor that verifies first and the
/// current build only when none does.
fn usable_runtime(root: &ManagedRoot, catalog: &Catalog, prefer_retained: bool) -> Option<VerifiedRuntime> {
    let current = std::iter::once((&catalog.current, true));
    let retained = catalog.predecessors.iter().map(|build| (build, false));
    let builds: Vec<_> =
        if prefer_retained { retained.chain(current).collect() } else { current.chain(retained).collect() };
    for (build, is_current) in builds {
        match verify_runtime(root, &build.build, &build.marker_sha512) {
            Ok(verified) => {
                if !is_current && !prefer_retained {
                    tracing::warn!(target: LOG, build = %build.build, "the current build is unusable; starting a retained predecessor");
                } else if !is_current {
                    tracing::warn!(target: LOG, build = %build.build, "recovery entry: starting a retained predecessor");
                }
                return Some(verified);
            }
            Err(error) => tracing::warn!(target: LOG, build = %build.build, code = error.code(), "runtime unusable"),
        }
    }
    None
}

enum Settled {
    Promoted(Runtime),
    Resume(Box<Catalog>),
}

fn settle_candidate(
    config: &Config,
    root: &ManagedRoot,
    lock: &RecoveryLock,
    clock: &ProbationClock,
    catalog: Catalog,
) -> Result<Settled, Failure> {
    let candidate = catalog.candidate.clone().expect("called with a candidate");
    let discard = |catalog: &Catalog, why: &str| -> Result<Settled, Failure> {
        tracing::warn!(target: LOG, build = %candidate.build, why, "discarding the candidate");
        Ok(Settled::Resume(Box::new(roll_back(root, lock, catalog, &config.data_dir, Outcome::Discard)?)))
    };
    let verified = match verify_runtime(root, &candidate.build, &candidate.marker_sha512) {
        Ok(verified) => verified,
        Err(error) => return discard(&catalog, error.code()),
    };
    if candidate.attempts >= MAX_CANDIDATE_ATTEMPTS {
        tracing::warn!(target: LOG, build = %candidate.build, "the candidate used its attempts; rolling back");
        return Ok(Settled::Resume(Box::new(roll_back(root, lock, &catalog, &config.data_dir, Outcome::Rollback)?)));
    }
    let mut catalog = catalog;
    if candidate.snapshot.is_none() {
        match snapshot_for_candidate(root, lock, &catalog, &config.data_dir, &available_bytes) {
            Ok((after, manifest)) => {
                let bytes: u64 = manifest.items.iter().map(|item| item.bytes).sum();
                tracing::info!(target: LOG, items = manifest.items.len(), bytes, "data snapshot taken");
                catalog = after;
            }
            Err(error) => return discard(&catalog, error.code()),
        }
    }
    let data_dir: &Path = &config.data_dir;
    let mut launch_error = None;
    let result = probation::run(clock, candidate.attempts, || {
        catalog = record_attempt(root, lock, &catalog).map_err(|error| {
            let io = std::io::Error::other(error.code());
            launch_error = Some(error);
            io
        })?;
        tracing::info!(target: LOG, build = %candidate.build, "starting the candidate on probation");
        supervise::start(&verified, data_dir, Some(&candidate.transaction))
    });
    if let Some(error) = launch_error {
        return Err(error.into());
    }
    let (verdict, counters) = match result {
        Ok(done) => done,
        Err(error) => {
            tracing::warn!(target: LOG, build = %candidate.build, "the candidate cannot be started: {error}");
            return Ok(Settled::Resume(Box::new(roll_back(root, lock, &catalog, data_dir, Outcome::Rollback)?)));
        }
    };
    tracing::info!(target: LOG, launches = counters.launches, ignored_lines = counters.ignored_lines, "probation ended");
    match verdict {
        Verdict::Promote(runtime) => {
            let terminal = promote(root, lock, &catalog, wall_ms())?;
            tracing::info!(target: LOG, build = %terminal.current.build, predecessors = terminal.predecessors.len(), "candidate promoted");
            Ok(Settled::Promoted(runtime))
        }
        Verdict::RollBack(reason) => {
            tracing::warn!(target: LOG, build = %candidate.build, ?reason, "candidate failed probation; rolling back");
            Ok(Settled::Resume(Box::new(roll_back(root, lock, &catalog, data_dir, Outcome::Rollback)?)))
        }
    }
}
