//! Scope rules: profile-name cleaning and bounds, the matcher accept/reject table (pipes,
//! comments, subqueries, query commands, templates, quotes and parentheses, with the same text
//! accepted inside string literals), workflow ids, tokens, and how saved settings become a
//! scope.

use super::*;

fn names(raw: &[&str]) -> Vec<String> {
    raw.iter().map(|s| s.to_string()).collect()
}

fn reason(matcher: &str) -> &'static str {
    match validate_matcher(matcher) {
        Err(ConfigError::InvalidMatcher { reason }) => reason,
        other => panic!("{matcher:?} was not refused: {other:?}"),
    }
}

#[test]
fn profile_names_are_trimmed_deduplicated_in_order_and_blanks_dropped() {
    let cleaned = validate_profile_names(&names(&["  NOC  ", "", "DB team", "NOC", "noc", "   ", "DB team "]));
    assert_eq!(cleaned, Ok(names(&["NOC", "DB team", "noc"])));
    assert_eq!(validate_profile_names(&[]), Ok(vec![]));
}

#[test]
fn profile_names_are_bounded_in_count_length_and_characters() {
    let fifty: Vec<String> = (0..50).map(|i| format!("p{i}")).collect();
    assert_eq!(validate_profile_names(&fifty).map(|v| v.len()), Ok(50));
    let mut fifty_one = fifty.clone();
    fifty_one.push("p50".into());
    assert_eq!(validate_profile_names(&fifty_one), Err(ConfigError::TooManyAlertingProfiles));
    let mut duplicates = fifty;
    duplicates.push("p0".into());
    assert_eq!(validate_profile_names(&duplicates).map(|v| v.len()), Ok(50), "duplicates do not count");

    assert!(validate_profile_names(&["é".repeat(200)]).is_ok());
    assert_eq!(validate_profile_names(&["é".repeat(201)]), Err(ConfigError::AlertingProfileNameTooLong));
    for bad in ["a\nb", "a\tb", "a\u{7f}b", "a\u{85}b", "a\u{2028}b"] {
        assert_eq!(validate_profile_names(&names(&[bad])), Err(ConfigError::InvalidAlertingProfileName), "{bad:?}");
    }
    assert!(validate_profile_names(&names(&["quotes \" and \\ and | fetch logs"])).is_ok(), "dql escapes these");
}

#[test]
fn single_filter_expressions_are_accepted_trimmed() {
    for matcher in [
        "event.name == \"CPU saturation\"",
        "  matchesValue(entity_tags, \"env:prod\") and event.category == \"AVAILABILITY\"  ",
        "in(dt.entity.host, array(\"HOST-1\", \"HOST-2\"))",
        "event.name == \"a | fetch logs // not a comment /* either */ [x] { y }\"",
        "contains(event.name, \"data\") or contains(event.name, \"lookup join append load fetch\")",
        "event.name == \"escaped \\\" quote | still inside\"",
        "event.name == \"backslash at end \\\\\"",
        "dt.davis.data_source == \"x\" and metadata.fetcher == \"y\"",
        "event.data.value > 3",
        "not(isNull(labels.alerting_profile))",
        "((a == 1) or (b == 2))",
        "event.name == \"ünïcödé ✓\"",
        "event.name == \"it's\"",
        "timestamp > now() - 2h",
    ] {
        assert_eq!(validate_matcher(matcher), Ok(matcher.trim().to_string()), "{matcher:?}");
    }
}

#[test]
fn pipelines_comments_subqueries_and_commands_are_refused() {
    let long = format!("event.name == \"{}\"", "x".repeat(MAX_MATCHER_CHARS));
    for (matcher, expected) in [
        ("", "it is empty"),
        ("   ", "it is empty"),
        (long.as_str(), "it is longer than 2000 characters"),
        ("a == 1 | fetch logs", "pipes are not allowed; write one filter expression"),
        ("a == 1|limit 1", "pipes are not allowed; write one filter expression"),
        ("a == \"x\" | filter b", "pipes are not allowed; write one filter expression"),
        ("a == 1 // comment", "comments are not allowed"),
        ("a == 1 /* comment */", "comments are not allowed"),
        ("a == \"x\"/* \" */", "comments are not allowed"),
        ("event.id in [fetch events]", "subqueries and brackets are not allowed"),
        ("labels.alerting_profile[] == \"x\"", "subqueries and brackets are not allowed"),
        ("a ] b", "subqueries and brackets are not allowed"),
        ("fetch logs", "query commands (fetch, lookup, join, data, append, load) are not allowed"),
        ("a == 1 and FETCH", "query commands (fetch, lookup, join, data, append, load) are not allowed"),
        ("Lookup(x)", "query commands (fetch, lookup, join, data, append, load) are not allowed"),
        ("join", "query commands (fetch, lookup, join, data, append, load) are not allowed"),
        ("a == data", "query commands (fetch, lookup, join, data, append, load) are not allowed"),
        ("append x", "query commands (fetch, lookup, join, data, append, load) are not allowed"),
        ("x == 1 and load", "query commands (fetch, lookup, join, data, append, load) are not allowed"),
        ("a == \"x\"data", "query commands (fetch, lookup, join, data, append, load) are not allowed"),
        ("a == \"{{ event.name }}\"", "it contains template markers"),
        ("{% if x %}", "it contains template markers"),
        ("a == \"\"\"x\"\"\"", "triple-quoted strings are not supported"),
        ("a == \"open", "a string is not closed"),
        ("a == \"escaped at end\\\"", "a string is not closed"),
        ("(a == 1", "parentheses are not balanced"),
        ("a == 1)", "parentheses are not balanced"),
        (")(", "parentheses are not balanced"),
        ("a == 'x'", "only double-quoted strings are allowed"),
        ("`\"` | fetch logs | `\"`", "only double-quoted strings are allowed"),
    ] {
        assert_eq!(reason(matcher), expected, "{matcher:?}");
    }
}

#[test]
fn control_characters_are_refused_even_inside_strings() {
    for matcher in ["a == 1\nor b == 2", "a == 1\rb", "a ==\t1", "a == \"x\ny\"", "a == \"\u{0}\"", "a == \"\u{2029}\""]
    {
        assert_eq!(reason(matcher), "it contains line breaks, tabs or other control characters", "{matcher:?}");
    }
}

#[test]
fn matcher_errors_never_echo_the_matcher() {
    let error = validate_matcher("secret_field == 1 | fetch logs").unwrap_err();
    assert_eq!(error.code(), "invalid_matcher");
    assert!(!error.to_string().contains("secret_field"));
    assert!(error.to_string().starts_with("The custom DQL matcher is not accepted: "));
}

#[test]
fn workflow_ids_are_short_uuid_like_words() {
    assert_eq!(
        validate_workflow_id(" 3f2b1c9e-7d4a-4e2b-9c1d-0a1b2c3d4e5f "),
        Ok("3f2b1c9e-7d4a-4e2b-9c1d-0a1b2c3d4e5f".into())
    );
    assert!(validate_workflow_id(&"a".repeat(64)).is_ok());
    for bad in ["", "  ", &"a".repeat(65), "abc/../x", "abc?x=1", "abc def", "abc_def", "ab\u{e9}"] {
        assert_eq!(validate_workflow_id(bad), Err(ConfigError::InvalidWorkflowId), "{bad:?}");
    }
}

#[test]
fn tokens_are_trimmed_printable_ascii_of_bounded_length() {
    let token = "dt0s16.ABCDEFGHIJKL.MNOPQRSTUVWXYZ0123456789";
    assert_eq!(validate_token(&format!("  {token}\n")), Ok(token.to_string()));
    assert!(validate_token(&"x".repeat(16)).is_ok());
    assert!(validate_token(&"x".repeat(2048)).is_ok());
    for bad in [
        "x".repeat(15),
        "x".repeat(2049),
        "dt0s16.ABCD EFGH.IJKLMNOP".to_string(),
        "dt0s16.ABCDEFGH\tIJKLMNOP".to_string(),
        "dt0s16.ABCDEFGHÉIJKLMNOP".to_string(),
        "dt0s16.ABCDEFGH\u{7f}IJKLMNOP".to_string(),
    ] {
        let error = validate_token(&bad).unwrap_err();
        assert_eq!(error, ConfigError::InvalidToken);
        assert!(!error.to_string().contains("dt0s16"));
    }
}

#[test]
fn saved_settings_become_a_scope_with_the_matcher_winning() {
    let profiles = names(&[" NOC ", "NOC"]);
    assert_eq!(Scope::from_settings(&[], None), Ok(Scope::All));
    assert_eq!(Scope::from_settings(&names(&["  "]), Some("  ")), Ok(Scope::All));
    assert_eq!(Scope::from_settings(&profiles, None), Ok(Scope::AlertingProfiles(names(&["NOC"]))));
    assert_eq!(Scope::from_settings(&profiles, Some(" a == 1 ")), Ok(Scope::CustomMatcher("a == 1".into())));
    assert!(Scope::from_settings(&profiles, Some("a | b")).is_err());
    assert_eq!(Scope::All.source(), "all");
    assert_eq!(Scope::AlertingProfiles(vec![]).source(), "alerting-profile");
    assert_eq!(Scope::CustomMatcher("a".into()).source(), "custom-dql");
    assert_eq!(Scope::All.to_json(), serde_json::json!({"kind": "all"}));
    assert_eq!(
        Scope::AlertingProfiles(names(&["NOC"])).to_json(),
        serde_json::json!({"kind": "alerting-profile", "profiles": ["NOC"]})
    );
    assert_eq!(
        Scope::CustomMatcher("a == 1".into()).to_json(),
        serde_json::json!({"kind": "custom-dql", "matcher": "a == 1"})
    );
}
