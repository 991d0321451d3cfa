use super::*;

#[test]
fn aux_route_allowlist_is_exact() {
    for route in AUX_ROUTES {
        assert_eq!(check_aux_route(route), Ok(*route));
    }
    let rejected = [
        "",
        "Oncall",
        "ONCALL",
        "oncall/",
        "/oncall",
        " oncall",
        "oncall ",
        "oncall\n",
        "oncal",
        "oncallx",
        "popout",
        "popout/",
        "popout/board/",
        "popout/Board",
        "popout/board/../x",
        "popout/board/../../settings",
        "../oncall",
        "oncall?x=1",
        "oncall#x",
        "popout%2Fboard",
        "popout\\board",
        "settings",
        "dynatrace",
    ];
    for route in rejected {
        assert_eq!(check_aux_route(route), Err(WindowError::UnknownRoute), "{route:?}");
    }
}

#[test]
fn aux_windows_cap_and_focus_existing() {
    let mut w = AuxWindows::new();
    assert!(w.is_empty());
    // Unknown routes are refused and never counted.
    assert_eq!(w.open("settings"), Err(WindowError::UnknownRoute));
    assert_eq!(w.len(), 0);

    for (i, route) in AUX_ROUTES.iter().take(MAX_AUX_WINDOWS).enumerate() {
        assert_eq!(w.open(route), Ok(AuxDecision::Open), "{route}");
        assert_eq!(w.len(), i + 1);
    }
    // Re-opening an open route focuses it, at the cap too, without growing the set.
    assert_eq!(w.open("oncall"), Ok(AuxDecision::FocusExisting));
    assert_eq!(w.open("personnel"), Ok(AuxDecision::FocusExisting));
    assert_eq!(w.len(), MAX_AUX_WINDOWS);
    // A sixth distinct window is refused.
    let sixth = AUX_ROUTES[MAX_AUX_WINDOWS];
    assert_eq!(w.open(sixth), Err(WindowError::TooManyWindows { max: MAX_AUX_WINDOWS }));
    assert!(!w.is_open(sixth));
    assert_eq!(w.len(), MAX_AUX_WINDOWS);

    // Closing frees a slot; closing twice or closing an unknown route changes nothing.
    assert!(w.close("directory"));
    assert!(!w.close("directory"));
    assert!(!w.close("settings"));
    assert_eq!(w.len(), MAX_AUX_WINDOWS - 1);
    assert_eq!(w.open(sixth), Ok(AuxDecision::Open));
    assert_eq!(w.routes(), &["oncall", "servers", "assembler", "personnel", "popout/board"]);
    assert_eq!(w.open("directory"), Err(WindowError::TooManyWindows { max: MAX_AUX_WINDOWS }));
}

#[test]
fn navigation_matrix() {
    const PROD: &str = "tauri://localhost";
    const WIN: &str = "http://tauri.localhost";
    const DEV: &str = "http://localhost:1420";
    let cases: &[(&str, &str, &str, bool)] = &[
        // Same trusted origin: allowed (paths, queries and fragments may differ).
        (PROD, "tauri://localhost/", PROD, true),
        (PROD, "tauri://localhost/index.html#/oncall", PROD, true),
        ("tauri://localhost/", "tauri://LOCALHOST/?popout=board", "tauri://localhost/", true),
        (WIN, "http://tauri.localhost/#/servers", WIN, true),
        (WIN, "http://tauri.localhost:80/", WIN, true),
        (DEV, "http://localhost:1420/src/main.tsx", DEV, true),
        // Cross-origin targets.
        (PROD, "https://evil.com/", PROD, false),
        (PROD, "tauri://localhost.evil/", PROD, false),
        (PROD, "tauri://evil/", PROD, false),
        (PROD, "tauri://localhost@evil/", PROD, false),
        (PROD, "tauri://user@localhost/", PROD, false),
        (PROD, "tauri://localhost:1/", PROD, false),
        (PROD, "http://localhost/", PROD, false),
        (WIN, "https://tauri.localhost/", WIN, false),
        (WIN, "http://tauri.localhost:8080/", WIN, false),
        (WIN, "http://tauri.localhost.evil.com/", WIN, false),
        (DEV, "http://localhost:1421/", DEV, false),
        (DEV, "http://127.0.0.1:1420/", DEV, false),
        (DEV, "http://localhost/", DEV, false),
        (PROD, "file:///etc/passwd", PROD, false),
        (PROD, "about:blank", PROD, false),
        (PROD, "javascript:alert(1)", PROD, false),
        (PROD, "data:text/html,x", PROD, false),
        (PROD, "", PROD, false),
        (PROD, "/relative", PROD, false),
        (PROD, "tauri://local\thost/", PROD, false),
        (PROD, "tauri://localhost/\n", PROD, false),
        (PROD, "tauri://localhost\\@evil/", PROD, false),
        (WIN, "http://tauri.localhost\\@evil.com/", WIN, false),
        (WIN, "http://tauri.localhost/%0a", WIN, false),
        (WIN, &format!("http://tauri.localhost/{}", "a".repeat(2048)), WIN, false),
        // The window is not on the trusted origin (e.g. it already escaped).
        ("https://evil.com", "tauri://localhost/", PROD, false),
        ("tauri://localhost.evil", "tauri://localhost/", PROD, false),
        ("", "tauri://localhost/", PROD, false),
        // A malformed or non-origin trusted origin denies everything.
        (PROD, "tauri://localhost/", "", false),
        (PROD, "tauri://localhost/", "tauri://localhost/app", false),
        (PROD, "tauri://localhost/", "tauri://localhost/?x", false),
        ("file:///app/index.html", "file:///app/index.html", "file:///app/index.html", false),
    ];
    for (current, target, trusted, allow) in cases {
        let got = check_navigation(current, target, trusted);
        assert_eq!(got == NavigationDecision::Allow, *allow, "{current} -> {target} (trusted {trusted})");
    }
}

#[test]
fn denied_navigation_logs_origin_only() {
    let got =
        check_navigation("tauri://localhost", "https://u:p@evil.com:8443/steal?token=abc#frag", "tauri://localhost");
    assert_eq!(got, NavigationDecision::Deny { target: "https://evil.com:8443".into() });
    let got = check_navigation("tauri://localhost", "not a url", "tauri://localhost");
    assert_eq!(got, NavigationDecision::Deny { target: "<unparseable-url>".into() });
}

#[test]
fn trusted_sender_matrix() {
    let cases: &[(&str, bool, &str, bool)] = &[
        ("tauri://localhost", true, "tauri://localhost", true),
        ("tauri://localhost/index.html#/oncall", true, "tauri://localhost", true),
        ("http://tauri.localhost/", true, "http://tauri.localhost", true),
        ("http://localhost:1420/", true, "http://localhost:1420", true),
        // Sub-frames are never trusted.
        ("tauri://localhost", false, "tauri://localhost", false),
        // Lookalike origins.
        ("tauri://localhost.evil", true, "tauri://localhost", false),
        ("tauri://localhost.evil/index.html", true, "tauri://localhost", false),
        ("tauri://evil.localhost", true, "tauri://localhost", false),
        ("tauri://localhost@evil", true, "tauri://localhost", false),
        ("tauri://localhost:8080", true, "tauri://localhost", false),
        ("https://tauri.localhost/", true, "http://tauri.localhost", false),
        ("http://tauri.localhost.evil.com/", true, "http://tauri.localhost", false),
        ("http://localhost:14200/", true, "http://localhost:1420", false),
        ("http://localhost:1420.evil.com/", true, "http://localhost:1420", false),
        ("https://evil.com/#tauri://localhost", true, "tauri://localhost", false),
        ("tauri://local%68ost", true, "tauri://localhost", false),
        ("tauri://localhost\n", true, "tauri://localhost", false),
        ("http://tauri.localhost\\@evil.com/", true, "http://tauri.localhost", false),
        ("file:///dist/renderer/index.html", true, "tauri://localhost", false),
        ("", true, "tauri://localhost", false),
        ("tauri://localhost", true, "", false),
    ];
    for (frame, main, trusted, want) in cases {
        assert_eq!(is_trusted_sender(frame, *main, trusted), *want, "{frame:?} main={main} trusted={trusted}");
    }
}

#[test]
fn dynatrace_navigation_matrix() {
    use DynatraceNav::*;
    let cases: &[(&str, DynatraceNav)] = &[
        ("https://abc123.live.dynatrace.com/ui/dashboards/1", Live),
        ("https://dynatrace.com/", Live),
        ("https://ABC.apps.dynatrace.com/ui/apps?q=login", Live),
        ("https://abc.apps.dynatrace.com/ui#/signin", Live),
        ("https://sso.dynatrace.com/", Live),
        ("https://sso.dynatrace.com/signin", Authenticating),
        ("https://abc.live.dynatrace.com/Sign-In?next=/", Authenticating),
        ("https://abc.live.dynatrace.com/login", Authenticating),
        ("https://abc.live.dynatrace.com/sso/start", Authenticating),
        ("https://abc.live.dynatrace.com/oauth2/authorize", Authenticating),
        ("https://abc.live.dynatrace.com/oauth2.0/token", Authenticating),
        ("https://abc.live.dynatrace.com/OAUTH/cb", Authenticating),
        ("https://login.microsoftonline.com/common/oauth2/v2.0/authorize", Authenticating),
        ("https://login.microsoft.com/", Authenticating),
        ("https://LOGIN.WINDOWS.NET/x", Authenticating),
        ("https://sts.windows.net/tenant/", Authenticating),
        // Blocked: scheme, shape and host lookalikes.
        ("http://abc.live.dynatrace.com/", Blocked),
        ("http://login.microsoftonline.com/", Blocked),
        ("https://evildynatrace.com/", Blocked),
        ("https://dynatrace.com.evil.net/login", Blocked),
        ("https://dynatrace.com@evil.net/", Blocked),
        ("https://user:pw@abc.live.dynatrace.com/", Blocked),
        ("https://abc.live.dynatrace.com:8443/", Blocked),
        ("https://abc.live.dynatrace.com./", Blocked),
        ("https://xn--80ak6aa92e.dynatrace.com/", Blocked),
        ("https://login.microsoftonline.com.evil.net/", Blocked),
        ("https://evil.login.microsoftonline.com/", Blocked),
        ("https://microsoftonline.com/", Blocked),
        ("https://login.live.com/", Blocked),
        ("https://abc.live.dynatrace.com/\tx", Blocked),
        ("https://abc.live.dynatrace.com\\@evil.net/", Blocked),
        ("javascript:alert(1)", Blocked),
        ("about:blank", Blocked),
        ("", Blocked),
    ];
    for (url, want) in cases {
        assert_eq!(dynatrace_navigation(url), *want, "{url:?}");
    }
}
