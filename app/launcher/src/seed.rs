//! The packaged seed build: the `relay-desktop` Debian package installs the launcher as
//! `<prefix>/bin/relay-launcher` and the desktop runtime it was released with as
//! `<prefix>/lib/relay-desktop/relay-desktop`, beside `seed.json`, its manifest
//! (`{"version": "X.Y.Z", "commit": "<40 hex>", "sha256": "<64 hex>"}`, nothing else, at most
//! 4 KiB, read once without following a link). On a user's first start (no catalog yet, under
//! the recovery lock) the run installs that build into the user's managed root exactly as
//! `relay-launcher install` does, and also checks that the copied bytes hash to the manifest's
//! SHA-256 (`infra::recovery::install_seed_runtime`: copied to a `.partial-*` directory,
//! verified, renamed into place last); the catalog's bootstrap then adopts it. A root that
//! already has a runtime is left alone (`already_installed`): the seed is only ever the first
//! runtime, and later versions come through the signed updater, never from the package. Without a
//! manifest (a launcher not installed from the package) nothing happens; a manifest that
//! cannot be read or does not verify installs nothing, so the run fails closed as before.

use std::fs::{File, OpenOptions};
use std::io::Read;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

use domain::updater::{CommitSha, Sha256Digest, Version};
use infra::recovery::{ManagedRoot, RecoveryIoError, RecoveryLock};

/// Where the seed lives, relative to the launcher's installation prefix.
pub const SEED_DIR: &str = "lib/relay-desktop";
/// The manifest's name inside [`SEED_DIR`].
pub const MANIFEST_NAME: &str = "seed.json";
/// The seed executable's name inside [`SEED_DIR`].
pub const EXECUTABLE_NAME: &str = "relay-desktop";
const MAX_MANIFEST_BYTES: u64 = 4096;
const LOG: &str = "relay::launcher";

/// The seed directory of a launcher at `exe` (`<prefix>/bin/relay-launcher` →
/// `<prefix>/lib/relay-desktop`).
pub fn seed_dir_for(exe: &Path) -> Option<PathBuf> {
    Some(exe.parent()?.parent()?.join(SEED_DIR))
}

/// A verified manifest: the executable to copy and what it must be.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Seed {
    pub executable: PathBuf,
    pub version: Version,
    pub commit: CommitSha,
    pub sha256: Sha256Digest,
}

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct Manifest {
    version: String,
    commit: String,
    sha256: String,
}

/// Why a seed cannot be used (each one installs nothing).
#[derive(Debug, thiserror::Error)]
pub enum SeedError {
    #[error("the seed manifest cannot be read: {0}")]
    Unreadable(std::io::Error),
    #[error("the seed manifest is not a regular file of at most 4 KiB")]
    NotAFile,
    #[error("the seed manifest is malformed: {0}")]
    Malformed(String),
}

impl SeedError {
    pub fn code(&self) -> &'static str {
        match self {
            SeedError::Unreadable(_) => "seed_unreadable",
            SeedError::NotAFile => "seed_not_a_file",
            SeedError::Malformed(_) => "seed_malformed",
        }
    }
}

/// Parses a manifest's bytes (strict: the three fields, each in its exact form).
pub fn parse_manifest(dir: &Path, bytes: &[u8]) -> Result<Seed, SeedError> {
    let manifest: Manifest =
        serde_json::from_slice(bytes).map_err(|error| SeedError::Malformed(format!("not the manifest: {error}")))?;
    let (version, commit) = infra::recovery::parse_release(&manifest.version, &manifest.commit)
        .map_err(|error| SeedError::Malformed(error.to_string()))?;
    let sha256 = Sha256Digest::parse_hex(&manifest.sha256)
        .ok_or_else(|| SeedError::Malformed("sha256 is not 64 lowercase hex characters".into()))?;
    Ok(Seed { executable: dir.join(EXECUTABLE_NAME), version, commit, sha256 })
}

/// The manifest in `dir`: `None` when there is none (no packaged seed).
pub fn read(dir: &Path) -> Result<Option<Seed>, SeedError> {
    let opened = OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC | libc::O_NONBLOCK)
        .open(dir.join(MANIFEST_NAME));
    let file: File = match opened {
        Ok(file) => file,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(error) => return Err(SeedError::Unreadable(error)),
    };
    let meta = file.metadata().map_err(SeedError::Unreadable)?;
    if !meta.is_file() || meta.len() > MAX_MANIFEST_BYTES {
        return Err(SeedError::NotAFile);
    }
    let mut bytes = Vec::new();
    file.take(MAX_MANIFEST_BYTES + 1).read_to_end(&mut bytes).map_err(SeedError::Unreadable)?;
    if bytes.len() as u64 > MAX_MANIFEST_BYTES {
        return Err(SeedError::NotAFile);
    }
    parse_manifest(dir, &bytes).map(Some)
}

/// What the first start did with the seed.
#[derive(Debug)]
pub enum Outcome {
    /// No manifest: not a packaged installation.
    NoSeed,
    Installed,
    /// The root already holds a runtime (an earlier install): the seed is not needed.
    AlreadyInstalled,
    /// The seed could not be used; nothing was installed.
    Refused,
}

/// On a root without a catalog, under the held lock: installs the seed in `dir` as the first
/// runtime (see the module paragraph). Logs what happened; never an error of the run (the
/// bootstrap that follows decides whether anything can start).
pub fn install_on_first_start(root: &ManagedRoot, lock: &RecoveryLock, dir: &Path) -> Outcome {
    let seed = match read(dir) {
        Ok(Some(seed)) => seed,
        Ok(None) => return Outcome::NoSeed,
        Err(error) => {
            tracing::warn!(target: LOG, code = error.code(), "the packaged seed build is unusable: {error}");
            return Outcome::Refused;
        }
    };
    match infra::recovery::install_seed_runtime(root, lock, &seed.executable, &seed.sha256, seed.version, seed.commit) {
        Ok(build) => {
            tracing::info!(target: LOG, build = %build, "first start: the packaged seed build installed");
            Outcome::Installed
        }
        Err(RecoveryIoError::AlreadyInstalled) => Outcome::AlreadyInstalled,
        Err(error) => {
            tracing::warn!(target: LOG, code = error.code(), "the packaged seed build was not installed");
            Outcome::Refused
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const COMMIT: &str = "0123abcd0123abcd0123abcd0123abcd0123abcd";

    fn sha() -> String {
        "ab".repeat(32)
    }

    #[test]
    fn the_seed_sits_under_the_launchers_prefix() {
        assert_eq!(seed_dir_for(Path::new("/usr/bin/relay-launcher")), Some(PathBuf::from("/usr/lib/relay-desktop")));
        assert_eq!(
            seed_dir_for(Path::new("/tmp/root/usr/bin/relay-launcher")),
            Some(PathBuf::from("/tmp/root/usr/lib/relay-desktop"))
        );
        assert_eq!(seed_dir_for(Path::new("/relay-launcher")), None);
    }

    #[test]
    fn a_manifest_names_exactly_a_release_and_a_digest() {
        let dir = Path::new("/usr/lib/relay-desktop");
        let ok = format!(r#"{{"version": "0.1.0", "commit": "{COMMIT}", "sha256": "{}"}}"#, sha());
        let seed = parse_manifest(dir, ok.as_bytes()).unwrap();
        assert_eq!(seed.executable, PathBuf::from("/usr/lib/relay-desktop/relay-desktop"));
        assert_eq!(
            (seed.version.to_string(), seed.commit.to_hex(), seed.sha256.to_hex()),
            ("0.1.0".into(), COMMIT.into(), sha())
        );
        let refused = [
            format!(r#"{{"version": "0.1.0", "commit": "{COMMIT}"}}"#),
            format!(r#"{{"version": "0.1.0", "commit": "{COMMIT}", "sha256": "{}", "path": "/bin/sh"}}"#, sha()),
            format!(r#"{{"version": "v0.1.0", "commit": "{COMMIT}", "sha256": "{}"}}"#, sha()),
            format!(r#"{{"version": "0.1.0", "commit": "0123abcd", "sha256": "{}"}}"#, sha()),
            format!(r#"{{"version": "0.1.0", "commit": "{COMMIT}", "sha256": "{}"}}"#, "AB".repeat(32)),
            format!(r#"{{"version": "0.1.0", "commit": "{COMMIT}", "sha256": "{}"}}"#, "ab".repeat(31)),
            "version=0.1.0".into(),
        ];
        for text in refused {
            assert!(matches!(parse_manifest(dir, text.as_bytes()), Err(SeedError::Malformed(_))), "{text}");
        }
    }

    #[test]
    fn no_manifest_is_no_seed_and_a_linked_or_oversized_one_is_refused() {
        let tmp = tempfile::tempdir().unwrap();
        assert!(matches!(read(tmp.path()), Ok(None)));
        let real = tmp.path().join("elsewhere.json");
        std::fs::write(&real, format!(r#"{{"version":"0.1.0","commit":"{COMMIT}","sha256":"{}"}}"#, sha())).unwrap();
        std::os::unix::fs::symlink(&real, tmp.path().join(MANIFEST_NAME)).unwrap();
        assert!(matches!(read(tmp.path()), Err(SeedError::Unreadable(_))));
        std::fs::remove_file(tmp.path().join(MANIFEST_NAME)).unwrap();
        std::fs::write(tmp.path().join(MANIFEST_NAME), vec![b' '; 5000]).unwrap();
        assert!(matches!(read(tmp.path()), Err(SeedError::NotAFile)));
        std::fs::rename(&real, tmp.path().join(MANIFEST_NAME)).unwrap();
        assert_eq!(read(tmp.path()).unwrap().unwrap().version.to_string(), "0.1.0");
    }
}
