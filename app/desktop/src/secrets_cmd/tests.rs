//! The passphrase commands' logic over real secret-store files (development fallback) and the
//! packaged refusal; the Secret Service backend itself is tested in `infra::secret_store`.

use super::*;
use crate::bridge::Bridge;
use infra::datadir::DataDir;

const SERVER: &str = "http://192.168.1.5:8090";

fn secrets(storage: SecretStorage, client: Option<&str>) -> (tempfile::TempDir, DataDir, Secrets) {
    let tmp = tempfile::tempdir().unwrap();
    let dir = DataDir::open(tmp.path().join("data")).unwrap();
    let s = Secrets::new(SecretStore::with_storage(&dir, storage), client).unwrap();
    (tmp, dir, s)
}

#[test]
fn client_mode_remembers_reveals_and_forgets_per_server() {
    let (_tmp, dir, s) = secrets(SecretStorage::OwnerOnlyFile, Some(SERVER));
    let bridge = Bridge::for_tests(SERVER, None);
    let info = s.connection_info(bridge.connection_info());
    assert!(!info.base.passphrase_available);
    assert!(matches!(s.passphrase_for_sign_in(None), Err(BridgeError::Unavailable(_))));

    assert_eq!(s.remember("correct horse battery").unwrap(), Remembered { storage: SecretStorage::OwnerOnlyFile });
    assert!(s.connection_info(bridge.connection_info()).base.passphrase_available);
    assert_eq!(s.passphrase_for_sign_in(None).unwrap(), "correct horse battery");
    assert_eq!(s.passphrase_for_sign_in(Some("typed passphrase".into())).unwrap(), "typed passphrase", "typed wins");

    // Another server never sees this server's passphrase (one entry per origin).
    let other =
        Secrets::new(SecretStore::with_storage(&dir, SecretStorage::OwnerOnlyFile), Some("http://10.0.0.9:8090"))
            .unwrap();
    assert!(other.passphrase_for_sign_in(None).is_err());

    s.forget().unwrap();
    assert!(!s.connection_info(bridge.connection_info()).base.passphrase_available);
    assert!(s.passphrase_for_sign_in(None).is_err());
}

#[test]
fn invalid_passphrases_are_never_stored() {
    let (_tmp, _dir, s) = secrets(SecretStorage::OwnerOnlyFile, Some(SERVER));
    for bad in ["", "short", "line\nbreak passphrase", &"x".repeat(10_000)] {
        assert!(matches!(s.remember(bad), Err(BridgeError::Invalid(_))), "{bad:?}");
    }
    assert!(s.passphrase_for_sign_in(None).is_err());
    for bad in ["", "short", "line\nbreak passphrase"] {
        assert!(matches!(s.passphrase_for_sign_in(Some(bad.into())), Err(BridgeError::Invalid(_))), "{bad:?}");
    }
}

#[test]
fn packaged_without_os_store_refuses_to_remember() {
    let (_tmp, dir, s) = secrets(SecretStorage::MemoryOnly, Some(SERVER));
    let r = s.remember("correct horse battery");
    assert!(matches!(&r, Err(BridgeError::Unavailable(m)) if m.contains("plaintext")), "{r:?}");
    let info = s.connection_info(Bridge::for_tests(SERVER, None).connection_info());
    assert_eq!(info.secret_storage, SecretStorage::MemoryOnly);
    assert!(!info.base.passphrase_available);
    assert!(!dir.root().join("desktop-secrets").exists());
}

#[test]
fn server_mode_has_nothing_to_remember_and_reveals_the_data_dir_passphrase() {
    let (_tmp, _dir, s) = secrets(SecretStorage::OwnerOnlyFile, None);
    assert!(!s.is_client());
    assert!(matches!(s.remember("correct horse battery"), Err(BridgeError::Unavailable(_))));
    assert!(matches!(s.forget(), Err(BridgeError::Unavailable(_))));
    assert!(
        matches!(s.passphrase_for_sign_in(None), Err(BridgeError::Unavailable(_))),
        "nothing remembered in server mode"
    );
    let bridge = Bridge::for_tests("http://127.0.0.1:8090", Some("server passphrase"));
    let info = s.connection_info(bridge.connection_info());
    assert!(info.base.passphrase_available, "server mode keeps the bridge's answer");
}

#[test]
fn connection_info_serializes_flat_without_secrets() {
    let (_tmp, _dir, s) = secrets(SecretStorage::OwnerOnlyFile, Some(SERVER));
    s.remember("correct horse battery").unwrap();
    let json = serde_json::to_value(s.connection_info(Bridge::for_tests(SERVER, None).connection_info())).unwrap();
    assert_eq!(
        json,
        serde_json::json!({
            "mode": "client",
            "serverUrl": SERVER,
            "passphraseAvailable": true,
            "secretStorage": "owner-only-file"
        })
    );
}

#[test]
fn non_origin_client_urls_are_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = DataDir::open(tmp.path().join("data")).unwrap();
    assert!(Secrets::new(SecretStore::with_storage(&dir, SecretStorage::OwnerOnlyFile), Some("http://x/y")).is_err());
}
