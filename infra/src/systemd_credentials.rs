//! Secrets a service manager hands to a headless `relay serve`: systemd's `LoadCredential=` and
//! `LoadCredentialEncrypted=` place each credential as a read-only file in the directory named by
//! `$CREDENTIALS_DIRECTORY` (private to the service, on a non-swappable file system, decrypted
//! only for the service's lifetime). Relay looks there for [`PASSPHRASE_CREDENTIAL`] (the
//! connection passphrase) and [`DYNATRACE_TOKEN_CREDENTIAL`] (the Dynatrace platform token),
//! reads each with `O_NOFOLLOW`, refuses anything but a regular file, strips one trailing line
//! break, and never writes, copies or logs a credential. [`CredentialVault`] serves the token
//! read-only: setting it accepts only the same token (binding it to the configured environment,
//! writing nothing), removing it only forgets that binding.

use std::io::Read;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

use domain::secret_policy::SecretStorage;
use subtle::ConstantTimeEq;

use crate::dynatrace::TokenVault;
use crate::secret_store::{SecretStoreError, MAX_SECRET_LEN};

/// The variable systemd sets for a unit with credentials.
pub const CREDENTIALS_DIRECTORY_ENV: &str = "CREDENTIALS_DIRECTORY";
/// The credential holding the connection passphrase.
pub const PASSPHRASE_CREDENTIAL: &str = "relay-passphrase";
/// The credential holding the Dynatrace platform token.
pub const DYNATRACE_TOKEN_CREDENTIAL: &str = "relay-dynatrace-token";

#[derive(Debug, thiserror::Error)]
pub enum CredentialError {
    #[error("$CREDENTIALS_DIRECTORY must be an absolute path")]
    NotAbsolute,
    #[error("the credential {name} could not be read: {source}")]
    Read { name: &'static str, source: std::io::Error },
    #[error("the credential {0} is not a regular file")]
    NotRegular(&'static str),
    #[error("the credential {0} is empty, longer than 4096 bytes or not UTF-8")]
    Invalid(&'static str),
}

/// The service's credentials directory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Credentials {
    dir: PathBuf,
}

impl Credentials {
    /// The directory `$CREDENTIALS_DIRECTORY` names, if the variable is set and not empty.
    pub fn from_env() -> Result<Option<Credentials>, CredentialError> {
        match std::env::var_os(CREDENTIALS_DIRECTORY_ENV) {
            Some(dir) if !dir.is_empty() => Credentials::at(PathBuf::from(dir)).map(Some),
            _ => Ok(None),
        }
    }

    /// Credentials in `dir` (an absolute path).
    pub fn at(dir: PathBuf) -> Result<Credentials, CredentialError> {
        if dir.is_absolute() {
            Ok(Credentials { dir })
        } else {
            Err(CredentialError::NotAbsolute)
        }
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The credential `name`, without one trailing line break; `None` when it is absent.
    pub fn read(&self, name: &'static str) -> Result<Option<String>, CredentialError> {
        let read_err = |source| CredentialError::Read { name, source };
        let opened = std::fs::OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC)
            .open(self.dir.join(name));
        let file = match opened {
            Ok(file) => file,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) if e.raw_os_error() == Some(libc::ELOOP) => return Err(CredentialError::NotRegular(name)),
            Err(e) => return Err(read_err(e)),
        };
        if !file.metadata().map_err(read_err)?.file_type().is_file() {
            return Err(CredentialError::NotRegular(name));
        }
        let mut bytes = Vec::new();
        file.take(MAX_SECRET_LEN as u64 + 3).read_to_end(&mut bytes).map_err(read_err)?;
        let text = String::from_utf8(bytes).map_err(|_| CredentialError::Invalid(name))?;
        let value = text.strip_suffix('\n').map(|t| t.strip_suffix('\r').unwrap_or(t)).unwrap_or(&text);
        if value.is_empty() || value.len() > MAX_SECRET_LEN {
            return Err(CredentialError::Invalid(name));
        }
        Ok(Some(value.to_string()))
    }
}

/// The Dynatrace platform token from [`DYNATRACE_TOKEN_CREDENTIAL`], read-only: Relay never
/// writes it and never keeps a copy. Reported as the OS secret store (systemd holds it).
pub struct CredentialVault {
    credentials: Credentials,
}

impl CredentialVault {
    pub fn new(credentials: Credentials) -> CredentialVault {
        CredentialVault { credentials }
    }

    fn read(&self) -> Result<Option<String>, SecretStoreError> {
        self.credentials.read(DYNATRACE_TOKEN_CREDENTIAL).map_err(|e| {
            tracing::error!(target: "relay::keystore", error = %e, "the Dynatrace credential is unusable");
            SecretStoreError::Invalid
        })
    }
}

impl TokenVault for CredentialVault {
    fn get(&self) -> Result<Option<String>, SecretStoreError> {
        self.read()
    }

    /// Accepts only the credential's own token (which binds it to the configured environment).
    fn set(&self, token: &str) -> Result<SecretStorage, SecretStoreError> {
        match self.read()? {
            Some(held) if bool::from(held.as_bytes().ct_eq(token.as_bytes())) => Ok(SecretStorage::OsSecretStore),
            _ => Err(SecretStoreError::HeldByCredential),
        }
    }

    /// Nothing to delete: the token stays with the service manager, unbound.
    fn delete(&self) -> Result<(), SecretStoreError> {
        Ok(())
    }

    fn storage(&self) -> SecretStorage {
        SecretStorage::OsSecretStore
    }
}

#[cfg(test)]
mod tests;
