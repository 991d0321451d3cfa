//! Hex identity rules: exact length, lowercase only, round trip, and no panic on any string.

use super::*;
use proptest::prelude::*;

const HEX64: &str = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";
const HEX40: &str = "0123456789abcdef0123456789abcdef01234567";

#[test]
fn a_sha256_digest_is_exactly_64_lowercase_hex_characters() {
    let digest = Sha256Digest::parse_hex(HEX64).unwrap();
    assert_eq!(digest.as_bytes()[0], 0x01);
    assert_eq!(digest.as_bytes()[31], 0xef);
    assert_eq!(digest.to_hex(), HEX64);
    assert_eq!(Sha256Digest::parse_hex(&HEX64[..63]), None);
    assert_eq!(Sha256Digest::parse_hex(&format!("{HEX64}0")), None);
    assert_eq!(Sha256Digest::parse_hex(&HEX64.to_uppercase()), None);
    assert_eq!(Sha256Digest::parse_hex(&format!("{}g", &HEX64[..63])), None);
    assert_eq!(Sha256Digest::parse_hex(&format!(" {}", &HEX64[..63])), None);
}

#[test]
fn a_commit_is_exactly_40_lowercase_hex_characters() {
    assert_eq!(CommitSha::parse_hex(HEX40).unwrap().to_hex(), HEX40);
    assert_eq!(CommitSha::parse_hex("main"), None);
    assert_eq!(CommitSha::parse_hex(&HEX40[..7]), None);
    assert_eq!(CommitSha::parse_hex(&HEX40.to_uppercase()), None);
    assert_eq!(CommitSha::parse_hex(HEX64), None);
}

proptest! {
    #[test]
    fn parsing_any_string_never_panics_and_accepted_text_round_trips(text in "\\PC{0,80}") {
        if let Some(digest) = Sha256Digest::parse_hex(&text) {
            prop_assert_eq!(digest.to_hex(), text.clone());
        }
        if let Some(commit) = CommitSha::parse_hex(&text) {
            prop_assert_eq!(commit.to_hex(), text);
        }
    }

    #[test]
    fn every_digest_round_trips(bytes in proptest::array::uniform32(any::<u8>())) {
        let digest = Sha256Digest::from_bytes(bytes);
        prop_assert_eq!(Sha256Digest::parse_hex(&digest.to_hex()), Some(digest));
    }
}
