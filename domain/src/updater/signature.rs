//! The publisher signature every Relay release carries, independent of GitHub: a detached
//! minisign (Ed25519) signature of the archive bytes, shipped as the `<archive>.minisig` asset
//! and checked with `minisign-verify` against a key compiled into the binary
//! ([`PublisherKey::production`]). Only prehashed (`ED`, BLAKE2b-512) signatures are accepted,
//! and the signature is bound to its release: minisign's global signature covers the trusted
//! comment, which must be exactly [`expected_trusted_comment`]
//! (`relay-release v<version> <commit> <archive name>`), so an older signed archive cannot be
//! replayed under a newer tag, another commit or another name. It parses the signature file
//! strictly ([`parse_signature_file`]), verifies whole archives ([`verify_release_signature`])
//! or streams them ([`ArchiveSignatureVerifier`]) and refuses an unset key. It never signs (the
//! release tooling holds the private key) nor reads files: the caller passes bytes in.

use super::digest::CommitSha;
use super::release::{archive_asset_name, MAX_SIGNATURE_BYTES};
use super::version::Version;
use minisign_verify::{Error as MinisignError, PublicKey, Signature, StreamVerifier};
use thiserror::Error;

/// First word of the trusted comment of every release signature.
pub const TRUSTED_COMMENT_TAG: &str = "relay-release";
/// Prefix of a minisign signature file's first line.
const UNTRUSTED_COMMENT_PREFIX: &str = "untrusted comment: ";

/// The production publisher's minisign public key: the base64 line of its `minisign.pub`
/// (`RW…`, 56 characters).
///
/// PLACEHOLDER: no production key has been generated yet. While this is `None`,
/// [`PublisherKey::production`] is unconfigured and every verification is refused with
/// [`SignatureError::PublisherKeyNotConfigured`], so no update can be installed. The publisher
/// sets it to the line `relay-release-tool keygen` prints (see `docs/updater.md`, "Releasing")
/// before the first release.
pub const PRODUCTION_PUBLISHER_KEY: Option<&str> = None;

/// A signature check that fails; the updater reports `signature-invalid` and removes staging.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum SignatureError {
    #[error("No publisher key is configured in this build, so no release can be verified.")]
    PublisherKeyNotConfigured,
    #[error("The publisher key is not a valid minisign Ed25519 public key.")]
    InvalidPublisherKey,
    #[error("The signature file is empty or larger than 1 KiB.")]
    SignatureFileSize,
    #[error("The signature file is not a minisign signature.")]
    SignatureFileMalformed,
    #[error("The signature is a legacy (not prehashed) minisign signature.")]
    LegacySignature,
    #[error("The signature was made with another key.")]
    KeyIdMismatch,
    #[error("The publisher signature does not match this archive.")]
    SignatureMismatch,
    #[error("The signature was made for another release.")]
    TrustedCommentMismatch,
}

impl SignatureError {
    /// A stable, machine-readable code (`snake_case`).
    pub fn code(&self) -> &'static str {
        match self {
            SignatureError::PublisherKeyNotConfigured => "publisher_key_not_configured",
            SignatureError::InvalidPublisherKey => "invalid_publisher_key",
            SignatureError::SignatureFileSize => "signature_file_size",
            SignatureError::SignatureFileMalformed => "signature_file_malformed",
            SignatureError::LegacySignature => "legacy_signature",
            SignatureError::KeyIdMismatch => "signature_key_id_mismatch",
            SignatureError::SignatureMismatch => "signature_mismatch",
            SignatureError::TrustedCommentMismatch => "trusted_comment_mismatch",
        }
    }
}

/// The trusted comment a release's signature must carry, exactly:
/// `relay-release v<MAJOR.MINOR.PATCH> <40 lowercase hex commit> <archive asset name>`, single
/// spaces, no timestamp, nothing else.
pub fn expected_trusted_comment(version: &Version, commit: &CommitSha) -> String {
    format!("{TRUSTED_COMMENT_TAG} {} {commit} {}", version.tag(), archive_asset_name(version))
}

/// The key releases are verified against.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PublisherKey {
    key: Option<PublicKey>,
}

impl PublisherKey {
    /// The key compiled into this build ([`PRODUCTION_PUBLISHER_KEY`]); unconfigured while the
    /// constant is the placeholder `None` (or, defensively, not a usable key).
    pub fn production() -> PublisherKey {
        PRODUCTION_PUBLISHER_KEY
            .and_then(|text| PublisherKey::from_base64(text).ok())
            .unwrap_or(PublisherKey { key: None })
    }

    /// A key from the base64 line of a `minisign.pub` (algorithm, key id, 32-byte Ed25519 key).
    pub fn from_base64(text: &str) -> Result<PublisherKey, SignatureError> {
        let key = PublicKey::from_base64(text).map_err(|_| SignatureError::InvalidPublisherKey)?;
        Ok(PublisherKey { key: Some(key) })
    }

    /// Whether this key can verify anything.
    pub fn is_configured(&self) -> bool {
        self.key.is_some()
    }

    fn configured(&self) -> Result<&PublicKey, SignatureError> {
        self.key.as_ref().ok_or(SignatureError::PublisherKeyNotConfigured)
    }
}

/// A parsed `.minisig` asset (not yet verified).
#[derive(Clone)]
pub struct SignatureFile {
    signature: Signature,
}

impl std::fmt::Debug for SignatureFile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SignatureFile").field("trusted_comment", &self.signature.trusted_comment()).finish()
    }
}

impl SignatureFile {
    /// The trusted comment as written; authentic only after verification.
    pub fn trusted_comment(&self) -> &str {
        self.signature.trusted_comment()
    }
}

/// Parses a `.minisig` asset: 1..=1024 bytes of UTF-8 in exactly minisign's four lines
/// (`untrusted comment: …`, the base64 signature, `trusted comment: …`, the base64 global
/// signature), each ending in `\n` except that the last one may lack it; no `\r`, no blank or
/// extra line, a known algorithm and the exact binary lengths.
pub fn parse_signature_file(bytes: &[u8]) -> Result<SignatureFile, SignatureError> {
    if bytes.is_empty() || bytes.len() as u64 > MAX_SIGNATURE_BYTES {
        return Err(SignatureError::SignatureFileSize);
    }
    let malformed = SignatureError::SignatureFileMalformed;
    let text = std::str::from_utf8(bytes).map_err(|_| malformed.clone())?;
    let body = text.strip_suffix('\n').unwrap_or(text);
    let lines: Vec<&str> = body.split('\n').collect();
    let [untrusted, _, _, _] = lines.as_slice() else {
        return Err(malformed);
    };
    if body.contains('\r') || !untrusted.starts_with(UNTRUSTED_COMMENT_PREFIX) {
        return Err(malformed);
    }
    // `Signature::decode` requires the `trusted comment: ` prefix, the known algorithms and the
    // exact binary lengths.
    let signature = Signature::decode(body).map_err(|_| malformed)?;
    Ok(SignatureFile { signature })
}

fn verification_error(error: MinisignError) -> SignatureError {
    match error {
        MinisignError::UnexpectedAlgorithm | MinisignError::UnsupportedLegacyMode => SignatureError::LegacySignature,
        MinisignError::UnexpectedKeyId => SignatureError::KeyIdMismatch,
        _ => SignatureError::SignatureMismatch,
    }
}

fn check_trusted_comment(
    signature: &SignatureFile,
    version: &Version,
    commit: &CommitSha,
) -> Result<(), SignatureError> {
    if signature.trusted_comment() == expected_trusted_comment(version, commit) {
        Ok(())
    } else {
        Err(SignatureError::TrustedCommentMismatch)
    }
}

/// Verifies the publisher's `.minisig` over the whole archive: a configured key, a strictly
/// parsed file, a prehashed signature by that key over exactly these bytes (legacy signatures
/// refused), then the authenticated trusted comment naming this version, commit and archive.
pub fn verify_release_signature(
    archive: &[u8],
    signature_file: &[u8],
    version: &Version,
    commit: &CommitSha,
    key: &PublisherKey,
) -> Result<(), SignatureError> {
    let public_key = key.configured()?;
    let signature = parse_signature_file(signature_file)?;
    public_key.verify(archive, &signature.signature, false).map_err(verification_error)?;
    check_trusted_comment(&signature, version, commit)
}

/// The streaming form of [`verify_release_signature`] for archives of up to 512 MiB: feed the
/// archive bytes in order with [`ArchiveSignatureVerifier::update`] (for instance while they
/// are written and hashed), then [`ArchiveSignatureVerifier::finish`].
pub struct ArchiveSignatureVerifier<'a> {
    stream: StreamVerifier<'a>,
    signature: &'a SignatureFile,
    version: Version,
    commit: CommitSha,
}

impl<'a> ArchiveSignatureVerifier<'a> {
    /// Starts a verification; refuses an unset key, another key id and legacy signatures
    /// before any archive byte is read.
    pub fn new(
        key: &'a PublisherKey,
        signature: &'a SignatureFile,
        version: &Version,
        commit: &CommitSha,
    ) -> Result<ArchiveSignatureVerifier<'a>, SignatureError> {
        let stream = key.configured()?.verify_stream(&signature.signature).map_err(verification_error)?;
        Ok(ArchiveSignatureVerifier { stream, signature, version: *version, commit: *commit })
    }

    /// The next bytes of the archive.
    pub fn update(&mut self, bytes: &[u8]) {
        self.stream.update(bytes);
    }

    /// Checks the signature over every byte fed, then the authenticated trusted comment.
    pub fn finish(mut self) -> Result<(), SignatureError> {
        self.stream.finalize().map_err(verification_error)?;
        check_trusted_comment(self.signature, &self.version, &self.commit)
    }
}

#[cfg(test)]
#[path = "signature_tests.rs"]
mod tests;
