//! Auth actor tests with an injected clock: sign-in, expiry, refresh, passphrase rotation, the
//! per-source and global failed-login limits, and the logical session tokens answer to.

use super::*;
use crate::testkit::TestCtx;
use domain::ratelimit::BucketConfig;
use infra::clock::ManualClock;
use std::sync::Arc;

const PASS: &str = "correct horse battery";

fn settings(limits: SignInLimits) -> AuthSettings {
    AuthSettings { passphrase: PASS.into(), token_key: vec![1; 32], token_ttl_secs: 60, limits }
}

fn start(limits: SignInLimits) -> (Arc<ManualClock>, Addr<AuthActor>) {
    let t = TestCtx::new();
    (t.clock.clone(), AuthActor::new(t.ctx(), settings(limits)).start())
}

fn login(identity: &str, password: &str, source: [u8; 4]) -> Login {
    Login { identity: identity.into(), password: password.into(), source: IpAddr::from(source) }
}

#[actix_rt::test]
async fn sign_in_issues_tokens_that_expire() {
    let (clock, auth) = start(SignInLimits::default());
    let ok = auth.send(login("relay", PASS, [127, 0, 0, 1])).await.unwrap().unwrap();
    assert_eq!(ok["record"]["collectionName"], "users");
    let token = ok["token"].as_str().unwrap().to_string();
    assert!(auth.send(VerifyToken { token: token.clone(), web_session: None }).await.unwrap().is_ok());
    assert!(auth.send(VerifyToken { token: format!("Bearer {token}"), web_session: None }).await.unwrap().is_ok());
    let refreshed = auth.send(RefreshToken { token: token.clone() }).await.unwrap().unwrap();
    clock.advance_ms(60_000);
    assert_eq!(auth.send(VerifyToken { token, web_session: None }).await.unwrap(), Err(RecordError::Unauthorized));
    let refreshed = refreshed["token"].as_str().unwrap().to_string();
    assert_eq!(auth.send(RefreshToken { token: refreshed }).await.unwrap().unwrap_err(), RecordError::Unauthorized);
    assert!(auth.send(login("relay@relay.app", PASS, [127, 0, 0, 1])).await.unwrap().is_ok());
}

#[actix_rt::test]
async fn wrong_identity_or_passphrase_is_rejected() {
    let (_clock, auth) = start(SignInLimits::default());
    for (identity, password) in [("relay", "wrong"), ("admin", PASS), ("relay", ""), ("", PASS)] {
        let r = auth.send(login(identity, password, [10, 0, 0, 1])).await.unwrap();
        assert_eq!(r.unwrap_err(), RecordError::InvalidCredentials, "{identity}/{password}");
    }
}

#[actix_rt::test]
async fn changing_the_passphrase_invalidates_old_tokens() {
    let (_clock, auth) = start(SignInLimits::default());
    let ok = auth.send(login("relay", PASS, [127, 0, 0, 1])).await.unwrap().unwrap();
    auth.send(SetPassphrase { passphrase: "a brand new phrase".into() }).await.unwrap();
    let token = ok["token"].as_str().unwrap().to_string();
    assert_eq!(auth.send(VerifyToken { token, web_session: None }).await.unwrap(), Err(RecordError::Unauthorized));
    assert!(auth.send(login("relay", PASS, [127, 0, 0, 1])).await.unwrap().is_err());
    assert!(auth.send(login("relay", "a brand new phrase", [127, 0, 0, 1])).await.unwrap().is_ok());
}

#[actix_rt::test]
async fn failed_logins_are_limited_per_source_then_recover() {
    let (clock, auth) = start(SignInLimits::default());
    let me = [192, 168, 1, 5];
    for _ in 0..5 {
        assert_eq!(auth.send(login("relay", "nope", me)).await.unwrap().unwrap_err(), RecordError::InvalidCredentials);
    }
    let limited = auth.send(login("relay", PASS, me)).await.unwrap().unwrap_err();
    assert_eq!(limited, RecordError::RateLimited { retry_after_secs: 10 }, "even the right passphrase waits");
    assert!(auth.send(login("relay", PASS, [192, 168, 1, 6])).await.unwrap().is_ok(), "other sources unaffected");
    clock.advance_ms(10_000);
    assert!(auth.send(login("relay", PASS, me)).await.unwrap().is_ok());
}

#[actix_rt::test]
async fn distributed_guessing_is_bounded_but_never_locks_out_a_clean_source() {
    let limits = SignInLimits {
        per_source: BucketConfig { capacity: 100.0, refill_per_sec: 1.0 },
        per_network: BucketConfig { capacity: 100.0, refill_per_sec: 1.0 },
        global: BucketConfig { capacity: 3.0, refill_per_sec: 0.5 },
        max_tracked: 16,
    };
    let (_clock, auth) = start(limits);
    for i in 0..3u8 {
        assert!(matches!(
            auth.send(login("relay", "x", [10, 0, 0, i])).await.unwrap(),
            Err(RecordError::InvalidCredentials)
        ));
    }
    let r = auth.send(login("relay", "x", [10, 0, 0, 1])).await.unwrap();
    assert_eq!(r.unwrap_err(), RecordError::RateLimited { retry_after_secs: 2 }, "failing sources wait");
    let r = auth.send(login("relay", "x", [10, 0, 0, 99])).await.unwrap();
    assert_eq!(r.unwrap_err(), RecordError::InvalidCredentials, "a fresh address gets one guess");
    let r = auth.send(login("relay", "x", [10, 0, 0, 99])).await.unwrap();
    assert_eq!(r.unwrap_err(), RecordError::RateLimited { retry_after_secs: 2 }, "and then waits");
    assert!(auth.send(login("relay", PASS, [10, 0, 0, 200])).await.unwrap().is_ok(), "the operator gets in");
}

#[actix_rt::test]
async fn web_session_tokens_are_refused_on_the_data_api_and_by_its_refresh() {
    let (_clock, auth) = start(SignInLimits::default());
    let issued = auth.send(IssueToken { ttl_secs: 600, web_session: "binding-a".into() }).await.unwrap();
    let token = issued["token"].as_str().unwrap().to_string();
    let verify =
        |web_session: Option<&str>| VerifyToken { token: token.clone(), web_session: web_session.map(String::from) };
    assert!(auth.send(verify(Some("binding-a"))).await.unwrap().is_ok(), "beside its own session");
    assert_eq!(auth.send(verify(None)).await.unwrap(), Err(RecordError::Unauthorized), "data API");
    assert_eq!(auth.send(verify(Some("binding-b"))).await.unwrap(), Err(RecordError::Unauthorized), "other session");
    let refreshed = auth.send(RefreshToken { token: token.clone() }).await.unwrap();
    assert_eq!(refreshed.unwrap_err(), RecordError::Unauthorized, "no indefinite renewal on the data API");
}

/// Issue #39.7: refreshing a token or fetching a new one through the same web session keeps the
/// logical session (per-session limits key on it); only a new sign-in starts another.
#[actix_rt::test]
async fn new_tokens_keep_their_logical_session_and_only_a_new_sign_in_starts_one() {
    let (clock, auth) = start(SignInLimits::default());
    let token = |reply: Value| reply["token"].as_str().unwrap().to_string();
    let session_of = |token: String, web_session: Option<&str>| {
        auth.send(VerifyToken { token, web_session: web_session.map(String::from) })
    };
    let first = token(auth.send(login("relay", PASS, [127, 0, 0, 1])).await.unwrap().unwrap());
    let session = session_of(first.clone(), None).await.unwrap().unwrap();
    clock.advance_ms(2_000);
    let refreshed = token(auth.send(RefreshToken { token: first.clone() }).await.unwrap().unwrap());
    assert_ne!(refreshed, first);
    assert_eq!(session_of(refreshed.clone(), None).await.unwrap().unwrap(), session, "refresh keeps the session");
    let again = token(auth.send(RefreshToken { token: refreshed }).await.unwrap().unwrap());
    assert_eq!(session_of(again, None).await.unwrap().unwrap(), session, "and so does a refresh of a refresh");
    let other = token(auth.send(login("relay", PASS, [127, 0, 0, 1])).await.unwrap().unwrap());
    assert_ne!(session_of(other, None).await.unwrap().unwrap(), session, "a new sign-in is a new session");

    let issue = || auth.send(IssueToken { ttl_secs: 600, web_session: "binding-a".into() });
    let web_first = token(issue().await.unwrap());
    clock.advance_ms(2_000);
    let web_second = token(issue().await.unwrap());
    assert_ne!(web_first, web_second);
    let web = session_of(web_first, Some("binding-a")).await.unwrap().unwrap();
    assert_eq!(session_of(web_second, Some("binding-a")).await.unwrap().unwrap(), web, "same web session");
    assert_ne!(web, session);
}
