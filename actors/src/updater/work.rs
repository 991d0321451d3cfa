//! The updater's work outside its actor thread. Network work (the check, the re-fetch and the
//! verified download, whose SHA-256 and signature run on every chunk) runs on the actor's own
//! worker arbiter ([`Worker`], a dedicated thread with its own runtime), so the actor keeps
//! answering `Snapshot` while bytes stream; blocking file work (the cleanup of abandoned staging
//! at start, dropping staged files) is run by the actor through the kit's `BoundedWork`. This
//! module owns no state and decides nothing: `infra::updater` does the IO, the domain rules and
//! `plan` decide, the actor applies the outcomes to its state machine.

use std::future::Future;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use actix::Arbiter;
use tokio::sync::oneshot;

use domain::updater::{PublisherKey, QuarantineHistory, ReleaseCheck, StagingDirName, UpdateFailure, Version};
use infra::http::{CancellationToken, HttpError};
use infra::updater::{
    updates_dir_from, DiscoveryFailure, DownloadProgress, DownloadedRelease, GitHubHosts, ReleaseDiscovery,
    ReleaseDownloader, ReleaseNotesFetcher, StagingError, UpdatesRoot,
};

use super::plan::abandoned_staging;

/// What the updater talks to: the fixed GitHub release endpoint (discovery and re-fetch), the
/// release history, the downloader with the compiled-in publisher key, and the updates root.
#[derive(Debug, Clone)]
pub struct UpdaterIo {
    pub discovery: ReleaseDiscovery,
    pub downloader: ReleaseDownloader,
    /// The release history of Settings → About (the same fixed repository and hosts).
    pub notes: ReleaseNotesFetcher,
    /// `$XDG_DATA_HOME/relay/updates` in production.
    pub updates_dir: PathBuf,
}

/// Why the production updater cannot be set up (it then stays off; logged).
#[derive(Debug, thiserror::Error)]
pub enum UpdaterSetupError {
    #[error("neither XDG_DATA_HOME nor HOME is an absolute path")]
    NoDataHome,
    #[error(transparent)]
    Http(#[from] HttpError),
}

impl UpdaterIo {
    /// Production: the GitHub hosts of this build (`GitHubHosts::for_this_build`: the fixed
    /// hosts; debug builds honour the `RELAY_TEST_UPSTREAM_GITHUB_*` loopback overrides), the
    /// compiled-in publisher key (`PublisherKey::production`) and the updates root under the
    /// user's XDG data directory. Nothing here comes from a setting or the renderer.
    pub fn production(current: Version) -> Result<UpdaterIo, UpdaterSetupError> {
        let xdg = std::env::var_os("XDG_DATA_HOME");
        let home = std::env::var_os("HOME");
        let updates_dir = updates_dir_from(xdg.as_deref(), home.as_deref()).ok_or(UpdaterSetupError::NoDataHome)?;
        let hosts = GitHubHosts::for_this_build()?;
        Ok(UpdaterIo {
            discovery: ReleaseDiscovery::new(hosts.clone(), current)?,
            notes: ReleaseNotesFetcher::new(hosts.clone(), current)?,
            downloader: ReleaseDownloader::new(hosts, PublisherKey::production())?,
            updates_dir,
        })
    }
}

/// The actor's worker thread for network work (stopped with the actor).
pub struct Worker {
    arbiter: Arbiter,
}

impl Worker {
    pub fn new() -> Worker {
        Worker { arbiter: Arbiter::new() }
    }

    /// Runs `work` on the worker thread; the receiver gets its output (an error if the worker
    /// is gone or the work panicked).
    pub fn run<T: Send + 'static>(&self, work: impl Future<Output = T> + Send + 'static) -> oneshot::Receiver<T> {
        let (tx, rx) = oneshot::channel();
        self.arbiter.spawn(async move {
            let _ = tx.send(work.await);
        });
        rx
    }

    /// Spawns `work` on the worker thread without waiting for it.
    pub fn spawn(&self, work: impl Future<Output = ()> + Send + 'static) {
        self.arbiter.spawn(work);
    }

    pub fn stop(&self) {
        self.arbiter.stop();
    }
}

impl Drop for Worker {
    fn drop(&mut self) {
        self.stop();
    }
}

/// One check of the latest release.
pub async fn check(io: Arc<UpdaterIo>, cancel: CancellationToken) -> Result<ReleaseCheck, DiscoveryFailure> {
    io.discovery.check_latest(&cancel).await
}

/// A download that did not finish: the state machine's failure code and a log code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DownloadFailure {
    pub failure: UpdateFailure,
    pub code: &'static str,
}

/// The re-fetch (which must agree with `discovered`), then the verified download into a fresh
/// version directory. `progress` gets the archive bytes received. On cancellation the version
/// directory is gone when this returns, even if the last byte had already arrived.
pub async fn download(
    io: Arc<UpdaterIo>,
    discovered: ReleaseCheck,
    quarantine: QuarantineHistory,
    cancel: CancellationToken,
    mut progress: impl FnMut(u64) + Send,
) -> Result<DownloadedRelease, DownloadFailure> {
    let target = io
        .discovery
        .refetch_and_confirm(&discovered, &quarantine, &cancel)
        .await
        .map_err(|error| DownloadFailure { failure: error.failure(), code: error.code() })?;
    let root = UpdatesRoot::open(&io.updates_dir)
        .map_err(|error| DownloadFailure { failure: UpdateFailure::DownloadFailed, code: error.code() })?;
    let mut report = |p: DownloadProgress| progress(p.bytes_done);
    let result = io
        .downloader
        .download(&root, &target, &mut report, &cancel)
        .await
        .map_err(|error| DownloadFailure { failure: error.failure(), code: error.code() });
    if cancel.is_cancelled() {
        // Dropping a finished download removes its directory before the caller hears of it.
        drop(result);
        return Err(DownloadFailure { failure: UpdateFailure::Cancelled, code: "cancelled" });
    }
    result
}

/// Blocking: removes the abandoned staging directories under `updates_dir` (see
/// `plan::abandoned_staging`) and returns their names. A directory that cannot be removed is
/// logged and left; the others still go.
pub fn clean_abandoned(
    updates_dir: &Path,
    now_ms: i64,
    in_use: &[StagingDirName],
) -> Result<Vec<StagingDirName>, StagingError> {
    let root = UpdatesRoot::open(updates_dir)?;
    let abandoned = abandoned_staging(&root.entries()?, now_ms, in_use);
    let mut removed = Vec::with_capacity(abandoned.len());
    for name in abandoned {
        match root.remove_staging_dir(&name) {
            Ok(()) => removed.push(name),
            Err(error) => {
                tracing::warn!(target: "relay::updater", code = error.code(), "cannot remove an abandoned staging directory")
            }
        }
    }
    Ok(removed)
}
