//! `relay device ...`: the client side of device pairing and signed privileged commands, so a
//! paired laptop works without the desktop UI. `pair` first decides where the key may live
//! (`domain::secret_policy::device_key_storage`: the OS secret store whenever it answers; an
//! owner-only plaintext file only in a development build with `--plaintext-key`), then generates
//! a P-256 key, redeems the code shown on the server and stores the key: its secret half in the
//! keyring, the ids and fingerprint in the owner-only key file. `send` loads the key (keyring or
//! legacy/development file), builds a canonical envelope, signs it and posts it, optionally
//! after a fresh-password reauthentication. The protocol itself is `infra::device_client`, shared
//! with the desktop's paired laptop. Secrets are read from the terminal or stdin, never argv.

use std::path::{Path, PathBuf};

use clap::Subcommand;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use domain::secret_policy::{device_key_entry, device_key_storage, BuildKind, SecretStorage};
use infra::device_client::{
    decode_secret, encode_secret, new_device_secret, public_jwk, signed_envelope, DeviceClient, DeviceClientError,
    Signer,
};
use infra::secret_store::{os_store_available, SecretStore};

use crate::secret_input::read_secret;

type BoxError = Box<dyn std::error::Error>;

#[derive(Debug, Subcommand)]
pub enum DeviceCommand {
    /// Pair this machine: reads the connection passphrase, then the pairing code (terminal or
    /// stdin lines), generates a P-256 key and registers its public half.
    Pair {
        #[arg(long)]
        server: String,
        #[arg(long)]
        username: String,
        #[arg(long, default_value = "Relay CLI")]
        label: String,
        /// Allow plain HTTP to a public address (never needed on a LAN).
        #[arg(long)]
        allow_insecure_http: bool,
        /// Development builds only: when no OS secret store answers, keep the signing key in the
        /// owner-only key file instead of refusing.
        #[arg(long)]
        plaintext_key: bool,
    },
    /// Sign and send one privileged command (passphrase read first; with --reauth, then the
    /// account password).
    Send {
        #[arg(long)]
        command: String,
        /// JSON object payload.
        #[arg(long, default_value = "{}")]
        payload: String,
        #[arg(long)]
        expected_revision: Option<i64>,
        /// Obtain a fresh-password proof first and attach it as `reauthProof`.
        #[arg(long)]
        reauth: bool,
    },
}

#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct DeviceKeyFile {
    version: u32,
    server: String,
    username: String,
    account_id: String,
    device_id: String,
    role: String,
    fingerprint: String,
    /// The secret half, only for keys kept in plaintext (development `--plaintext-key`, or files
    /// from earlier versions); absent when the OS secret store holds it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    secret_scalar: Option<String>,
}

fn now_ms() -> i64 {
    use infra::clock::Clock;
    infra::clock::SystemClock.now_ms()
}

fn runtime() -> Result<tokio::runtime::Runtime, BoxError> {
    Ok(tokio::runtime::Builder::new_current_thread().enable_all().build()?)
}

/// The server's privileged routes under the Relay-peer policy (15 s per request).
fn client(server: &str) -> Result<DeviceClient, BoxError> {
    Ok(DeviceClient::new(server, std::time::Duration::from_secs(15))?)
}

/// The app-user token; a refused passphrase is named as such.
async fn sign_in(client: &DeviceClient, passphrase: &str) -> Result<String, BoxError> {
    client.app_token(passphrase).await.map_err(|e| match e {
        DeviceClientError::Refused { status, .. } => {
            format!("the server refused the connection passphrase ({status})").into()
        }
        other => other.into(),
    })
}

fn build_kind() -> BuildKind {
    if cfg!(feature = "packaged") {
        BuildKind::Packaged
    } else {
        BuildKind::Development
    }
}

/// The keyring handle for device keys (its owner-only fallback folder is never used: plaintext
/// keys live in the key file itself).
fn keyring(key_file: &Path) -> SecretStore {
    let dir = key_file.parent().unwrap_or(Path::new(".")).join("device-secrets");
    SecretStore::at(dir, SecretStorage::OsSecretStore)
}

/// Stores `secret` where `storage` says and writes the key file (owner-only) last.
fn store_key(path: &Path, mut key: DeviceKeyFile, secret: &[u8; 32], storage: SecretStorage) -> Result<(), BoxError> {
    match storage {
        SecretStorage::OsSecretStore => {
            keyring(path).set(&device_key_entry(&key.fingerprint), &encode_secret(secret))?;
            key.secret_scalar = None;
        }
        SecretStorage::OwnerOnlyFile => key.secret_scalar = Some(encode_secret(secret)),
        SecretStorage::MemoryOnly => return Err("no place to keep the device key".into()),
    }
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent)?;
    }
    infra::datadir::write_private_file(path, serde_json::to_string_pretty(&key)?.as_bytes())?;
    Ok(())
}

/// Reads the key file and the secret half from wherever it was stored.
fn load_key(path: &Path) -> Result<(DeviceKeyFile, [u8; 32]), BoxError> {
    let bytes = infra::datadir::read_private_file(path)?.ok_or("no device key file; run `relay device pair` first")?;
    let key: DeviceKeyFile = serde_json::from_slice(&bytes)?;
    let encoded = match &key.secret_scalar {
        Some(plaintext) => plaintext.clone(),
        None => keyring(path)
            .get(&device_key_entry(&key.fingerprint))?
            .ok_or("the device key is not in this session's OS secret store")?,
    };
    let secret = decode_secret(&encoded, &key.fingerprint)?;
    Ok((key, secret))
}

pub fn run(key_file: &Path, command: DeviceCommand) -> Result<(), BoxError> {
    let rt = runtime()?;
    match command {
        DeviceCommand::Pair { server, username, label, allow_insecure_http, plaintext_key } => {
            let server = domain::server_url::check_server_url(&server, allow_insecure_http)?;
            // Decided before the server is contacted, so a refusal leaves no orphaned pairing.
            let storage = device_key_storage(os_store_available(), build_kind(), plaintext_key)?;
            let passphrase = read_secret("Relay connection passphrase: ")?;
            let code = read_secret("Pairing code: ")?;
            let secret = new_device_secret()?;
            let jwk = public_jwk(&secret)?;
            let hostname = hostname::get().ok().and_then(|h| h.into_string().ok()).unwrap_or_default();
            let paired = rt.block_on(async {
                let client = client(&server)?;
                let token = sign_in(&client, &passphrase).await?;
                Ok::<_, BoxError>(client.pair(&token, &username, &code, &jwk, &label, &hostname).await?)
            })?;
            let key = DeviceKeyFile {
                version: 1,
                server,
                username,
                account_id: paired.account_id,
                device_id: paired.device_id,
                role: paired.role,
                fingerprint: jwk.fingerprint(),
                secret_scalar: None,
            };
            let (device_id, role) = (key.device_id.clone(), key.role.clone());
            store_key(key_file, key, &secret, storage)?;
            let place = match storage {
                SecretStorage::OsSecretStore => "the OS secret store",
                _ => "the owner-only key file (development plaintext)",
            };
            println!(
                "Paired as device {device_id} ({role}); signing key kept in {place}, details in {}",
                key_file.display()
            );
        }
        DeviceCommand::Send { command, payload, expected_revision, reauth } => {
            let (key, secret) = load_key(key_file)?;
            let mut payload: Value = serde_json::from_str(&payload)?;
            let passphrase = read_secret("Relay connection passphrase: ")?;
            let password = if reauth { Some(read_secret(&format!("Password for {}: ", key.username))?) } else { None };
            let reply = rt.block_on(async {
                let client = client(&key.server)?;
                let token = sign_in(&client, &passphrase).await?;
                if let Some(password) = password {
                    let proof = client.reauth(&token, &key.account_id, &key.device_id, &password).await?;
                    payload["reauthProof"] = Value::String(proof.proof);
                }
                let signer =
                    Signer { account_id: &key.account_id, device_id: &key.device_id, role: &key.role, secret: &secret };
                let envelope = signed_envelope(signer, &command, payload, expected_revision, now_ms())?;
                Ok::<_, BoxError>(client.execute(&token, &envelope).await?)
            })?;
            println!("{}", serde_json::to_string_pretty(&reply)?);
        }
    }
    Ok(())
}

/// Default key location: `$XDG_CONFIG_HOME/relay/device-key.json` or `~/.config/relay/...`.
pub fn default_key_file() -> PathBuf {
    std::env::var_os("XDG_CONFIG_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".config")))
        .unwrap_or_else(|| PathBuf::from("."))
        .join("relay/device-key.json")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(secret: &[u8; 32]) -> DeviceKeyFile {
        DeviceKeyFile {
            version: 1,
            server: "http://127.0.0.1:8090".into(),
            username: "ryan".into(),
            account_id: "a".repeat(15),
            device_id: "d".repeat(15),
            role: "owner".into(),
            fingerprint: public_jwk(secret).unwrap().fingerprint(),
            secret_scalar: None,
        }
    }

    #[test]
    fn development_plaintext_keys_are_owner_only_and_load_back() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("relay/device-key.json");
        let secret = new_device_secret().unwrap();
        assert!(store_key(&path, key(&secret), &secret, SecretStorage::MemoryOnly).is_err());
        assert!(!path.exists(), "nothing written without a place for the key");
        store_key(&path, key(&secret), &secret, SecretStorage::OwnerOnlyFile).unwrap();
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            assert_eq!(std::fs::metadata(&path).unwrap().permissions().mode() & 0o777, 0o600);
        }
        let (loaded, loaded_secret) = load_key(&path).unwrap();
        assert_eq!((loaded.device_id.as_str(), loaded_secret), ("d".repeat(15).as_str(), secret));
    }

    #[test]
    fn a_key_file_whose_secret_does_not_match_its_fingerprint_is_refused() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("device-key.json");
        let (secret, other) = (new_device_secret().unwrap(), new_device_secret().unwrap());
        store_key(&path, key(&other), &secret, SecretStorage::OwnerOnlyFile).unwrap();
        assert!(load_key(&path).unwrap_err().to_string().contains("does not match"));
    }
}
