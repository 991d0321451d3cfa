//! Fixtures the updater's tests share: a throwaway minisign publisher generated in memory (never
//! written down, never used for releases), a release's three files and its GitHub JSON in the
//! real API shape, a fake GitHub of four loopback hosts (API, web, objects, release assets)
//! with the asset API's `302` to storage, a tiny x86-64 ELF and ZIP builders. Compiled for
//! infra's tests and, with the `test-fixtures` feature, for the updater actor's tests
//! (`fake_upstream` is re-exported for them).

use std::io::Write;
use std::time::Duration;

pub use fake_upstream;
use fake_upstream::{FakeUpstream, Reply};
use minisign::KeyPair;
use serde_json::{json, Value};
use sha2::{Digest, Sha256};
use zip::write::SimpleFileOptions;
use zip::{CompressionMethod, ZipWriter};

use domain::updater::release::{archive_asset_name, checksum_asset_name, signature_asset_name};
use domain::updater::{
    expected_trusted_comment, release_check_from_json, CommitSha, InstallTarget, PublisherKey, Sha256Digest, Version,
};

use super::hosts::GitHubHosts;
use crate::http::endpoints::{GITHUB_API, GITHUB_OBJECTS, GITHUB_RELEASE_ASSETS, GITHUB_WEB};
use crate::http::HttpPolicy;

pub const COMMIT: &str = "0123456789abcdef0123456789abcdef01234567";
pub const OTHER_COMMIT: &str = "fedcba9876543210fedcba9876543210fedcba98";
pub const ARCHIVE_ID: u64 = 9001;
pub const CHECKSUM_ID: u64 = 9002;
pub const SIGNATURE_ID: u64 = 9003;
pub const LATEST_PATH: &str = "/repos/CrimsonSoul/Relay/releases/latest";
/// The "release by tag" path of [`version`] (a repair asks for it).
pub const TAG_PATH: &str = "/repos/CrimsonSoul/Relay/releases/tags/v1.3.0";
/// The release history's path (its `?per_page=20` query is not part of the route).
pub const HISTORY_PATH: &str = "/repos/CrimsonSoul/Relay/releases";

/// The running version in these tests.
pub fn current() -> Version {
    Version::new(1, 2, 0)
}

/// The released version in these tests.
pub fn version() -> Version {
    Version::new(1, 3, 0)
}

pub fn commit() -> CommitSha {
    CommitSha::parse_hex(COMMIT).unwrap()
}

/// A policy whose deadline is short enough for a stall test and long enough for the rest.
pub fn test_policy(timeout: Duration) -> HttpPolicy {
    HttpPolicy { timeout, connect_timeout: timeout, ..HttpPolicy::upstream() }
}

/// Runs `f`, failing the test if it has not finished within 20 s.
pub async fn bounded<F: std::future::Future>(f: F) -> F::Output {
    tokio::time::timeout(Duration::from_secs(20), f).await.expect("the updater hung: its control is missing")
}

pub fn sha256(bytes: &[u8]) -> Sha256Digest {
    Sha256Digest::from_bytes(Sha256::digest(bytes).into())
}

/// A throwaway publisher key pair.
pub struct Publisher {
    pair: KeyPair,
    pub key: PublisherKey,
}

impl Default for Publisher {
    fn default() -> Self {
        Publisher::new()
    }
}

impl Publisher {
    pub fn new() -> Publisher {
        let pair = KeyPair::generate_unencrypted_keypair().unwrap();
        let key = PublisherKey::from_base64(&pair.pk.to_base64()).unwrap();
        Publisher { pair, key }
    }

    /// A prehashed `.minisig` over `data` with this trusted comment.
    pub fn sign(&self, data: &[u8], trusted_comment: &str) -> Vec<u8> {
        minisign::sign(Some(&self.pair.pk), &self.pair.sk, data, Some(trusted_comment), None)
            .unwrap()
            .into_string()
            .into_bytes()
    }
}

/// A release's three files and the digests GitHub lists for them.
#[derive(Clone)]
pub struct ReleaseFiles {
    pub archive: Vec<u8>,
    pub checksum: Vec<u8>,
    pub signature: Vec<u8>,
    pub archive_digest: Sha256Digest,
    pub checksum_digest: Sha256Digest,
    pub signature_digest: Sha256Digest,
}

impl ReleaseFiles {
    /// `archive` with its correct checksum file and a correct signature by `publisher`.
    pub fn signed(publisher: &Publisher, archive: Vec<u8>) -> ReleaseFiles {
        let signature = publisher.sign(&archive, &expected_trusted_comment(&version(), &commit()));
        ReleaseFiles::from_parts(archive.clone(), checksum_file(&sha256(&archive)), signature)
    }

    /// These bytes, with GitHub's digests computed from them.
    pub fn from_parts(archive: Vec<u8>, checksum: Vec<u8>, signature: Vec<u8>) -> ReleaseFiles {
        ReleaseFiles {
            archive_digest: sha256(&archive),
            checksum_digest: sha256(&checksum),
            signature_digest: sha256(&signature),
            archive,
            checksum,
            signature,
        }
    }
}

/// `<hex>  <archive name>\n`, as `sha256sum` writes it.
pub fn checksum_file(digest: &Sha256Digest) -> Vec<u8> {
    format!("{digest}  {}\n", archive_asset_name(&version())).into_bytes()
}

fn asset_json(id: u64, name: &str, size: usize, digest: &Sha256Digest, content_type: &str) -> Value {
    json!({
        "url": format!("https://api.github.com/repos/CrimsonSoul/Relay/releases/assets/{id}"),
        "id": id,
        "node_id": "RA_kwDOtest",
        "name": name,
        "label": "",
        "uploader": { "login": "github-actions[bot]", "id": 41898282, "type": "Bot" },
        "content_type": content_type,
        "state": "uploaded",
        "size": size,
        "digest": format!("sha256:{digest}"),
        "download_count": 0,
        "created_at": "2026-03-01T10:00:00Z",
        "updated_at": "2026-03-01T10:00:01Z",
        "browser_download_url": format!("https://github.com/CrimsonSoul/Relay/releases/download/v1.3.0/{name}"),
    })
}

/// GitHub's "latest release" object for these files (the real field names and shape).
pub fn release_json(files: &ReleaseFiles) -> Value {
    let v = version();
    json!({
        "url": "https://api.github.com/repos/CrimsonSoul/Relay/releases/200000001",
        "assets_url": "https://api.github.com/repos/CrimsonSoul/Relay/releases/200000001/assets",
        "upload_url": "https://uploads.github.com/repos/CrimsonSoul/Relay/releases/200000001/assets{?name,label}",
        "html_url": "https://github.com/CrimsonSoul/Relay/releases/tag/v1.3.0",
        "id": 200000001,
        "author": { "login": "github-actions[bot]", "id": 41898282, "type": "Bot" },
        "node_id": "RE_kwDOtest",
        "tag_name": v.tag(),
        "target_commitish": COMMIT,
        "name": "Relay 1.3.0",
        "draft": false,
        "immutable": true,
        "prerelease": false,
        "created_at": "2026-03-01T09:59:00Z",
        "updated_at": "2026-03-01T10:00:02Z",
        "published_at": "2026-03-01T10:00:02Z",
        "assets": [
            asset_json(ARCHIVE_ID, &archive_asset_name(&v), files.archive.len(), &files.archive_digest, "application/zip"),
            asset_json(CHECKSUM_ID, &checksum_asset_name(&v), files.checksum.len(), &files.checksum_digest, "text/plain"),
            asset_json(SIGNATURE_ID, &signature_asset_name(&v), files.signature.len(), &files.signature_digest, "application/octet-stream"),
        ],
        "tarball_url": "https://api.github.com/repos/CrimsonSoul/Relay/tarball/v1.3.0",
        "zipball_url": "https://api.github.com/repos/CrimsonSoul/Relay/zipball/v1.3.0",
        "body": "## Fixes\n- the updater",
    })
}

/// GitHub's release-history answer: these files' release, a draft, a prerelease and the
/// running version's release.
pub fn history_json(files: &ReleaseFiles) -> Value {
    let mut draft = release_json(files);
    draft["tag_name"] = json!("v1.4.0");
    draft["draft"] = json!(true);
    draft["published_at"] = Value::Null;
    let mut pre = release_json(files);
    pre["tag_name"] = json!("v1.3.1");
    pre["prerelease"] = json!(true);
    let mut running = release_json(files);
    running["tag_name"] = json!(current().tag());
    running["name"] = json!("Relay 1.2.0");
    running["body"] = json!("## Features\r\n- first notes");
    running["published_at"] = json!("2026-02-01T09:00:00Z");
    json!([draft, pre, release_json(files), running])
}

/// What the re-fetch would confirm for these files.
pub fn target(files: &ReleaseFiles) -> InstallTarget {
    let check = release_check_from_json(&release_json(files), current()).unwrap();
    assert!(check.installable, "{:?}", check.not_installable_reasons);
    InstallTarget {
        version: check.latest_version,
        commit: check.target_commitish.unwrap(),
        assets: check.assets.unwrap(),
    }
}

/// GitHub's four hosts as loopback fakes.
pub struct FakeGitHub {
    pub api: FakeUpstream,
    pub web: FakeUpstream,
    pub objects: FakeUpstream,
    pub storage: FakeUpstream,
}

pub fn asset_path(id: u64) -> String {
    format!("/repos/CrimsonSoul/Relay/releases/assets/{id}")
}

/// Where the release-assets host keeps an asset (a signed, expiring URL in reality).
pub fn storage_path(id: u64) -> String {
    format!("/github-production-release-asset/{id}")
}

impl FakeGitHub {
    pub async fn start() -> FakeGitHub {
        FakeGitHub {
            api: FakeUpstream::start().await,
            web: FakeUpstream::start().await,
            objects: FakeUpstream::start().await,
            storage: FakeUpstream::start().await,
        }
    }

    /// The hosts with every GitHub endpoint pointed at its fake.
    pub fn hosts(&self) -> GitHubHosts {
        GitHubHosts::with_overrides(&[
            (GITHUB_API, self.api.base_url()),
            (GITHUB_WEB, self.web.base_url()),
            (GITHUB_OBJECTS, self.objects.base_url()),
            (GITHUB_RELEASE_ASSETS, self.storage.base_url()),
        ])
        .unwrap()
    }

    /// The storage URL of an asset as the API's redirect names it (on the fake's origin).
    pub fn storage_url(&self, id: u64) -> String {
        self.storage.url(&format!("{}?sp=r&sig=hunter2", storage_path(id)))
    }

    /// Serves the release the way GitHub does: each asset API URL answers `302` to the
    /// release-assets host, which answers with the bytes.
    pub fn serve(&self, files: &ReleaseFiles) {
        for (id, bytes) in
            [(ARCHIVE_ID, &files.archive), (CHECKSUM_ID, &files.checksum), (SIGNATURE_ID, &files.signature)]
        {
            self.api.route("GET", &asset_path(id), Reply::redirect(302, &self.storage_url(id)));
            self.serve_stored(id, Reply::content("application/octet-stream", bytes.clone()));
        }
        self.api.route("GET", LATEST_PATH, Reply::json(release_json(files).to_string()));
        self.api.route("GET", TAG_PATH, Reply::json(release_json(files).to_string()));
    }

    /// Replaces what the release-assets host answers for one asset.
    pub fn serve_stored(&self, id: u64, reply: Reply) {
        self.storage.route("GET", &storage_path(id), reply);
    }

    /// Every request path the four hosts received, host by host.
    pub fn request_count(&self) -> usize {
        [&self.api, &self.web, &self.objects, &self.storage].iter().map(|f| f.requests().len()).sum()
    }
}

/// A minimal 64-bit little-endian x86-64 ELF header followed by `extra` bytes.
pub fn fake_elf(extra: usize) -> Vec<u8> {
    let mut elf = vec![0u8; 64];
    elf[..4].copy_from_slice(b"\x7fELF");
    elf[4] = 2; // 64-bit
    elf[5] = 1; // little-endian
    elf[6] = 1; // ELF version 1
    elf[16] = 2; // executable
    elf[18] = 62; // x86-64
    elf[20] = 1;
    elf.extend((0..extra).map(|i| (i % 251) as u8));
    elf
}

/// One ZIP member to write.
pub enum Member<'a> {
    File { name: &'a str, bytes: &'a [u8], method: CompressionMethod, mode: u32 },
    Symlink { name: &'a str, target: &'a str },
    Directory { name: &'a str },
}

/// A ZIP of these members, made on Unix.
pub fn zip_of(members: &[Member<'_>]) -> Vec<u8> {
    let mut writer = ZipWriter::new(std::io::Cursor::new(Vec::new()));
    for member in members {
        match member {
            Member::File { name, bytes, method, mode } => {
                let options = SimpleFileOptions::default().compression_method(*method).unix_permissions(*mode);
                writer.start_file(*name, options).unwrap();
                writer.write_all(bytes).unwrap();
            }
            Member::Symlink { name, target } => {
                writer.add_symlink(*name, *target, SimpleFileOptions::default()).unwrap()
            }
            Member::Directory { name } => writer.add_directory(*name, SimpleFileOptions::default()).unwrap(),
        }
    }
    writer.finish().unwrap().into_inner()
}

/// The release archive as `scripts/release.sh` makes it: one deflated `relay-desktop`, 0755.
pub fn release_zip(executable: &[u8]) -> Vec<u8> {
    zip_of(&[Member::File {
        name: "relay-desktop",
        bytes: executable,
        method: CompressionMethod::Deflated,
        mode: 0o755,
    }])
}

/// A fake GitHub serving a signed release, a throwaway publisher and an updates root.
pub struct Setup {
    pub github: FakeGitHub,
    pub publisher: Publisher,
    pub files: ReleaseFiles,
    pub root: super::staging::UpdatesRoot,
    _tmp: tempfile::TempDir,
}

/// Archive bytes of the download tests: a real release ZIP, padded past a few progress steps.
pub fn test_archive() -> Vec<u8> {
    zip_of(&[Member::File {
        name: "relay-desktop",
        bytes: &fake_elf(700 * 1024),
        method: CompressionMethod::Stored,
        mode: 0o755,
    }])
}

impl Setup {
    /// Serves a correctly signed [`test_archive`].
    pub async fn start() -> Setup {
        let publisher = Publisher::new();
        let files = ReleaseFiles::signed(&publisher, test_archive());
        Setup::with_files(publisher, files).await
    }

    pub async fn with_files(publisher: Publisher, files: ReleaseFiles) -> Setup {
        let github = FakeGitHub::start().await;
        github.serve(&files);
        let tmp = tempfile::tempdir().unwrap();
        let root = super::staging::UpdatesRoot::open(&tmp.path().join("relay/updates")).unwrap();
        Setup { github, publisher, files, root, _tmp: tmp }
    }

    /// A downloader for this fake GitHub with a 5 s deadline and the publisher's key.
    pub fn downloader(&self) -> super::download::ReleaseDownloader {
        self.downloader_with(Duration::from_secs(5), self.publisher.key.clone())
    }

    pub fn downloader_with(&self, timeout: Duration, key: PublisherKey) -> super::download::ReleaseDownloader {
        super::download::ReleaseDownloader::with_policy(test_policy(timeout), self.github.hosts(), key).unwrap()
    }

    /// Downloads [`target`] of the served files, collecting the progress reports.
    pub async fn download(
        &self,
        downloader: &super::download::ReleaseDownloader,
    ) -> (
        Result<super::download::DownloadedRelease, super::download::UpdateDownloadError>,
        Vec<super::download::DownloadProgress>,
    ) {
        let mut reports = Vec::new();
        let cancel = tokio_util::sync::CancellationToken::new();
        let result =
            bounded(downloader.download(&self.root, &target(&self.files), &mut |p| reports.push(p), &cancel)).await;
        (result, reports)
    }

    /// Names in the updates root.
    pub fn root_entries(&self) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(self.root.path())
            .unwrap()
            .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }

    /// Paths the release-assets host was asked for.
    pub fn storage_paths(&self) -> Vec<String> {
        self.github.storage.requests().iter().map(|r| r.path().to_owned()).collect()
    }
}
