//! Download rules: the fixed asset URL, each redirect refusal (status, count, scheme,
//! credentials, port, host, relative and missing locations), the declared length, and the byte
//! counter stopping at the first excess byte, plus properties: no Location panics the decision
//! and every followed URL is HTTPS on an allowed host.

use super::*;
use crate::updater::digest::Sha256Digest;
use crate::updater::release::AssetKind;
use proptest::prelude::*;

fn asset(id: u64, api_url: &str) -> ReleaseAsset {
    ReleaseAsset {
        kind: AssetKind::Archive,
        name: "relay-v1.3.0-linux-x86_64.zip".into(),
        id,
        api_url: api_url.into(),
        size: 10,
        digest: Sha256Digest::from_bytes([0; 32]),
    }
}

#[test]
fn the_first_request_goes_to_the_fixed_asset_api_url() {
    let url = "https://api.github.com/repos/CrimsonSoul/Relay/releases/assets/101";
    assert_eq!(check_asset_url(&asset(101, url)).unwrap().as_str(), url);
    assert_eq!(check_asset_url(&asset(102, url)), Err(DownloadError::AssetUrlMismatch));
    let other_repo = "https://api.github.com/repos/Other/Relay/releases/assets/101";
    assert_eq!(check_asset_url(&asset(101, other_repo)), Err(DownloadError::AssetUrlMismatch));
    assert_eq!(DownloadError::AssetUrlMismatch.code(), "asset_url_mismatch");
}

#[test]
fn a_200_is_the_answer_and_a_302_to_a_github_host_is_followed() {
    assert_eq!(next_hop(200, None, 0), Hop::Done);
    assert_eq!(next_hop(200, Some("https://evil.example/"), 3), Hop::Done, "a final answer ignores Location");
    for host in ALLOWED_DOWNLOAD_HOSTS {
        let location = format!("https://{host}/path/asset?X-Amz-Signature=abc&response-content-type=a%2Fb");
        assert_eq!(next_hop(302, Some(&location), 0), Hop::Follow(Url::parse(&location).unwrap()));
    }
}

#[test]
fn every_other_status_is_refused() {
    for status in [201, 204, 206, 301, 303, 304, 307, 308, 403, 404, 500] {
        assert_eq!(
            next_hop(status, Some("https://github.com/x"), 0),
            Hop::Refuse(DownloadError::UnexpectedStatus { status })
        );
    }
}

#[test]
fn at_most_three_redirects_are_followed() {
    let location = Some("https://objects.githubusercontent.com/x");
    assert!(matches!(next_hop(302, location, 2), Hop::Follow(_)));
    assert_eq!(next_hop(302, location, 3), Hop::Refuse(DownloadError::TooManyRedirects));
    assert_eq!(next_hop(302, location, u32::MAX), Hop::Refuse(DownloadError::TooManyRedirects));
}

#[test]
fn redirect_targets_must_be_credential_free_https_on_default_ports_of_github_hosts() {
    let refuse = |location: &str| next_hop(302, Some(location), 0);
    assert_eq!(next_hop(302, None, 0), Hop::Refuse(DownloadError::RedirectWithoutLocation));
    assert_eq!(refuse(""), Hop::Refuse(DownloadError::RedirectWithoutLocation));
    assert_eq!(refuse("https://github.com/a b"), Hop::Refuse(DownloadError::RedirectWithoutLocation));
    assert_eq!(refuse("/relative/path"), Hop::Refuse(DownloadError::RedirectNotAbsolute));
    assert_eq!(refuse("http://github.com/x"), Hop::Refuse(DownloadError::RedirectNotHttps));
    assert_eq!(refuse("ftp://github.com/x"), Hop::Refuse(DownloadError::RedirectNotHttps));
    assert_eq!(refuse("https://user@github.com/x"), Hop::Refuse(DownloadError::RedirectWithCredentials));
    assert_eq!(refuse("https://user:pw@github.com/x"), Hop::Refuse(DownloadError::RedirectWithCredentials));
    assert_eq!(refuse("https://:pw@github.com/x"), Hop::Refuse(DownloadError::RedirectWithCredentials));
    assert_eq!(refuse("https://github.com:8443/x"), Hop::Refuse(DownloadError::RedirectWithPort));
    assert_eq!(refuse("https://github.com:443/x"), Hop::Refuse(DownloadError::RedirectWithPort));
    assert_eq!(refuse("https://github.com:/x"), Hop::Refuse(DownloadError::RedirectWithPort));
    for host in ["evil.example", "github.com.evil.example", "evilgithub.com", "gist.github.com", "127.0.0.1", "[::1]"] {
        let location = format!("https://{host}/x");
        assert!(
            matches!(
                refuse(&location),
                Hop::Refuse(DownloadError::RedirectHostNotAllowed | DownloadError::RedirectWithPort)
            ),
            "{location}"
        );
    }
    assert_eq!(refuse("https://evil.example/x"), Hop::Refuse(DownloadError::RedirectHostNotAllowed));
    assert_eq!(refuse("https://GitHub.COM/x").clone(), Hop::Follow(Url::parse("https://github.com/x").unwrap()));
}

#[test]
fn the_declared_length_must_equal_the_release_metadata() {
    assert_eq!(check_content_length(Some(10), 10), Ok(()));
    assert_eq!(check_content_length(Some(11), 10), Err(DownloadError::LengthMismatch));
    assert_eq!(check_content_length(Some(9), 10), Err(DownloadError::LengthMismatch));
    assert_eq!(check_content_length(None, 10), Err(DownloadError::LengthMissing));
}

#[test]
fn the_counter_stops_at_the_first_byte_past_the_expected_size() {
    let mut counter = ByteCounter::new(10);
    assert_eq!(counter.record(4), Ok(()));
    assert_eq!(counter.finish(), Err(DownloadError::TooShort));
    assert_eq!(counter.record(6), Ok(()));
    assert_eq!((counter.received(), counter.expected()), (10, 10));
    assert_eq!(counter.finish(), Ok(()));
    assert_eq!(counter.record(1), Err(DownloadError::TooLong));
    assert_eq!(counter.received(), 10, "a refused chunk is not counted");

    let mut overflow = ByteCounter::new(u64::MAX);
    assert_eq!(overflow.record(u64::MAX), Ok(()));
    assert_eq!(overflow.record(1), Err(DownloadError::TooLong));
    assert_eq!(ByteCounter::new(0).finish(), Ok(()));
}

#[test]
fn size_failures_count_as_verification_and_transport_failures_as_download() {
    assert!(DownloadError::TooLong.is_integrity_failure());
    assert!(DownloadError::TooShort.is_integrity_failure());
    assert!(DownloadError::LengthMismatch.is_integrity_failure());
    assert!(!DownloadError::RedirectHostNotAllowed.is_integrity_failure());
    assert!(!DownloadError::UnexpectedStatus { status: 500 }.is_integrity_failure());
}

proptest! {
    #[test]
    fn any_location_is_decided_without_panicking_and_only_safe_urls_are_followed(
        location in "\\PC{0,120}", status in prop_oneof![Just(302u16), any::<u16>()], hops in 0u32..5,
    ) {
        if let Hop::Follow(url) = next_hop(status, Some(&location), hops) {
            prop_assert_eq!(status, 302);
            prop_assert!(hops < MAX_REDIRECTS);
            prop_assert_eq!(url.scheme(), "https");
            prop_assert!(url.username().is_empty() && url.password().is_none() && url.port().is_none());
            prop_assert!(ALLOWED_DOWNLOAD_HOSTS.contains(&url.host_str().unwrap_or_default()));
        }
    }

    #[test]
    fn url_shaped_locations_never_panic(location in "https?://[a-z@:.\\[\\]0-9]{0,40}(/[a-z%?=&#]{0,20})?") {
        let _ = next_hop(302, Some(&location), 0);
    }

    #[test]
    fn the_counter_accepts_exactly_the_chunks_that_fit(chunks in proptest::collection::vec(0u64..50, 0..20), expected in 0u64..400) {
        let mut counter = ByteCounter::new(expected);
        let mut total = 0u64;
        for chunk in chunks {
            let fits = total + chunk <= expected;
            prop_assert_eq!(counter.record(chunk).is_ok(), fits);
            if fits { total += chunk; }
            prop_assert_eq!(counter.received(), total);
        }
        prop_assert_eq!(counter.finish().is_ok(), total == expected);
    }
}
