//! Where a desktop server keeps its own connection passphrase, under the same storage policy as
//! remembered secrets (`domain::secret_policy`). With the OS secret store it lives there (one
//! entry per data directory) and a plaintext `secrets/passphrase` left by an earlier run is moved
//! in and deleted; a development build without one keeps the owner-only file (`relay serve`'s
//! layout); a packaged build without one never writes it: it reads an existing file, else it
//! makes a passphrase for this run only and says so. `relay serve` itself (a headless server)
//! keeps using the data directory file.

use domain::secret_policy::{server_passphrase_entry, SecretStorage};

use crate::datadir::{validate_passphrase, DataDir, DataDirError};
use crate::secret_store::{SecretStore, SecretStoreError};

#[derive(Debug, thiserror::Error)]
pub enum ServerPassphraseError {
    #[error(transparent)]
    File(#[from] DataDirError),
    #[error(transparent)]
    Store(#[from] SecretStoreError),
}

/// The passphrase this server runs with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerPassphrase {
    pub value: String,
    /// Made on this start (first start, or a packaged build that keeps nothing).
    pub created: bool,
    /// Where it is kept.
    pub storage: SecretStorage,
}

fn new_passphrase(bootstrap: Option<&str>) -> Result<String, DataDirError> {
    match bootstrap {
        Some(p) => validate_passphrase(p).map(|()| p.to_string()),
        None => Ok(crate::ids::passphrase()),
    }
}

/// Loads the server's passphrase, creating it (from `bootstrap`, else at random) when none exists.
pub fn load_or_create(
    data_dir: &DataDir,
    store: &SecretStore,
    bootstrap: Option<&str>,
) -> Result<ServerPassphrase, ServerPassphraseError> {
    let storage = store.storage();
    match storage {
        SecretStorage::OwnerOnlyFile => {
            let (value, created) = data_dir.load_or_create_passphrase(bootstrap)?;
            Ok(ServerPassphrase { value, created, storage })
        }
        SecretStorage::OsSecretStore => {
            let entry = server_passphrase_entry(&data_dir.root().display().to_string());
            let kept = store.get(&entry)?.filter(|p| validate_passphrase(p).is_ok());
            let (value, created) = match kept {
                Some(value) => (value, false),
                None => {
                    let (value, created) = match data_dir.read_passphrase_opt()? {
                        Some(from_file) => (from_file, false),
                        None => (new_passphrase(bootstrap)?, true),
                    };
                    store.set(&entry, &value)?;
                    (value, created)
                }
            };
            // Only once the OS store holds it: no plaintext copy stays behind.
            data_dir.remove_passphrase_file()?;
            Ok(ServerPassphrase { value, created, storage })
        }
        SecretStorage::MemoryOnly => match data_dir.read_passphrase_opt()? {
            Some(value) => Ok(ServerPassphrase { value, created: false, storage }),
            None => {
                tracing::warn!(
                    target: "relay::keystore",
                    "no OS secret store: this packaged build keeps the server passphrase for this run only"
                );
                Ok(ServerPassphrase { value: new_passphrase(bootstrap)?, created: true, storage })
            }
        },
    }
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    fn dir() -> (tempfile::TempDir, DataDir) {
        let tmp = tempfile::tempdir().unwrap();
        let dir = DataDir::open(tmp.path().join("data")).unwrap();
        (tmp, dir)
    }

    #[test]
    fn development_builds_without_an_os_store_keep_the_owner_only_file() {
        let (_tmp, dir) = dir();
        let store = SecretStore::with_storage(&dir, SecretStorage::OwnerOnlyFile);
        let first = load_or_create(&dir, &store, Some("correct horse battery")).unwrap();
        assert_eq!((first.value.as_str(), first.created), ("correct horse battery", true));
        assert_eq!(dir.read_passphrase().unwrap(), "correct horse battery");
        let again = load_or_create(&dir, &store, Some("another one here")).unwrap();
        assert_eq!((again.value.as_str(), again.created), ("correct horse battery", false));
    }

    #[test]
    fn packaged_builds_without_an_os_store_write_nothing() {
        let (_tmp, dir) = dir();
        let store = SecretStore::with_storage(&dir, SecretStorage::MemoryOnly);
        let made = load_or_create(&dir, &store, None).unwrap();
        assert!(made.created && made.value.len() >= 8);
        assert!(dir.read_passphrase_opt().unwrap().is_none(), "no plaintext file may be written");
        let next = load_or_create(&dir, &store, None).unwrap();
        assert_ne!(next.value, made.value, "nothing was kept, so the next run makes a new one");
        // An existing file (an earlier `relay serve` or development run) is used, not rewritten.
        dir.set_passphrase("existing passphrase").unwrap();
        let used = load_or_create(&dir, &store, None).unwrap();
        assert_eq!((used.value.as_str(), used.created), ("existing passphrase", false));
    }

    #[test]
    fn bootstrap_values_are_validated() {
        let (_tmp, dir) = dir();
        let store = SecretStore::with_storage(&dir, SecretStorage::MemoryOnly);
        assert!(matches!(
            load_or_create(&dir, &store, Some("short")),
            Err(ServerPassphraseError::File(DataDirError::InvalidPassphrase))
        ));
    }
}
