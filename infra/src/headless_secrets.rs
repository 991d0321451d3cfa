//! Where a headless `relay serve` keeps its two secrets, the connection passphrase and the
//! Dynatrace platform token, decided once at start for each: the service's systemd credential
//! when `$CREDENTIALS_DIRECTORY` holds it (`systemd_credentials`: read-only, never copied to
//! disk), else the OS secret store when one answers (the passphrase moves in from an older
//! plaintext file, which is then deleted), else an owner-only (0600) plaintext file in the data
//! directory. [`ServerSecrets::placement`] is the one start-up line saying where each is kept
//! (never the secret); [`ServerSecrets::keeps_plaintext`] says whether it warns; and
//! [`find_passphrase`] looks in the same places for `relay connection-info`.

use std::sync::Arc;

use domain::secret_policy::SecretStorage;

use crate::datadir::{validate_passphrase, DataDir, DataDirError};
use crate::dynatrace::token::SecretStoreVault;
use crate::dynatrace::TokenVault;
use crate::secret_store::{SecretStore, SecretStoreError};
use crate::server_passphrase::ServerPassphraseError;
use crate::systemd_credentials::{
    CredentialError, CredentialVault, Credentials, DYNATRACE_TOKEN_CREDENTIAL, PASSPHRASE_CREDENTIAL,
};

#[derive(Debug, thiserror::Error)]
pub enum ServerSecretsError {
    #[error(transparent)]
    Credential(#[from] CredentialError),
    #[error(
        "the credential {PASSPHRASE_CREDENTIAL} is not a valid passphrase (8 to 256 characters, no control characters)"
    )]
    InvalidCredentialPassphrase,
    #[error(transparent)]
    Passphrase(#[from] ServerPassphraseError),
    #[error(transparent)]
    File(#[from] DataDirError),
    #[error(transparent)]
    Store(#[from] SecretStoreError),
}

/// Where one secret is kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SecretHome {
    /// The named file in `$CREDENTIALS_DIRECTORY`.
    Credential(&'static str),
    OsSecretStore,
    OwnerOnlyFile,
}

impl std::fmt::Display for SecretHome {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SecretHome::Credential(name) => write!(f, "the systemd credential {name}"),
            SecretHome::OsSecretStore => f.write_str("the OS secret store"),
            SecretHome::OwnerOnlyFile => f.write_str("an owner-only plaintext file in the data directory"),
        }
    }
}

/// The server's secrets as decided at start.
pub struct ServerSecrets {
    pub passphrase: String,
    /// Made on this start (first start of a data directory without a credential).
    pub passphrase_created: bool,
    pub passphrase_home: SecretHome,
    pub token_home: SecretHome,
    pub token_vault: Arc<dyn TokenVault>,
}

impl ServerSecrets {
    /// Decides where each secret lives and loads (or creates, from `bootstrap` else at random)
    /// the passphrase. `os_store_available` is asked at most once, and only when a secret has
    /// no credential.
    pub fn open(
        data_dir: &DataDir,
        credentials: Option<&Credentials>,
        os_store_available: impl FnOnce() -> bool,
        bootstrap: Option<&str>,
    ) -> Result<ServerSecrets, ServerSecretsError> {
        let read = |name| credentials.map(|c| c.read(name)).transpose().map(Option::flatten);
        let passphrase_credential = read(PASSPHRASE_CREDENTIAL)?;
        let token_credential = read(DYNATRACE_TOKEN_CREDENTIAL)?.and(credentials);
        let probe_needed = passphrase_credential.is_none() || token_credential.is_none();
        let fallback =
            if probe_needed && os_store_available() { SecretHome::OsSecretStore } else { SecretHome::OwnerOnlyFile };

        let (passphrase, passphrase_created, passphrase_home) = match passphrase_credential {
            Some(value) => {
                validate_passphrase(&value).map_err(|_| ServerSecretsError::InvalidCredentialPassphrase)?;
                if data_dir.read_passphrase_opt()?.is_some() {
                    tracing::warn!(
                        target: "relay::keystore",
                        "the plaintext file DATA_DIR/secrets/passphrase from an earlier run is not used while the systemd credential is; delete it"
                    );
                }
                (value, false, SecretHome::Credential(PASSPHRASE_CREDENTIAL))
            }
            None if fallback == SecretHome::OsSecretStore => {
                let store = SecretStore::with_storage(data_dir, SecretStorage::OsSecretStore);
                let kept = crate::server_passphrase::load_or_create(data_dir, &store, bootstrap)?;
                (kept.value, kept.created, fallback)
            }
            None => {
                let (value, created) = data_dir.load_or_create_passphrase(bootstrap)?;
                (value, created, fallback)
            }
        };

        let (token_vault, token_home): (Arc<dyn TokenVault>, _) = match token_credential {
            Some(credentials) => (
                Arc::new(CredentialVault::new(credentials.clone())),
                SecretHome::Credential(DYNATRACE_TOKEN_CREDENTIAL),
            ),
            None => {
                let storage = match fallback {
                    SecretHome::OsSecretStore => SecretStorage::OsSecretStore,
                    _ => SecretStorage::OwnerOnlyFile,
                };
                (Arc::new(SecretStoreVault::with_storage(data_dir, storage)), fallback)
            }
        };
        Ok(ServerSecrets { passphrase, passphrase_created, passphrase_home, token_home, token_vault })
    }

    /// Whether either secret is kept in a plaintext file.
    pub fn keeps_plaintext(&self) -> bool {
        self.passphrase_home == SecretHome::OwnerOnlyFile || self.token_home == SecretHome::OwnerOnlyFile
    }

    /// The start-up line: where each secret is kept, never a secret.
    pub fn placement(&self) -> String {
        let mut line = format!(
            "the connection passphrase is kept in {}; the Dynatrace platform token is kept in {}",
            self.passphrase_home, self.token_home
        );
        if self.keeps_plaintext() {
            line.push_str(
                " (no systemd credential and no OS secret store; see docs/operations.md, \"Secrets on a headless server\")",
            );
        }
        line
    }
}

/// The passphrase a server on `data_dir` uses, for `relay connection-info`: the credential, the
/// plaintext file, else the OS secret store's entry (probed only then); `None` when none holds it.
pub fn find_passphrase(
    data_dir: &DataDir,
    credentials: Option<&Credentials>,
    os_store_available: impl FnOnce() -> bool,
) -> Result<Option<(String, SecretHome)>, ServerSecretsError> {
    if let Some(value) = credentials.map(|c| c.read(PASSPHRASE_CREDENTIAL)).transpose()?.flatten() {
        return Ok(Some((value, SecretHome::Credential(PASSPHRASE_CREDENTIAL))));
    }
    if let Some(value) = data_dir.read_passphrase_opt()? {
        return Ok(Some((value, SecretHome::OwnerOnlyFile)));
    }
    if !os_store_available() {
        return Ok(None);
    }
    let store = SecretStore::with_storage(data_dir, SecretStorage::OsSecretStore);
    let entry = domain::secret_policy::server_passphrase_entry(&data_dir.root().display().to_string());
    Ok(store.get(&entry)?.map(|value| (value, SecretHome::OsSecretStore)))
}

#[cfg(all(test, unix))]
mod tests;
