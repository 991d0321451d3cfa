//! Reading systemd credentials: one trailing line break stripped, absence is `None`, links,
//! directories, empty and oversized values refused; the token vault is read-only.

use std::os::unix::fs::PermissionsExt;

use super::*;

fn credentials() -> (tempfile::TempDir, Credentials) {
    let tmp = tempfile::tempdir().unwrap();
    let creds = Credentials::at(tmp.path().to_path_buf()).unwrap();
    (tmp, creds)
}

fn put(creds: &Credentials, name: &str, bytes: &[u8]) {
    let path = creds.dir().join(name);
    std::fs::write(&path, bytes).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o400)).unwrap();
}

#[test]
fn credentials_are_read_without_their_trailing_line_break() {
    let (_tmp, creds) = credentials();
    assert_eq!(creds.read(PASSPHRASE_CREDENTIAL).unwrap(), None, "absent");
    put(&creds, PASSPHRASE_CREDENTIAL, b"correct horse battery\n");
    assert_eq!(creds.read(PASSPHRASE_CREDENTIAL).unwrap().as_deref(), Some("correct horse battery"));
    put(&creds, DYNATRACE_TOKEN_CREDENTIAL, b"dt0s16.SAMPLE.SECRET\r\n");
    assert_eq!(creds.read(DYNATRACE_TOKEN_CREDENTIAL).unwrap().as_deref(), Some("dt0s16.SAMPLE.SECRET"));
    assert!(matches!(Credentials::at("relative/creds".into()), Err(CredentialError::NotAbsolute)));
}

#[test]
fn links_directories_empty_and_oversized_credentials_are_refused() {
    let (tmp, creds) = credentials();
    let elsewhere = tmp.path().join("elsewhere");
    std::fs::write(&elsewhere, b"correct horse battery").unwrap();
    std::os::unix::fs::symlink(&elsewhere, creds.dir().join(PASSPHRASE_CREDENTIAL)).unwrap();
    assert!(matches!(creds.read(PASSPHRASE_CREDENTIAL), Err(CredentialError::NotRegular(_))));
    std::fs::create_dir(creds.dir().join(DYNATRACE_TOKEN_CREDENTIAL)).unwrap();
    assert!(creds.read(DYNATRACE_TOKEN_CREDENTIAL).is_err(), "a directory is no credential");

    let (_tmp, creds) = credentials();
    put(&creds, PASSPHRASE_CREDENTIAL, b"\n");
    assert!(matches!(creds.read(PASSPHRASE_CREDENTIAL), Err(CredentialError::Invalid(_))));
    put(&creds, DYNATRACE_TOKEN_CREDENTIAL, &vec![b'a'; MAX_SECRET_LEN + 1]);
    assert!(matches!(creds.read(DYNATRACE_TOKEN_CREDENTIAL), Err(CredentialError::Invalid(_))));
}

#[test]
fn the_credential_vault_is_read_only() {
    let (_tmp, creds) = credentials();
    put(&creds, DYNATRACE_TOKEN_CREDENTIAL, b"dt0s16.SAMPLE.SECRET\n");
    let vault = CredentialVault::new(creds.clone());
    assert_eq!(vault.get().unwrap().as_deref(), Some("dt0s16.SAMPLE.SECRET"));
    assert_eq!(vault.storage(), SecretStorage::OsSecretStore);
    assert_eq!(vault.set("dt0s16.SAMPLE.SECRET").unwrap(), SecretStorage::OsSecretStore, "the same token binds");
    assert!(matches!(vault.set("dt0s16.OTHER.SECRET"), Err(SecretStoreError::HeldByCredential)));
    vault.delete().unwrap();
    assert_eq!(vault.get().unwrap().as_deref(), Some("dt0s16.SAMPLE.SECRET"), "never deleted or rewritten");
    let names: Vec<_> = std::fs::read_dir(creds.dir()).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert_eq!(names, [DYNATRACE_TOKEN_CREDENTIAL], "nothing is written next to it");
}
