//! The desktop's store for remembered secrets (the connection passphrase of a client-mode server),
//! the equivalent of Electron's `safeStorage`. On start the OS secret store (the freedesktop
//! Secret Service over the D-Bus session bus: GNOME Keyring, KWallet, KeePassXC) is probed with a
//! deadline; `domain::secret_policy::choose_storage` then decides: the OS store when it answered,
//! otherwise an owner-only plaintext file in the data directory for development builds, and
//! nothing at all (memory only: `set` refuses with `PlaintextRefused`) for packaged builds. Every
//! OS call runs on its own thread with a deadline so a hung keyring cannot freeze a caller.
//! Secret values are never logged.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::mpsc;
use std::time::Duration;

use domain::secret_policy::{choose_storage, BuildKind, SecretStorage};
use secret_service::blocking::SecretService;
use secret_service::EncryptionType;

use crate::datadir::{read_private_file, remove_if_present, write_private_file, DataDir, DataDirError};

/// Log target of this module: its path contains "secret", which the line redactor would read as a
/// key and blank the following word of every message.
const LOG_TARGET: &str = "relay::keystore";
/// How long the start-up probe of the OS secret store may take.
pub const PROBE_DEADLINE: Duration = Duration::from_secs(3);
/// How long one read, write or delete in the OS secret store may take (an unlock prompt included).
pub const OPERATION_DEADLINE: Duration = Duration::from_secs(30);
/// The attribute every Relay item carries in the OS secret store.
const APPLICATION_ATTRIBUTE: (&str, &str) = ("application", "relay");
const ENTRY_ATTRIBUTE: &str = "entry";
/// The label the OS keyring shows for an entry.
fn item_label(entry: &str) -> &'static str {
    if entry.starts_with("device-key:") {
        "Relay device signing key"
    } else if entry.starts_with("dynatrace-token:") {
        "Relay Dynatrace platform token"
    } else {
        "Relay connection passphrase"
    }
}
const FILE_DIR: &str = "desktop-secrets";
/// Longest secret accepted, in bytes.
pub const MAX_SECRET_LEN: usize = 4096;

#[derive(Debug, thiserror::Error)]
pub enum SecretStoreError {
    #[error("the OS secret store is unavailable and this packaged build does not keep secrets in plaintext")]
    PlaintextRefused,
    #[error("the OS secret store did not answer in time")]
    Timeout,
    #[error("the OS secret store refused the operation: {0}")]
    OsStore(String),
    #[error("invalid secret entry or value")]
    Invalid,
    #[error(
        "the token is the service's systemd credential relay-dynatrace-token: enter that same token to use it, or change the credential"
    )]
    HeldByCredential,
    #[error(transparent)]
    File(#[from] DataDirError),
}

/// Runs `f` on its own thread and waits at most `deadline` for it.
fn with_deadline<T: Send + 'static>(deadline: Duration, f: impl FnOnce() -> T + Send + 'static) -> Option<T> {
    let (tx, rx) = mpsc::channel();
    let spawned = std::thread::Builder::new().name("secret-store".into()).spawn(move || {
        let _ = tx.send(f());
    });
    spawned.ok()?;
    rx.recv_timeout(deadline).ok()
}

/// The Secret Service operations Relay uses, each on a fresh session-bus connection.
mod os {
    use super::*;

    fn os_err(e: secret_service::Error) -> SecretStoreError {
        SecretStoreError::OsStore(e.to_string())
    }

    fn attributes(entry: &str) -> HashMap<&str, &str> {
        HashMap::from([APPLICATION_ATTRIBUTE, (ENTRY_ATTRIBUTE, entry)])
    }

    /// Whether a Secret Service answers on the session bus and has a collection to write to.
    pub fn available() -> bool {
        let probe = || -> Result<(), secret_service::Error> {
            let service = SecretService::connect(EncryptionType::Dh)?;
            service.get_any_collection().map(|_| ())
        };
        match probe() {
            Ok(()) => true,
            Err(e) => {
                tracing::info!(target: LOG_TARGET, reason = %e, "OS secret store unavailable");
                false
            }
        }
    }

    pub fn get(entry: &str) -> Result<Option<String>, SecretStoreError> {
        let service = SecretService::connect(EncryptionType::Dh).map_err(os_err)?;
        let found = service.search_items(attributes(entry)).map_err(os_err)?;
        let Some(item) = found.unlocked.first().or(found.locked.first()) else { return Ok(None) };
        item.ensure_unlocked().map_err(os_err)?;
        let bytes = item.get_secret().map_err(os_err)?;
        String::from_utf8(bytes).map(Some).map_err(|_| SecretStoreError::Invalid)
    }

    pub fn set(entry: &str, secret: &str) -> Result<(), SecretStoreError> {
        let service = SecretService::connect(EncryptionType::Dh).map_err(os_err)?;
        let collection = service.get_any_collection().map_err(os_err)?;
        collection.ensure_unlocked().map_err(os_err)?;
        collection
            .create_item(item_label(entry), attributes(entry), secret.as_bytes(), true, "text/plain")
            .map(|_| ())
            .map_err(os_err)
    }

    pub fn delete(entry: &str) -> Result<(), SecretStoreError> {
        let service = SecretService::connect(EncryptionType::Dh).map_err(os_err)?;
        let found = service.search_items(attributes(entry)).map_err(os_err)?;
        for item in found.unlocked.iter().chain(found.locked.iter()) {
            item.delete().map_err(os_err)?;
        }
        Ok(())
    }
}

/// Whether the OS secret store answers on this session, probed within `PROBE_DEADLINE`.
pub fn os_store_available() -> bool {
    with_deadline(PROBE_DEADLINE, os::available).unwrap_or_else(|| {
        tracing::warn!(target: LOG_TARGET, "OS secret store probe timed out");
        false
    })
}

/// The remembered-secret store chosen for this process.
#[derive(Debug, Clone)]
pub struct SecretStore {
    storage: SecretStorage,
    file_dir: PathBuf,
}

impl SecretStore {
    /// Probes the OS secret store (bounded by `PROBE_DEADLINE`) and applies the storage policy.
    pub fn open(data_dir: &DataDir, build: BuildKind) -> SecretStore {
        let available = os_store_available();
        let store = SecretStore::with_storage(data_dir, choose_storage(available, build));
        match store.storage {
            SecretStorage::OsSecretStore => {
                tracing::info!(target: LOG_TARGET, "remembered secrets go to the OS secret store")
            }
            SecretStorage::OwnerOnlyFile => {
                tracing::warn!(target: LOG_TARGET, "no OS secret store: this development build keeps remembered secrets in an owner-only file")
            }
            SecretStorage::MemoryOnly => {
                tracing::warn!(target: LOG_TARGET, "no OS secret store: this packaged build will not remember secrets across restarts")
            }
        }
        store
    }

    /// A store with a fixed storage kind (the policy already applied).
    pub fn with_storage(data_dir: &DataDir, storage: SecretStorage) -> SecretStore {
        SecretStore::at(data_dir.root().join(FILE_DIR), storage)
    }

    /// A store whose owner-only fallback files live in `file_dir` (for secrets kept outside a
    /// data directory, such as `relay device` keys).
    pub fn at(file_dir: PathBuf, storage: SecretStorage) -> SecretStore {
        SecretStore { storage, file_dir }
    }

    pub fn storage(&self) -> SecretStorage {
        self.storage
    }

    fn file_path(&self, entry: &str) -> PathBuf {
        self.file_dir.join(entry.replace(':', "-"))
    }

    fn check_entry(entry: &str) -> Result<(), SecretStoreError> {
        let ok = !entry.is_empty()
            && entry.len() <= 128
            && entry.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == ':');
        if ok {
            Ok(())
        } else {
            Err(SecretStoreError::Invalid)
        }
    }

    fn os_call<T: Send + 'static>(
        f: impl FnOnce() -> Result<T, SecretStoreError> + Send + 'static,
    ) -> Result<T, SecretStoreError> {
        with_deadline(OPERATION_DEADLINE, f).unwrap_or(Err(SecretStoreError::Timeout))
    }

    /// The remembered secret for `entry`, if any.
    pub fn get(&self, entry: &str) -> Result<Option<String>, SecretStoreError> {
        Self::check_entry(entry)?;
        match self.storage {
            SecretStorage::OsSecretStore => {
                let entry = entry.to_string();
                Self::os_call(move || os::get(&entry))
            }
            SecretStorage::OwnerOnlyFile => match read_private_file(&self.file_path(entry))? {
                Some(bytes) => String::from_utf8(bytes).map(Some).map_err(|_| SecretStoreError::Invalid),
                None => Ok(None),
            },
            SecretStorage::MemoryOnly => Ok(None),
        }
    }

    /// Remembers `secret` for `entry`; a packaged build without an OS store refuses.
    pub fn set(&self, entry: &str, secret: &str) -> Result<SecretStorage, SecretStoreError> {
        Self::check_entry(entry)?;
        if secret.is_empty() || secret.len() > MAX_SECRET_LEN {
            return Err(SecretStoreError::Invalid);
        }
        match self.storage {
            SecretStorage::OsSecretStore => {
                let (owned_entry, secret) = (entry.to_string(), secret.to_string());
                Self::os_call(move || os::set(&owned_entry, &secret))?;
                // A plaintext copy left by an earlier development run must not outlive the move.
                self.remove_file(entry)?;
            }
            SecretStorage::OwnerOnlyFile => {
                crate::datadir::ensure_private_dir(&self.file_dir)?;
                write_private_file(&self.file_path(entry), secret.as_bytes())?;
            }
            SecretStorage::MemoryOnly => return Err(SecretStoreError::PlaintextRefused),
        }
        Ok(self.storage)
    }

    /// Forgets the secret for `entry` (no error when there was none).
    pub fn delete(&self, entry: &str) -> Result<(), SecretStoreError> {
        Self::check_entry(entry)?;
        if self.storage == SecretStorage::OsSecretStore {
            let entry = entry.to_string();
            Self::os_call(move || os::delete(&entry))?;
        }
        self.remove_file(entry)
    }

    fn remove_file(&self, entry: &str) -> Result<(), SecretStoreError> {
        Ok(remove_if_present(&self.file_path(entry))?)
    }
}

#[cfg(all(test, unix))]
mod tests;
