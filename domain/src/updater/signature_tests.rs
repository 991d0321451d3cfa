//! Publisher signature rules with a throwaway key pair made from a fixed seed: the manifest's
//! exact bytes, a valid signature verifying, and refusals for a flipped signature byte, a
//! changed manifest field, another version's manifest, a wrong key, a malleated signature, a
//! weak key and the unset production key; the signature file's exact format; strict manifest
//! parsing; and properties: no bytes panic the parsers and every manifest round-trips.

use super::*;
use ed25519_dalek::{Signer, SigningKey};
use proptest::prelude::*;

const COMMIT: &str = "0123456789abcdef0123456789abcdef01234567";
const ARCHIVE_SHA: &str = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08";
const EXE_SHA: &str = "60303ae22b998861bce3b28f33eec1be758a213c86c93c076dbe9f558c11c752";

fn publisher() -> SigningKey {
    SigningKey::from_bytes(&[7u8; 32])
}

fn public_key(signing: &SigningKey) -> PublisherKey {
    PublisherKey::from_bytes(signing.verifying_key().as_bytes()).unwrap()
}

fn manifest() -> ReleaseManifest {
    ReleaseManifest {
        version: Version::new(1, 3, 0),
        commit: CommitSha::parse_hex(COMMIT).unwrap(),
        archive_size: 41_234_567,
        archive_sha256: Sha256Digest::parse_hex(ARCHIVE_SHA).unwrap(),
        executable_size: 98_765_432,
        executable_sha256: Sha256Digest::parse_hex(EXE_SHA).unwrap(),
    }
}

fn sign(signing: &SigningKey, manifest: &ReleaseManifest) -> [u8; 64] {
    signing.sign(&manifest.to_bytes()).to_bytes()
}

fn signature_file(signature: &[u8; 64]) -> Vec<u8> {
    signature_file_text(signature).into_bytes()
}

#[test]
fn the_manifest_has_one_fixed_byte_layout() {
    let expected = format!(
        "relay-release-manifest-v1\nrepository CrimsonSoul/Relay\nversion 1.3.0\ntag v1.3.0\ncommit {COMMIT}\n\
         archive relay-v1.3.0-linux-x86_64.zip\narchive-size 41234567\narchive-sha256 {ARCHIVE_SHA}\n\
         executable relay-desktop\nexecutable-size 98765432\nexecutable-sha256 {EXE_SHA}\n"
    );
    assert_eq!(String::from_utf8(manifest().to_bytes()).unwrap(), expected);
}

#[test]
fn a_release_signed_by_the_publisher_verifies() {
    let key = publisher();
    let file = signature_file(&sign(&key, &manifest()));
    assert_eq!(verify_release_signature(&manifest(), &file, &public_key(&key)), Ok(()));
}

#[test]
fn a_flipped_signature_byte_fails() {
    let key = publisher();
    let signature = sign(&key, &manifest());
    for index in [0, 31, 32, 63] {
        let mut flipped = signature;
        flipped[index] ^= 0x01;
        assert_eq!(
            verify_release_signature(&manifest(), &signature_file(&flipped), &public_key(&key)),
            Err(SignatureError::SignatureMismatch),
            "byte {index}"
        );
    }
}

#[test]
fn any_changed_manifest_field_fails() {
    let key = publisher();
    let file = signature_file(&sign(&key, &manifest()));
    let other_digest = Sha256Digest::from_bytes([0xab; 32]);
    let changed = [
        ReleaseManifest { version: Version::new(1, 3, 1), ..manifest() },
        ReleaseManifest { commit: CommitSha::parse_hex(&"f".repeat(40)).unwrap(), ..manifest() },
        ReleaseManifest { archive_size: 41_234_568, ..manifest() },
        ReleaseManifest { archive_sha256: other_digest, ..manifest() },
        ReleaseManifest { executable_size: 1, ..manifest() },
        ReleaseManifest { executable_sha256: other_digest, ..manifest() },
    ];
    for other in changed {
        assert_eq!(
            verify_release_signature(&other, &file, &public_key(&key)),
            Err(SignatureError::SignatureMismatch),
            "{other:?}"
        );
    }
}

#[test]
fn a_valid_signature_for_another_version_does_not_carry_over() {
    let key = publisher();
    let old = ReleaseManifest { version: Version::new(1, 2, 0), ..manifest() };
    let old_file = signature_file(&sign(&key, &old));
    assert_eq!(verify_release_signature(&old, &old_file, &public_key(&key)), Ok(()));
    assert_eq!(
        verify_release_signature(&manifest(), &old_file, &public_key(&key)),
        Err(SignatureError::SignatureMismatch)
    );
}

#[test]
fn a_signature_by_another_key_fails() {
    let attacker = SigningKey::from_bytes(&[8u8; 32]);
    let file = signature_file(&sign(&attacker, &manifest()));
    assert_eq!(verify_release_signature(&manifest(), &file, &public_key(&attacker)), Ok(()));
    assert_eq!(
        verify_release_signature(&manifest(), &file, &public_key(&publisher())),
        Err(SignatureError::SignatureMismatch)
    );
}

#[test]
fn a_malleated_signature_with_s_plus_l_fails() {
    // The order of the Ed25519 group, little-endian.
    const L: [u8; 32] = [
        0xed, 0xd3, 0xf5, 0x5c, 0x1a, 0x63, 0x12, 0x58, 0xd6, 0x9c, 0xf7, 0xa2, 0xde, 0xf9, 0xde, 0x14, 0, 0, 0, 0, 0,
        0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x10,
    ];
    let key = publisher();
    let mut signature = sign(&key, &manifest());
    let mut carry = 0u16;
    for (byte, l) in signature[32..].iter_mut().zip(L) {
        let sum = u16::from(*byte) + u16::from(l) + carry;
        *byte = sum as u8;
        carry = sum >> 8;
    }
    assert_eq!(
        verify_release_signature(&manifest(), &signature_file(&signature), &public_key(&key)),
        Err(SignatureError::SignatureMismatch)
    );
}

#[test]
fn the_placeholder_production_key_refuses_everything() {
    let key = publisher();
    let file = signature_file(&sign(&key, &manifest()));
    match PRODUCTION_PUBLISHER_KEY {
        None => {
            assert!(!PublisherKey::production().is_configured());
            assert_eq!(
                verify_release_signature(&manifest(), &file, &PublisherKey::production()),
                Err(SignatureError::PublisherKeyNotConfigured)
            );
        }
        Some(bytes) => {
            assert!(PublisherKey::from_bytes(&bytes).is_ok(), "the production key must be a valid key");
            assert!(PublisherKey::production().is_configured());
            assert_ne!(bytes, *key.verifying_key().as_bytes(), "the test key must never ship");
        }
    }
    assert_eq!(SignatureError::PublisherKeyNotConfigured.code(), "publisher_key_not_configured");
}

#[test]
fn weak_keys_are_refused() {
    let mut identity = [0u8; 32];
    identity[0] = 1;
    assert_eq!(PublisherKey::from_bytes(&identity), Err(SignatureError::InvalidPublisherKey));
    assert!(PublisherKey::from_bytes(publisher().verifying_key().as_bytes()).unwrap().is_configured());
}

#[test]
fn the_signature_file_has_one_exact_format() {
    let signature = [0x5a; 64];
    let text = signature_file_text(&signature);
    assert!(text.starts_with("relay-release-signature-v1\n") && text.ends_with("==\n"));
    assert_eq!(parse_signature_file(text.as_bytes()), Ok(signature));
    let malformed = Err(SignatureError::SignatureFileMalformed);
    let encoded = text.lines().nth(1).unwrap().to_owned();
    for bad in [
        encoded.clone() + "\n",
        format!("relay-release-signature-v2\n{encoded}\n"),
        format!("relay-release-signature-v1\n{encoded}"),
        format!("relay-release-signature-v1\r\n{encoded}\r\n"),
        format!("relay-release-signature-v1\n{encoded}\n\n"),
        format!("relay-release-signature-v1\n {encoded}\n"),
        format!("relay-release-signature-v1\n{}\n", encoded.trim_end_matches('=')),
        format!("relay-release-signature-v1\n{}\n", &encoded[4..]),
    ] {
        assert_eq!(parse_signature_file(bad.as_bytes()), malformed, "{bad:?}");
    }
    // Non-canonical base64: the unused low bits of the final character are set.
    let last = encoded.len() - 3;
    let non_canonical = format!("{}{}==", &encoded[..last], if &encoded[last..last + 1] == "o" { "p" } else { "o" });
    assert_eq!(parse_signature_file(format!("relay-release-signature-v1\n{non_canonical}\n").as_bytes()), malformed);
    assert_eq!(parse_signature_file(b""), Err(SignatureError::SignatureFileSize));
    assert_eq!(parse_signature_file(&vec![b'A'; 1025]), Err(SignatureError::SignatureFileSize));
}

#[test]
fn manifests_parse_only_in_their_canonical_form() {
    let bytes = manifest().to_bytes();
    assert_eq!(ReleaseManifest::parse(&bytes), Ok(manifest()));
    let text = String::from_utf8(bytes).unwrap();
    let malformed = Err(SignatureError::ManifestMalformed);
    for bad in [
        text.trim_end().to_owned(),
        text.replace("archive-size 41234567", "archive-size 041234567"),
        text.replace("version 1.3.0\ntag v1.3.0", "tag v1.3.0\nversion 1.3.0"),
        text.replace("tag v1.3.0", "tag v1.3.1"),
        text.replace("repository CrimsonSoul/Relay", "repository Other/Relay"),
        text.replace("executable relay-desktop", "executable relay"),
        text.replace("-v1\n", "-v2\n"),
        text.replace('\n', "\r\n"),
        format!("{text}extra line\n"),
        text.replace(ARCHIVE_SHA, &ARCHIVE_SHA.to_uppercase()),
    ] {
        assert_eq!(ReleaseManifest::parse(bad.as_bytes()), malformed, "{bad:?}");
    }
}

proptest! {
    #[test]
    fn parsers_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..1100), text in "\\PC{0,200}") {
        let _ = parse_signature_file(&bytes);
        let _ = parse_signature_file(text.as_bytes());
        let _ = ReleaseManifest::parse(&bytes);
        let _ = ReleaseManifest::parse(text.as_bytes());
    }

    #[test]
    fn every_manifest_round_trips(
        version in any::<(u64, u64, u64)>(), sizes in any::<(u64, u64)>(),
        commit in proptest::array::uniform20(any::<u8>()), digest in proptest::array::uniform32(any::<u8>()),
    ) {
        let commit_hex: String = commit.iter().map(|b| format!("{b:02x}")).collect();
        let manifest = ReleaseManifest {
            version: Version::new(version.0, version.1, version.2),
            commit: CommitSha::parse_hex(&commit_hex).unwrap(),
            archive_size: sizes.0,
            archive_sha256: Sha256Digest::from_bytes(digest),
            executable_size: sizes.1,
            executable_sha256: Sha256Digest::from_bytes([digest[0]; 32]),
        };
        prop_assert_eq!(ReleaseManifest::parse(&manifest.to_bytes()), Ok(manifest));
    }

    #[test]
    fn signature_files_round_trip(bytes in proptest::collection::vec(any::<u8>(), 64..=64)) {
        let signature: [u8; 64] = bytes.try_into().unwrap();
        prop_assert_eq!(parse_signature_file(signature_file_text(&signature).as_bytes()), Ok(signature));
    }
}
