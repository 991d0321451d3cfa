//! Where a headless server keeps its secrets: a systemd credential wins and leaves no file, the
//! OS store is probed only for a secret without a credential, and plaintext is the last resort,
//! said so in the placement line.

use std::os::unix::fs::PermissionsExt;

use super::*;

const CREDENTIAL_PASSPHRASE: &str = "credential passphrase 42";
const TOKEN: &str = "dt0s16.SAMPLE.SECRETVALUE";

struct Fixture {
    _tmp: tempfile::TempDir,
    data_dir: DataDir,
    credentials: Credentials,
}

fn fixture() -> Fixture {
    let tmp = tempfile::tempdir().unwrap();
    let data_dir = DataDir::open(tmp.path().join("data")).unwrap();
    let dir = tmp.path().join("credentials");
    std::fs::create_dir(&dir).unwrap();
    let credentials = Credentials::at(dir).unwrap();
    Fixture { _tmp: tmp, data_dir, credentials }
}

fn put(credentials: &Credentials, name: &str, value: &str) {
    let path = credentials.dir().join(name);
    std::fs::write(&path, format!("{value}\n")).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o400)).unwrap();
}

fn no_probe() -> bool {
    panic!("the OS secret store must not be probed when every secret has a credential")
}

#[test]
fn credentials_win_and_nothing_is_written_to_the_data_directory() {
    let f = fixture();
    put(&f.credentials, PASSPHRASE_CREDENTIAL, CREDENTIAL_PASSPHRASE);
    put(&f.credentials, DYNATRACE_TOKEN_CREDENTIAL, TOKEN);
    let secrets = ServerSecrets::open(&f.data_dir, Some(&f.credentials), no_probe, Some("bootstrap ignored")).unwrap();
    assert_eq!((secrets.passphrase.as_str(), secrets.passphrase_created), (CREDENTIAL_PASSPHRASE, false));
    assert_eq!(secrets.passphrase_home, SecretHome::Credential(PASSPHRASE_CREDENTIAL));
    assert_eq!(secrets.token_home, SecretHome::Credential(DYNATRACE_TOKEN_CREDENTIAL));
    assert_eq!(secrets.token_vault.get().unwrap().as_deref(), Some(TOKEN));
    assert!(!secrets.keeps_plaintext());
    assert_eq!(
        secrets.placement(),
        "the connection passphrase is kept in the systemd credential relay-passphrase; \
         the Dynatrace platform token is kept in the systemd credential relay-dynatrace-token"
    );
    assert!(f.data_dir.read_passphrase_opt().unwrap().is_none(), "no plaintext passphrase file");
}

#[test]
fn without_credentials_or_an_os_store_the_plaintext_files_are_used_and_said_so() {
    let f = fixture();
    let mut probes = 0;
    let secrets = ServerSecrets::open(
        &f.data_dir,
        Some(&f.credentials),
        || {
            probes += 1;
            false
        },
        Some("bootstrap passphrase"),
    )
    .unwrap();
    assert_eq!(probes, 1);
    assert_eq!((secrets.passphrase.as_str(), secrets.passphrase_created), ("bootstrap passphrase", true));
    assert_eq!((secrets.passphrase_home, secrets.token_home), (SecretHome::OwnerOnlyFile, SecretHome::OwnerOnlyFile));
    assert_eq!(f.data_dir.read_passphrase().unwrap(), "bootstrap passphrase");
    assert_eq!(secrets.token_vault.storage(), SecretStorage::OwnerOnlyFile);
    assert!(secrets.keeps_plaintext());
    assert!(
        secrets.placement().contains("an owner-only plaintext file in the data directory"),
        "{}",
        secrets.placement()
    );
    assert!(secrets.placement().contains("no systemd credential and no OS secret store"));
}

#[test]
fn a_secret_without_a_credential_falls_back_on_its_own() {
    let f = fixture();
    put(&f.credentials, PASSPHRASE_CREDENTIAL, CREDENTIAL_PASSPHRASE);
    let secrets = ServerSecrets::open(&f.data_dir, Some(&f.credentials), || false, None).unwrap();
    assert_eq!(secrets.passphrase_home, SecretHome::Credential(PASSPHRASE_CREDENTIAL));
    assert_eq!(secrets.token_home, SecretHome::OwnerOnlyFile);
    assert!(f.data_dir.read_passphrase_opt().unwrap().is_none());
}

#[test]
fn an_invalid_credential_passphrase_stops_the_start() {
    let f = fixture();
    put(&f.credentials, PASSPHRASE_CREDENTIAL, "short");
    let opened = ServerSecrets::open(&f.data_dir, Some(&f.credentials), || false, None);
    assert!(matches!(opened, Err(ServerSecretsError::InvalidCredentialPassphrase)));
    assert!(f.data_dir.read_passphrase_opt().unwrap().is_none(), "and writes nothing");
}
