//! Black-box tests of `relay device` key storage against the real binaries: with an OS secret
//! store (a private D-Bus session running its own unlocked gnome-keyring, so the machine's
//! keyring is never touched) the signing key goes to the keyring and the key file holds no
//! secret, and `send` signs with the key read back from it; with no secret store, `pair`
//! refuses before contacting the server unless `--plaintext-key` asks for the development
//! fallback (an owner-only file). `relay --version` names the build kind (development or
//! packaged).

use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::{Command, Stdio};

use support::{admin_cli, pairing_code, relay_bin, Relay, PASSPHRASE};

const OWNER_PW: &str = "owner-password-for-devices";

fn owner_ready(relay: &Relay) {
    for (args, stdin) in [
        (&["set-password", "--username", "ryan"][..], format!("{OWNER_PW}\n")),
        (&["activate", "--username", "ryan"][..], String::new()),
    ] {
        let (ok, out) = admin_cli(&relay.data_dir, args, &stdin);
        assert!(ok, "relay admin {args:?}: {out}");
    }
}

/// Runs `relay device` with `stdin` lines, in `wrapper` (a command prefix) and `envs`.
fn device(wrapper: &[&str], envs: &[(&str, &str)], key_file: &Path, args: &[&str], stdin: &str) -> (bool, String) {
    let mut argv: Vec<String> = wrapper.iter().map(|s| s.to_string()).collect();
    argv.extend([relay_bin().to_string(), "device".into(), "--key-file".into(), key_file.display().to_string()]);
    argv.extend(args.iter().map(|s| s.to_string()));
    let mut cmd = Command::new(&argv[0]);
    cmd.args(&argv[1..]).stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped());
    for (k, v) in envs {
        cmd.env(k, v);
    }
    let mut child = cmd.spawn().expect("spawn relay device");
    {
        use std::io::Write;
        child.stdin.take().unwrap().write_all(stdin.as_bytes()).unwrap();
    }
    let out = child.wait_with_output().unwrap();
    let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    (out.status.success(), text)
}

#[test]
fn paired_keys_live_in_the_os_secret_store_not_the_key_file() {
    let relay = Relay::start();
    owner_ready(&relay);
    let code = pairing_code(&relay, "ryan", OWNER_PW, "ryan");
    let home = tempfile::tempdir().unwrap();
    let key_file = home.path().join("config/relay/device-key.json");
    // One private session bus and keyring for both commands (pair stores, send reads back).
    let script = r#"set -e
mkdir -p "$HOME/run" && chmod 700 "$HOME/run"
export XDG_RUNTIME_DIR="$HOME/run" XDG_DATA_HOME="$HOME/data"
eval "$(printf 'relay-test-keyring' | gnome-keyring-daemon --unlock --components=secrets)"
"$@" pair --server "$RELAY_URL" --username ryan <<< "$(printf '%s\n%s\n' "$PASS" "$CODE")"
"$@" send --command privileged.probe <<< "$PASS""#;
    let home_path = home.path().to_str().unwrap();
    let key = key_file.to_str().unwrap();
    let out = Command::new("dbus-run-session")
        .args(["--", "bash", "-c", script, "device-keyring"])
        .args([relay_bin(), "device", "--key-file", key])
        .env("HOME", home_path)
        .env("RELAY_URL", &relay.base)
        .env("PASS", PASSPHRASE)
        .env("CODE", &code)
        .output()
        .expect("dbus-run-session");
    let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "pair + send in a private keyring: {text}");
    assert!(text.contains("signing key kept in the OS secret store"), "{text}");
    assert!(text.contains("\"role\": \"owner\""), "send signed with the keyring's key: {text}");
    let file = std::fs::read_to_string(&key_file).unwrap();
    assert!(!file.contains("secretScalar"), "no secret in the key file: {file}");
    assert_eq!(std::fs::metadata(&key_file).unwrap().permissions().mode() & 0o777, 0o600);
    assert!(!key_file.parent().unwrap().join("device-secrets").exists(), "no plaintext fallback folder");
}

#[test]
fn without_a_secret_store_pairing_needs_the_explicit_development_fallback() {
    let relay = Relay::start();
    owner_ready(&relay);
    let code = pairing_code(&relay, "ryan", OWNER_PW, "ryan");
    let tmp = tempfile::tempdir().unwrap();
    let key_file = tmp.path().join("device-key.json");
    let dead_bus = format!("unix:path={}/no-bus", tmp.path().display());
    let envs = [("DBUS_SESSION_BUS_ADDRESS", dead_bus.as_str())];
    let stdin = format!("{PASSPHRASE}\n{code}\n");
    let pair = ["pair", "--server", relay.base.as_str(), "--username", "ryan"];
    let (ok, out) = device(&[], &envs, &key_file, &pair, &stdin);
    assert!(!ok && out.contains("--plaintext-key"), "refused with the way out named: {out}");
    assert!(!key_file.exists(), "nothing written");
    // Refused before the server was contacted: the same code still pairs.
    let mut with_fallback = pair.to_vec();
    with_fallback.push("--plaintext-key");
    let (ok, out) = device(&[], &envs, &key_file, &with_fallback, &stdin);
    assert!(ok, "development fallback: {out}");
    assert!(out.contains("owner-only key file"), "{out}");
    assert_eq!(std::fs::metadata(&key_file).unwrap().permissions().mode() & 0o777, 0o600);
    let (ok, out) =
        device(&[], &envs, &key_file, &["send", "--command", "privileged.probe"], &format!("{PASSPHRASE}\n"));
    assert!(ok && out.contains("\"role\": \"owner\""), "{out}");
}

/// `relay --version` names the variant: the development build refuses plaintext device keys only
/// without `--plaintext-key`, a packaged build always; `scripts/release.sh` signs only a binary
/// whose version line says "(packaged build)".
#[test]
fn the_version_line_names_the_build_kind() {
    let out = Command::new(relay_bin()).arg("--version").output().unwrap();
    assert!(out.status.success());
    let line = String::from_utf8(out.stdout).unwrap();
    let kind = if cfg!(feature = "packaged") { "(packaged build)" } else { "(development build)" };
    assert_eq!(line.trim(), format!("relay {} {kind}", env!("CARGO_PKG_VERSION")));
}
