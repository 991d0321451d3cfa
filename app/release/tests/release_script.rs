//! `scripts/release.sh --binary` end to end with a tiny fake x86-64 ELF and a throwaway minisign
//! key pair generated here (written only to a temporary directory): the three assets are
//! named and shaped as `docs/updater.md` says, the ZIP holds exactly `relay-desktop` with mode
//! 0755 and the fixed timestamp, the checksum line and the signature pass the updater's own
//! domain rules with the matching public key and fail with another key, the same input gives
//! the same archive, and a missing key or an existing output is refused. Releases are the
//! hardened `packaged` variant: with a stand-in `cargo` (the `CARGO` variable) the script builds
//! relay-desktop and relay with `--features packaged` and relay-launcher, and a binary whose
//! version line does not say "(packaged build)" is never signed; from the same binaries it makes
//! both Debian packages (issue #43) with their `.sha256` lines, the desktop package's seed being
//! the archive's very executable, and runs lintian (a stand-in, the `LINTIAN` variable) on them.

use std::io::Read;
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use minisign::KeyPair;
use sha2::{Digest, Sha256};

use domain::updater::release::{archive_asset_name, checksum_asset_name, signature_asset_name};
use domain::updater::{
    parse_checksum_file, parse_signature_file, verify_release_signature, CommitSha, PublisherKey, Sha256Digest,
    SignatureError, Version,
};

const COMMIT: &str = "0123456789abcdef0123456789abcdef01234567";

fn version() -> Version {
    Version::new(1, 3, 0)
}

fn commit() -> CommitSha {
    CommitSha::parse_hex(COMMIT).unwrap()
}

/// What the version line of a `packaged` build says (`relay --version`), as the script checks it.
const PACKAGED_MARK: &str = " (packaged build)";

/// A 64-bit little-endian x86-64 ELF header and some bytes, with a packaged build's version line.
fn fake_elf() -> Vec<u8> {
    let mut elf = development_elf();
    elf.extend_from_slice(format!("1.3.0{PACKAGED_MARK}").as_bytes());
    elf
}

/// The same without the packaged build's mark (a development build's version line instead).
fn development_elf() -> Vec<u8> {
    let mut elf = vec![0u8; 64];
    elf[..4].copy_from_slice(b"\x7fELF");
    elf[4] = 2;
    elf[5] = 1;
    elf[6] = 1;
    elf[16] = 2;
    elf[18] = 62;
    elf.extend((0..20_000u32).map(|i| (i % 251) as u8));
    elf.extend_from_slice(b"1.3.0 (development build)");
    elf
}

struct Fixture {
    tmp: tempfile::TempDir,
    binary: PathBuf,
    key_file: PathBuf,
    public_key: PublisherKey,
}

fn fixture() -> Fixture {
    let tmp = tempfile::tempdir().unwrap();
    let binary = tmp.path().join("relay-desktop");
    std::fs::write(&binary, fake_elf()).unwrap();
    std::fs::set_permissions(&binary, std::fs::Permissions::from_mode(0o755)).unwrap();
    let pair = KeyPair::generate_unencrypted_keypair().unwrap();
    let key_file = tmp.path().join("publisher.key");
    let mut file = std::fs::OpenOptions::new().write(true).create_new(true).mode(0o600).open(&key_file).unwrap();
    std::io::Write::write_all(&mut file, pair.sk.to_box(None).unwrap().into_string().as_bytes()).unwrap();
    let public_key = PublisherKey::from_base64(&pair.pk.to_base64()).unwrap();
    Fixture { tmp, binary, key_file, public_key }
}

fn script() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scripts/release.sh")
}

fn run(fixture: &Fixture, out_dir: &Path, key: Option<&Path>) -> Output {
    let mut command = Command::new("bash");
    command
        .arg(script())
        .args(["--binary".as_ref(), fixture.binary.as_os_str()])
        .args(["--version", "1.3.0", "--commit", COMMIT])
        .args(["--out-dir".as_ref(), out_dir.as_os_str()])
        .args(["--tool", env!("CARGO_BIN_EXE_relay-release-tool")])
        .env_remove("RELAY_RELEASE_MINISIGN_KEY");
    if let Some(key) = key {
        command.env("RELAY_RELEASE_MINISIGN_KEY", key);
    }
    command.output().unwrap()
}

fn assets(out_dir: &Path) -> (Vec<u8>, Vec<u8>, Vec<u8>) {
    let read = |name: String| std::fs::read(out_dir.join(name)).unwrap();
    (
        read(archive_asset_name(&version())),
        read(checksum_asset_name(&version())),
        read(signature_asset_name(&version())),
    )
}

#[test]
fn the_release_assets_verify_with_the_publisher_key_and_only_with_it() {
    let fixture = fixture();
    let dist = fixture.tmp.path().join("dist");
    let output = run(&fixture, &dist, Some(&fixture.key_file));
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));

    let mut names: Vec<String> =
        std::fs::read_dir(&dist).unwrap().map(|e| e.unwrap().file_name().into_string().unwrap()).collect();
    names.sort();
    assert_eq!(
        names,
        [
            "relay-v1.3.0-linux-x86_64.zip",
            "relay-v1.3.0-linux-x86_64.zip.minisig",
            "relay-v1.3.0-linux-x86_64.zip.sha256"
        ]
    );
    let (archive, checksum, signature) = assets(&dist);

    let digest = Sha256Digest::from_bytes(Sha256::digest(&archive).into());
    assert_eq!(parse_checksum_file(&checksum, "relay-v1.3.0-linux-x86_64.zip"), Ok(digest));
    assert_eq!(checksum, format!("{digest}  relay-v1.3.0-linux-x86_64.zip\n").into_bytes());

    assert_eq!(verify_release_signature(&archive, &signature, &version(), &commit(), &fixture.public_key), Ok(()));
    assert_eq!(
        parse_signature_file(&signature).unwrap().trusted_comment(),
        format!("relay-release v1.3.0 {COMMIT} relay-v1.3.0-linux-x86_64.zip")
    );
    let other_key =
        PublisherKey::from_base64(&KeyPair::generate_unencrypted_keypair().unwrap().pk.to_base64()).unwrap();
    assert_eq!(
        verify_release_signature(&archive, &signature, &version(), &commit(), &other_key),
        Err(SignatureError::KeyIdMismatch)
    );
    let newer = Version::new(1, 3, 1);
    assert_eq!(
        verify_release_signature(&archive, &signature, &newer, &commit(), &fixture.public_key),
        Err(SignatureError::TrustedCommentMismatch)
    );

    let mut zip = zip::ZipArchive::new(std::io::Cursor::new(archive.clone())).unwrap();
    assert_eq!(zip.len(), 1);
    let mut member = zip.by_index(0).unwrap();
    assert_eq!(member.name_raw(), b"relay-desktop");
    assert_eq!(member.unix_mode(), Some(0o100_755));
    assert_eq!(member.compression(), zip::CompressionMethod::Deflated);
    assert_eq!(member.last_modified(), Some(zip::DateTime::default()));
    let mut extracted = Vec::new();
    member.read_to_end(&mut extracted).unwrap();
    assert_eq!(extracted, fake_elf());

    // The same binary, version and commit give the same archive (minisign adds noise to each
    // signature, so only the signature differs, and it verifies too).
    let again = fixture.tmp.path().join("again");
    assert!(run(&fixture, &again, Some(&fixture.key_file)).status.success());
    let (archive_again, checksum_again, signature_again) = assets(&again);
    assert!(archive_again == archive && checksum_again == checksum, "the archive is not reproducible");
    assert_eq!(
        verify_release_signature(&archive, &signature_again, &version(), &commit(), &fixture.public_key),
        Ok(())
    );
}

#[test]
fn a_missing_key_an_existing_output_or_a_non_elf_is_refused() {
    let fixture = fixture();
    let dist = fixture.tmp.path().join("dist");
    let output = run(&fixture, &dist, None);
    assert!(!output.status.success());
    assert!(String::from_utf8_lossy(&output.stderr).contains("RELAY_RELEASE_MINISIGN_KEY"));
    assert!(!dist.exists());

    assert!(run(&fixture, &dist, Some(&fixture.key_file)).status.success());
    let before = assets(&dist);
    assert!(!run(&fixture, &dist, Some(&fixture.key_file)).status.success(), "outputs are never replaced");
    assert_eq!(assets(&dist), before);

    std::fs::write(&fixture.binary, b"#!/bin/sh\necho not relay\n").unwrap();
    let other = fixture.tmp.path().join("other");
    assert!(!run(&fixture, &other, Some(&fixture.key_file)).status.success());
    assert!(!other.exists());
}

/// `relay-release-tool keygen` writes a new 0600 secret key (refusing an existing file, which it
/// leaves untouched) and prints the public key line; `scripts/release.sh` signed with that
/// secret key verifies with exactly that printed line.
#[test]
fn keygen_makes_the_publisher_pair_whose_public_line_verifies_the_release() {
    let fixture = fixture();
    let secret = fixture.tmp.path().join("publisher-new.key");
    let keygen = |path: &Path| {
        Command::new(env!("CARGO_BIN_EXE_relay-release-tool"))
            .args(["keygen".as_ref(), "--secret-key".as_ref(), path.as_os_str(), "--unencrypted".as_ref()])
            .output()
            .unwrap()
    };
    let made = keygen(&secret);
    assert!(made.status.success(), "{}", String::from_utf8_lossy(&made.stderr));
    let stdout = String::from_utf8(made.stdout).unwrap();
    let public_line = stdout.lines().last().unwrap();
    let public_key = PublisherKey::from_base64(public_line).unwrap();
    assert_eq!(std::fs::metadata(&secret).unwrap().permissions().mode() & 0o777, 0o600);

    let before = std::fs::read(&secret).unwrap();
    let again = keygen(&secret);
    assert!(!again.status.success(), "an existing secret key file is never replaced");
    assert_eq!(std::fs::read(&secret).unwrap(), before);

    let dist = fixture.tmp.path().join("dist-new-key");
    let output = run(&fixture, &dist, Some(&secret));
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let (archive, _, signature) = assets(&dist);
    assert_eq!(verify_release_signature(&archive, &signature, &version(), &commit(), &public_key), Ok(()));
    assert_eq!(
        verify_release_signature(&archive, &signature, &version(), &commit(), &fixture.public_key),
        Err(SignatureError::KeyIdMismatch)
    );
}

/// A stand-in for `cargo`: logs each invocation to `cargo.log` and, for `build --bin NAME`,
/// writes `NAME` into `$CARGO_TARGET_DIR/release` from a real small program (`/bin/true`, so the
/// Debian packaging tools can read what it links), with the packaged build's version line
/// appended only when `--features packaged` was asked for.
fn fake_cargo(fixture: &Fixture) -> PathBuf {
    let development = fixture.tmp.path().join("development.elf");
    let mut program = std::fs::read("/bin/true").unwrap();
    program.extend_from_slice(b"1.3.0 (development build)");
    std::fs::write(&development, program).unwrap();
    let script = format!(
        r#"#!/usr/bin/env bash
set -euo pipefail
echo "$*" >> "{log}"
bin="" packaged=0
while [ "$#" -gt 0 ]; do
  case "$1" in
    --bin) bin="$2"; shift ;;
    --features) [ "$2" = packaged ] && packaged=1; shift ;;
  esac
  shift
done
[ -n "$bin" ] || exit 0
mkdir -p "$CARGO_TARGET_DIR/release"
out="$CARGO_TARGET_DIR/release/$bin"
cp "{development}" "$out"
[ "$packaged" = 1 ] && printf '%s' '1.3.0{PACKAGED_MARK}' >> "$out"
chmod 0755 "$out"
"#,
        log = fixture.tmp.path().join("cargo.log").display(),
        development = development.display(),
    );
    let path = fixture.tmp.path().join("cargo");
    std::fs::write(&path, script).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path
}

/// A stand-in for `lintian` that records its arguments in `lintian.log`.
fn fake_lintian(fixture: &Fixture) -> PathBuf {
    let path = fixture.tmp.path().join("lintian");
    let log = fixture.tmp.path().join("lintian.log");
    std::fs::write(&path, format!("#!/bin/sh\necho \"$*\" >> '{}'\n", log.display())).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path
}

/// One file of a Debian package's data (`dpkg-deb --fsys-tarfile | tar -xO`).
fn deb_member(deb: &Path, member: &str) -> Vec<u8> {
    let script = format!("dpkg-deb --fsys-tarfile '{}' | tar -xO '{member}'", deb.display());
    let out = Command::new("sh").args(["-c", &script]).output().unwrap();
    assert!(out.status.success(), "{member}: {}", String::from_utf8_lossy(&out.stderr));
    out.stdout
}

#[test]
fn releases_build_and_sign_only_the_packaged_variant() {
    let fixture = fixture();
    let target = fixture.tmp.path().join("target");
    let dist = fixture.tmp.path().join("dist");
    let ui = fixture.tmp.path().join("ui-dist");
    std::fs::create_dir(&ui).unwrap();
    std::fs::write(ui.join("index.html"), b"<!doctype html><title>Relay</title>").unwrap();
    let output = Command::new("bash")
        .arg(script())
        .args(["--version", "1.3.0", "--commit", COMMIT])
        .args(["--out-dir".as_ref(), dist.as_os_str()])
        .args(["--ui-dir".as_ref(), ui.as_os_str()])
        .args(["--tool", env!("CARGO_BIN_EXE_relay-release-tool")])
        .env("RELAY_RELEASE_MINISIGN_KEY", &fixture.key_file)
        .env("CARGO", fake_cargo(&fixture))
        .env("LINTIAN", fake_lintian(&fixture))
        .env("CARGO_TARGET_DIR", &target)
        .output()
        .unwrap();
    let log = std::fs::read_to_string(fixture.tmp.path().join("cargo.log")).unwrap_or_default();
    assert!(output.status.success(), "{}\ncargo: {log}", String::from_utf8_lossy(&output.stderr));
    let builds: Vec<&str> = log.lines().filter(|l| l.starts_with("build ")).collect();
    assert_eq!(builds.len(), 3, "{log}");
    for (build, bin) in builds.iter().zip(["relay-desktop", "relay", "relay-launcher"]) {
        assert!(build.contains(&format!("--bin {bin}")) && build.contains("--release"), "{build}");
        if bin != "relay-launcher" {
            assert!(build.contains("--features packaged"), "the release builds the hardened variant: {build}");
        }
    }
    let (archive, _, signature) = assets(&dist);
    assert_eq!(verify_release_signature(&archive, &signature, &version(), &commit(), &fixture.public_key), Ok(()));
    let mut zip = zip::ZipArchive::new(std::io::Cursor::new(archive)).unwrap();
    let mut packaged = Vec::new();
    zip.by_index(0).unwrap().read_to_end(&mut packaged).unwrap();
    assert_eq!(packaged, std::fs::read(target.join("release/relay-desktop")).unwrap());
    assert!(packaged.ends_with(format!("1.3.0{PACKAGED_MARK}").as_bytes()), "the packaged variant was signed");

    // The Debian packages, from the same binaries and commit, each with its checksum line.
    let debs = ["relay-server_1.3.0_amd64.deb", "relay-desktop_1.3.0_amd64.deb"];
    for deb in debs {
        let bytes = std::fs::read(dist.join(deb)).unwrap();
        let digest = Sha256Digest::from_bytes(Sha256::digest(&bytes).into());
        assert_eq!(std::fs::read_to_string(dist.join(format!("{deb}.sha256"))).unwrap(), format!("{digest}  {deb}\n"));
    }
    let desktop_deb = dist.join(debs[1]);
    assert_eq!(
        deb_member(&desktop_deb, "./usr/lib/relay-desktop/relay-desktop"),
        packaged,
        "the seed is the archive's executable"
    );
    let seed_digest = Sha256Digest::from_bytes(Sha256::digest(&packaged).into());
    assert_eq!(
        String::from_utf8(deb_member(&desktop_deb, "./usr/lib/relay-desktop/seed.json")).unwrap(),
        format!("{{\"version\": \"1.3.0\", \"commit\": \"{COMMIT}\", \"sha256\": \"{seed_digest}\"}}\n")
    );
    assert_eq!(
        deb_member(&desktop_deb, "./usr/bin/relay-launcher"),
        std::fs::read(target.join("release/relay-launcher")).unwrap()
    );
    let server_deb = dist.join(debs[0]);
    let relay = deb_member(&server_deb, "./usr/bin/relay");
    assert_eq!(relay, std::fs::read(target.join("release/relay")).unwrap());
    assert!(relay.ends_with(format!("1.3.0{PACKAGED_MARK}").as_bytes()), "the server package holds the packaged relay");
    assert_eq!(
        deb_member(&server_deb, "./usr/share/relay/ui/index.html"),
        std::fs::read(ui.join("index.html")).unwrap()
    );
    let lintian = std::fs::read_to_string(fixture.tmp.path().join("lintian.log")).unwrap();
    assert_eq!(lintian.trim(), format!("--fail-on error {} {}", dist.join(debs[0]).display(), desktop_deb.display()));

    // A development build is never signed, whether built here or handed in.
    std::fs::write(&fixture.binary, development_elf()).unwrap();
    let refused = fixture.tmp.path().join("refused");
    let output = run(&fixture, &refused, Some(&fixture.key_file));
    assert!(!output.status.success());
    assert!(String::from_utf8_lossy(&output.stderr).contains("not a packaged build"), "{output:?}");
    assert!(!refused.exists(), "nothing is written for a development build");
}
