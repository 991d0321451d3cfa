//! Release notes of Settings → About over the network and on disk. [`ReleaseNotesFetcher`]
//! asks `GET /repos/CrimsonSoul/Relay/releases?per_page=20` on the `GITHUB_API` endpoint
//! through the same outbound HTTP policy as discovery (GitHub's JSON `Accept`, its
//! `X-GitHub-Api-Version`, a `Relay/<version>` user agent, no credentials, no redirects, an 8 s
//! deadline through the body, and debug builds' loopback override of the GitHub origin), but
//! reads at most `MAX_HISTORY_JSON_BYTES`; the answer is judged entirely by
//! `domain::updater::notes`. The cache is `notes/release-notes.json` under the updates root:
//! the `notes` directory is created 0700 without following a link (the staging walk), the file
//! is written to a fresh `O_EXCL|O_NOFOLLOW` 0600 temporary file, fsynced and renamed over the
//! old one, and the directory fsynced. [`read_notes_cache`] reads it back (a regular file of the
//! current user, bounded) through the same domain rules; a corrupt cache is removed and ignored.
//! It never takes a URL or path from the renderer and logs codes only.

use std::fs::{self, OpenOptions};
use std::io::{self, Read, Write};
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::time::Duration;

use tokio_util::sync::CancellationToken;

use domain::updater::notes::{
    evaluate_release_history, notes_cache_json, parse_notes_cache, ReleaseNote, ReleaseNotesError,
    MAX_HISTORY_JSON_BYTES,
};
use domain::updater::release::{DISCOVERY_TIMEOUT_MS, RELEASE_HISTORY_URL};
use domain::updater::{DiscoveryError, Version};

use super::discovery::{facts_of, get_github_json};
use super::hosts::GitHubHosts;
use super::staging::{open_owned_regular, walk_without_links, StagingError};
use crate::http::{HttpClient, HttpError, HttpPolicy, RedirectAllowlist};

/// The cache's directory under the updates root (never a staging name).
pub const NOTES_DIR: &str = "notes";
/// The cache file in [`NOTES_DIR`].
pub const NOTES_CACHE_FILE: &str = "release-notes.json";

/// A history fetch that produced no notes (logged, never shown; the previous cache stays).
#[derive(Debug, thiserror::Error)]
pub enum NotesFailure {
    #[error("{0}")]
    Http(HttpError),
    #[error("{0}")]
    Notes(ReleaseNotesError),
    #[error("GitHub asked Relay to wait before asking again.")]
    RateLimited { retry_after_secs: Option<u64> },
}

impl NotesFailure {
    /// A stable, machine-readable code (`snake_case`).
    pub fn code(&self) -> &'static str {
        match self {
            NotesFailure::Http(error) => error.code(),
            NotesFailure::Notes(error) => error.code(),
            NotesFailure::RateLimited { .. } => "github_rate_limited",
        }
    }
}

/// The policy of history requests: discovery's, reading at most 512 KiB.
pub fn notes_policy() -> HttpPolicy {
    let timeout = Duration::from_millis(DISCOVERY_TIMEOUT_MS);
    let upstream = HttpPolicy::upstream();
    HttpPolicy {
        timeout,
        connect_timeout: upstream.connect_timeout.min(timeout),
        max_body_bytes: MAX_HISTORY_JSON_BYTES,
        redirects: RedirectAllowlist::none(),
        ..upstream
    }
}

/// Asks GitHub for the 20 most recent releases of the fixed repository.
#[derive(Debug, Clone)]
pub struct ReleaseNotesFetcher {
    client: HttpClient,
    hosts: GitHubHosts,
    current: Version,
}

impl ReleaseNotesFetcher {
    /// A fetcher under [`notes_policy`] for the running version.
    pub fn new(hosts: GitHubHosts, current: Version) -> Result<ReleaseNotesFetcher, HttpError> {
        ReleaseNotesFetcher::with_policy(notes_policy(), hosts, current)
    }

    /// Under another policy (tests shorten the deadline); redirects stay refused.
    pub fn with_policy(
        policy: HttpPolicy,
        hosts: GitHubHosts,
        current: Version,
    ) -> Result<ReleaseNotesFetcher, HttpError> {
        let policy = HttpPolicy { redirects: RedirectAllowlist::none(), ..policy };
        Ok(ReleaseNotesFetcher { client: policy.build()?, hosts, current })
    }

    /// One fetch of the release history, judged by the domain.
    pub async fn fetch(&self, cancel: &CancellationToken) -> Result<Vec<ReleaseNote>, NotesFailure> {
        let result = self.fetch_history(cancel).await;
        if let Err(error) = &result {
            tracing::info!(target: "relay::updater", code = error.code(), "release notes fetch failed");
        }
        result
    }

    async fn fetch_history(&self, cancel: &CancellationToken) -> Result<Vec<ReleaseNote>, NotesFailure> {
        let sent =
            get_github_json(&self.client, &self.hosts, &self.current, RELEASE_HISTORY_URL, "history", cancel).await;
        let response = sent.map_err(|error| match error {
            HttpError::RateLimited { retry_after_secs, .. } => NotesFailure::RateLimited { retry_after_secs },
            HttpError::Status { status, .. } => {
                NotesFailure::Notes(ReleaseNotesError::Http(DiscoveryError::UnexpectedStatus { status }))
            }
            HttpError::TooLarge { .. } => NotesFailure::Notes(ReleaseNotesError::TooLarge),
            other => NotesFailure::Http(other),
        })?;
        evaluate_release_history(&facts_of(&response), response.body()).map_err(NotesFailure::Notes)
    }
}

fn cache_dir(updates_dir: &Path) -> PathBuf {
    updates_dir.join(NOTES_DIR)
}

/// Blocking: writes the notes and when they were fetched to the cache atomically (temporary
/// file 0600, fsync, rename over the previous cache, fsync of the 0700 directory).
pub fn write_notes_cache(updates_dir: &Path, notes: &[ReleaseNote], fetched_at_ms: i64) -> Result<(), StagingError> {
    let dir = cache_dir(updates_dir);
    walk_without_links(&dir, true)?;
    fs::set_permissions(&dir, fs::Permissions::from_mode(0o700)).map_err(StagingError::Io)?;
    let bytes = notes_cache_json(notes, fetched_at_ms).to_string().into_bytes();
    let suffix: String = crate::ids::random_bytes(8).iter().map(|b| format!("{b:02x}")).collect();
    let temp = dir.join(format!(".{NOTES_CACHE_FILE}.{suffix}.tmp"));
    let written = (|| {
        let mut file = OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC)
            .open(&temp)?;
        file.set_permissions(fs::Permissions::from_mode(0o600))?;
        file.write_all(&bytes)?;
        file.sync_all()?;
        fs::rename(&temp, dir.join(NOTES_CACHE_FILE))?;
        crate::datadir::sync_dir(&dir)
    })();
    if written.is_err() {
        let _ = fs::remove_file(&temp);
    }
    written.map_err(StagingError::Io)
}

/// Blocking: the cached notes and when they were fetched; `None` when there is no usable cache
/// (a corrupt or oversized one is removed).
pub fn read_notes_cache(updates_dir: &Path) -> Option<(Vec<ReleaseNote>, i64)> {
    let path = cache_dir(updates_dir).join(NOTES_CACHE_FILE);
    match fs::symlink_metadata(&path) {
        Err(error) if error.kind() == io::ErrorKind::NotFound => return None,
        _ => {}
    }
    let read = walk_without_links(&path, false).and_then(|()| {
        let file = open_owned_regular(&path)?;
        let mut bytes = Vec::new();
        file.take(MAX_HISTORY_JSON_BYTES + 1).read_to_end(&mut bytes).map_err(StagingError::Io)?;
        Ok(bytes)
    });
    let parsed = match read {
        Ok(bytes) => parse_notes_cache(&bytes).map_err(|error| error.code()),
        Err(error) => Err(error.code()),
    };
    match parsed {
        Ok(cache) => Some(cache),
        Err(code) => {
            tracing::warn!(target: "relay::updater", code, "ignoring and removing the release-notes cache");
            let _ = fs::remove_file(&path);
            None
        }
    }
}

#[cfg(test)]
#[path = "notes_tests.rs"]
mod tests;
