//! Environment URL rules: the accept table with its normalization, the reject table (lookalike
//! hosts, ports, credentials, plain http, IP hosts, paths, queries, punycode, whitespace), and
//! error messages and codes that never echo what was submitted.

use super::*;

#[test]
fn accepted_urls_are_normalized_to_lowercase_https_without_a_trailing_slash() {
    for (raw, normalized) in [
        ("https://abc12345.apps.dynatrace.com", "https://abc12345.apps.dynatrace.com"),
        ("https://abc12345.apps.dynatrace.com/", "https://abc12345.apps.dynatrace.com"),
        ("  https://abc12345.apps.dynatrace.com  ", "https://abc12345.apps.dynatrace.com"),
        ("HTTPS://ABC12345.APPS.DYNATRACE.COM", "https://abc12345.apps.dynatrace.com"),
        ("https://Abc12345.Apps.Dynatrace.Com/", "https://abc12345.apps.dynatrace.com"),
        ("https://my-env-01.apps.dynatrace.com", "https://my-env-01.apps.dynatrace.com"),
        ("https://a.apps.dynatrace.com", "https://a.apps.dynatrace.com"),
        ("https://12345678.apps.dynatrace.com", "https://12345678.apps.dynatrace.com"),
    ] {
        let url = EnvironmentUrl::parse(raw).unwrap_or_else(|e| panic!("{raw:?}: {e}"));
        assert_eq!(url.as_str(), normalized, "{raw:?}");
        assert_eq!(url.to_string(), normalized);
    }
    let url = EnvironmentUrl::parse("https://ABC12345.apps.dynatrace.com/").unwrap();
    assert_eq!(url.host(), "abc12345.apps.dynatrace.com");
    assert_eq!(url.environment_id(), "abc12345");
    let longest_label = format!("https://{}.apps.dynatrace.com", "a".repeat(63));
    assert!(EnvironmentUrl::parse(&longest_label).is_ok());
}

#[test]
fn everything_but_a_single_label_saas_host_over_https_is_refused() {
    let too_long_label = format!("https://{}.apps.dynatrace.com", "a".repeat(64));
    for raw in [
        "",
        "   ",
        "abc12345.apps.dynatrace.com",
        "http://abc12345.apps.dynatrace.com",
        "ftp://abc12345.apps.dynatrace.com",
        "https:/abc12345.apps.dynatrace.com",
        "https//abc12345.apps.dynatrace.com",
        "https://apps.dynatrace.com",
        "https://.apps.dynatrace.com",
        "https://abc12345.apps.dynatrace.com.evil.com",
        "https://abc12345.apps-dynatrace.com",
        "https://abc12345.apps.dynatrace.co",
        "https://abc12345.live.dynatrace.com",
        "https://abc12345.appsXdynatrace.com",
        "https://evil.com/abc12345.apps.dynatrace.com",
        "https://evil.com?x=.apps.dynatrace.com",
        "https://evil.com#.apps.dynatrace.com",
        "https://a.b.apps.dynatrace.com",
        "https://abc12345.apps.dynatrace.com:443",
        "https://abc12345.apps.dynatrace.com:8443/",
        "https://user:pass@abc12345.apps.dynatrace.com",
        "https://abc12345.apps.dynatrace.com@evil.com",
        "https://evil.com\\@abc12345.apps.dynatrace.com",
        "https://abc12345.apps.dynatrace.com/ui/apps",
        "https://abc12345.apps.dynatrace.com//",
        "https://abc12345.apps.dynatrace.com?tenant=x",
        "https://abc12345.apps.dynatrace.com/#frag",
        "https://abc12345.apps.dynatrace.com.",
        "https://127.0.0.1",
        "https://10.0.0.1.apps.dynatrace.com",
        "https://[::1]",
        "https://-abc.apps.dynatrace.com",
        "https://abc-.apps.dynatrace.com",
        "https://xn--80ak6aa92e.apps.dynatrace.com",
        "https://ab--cd.apps.dynatrace.com",
        "https://abc_123.apps.dynatrace.com",
        "https://abc%2e1.apps.dynatrace.com",
        "https://аbc12345.apps.dynatrace.com",
        "https://abc12345.apps.dynatrace.com\u{ff0f}",
        "https://abc 12345.apps.dynatrace.com",
        "https://abc12345.apps.dynatrace.com\n.evil.com",
        "https://abc12345\t.apps.dynatrace.com",
        "https://abc12345.apps.dynatrace.com\u{0}",
        too_long_label.as_str(),
    ] {
        assert_eq!(EnvironmentUrl::parse(raw), Err(ConfigError::InvalidEnvironmentUrl), "{raw:?}");
    }
}

#[test]
fn the_length_limit_counts_the_trimmed_url() {
    let label = "a".repeat(63);
    let url = format!("https://{label}.apps.dynatrace.com");
    assert!(url.len() <= MAX_ENVIRONMENT_URL_CHARS);
    let padded = format!("{}{url}{}", " ".repeat(150), " ".repeat(150));
    assert!(EnvironmentUrl::parse(&padded).is_ok(), "surrounding whitespace is trimmed first");
}

#[test]
fn config_errors_have_stable_codes_and_never_echo_input() {
    let secret = "dt0s16.SECRETSECRET.https://abc12345.apps.dynatrace.com";
    let all = [
        ConfigError::InvalidEnvironmentUrl,
        ConfigError::TooManyAlertingProfiles,
        ConfigError::AlertingProfileNameTooLong,
        ConfigError::InvalidAlertingProfileName,
        ConfigError::InvalidMatcher { reason: "pipes are not allowed; write one filter expression" },
        ConfigError::InvalidWorkflowId,
        ConfigError::InvalidToken,
    ];
    let mut codes: Vec<&str> = all.iter().map(ConfigError::code).collect();
    for error in &all {
        let code = error.code();
        assert!(code.bytes().all(|b| b.is_ascii_lowercase() || b == b'_'), "{code}");
        assert!(!error.to_string().contains(secret));
    }
    codes.sort_unstable();
    codes.dedup();
    assert_eq!(codes.len(), all.len(), "codes are distinct");
    let refused = EnvironmentUrl::parse(secret).unwrap_err();
    assert_eq!(refused.to_string(), "The environment URL must look like https://abc12345.apps.dynatrace.com");
    let problem: &dyn crate::problem::HttpProblem = &refused;
    assert_eq!((problem.status(), problem.code()), (400, "invalid_environment_url"));
}
