//! Web session tests with an injected clock: idle and absolute expiry, rotation that keeps the
//! logical session (and its rate budget), CSRF checks, replacement, logout during an in-flight
//! connection request, resuming after a reload, and the session cap.

use std::net::Ipv4Addr;
use std::sync::Arc;

use super::*;
use crate::auth::AuthSettings;
use crate::testkit::TestCtx;
use domain::signin_guard::SignInLimits;
use infra::clock::ManualClock;

const PASS: &str = "web passphrase 42";

fn start(config: WebSessionConfig) -> (Arc<ManualClock>, Addr<WebSessionActor>) {
    let t = TestCtx::new();
    let settings = AuthSettings {
        passphrase: PASS.into(),
        token_key: vec![4; 32],
        token_ttl_secs: 3600,
        limits: SignInLimits::default(),
    };
    let auth = AuthActor::new(t.ctx(), settings).start();
    (t.clock.clone(), WebSessionActor::new(t.ctx(), config, auth).start())
}

fn sign_in(replaces: Option<String>) -> WebSignIn {
    WebSignIn { passphrase: PASS.into(), source: IpAddr::V4(Ipv4Addr::LOCALHOST), replaces }
}

fn read(issued: &Issued) -> Authorize {
    Authorize { cookie: Some(issued.cookie.clone()), csrf: None, kind: RequestKind::Read }
}

fn write(cookie: &str, csrf: Option<&str>) -> Authorize {
    Authorize { cookie: Some(cookie.into()), csrf: csrf.map(String::from), kind: RequestKind::Write }
}

#[actix_rt::test]
async fn sessions_expire_after_one_hour_idle_and_eight_hours_absolute() {
    let (clock, web) = start(WebSessionConfig::default());
    let s = web.send(sign_in(None)).await.unwrap().unwrap();
    clock.advance_ms(59 * 60_000);
    assert!(web.send(read(&s)).await.unwrap().is_ok(), "59 min idle is fine");
    clock.advance_ms(60 * 60_000);
    assert_eq!(web.send(read(&s)).await.unwrap(), Err(WebError::NoSession), "60 min idle ends it");

    let s = web.send(sign_in(None)).await.unwrap().unwrap();
    for _ in 0..16 {
        clock.advance_ms(30 * 60_000);
        let r = web.send(read(&s)).await.unwrap();
        if r.is_err() {
            break;
        }
    }
    assert_eq!(web.send(read(&s)).await.unwrap(), Err(WebError::NoSession), "8 h absolute even when active");
    assert_eq!(web.send(CountSessions).await.unwrap(), 0, "expired records are destroyed");
}

#[actix_rt::test]
async fn wrong_passphrase_is_refused_and_counted() {
    let (_clock, web) = start(WebSessionConfig::default());
    let bad = WebSignIn { passphrase: "nope".into(), source: IpAddr::V4(Ipv4Addr::LOCALHOST), replaces: None };
    assert_eq!(web.send(bad).await.unwrap(), Err(WebError::SignIn(RecordError::InvalidCredentials)));
    assert_eq!(web.send(CountSessions).await.unwrap(), 0);
}

#[actix_rt::test]
async fn csrf_is_required_for_writes_and_must_match_this_session() {
    let (_clock, web) = start(WebSessionConfig::default());
    let a = web.send(sign_in(None)).await.unwrap().unwrap();
    let b = web.send(sign_in(None)).await.unwrap().unwrap();
    assert_eq!(web.send(write(&a.cookie, None)).await.unwrap(), Err(WebError::Csrf), "missing");
    assert_eq!(web.send(write(&a.cookie, Some(&b.csrf))).await.unwrap(), Err(WebError::Csrf), "foreign");
    assert_eq!(web.send(write(&a.cookie, Some("x"))).await.unwrap(), Err(WebError::Csrf), "forged");
    assert!(web.send(write(&a.cookie, Some(&a.csrf))).await.unwrap().is_ok());
    let rotated =
        web.send(Refresh { cookie: Some(a.cookie.clone()), csrf: Some(a.csrf.clone()) }).await.unwrap().unwrap();
    assert_eq!(
        web.send(write(&rotated.cookie, Some(&a.csrf))).await.unwrap(),
        Err(WebError::Csrf),
        "stale after rotation"
    );
}

#[actix_rt::test]
async fn rotation_replaces_cookie_and_csrf_but_keeps_the_logical_session() {
    let config =
        WebSessionConfig { per_session: BucketConfig { capacity: 3.0, refill_per_sec: 0.0 }, ..Default::default() };
    let (_clock, web) = start(config);
    let s = web.send(sign_in(None)).await.unwrap().unwrap();
    let before = web.send(read(&s)).await.unwrap().unwrap();
    let r = web.send(Refresh { cookie: Some(s.cookie.clone()), csrf: Some(s.csrf.clone()) }).await.unwrap().unwrap();
    assert_ne!((r.cookie.as_str(), r.csrf.as_str()), (s.cookie.as_str(), s.csrf.as_str()));
    assert_eq!(web.send(read(&s)).await.unwrap(), Err(WebError::NoSession), "the old cookie is dead");
    let after = web.send(read(&r)).await.unwrap().unwrap();
    assert_eq!(before, after, "same logical session");
    assert!(
        matches!(web.send(read(&r)).await.unwrap(), Err(WebError::RateLimited(_))),
        "rate accounting survived rotation"
    );
}

#[actix_rt::test]
async fn logout_and_replacement_destroy_the_logical_session_even_mid_request() {
    let (_clock, web) = start(WebSessionConfig::default());
    let s = web.send(sign_in(None)).await.unwrap().unwrap();
    let token = web.send(IssueConnection { cookie: Some(s.cookie.clone()), csrf: Some(s.csrf.clone()) }).await.unwrap();
    assert!(token.unwrap()["token"].as_str().is_some());
    let forged = web.send(Logout { cookie: Some(s.cookie.clone()), csrf: Some("wrong".into()) }).await.unwrap();
    assert_eq!(forged, Err(WebError::Csrf), "logout needs the session's CSRF token");
    let in_flight = web.send(IssueConnection { cookie: Some(s.cookie.clone()), csrf: Some(s.csrf.clone()) });
    let logout = web.send(Logout { cookie: Some(s.cookie.clone()), csrf: Some(s.csrf.clone()) });
    let (in_flight, logged_out) = (in_flight.await.unwrap(), logout.await.unwrap());
    assert_eq!(logged_out, Ok(()));
    assert_eq!(in_flight, Err(WebError::NoSession), "authorized before logout, refused after it");
    assert_eq!(web.send(read(&s)).await.unwrap(), Err(WebError::NoSession));

    let first = web.send(sign_in(None)).await.unwrap().unwrap();
    let second = web.send(sign_in(Some(first.cookie.clone()))).await.unwrap().unwrap();
    assert_eq!(web.send(read(&first)).await.unwrap(), Err(WebError::NoSession), "replaced");
    assert!(web.send(read(&second)).await.unwrap().is_ok());
    assert_eq!(web.send(CountSessions).await.unwrap(), 1);
}

#[actix_rt::test]
async fn a_reload_resumes_the_live_session_from_its_cookie_alone() {
    let (clock, web) = start(WebSessionConfig::default());
    assert_eq!(web.send(Resume { cookie: None }).await.unwrap(), Err(WebError::NoSession), "no cookie");
    assert_eq!(web.send(Resume { cookie: Some("forged".into()) }).await.unwrap(), Err(WebError::NoSession));
    let s = web.send(sign_in(None)).await.unwrap().unwrap();
    let resumed = web.send(Resume { cookie: Some(s.cookie.clone()) }).await.unwrap().unwrap();
    assert_eq!(resumed, s, "the same cookie, CSRF token and expiry: other tabs keep working");
    assert!(web.send(write(&s.cookie, Some(&resumed.csrf))).await.unwrap().is_ok(), "the CSRF token works");
    assert_eq!(web.send(CountSessions).await.unwrap(), 1, "no new session");

    clock.advance_ms(59 * 60_000);
    web.send(Resume { cookie: Some(s.cookie.clone()) }).await.unwrap().unwrap();
    clock.advance_ms(59 * 60_000);
    assert!(web.send(read(&s)).await.unwrap().is_ok(), "a resume counts as activity");
    clock.advance_ms(61 * 60_000);
    assert_eq!(web.send(Resume { cookie: Some(s.cookie.clone()) }).await.unwrap(), Err(WebError::NoSession), "idle");

    let s = web.send(sign_in(None)).await.unwrap().unwrap();
    web.send(Logout { cookie: Some(s.cookie.clone()), csrf: Some(s.csrf.clone()) }).await.unwrap().unwrap();
    assert_eq!(
        web.send(Resume { cookie: Some(s.cookie.clone()) }).await.unwrap(),
        Err(WebError::NoSession),
        "logged out"
    );
}

#[actix_rt::test]
async fn the_session_count_is_capped() {
    let (_clock, web) = start(WebSessionConfig { max_sessions: 2, ..Default::default() });
    web.send(sign_in(None)).await.unwrap().unwrap();
    web.send(sign_in(None)).await.unwrap().unwrap();
    assert_eq!(web.send(sign_in(None)).await.unwrap(), Err(WebError::Full));
}

#[actix_rt::test]
async fn grants_carry_the_token_binding_and_end_with_the_session() {
    let (clock, web) = start(WebSessionConfig::default());
    let s = web.send(sign_in(None)).await.unwrap().unwrap();
    let grant = web.send(read(&s)).await.unwrap().unwrap();
    let issued = web.send(IssueConnection { cookie: Some(s.cookie.clone()), csrf: Some(s.csrf.clone()) }).await;
    let token = issued.unwrap().unwrap()["token"].as_str().unwrap().to_string();
    let payload = token.split('.').nth(1).unwrap();
    let claims: Value = serde_json::from_slice(&base64_decode(payload)).unwrap();
    assert_eq!(claims["webSession"], grant.binding.as_str(), "the app token is bound to this session");
    assert_ne!(grant.binding, s.cookie);

    let mut ended = grant.ended.clone();
    assert!(ended.has_changed().is_ok(), "live while the session is");
    web.send(Logout { cookie: Some(s.cookie.clone()), csrf: Some(s.csrf.clone()) }).await.unwrap().unwrap();
    assert!(ended.changed().await.is_err(), "logout ends the grant");

    let first = web.send(sign_in(None)).await.unwrap().unwrap();
    let mut ended = web.send(read(&first)).await.unwrap().unwrap().ended;
    let second = web.send(sign_in(Some(first.cookie.clone()))).await.unwrap().unwrap();
    assert!(ended.changed().await.is_err(), "replacement ends the grant");
    let mut ended = web.send(read(&second)).await.unwrap().unwrap().ended;
    clock.advance_ms(61 * 60_000);
    assert_eq!(web.send(read(&second)).await.unwrap(), Err(WebError::NoSession));
    assert!(ended.changed().await.is_err(), "expiry ends the grant");
}

fn base64_decode(part: &str) -> Vec<u8> {
    use base64::Engine;
    base64::engine::general_purpose::URL_SAFE_NO_PAD.decode(part).unwrap()
}
