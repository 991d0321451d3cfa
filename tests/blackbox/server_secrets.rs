//! Where the real `relay serve` keeps its secrets (#39.11). With `$CREDENTIALS_DIRECTORY` holding
//! `relay-passphrase` and `relay-dynatrace-token` (systemd's `LoadCredential=`), sign-in works
//! with the credential's passphrase only, no file in the data directory holds either secret, the
//! credentials directory is left as it was, and one start-up line names where each secret is
//! kept (never the secret). Without credentials or an OS secret store (a dead session bus), the
//! same line says the plaintext files are used, as a warning.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use serde_json::json;
use support::{client, Relay, PASSPHRASE};

const CREDENTIAL_PASSPHRASE: &str = "credential-passphrase-from-systemd";
const CREDENTIAL_TOKEN: &str = "dt0s16.CREDENTIAL.SECRETVALUEFROMSYSTEMD";
/// No Secret Service answers here, whatever the machine running the tests has.
const NO_SESSION_BUS: (&str, &str) = ("DBUS_SESSION_BUS_ADDRESS", "unix:path=/nonexistent/relay-test-bus");

async fn sign_in_status(relay: &Relay, passphrase: &str) -> u16 {
    client()
        .post(relay.url("/api/collections/users/auth-with-password"))
        .json(&json!({"identity": "relay", "password": passphrase}))
        .send()
        .await
        .unwrap()
        .status()
        .as_u16()
}

fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if entry.file_type().unwrap().is_dir() {
            out.extend(files_under(&path));
        } else {
            out.push(path);
        }
    }
    out
}

fn holding(dir: &Path, secret: &str) -> Vec<PathBuf> {
    let found = |bytes: &[u8]| bytes.windows(secret.len()).any(|w| w == secret.as_bytes());
    files_under(dir).into_iter().filter(|p| std::fs::read(p).is_ok_and(|b| found(&b))).collect()
}

fn credential(dir: &Path, name: &str, value: &str) {
    let path = dir.join(name);
    std::fs::write(&path, format!("{value}\n")).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o400)).unwrap();
}

#[tokio::test]
async fn systemd_credentials_are_used_in_place_and_never_copied_into_the_data_directory() {
    let tmp = tempfile::tempdir().unwrap();
    let credentials = tmp.path().join("credentials");
    std::fs::create_dir(&credentials).unwrap();
    credential(&credentials, "relay-passphrase", CREDENTIAL_PASSPHRASE);
    credential(&credentials, "relay-dynatrace-token", CREDENTIAL_TOKEN);
    let before: Vec<_> =
        files_under(&credentials).into_iter().map(|p| (p.clone(), std::fs::read(p).unwrap())).collect();

    let data_dir = tmp.path().join("data");
    let envs = [("CREDENTIALS_DIRECTORY", credentials.to_str().unwrap()), NO_SESSION_BUS];
    let mut relay = Relay::start_env(&data_dir, "127.0.0.1", &[], &envs);
    assert_eq!(sign_in_status(&relay, CREDENTIAL_PASSPHRASE).await, 200, "{}", relay.stderr());
    assert_ne!(sign_in_status(&relay, PASSPHRASE).await, 200, "the bootstrap passphrase is not used");
    relay.stop();

    assert!(!data_dir.join("secrets/passphrase").exists(), "no plaintext passphrase file");
    for secret in [CREDENTIAL_PASSPHRASE, CREDENTIAL_TOKEN] {
        assert_eq!(holding(&data_dir, secret), Vec::<PathBuf>::new(), "no file in the data directory holds it");
    }
    let after: Vec<_> = files_under(&credentials).into_iter().map(|p| (p.clone(), std::fs::read(p).unwrap())).collect();
    assert_eq!(after, before, "the credentials are read in place, never written");

    let log = relay.stderr();
    let placement =
        log.lines().find(|l| l.contains("is kept in")).unwrap_or_else(|| panic!("no placement line: {log}"));
    assert!(
        placement.contains(
            "the connection passphrase is kept in the systemd credential relay-passphrase; \
             the Dynatrace platform token is kept in the systemd credential relay-dynatrace-token"
        ),
        "{placement}"
    );
    assert!(placement.contains("INFO"), "no warning without plaintext: {placement}");
    assert!(!log.contains(CREDENTIAL_PASSPHRASE) && !log.contains(CREDENTIAL_TOKEN), "secrets are never logged");
}

#[tokio::test]
async fn without_credentials_or_a_secret_store_the_start_warns_of_plaintext_files() {
    let tmp = tempfile::tempdir().unwrap();
    let data_dir = tmp.path().join("data");
    let relay = Relay::start_env(&data_dir, "127.0.0.1", &[], &[NO_SESSION_BUS]);
    assert_eq!(sign_in_status(&relay, PASSPHRASE).await, 200);
    assert!(data_dir.join("secrets/passphrase").exists());
    let log = relay.stderr();
    let placement =
        log.lines().find(|l| l.contains("is kept in")).unwrap_or_else(|| panic!("no placement line: {log}"));
    assert!(placement.contains("WARN"), "{placement}");
    assert!(
        placement.contains("the connection passphrase is kept in an owner-only plaintext file in the data directory"),
        "{placement}"
    );
    assert!(placement.contains("no systemd credential and no OS secret store"), "{placement}");
}
