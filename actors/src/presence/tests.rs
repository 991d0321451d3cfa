//! Presence tests: active-window classification, server-clock heartbeats, pruning of stale rows
//! with an injected clock, and supervisor restart after a panic (visible in health).

use std::net::IpAddr;
use std::sync::Arc;

use serde_json::json;

use super::*;
use crate::health::{ActorState, GetHealth};
use crate::system::start_server as start;
use crate::testkit::relay_config;
use infra::clock::ManualClock;

#[test]
fn classifies_active_clients_by_window() {
    let now = parse_datetime("2026-12-02T12:00:00Z").unwrap();
    let row = |sid: &str, host: &str, seen: &str, mode: &str| json!({"sessionId": sid, "hostname": host, "lastSeen": seen, "mode": mode});
    let rows = vec![
        row("a", "noc-2", "2026-12-02 11:59:20.000Z", "client"),
        row("b", "noc-1", "2026-12-02 11:59:15.000Z", "client"),
        row("c", "noc-3", "2026-12-02 11:59:14.999Z", "client"),
        row("d", "noc-4", "2026-12-02 11:59:59.000Z", "server"),
        row("e", "noc-5", "garbage", "client"),
    ];
    let active = active_clients(&rows, now, 45_000);
    let hosts: Vec<&str> = active.iter().map(|a| a.hostname.as_str()).collect();
    assert_eq!(hosts, vec!["noc-1", "noc-2"]);
}

#[test]
fn browsers_are_named_by_the_address_the_server_sees() {
    let v4: IpAddr = "10.0.0.7".parse().unwrap();
    let mapped: IpAddr = "::ffff:192.168.1.20".parse().unwrap();
    let v6: IpAddr = "fe80::1".parse().unwrap();
    assert_eq!(client_hostname("browser", Some(v4)), "Web · Browser · 10.0.0.7");
    assert_eq!(client_hostname(" Browser ", Some(mapped)), "Web · Browser · 192.168.1.20");
    assert_eq!(client_hostname("browser", Some(v6)), "Web · Browser · fe80::1");
    assert_eq!(client_hostname("browser", None), "Web · Browser · unknown address");
    assert_eq!(client_hostname("desktop", Some(v4)), "Desktop · 10.0.0.7");
    assert_eq!(client_hostname("noc-1", Some(v4)), "noc-1");
    assert_eq!(client_hostname("  ", Some(v4)), "unknown-client");
}

#[actix_rt::test]
async fn heartbeats_use_the_server_clock_and_stale_rows_are_pruned() {
    let tmp = tempfile::tempdir().unwrap();
    let clock = ManualClock::new(parse_datetime("2026-12-02T12:00:00Z").unwrap());
    let mut config = relay_config(tmp.path());
    config.clock = clock.clone() as Arc<dyn infra::clock::Clock>;
    let h = start(config).unwrap();
    let row = h
        .presence
        .send(Heartbeat { session_id: "s1".into(), hostname: "noc-1".into(), peer: None })
        .await
        .unwrap()
        .unwrap();
    assert_eq!(row["lastSeen"], "2026-12-02 12:00:00.000Z");
    h.presence.send(Heartbeat { session_id: "s2".into(), hostname: "".into(), peer: None }).await.unwrap().unwrap();
    let bad = h.presence.send(Heartbeat { session_id: " ".into(), hostname: "x".into(), peer: None }).await.unwrap();
    assert!(matches!(bad, Err(RecordError::Validation(_))));
    h.presence.send(Sweep).await.unwrap().unwrap();
    let snap = h.presence.send(GetPresence).await.unwrap();
    assert_eq!(snap.active_count, 2);
    assert!(snap.active.iter().any(|a| a.hostname == "unknown-client"));

    clock.advance_ms(46_000);
    h.presence
        .send(Heartbeat { session_id: "s2".into(), hostname: "noc-2".into(), peer: None })
        .await
        .unwrap()
        .unwrap();
    assert_eq!(h.presence.send(Sweep).await.unwrap().unwrap(), 0);
    let snap = h.presence.send(GetPresence).await.unwrap();
    assert_eq!(snap.active.iter().map(|a| a.session_id.as_str()).collect::<Vec<_>>(), vec!["s2"]);

    clock.advance_ms(600_000 - 46_000 + 1);
    assert_eq!(h.presence.send(Sweep).await.unwrap().unwrap(), 1, "s1 not seen for over 10 minutes");
    let page = h
        .store
        .send(crate::store::ListRecords { collection: "client_presence".into(), params: Default::default() })
        .await
        .unwrap()
        .unwrap();
    assert_eq!(page.items.len(), 1);
    assert_eq!(page.items[0]["sessionId"], "s2");
}

/// Test-only fault injection: proves the supervisor restarts a panicking actor.
#[derive(Message)]
#[rtype(result = "Result<(), crate::kit::Panicked>")]
struct Explode;

impl Handler<Explode> for PresenceActor {
    type Result = Result<(), crate::kit::Panicked>;
    fn handle(&mut self, _: Explode, ctx: &mut Context<Self>) -> Self::Result {
        crate::kit::guarded(self, ctx, |_| panic!("injected fault"))
    }
}

#[actix_rt::test]
async fn a_panicking_actor_is_restarted_and_health_shows_it() {
    let tmp = tempfile::tempdir().unwrap();
    let h = start(relay_config(tmp.path())).unwrap();
    h.presence
        .send(Heartbeat { session_id: "s1".into(), hostname: "noc-1".into(), peer: None })
        .await
        .unwrap()
        .unwrap();
    assert_eq!(h.presence.send(Explode).await.unwrap(), Err(crate::kit::Panicked));
    let mut snapshot = None;
    for _ in 0..50 {
        let s = h.health.send(GetHealth).await.unwrap();
        if s.actors.get(NAME).is_some_and(|a| a.restarts == 1) {
            snapshot = Some(s);
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    let snapshot = snapshot.expect("restart recorded in health");
    let presence = &snapshot.actors[NAME];
    assert!(presence.last_error.as_deref().unwrap().contains("injected fault"));
    assert!(matches!(presence.state, ActorState::Restarting | ActorState::Running));
    let again =
        h.presence.send(Heartbeat { session_id: "s1".into(), hostname: "noc-1".into(), peer: None }).await.unwrap();
    assert!(again.is_ok(), "the restarted actor serves requests on the same address");
}
