//! The Dispatcher Radar against the real `relay serve` binary, with the fixed Radar address
//! pointed (debug-only loopback override) at a fake CW Dashboard: without a session nothing is
//! requested and the snapshot asks for sign-in; `relay radar sign-in` (cookie on stdin, over the
//! control socket) stores the session owner-only and the board is read with that cookie only;
//! a malformed cookie is refused and the stored one kept; the cookie never reaches the logs or
//! any answer; `sign-out` forgets it; manual refreshes stop at 12 per logical session per
//! minute, however many tokens that session mints (a new Relay Web connection token, a
//! refreshed data-API token).

use std::os::unix::fs::PermissionsExt;

use fake_upstream::{FakeUpstream, Reply};
use serde_json::Value;
use support::{client, relay_cli, Relay};

const BOARD: &[u8] = include_bytes!("../vectors/radar/board.html");
const COOKIE: &str = ".ASPXAUTH=radar-secret-7f3a; ASP.NET_SessionId=s3ss10n";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_session_signed_in_on_the_server_pc_reads_the_board_with_its_cookie_only() {
    let fake = FakeUpstream::start().await;
    fake.route(
        "GET",
        infra::radar::RADAR_PATH,
        Reply::status(200).header("Content-Type", "text/html").body(BOARD.to_vec()),
    );
    let tmp = tempfile::tempdir().unwrap();
    let data_dir = tmp.path().join("data");
    let origin = fake.url("");
    let origin = origin.trim_end_matches('/').to_string();
    let mut relay = Relay::start_env(&data_dir, "127.0.0.1", &[], &[("RELAY_TEST_UPSTREAM_RADAR", origin.as_str())]);
    let token = relay.token().await;

    let res =
        client().post(relay.url("/api/relay/radar/refresh")).header("Authorization", &token).send().await.unwrap();
    let snap: Value = res.json().await.unwrap();
    assert_eq!(snap["signInRequired"], true, "no session: sign-in needed");
    assert!(fake.requests().is_empty(), "without a session nothing is requested");

    let (ok, out) = relay_cli("radar", &data_dir, &["sign-in"], &format!("{COOKIE}\n"));
    assert!(ok, "{out}");
    assert!(out.contains("Radar session stored; the Radar reads Yellow"), "{out}");
    let session = data_dir.join("secrets").join(infra::radar::SESSION_FILE);
    assert_eq!(std::fs::metadata(&session).unwrap().permissions().mode() & 0o777, 0o600);
    let requests = fake.requests();
    let cookie = requests[0].headers.iter().find(|(k, _)| k == "cookie").map(|(_, v)| v.as_str());
    assert_eq!(cookie, Some(COOKIE));
    assert!(!requests[0].headers.iter().any(|(k, _)| k == "authorization"));

    let board = relay.get_json(&token, "/api/relay/radar").await;
    assert_eq!(board["color"], "yellow");
    assert_eq!(board["dispatchers"].as_array().unwrap().len(), 2);
    assert_eq!(board["xcenter"]["ok"], 3410);
    assert!(!board.to_string().contains("radar-secret"), "the cookie never reaches a client");

    let (ok, out) = relay_cli("radar", &data_dir, &["sign-in"], "bad\\cookie\n");
    assert!(!ok && out.contains("cannot carry"), "{out}");
    assert!(std::fs::read_to_string(&session).unwrap().contains("radar-secret"), "the stored session is kept");

    // The refresh before signing in was the first of this session's 12 a minute.
    for n in 1..12 {
        let res =
            client().post(relay.url("/api/relay/radar/refresh")).header("Authorization", &token).send().await.unwrap();
        assert_eq!(res.status(), 200, "refresh {n}");
    }
    let res =
        client().post(relay.url("/api/relay/radar/refresh")).header("Authorization", &token).send().await.unwrap();
    assert_eq!(res.status(), 429);
    assert!(res.headers().contains_key("retry-after"));

    let (ok, out) = relay_cli("radar", &data_dir, &["sign-out"], "");
    assert!(ok && out.contains("Radar session removed"), "{out}");
    assert!(!session.exists());
    let after = relay.get_json(&token, "/api/relay/radar").await;
    assert_eq!((after["signInRequired"].clone(), after["color"].clone()), (Value::Bool(true), Value::from("yellow")));
    relay.stop();
    assert!(!relay.output().contains("radar-secret"), "the cookie is never logged");
}

/// Issue #39.7: the manual-refresh budget belongs to the logical session, not to a token. Relay
/// Web: a new app token from `/web/api/connection` beside the same session cookie gets the same
/// exhausted budget; only another web session (a new sign-in) has its own.
#[tokio::test]
async fn the_gateway_refresh_budget_is_not_reset_by_a_new_connection_token() {
    let relay = Relay::start_web();
    let base = relay.web.clone().unwrap().replace("127.0.0.1", "localhost");
    let session = support::web_session(&base).await;
    let refresh = |token: String, cookie: String, csrf: String| {
        client()
            .post(format!("{base}/api/relay/radar/refresh"))
            .header("Origin", &base)
            .header("Cookie", cookie)
            .header("X-Relay-CSRF", csrf)
            .header("Authorization", token)
            .send()
    };
    let mine = || refresh(session.token.clone(), session.cookie.clone(), session.csrf.clone());
    for n in 0..12 {
        assert_eq!(mine().await.unwrap().status(), 200, "refresh {n}");
    }
    assert_eq!(mine().await.unwrap().status(), 429, "the 13th in a minute");

    // Tokens are stamped in whole seconds: let the clock tick so the new token differs.
    tokio::time::sleep(std::time::Duration::from_millis(1_100)).await;
    let connection = client()
        .post(format!("{base}/web/api/connection"))
        .header("Origin", &base)
        .header("Cookie", &session.cookie)
        .header("X-Relay-CSRF", &session.csrf)
        .send()
        .await
        .unwrap();
    assert_eq!(connection.status(), 200);
    let new_token = connection.json::<Value>().await.unwrap()["token"].as_str().unwrap().to_string();
    assert_ne!(new_token, session.token);
    let res = refresh(new_token, session.cookie.clone(), session.csrf.clone()).await.unwrap();
    assert_eq!(res.status(), 429, "a new token on the same web session does not restart the budget");
    assert!(res.headers().contains_key("retry-after"));

    let other = support::web_session(&base).await;
    let res = refresh(other.token, other.cookie, other.csrf).await.unwrap();
    assert_eq!(res.status(), 200, "another web session has its own budget");
}

/// Issue #39.7, data API: `auth-refresh` hands out a token of the same sign-in, so the budget
/// carries over; signing in again (the passphrase, not a token) starts a new logical session.
#[tokio::test]
async fn the_data_api_refresh_budget_is_not_reset_by_refreshing_the_token() {
    let relay = Relay::start();
    let token = relay.token().await;
    let refresh =
        |token: String| client().post(relay.url("/api/relay/radar/refresh")).header("Authorization", token).send();
    for n in 0..12 {
        assert_eq!(refresh(token.clone()).await.unwrap().status(), 200, "refresh {n}");
    }
    assert_eq!(refresh(token.clone()).await.unwrap().status(), 429, "the 13th in a minute");

    // Tokens are stamped in whole seconds: let the clock tick so the refreshed token differs.
    tokio::time::sleep(std::time::Duration::from_millis(1_100)).await;
    let res = client()
        .post(relay.url("/api/collections/users/auth-refresh"))
        .header("Authorization", &token)
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200);
    let refreshed = res.json::<Value>().await.unwrap()["token"].as_str().unwrap().to_string();
    assert_ne!(refreshed, token);
    assert_eq!(refresh(refreshed).await.unwrap().status(), 429, "a refreshed token keeps the spent budget");

    assert_eq!(refresh(relay.token().await).await.unwrap().status(), 200, "a new sign-in is a new session");
}
