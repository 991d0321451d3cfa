//! Where a desktop secret (the remembered connection passphrase) may be kept: the rule that mirrors
//! Electron's `safeStorage` policy. The OS secret store (Secret Service on Linux, the Keychain or
//! DPAPI elsewhere) is always preferred; without it a development or test build may fall back to
//! an owner-only plaintext file, while a packaged build refuses plaintext and keeps the secret in
//! memory for the running session only. The secrets' lookup keys are derived here too: one entry
//! per server origin for a client's remembered passphrase (never offered to another server), and
//! one per data directory for a desktop server's own passphrase, one per key for a `relay device`
//! signing key. A device key may fall back to a plaintext file only in a development build and
//! only when the operator asked for it explicitly ([`device_key_storage`]). Pure rules only;
//! `infra::secret_store` does the IO.

use serde::Serialize;

/// The kind of build deciding the fallback: `Packaged` is a release-channel build.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BuildKind {
    Development,
    Packaged,
}

/// Where secrets go on this machine, as reported to the operator.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum SecretStorage {
    /// Encrypted by the OS secret store.
    OsSecretStore,
    /// Owner-only (0600) plaintext file in the data directory: development and test builds only.
    OwnerOnlyFile,
    /// Nothing is persisted: a packaged build without an OS secret store.
    MemoryOnly,
}

impl SecretStorage {
    /// Whether a remembered secret survives a restart.
    pub fn persists(self) -> bool {
        self != SecretStorage::MemoryOnly
    }
}

/// The storage to use given whether the OS secret store answered and the build kind.
pub fn choose_storage(os_store_available: bool, build: BuildKind) -> SecretStorage {
    match (os_store_available, build) {
        (true, _) => SecretStorage::OsSecretStore,
        (false, BuildKind::Development) => SecretStorage::OwnerOnlyFile,
        (false, BuildKind::Packaged) => SecretStorage::MemoryOnly,
    }
}

/// Longest server origin accepted as a secret's key, in bytes.
pub const MAX_SECRET_SCOPE_LEN: usize = 300;

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SecretKeyError {
    #[error("the secret's server origin is empty, too long or not a plain origin")]
    InvalidScope,
}

/// The entry name a server's passphrase is stored under: `connection-passphrase:<hex sha-256 of
/// the origin>` (fixed length, filesystem safe, and not the origin itself, so a file listing
/// reveals no server names). The origin must already be normalized (`scheme://host[:port]`).
pub fn passphrase_entry(server_origin: &str) -> Result<String, SecretKeyError> {
    let plain_origin = server_origin.starts_with("https://") || server_origin.starts_with("http://");
    let clean = !server_origin.is_empty()
        && server_origin.len() <= MAX_SECRET_SCOPE_LEN
        && plain_origin
        && !server_origin.chars().any(|c| c.is_control() || c.is_whitespace())
        && server_origin.matches('/').count() == 2;
    if !clean {
        return Err(SecretKeyError::InvalidScope);
    }
    Ok(format!("connection-passphrase:{}", crate::canonical::sha256_hex(server_origin.as_bytes())))
}

/// The entry name a desktop server's own connection passphrase is stored under:
/// `server-passphrase:<hex sha-256 of the data directory's canonical path>`, so two data
/// directories on one machine never share a passphrase.
pub fn server_passphrase_entry(data_dir_id: &str) -> String {
    format!("server-passphrase:{}", crate::canonical::sha256_hex(data_dir_id.as_bytes()))
}

/// The entry name a paired device's signing key is stored under: `device-key:<hex sha-256 of the
/// public key's fingerprint>`.
pub fn device_key_entry(fingerprint: &str) -> String {
    format!("device-key:{}", crate::canonical::sha256_hex(fingerprint.as_bytes()))
}

/// Why `relay device` will not keep a signing key on this machine.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum DeviceKeyRefused {
    #[error("no OS secret store answered, and this packaged build never keeps signing keys in plaintext")]
    PackagedWithoutStore,
    #[error(
        "no OS secret store answered; pass --plaintext-key to keep the key in an owner-only file (development only)"
    )]
    PlaintextNotRequested,
}

/// Where `relay device pair` keeps a new signing key: the OS secret store whenever it answers;
/// otherwise an owner-only file, but only in a development build and only with the operator's
/// explicit `plaintext_requested`.
pub fn device_key_storage(
    os_store_available: bool,
    build: BuildKind,
    plaintext_requested: bool,
) -> Result<SecretStorage, DeviceKeyRefused> {
    match (os_store_available, build, plaintext_requested) {
        (true, _, _) => Ok(SecretStorage::OsSecretStore),
        (false, BuildKind::Packaged, _) => Err(DeviceKeyRefused::PackagedWithoutStore),
        (false, BuildKind::Development, true) => Ok(SecretStorage::OwnerOnlyFile),
        (false, BuildKind::Development, false) => Err(DeviceKeyRefused::PlaintextNotRequested),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn device_keys_use_plaintext_only_in_development_and_only_when_asked() {
        use BuildKind::*;
        assert_eq!(device_key_storage(true, Packaged, false), Ok(SecretStorage::OsSecretStore));
        assert_eq!(device_key_storage(true, Development, true), Ok(SecretStorage::OsSecretStore), "OS store wins");
        assert_eq!(device_key_storage(false, Development, true), Ok(SecretStorage::OwnerOnlyFile));
        assert_eq!(device_key_storage(false, Development, false), Err(DeviceKeyRefused::PlaintextNotRequested));
        assert_eq!(device_key_storage(false, Packaged, true), Err(DeviceKeyRefused::PackagedWithoutStore));
        let entry = device_key_entry("fingerprint-1");
        assert!(entry.starts_with("device-key:") && entry.len() == "device-key:".len() + 64, "{entry}");
        assert_ne!(entry, device_key_entry("fingerprint-2"));
    }

    #[test]
    fn packaged_builds_never_fall_back_to_plaintext() {
        let table = [
            (true, BuildKind::Development, SecretStorage::OsSecretStore),
            (true, BuildKind::Packaged, SecretStorage::OsSecretStore),
            (false, BuildKind::Development, SecretStorage::OwnerOnlyFile),
            (false, BuildKind::Packaged, SecretStorage::MemoryOnly),
        ];
        for (available, build, want) in table {
            assert_eq!(choose_storage(available, build), want, "{available} {build:?}");
        }
        assert!(!SecretStorage::MemoryOnly.persists());
        assert!(SecretStorage::OwnerOnlyFile.persists());
        assert_eq!(serde_json::to_string(&SecretStorage::OsSecretStore).unwrap(), "\"os-secret-store\"");
    }

    #[test]
    fn entries_are_per_origin_and_hide_the_origin() {
        let a = passphrase_entry("https://relay.example.com").unwrap();
        let b = passphrase_entry("https://relay.example.com:8443").unwrap();
        let c = passphrase_entry("http://192.168.1.5:8090").unwrap();
        assert_ne!(a, b);
        assert_ne!(a, c);
        assert!(a.starts_with("connection-passphrase:") && a.len() == "connection-passphrase:".len() + 64);
        assert!(!a.contains("example"));
        assert_eq!(a, passphrase_entry("https://relay.example.com").unwrap(), "stable");
    }

    #[test]
    fn server_entries_are_per_data_directory() {
        let a = server_passphrase_entry("/var/lib/relay");
        assert_eq!(a, server_passphrase_entry("/var/lib/relay"));
        assert_ne!(a, server_passphrase_entry("/home/ops/relay"));
        assert!(a.starts_with("server-passphrase:") && !a.contains("relay"));
    }

    #[test]
    fn entries_refuse_non_origins() {
        for bad in [
            "",
            "relay.example.com",
            "ftp://relay.example.com",
            "https://relay.example.com/",
            "https://relay.example.com/path",
            "https://relay.example.com\n",
            "https://relay example.com",
        ] {
            assert_eq!(passphrase_entry(bad), Err(SecretKeyError::InvalidScope), "{bad:?}");
        }
        assert!(passphrase_entry(&format!("https://{}.com", "a".repeat(400))).is_err());
    }
}
