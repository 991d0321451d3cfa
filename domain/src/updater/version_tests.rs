//! Version rules: what parses, each refusal with its code, numeric (not textual) ordering, the
//! tag form, serde as a string, and properties: no string panics the parser, accepted text
//! round-trips, and ordering agrees with the numbers.

use super::*;
use proptest::prelude::*;

fn v(text: &str) -> Version {
    Version::parse(text).unwrap()
}

#[test]
fn strict_major_minor_patch_parses() {
    assert_eq!(v("0.0.0"), Version::new(0, 0, 0));
    assert_eq!(v("1.2.3"), Version::new(1, 2, 3));
    assert_eq!(v("10.20.30").to_string(), "10.20.30");
    assert_eq!(v("18446744073709551615.0.1").major(), u64::MAX);
}

#[test]
fn anything_but_three_plain_decimal_numbers_is_refused() {
    for text in
        ["", "1", "1.2", "1.2.3.4", "1..3", ".1.2", "1.2.", "1.2.3-rc.1", "1.2.3+build", " 1.2.3", "1.2.3 ", "+1.2.3"]
    {
        assert_eq!(Version::parse(text), Err(VersionError::Malformed), "{text:?}");
    }
    assert_eq!(Version::parse("1.2.٣"), Err(VersionError::Malformed), "non-ASCII digit");
    assert_eq!(Version::parse("-1.2.3"), Err(VersionError::Malformed));
    assert_eq!(Version::parse(&"1".repeat(MAX_VERSION_CHARS + 1)), Err(VersionError::Malformed));
}

#[test]
fn leading_zeros_and_overflow_have_their_own_refusals() {
    assert_eq!(Version::parse("01.2.3"), Err(VersionError::LeadingZero));
    assert_eq!(Version::parse("1.02.3"), Err(VersionError::LeadingZero));
    assert_eq!(Version::parse("1.2.00"), Err(VersionError::LeadingZero));
    assert_eq!(Version::parse("18446744073709551616.0.0"), Err(VersionError::TooLarge));
    assert_eq!(VersionError::LeadingZero.code(), "version_leading_zero");
    assert_eq!(VersionError::TooLarge.code(), "version_too_large");
    assert_eq!(VersionError::Malformed.code(), "version_malformed");
}

#[test]
fn ordering_is_numeric_per_component() {
    assert!(v("1.10.0") > v("1.9.9"));
    assert!(v("2.0.0") > v("1.99.99"));
    assert!(v("1.2.10") > v("1.2.9"));
    assert!(v("0.0.1") > v("0.0.0"));
    assert_eq!(v("1.2.3").cmp(&v("1.2.3")), std::cmp::Ordering::Equal);
}

#[test]
fn tags_are_a_lowercase_v_then_the_version() {
    assert_eq!(v("1.2.3").tag(), "v1.2.3");
    assert_eq!(Version::parse_tag("v1.2.3"), Ok(v("1.2.3")));
    assert_eq!(Version::parse_tag("1.2.3"), Err(VersionError::NotATag));
    assert_eq!(Version::parse_tag("V1.2.3"), Err(VersionError::NotATag));
    assert_eq!(Version::parse_tag("vv1.2.3"), Err(VersionError::Malformed));
    assert_eq!(Version::parse_tag("v01.2.3"), Err(VersionError::LeadingZero));
    assert_eq!(VersionError::NotATag.code(), "tag_malformed");
}

#[test]
fn serde_uses_the_plain_string_and_validates_it() {
    assert_eq!(serde_json::to_string(&v("1.2.3")).unwrap(), "\"1.2.3\"");
    assert_eq!(serde_json::from_str::<Version>("\"4.5.6\"").unwrap(), v("4.5.6"));
    assert!(serde_json::from_str::<Version>("\"4.5\"").is_err());
    assert!(serde_json::from_str::<Version>("\"v4.5.6\"").is_err());
}

proptest! {
    #[test]
    fn no_string_panics_and_accepted_text_round_trips(text in "\\PC{0,70}") {
        if let Ok(version) = Version::parse(&text) {
            prop_assert_eq!(version.to_string(), text.clone());
        }
        let _ = Version::parse_tag(&text);
    }

    #[test]
    fn versionlike_strings_never_panic(text in "[0-9.v+-]{0,30}") {
        if let Ok(version) = Version::parse(&text) {
            prop_assert_eq!(version.to_string(), text);
        }
    }

    #[test]
    fn ordering_matches_the_numbers_after_a_round_trip(a in any::<(u64, u64, u64)>(), b in any::<(u64, u64, u64)>()) {
        let left = Version::new(a.0, a.1, a.2);
        let right = Version::new(b.0, b.1, b.2);
        prop_assert_eq!(left.cmp(&right), a.cmp(&b));
        let reparsed_left = Version::parse(&left.to_string()).unwrap();
        let reparsed_right = Version::parse(&right.to_string()).unwrap();
        prop_assert_eq!(reparsed_left.cmp(&reparsed_right), left.cmp(&right));
        prop_assert_eq!(Version::parse_tag(&left.tag()), Ok(left));
    }
}
