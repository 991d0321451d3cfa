//! Auth coordinator tests against a local HTTP server that counts sign-in requests and can be
//! told to reject, fail or hold its answer until the test releases it; the clock is injected so
//! the 4 s snapshot expiry is exact. No test proves an absence by sleeping: a held sign-in says
//! when it arrived, and the coordinator's `sign_ins_finished` when a late answer was handled.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use actix_web::{web, App, HttpResponse, HttpServer};

use super::*;
use infra::clock::ManualClock;

const START_MS: i64 = 1_800_000_000_000;

#[derive(Clone)]
enum Behaviour {
    Accept,
    Reject,
    FailTwiceThenAccept,
    /// Says it arrived, then answers (a valid token) only once the test releases it.
    Hold(Arc<Gate>),
}

/// The held sign-in's two signals.
#[derive(Default)]
struct Gate {
    arrived: tokio::sync::Notify,
    release: tokio::sync::Notify,
}

fn token(exp_secs: i64) -> String {
    let payload = B64.encode(serde_json::json!({"id": "relayappuser001", "exp": exp_secs}).to_string());
    format!("eyJhbGciOiJIUzI1NiJ9.{payload}.c2ln")
}

async fn server(behaviour: Behaviour) -> (String, Arc<AtomicUsize>) {
    let hits = Arc::new(AtomicUsize::new(0));
    let counter = hits.clone();
    let srv = HttpServer::new(move || {
        let (counter, behaviour) = (counter.clone(), behaviour.clone());
        App::new().route(
            "/api/collections/users/auth-with-password",
            web::post().to(move || {
                let n = counter.fetch_add(1, Ordering::SeqCst);
                let behaviour = behaviour.clone();
                async move {
                    match behaviour {
                        Behaviour::Reject => HttpResponse::BadRequest().json(serde_json::json!({"status": 400})),
                        Behaviour::FailTwiceThenAccept if n < 2 => HttpResponse::ServiceUnavailable().finish(),
                        Behaviour::Hold(gate) if n == 0 => {
                            gate.arrived.notify_one();
                            gate.release.notified().await;
                            HttpResponse::Ok().json(serde_json::json!({"token": token(START_MS / 1000 + 3600)}))
                        }
                        _ => HttpResponse::Ok().json(serde_json::json!({"token": token(START_MS / 1000 + 3600)})),
                    }
                }
            }),
        )
    })
    .workers(1)
    .disable_signals()
    .bind(("127.0.0.1", 0))
    .unwrap();
    let addr = srv.addrs()[0];
    actix::spawn(srv.run());
    (format!("http://{addr}"), hits)
}

fn coordinator() -> (Arc<ManualClock>, Addr<AuthCoordinator>) {
    let clock = ManualClock::new(START_MS);
    let policy = RetryPolicy { attempts: 4, delay: Duration::from_millis(10), timeout: Duration::from_secs(5) };
    (clock.clone(), AuthCoordinator::new(clock, policy).start())
}

fn obtain(server: &str) -> ObtainToken {
    ObtainToken { server: server.to_string(), passphrase: "shared passphrase".into() }
}

#[actix_rt::test]
async fn concurrent_consumers_share_one_sign_in_and_snapshots_expire_after_4s() {
    let (url, hits) = server(Behaviour::Accept).await;
    let (clock, coord) = coordinator();
    let requests: Vec<_> = (0..10).map(|_| coord.send(obtain(&url))).collect();
    let mut tokens = Vec::new();
    for r in requests {
        tokens.push(r.await.unwrap().unwrap().token);
    }
    assert_eq!(hits.load(Ordering::SeqCst), 1, "ten consumers, one sign-in");
    assert!(tokens.windows(2).all(|w| w[0] == w[1]));
    clock.advance_ms(SNAPSHOT_TTL_MS - 1);
    coord.send(obtain(&url)).await.unwrap().unwrap();
    assert_eq!(hits.load(Ordering::SeqCst), 1, "still served from the snapshot");
    clock.advance_ms(1);
    coord.send(obtain(&url)).await.unwrap().unwrap();
    assert_eq!(hits.load(Ordering::SeqCst), 2, "expired after 4 s");
    let other = ObtainToken { server: url.clone(), passphrase: "different".into() };
    coord.send(other).await.unwrap().unwrap();
    assert_eq!(hits.load(Ordering::SeqCst), 3, "a different credential is a different key");
}

#[actix_rt::test]
async fn a_definitive_rejection_stops_retrying_at_once() {
    let (url, hits) = server(Behaviour::Reject).await;
    let (_clock, coord) = coordinator();
    let a = coord.send(obtain(&url));
    let b = coord.send(obtain(&url));
    assert_eq!(a.await.unwrap(), Err(CoordinatorError::Rejected));
    assert_eq!(b.await.unwrap(), Err(CoordinatorError::Rejected));
    assert_eq!(hits.load(Ordering::SeqCst), 1, "no retries after a rejection");
    assert_eq!(coord.send(GetStats).await.unwrap().cached, 0, "rejections are not cached");
}

#[actix_rt::test]
async fn transient_failures_are_retried_within_the_policy() {
    let (url, hits) = server(Behaviour::FailTwiceThenAccept).await;
    let (_clock, coord) = coordinator();
    assert!(coord.send(obtain(&url)).await.unwrap().is_ok());
    assert_eq!(hits.load(Ordering::SeqCst), 3);
    let (_clock, coord) = coordinator();
    let dead = ObtainToken { server: "http://127.0.0.1:9".into(), passphrase: "x".into() };
    assert_eq!(coord.send(dead).await.unwrap(), Err(CoordinatorError::Unreachable));
}

/// Polls (bounded: 500 looks, 10 ms apart) until `done` holds for the coordinator's stats.
async fn stats_when(coord: &Addr<AuthCoordinator>, done: impl Fn(&CoordinatorStats) -> bool) -> CoordinatorStats {
    for _ in 0..500 {
        let stats = coord.send(GetStats).await.unwrap();
        if done(&stats) {
            return stats;
        }
        actix_rt::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("the coordinator never reached the awaited state");
}

#[actix_rt::test]
async fn clear_cancels_in_flight_sign_ins_and_discards_their_results() {
    let gate = Arc::new(Gate::default());
    let (url, hits) = server(Behaviour::Hold(gate.clone())).await;
    let (_clock, coord) = coordinator();
    let pending = coord.send(obtain(&url));
    gate.arrived.notified().await;
    coord.send(Clear).await.unwrap();
    assert_eq!(pending.await.unwrap(), Err(CoordinatorError::Cancelled));
    // The held answer now comes back late; wait until the coordinator has handled it.
    gate.release.notify_one();
    let stats = stats_when(&coord, |s| s.sign_ins_finished == 1).await;
    assert_eq!((stats.cached, stats.in_flight), (0, 0), "the late answer was discarded");
    assert!(coord.send(obtain(&url)).await.unwrap().is_ok());
    assert_eq!(hits.load(Ordering::SeqCst), 2, "a new sign-in, not the discarded answer");
}

#[test]
fn tokens_are_validated_before_use() {
    assert!(validate_token(&token(START_MS / 1000 + 10), START_MS).is_ok());
    assert_eq!(validate_token(&token(START_MS / 1000), START_MS), Err(CoordinatorError::InvalidToken), "expired");
    for bad in ["", "a.b", "a.b.c", "x.eyJleHAiOiJzb29uIn0.y"] {
        assert_eq!(validate_token(bad, START_MS), Err(CoordinatorError::InvalidToken), "{bad}");
    }
}
