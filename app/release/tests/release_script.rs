//! `scripts/release.sh --binary` end to end with a tiny fake x86-64 ELF and a throwaway minisign
//! key pair generated here (written only to a temporary directory): the three assets are
//! named and shaped as `docs/updater.md` says, the ZIP holds exactly `relay-desktop` with mode
//! 0755 and the fixed timestamp, the checksum line and the signature pass the updater's own
//! domain rules with the matching public key and fail with another key, the same input gives
//! the same archive, and a missing key or an existing output is refused.

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

/// A 64-bit little-endian x86-64 ELF header and some bytes.
fn fake_elf() -> Vec<u8> {
    let mut elf = vec![0u8; 64];
    elf[..4].copy_from_slice(b"\x7fELF");
    elf[4] = 2;
    elf[5] = 1;
    elf[6] = 1;
    elf[16] = 2;
    elf[18] = 62;
    elf.extend((0..20_000u32).map(|i| (i % 251) as u8));
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
