//! Where the Dynatrace platform token lives: one secret-store entry per data directory
//! (`dynatrace-token:<hash>`). On a desktop the store follows the desktop policy (the OS secret
//! store; a packaged build without one refuses plaintext). A headless `relay serve` uses the OS
//! secret store when the session has one and otherwise an owner-only (0600) file under the data
//! directory's `desktop-secrets/` folder, with a warning in the log; that folder sits outside
//! `store/`, so no backup ever holds the token. The vault never logs a token and never hands one
//! out except to the Dynatrace client.

use std::sync::OnceLock;

use domain::secret_policy::{BuildKind, SecretStorage};

use crate::datadir::DataDir;
use crate::secret_store::{os_store_available, SecretStore, SecretStoreError};

/// The token's home, behind a trait so tests and the actor can swap it.
pub trait TokenVault: Send + Sync {
    fn get(&self) -> Result<Option<String>, SecretStoreError>;
    fn set(&self, token: &str) -> Result<SecretStorage, SecretStoreError>;
    fn delete(&self) -> Result<(), SecretStoreError>;
    /// Where a token set now would go (probes the OS store on first use).
    fn storage(&self) -> SecretStorage;
}

/// Which policy decides the fallback when the OS secret store is absent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VaultHost {
    /// `relay serve` on a headless server: an owner-only file, with a warning.
    HeadlessServer,
    /// The desktop in server mode: the desktop policy for this build.
    Desktop(BuildKind),
}

/// A [`TokenVault`] over [`SecretStore`]. The OS store is probed on first use, off the caller's
/// hot path (the probe has its own deadline).
pub struct SecretStoreVault {
    data_dir: DataDir,
    host: VaultHost,
    entry: String,
    store: OnceLock<SecretStore>,
}

impl SecretStoreVault {
    pub fn new(data_dir: &DataDir, host: VaultHost) -> SecretStoreVault {
        let id = data_dir.root().to_string_lossy().to_string();
        let entry = format!("dynatrace-token:{}", &domain::canonical::sha256_hex(id.as_bytes())[..32]);
        SecretStoreVault { data_dir: data_dir.clone(), host, entry, store: OnceLock::new() }
    }

    /// A vault with the storage already decided (tests).
    pub fn with_storage(data_dir: &DataDir, storage: SecretStorage) -> SecretStoreVault {
        let vault = SecretStoreVault::new(data_dir, VaultHost::HeadlessServer);
        let _ = vault.store.set(SecretStore::with_storage(data_dir, storage));
        vault
    }

    fn store(&self) -> &SecretStore {
        self.store.get_or_init(|| match self.host {
            VaultHost::Desktop(build) => SecretStore::open(&self.data_dir, build),
            VaultHost::HeadlessServer => {
                if os_store_available() {
                    SecretStore::with_storage(&self.data_dir, SecretStorage::OsSecretStore)
                } else {
                    tracing::warn!(
                        target: "relay::keystore",
                        "no OS secret store: the Dynatrace platform token is kept in an owner-only file in the data directory (outside backups)"
                    );
                    SecretStore::with_storage(&self.data_dir, SecretStorage::OwnerOnlyFile)
                }
            }
        })
    }
}

impl TokenVault for SecretStoreVault {
    fn get(&self) -> Result<Option<String>, SecretStoreError> {
        self.store().get(&self.entry)
    }
    fn set(&self, token: &str) -> Result<SecretStorage, SecretStoreError> {
        self.store().set(&self.entry, token)
    }
    fn delete(&self) -> Result<(), SecretStoreError> {
        self.store().delete(&self.entry)
    }
    fn storage(&self) -> SecretStorage {
        self.store().storage()
    }
}

#[cfg(all(test, unix))]
mod tests {
    use std::os::unix::fs::PermissionsExt;

    use super::*;

    #[test]
    fn an_owner_only_vault_keeps_the_token_in_a_0600_file_outside_the_store() {
        let tmp = tempfile::tempdir().unwrap();
        let data = DataDir::open(tmp.path().join("data")).unwrap();
        let vault = SecretStoreVault::with_storage(&data, SecretStorage::OwnerOnlyFile);
        assert_eq!(vault.get().unwrap(), None);
        assert_eq!(vault.set("dt0s16.SAMPLE.SECRETVALUE").unwrap(), SecretStorage::OwnerOnlyFile);
        assert_eq!(vault.get().unwrap().as_deref(), Some("dt0s16.SAMPLE.SECRETVALUE"));
        let files: Vec<_> = walk(tmp.path())
            .into_iter()
            .filter(|p| std::fs::read(p).ok().is_some_and(|b| b == b"dt0s16.SAMPLE.SECRETVALUE"))
            .collect();
        assert_eq!(files.len(), 1, "{files:?}");
        assert!(!files[0].starts_with(data.root().join(crate::datadir::STORE_DIR)), "never inside store/");
        assert_eq!(std::fs::metadata(&files[0]).unwrap().permissions().mode() & 0o777, 0o600);
        vault.delete().unwrap();
        assert_eq!(vault.get().unwrap(), None);
    }

    #[test]
    fn a_packaged_desktop_without_an_os_store_refuses_plaintext() {
        let tmp = tempfile::tempdir().unwrap();
        let data = DataDir::open(tmp.path().join("data")).unwrap();
        let vault = SecretStoreVault::with_storage(&data, SecretStorage::MemoryOnly);
        assert!(matches!(vault.set("dt0s16.SAMPLE.SECRETVALUE"), Err(SecretStoreError::PlaintextRefused)));
    }

    fn walk(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
        let mut out = Vec::new();
        for entry in std::fs::read_dir(dir).unwrap().flatten() {
            let path = entry.path();
            if path.is_dir() {
                out.extend(walk(&path));
            } else {
                out.push(path);
            }
        }
        out
    }
}
