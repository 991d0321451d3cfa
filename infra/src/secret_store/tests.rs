//! Tests of the remembered-secret store: the file fallback and the packaged refusal in-process,
//! and the real Secret Service (GNOME Keyring on a private D-Bus session bus started by
//! `dbus-run-session`) or a dead bus in child processes, so the bus address never leaks into
//! other tests of this process.

use std::os::unix::fs::PermissionsExt;
use std::process::Command;

use super::*;

const ENTRY: &str = "connection-passphrase:0123abcd";
const CHILD_MARKER: &str = "RELAY_SECRET_STORE_CHILD";

fn data_dir() -> (tempfile::TempDir, DataDir) {
    let tmp = tempfile::tempdir().unwrap();
    let dir = DataDir::open(tmp.path().join("data")).unwrap();
    (tmp, dir)
}

fn mode(p: &std::path::Path) -> u32 {
    std::fs::metadata(p).unwrap().permissions().mode() & 0o777
}

#[test]
fn development_fallback_is_an_owner_only_file_named_without_the_entry_text() {
    let (_tmp, dir) = data_dir();
    let store = SecretStore::with_storage(&dir, SecretStorage::OwnerOnlyFile);
    assert_eq!(store.get(ENTRY).unwrap(), None);
    assert_eq!(store.set(ENTRY, "correct horse battery").unwrap(), SecretStorage::OwnerOnlyFile);
    assert_eq!(store.get(ENTRY).unwrap().as_deref(), Some("correct horse battery"));
    let path = store.file_path(ENTRY);
    assert_eq!(mode(&path), 0o600);
    assert_eq!(mode(path.parent().unwrap()), 0o700);
    assert!(!path.file_name().unwrap().to_string_lossy().contains(':'));
    store.delete(ENTRY).unwrap();
    assert!(!path.exists());
    assert_eq!(store.get(ENTRY).unwrap(), None);
    store.delete(ENTRY).unwrap();
}

#[test]
fn packaged_builds_without_an_os_store_refuse_and_write_nothing() {
    let (_tmp, dir) = data_dir();
    let store = SecretStore::with_storage(&dir, SecretStorage::MemoryOnly);
    assert!(matches!(store.set(ENTRY, "correct horse battery"), Err(SecretStoreError::PlaintextRefused)));
    assert!(!dir.root().join(FILE_DIR).exists(), "nothing may reach the disk");
    assert_eq!(store.get(ENTRY).unwrap(), None);
}

#[test]
fn a_symlinked_secret_file_is_refused() {
    let (tmp, dir) = data_dir();
    let store = SecretStore::with_storage(&dir, SecretStorage::OwnerOnlyFile);
    store.set(ENTRY, "first secret value").unwrap();
    let path = store.file_path(ENTRY);
    let elsewhere = tmp.path().join("elsewhere");
    std::fs::write(&elsewhere, "attacker value").unwrap();
    std::fs::remove_file(&path).unwrap();
    std::os::unix::fs::symlink(&elsewhere, &path).unwrap();
    assert!(matches!(store.get(ENTRY), Err(SecretStoreError::File(DataDirError::NotRegular(_)))));
}

#[test]
fn bad_entries_and_values_are_refused_before_any_io() {
    let (_tmp, dir) = data_dir();
    let store = SecretStore::with_storage(&dir, SecretStorage::OwnerOnlyFile);
    for entry in ["", "../x", "a/b", "x y", &"a".repeat(200)] {
        assert!(matches!(store.set(entry, "secret value"), Err(SecretStoreError::Invalid)), "{entry:?}");
        assert!(matches!(store.get(entry), Err(SecretStoreError::Invalid)), "{entry:?}");
    }
    assert!(matches!(store.set(ENTRY, ""), Err(SecretStoreError::Invalid)));
    assert!(matches!(store.set(ENTRY, &"x".repeat(MAX_SECRET_LEN + 1)), Err(SecretStoreError::Invalid)));
    assert!(!dir.root().join(FILE_DIR).exists());
}

/// Runs one ignored test of this binary in a child process (`wrapper` first, if any) and fails
/// with its output unless it passed.
fn run_child(test: &str, wrapper: &[&str], envs: &[(&str, &str)]) {
    let exe = std::env::current_exe().unwrap();
    let exe = exe.to_str().unwrap();
    let mut args: Vec<&str> = wrapper.to_vec();
    args.extend([exe, "--exact", test, "--ignored", "--nocapture", "--test-threads=1"]);
    let mut cmd = Command::new(args[0]);
    cmd.args(&args[1..]).env(CHILD_MARKER, "1");
    for (k, v) in envs {
        cmd.env(k, v);
    }
    let out = cmd.output().unwrap_or_else(|e| panic!("could not start {}: {e}", args[0]));
    let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success() && text.contains("1 passed"), "child {test} failed:\n{text}");
}

fn in_child() -> bool {
    std::env::var_os(CHILD_MARKER).is_some()
}

/// Runs one ignored test of this binary on a private session bus with its own unlocked
/// gnome-keyring: nothing of the machine's own keyring is touched.
fn run_in_private_keyring(test: &str) {
    let home = tempfile::tempdir().unwrap();
    let home = home.path().to_str().unwrap().to_string();
    let script = r#"set -e
mkdir -p "$HOME/run" && chmod 700 "$HOME/run"
export XDG_RUNTIME_DIR="$HOME/run" XDG_DATA_HOME="$HOME/data"
eval "$(printf 'relay-test-keyring' | gnome-keyring-daemon --unlock --components=secrets)"
exec "$@""#;
    run_child(test, &["dbus-run-session", "--", "bash", "-c", script, "secret-store-child"], &[("HOME", &home)]);
}

#[test]
fn os_secret_store_round_trip_on_a_private_gnome_keyring() {
    run_in_private_keyring("secret_store::tests::child_os_store_round_trip");
}

#[test]
fn a_desktop_server_passphrase_moves_into_the_private_gnome_keyring() {
    run_in_private_keyring("secret_store::tests::child_server_passphrase_in_os_store");
}

#[test]
#[ignore = "runs inside a private D-Bus session with gnome-keyring-daemon (see the test above)"]
fn child_server_passphrase_in_os_store() {
    use crate::server_passphrase::load_or_create;
    assert!(in_child(), "run through a_desktop_server_passphrase_moves_into_the_private_gnome_keyring");
    let (_tmp, dir) = data_dir();
    let store = SecretStore::open(&dir, BuildKind::Packaged);
    assert_eq!(store.storage(), SecretStorage::OsSecretStore);
    // A plaintext file from an earlier run moves into the keyring and is deleted.
    dir.set_passphrase("passphrase from a file").unwrap();
    let moved = load_or_create(&dir, &store, None).unwrap();
    assert_eq!((moved.value.as_str(), moved.created), ("passphrase from a file", false));
    assert!(matches!(dir.read_passphrase(), Err(DataDirError::NoPassphrase)), "plaintext copy must be gone");
    // The next start (a fresh store) finds it in the keyring.
    let again = load_or_create(&dir, &SecretStore::open(&dir, BuildKind::Packaged), Some("ignored bootstrap")).unwrap();
    assert_eq!((again.value.as_str(), again.created), ("passphrase from a file", false));
    // Another data directory has its own.
    let (_tmp2, other) = data_dir();
    let fresh = load_or_create(&other, &store, Some("second server passphrase")).unwrap();
    assert_eq!((fresh.value.as_str(), fresh.created), ("second server passphrase", true));
    assert!(other.read_passphrase().is_err(), "created straight into the keyring, never as a file");
}

#[test]
#[ignore = "runs inside a private D-Bus session with gnome-keyring-daemon (see the test above)"]
fn child_os_store_round_trip() {
    assert!(in_child(), "run through os_secret_store_round_trip_on_a_private_gnome_keyring");
    let (_tmp, dir) = data_dir();
    // A packaged build uses the OS store when one answers.
    let store = SecretStore::open(&dir, BuildKind::Packaged);
    assert_eq!(store.storage(), SecretStorage::OsSecretStore);
    // A plaintext copy from an earlier development run is removed once the OS store has it.
    SecretStore::with_storage(&dir, SecretStorage::OwnerOnlyFile).set(ENTRY, "old plaintext copy").unwrap();
    assert_eq!(store.set(ENTRY, "correct horse battery").unwrap(), SecretStorage::OsSecretStore);
    assert!(!store.file_path(ENTRY).exists(), "plaintext copy must be gone");
    assert!(!dir.root().join(FILE_DIR).read_dir().unwrap().any(|_| true));
    // A fresh store (a restart) reads it back from the keyring; other entries are separate.
    let again = SecretStore::open(&dir, BuildKind::Packaged);
    assert_eq!(again.get(ENTRY).unwrap().as_deref(), Some("correct horse battery"));
    assert_eq!(again.get("connection-passphrase:ffff").unwrap(), None);
    again.set(ENTRY, "replaced passphrase").unwrap();
    assert_eq!(store.get(ENTRY).unwrap().as_deref(), Some("replaced passphrase"), "replaced, not duplicated");
    again.delete(ENTRY).unwrap();
    assert_eq!(store.get(ENTRY).unwrap(), None);
}

#[test]
fn without_a_secret_service_packaged_is_memory_only_and_development_uses_the_file() {
    let dead_bus = tempfile::tempdir().unwrap();
    let address = format!("unix:path={}/no-bus", dead_bus.path().display());
    run_child("secret_store::tests::child_no_secret_service", &[], &[("DBUS_SESSION_BUS_ADDRESS", &address)]);
}

#[test]
#[ignore = "runs with a dead session bus address (see the test above)"]
fn child_no_secret_service() {
    assert!(in_child(), "run through without_a_secret_service_packaged_is_memory_only_and_development_uses_the_file");
    let (_tmp, dir) = data_dir();
    let packaged = SecretStore::open(&dir, BuildKind::Packaged);
    assert_eq!(packaged.storage(), SecretStorage::MemoryOnly);
    assert!(matches!(packaged.set(ENTRY, "correct horse battery"), Err(SecretStoreError::PlaintextRefused)));
    let development = SecretStore::open(&dir, BuildKind::Development);
    assert_eq!(development.storage(), SecretStorage::OwnerOnlyFile);
    development.set(ENTRY, "correct horse battery").unwrap();
    assert_eq!(mode(&development.file_path(ENTRY)), 0o600);
}
