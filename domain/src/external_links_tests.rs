use super::*;

use LinkError as E;
use LinkKind as K;

fn ok(raw: &str) -> (String, LinkKind) {
    match check_external_link(raw) {
        Ok(link) => (link.url, link.kind),
        Err(e) => panic!("{raw:?} was rejected: {e:?}"),
    }
}

#[test]
fn allowed_hosts_and_kinds() {
    let cases: &[(&str, LinkKind, &str)] = &[
        ("https://status.aws.amazon.com/", K::StatusPage, "https://status.aws.amazon.com/"),
        ("https://azurestatuscdn.azureedge.net/en-us/status", K::StatusPage, ""),
        ("https://status.cloud.microsoft/", K::StatusPage, ""),
        ("https://jira-software.status.atlassian.com/incidents/abc", K::StatusPage, ""),
        ("https://www.githubstatus.com/incidents/x1", K::StatusPage, ""),
        ("https://www.cloudflarestatus.com/", K::StatusPage, ""),
        ("https://status.cloud.google.com/incidents/abc?x=1", K::StatusPage, ""),
        ("https://status.claude.com/", K::StatusPage, ""),
        ("https://status.openai.com/incidents/01", K::StatusPage, ""),
        ("https://api.status.salesforce.com/v1/incidents/active", K::StatusPage, ""),
        ("https://status.salesforce.com/incidents/123", K::StatusPage, ""),
        ("https://stspg.io/abc123", K::StatusPage, ""),
        ("https://statuspage.io/", K::StatusPage, ""),
        ("https://x.com/AWSSupport", K::Social, ""),
        ("https://twitter.com/githubstatus", K::Social, ""),
        ("https://downdetector.com/status/aws-amazon-web-services/", K::Downdetector, ""),
        ("https://downdetector.com/status/github/", K::Downdetector, ""),
        ("https://teams.microsoft.com/l/meeting/new", K::Teams, ""),
        ("https://teams.microsoft.com/l/meeting/new?subject=Bridge&attendees=a@example.com", K::Teams, ""),
        ("msteams://teams.microsoft.com/l/meeting/new?subject=Bridge", K::Teams, ""),
        ("https://dynatrace.com/", K::Dynatrace, ""),
        ("https://abc12345.live.dynatrace.com/ui/dashboards/1?tf=now-2h#x", K::Dynatrace, ""),
        ("https://sso.dynatrace.com/oauth2/authorize", K::Dynatrace, ""),
        ("https://status.mist.com/incidents/xyz", K::JuniperMist, ""),
        // Case-insensitive scheme and host, normalized to lowercase.
        ("HTTPS://STATUS.MIST.COM/incidents/A", K::JuniperMist, "https://status.mist.com/incidents/A"),
        ("https://WWW.GitHubStatus.com", K::StatusPage, "https://www.githubstatus.com/"),
        ("MSTEAMS://Teams.Microsoft.COM/l/meeting/new", K::Teams, "msteams://teams.microsoft.com/l/meeting/new"),
    ];
    for (raw, kind, normalized) in cases {
        let (url, got) = ok(raw);
        assert_eq!(got, *kind, "{raw}");
        if !normalized.is_empty() {
            assert_eq!(url, *normalized, "{raw}");
        }
    }
}

#[test]
fn rejected_links() {
    let long = format!("https://status.mist.com/{}", "a".repeat(MAX_URL_LEN));
    let cases: &[(&str, LinkError)] = &[
        ("", E::Empty),
        (&long, E::TooLong),
        // Schemes.
        ("http://status.mist.com/", E::SchemeNotAllowed),
        ("javascript:alert(1)", E::SchemeNotAllowed),
        ("JaVaScRiPt:alert(1)//https://status.mist.com/", E::SchemeNotAllowed),
        ("file:///etc/passwd", E::SchemeNotAllowed),
        ("data:text/html,<script>alert(1)</script>", E::SchemeNotAllowed),
        ("mailto:noc@example.com", E::SchemeNotAllowed),
        ("ftp://status.mist.com/", E::SchemeNotAllowed),
        ("msteams:/l/meeting/new", E::Invalid),
        ("status.mist.com", E::Invalid),
        ("https:status.mist.com", E::Invalid),
        ("//status.mist.com/", E::Invalid),
        // Whitespace, control and backslashes anywhere.
        ("https://status.mist.com/a b", E::ForbiddenCharacter),
        ("https://status.mist.com/\tx", E::ForbiddenCharacter),
        ("https://status.\nmist.com/", E::ForbiddenCharacter),
        ("https://status.mist.com/\r", E::ForbiddenCharacter),
        (" https://status.mist.com/", E::ForbiddenCharacter),
        ("https://status.mist.com/\u{0}", E::ForbiddenCharacter),
        ("https://status.mist.com/\u{7f}", E::ForbiddenCharacter),
        ("https://status.mist.com/\u{a0}", E::ForbiddenCharacter),
        ("https://status.mist.com/\u{2028}", E::ForbiddenCharacter),
        ("https://teams.microsoft.com\\@evil.com", E::ForbiddenCharacter),
        ("https:/\\evil.com", E::ForbiddenCharacter),
        ("https:\\\\status.mist.com", E::ForbiddenCharacter),
        // Percent-encoded control characters anywhere.
        ("https://status.mist.com/%00", E::EncodedControl),
        ("https://status.mist.com/%0a", E::EncodedControl),
        ("https://status.mist.com/?q=%0D%0A", E::EncodedControl),
        ("https://status.mist.com/%1f", E::EncodedControl),
        ("https://status.mist.com/%7F", E::EncodedControl),
        ("https://status%00.mist.com/", E::EncodedControl),
        // Encoded host characters.
        ("https://status%2emist.com/", E::InvalidHost),
        ("https://status.mist%2Ecom/", E::InvalidHost),
        ("https://%73tatus.mist.com/", E::InvalidHost),
        // Credentials.
        ("https://user:pass@status.mist.com/", E::Credentials),
        ("https://user@status.mist.com/", E::Credentials),
        ("https://status.mist.com@evil.com/", E::Credentials),
        ("https://dynatrace.com@evil.net/", E::Credentials),
        ("https://@status.mist.com/", E::Credentials),
        // Ports, including the default one.
        ("https://status.mist.com:443/", E::Port),
        ("https://status.mist.com:8443/", E::Port),
        ("https://status.mist.com:/", E::Port),
        // Malformed hosts.
        ("https:///path", E::InvalidHost),
        ("https://status.mist.com./", E::InvalidHost),
        ("https://status..mist.com/", E::InvalidHost),
        ("https://.status.mist.com/", E::InvalidHost),
        ("https://[::1]/", E::InvalidHost),
        ("https://127.0.0.1/", E::InvalidHost),
        ("https://0x7f.1/", E::InvalidHost),
        ("https://stat!us.mist.com/", E::InvalidHost),
        ("https://st\u{0430}tus.mist.com/", E::ForbiddenCharacter),
        // Hosts outside the allowlist.
        ("https://evil.com/", E::HostNotAllowed),
        ("https://status.mist.com.evil.net/", E::HostNotAllowed),
        ("https://mist.com/", E::HostNotAllowed),
        ("https://xstatus.mist.com/", E::HostNotAllowed),
        ("https://www.status.mist.com/", E::HostNotAllowed),
        ("https://status-mist.com/", E::HostNotAllowed),
        ("https://xn--sttus-7ua.mist.com/", E::HostNotAllowed),
        ("https://www.x.com/", E::HostNotAllowed),
        ("https://x.com.evil.net/", E::HostNotAllowed),
        ("https://mobile.twitter.com/a", E::HostNotAllowed),
        ("https://evil.statuspage.io/", E::HostNotAllowed),
        ("https://githubstatus.com/", E::HostNotAllowed),
        ("https://status.aws.amazon.com.evil.net/", E::HostNotAllowed),
        ("https://www.downdetector.com/status/aws/", E::HostNotAllowed),
        ("https://teams.microsoft.com.evil.net/l/meeting/new", E::HostNotAllowed),
        ("https://evil.teams.microsoft.com/l/meeting/new", E::HostNotAllowed),
        ("https://xn--teams-microsft-5pb.com/l/meeting/new", E::HostNotAllowed),
        ("msteams://evil.com/l/meeting/new", E::HostNotAllowed),
        ("msteams://status.mist.com/", E::HostNotAllowed),
        ("https://evildynatrace.com/", E::HostNotAllowed),
        ("https://dynatrace.com.evil.net/", E::HostNotAllowed),
        ("https://xn--dynatrac-r1a.com/", E::HostNotAllowed),
        ("https://xn--80ak6aa92e.dynatrace.com/", E::HostNotAllowed),
        ("https://-bad.dynatrace.com/", E::HostNotAllowed),
        ("https://a_b.dynatrace.com/", E::HostNotAllowed),
        ("https://portal.azure.com/", E::HostNotAllowed),
        ("https://evil.azure.status.microsoft/", E::HostNotAllowed),
        ("https://localhost/", E::HostNotAllowed),
        // Downdetector path shape.
        ("https://downdetector.com/", E::PathNotAllowed),
        ("https://downdetector.com/status/aws", E::PathNotAllowed),
        ("https://downdetector.com/status//", E::PathNotAllowed),
        ("https://downdetector.com/status/aws/extra/", E::PathNotAllowed),
        ("https://downdetector.com/status/AWS/", E::PathNotAllowed),
        ("https://downdetector.com/status/-aws/", E::PathNotAllowed),
        ("https://downdetector.com/status/../login/", E::PathNotAllowed),
        ("https://downdetector.com/status/%2e%2e/x/", E::PathNotAllowed),
        ("https://downdetector.com/status/aws/?next=evil", E::QueryNotAllowed),
        ("https://downdetector.com/status/aws/#x", E::FragmentNotAllowed),
    ];
    for (raw, want) in cases {
        assert_eq!(check_external_link(raw), Err(want.clone()), "{raw:?}");
    }
}

#[test]
fn teams_meeting_draft_rules() {
    let base = "https://teams.microsoft.com/l/meeting/new";
    let subject_max = "s".repeat(MAX_TEAMS_SUBJECT_CHARS);
    let subject_over = "s".repeat(MAX_TEAMS_SUBJECT_CHARS + 1);
    let subject_unicode_max = "%C3%A9".repeat(MAX_TEAMS_SUBJECT_CHARS);
    let many = |n: usize| (0..n).map(|i| format!("u{i}@example.com")).collect::<Vec<_>>().join(",");
    let long_local = format!("{}@example.com", "a".repeat(MAX_ATTENDEE_LEN - "@example.com".len() + 1));
    let max_local = format!("{}@example.com", "a".repeat(MAX_ATTENDEE_LEN - "@example.com".len()));
    let cases: Vec<(String, Result<(), LinkError>)> = vec![
        (base.to_string(), Ok(())),
        (format!("{base}?subject=P1%20bridge%3A%20DB+down"), Ok(())),
        (format!("{base}?attendees=a@example.com,b.c@example.org"), Ok(())),
        (format!("{base}?attendees=a%40example.com%2Cb%40example.org"), Ok(())),
        (format!("{base}?attendees=a@example.com&subject=x"), Ok(())),
        (format!("{base}?subject="), Ok(())),
        (format!("{base}?subject={subject_max}"), Ok(())),
        (format!("{base}?subject={subject_unicode_max}"), Ok(())),
        (format!("{base}?attendees={}", many(MAX_TEAMS_ATTENDEES)), Ok(())),
        (format!("{base}?attendees={max_local}"), Ok(())),
        // Path.
        (format!("{base}/"), Err(E::PathNotAllowed)),
        ("https://teams.microsoft.com/l/meetup-join/19%3ameeting".into(), Err(E::PathNotAllowed)),
        ("https://teams.microsoft.com/".into(), Err(E::PathNotAllowed)),
        ("https://teams.microsoft.com/L/meeting/new".into(), Err(E::PathNotAllowed)),
        ("https://teams.microsoft.com/l/meeting/new/../../evil".into(), Err(E::PathNotAllowed)),
        // Query keys: exact, at most once each, nothing else.
        (format!("{base}?subject=a&subject=b"), Err(E::QueryNotAllowed)),
        (format!("{base}?attendees=a@example.com&attendees=b@example.com"), Err(E::QueryNotAllowed)),
        (format!("{base}?subject=a&content=b"), Err(E::QueryNotAllowed)),
        (format!("{base}?Subject=a"), Err(E::QueryNotAllowed)),
        (format!("{base}?sub%6aect=a"), Err(E::QueryNotAllowed)),
        (format!("{base}?subject"), Err(E::QueryNotAllowed)),
        (format!("{base}?subject=a&"), Err(E::QueryNotAllowed)),
        (format!("{base}?&subject=a"), Err(E::QueryNotAllowed)),
        (format!("{base}?"), Err(E::QueryNotAllowed)),
        (format!("{base}?subject=a#frag"), Err(E::FragmentNotAllowed)),
        (format!("{base}#"), Err(E::FragmentNotAllowed)),
        // Subject values.
        (format!("{base}?subject={subject_over}"), Err(E::TeamsSubject)),
        (format!("{base}?subject=%E2%80%AEevil"), Err(E::TeamsSubject)),
        (format!("{base}?subject=%C2%85"), Err(E::TeamsSubject)),
        (format!("{base}?subject=%E2%80%A8"), Err(E::TeamsSubject)),
        (format!("{base}?subject=%FF"), Err(E::TeamsSubject)),
        (format!("{base}?subject=%zz"), Err(E::TeamsSubject)),
        (format!("{base}?subject=%0a"), Err(E::EncodedControl)),
        // Attendee values.
        (format!("{base}?attendees="), Err(E::TeamsAttendees)),
        (format!("{base}?attendees=not-an-email"), Err(E::TeamsAttendees)),
        (format!("{base}?attendees=a@example.com,"), Err(E::TeamsAttendees)),
        (format!("{base}?attendees=a@example.com,,b@example.com"), Err(E::TeamsAttendees)),
        (format!("{base}?attendees=a@example.com+b@example.com"), Err(E::TeamsAttendees)),
        (format!("{base}?attendees=a@example.com;b@example.com"), Err(E::TeamsAttendees)),
        (format!("{base}?attendees=a@localhost"), Err(E::TeamsAttendees)),
        (format!("{base}?attendees=%C3%A9@example.com"), Err(E::TeamsAttendees)),
        (format!("{base}?attendees={}", many(MAX_TEAMS_ATTENDEES + 1)), Err(E::TeamsAttendees)),
        (format!("{base}?attendees={long_local}"), Err(E::TeamsAttendees)),
        // The msteams: form follows the same rules.
        ("msteams://teams.microsoft.com/l/meeting/new?subject=a&x=1".into(), Err(E::QueryNotAllowed)),
        ("msteams://teams.microsoft.com/l/chat/0/0".into(), Err(E::PathNotAllowed)),
        ("msteams://teams.microsoft.com/l/meeting/new#x".into(), Err(E::FragmentNotAllowed)),
        ("msteams://user@teams.microsoft.com/l/meeting/new".into(), Err(E::Credentials)),
        ("msteams://teams.microsoft.com:443/l/meeting/new".into(), Err(E::Port)),
    ];
    for (raw, want) in &cases {
        let got = check_external_link(raw).map(|link| assert_eq!(link.kind, K::Teams, "{raw}"));
        assert_eq!(&got, want, "{raw:?}");
    }
}

#[test]
fn dynatrace_host_boundaries() {
    let cases: &[(&str, bool)] = &[
        ("dynatrace.com", true),
        ("DYNATRACE.COM", true),
        ("abc.live.dynatrace.com", true),
        ("a-1.apps.dynatrace.com", true),
        ("evildynatrace.com", false),
        ("dynatrace.com.evil.net", false),
        ("dynatrace.com.", false),
        (".dynatrace.com", false),
        ("a..dynatrace.com", false),
        ("xn--80ak6aa92e.dynatrace.com", false),
        ("-a.dynatrace.com", false),
        ("a-.dynatrace.com", false),
        ("a_b.dynatrace.com", false),
        ("dynatrace.co", false),
        ("ynatrace.com", false),
        ("", false),
    ];
    for (host, want) in cases {
        assert_eq!(is_dynatrace_host(host), *want, "{host:?}");
    }
    let long_label = format!("{}.dynatrace.com", "a".repeat(64));
    assert!(!is_dynatrace_host(&long_label));
}

#[test]
fn service_desk_shape_checks() {
    let long = format!("https://desk.example.com/{}", "a".repeat(MAX_URL_LEN));
    let cases: &[(&str, Result<&str, LinkError>)] = &[
        ("https://desk.example.com/ticket/123?x=1#top", Ok("https://desk.example.com/ticket/123?x=1#top")),
        ("https://Desk.Example.COM", Ok("https://desk.example.com/")),
        ("https://servicedesk/", Ok("https://servicedesk/")),
        ("https://xn--bcher-kva.example/", Ok("https://xn--bcher-kva.example/")),
        ("https://my_desk.corp.example/a", Ok("https://my_desk.corp.example/a")),
        ("http://desk.example.com/", Err(E::SchemeNotAllowed)),
        ("javascript:alert(1)", Err(E::SchemeNotAllowed)),
        ("msteams://teams.microsoft.com/l/meeting/new", Err(E::SchemeNotAllowed)),
        ("https://user:pw@desk.example.com/", Err(E::Credentials)),
        ("https://desk.example.com:443/", Err(E::Port)),
        ("https://desk.example.com:8443/", Err(E::Port)),
        ("https://desk.example.com/a b", Err(E::ForbiddenCharacter)),
        ("https://desk.example.com/\n", Err(E::ForbiddenCharacter)),
        ("https://desk.example.com\\@evil.com/", Err(E::ForbiddenCharacter)),
        ("https://desk.example.com/%00", Err(E::EncodedControl)),
        ("https://desk.example.com./", Err(E::InvalidHost)),
        ("https://10.0.0.5/", Err(E::InvalidHost)),
        ("https://2130706433/", Err(E::InvalidHost)),
        ("https://[fe80::1]/", Err(E::InvalidHost)),
        ("https://desk%2eexample.com/", Err(E::InvalidHost)),
        ("https:///x", Err(E::InvalidHost)),
        ("", Err(E::Empty)),
        (&long, Err(E::TooLong)),
    ];
    for (raw, want) in cases {
        assert_eq!(check_service_desk_link(raw).as_deref().map_err(Clone::clone), want.clone(), "{raw:?}");
    }
}

#[test]
fn log_description_is_origin_only() {
    let cases: &[(&str, &str)] = &[
        ("https://user:pw@status.mist.com/incidents/1?token=abc#x", "https://status.mist.com"),
        ("https://desk.example.com:8443/t?sid=1", "https://desk.example.com:8443"),
        ("msteams://teams.microsoft.com/l/meeting/new?attendees=a@example.com", "msteams://teams.microsoft.com"),
        ("javascript:alert(document.cookie)", "javascript:"),
        ("not a url", "<unparseable-url>"),
        ("", "<unparseable-url>"),
    ];
    for (raw, want) in cases {
        assert_eq!(describe_for_log(raw), *want, "{raw:?}");
    }
}

#[test]
fn normalized_output_stays_bounded() {
    // Characters the parser percent-encodes grow the URL; the normalized form is re-checked.
    let raw = format!("https://status.mist.com/{}", "{".repeat(MAX_URL_LEN - 40));
    assert!(raw.len() <= MAX_URL_LEN);
    assert_eq!(check_external_link(&raw), Err(E::TooLong));
}
