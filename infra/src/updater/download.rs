//! The release download: the three assets of a confirmed [`InstallTarget`] fetched into a fresh
//! version directory under the updates root, through the one outbound HTTP policy. The
//! checksum file and the signature come first (bounded by their metadata sizes, checked against
//! GitHub's digests and parsed by the domain rules, so a wrong key or a legacy signature stops
//! the download before the archive is requested); then the ZIP streams into an exclusive 0600
//! `.part` file while every chunk goes to SHA-256 and to the streaming publisher-signature
//! check. Each asset is requested only at its fixed asset API URL with GitHub's
//! `Accept: application/octet-stream`, and every response is judged by
//! `domain::updater::download` (only HTTPS `302`s to the fixed hosts, at most 3,
//! `Content-Length` equal to the metadata size, nothing past it). The archive's digest must
//! agree with GitHub's metadata, the checksum file and the signature (bound to version, commit
//! and name) before it is fsynced and renamed to its final name. Cancellation, the policy's
//! deadline (armed over the redirects and the whole body) and every failure remove the whole
//! version directory; the error maps onto the domain failure codes. It logs origins and codes
//! only, never a URL or a header. It does not re-fetch the release (see `discovery`) or open
//! the ZIP (see `prepare`).

use std::io::Write;
use std::time::Duration;

use bytes::Bytes;
use futures_util::{Stream, StreamExt, TryStreamExt};
use reqwest::header::{ACCEPT, LOCATION, USER_AGENT};
use sha2::{Digest, Sha256};
use tokio_util::sync::CancellationToken;
use url::Url;

use domain::updater::download::{ASSET_ACCEPT, DOWNLOADER_USER_AGENT, DOWNLOAD_TIMEOUT_MS};
use domain::updater::{
    check_archive_digests, check_asset_url, check_content_length, next_hop, parse_checksum_file, parse_signature_file,
    ArchiveError, ArchiveSignatureVerifier, ByteCounter, CommitSha, DownloadError, Hop, InstallTarget, PublisherKey,
    ReleaseAsset, Sha256Digest, SignatureError, UpdateFailure, Version,
};

use super::hosts::GitHubHosts;
use super::staging::{StagingError, UpdatesRoot, VersionDir};
use crate::http::{check_request_url, headers, origin, HttpClient, HttpError, HttpPolicy, Profile, RedirectAllowlist};

/// Progress is reported when at least this many more archive bytes have arrived (and at the
/// start and the end).
pub const PROGRESS_STEP_BYTES: u64 = 256 * 1024;

/// Suffix of a download in progress.
const PART_SUFFIX: &str = ".part";

/// Archive bytes received so far against the metadata size (the progress bar).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DownloadProgress {
    pub bytes_done: u64,
    pub bytes_total: u64,
}

/// Why a download stopped. Messages name origins at most.
#[derive(Debug, thiserror::Error)]
pub enum UpdateDownloadError {
    #[error("The download was cancelled.")]
    Cancelled,
    #[error("{0}")]
    Http(HttpError),
    #[error("{0}")]
    Rule(DownloadError),
    #[error("{0}")]
    Archive(ArchiveError),
    #[error("{0}")]
    Signature(SignatureError),
    #[error("{0}")]
    Staging(StagingError),
}

impl UpdateDownloadError {
    /// The state machine's failure code: `cancelled`, `download-failed` (transport, deadline,
    /// refused redirect, staging), `verification-failed` (length, digests, checksum file) or
    /// `signature-invalid`.
    pub fn failure(&self) -> UpdateFailure {
        match self {
            UpdateDownloadError::Cancelled => UpdateFailure::Cancelled,
            UpdateDownloadError::Http(_) | UpdateDownloadError::Staging(_) => UpdateFailure::DownloadFailed,
            UpdateDownloadError::Rule(error) => UpdateFailure::from(error),
            UpdateDownloadError::Archive(error) => UpdateFailure::from(error),
            UpdateDownloadError::Signature(error) => UpdateFailure::from(error),
        }
    }

    /// A stable, machine-readable code (`snake_case`) for the logs.
    pub fn code(&self) -> &'static str {
        match self {
            UpdateDownloadError::Cancelled => "cancelled",
            UpdateDownloadError::Http(error) => error.code(),
            UpdateDownloadError::Rule(error) => error.code(),
            UpdateDownloadError::Archive(error) => error.code(),
            UpdateDownloadError::Signature(error) => error.code(),
            UpdateDownloadError::Staging(error) => error.code(),
        }
    }
}

impl From<HttpError> for UpdateDownloadError {
    fn from(error: HttpError) -> Self {
        UpdateDownloadError::Http(error)
    }
}
impl From<DownloadError> for UpdateDownloadError {
    fn from(error: DownloadError) -> Self {
        UpdateDownloadError::Rule(error)
    }
}
impl From<ArchiveError> for UpdateDownloadError {
    fn from(error: ArchiveError) -> Self {
        UpdateDownloadError::Archive(error)
    }
}
impl From<SignatureError> for UpdateDownloadError {
    fn from(error: SignatureError) -> Self {
        UpdateDownloadError::Signature(error)
    }
}
impl From<StagingError> for UpdateDownloadError {
    fn from(error: StagingError) -> Self {
        UpdateDownloadError::Staging(error)
    }
}

/// A verified release archive in its version directory. Dropping it removes the directory;
/// `prepare::prepare_release` takes it over.
#[derive(Debug)]
pub struct DownloadedRelease {
    pub version: Version,
    pub commit: CommitSha,
    /// The archive's SHA-256 (equal to GitHub's digest, the checksum file and the signed bytes).
    pub archive_sha256: Sha256Digest,
    pub archive_size: u64,
    /// The archive's file name inside [`DownloadedRelease::dir`].
    pub archive_name: String,
    pub(crate) dir: VersionDir,
}

impl DownloadedRelease {
    pub fn dir(&self) -> &VersionDir {
        &self.dir
    }
}

/// The policy of asset downloads: the upstream profile with the whole-download deadline
/// (`DOWNLOAD_TIMEOUT_MS`, armed while the body is read), the archive's size cap and no
/// automatic redirects (the downloader judges each hop with the domain rule).
pub fn download_policy() -> HttpPolicy {
    HttpPolicy {
        timeout: Duration::from_millis(DOWNLOAD_TIMEOUT_MS),
        max_body_bytes: domain::updater::release::MAX_ARCHIVE_BYTES,
        redirects: RedirectAllowlist::none(),
        ..HttpPolicy::upstream()
    }
}

/// Downloads release assets under one HTTP policy, host table and publisher key.
#[derive(Debug, Clone)]
pub struct ReleaseDownloader {
    client: HttpClient,
    hosts: GitHubHosts,
    key: PublisherKey,
}

impl ReleaseDownloader {
    /// A downloader under [`download_policy`].
    pub fn new(hosts: GitHubHosts, key: PublisherKey) -> Result<ReleaseDownloader, HttpError> {
        ReleaseDownloader::with_policy(download_policy(), hosts, key)
    }

    /// A downloader under another policy (tests shorten the deadline). Automatic redirects
    /// are always off: every hop is judged by the domain rule.
    pub fn with_policy(
        policy: HttpPolicy,
        hosts: GitHubHosts,
        key: PublisherKey,
    ) -> Result<ReleaseDownloader, HttpError> {
        let policy = HttpPolicy { profile: Profile::Upstream, redirects: RedirectAllowlist::none(), ..policy };
        Ok(ReleaseDownloader { client: policy.build()?, hosts, key })
    }

    /// Downloads and verifies `target`'s three assets into a fresh version directory under
    /// `root` (see the module doc). `progress` receives the archive's byte counts. On any
    /// error, and on cancellation, the version directory is gone when this returns.
    pub async fn download(
        &self,
        root: &UpdatesRoot,
        target: &InstallTarget,
        progress: &mut (dyn FnMut(DownloadProgress) + Send),
        cancel: &CancellationToken,
    ) -> Result<DownloadedRelease, UpdateDownloadError> {
        if cancel.is_cancelled() {
            return Err(UpdateDownloadError::Cancelled);
        }
        let dir = root.create_version_dir(target.version)?;
        let result = self.download_into(&dir, target, progress, cancel).await;
        match result {
            Ok((archive_sha256, archive_name)) => Ok(DownloadedRelease {
                version: target.version,
                commit: target.commit,
                archive_sha256,
                archive_size: target.assets.archive.size,
                archive_name,
                dir,
            }),
            Err(error) => {
                let failure = error.failure().code();
                tracing::warn!(target: "relay::updater", code = error.code(), failure, "release download failed: {error}");
                if let Err(remove) = dir.remove() {
                    tracing::warn!(target: "relay::updater", code = remove.code(), "cannot remove the staging directory");
                }
                Err(error)
            }
        }
    }

    async fn download_into(
        &self,
        dir: &VersionDir,
        target: &InstallTarget,
        progress: &mut (dyn FnMut(DownloadProgress) + Send),
        cancel: &CancellationToken,
    ) -> Result<(Sha256Digest, String), UpdateDownloadError> {
        let assets = &target.assets;

        let mut checksum_bytes = Vec::new();
        let (file, digest) = self.fetch(dir, &assets.checksum, Sink::Memory(&mut checksum_bytes), cancel).await?;
        require_github_digest(&digest, &assets.checksum)?;
        let checksum_digest = parse_checksum_file(&checksum_bytes, &assets.archive.name)?;
        dir.commit(file, &part_name(&assets.checksum), &assets.checksum.name)?;

        let mut signature_bytes = Vec::new();
        let (file, digest) = self.fetch(dir, &assets.signature, Sink::Memory(&mut signature_bytes), cancel).await?;
        require_github_digest(&digest, &assets.signature)?;
        let signature = parse_signature_file(&signature_bytes)?;
        let mut verifier = ArchiveSignatureVerifier::new(&self.key, &signature, &target.version, &target.commit)?;
        dir.commit(file, &part_name(&assets.signature), &assets.signature.name)?;

        let archive = &assets.archive;
        let sink = Sink::Archive { verifier: &mut verifier, progress, reported: 0 };
        let (file, digest) = self.fetch(dir, archive, sink, cancel).await?;
        check_archive_digests(&digest, &archive.digest, &checksum_digest)?;
        verifier.finish()?;
        if cancel.is_cancelled() {
            return Err(UpdateDownloadError::Cancelled);
        }
        dir.commit(file, &part_name(archive), &archive.name)?;
        tracing::info!(target: "relay::updater", version = %target.version, bytes = archive.size, "release archive downloaded and verified");
        Ok((digest, archive.name.clone()))
    }

    /// One asset into `<name>.part` under the cancellation token and the policy's deadline
    /// (one deadline over every hop and the whole body). Returns the open file and its SHA-256.
    async fn fetch(
        &self,
        dir: &VersionDir,
        asset: &ReleaseAsset,
        sink: Sink<'_, '_>,
        cancel: &CancellationToken,
    ) -> Result<(std::fs::File, Sha256Digest), UpdateDownloadError> {
        let deadline = tokio::time::Instant::now() + self.client.policy().timeout;
        let mut last_origin = String::from("https://api.github.com");
        let work = async {
            let response = self.open(asset, &mut last_origin).await?;
            let declared = headers::declared_length(response.headers()).map_err(|_| DownloadError::LengthMismatch)?;
            check_content_length(declared, asset.size)?;
            let file = dir.create_file(&part_name(asset), 0o600)?;
            let body = response.bytes_stream().map_err(read_error);
            write_body(body, file, asset.size, sink).await
        };
        let result = tokio::select! {
            biased;
            _ = cancel.cancelled() => Err(UpdateDownloadError::Cancelled),
            done = tokio::time::timeout_at(deadline, work) => done.unwrap_or(Err(BodyError::Timeout.into())),
        };
        // Body failures learn the origin of the response they came from here.
        result.map_err(|error| match error {
            UpdateDownloadError::Http(HttpError::Timeout { origin }) if origin.is_empty() => {
                UpdateDownloadError::Http(HttpError::Timeout { origin: last_origin.clone() })
            }
            UpdateDownloadError::Http(HttpError::Transport { origin }) if origin.is_empty() => {
                UpdateDownloadError::Http(HttpError::Transport { origin: last_origin.clone() })
            }
            other => other,
        })
    }

    /// Requests the asset at its fixed API URL and follows the redirects the domain rule
    /// allows, returning the final `200` response with its body unread.
    async fn open(
        &self,
        asset: &ReleaseAsset,
        last_origin: &mut String,
    ) -> Result<reqwest::Response, UpdateDownloadError> {
        let mut url: Url = check_asset_url(asset)?;
        let mut followed = 0;
        loop {
            let wire = self.hosts.to_wire(&url);
            check_request_url(Profile::Upstream, &wire, cfg!(debug_assertions))?;
            let wire_origin = origin::describe(&wire);
            last_origin.clone_from(&wire_origin);
            tracing::debug!(target: "relay::updater", origin = %wire_origin, hop = followed, "requesting a release asset");
            let request =
                self.client.reqwest().get(wire).header(ACCEPT, ASSET_ACCEPT).header(USER_AGENT, DOWNLOADER_USER_AGENT);
            let response = request.send().await.map_err(|error| send_error(&error, &wire_origin))?;
            let location = response.headers().get(LOCATION).and_then(|value| value.to_str().ok());
            let judged = location.map(|location| self.hosts.from_wire(location));
            match next_hop(response.status().as_u16(), judged.as_deref(), followed) {
                Hop::Done => return Ok(response),
                Hop::Follow(next) => {
                    followed += 1;
                    url = next;
                }
                Hop::Refuse(error) => {
                    tracing::warn!(target: "relay::updater", origin = %wire_origin, code = error.code(), "release asset response refused");
                    return Err(error.into());
                }
            }
        }
    }
}

fn part_name(asset: &ReleaseAsset) -> String {
    format!("{}{PART_SUFFIX}", asset.name)
}

/// The checksum and signature files must hash to GitHub's digest of them.
fn require_github_digest(digest: &Sha256Digest, asset: &ReleaseAsset) -> Result<(), ArchiveError> {
    if *digest == asset.digest {
        Ok(())
    } else {
        Err(ArchiveError::GithubDigestMismatch)
    }
}

/// Where the bytes of an asset go besides its `.part` file and SHA-256.
pub(crate) enum Sink<'s, 'v> {
    /// A small asset (checksum, signature), kept for parsing.
    Memory(&'s mut Vec<u8>),
    /// The archive: the streaming signature check and the progress reports.
    Archive {
        verifier: &'s mut ArchiveSignatureVerifier<'v>,
        progress: &'s mut (dyn FnMut(DownloadProgress) + Send),
        reported: u64,
    },
}

impl Sink<'_, '_> {
    fn take(&mut self, chunk: &[u8], done: u64, total: u64, last: bool) {
        match self {
            Sink::Memory(bytes) => bytes.extend_from_slice(chunk),
            Sink::Archive { verifier, progress, reported } => {
                verifier.update(chunk);
                if done == 0 || last || done - *reported >= PROGRESS_STEP_BYTES {
                    *reported = done;
                    progress(DownloadProgress { bytes_done: done, bytes_total: total });
                }
            }
        }
    }
}

/// A body read that failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum BodyError {
    Timeout,
    Broken,
}

impl From<BodyError> for UpdateDownloadError {
    fn from(error: BodyError) -> Self {
        // The origin is filled in by the caller.
        let origin = String::new();
        match error {
            BodyError::Timeout => UpdateDownloadError::Http(HttpError::Timeout { origin }),
            BodyError::Broken => UpdateDownloadError::Http(HttpError::Transport { origin }),
        }
    }
}

fn read_error(error: reqwest::Error) -> BodyError {
    if error.is_timeout() {
        BodyError::Timeout
    } else {
        BodyError::Broken
    }
}

fn send_error(error: &reqwest::Error, wire_origin: &str) -> UpdateDownloadError {
    let origin = wire_origin.to_owned();
    UpdateDownloadError::Http(if error.is_timeout() {
        HttpError::Timeout { origin }
    } else if error.is_connect() {
        HttpError::Connect { origin }
    } else {
        HttpError::Transport { origin }
    })
}

/// Streams a body of exactly `expected` bytes into `file`: each chunk is counted first (the
/// chunk that would pass `expected` is refused before any of it is written or hashed), then
/// hashed, handed to `sink` and written. A body that ends early is `TooShort`.
pub(crate) async fn write_body(
    body: impl Stream<Item = Result<Bytes, BodyError>>,
    mut file: std::fs::File,
    expected: u64,
    mut sink: Sink<'_, '_>,
) -> Result<(std::fs::File, Sha256Digest), UpdateDownloadError> {
    let mut counter = ByteCounter::new(expected);
    let mut hasher = Sha256::new();
    sink.take(&[], 0, expected, false);
    let mut body = std::pin::pin!(body);
    while let Some(chunk) = body.next().await {
        let chunk = match chunk {
            Ok(chunk) => chunk,
            Err(BodyError::Broken) if counter.received() < expected => return Err(DownloadError::TooShort.into()),
            Err(error) => return Err(error.into()),
        };
        counter.record(chunk.len() as u64)?;
        hasher.update(&chunk);
        let done = counter.received();
        sink.take(&chunk, done, expected, done == expected);
        file.write_all(&chunk).map_err(StagingError::Io)?;
    }
    counter.finish()?;
    Ok((file, Sha256Digest::from_bytes(hasher.finalize().into())))
}

#[cfg(test)]
#[path = "download_tests.rs"]
mod tests;

#[cfg(test)]
#[path = "download_transport_tests.rs"]
mod transport_tests;
