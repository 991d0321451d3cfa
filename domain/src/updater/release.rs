//! Release discovery: the fixed GitHub endpoints of the `CrimsonSoul/Relay` repository and the
//! decision on one "latest release" answer. [`check_discovery_response`] refuses any answer that
//! is not HTTP 200 JSON of at most [`MAX_RELEASE_JSON_BYTES`]; [`release_check_from_json`] turns a
//! published, non-draft, non-prerelease `v<version>` release into a [`ReleaseCheck`], which is
//! advisory for any newer release but installable only when the release is immutable, names a
//! 40-hex commit and carries exactly the archive, checksum and signature assets (uploaded, fixed
//! asset API URLs, bounded sizes, `sha256:` digests); every other shortfall is a typed
//! [`NotInstallableReason`]. [`confirm_refetch`] is the rule that the re-fetch just before a
//! download must agree with what was discovered. It refuses to fetch, follow redirects, read
//! headers itself or accept any repository, URL, version or asset name from outside: the
//! caller passes in the HTTP facts it observed and the body it read.

use super::digest::{CommitSha, Sha256Digest};
use super::recovery::QuarantineHistory;
use super::version::{Version, VersionError};
use serde::Serialize;
use serde_json::Value;
use thiserror::Error;

/// The only repository Relay updates from (`owner/name`).
pub const RELEASE_REPOSITORY: &str = "CrimsonSoul/Relay";
/// GitHub's latest normal release of [`RELEASE_REPOSITORY`].
pub const LATEST_RELEASE_URL: &str = "https://api.github.com/repos/CrimsonSoul/Relay/releases/latest";
/// The 20 most recent releases (Settings → About release notes).
pub const RELEASE_HISTORY_URL: &str = "https://api.github.com/repos/CrimsonSoul/Relay/releases?per_page=20";
/// The release page users are sent to when a release is not installable or nothing starts.
pub const RELEASES_PAGE_URL: &str = "https://github.com/CrimsonSoul/Relay/releases";
/// Every asset's API URL is this prefix followed by the asset's numeric id.
pub const ASSET_API_URL_PREFIX: &str = "https://api.github.com/repos/CrimsonSoul/Relay/releases/assets/";
/// `Accept` header of discovery requests.
pub const GITHUB_JSON_ACCEPT: &str = "application/vnd.github+json";
/// Name and value of the GitHub API version header sent with discovery requests.
pub const GITHUB_API_VERSION_HEADER: (&str, &str) = ("X-GitHub-Api-Version", "2022-11-28");
/// Whole-request deadline of a discovery request (milliseconds); redirects are refused.
pub const DISCOVERY_TIMEOUT_MS: u64 = 8_000;
/// How often the desktop checks on its own (milliseconds); the user can also check on demand.
pub const CHECK_INTERVAL_MS: u64 = 15 * 60 * 1_000;
/// Largest discovery body read (declared and counted).
pub const MAX_RELEASE_JSON_BYTES: u64 = 64 * 1024;
/// Largest release archive (the ZIP).
pub const MAX_ARCHIVE_BYTES: u64 = 512 * 1024 * 1024;
/// Largest checksum file.
pub const MAX_CHECKSUM_BYTES: u64 = 256;
/// Largest signature file.
pub const MAX_SIGNATURE_BYTES: u64 = 1024;
/// Largest asset id accepted (JavaScript's safe-integer bound, as GitHub ids are JSON numbers).
pub const MAX_ASSET_ID: u64 = (1 << 53) - 1;
/// Longest `published_at` text kept for display.
const MAX_PUBLISHED_AT_CHARS: usize = 40;

/// The API URL of one release by tag.
pub fn release_by_tag_url(version: &Version) -> String {
    format!("https://api.github.com/repos/CrimsonSoul/Relay/releases/tags/{}", version.tag())
}

/// The release page of one version, or the releases list without a version.
pub fn release_page_url(version: Option<&Version>) -> String {
    match version {
        Some(version) => format!("{RELEASES_PAGE_URL}/tag/{}", version.tag()),
        None => RELEASES_PAGE_URL.to_owned(),
    }
}

/// The only API URL an asset with this id may have.
pub fn asset_api_url(asset_id: u64) -> String {
    format!("{ASSET_API_URL_PREFIX}{asset_id}")
}

/// `User-Agent` of discovery requests.
pub fn discovery_user_agent(current: &Version) -> String {
    format!("Relay/{current}")
}

/// `relay-v<version>-linux-x86_64.zip`: the release archive.
pub fn archive_asset_name(version: &Version) -> String {
    format!("relay-{}-linux-x86_64.zip", version.tag())
}

/// `<archive>.sha256`: the checksum file.
pub fn checksum_asset_name(version: &Version) -> String {
    format!("{}.sha256", archive_asset_name(version))
}

/// `<archive>.minisig`: the publisher's detached minisign signature of the archive.
pub fn signature_asset_name(version: &Version) -> String {
    format!("{}.minisig", archive_asset_name(version))
}

/// The three assets of an installable release.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum AssetKind {
    Archive,
    Checksum,
    Signature,
}

impl AssetKind {
    /// All kinds, in the order they are reported.
    pub const ALL: [AssetKind; 3] = [AssetKind::Archive, AssetKind::Checksum, AssetKind::Signature];

    /// The exact asset name for `version`.
    pub fn asset_name(self, version: &Version) -> String {
        match self {
            AssetKind::Archive => archive_asset_name(version),
            AssetKind::Checksum => checksum_asset_name(version),
            AssetKind::Signature => signature_asset_name(version),
        }
    }

    /// Largest accepted size (the smallest is 1 byte for every kind).
    pub fn max_bytes(self) -> u64 {
        match self {
            AssetKind::Archive => MAX_ARCHIVE_BYTES,
            AssetKind::Checksum => MAX_CHECKSUM_BYTES,
            AssetKind::Signature => MAX_SIGNATURE_BYTES,
        }
    }

    fn index(self) -> usize {
        match self {
            AssetKind::Archive => 0,
            AssetKind::Checksum => 1,
            AssetKind::Signature => 2,
        }
    }
}

/// What the HTTP client observed about a discovery answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HttpFacts<'a> {
    pub status: u16,
    /// The `Content-Type` header, if any.
    pub content_type: Option<&'a str>,
    /// The `Content-Length` header, if any.
    pub content_length: Option<u64>,
    /// Bytes actually read (the caller stops reading past [`MAX_RELEASE_JSON_BYTES`]).
    pub body_len: u64,
}

/// A discovery answer that yields no check at all (logged, never shown).
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum DiscoveryError {
    #[error("GitHub answered with status {status} instead of 200.")]
    UnexpectedStatus { status: u16 },
    #[error("GitHub did not answer with JSON.")]
    NotJson,
    #[error("The release answer is larger than Relay accepts.")]
    TooLarge,
    #[error("The release answer is not valid JSON.")]
    InvalidJson,
    #[error("The release answer is missing a required field or has the wrong type.")]
    Malformed,
    #[error("The release is a draft.")]
    Draft,
    #[error("The release is a prerelease.")]
    Prerelease,
    #[error("The release tag is not v<MAJOR.MINOR.PATCH>: {0}")]
    InvalidTag(VersionError),
}

impl DiscoveryError {
    /// A stable, machine-readable code (`snake_case`).
    pub fn code(&self) -> &'static str {
        match self {
            DiscoveryError::UnexpectedStatus { .. } => "unexpected_status",
            DiscoveryError::NotJson => "not_json",
            DiscoveryError::TooLarge => "release_json_too_large",
            DiscoveryError::InvalidJson => "invalid_json",
            DiscoveryError::Malformed => "release_malformed",
            DiscoveryError::Draft => "release_draft",
            DiscoveryError::Prerelease => "release_prerelease",
            DiscoveryError::InvalidTag(_) => "release_tag_invalid",
        }
    }
}

/// Why a discovered release may be reviewed on GitHub but not installed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Error, Serialize)]
#[serde(tag = "code", content = "asset", rename_all = "kebab-case")]
pub enum NotInstallableReason {
    #[error("GitHub does not mark the release immutable.")]
    NotImmutable,
    #[error("The release does not name a full commit.")]
    TargetCommitInvalid,
    #[error("The release does not list its assets.")]
    AssetsNotAList,
    #[error("The release has the wrong number of assets.")]
    AssetCount,
    #[error("The release has an asset Relay does not expect.")]
    UnexpectedAsset,
    #[error("The release lists an asset twice.")]
    DuplicateAsset(AssetKind),
    #[error("The release lacks an expected asset.")]
    MissingAsset(AssetKind),
    #[error("An asset is not in the uploaded state.")]
    AssetNotUploaded(AssetKind),
    #[error("An asset id is not a positive integer.")]
    AssetIdInvalid(AssetKind),
    #[error("An asset URL is not the fixed asset API URL.")]
    AssetUrlMismatch(AssetKind),
    #[error("An asset size is out of bounds.")]
    AssetSizeOutOfBounds(AssetKind),
    #[error("An asset digest is not sha256:<64 hex>.")]
    AssetDigestInvalid(AssetKind),
}

impl NotInstallableReason {
    /// A stable, machine-readable code (`snake_case`).
    pub fn code(&self) -> &'static str {
        match self {
            NotInstallableReason::NotImmutable => "not_immutable",
            NotInstallableReason::TargetCommitInvalid => "target_commit_invalid",
            NotInstallableReason::AssetsNotAList => "assets_not_a_list",
            NotInstallableReason::AssetCount => "asset_count",
            NotInstallableReason::UnexpectedAsset => "unexpected_asset",
            NotInstallableReason::DuplicateAsset(_) => "duplicate_asset",
            NotInstallableReason::MissingAsset(_) => "missing_asset",
            NotInstallableReason::AssetNotUploaded(_) => "asset_not_uploaded",
            NotInstallableReason::AssetIdInvalid(_) => "asset_id_invalid",
            NotInstallableReason::AssetUrlMismatch(_) => "asset_url_mismatch",
            NotInstallableReason::AssetSizeOutOfBounds(_) => "asset_size_out_of_bounds",
            NotInstallableReason::AssetDigestInvalid(_) => "asset_digest_invalid",
        }
    }
}

/// One validated asset.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReleaseAsset {
    pub kind: AssetKind,
    pub name: String,
    pub id: u64,
    /// Always [`asset_api_url`]`(id)`.
    pub api_url: String,
    pub size: u64,
    /// GitHub's `digest` of the asset.
    pub digest: Sha256Digest,
}

/// The three validated assets of an installable release.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReleaseAssets {
    pub archive: ReleaseAsset,
    pub checksum: ReleaseAsset,
    pub signature: ReleaseAsset,
}

/// What Settings → About shows of a release; rendered as text, never as HTML.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ReleaseNotes {
    pub version: Version,
    /// The release name, or the tag when it has none.
    pub title: String,
    pub body: String,
    pub published_at: Option<String>,
    pub immutable: bool,
}

/// The outcome of one discovery.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReleaseCheck {
    pub current_version: Version,
    pub latest_version: Version,
    /// The release's commit when it is a full 40-hex SHA.
    pub target_commitish: Option<CommitSha>,
    /// The latest release is newer than the running one.
    pub update_available: bool,
    /// Newer and no [`NotInstallableReason`].
    pub installable: bool,
    /// The archive's size when it is listed once with a size in bounds.
    pub archive_size: Option<u64>,
    pub release_notes: ReleaseNotes,
    /// Empty exactly when the release itself is installable.
    pub not_installable_reasons: Vec<NotInstallableReason>,
    /// The three assets, present exactly when `not_installable_reasons` is empty.
    pub assets: Option<ReleaseAssets>,
}

/// Refuses a discovery answer by its HTTP facts alone: status 200, `application/json` (any
/// parameters), declared and read length at most [`MAX_RELEASE_JSON_BYTES`].
pub fn check_discovery_response(facts: &HttpFacts<'_>) -> Result<(), DiscoveryError> {
    check_json_response(facts, MAX_RELEASE_JSON_BYTES)
}

/// [`check_discovery_response`] with another size limit (the release history's is larger).
pub fn check_json_response(facts: &HttpFacts<'_>, max_bytes: u64) -> Result<(), DiscoveryError> {
    if facts.status != 200 {
        return Err(DiscoveryError::UnexpectedStatus { status: facts.status });
    }
    let media_type = facts.content_type.and_then(|value| value.split(';').next()).map(str::trim);
    if !media_type.is_some_and(|media| media.eq_ignore_ascii_case("application/json")) {
        return Err(DiscoveryError::NotJson);
    }
    if facts.content_length.is_some_and(|len| len > max_bytes) || facts.body_len > max_bytes {
        return Err(DiscoveryError::TooLarge);
    }
    Ok(())
}

/// The whole discovery decision: the HTTP facts, then the body (which must be the bytes read).
pub fn evaluate_latest_release(
    facts: &HttpFacts<'_>,
    body: &[u8],
    current: Version,
) -> Result<ReleaseCheck, DiscoveryError> {
    check_discovery_response(facts)?;
    if body.len() as u64 > MAX_RELEASE_JSON_BYTES {
        return Err(DiscoveryError::TooLarge);
    }
    let value: Value = serde_json::from_slice(body).map_err(|_| DiscoveryError::InvalidJson)?;
    release_check_from_json(&value, current)
}

/// Decides one GitHub release object against the running version.
pub fn release_check_from_json(release: &Value, current: Version) -> Result<ReleaseCheck, DiscoveryError> {
    let release = release.as_object().ok_or(DiscoveryError::Malformed)?;
    match release.get("draft") {
        Some(Value::Bool(false)) => {}
        Some(Value::Bool(true)) => return Err(DiscoveryError::Draft),
        _ => return Err(DiscoveryError::Malformed),
    }
    match release.get("prerelease") {
        Some(Value::Bool(false)) => {}
        Some(Value::Bool(true)) => return Err(DiscoveryError::Prerelease),
        _ => return Err(DiscoveryError::Malformed),
    }
    let tag = release.get("tag_name").and_then(Value::as_str).ok_or(DiscoveryError::Malformed)?;
    let latest = Version::parse_tag(tag).map_err(DiscoveryError::InvalidTag)?;
    let immutable = release.get("immutable") == Some(&Value::Bool(true));

    let mut reasons = Vec::new();
    if !immutable {
        reasons.push(NotInstallableReason::NotImmutable);
    }
    let commit = release.get("target_commitish").and_then(Value::as_str).and_then(CommitSha::parse_hex);
    if commit.is_none() {
        reasons.push(NotInstallableReason::TargetCommitInvalid);
    }
    let (assets, archive_size) = evaluate_assets(release.get("assets"), &latest, &mut reasons);

    let title = match release.get("name").and_then(Value::as_str).map(str::trim) {
        Some(name) if !name.is_empty() => name.to_owned(),
        _ => latest.tag(),
    };
    let body = release.get("body").and_then(Value::as_str).unwrap_or_default().to_owned();
    let published_at = release
        .get("published_at")
        .and_then(Value::as_str)
        .filter(|text| text.len() <= MAX_PUBLISHED_AT_CHARS && !text.chars().any(char::is_control))
        .map(str::to_owned);

    let update_available = latest > current;
    Ok(ReleaseCheck {
        current_version: current,
        latest_version: latest,
        target_commitish: commit,
        update_available,
        installable: update_available && reasons.is_empty(),
        archive_size,
        release_notes: ReleaseNotes { version: latest, title, body, published_at, immutable },
        assets: if reasons.is_empty() { assets } else { None },
        not_installable_reasons: reasons,
    })
}

fn evaluate_assets(
    assets: Option<&Value>,
    version: &Version,
    reasons: &mut Vec<NotInstallableReason>,
) -> (Option<ReleaseAssets>, Option<u64>) {
    let Some(Value::Array(items)) = assets else {
        reasons.push(NotInstallableReason::AssetsNotAList);
        return (None, None);
    };
    if items.len() != AssetKind::ALL.len() {
        reasons.push(NotInstallableReason::AssetCount);
    }
    let names = AssetKind::ALL.map(|kind| kind.asset_name(version));
    let mut found: [Option<&Value>; 3] = [None, None, None];
    for item in items {
        let name = item.get("name").and_then(Value::as_str);
        match AssetKind::ALL.into_iter().find(|kind| Some(names[kind.index()].as_str()) == name) {
            None => push_once(reasons, NotInstallableReason::UnexpectedAsset),
            Some(kind) if found[kind.index()].is_some() => {
                push_once(reasons, NotInstallableReason::DuplicateAsset(kind))
            }
            Some(kind) => found[kind.index()] = Some(item),
        }
    }
    let mut validated: [Option<ReleaseAsset>; 3] = [None, None, None];
    let mut archive_size = None;
    for kind in AssetKind::ALL {
        let Some(item) = found[kind.index()] else {
            reasons.push(NotInstallableReason::MissingAsset(kind));
            continue;
        };
        let size = item.get("size").and_then(Value::as_u64).filter(|size| (1..=kind.max_bytes()).contains(size));
        if kind == AssetKind::Archive && !reasons.contains(&NotInstallableReason::DuplicateAsset(kind)) {
            archive_size = size;
        }
        validated[kind.index()] = validate_asset(item, kind, &names[kind.index()], size, reasons);
    }
    match validated {
        [Some(archive), Some(checksum), Some(signature)] => {
            (Some(ReleaseAssets { archive, checksum, signature }), archive_size)
        }
        _ => (None, archive_size),
    }
}

fn validate_asset(
    item: &Value,
    kind: AssetKind,
    name: &str,
    size: Option<u64>,
    reasons: &mut Vec<NotInstallableReason>,
) -> Option<ReleaseAsset> {
    let before = reasons.len();
    if item.get("state").and_then(Value::as_str) != Some("uploaded") {
        reasons.push(NotInstallableReason::AssetNotUploaded(kind));
    }
    let id = item.get("id").and_then(Value::as_u64).filter(|id| (1..=MAX_ASSET_ID).contains(id));
    match id {
        None => reasons.push(NotInstallableReason::AssetIdInvalid(kind)),
        Some(id) if item.get("url").and_then(Value::as_str) != Some(asset_api_url(id).as_str()) => {
            reasons.push(NotInstallableReason::AssetUrlMismatch(kind))
        }
        Some(_) => {}
    }
    if size.is_none() {
        reasons.push(NotInstallableReason::AssetSizeOutOfBounds(kind));
    }
    let digest = item
        .get("digest")
        .and_then(Value::as_str)
        .and_then(|digest| digest.strip_prefix("sha256:"))
        .and_then(Sha256Digest::parse_hex);
    if digest.is_none() {
        reasons.push(NotInstallableReason::AssetDigestInvalid(kind));
    }
    match (id, size, digest) {
        (Some(id), Some(size), Some(digest)) if reasons.len() == before => {
            Some(ReleaseAsset { kind, name: name.to_owned(), id, api_url: asset_api_url(id), size, digest })
        }
        _ => None,
    }
}

fn push_once(reasons: &mut Vec<NotInstallableReason>, reason: NotInstallableReason) {
    if !reasons.contains(&reason) {
        reasons.push(reason);
    }
}

/// The release a download goes ahead with: what the re-fetch confirmed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InstallTarget {
    pub version: Version,
    pub commit: CommitSha,
    pub assets: ReleaseAssets,
}

/// Why the re-fetch before a download refuses to go ahead.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ResolveError {
    #[error("GitHub's latest release changed after update discovery.")]
    ReleaseChanged,
    #[error("The latest release is not newer than the running version.")]
    NotNewer,
    #[error("GitHub does not mark the release immutable.")]
    NotImmutable,
    #[error("The release is not installable.")]
    NotInstallable,
    #[error("This release failed its health probation before and is quarantined.")]
    Quarantined,
}

impl ResolveError {
    /// A stable, machine-readable code (`snake_case`).
    pub fn code(&self) -> &'static str {
        match self {
            ResolveError::ReleaseChanged => "release_changed",
            ResolveError::NotNewer => "release_not_newer",
            ResolveError::NotImmutable => "release_not_immutable",
            ResolveError::NotInstallable => "release_not_installable",
            ResolveError::Quarantined => "release_quarantined",
        }
    }
}

/// The re-fetch just before a download must describe the same release as the discovery the user
/// acted on (version, commit, and every asset's id, size and digest), still newer, immutable,
/// installable and not quarantined.
pub fn confirm_refetch(
    discovered: &ReleaseCheck,
    refetched: &ReleaseCheck,
    quarantine: &QuarantineHistory,
) -> Result<InstallTarget, ResolveError> {
    if refetched.latest_version != discovered.latest_version {
        return Err(ResolveError::ReleaseChanged);
    }
    if !refetched.update_available {
        return Err(ResolveError::NotNewer);
    }
    if !refetched.release_notes.immutable {
        return Err(ResolveError::NotImmutable);
    }
    let (Some(commit), Some(assets), true) = (refetched.target_commitish, &refetched.assets, refetched.installable)
    else {
        return Err(ResolveError::NotInstallable);
    };
    if discovered.target_commitish != Some(commit) || discovered.assets.as_ref() != Some(assets) {
        return Err(ResolveError::ReleaseChanged);
    }
    if quarantine.contains(&refetched.latest_version, &commit) {
        return Err(ResolveError::Quarantined);
    }
    Ok(InstallTarget { version: refetched.latest_version, commit, assets: assets.clone() })
}

/// Why a retained build cannot be repaired from its GitHub release.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum RepairError {
    #[error("GitHub answered another release than the retained build's version.")]
    VersionMismatch,
    #[error("The release's commit is not the retained build's commit.")]
    CommitMismatch,
    #[error("GitHub does not mark the release immutable.")]
    NotImmutable,
    #[error("The release does not carry exactly the expected, verifiable assets.")]
    NotInstallable,
}

impl RepairError {
    /// A stable, machine-readable code (`snake_case`).
    pub fn code(&self) -> &'static str {
        match self {
            RepairError::VersionMismatch => "repair_version_mismatch",
            RepairError::CommitMismatch => "repair_commit_mismatch",
            RepairError::NotImmutable => "release_not_immutable",
            RepairError::NotInstallable => "release_not_installable",
        }
    }
}

/// The release a repair downloads: GitHub's release for the retained build's exact tag must be
/// that version, at exactly the build's full commit, immutable, with the three expected assets
/// (the same checks as an update, except that it is not newer than the running version).
pub fn repair_target(check: &ReleaseCheck, version: Version, commit: CommitSha) -> Result<InstallTarget, RepairError> {
    if check.latest_version != version {
        return Err(RepairError::VersionMismatch);
    }
    if check.target_commitish != Some(commit) {
        return Err(RepairError::CommitMismatch);
    }
    if !check.release_notes.immutable {
        return Err(RepairError::NotImmutable);
    }
    match (&check.assets, check.not_installable_reasons.is_empty()) {
        (Some(assets), true) => Ok(InstallTarget { version, commit, assets: assets.clone() }),
        _ => Err(RepairError::NotInstallable),
    }
}

#[cfg(test)]
#[path = "release_tests.rs"]
mod tests;
