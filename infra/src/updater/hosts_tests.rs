//! The production-to-wire translation: the hosts are exactly the domain's download hosts;
//! production hosts translate nothing, so the domain rule still refuses loopback, plain-HTTP,
//! ported and credentialed locations; overrides translate exactly their own origin and
//! nothing else; overrides must be loopback.

use domain::updater::download::{check_redirect_target, ALLOWED_DOWNLOAD_HOSTS};
use domain::updater::{next_hop, DownloadError, Hop};
use url::Url;

use super::*;
use crate::http::endpoints::{GITHUB_API, GITHUB_OBJECTS};

const ASSET: &str = "https://api.github.com/repos/CrimsonSoul/Relay/releases/assets/9001";

#[test]
fn the_hosts_are_exactly_the_domain_download_hosts() {
    let production: Vec<String> = GITHUB_ENDPOINTS
        .iter()
        .map(|e| endpoints::resolve_endpoint(e, false, |_| None).unwrap().host_str().unwrap().to_owned())
        .collect();
    assert_eq!(production, ALLOWED_DOWNLOAD_HOSTS);
}

#[test]
fn the_production_rule_refuses_loopback_and_plain_http_locations() {
    let hosts = GitHubHosts::production();
    let url = Url::parse(ASSET).unwrap();
    assert_eq!(hosts.to_wire(&url), url);
    let refused = [
        ("http://127.0.0.1:4000/asset", DownloadError::RedirectNotHttps),
        ("http://objects.githubusercontent.com/asset", DownloadError::RedirectNotHttps),
        ("https://127.0.0.1/asset", DownloadError::RedirectHostNotAllowed),
        ("https://localhost/asset", DownloadError::RedirectHostNotAllowed),
        ("https://127.0.0.1:4000/asset", DownloadError::RedirectWithPort),
        ("https://objects.githubusercontent.com:443/asset", DownloadError::RedirectWithPort),
        ("https://user:pw@objects.githubusercontent.com/asset", DownloadError::RedirectWithCredentials),
    ];
    for (location, error) in refused {
        assert_eq!(hosts.from_wire(location), location, "production translates nothing");
        assert_eq!(next_hop(302, Some(&hosts.from_wire(location)), 0), Hop::Refuse(error), "{location}");
    }
    let fine = "https://objects.githubusercontent.com/asset?sig=1";
    assert_eq!(next_hop(302, Some(&hosts.from_wire(fine)), 0), Hop::Follow(Url::parse(fine).unwrap()));
}

#[test]
fn this_build_without_overrides_is_production() {
    let any_override = GITHUB_ENDPOINTS.iter().any(|e| std::env::var_os(e.override_var()).is_some());
    if !any_override {
        assert_eq!(GitHubHosts::for_this_build().unwrap(), GitHubHosts::production());
    }
}

#[test]
fn an_override_translates_exactly_its_own_origin() {
    let hosts = GitHubHosts::with_overrides(&[
        (GITHUB_API, "http://127.0.0.1:4100".to_owned()),
        (GITHUB_OBJECTS, "http://127.0.0.1:4200".to_owned()),
    ])
    .unwrap();
    let wire = hosts.to_wire(&Url::parse(&format!("{ASSET}?x=1")).unwrap());
    assert_eq!(wire.as_str(), "http://127.0.0.1:4100/repos/CrimsonSoul/Relay/releases/assets/9001?x=1");
    // Hosts without an override stay production.
    let web = Url::parse("https://github.com/CrimsonSoul/Relay/releases/download/v1.3.0/a.zip").unwrap();
    assert_eq!(hosts.to_wire(&web), web);

    assert_eq!(hosts.from_wire("http://127.0.0.1:4200/blob?sig=1"), "https://objects.githubusercontent.com/blob?sig=1");
    assert_eq!(
        check_redirect_target(&hosts.from_wire("http://u:p@127.0.0.1:4200/blob")),
        Err(DownloadError::RedirectWithCredentials),
        "credentials survive the translation and are refused"
    );
    for untouched in
        ["http://127.0.0.1:4300/blob", "http://localhost:4200/blob", "https://127.0.0.1:4200/blob", "/blob"]
    {
        assert_eq!(hosts.from_wire(untouched), untouched);
        assert!(check_redirect_target(&hosts.from_wire(untouched)).is_err(), "{untouched}");
    }
}

#[test]
fn overrides_must_be_loopback_origins() {
    for bad in ["https://evil.example", "http://10.0.0.1:80", "http://127.0.0.1:1/path"] {
        let err = GitHubHosts::with_overrides(&[(GITHUB_OBJECTS, bad.to_owned())]).unwrap_err();
        assert_eq!(err.code(), "invalid_url", "{bad}");
    }
}
