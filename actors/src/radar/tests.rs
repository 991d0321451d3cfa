//! Radar actor tests with a scripted source and a manual clock: boards replace the snapshot,
//! failures and sign-in pages keep the previous board, no session means sign-in without a
//! request, manual refreshes are limited per logical session, concurrent reads are shared;
//! failing reads and a missing session show as degraded with the reason until a board is read.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use super::*;
use crate::testkit::TestCtx;
use domain::radar::{StatusColor, UNRECOGNISED_PAGE};
use infra::http::CancellationToken;

#[derive(Default)]
struct Script {
    reads: Mutex<VecDeque<RadarRead>>,
    calls: AtomicUsize,
    session: Mutex<Option<String>>,
}

impl RadarSource for Script {
    fn set_session(&self, cookie: Option<&str>) -> Result<(), String> {
        let checked = cookie.map(infra::radar::check_session).transpose()?;
        *self.session.lock().unwrap() = checked.map(str::to_string);
        Ok(())
    }

    fn read(&self, _: CancellationToken) -> std::pin::Pin<Box<dyn std::future::Future<Output = RadarRead> + Send>> {
        self.calls.fetch_add(1, Ordering::SeqCst);
        let mut reads = self.reads.lock().unwrap();
        let next = if reads.len() > 1 { reads.pop_front().unwrap() } else { reads.front().cloned().unwrap() };
        Box::pin(async move {
            tokio::time::sleep(Duration::from_millis(20)).await;
            next
        })
    }
}

fn board(color: StatusColor) -> RadarRead {
    RadarRead::Page(RadarPage::Board(RadarSnapshot { color, ..Default::default() }))
}

fn actor(t: &TestCtx, reads: Vec<RadarRead>) -> (Addr<RadarActor>, Arc<Script>) {
    let script = Arc::new(Script { reads: Mutex::new(reads.into()), ..Default::default() });
    let config = RadarConfig { scheduled: false, ..Default::default() };
    (RadarActor::new(t.ctx(), config, script.clone()).start(), script)
}

#[test]
fn each_read_outcome_updates_the_snapshot_by_the_domain_rules() {
    let good = next_snapshot(&RadarSnapshot::default(), board(StatusColor::Red), 1_000);
    assert_eq!((good.color, good.last_updated, good.error.clone()), (StatusColor::Red, 1_000, None));
    let failed = next_snapshot(&good, RadarRead::Failed("timed out".into()), 2_000);
    assert_eq!((failed.color, failed.last_updated), (StatusColor::Red, 1_000));
    assert_eq!(failed.error.as_deref(), Some("timed out"));
    let signin = next_snapshot(&good, RadarRead::Page(RadarPage::SignIn), 2_000);
    assert!(signin.sign_in_required && signin.color == StatusColor::Red);
    assert!(next_snapshot(&good, RadarRead::NoSession, 2_000).sign_in_required);
    let empty = next_snapshot(&good, board(StatusColor::Unknown), 3_000);
    assert_eq!(empty.error.as_deref(), Some(UNRECOGNISED_PAGE));
    assert!(next_snapshot(&good, RadarRead::Page(RadarPage::TooLarge), 3_000).error.is_some());
}

#[actix_rt::test]
async fn reads_replace_or_keep_the_board() {
    let t = TestCtx::new();
    let (radar, _) = actor(&t, vec![board(StatusColor::Green), RadarRead::Failed("boom".into())]);
    let first = radar.send(ReadRadarNow).await.unwrap().unwrap();
    assert_eq!(first.color, StatusColor::Green);
    t.clock.advance_ms(60_000);
    let second = radar.send(ReadRadarNow).await.unwrap().unwrap();
    assert_eq!((second.color, second.error.as_deref()), (StatusColor::Green, Some("boom")));
    assert_eq!(radar.send(GetRadar).await.unwrap(), second);
}

#[actix_rt::test]
async fn manual_refreshes_are_limited_per_logical_session() {
    let t = TestCtx::new();
    let (radar, _) = actor(&t, vec![board(StatusColor::Green)]);
    let refresh = |sign_in: &str| radar.send(RefreshRadar { session: LogicalSession::of_sign_in(sign_in) });
    for n in 0..MANUAL_REFRESHES_PER_MINUTE {
        assert!(refresh("a").await.unwrap().is_ok(), "refresh {n}");
    }
    let refused = refresh("a").await.unwrap().unwrap_err();
    assert_eq!(refused.status(), 429);
    assert!(
        matches!(refused, RadarError::TooManyRefreshes { retry_after_secs } if (1..=5).contains(&retry_after_secs))
    );
    assert!(refresh("b").await.unwrap().is_ok(), "another session has its own budget");
    t.clock.advance_ms(5_000);
    assert!(refresh("a").await.unwrap().is_ok(), "one refresh comes back every 5 s");
}

#[actix_rt::test]
async fn concurrent_reads_share_one_request() {
    let t = TestCtx::new();
    let (radar, script) = actor(&t, vec![board(StatusColor::Yellow)]);
    let (a, b, c) = tokio::join!(
        radar.send(ReadRadarNow),
        radar.send(RefreshRadar { session: LogicalSession::of_sign_in("x") }),
        radar.send(RefreshRadar { session: LogicalSession::of_web_session("y") })
    );
    for r in [a, b, c] {
        assert_eq!(r.unwrap().unwrap().color, StatusColor::Yellow);
    }
    assert_eq!(script.calls.load(Ordering::SeqCst), 1);
}

#[actix_rt::test]
async fn a_session_set_on_the_server_pc_is_stored_then_read_and_a_bad_one_is_refused() {
    let t = TestCtx::new();
    let (radar, script) = actor(&t, vec![board(StatusColor::Green)]);
    let snap = radar.send(SetRadarSession { cookie: Some(" .ASPXAUTH=abc ".into()) }).await.unwrap().unwrap();
    assert_eq!(snap.color, StatusColor::Green, "read right after signing in");
    assert_eq!(script.session.lock().unwrap().as_deref(), Some(".ASPXAUTH=abc"));
    let refused = radar.send(SetRadarSession { cookie: Some("a=1\r\nX-Evil: 1".into()) }).await.unwrap().unwrap_err();
    assert_eq!((refused.status(), refused.code()), (400, "radar_session_invalid"));
    assert!(!refused.to_string().contains("X-Evil"), "the refusal never echoes the cookie");
    assert_eq!(script.session.lock().unwrap().as_deref(), Some(".ASPXAUTH=abc"), "the stored session is kept");
    radar.send(SetRadarSession { cookie: None }).await.unwrap().unwrap();
    assert_eq!(*script.session.lock().unwrap(), None);
}

/// `(state, condition code, reason)` of the radar in the health snapshot, as served in JSON.
async fn radar_health(t: &TestCtx) -> (String, Option<String>, String) {
    let snapshot = t.health.send(crate::health::GetHealth).await.unwrap();
    let radar = &serde_json::to_value(&snapshot).unwrap()["actors"][NAME];
    let text = |v: &serde_json::Value| v.as_str().unwrap_or_default().to_string();
    (
        text(&radar["state"]),
        radar["condition"]["code"].as_str().map(str::to_string),
        text(&radar["condition"]["reason"]),
    )
}

#[actix_rt::test]
async fn failing_reads_and_no_session_are_degraded_with_the_reason_and_a_board_recovers() {
    let t = TestCtx::new();
    let (radar, _) =
        actor(&t, vec![RadarRead::Failed("timed out".into()), RadarRead::NoSession, board(StatusColor::Green)]);
    radar.send(ReadRadarNow).await.unwrap().unwrap();
    let (state, code, reason) = radar_health(&t).await;
    assert_eq!((state.as_str(), code.as_deref()), ("degraded", Some("reads_failing")));
    assert!(reason.contains("timed out"), "{reason}");
    t.clock.advance_ms(60_000);
    radar.send(ReadRadarNow).await.unwrap().unwrap();
    let (state, code, reason) = radar_health(&t).await;
    assert_eq!((state.as_str(), code.as_deref()), ("degraded", Some("sign_in_needed")));
    assert!(reason.contains("relay radar") && reason.contains("sign-in"), "names the way out: {reason}");
    t.clock.advance_ms(60_000);
    radar.send(ReadRadarNow).await.unwrap().unwrap();
    assert_eq!(radar_health(&t).await, ("running".to_string(), None, String::new()));
}
