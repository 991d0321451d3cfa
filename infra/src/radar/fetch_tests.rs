//! The Radar read against the fake upstream: the session cookie and nothing else is sent to
//! the fixed path; a board parses; a sign-in form, a redirect (SSO) and 401 mean sign-in; a
//! server error and an oversized page are failures; the session file must be owner-only text.

use std::time::Duration;

use fake_upstream::{FakeUpstream, Reply};

use super::*;
use crate::http::{CancellationToken, HttpPolicy};

const BOARD: &[u8] = include_bytes!("../../../tests/vectors/radar/board.html");

fn client() -> crate::http::HttpClient {
    HttpPolicy { timeout: Duration::from_secs(5), max_body_bytes: MAX_PAGE_BYTES as u64, ..HttpPolicy::upstream() }
        .build()
        .unwrap()
}

async fn read(fake: &FakeUpstream) -> RadarRead {
    let base = url::Url::parse(&fake.url("/")).unwrap();
    read_page(&client(), &base, "ASP.NET_SessionId=abc; .ASPXAUTH=def", &CancellationToken::new()).await
}

#[tokio::test]
async fn a_board_is_read_with_the_session_cookie_only() {
    let fake = FakeUpstream::start().await;
    fake.route("GET", RADAR_PATH, Reply::status(200).header("Content-Type", "text/html").body(BOARD.to_vec()));
    let RadarRead::Page(RadarPage::Board(snap)) = read(&fake).await else { panic!("board expected") };
    assert_eq!(snap.dispatchers.len(), 2);
    let requests = fake.requests();
    assert_eq!(requests.len(), 1);
    assert_eq!(requests[0].target, RADAR_PATH);
    let header = |name: &str| requests[0].headers.iter().find(|(k, _)| k == name).map(|(_, v)| v.clone());
    assert_eq!(header("cookie").as_deref(), Some("ASP.NET_SessionId=abc; .ASPXAUTH=def"));
    assert_eq!(header("authorization"), None);
}

#[tokio::test]
async fn sign_in_forms_redirects_and_401_mean_sign_in() {
    let fake = FakeUpstream::start().await;
    fake.route_sequence(
        "GET",
        RADAR_PATH,
        vec![
            Reply::status(200)
                .header("Content-Type", "text/html")
                .body(b"<form id=loginForm><input type=password></form>".to_vec()),
            Reply::redirect(302, "https://sso.example/adfs/ls"),
            Reply::status(401),
        ],
    );
    for _ in 0..3 {
        assert_eq!(read(&fake).await, RadarRead::Page(RadarPage::SignIn));
    }
}

#[tokio::test]
async fn server_errors_and_oversized_pages_are_failures() {
    let fake = FakeUpstream::start().await;
    fake.route_sequence(
        "GET",
        RADAR_PATH,
        vec![Reply::status(500), Reply::status(200).repeated_body(b'x', MAX_PAGE_BYTES as u64 + 10)],
    );
    for _ in 0..2 {
        let RadarRead::Failed(message) = read(&fake).await else { panic!("failure expected") };
        assert!(!message.contains(RADAR_PATH), "origin only: {message}");
    }
}

#[test]
fn the_session_file_must_be_private_printable_and_bounded() {
    let dir = tempfile::tempdir().unwrap();
    let secrets = dir.path();
    let path = secrets.join(SESSION_FILE);
    assert_eq!(read_session(&path), None);
    store_session(&path, Some(" a=1; b=2 \n")).unwrap();
    assert_eq!(read_session(&path).as_deref(), Some("a=1; b=2"));
    use std::os::unix::fs::PermissionsExt;
    assert_eq!(std::fs::metadata(&path).unwrap().permissions().mode() & 0o777, 0o600);
    // Storing refuses what a header cannot carry; a file changed behind the server's back is
    // refused when read.
    assert!(store_session(&path, Some("a=1\r\nX-Injected: yes")).is_err());
    assert!(store_session(&path, Some(&"a".repeat(MAX_SESSION_BYTES + 1))).is_err());
    assert_eq!(read_session(&path).as_deref(), Some("a=1; b=2"), "a refused cookie keeps the stored one");
    crate::datadir::write_private_file(&path, b"a=1\r\nX-Injected: yes").unwrap();
    assert_eq!(read_session(&path), None, "control characters are refused");
    crate::datadir::write_private_file(&path, "a".repeat(MAX_SESSION_BYTES + 1).as_bytes()).unwrap();
    assert_eq!(read_session(&path), None);
    store_session(&path, None).unwrap();
    store_session(&path, None).unwrap();
    assert!(!path.exists(), "sign-out removes it; removing twice is fine");
    crate::datadir::write_private_file(&path, b"a=1").unwrap();
    std::fs::remove_file(&path).unwrap();
    std::os::unix::fs::symlink("/etc/hostname", &path).unwrap();
    assert_eq!(read_session(&path), None, "a linked session file is refused");
}
