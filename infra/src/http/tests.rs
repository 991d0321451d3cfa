//! The pure rules of the outbound HTTP policy: redirects, profiles, endpoint overrides, header
//! readings, origin descriptions, and the policy's own consistency checks.

use std::time::{Duration, UNIX_EPOCH};

use url::Url;

use super::endpoints::{all, resolve_endpoint, Endpoint, GITHUB_API};
use super::headers::{declared_length, is_json_content_type, parse_retry_after, InvalidContentLength};
use super::redirect::{check_redirect, MAX_HOPS_CEILING};
use super::*;

fn u(s: &str) -> Url {
    Url::parse(s).unwrap()
}

#[test]
fn redirects_follow_only_listed_https_hosts_on_the_default_port_within_the_cap() {
    let allow = RedirectAllowlist::https_hosts(&["github.com", "objects.githubusercontent.com."]).max_hops(2);
    for ok in ["https://github.com/a", "https://GitHub.com./a?x=1", "https://objects.githubusercontent.com:443/x"] {
        assert_eq!(check_redirect(&u(ok), 1, &allow, false), Ok(()), "{ok}");
    }
    let cases = [
        ("https://evil.example/", RedirectRefusal::NotAllowed),
        ("https://github.com.evil.example/", RedirectRefusal::NotAllowed),
        ("https://api.github.com/", RedirectRefusal::NotAllowed),
        ("http://github.com/", RedirectRefusal::Scheme),
        ("ftp://github.com/", RedirectRefusal::Scheme),
        ("https://github.com:8443/", RedirectRefusal::CustomPort),
        ("https://user@github.com/", RedirectRefusal::Userinfo),
        ("https://:pw@github.com/", RedirectRefusal::Userinfo),
    ];
    for (target, want) in cases {
        assert_eq!(check_redirect(&u(target), 1, &allow, false), Err(want), "{target}");
    }
    assert_eq!(check_redirect(&u("https://github.com/"), 2, &allow, false), Ok(()));
    assert_eq!(check_redirect(&u("https://github.com/"), 3, &allow, false), Err(RedirectRefusal::TooManyHops));
    assert_eq!(RedirectAllowlist::https_hosts(&["a.b"]).max_hops(1000).hop_cap(), MAX_HOPS_CEILING);
}

#[test]
fn no_allowlist_refuses_every_redirect() {
    for allow in [RedirectAllowlist::none(), RedirectAllowlist::https_hosts(&["github.com"]).max_hops(0)] {
        assert_eq!(check_redirect(&u("https://github.com/"), 1, &allow, true), Err(RedirectRefusal::NotAllowed));
    }
}

#[test]
fn the_loopback_redirect_exception_exists_only_when_exempt() {
    let allow = RedirectAllowlist::https_hosts(&["127.0.0.1", "localhost"]);
    for target in ["http://127.0.0.1:8080/x", "http://localhost:1/x"] {
        assert_eq!(check_redirect(&u(target), 1, &allow, true), Ok(()), "{target}");
        assert_eq!(check_redirect(&u(target), 1, &allow, false), Err(RedirectRefusal::Scheme), "{target}");
    }
    // Credentials and unlisted hosts are refused even when exempt.
    assert_eq!(check_redirect(&u("http://u:p@127.0.0.1:1/"), 1, &allow, true), Err(RedirectRefusal::Userinfo));
    assert_eq!(check_redirect(&u("http://[::1]:1/"), 1, &allow, true), Err(RedirectRefusal::NotAllowed));
}

#[test]
fn profiles_decide_schemes_and_refuse_credentials() {
    let up = Profile::Upstream;
    let peer = Profile::RelayPeer;
    assert!(check_request_url(up, &u("https://api.github.com/x"), false).is_ok());
    assert!(check_request_url(up, &u("http://api.github.com/x"), true).is_err());
    assert!(check_request_url(up, &u("http://127.0.0.1:9/x"), true).is_ok());
    assert!(check_request_url(up, &u("http://127.0.0.1:9/x"), false).is_err());
    assert!(check_request_url(peer, &u("http://noc-1.local:8090/api/health"), false).is_ok());
    assert!(check_request_url(peer, &u("https://relay.example/api/health"), false).is_ok());
    for bad in ["ftp://relay.example/", "https://user:pw@relay.example/", "file:///etc/passwd"] {
        let err = check_request_url(peer, &u(bad), true).unwrap_err();
        assert_eq!(err.code(), "invalid_url");
        assert!(!err.to_string().contains("pw") && !err.to_string().contains("passwd"), "{err}");
    }
}

const TEST_EP: Endpoint = Endpoint { name: "GITHUB_API", production: "https://api.github.com" };

#[test]
fn release_builds_never_read_an_endpoint_override() {
    let got = resolve_endpoint(&TEST_EP, false, |_| panic!("a release build must not read the environment"));
    assert_eq!(got.unwrap().as_str(), "https://api.github.com/");
}

#[test]
fn debug_builds_accept_only_loopback_origin_overrides() {
    let with = |value: &str| {
        let value = value.to_string();
        resolve_endpoint(&TEST_EP, true, move |var| {
            assert_eq!(var, "RELAY_TEST_UPSTREAM_GITHUB_API");
            Some(value)
        })
    };
    assert_eq!(resolve_endpoint(&TEST_EP, true, |_| None).unwrap().as_str(), "https://api.github.com/");
    assert_eq!(with("  ").unwrap().as_str(), "https://api.github.com/");
    for ok in [
        "http://127.0.0.1:4000",
        "http://127.8.9.10:1/",
        "https://localhost:9",
        "http://[::1]:5",
        "http://LOCALHOST.:7",
    ] {
        let url = with(ok).unwrap_or_else(|e| panic!("{ok}: {e}"));
        assert!(url.host().is_some_and(|h| endpoints::is_loopback(&h)), "{ok}");
    }
    let refused = [
        "http://example.com",
        "http://10.0.0.1:80",
        "http://192.168.1.5",
        "http://127.0.0.1.evil.example",
        "http://localhost.evil.example",
        "http://0.0.0.0:1",
        "ftp://127.0.0.1",
        "http://user:secret@127.0.0.1:1",
        "http://127.0.0.1:1/some/path",
        "http://127.0.0.1:1/?q=1",
        "not a url",
    ];
    for bad in refused {
        let err = with(bad).expect_err(bad);
        assert_eq!(err.code(), "invalid_url", "{bad}");
        assert!(!err.to_string().contains("secret") && !err.to_string().contains("some/path"), "{err}");
    }
}

#[test]
fn production_endpoints_are_https_origins_and_the_default_build_path_resolves_them() {
    for ep in all() {
        let url = resolve_endpoint(ep, false, |_| None).unwrap();
        assert_eq!((url.scheme(), url.path(), url.port()), ("https", "/", None), "{}", ep.name);
        assert!(ep.override_var().starts_with("RELAY_TEST_UPSTREAM_"));
    }
    assert_eq!(GITHUB_API.override_var(), "RELAY_TEST_UPSTREAM_GITHUB_API");
    // In this (debug) test build the override is honoured only when set; nothing sets it here.
    if std::env::var_os(GITHUB_API.override_var()).is_none() {
        assert_eq!(upstream_base(&GITHUB_API).unwrap().as_str(), "https://api.github.com/");
    }
}

#[test]
fn retry_after_reads_seconds_and_http_dates_and_is_capped() {
    let at = httpdate::parse_http_date("Wed, 21 Oct 2015 07:28:00 GMT").unwrap();
    let now = at - Duration::from_secs(90);
    assert_eq!(parse_retry_after("120", now, 3600), Some(120));
    assert_eq!(parse_retry_after(" 0 ", now, 3600), Some(0));
    assert_eq!(parse_retry_after("86400", now, 3600), Some(3600));
    assert_eq!(parse_retry_after("99999999999999999999999999", now, 3600), Some(3600));
    assert_eq!(parse_retry_after("Wed, 21 Oct 2015 07:28:00 GMT", now, 3600), Some(90));
    assert_eq!(parse_retry_after("Wed, 21 Oct 2015 07:28:00 GMT", now, 60), Some(60));
    assert_eq!(parse_retry_after("Wed, 21 Oct 2015 07:28:00 GMT", at + Duration::from_secs(5), 3600), Some(0));
    assert_eq!(parse_retry_after("Wed, 21 Oct 2015 07:28:00 GMT", at - Duration::from_millis(1500), 3600), Some(2));
    for bad in ["", "soon", "-5", "1.5", "0x10", "Wed, 99 Oct 2015 07:28:00 GMT"] {
        assert_eq!(parse_retry_after(bad, now, 3600), None, "{bad:?}");
    }
    assert!(UNIX_EPOCH < now);
}

#[test]
fn json_content_types() {
    for ok in [
        "application/json",
        "Application/JSON; charset=utf-8",
        "application/problem+json",
        "application/vnd.github+json",
    ] {
        assert!(is_json_content_type(ok), "{ok}");
    }
    for bad in [
        "",
        "json",
        "text/html",
        "text/plain",
        "application/jsonp",
        "application/json-seq",
        "application/+json",
        "text/json",
    ] {
        assert!(!is_json_content_type(bad), "{bad}");
    }
}

#[test]
fn declared_lengths() {
    use reqwest::header::{HeaderMap, HeaderValue, CONTENT_LENGTH};
    let mut h = HeaderMap::new();
    assert_eq!(declared_length(&h), Ok(None));
    h.insert(CONTENT_LENGTH, HeaderValue::from_static("12"));
    assert_eq!(declared_length(&h), Ok(Some(12)));
    h.append(CONTENT_LENGTH, HeaderValue::from_static("12"));
    assert_eq!(declared_length(&h), Ok(Some(12)));
    h.append(CONTENT_LENGTH, HeaderValue::from_static("13"));
    assert_eq!(declared_length(&h), Err(InvalidContentLength));
    for bad in ["", "-1", "1e3", "+5", "99999999999999999999999"] {
        let mut h = HeaderMap::new();
        h.insert(CONTENT_LENGTH, HeaderValue::from_str(bad).unwrap());
        assert_eq!(declared_length(&h), Err(InvalidContentLength), "{bad:?}");
    }
}

#[test]
fn origins_never_carry_paths_queries_or_credentials() {
    let url = u("https://user:pw@Host.Example:8443/secret/path?token=abc#frag");
    assert_eq!(origin::describe(&url), "https://host.example:8443");
    assert_eq!(origin::describe(&u("https://host.example:443/x")), "https://host.example");
    assert_eq!(origin::describe(&u("http://[::1]:5/x")), "http://[::1]:5");
    assert_eq!(origin::describe_str("http://u:p@h/x?y"), "http://h");
    assert_eq!(origin::describe_str("not a url ?token=abc"), "<unparseable-url>");
}

#[test]
fn policies_that_contradict_their_profile_do_not_build() {
    let redirecting_peer =
        HttpPolicy { redirects: RedirectAllowlist::https_hosts(&["github.com"]), ..HttpPolicy::relay_peer() };
    assert_eq!(redirecting_peer.build().unwrap_err().code(), "config");
    assert_eq!(HttpPolicy { timeout: Duration::ZERO, ..HttpPolicy::upstream() }.build().unwrap_err().code(), "config");
    assert_eq!(HttpPolicy { max_body_bytes: 0, ..HttpPolicy::upstream() }.build().unwrap_err().code(), "config");
    let peer = HttpPolicy::relay_peer();
    assert_eq!(
        (peer.profile, peer.timeout, peer.redirects.is_empty()),
        (Profile::RelayPeer, Duration::from_secs(15), true)
    );
    assert_eq!(HttpPolicy::default().profile, Profile::Upstream);
    assert!(HttpPolicy::default().build().is_ok());
}

#[test]
fn error_codes_are_distinct_and_messages_name_only_the_origin() {
    let o = || "https://h.example".to_string();
    let all = [
        HttpError::InvalidUrl { origin: o(), reason: "r" },
        HttpError::RedirectRefused { origin: o(), reason: RedirectRefusal::CustomPort },
        HttpError::TooLarge { origin: o(), limit: 1 },
        HttpError::LengthMismatch { origin: o(), declared: 2, received: 1 },
        HttpError::Timeout { origin: o() },
        HttpError::RateLimited { origin: o(), status: 429, retry_after_secs: Some(3) },
        HttpError::BadContentType { origin: o() },
        HttpError::Decode { origin: o() },
        HttpError::Status { origin: o(), status: 500 },
        HttpError::Connect { origin: o() },
        HttpError::Transport { origin: o() },
        HttpError::Cancelled { origin: o() },
        HttpError::Config { reason: "r" },
    ];
    let mut codes: Vec<_> = all.iter().map(HttpError::code).collect();
    codes.sort_unstable();
    codes.dedup();
    assert_eq!(codes.len(), all.len());
    assert_eq!(all[5].retry_after_secs(), Some(3));
    assert_eq!(all[4].retry_after_secs(), None);
}
