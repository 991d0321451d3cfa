//! Publisher signature rules with throwaway minisign key pairs generated in memory by the
//! `minisign` crate (never used for releases): the trusted comment's exact format; a valid
//! signature verifying whole and streamed; refusals for a flipped, truncated or extended
//! archive, another key (and a forged key id), a genuinely valid legacy signature, a trusted
//! comment for another version, commit or name (replay), an edited trusted comment, a malleated
//! signature and the unset production key; the signature file's strict shape; and a property:
//! no bytes panic the parser.

use super::*;
use base64::engine::general_purpose::STANDARD;
use base64::Engine as _;
use blake2::{Blake2b512, Digest as _};
use minisign::KeyPair;
use proptest::prelude::*;

const COMMIT: &str = "0123456789abcdef0123456789abcdef01234567";
const OTHER_COMMIT: &str = "fedcba9876543210fedcba9876543210fedcba98";
const ARCHIVE: &[u8] = b"PK\x03\x04 a stand-in for relay-v1.3.0-linux-x86_64.zip, long enough to chunk";

fn version() -> Version {
    Version::new(1, 3, 0)
}

fn commit() -> CommitSha {
    CommitSha::parse_hex(COMMIT).unwrap()
}

fn comment() -> String {
    expected_trusted_comment(&version(), &commit())
}

/// A throwaway publisher: a fresh key pair and its [`PublisherKey`].
struct Publisher {
    pair: KeyPair,
    key: PublisherKey,
}

fn publisher() -> Publisher {
    let pair = KeyPair::generate_unencrypted_keypair().unwrap();
    let key = PublisherKey::from_base64(&pair.pk.to_base64()).unwrap();
    Publisher { pair, key }
}

/// A prehashed minisign signature file over `data` with this trusted comment.
fn sign(publisher: &Publisher, data: &[u8], trusted_comment: &str) -> Vec<u8> {
    minisign::sign(Some(&publisher.pair.pk), &publisher.pair.sk, data, Some(trusted_comment), None)
        .unwrap()
        .into_string()
        .into_bytes()
}

fn verify(archive: &[u8], file: &[u8], key: &PublisherKey) -> Result<(), SignatureError> {
    verify_release_signature(archive, file, &version(), &commit(), key)
}

/// The streaming form, fed in chunks of `chunk` bytes.
fn verify_streamed(archive: &[u8], file: &[u8], key: &PublisherKey, chunk: usize) -> Result<(), SignatureError> {
    let signature = parse_signature_file(file)?;
    let mut verifier = ArchiveSignatureVerifier::new(key, &signature, &version(), &commit())?;
    for piece in archive.chunks(chunk) {
        verifier.update(piece);
    }
    verifier.finish()
}

/// Both forms must give the same answer.
fn verify_both(archive: &[u8], file: &[u8], key: &PublisherKey) -> Result<(), SignatureError> {
    let whole = verify(archive, file, key);
    for chunk in [1, 7, archive.len().max(1)] {
        assert_eq!(verify_streamed(archive, file, key, chunk), whole, "chunk {chunk}");
    }
    whole
}

/// Rewrites the binary signature line (algorithm, key id, signature) of a signature file.
fn edit_signature_line(file: &[u8], edit: impl FnOnce(&mut Vec<u8>)) -> Vec<u8> {
    let text = String::from_utf8(file.to_vec()).unwrap();
    let mut lines: Vec<String> = text.lines().map(str::to_owned).collect();
    let mut binary = STANDARD.decode(&lines[1]).unwrap();
    edit(&mut binary);
    lines[1] = STANDARD.encode(binary);
    (lines.join("\n") + "\n").into_bytes()
}

#[test]
fn the_trusted_comment_names_version_commit_and_archive() {
    assert_eq!(comment(), format!("relay-release v1.3.0 {COMMIT} relay-v1.3.0-linux-x86_64.zip"));
}

#[test]
fn a_release_signed_by_the_publisher_verifies_whole_and_streamed() {
    let publisher = publisher();
    let file = sign(&publisher, ARCHIVE, &comment());
    assert_eq!(verify_both(ARCHIVE, &file, &publisher.key), Ok(()));
    let parsed = parse_signature_file(&file).unwrap();
    assert_eq!(parsed.trusted_comment(), comment());
}

#[test]
fn a_changed_archive_fails() {
    let publisher = publisher();
    let file = sign(&publisher, ARCHIVE, &comment());
    for index in [0, 1, ARCHIVE.len() / 2, ARCHIVE.len() - 1] {
        let mut flipped = ARCHIVE.to_vec();
        flipped[index] ^= 0x01;
        assert_eq!(verify_both(&flipped, &file, &publisher.key), Err(SignatureError::SignatureMismatch), "{index}");
    }
    let truncated = &ARCHIVE[..ARCHIVE.len() - 1];
    assert_eq!(verify_both(truncated, &file, &publisher.key), Err(SignatureError::SignatureMismatch));
    let extended = [ARCHIVE, b"\0"].concat();
    assert_eq!(verify_both(&extended, &file, &publisher.key), Err(SignatureError::SignatureMismatch));
}

#[test]
fn a_signature_by_another_key_fails() {
    let (ours, attacker) = (publisher(), publisher());
    let file = sign(&attacker, ARCHIVE, &comment());
    assert_eq!(verify_both(ARCHIVE, &file, &attacker.key), Ok(()));
    assert_eq!(verify_both(ARCHIVE, &file, &ours.key), Err(SignatureError::KeyIdMismatch));
    // The key id is not signed: copying ours leaves a signature our key does not verify.
    let forged = edit_signature_line(&file, |binary| binary[2..10].copy_from_slice(ours.pair.pk.keynum()));
    assert_eq!(verify_both(ARCHIVE, &forged, &ours.key), Err(SignatureError::SignatureMismatch));
}

#[test]
fn a_valid_legacy_signature_is_refused() {
    // A prehashed signature of `data` is an Ed25519 signature of BLAKE2b-512(data); relabelled
    // `Ed` it is a genuine legacy signature of those 64 bytes (the global signature does not
    // cover the algorithm).
    let publisher = publisher();
    let prehashed = sign(&publisher, ARCHIVE, &comment());
    let legacy = edit_signature_line(&prehashed, |binary| binary[..2].copy_from_slice(b"Ed"));
    let legacy_message = Blake2b512::digest(ARCHIVE).to_vec();
    let crate_key = minisign_verify::PublicKey::from_base64(&publisher.pair.pk.to_base64()).unwrap();
    let crate_signature = minisign_verify::Signature::decode(std::str::from_utf8(&legacy).unwrap()).unwrap();
    assert!(crate_key.verify(&legacy_message, &crate_signature, true).is_ok(), "the fixture must be valid legacy");
    assert_eq!(verify_both(&legacy_message, &legacy, &publisher.key), Err(SignatureError::LegacySignature));
}

#[test]
fn a_signature_for_another_release_is_refused() {
    let publisher = publisher();
    let other_commit = CommitSha::parse_hex(OTHER_COMMIT).unwrap();
    let older = expected_trusted_comment(&Version::new(1, 2, 0), &commit());
    let refused = [
        older.clone(),
        expected_trusted_comment(&version(), &other_commit),
        comment().replace("relay-v1.3.0-linux", "Relay-v1.3.0-linux"),
        comment().replace("linux-x86_64.zip", "windows-x64.zip"),
        comment().replace("relay-release ", "relay-release-v2 "),
        comment().replace(" v1.3.0 ", " 1.3.0 "),
        comment().replace(' ', "\t"),
        format!("{} ", comment()),
        format!("{}\ttimestamp:1767225600", comment()),
        "timestamp:1767225600\tfile:relay-v1.3.0-linux-x86_64.zip\thashed".to_owned(),
        String::new(),
    ];
    for trusted in refused {
        let file = sign(&publisher, ARCHIVE, &trusted);
        assert_eq!(
            verify_both(ARCHIVE, &file, &publisher.key),
            Err(SignatureError::TrustedCommentMismatch),
            "{trusted:?}"
        );
    }
    // A genuinely signed older release replayed under the newer tag.
    let old_file = sign(&publisher, ARCHIVE, &older);
    let old_version = Version::new(1, 2, 0);
    assert_eq!(verify_release_signature(ARCHIVE, &old_file, &old_version, &commit(), &publisher.key), Ok(()));
    assert_eq!(verify(ARCHIVE, &old_file, &publisher.key), Err(SignatureError::TrustedCommentMismatch));
}

#[test]
fn an_edited_trusted_comment_fails_the_global_signature() {
    let publisher = publisher();
    let older = expected_trusted_comment(&Version::new(1, 2, 0), &commit());
    let file = String::from_utf8(sign(&publisher, ARCHIVE, &older)).unwrap();
    let edited = file.replace(&older, &comment());
    assert_ne!(edited, file);
    assert_eq!(verify_both(ARCHIVE, edited.as_bytes(), &publisher.key), Err(SignatureError::SignatureMismatch));
}

#[test]
fn a_malleated_signature_with_s_plus_l_fails() {
    // The order of the Ed25519 group, little-endian.
    const L: [u8; 32] = [
        0xed, 0xd3, 0xf5, 0x5c, 0x1a, 0x63, 0x12, 0x58, 0xd6, 0x9c, 0xf7, 0xa2, 0xde, 0xf9, 0xde, 0x14, 0, 0, 0, 0, 0,
        0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x10,
    ];
    let publisher = publisher();
    let file = sign(&publisher, ARCHIVE, &comment());
    let malleated = edit_signature_line(&file, |binary| {
        let mut carry = 0u16;
        for (byte, l) in binary[10 + 32..].iter_mut().zip(L) {
            let sum = u16::from(*byte) + u16::from(l) + carry;
            *byte = sum as u8;
            carry = sum >> 8;
        }
    });
    assert_eq!(verify_both(ARCHIVE, &malleated, &publisher.key), Err(SignatureError::SignatureMismatch));
}

#[test]
fn the_placeholder_production_key_refuses_everything() {
    let publisher = publisher();
    let file = sign(&publisher, ARCHIVE, &comment());
    match PRODUCTION_PUBLISHER_KEY {
        None => {
            assert!(!PublisherKey::production().is_configured());
            assert_eq!(
                verify_both(ARCHIVE, &file, &PublisherKey::production()),
                Err(SignatureError::PublisherKeyNotConfigured)
            );
        }
        Some(text) => {
            assert!(PublisherKey::from_base64(text).is_ok(), "the production key must be a valid key");
            assert!(PublisherKey::production().is_configured());
            assert_ne!(text, publisher.pair.pk.to_base64(), "a test key must never ship");
        }
    }
    assert_eq!(SignatureError::PublisherKeyNotConfigured.code(), "publisher_key_not_configured");
}

#[test]
fn invalid_publisher_keys_are_refused() {
    let good = publisher().pair.pk.to_base64();
    for bad in [String::new(), good[..good.len() - 4].to_owned(), format!("{good}AAAA"), "not base64!".to_owned()] {
        assert_eq!(PublisherKey::from_base64(&bad), Err(SignatureError::InvalidPublisherKey), "{bad:?}");
    }
    let mut unknown_algorithm = STANDARD.decode(&good).unwrap();
    unknown_algorithm[..2].copy_from_slice(b"Xx");
    assert_eq!(
        PublisherKey::from_base64(&STANDARD.encode(unknown_algorithm)),
        Err(SignatureError::InvalidPublisherKey)
    );
}

#[test]
fn the_signature_file_has_minisigns_exact_four_line_shape() {
    let publisher = publisher();
    let file = String::from_utf8(sign(&publisher, ARCHIVE, &comment())).unwrap();
    assert!(file.ends_with('\n') && file.lines().count() == 4);
    assert!(parse_signature_file(file.as_bytes()).is_ok());
    let without_final_newline = file.strip_suffix('\n').unwrap();
    assert_eq!(verify(ARCHIVE, without_final_newline.as_bytes(), &publisher.key), Ok(()));

    let lines: Vec<&str> = file.lines().collect();
    let joined = |lines: &[&str]| lines.join("\n") + "\n";
    let unknown_algorithm = edit_signature_line(file.as_bytes(), |binary| binary[..2].copy_from_slice(b"Xx"));
    let short_signature = edit_signature_line(file.as_bytes(), |binary| {
        binary.pop();
    });
    let malformed = [
        joined(&lines[..3]),
        joined(&[lines[0], lines[1], lines[2], lines[3], lines[3]]),
        format!("{file}\n"),
        file.replace('\n', "\r\n"),
        file.replacen('\n', "\r\n", 1),
        joined(&[lines[0], lines[1], &format!("{}\r", lines[2]), lines[3]]),
        joined(&[&lines[0].replace("untrusted comment: ", "comment: "), lines[1], lines[2], lines[3]]),
        joined(&[lines[0], lines[1], &lines[2].replace("trusted comment: ", "trusted: "), lines[3]]),
        joined(&[lines[0], lines[2], lines[1], lines[3]]),
        joined(&[lines[0], &format!("{}!", lines[1]), lines[2], lines[3]]),
        joined(&[lines[0], lines[1], lines[2], &lines[3][4..]]),
        String::from_utf8(unknown_algorithm).unwrap(),
        String::from_utf8(short_signature).unwrap(),
    ];
    for bad in malformed {
        assert_eq!(
            verify(ARCHIVE, bad.as_bytes(), &publisher.key),
            Err(SignatureError::SignatureFileMalformed),
            "{bad:?}"
        );
    }
    let mut non_utf8 = file.clone().into_bytes();
    non_utf8[20] = 0xff;
    assert_eq!(parse_signature_file(&non_utf8).map(|_| ()), Err(SignatureError::SignatureFileMalformed));
    assert_eq!(parse_signature_file(b"").map(|_| ()), Err(SignatureError::SignatureFileSize));
    let padded = file.replacen("untrusted comment: ", &format!("untrusted comment: {}", "x".repeat(1025)), 1);
    assert_eq!(parse_signature_file(padded.as_bytes()).map(|_| ()), Err(SignatureError::SignatureFileSize));
}

#[test]
fn error_codes_are_stable_and_distinct() {
    use SignatureError as E;
    let all = [
        E::PublisherKeyNotConfigured,
        E::InvalidPublisherKey,
        E::SignatureFileSize,
        E::SignatureFileMalformed,
        E::LegacySignature,
        E::KeyIdMismatch,
        E::SignatureMismatch,
        E::TrustedCommentMismatch,
    ];
    let codes: Vec<&str> = all.iter().map(SignatureError::code).collect();
    assert_eq!(
        codes,
        [
            "publisher_key_not_configured",
            "invalid_publisher_key",
            "signature_file_size",
            "signature_file_malformed",
            "legacy_signature",
            "signature_key_id_mismatch",
            "signature_mismatch",
            "trusted_comment_mismatch",
        ]
    );
}

proptest! {
    #[test]
    fn the_parser_never_panics(bytes in proptest::collection::vec(any::<u8>(), 0..1100), text in "\\PC{0,300}") {
        let _ = parse_signature_file(&bytes);
        let _ = parse_signature_file(text.as_bytes());
        let four_lines = format!("untrusted comment: {text}\n{text}\ntrusted comment: {text}\n{text}\n");
        let _ = parse_signature_file(four_lines.as_bytes());
    }
}
