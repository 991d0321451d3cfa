//! The publisher signature every Relay release carries, independent of GitHub: a canonical,
//! versioned, line-based [`ReleaseManifest`] (repository, version, tag, commit, archive name,
//! size and SHA-256, executable name, size and SHA-256) signed with Ed25519 by the publisher
//! key, shipped as the `<archive>.sig` asset ([`signature_file_text`], [`parse_signature_file`]),
//! and checked with strict verification against a key compiled into the binary
//! ([`verify_release_signature`], [`PublisherKey::production`]). The updater never parses a
//! manifest it downloaded: it rebuilds the manifest from the facts it verified itself (the
//! confirmed release, the archive digest, the extracted executable's size and digest), so a
//! signature over any other release, version, archive or executable fails. It refuses unset,
//! malformed and weak keys, non-canonical signature files and malleable signatures, and it never
//! signs (the release tooling holds the private key) nor reads files.

use super::archive::EXECUTABLE_NAME;
use super::digest::{CommitSha, Sha256Digest};
use super::release::{archive_asset_name, MAX_SIGNATURE_BYTES, RELEASE_REPOSITORY};
use super::version::Version;
use base64::engine::general_purpose::STANDARD;
use base64::Engine as _;
use ed25519_dalek::{Signature, VerifyingKey};
use thiserror::Error;

/// First line of a manifest: the format and its version.
pub const MANIFEST_FORMAT: &str = "relay-release-manifest-v1";
/// First line of a signature file.
pub const SIGNATURE_FILE_FORMAT: &str = "relay-release-signature-v1";

/// The production publisher's Ed25519 public key (32 bytes).
///
/// PLACEHOLDER: no production key has been generated yet. While this is `None`,
/// [`PublisherKey::production`] is unconfigured and [`verify_release_signature`] refuses every
/// release with [`SignatureError::PublisherKeyNotConfigured`], so no update can be installed.
/// Set it to the public half of the release key (see `docs/updater.md`) before the first release.
pub const PRODUCTION_PUBLISHER_KEY: Option<[u8; 32]> = None;

/// A signature check that fails; the updater reports `signature-invalid` and removes staging.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum SignatureError {
    #[error("No publisher key is configured in this build, so no release can be verified.")]
    PublisherKeyNotConfigured,
    #[error("The publisher key is not a valid Ed25519 public key.")]
    InvalidPublisherKey,
    #[error("The signature file is empty or larger than 1 KiB.")]
    SignatureFileSize,
    #[error("The signature file is not in the expected format.")]
    SignatureFileMalformed,
    #[error("The publisher signature does not match this release.")]
    SignatureMismatch,
    #[error("The release manifest is not in the canonical format.")]
    ManifestMalformed,
}

impl SignatureError {
    /// A stable, machine-readable code (`snake_case`).
    pub fn code(&self) -> &'static str {
        match self {
            SignatureError::PublisherKeyNotConfigured => "publisher_key_not_configured",
            SignatureError::InvalidPublisherKey => "invalid_publisher_key",
            SignatureError::SignatureFileSize => "signature_file_size",
            SignatureError::SignatureFileMalformed => "signature_file_malformed",
            SignatureError::SignatureMismatch => "signature_mismatch",
            SignatureError::ManifestMalformed => "manifest_malformed",
        }
    }
}

/// What the publisher signs about one release. The tag, archive name, executable name and
/// repository are derived, never stored, so they cannot disagree with the version.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReleaseManifest {
    pub version: Version,
    pub commit: CommitSha,
    pub archive_size: u64,
    pub archive_sha256: Sha256Digest,
    pub executable_size: u64,
    pub executable_sha256: Sha256Digest,
}

impl ReleaseManifest {
    /// The exact signed bytes: eleven `key value` lines (the first is the bare format tag), each
    /// ending in `\n`, decimal sizes without leading zeros, lowercase hex.
    pub fn to_bytes(&self) -> Vec<u8> {
        format!(
            "{MANIFEST_FORMAT}\nrepository {RELEASE_REPOSITORY}\nversion {}\ntag {}\ncommit {}\narchive {}\n\
             archive-size {}\narchive-sha256 {}\nexecutable {EXECUTABLE_NAME}\nexecutable-size {}\n\
             executable-sha256 {}\n",
            self.version,
            self.version.tag(),
            self.commit,
            archive_asset_name(&self.version),
            self.archive_size,
            self.archive_sha256,
            self.executable_size,
            self.executable_sha256,
        )
        .into_bytes()
    }

    /// Parses manifest bytes (for the release tooling's self-check): accepted only when they are
    /// exactly what [`ReleaseManifest::to_bytes`] produces for the parsed values.
    pub fn parse(bytes: &[u8]) -> Result<ReleaseManifest, SignatureError> {
        let malformed = || SignatureError::ManifestMalformed;
        let text = std::str::from_utf8(bytes).map_err(|_| malformed())?;
        let mut fields = std::collections::HashMap::new();
        for line in text.lines().skip(1) {
            let (key, value) = line.split_once(' ').ok_or_else(malformed)?;
            fields.insert(key, value);
        }
        let field = |key: &str| fields.get(key).copied().ok_or_else(malformed);
        let size = |key: &str| -> Result<u64, SignatureError> {
            let text = field(key)?;
            if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
                return Err(malformed());
            }
            text.parse().map_err(|_| malformed())
        };
        let manifest = ReleaseManifest {
            version: Version::parse(field("version")?).map_err(|_| malformed())?,
            commit: CommitSha::parse_hex(field("commit")?).ok_or_else(malformed)?,
            archive_size: size("archive-size")?,
            archive_sha256: Sha256Digest::parse_hex(field("archive-sha256")?).ok_or_else(malformed)?,
            executable_size: size("executable-size")?,
            executable_sha256: Sha256Digest::parse_hex(field("executable-sha256")?).ok_or_else(malformed)?,
        };
        if manifest.to_bytes() == bytes {
            Ok(manifest)
        } else {
            Err(malformed())
        }
    }
}

/// The key releases are verified against.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PublisherKey {
    key: Option<VerifyingKey>,
}

impl PublisherKey {
    /// The key compiled into this build ([`PRODUCTION_PUBLISHER_KEY`]); unconfigured while the
    /// constant is the placeholder `None` (or, defensively, not a usable key).
    pub fn production() -> PublisherKey {
        match PRODUCTION_PUBLISHER_KEY {
            Some(bytes) => PublisherKey::from_bytes(&bytes).unwrap_or(PublisherKey { key: None }),
            None => PublisherKey { key: None },
        }
    }

    /// A key from its 32 bytes; refuses bytes that are not a curve point and weak (small-order)
    /// keys.
    pub fn from_bytes(bytes: &[u8; 32]) -> Result<PublisherKey, SignatureError> {
        let key = VerifyingKey::from_bytes(bytes).map_err(|_| SignatureError::InvalidPublisherKey)?;
        if key.is_weak() {
            return Err(SignatureError::InvalidPublisherKey);
        }
        Ok(PublisherKey { key: Some(key) })
    }

    /// Whether this key can verify anything.
    pub fn is_configured(&self) -> bool {
        self.key.is_some()
    }
}

/// The `.sig` asset's text for a signature: the format line, then the standard padded base64 of
/// the 64 signature bytes, each line ending in `\n`.
pub fn signature_file_text(signature: &[u8; 64]) -> String {
    format!("{SIGNATURE_FILE_FORMAT}\n{}\n", STANDARD.encode(signature))
}

/// Parses a `.sig` asset; only the exact bytes [`signature_file_text`] produces are accepted.
pub fn parse_signature_file(bytes: &[u8]) -> Result<[u8; 64], SignatureError> {
    if bytes.is_empty() || bytes.len() as u64 > MAX_SIGNATURE_BYTES {
        return Err(SignatureError::SignatureFileSize);
    }
    let malformed = SignatureError::SignatureFileMalformed;
    let text = std::str::from_utf8(bytes).map_err(|_| malformed.clone())?;
    let encoded = text
        .strip_prefix(SIGNATURE_FILE_FORMAT)
        .and_then(|rest| rest.strip_prefix('\n'))
        .and_then(|rest| rest.strip_suffix('\n'))
        .ok_or(malformed.clone())?;
    // The standard engine requires canonical padding and zero trailing bits, so exactly one
    // text decodes to each signature.
    let decoded = STANDARD.decode(encoded).map_err(|_| malformed.clone())?;
    decoded.try_into().map_err(|_| malformed)
}

/// Verifies the publisher's signature file over `manifest` with Ed25519 strict verification
/// (no small-order components, canonical `S`).
pub fn verify_release_signature(
    manifest: &ReleaseManifest,
    signature_file: &[u8],
    key: &PublisherKey,
) -> Result<(), SignatureError> {
    let Some(verifying_key) = key.key else {
        return Err(SignatureError::PublisherKeyNotConfigured);
    };
    let signature = Signature::from_bytes(&parse_signature_file(signature_file)?);
    verifying_key.verify_strict(&manifest.to_bytes(), &signature).map_err(|_| SignatureError::SignatureMismatch)
}

#[cfg(test)]
#[path = "signature_tests.rs"]
mod tests;
