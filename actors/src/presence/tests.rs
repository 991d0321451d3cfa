//! Presence tests: active-window classification, server-clock heartbeats, pruning of stale rows
//! with an injected clock, rows bound to the logical session that created them (another
//! session's heartbeat never reaches them) and bounded per session, and supervisor restart
//! after a panic (visible in health).

use std::net::IpAddr;
use std::sync::Arc;

use serde_json::json;

use super::*;
use crate::health::{ActorState, GetHealth};
use crate::store::ListRecords;
use crate::system::start_server as start;
use crate::testkit::relay_config;
use infra::clock::ManualClock;

/// A heartbeat of `tab` in sign-in session `session` from `peer`.
fn beat(session: &str, tab: &str, hostname: &str, peer: Option<IpAddr>) -> Heartbeat {
    Heartbeat { session: LogicalSession::of_sign_in(session), tab_id: tab.into(), hostname: hostname.into(), peer }
}

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
    let row = h.presence.send(beat("login-1", "s1", "noc-1", None)).await.unwrap().unwrap();
    assert_eq!(row["lastSeen"], "2026-12-02 12:00:00.000Z");
    let s1 = row["sessionId"].as_str().unwrap().to_string();
    let s2 = h.presence.send(beat("login-1", "s2", "", None)).await.unwrap().unwrap()["sessionId"].clone();
    let bad = h.presence.send(beat("login-1", " ", "x", None)).await.unwrap();
    assert_eq!(bad.unwrap_err().status(), 400);
    h.presence.send(Sweep).await.unwrap().unwrap();
    let snap = h.presence.send(GetPresence).await.unwrap();
    assert_eq!(snap.active_count, 2);
    assert!(snap.active.iter().any(|a| a.hostname == "unknown-client"));

    clock.advance_ms(46_000);
    h.presence.send(beat("login-1", "s2", "noc-2", None)).await.unwrap().unwrap();
    assert_eq!(h.presence.send(Sweep).await.unwrap().unwrap(), 0);
    let snap = h.presence.send(GetPresence).await.unwrap();
    assert_eq!(snap.active.iter().map(|a| a.presence_id.as_str()).collect::<Vec<_>>(), vec![s2.as_str().unwrap()]);

    clock.advance_ms(600_000 - 46_000 + 1);
    assert_eq!(h.presence.send(Sweep).await.unwrap().unwrap(), 1, "s1 not seen for over 10 minutes");
    let page = h
        .store
        .send(ListRecords { collection: "client_presence".into(), params: Default::default() })
        .await
        .unwrap()
        .unwrap();
    assert_eq!(page.items.len(), 1);
    assert_eq!(page.items[0]["sessionId"], s2);
    assert_ne!(page.items[0]["sessionId"], "s2", "the row is keyed by the presence id, never the tab id");
    assert_ne!(s1, "s1");
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
    h.presence.send(beat("login-1", "s1", "noc-1", None)).await.unwrap().unwrap();
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
    let again = h.presence.send(beat("login-1", "s1", "noc-1", None)).await.unwrap();
    assert!(again.is_ok(), "the restarted actor serves requests on the same address");
}

/// All `client_presence` rows as `(sessionId, hostname, lastSeen)`.
async fn rows(h: &crate::Handles) -> Vec<(String, String, String)> {
    let list = ListRecords { collection: "client_presence".into(), params: Default::default() };
    let page = h.store.send(list).await.unwrap().unwrap();
    let text = |row: &serde_json::Value, field: &str| row[field].as_str().unwrap_or_default().to_string();
    page.items.iter().map(|r| (text(r, "sessionId"), text(r, "hostname"), text(r, "lastSeen"))).collect()
}

/// Issue #39.6: B reads A's id from the presence list and heartbeats with it (and with A's raw
/// tab id): A's row is neither renamed nor refreshed; B only ever writes rows of its own.
#[actix_rt::test]
async fn another_session_cannot_rename_or_refresh_a_row_read_from_the_list() {
    let tmp = tempfile::tempdir().unwrap();
    let clock = ManualClock::new(parse_datetime("2026-12-02T12:00:00Z").unwrap());
    let mut config = relay_config(tmp.path());
    config.clock = clock.clone() as Arc<dyn infra::clock::Clock>;
    let h = start(config).unwrap();
    let a_peer: Option<IpAddr> = Some("10.0.0.7".parse().unwrap());
    let b_peer: Option<IpAddr> = Some("10.0.0.8".parse().unwrap());
    h.presence.send(beat("login-a", "tab-a", "browser", a_peer)).await.unwrap().unwrap();
    h.presence.send(Sweep).await.unwrap().unwrap();
    let listed = h.presence.send(GetPresence).await.unwrap();
    let a_id = listed.active[0].presence_id.clone();
    assert_ne!(a_id, "tab-a", "the list shows the presence id, not the tab id");
    let before = rows(&h).await;

    clock.advance_ms(20_000);
    for forged in [a_id.as_str(), "tab-a"] {
        let row = h.presence.send(beat("login-b", forged, "ghost-pc", b_peer)).await.unwrap().unwrap();
        assert_ne!(row["sessionId"], a_id.as_str(), "B's heartbeat lands on a row of B's own");
    }
    let after = rows(&h).await;
    let a_row = after.iter().find(|(id, _, _)| *id == a_id).unwrap();
    assert_eq!(a_row, before.iter().find(|(id, _, _)| *id == a_id).unwrap(), "A's row neither renamed nor refreshed");
    assert_eq!(a_row.1, "Web · Browser · 10.0.0.7");
    assert_eq!(after.iter().filter(|(_, host, _)| host == "ghost-pc").count(), 2);
}

/// Issue #39.6: 2,000 heartbeats with random tab ids leave at most 8 rows for the session
/// (refused with 429 while they are active); once a row is idle a new tab takes its place, and
/// pruned rows free theirs.
#[actix_rt::test]
async fn a_session_holds_at_most_eight_rows_however_many_tab_ids_it_sends() {
    let tmp = tempfile::tempdir().unwrap();
    let clock = ManualClock::new(parse_datetime("2026-12-02T12:00:00Z").unwrap());
    let mut config = relay_config(tmp.path());
    config.clock = clock.clone() as Arc<dyn infra::clock::Clock>;
    let h = start(config).unwrap();
    let peer: Option<IpAddr> = Some("10.0.0.8".parse().unwrap());
    let mut refused = 0;
    for n in 0..2_000 {
        match h.presence.send(beat("login-b", &format!("random-{n}"), "ghost-pc", peer)).await.unwrap() {
            Ok(_) => {}
            Err(e) => {
                assert_eq!((e.status(), e.code()), (429, "presence_limit"));
                refused += 1;
            }
        }
    }
    assert_eq!((rows(&h).await.len(), refused), (8, 1_992));
    let other = h.presence.send(beat("login-c", "tab-c", "noc-c", peer)).await.unwrap();
    assert!(other.is_ok(), "another session from the same address has its own budget");

    clock.advance_ms(45_001);
    h.presence.send(beat("login-b", "new-tab", "ghost-pc", peer)).await.unwrap().unwrap();
    assert_eq!(rows(&h).await.len(), 9, "an idle row gave its place (deleted), so 8 + C's");

    clock.advance_ms(600_001);
    h.presence.send(Sweep).await.unwrap().unwrap();
    assert!(rows(&h).await.is_empty(), "rows expire");
    for n in 0..8 {
        h.presence.send(beat("login-b", &format!("later-{n}"), "ghost-pc", peer)).await.unwrap().unwrap();
    }
    assert_eq!(rows(&h).await.len(), 8, "pruned rows no longer count");
}
