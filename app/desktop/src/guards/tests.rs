//! The guard decisions with recorded effects instead of a real relaunch, dialog or exit.

use std::sync::{Arc, Mutex};

use super::*;

#[derive(Default)]
struct Recorded {
    calls: Mutex<Vec<String>>,
    quit_answer: bool,
    relaunch_fails: bool,
}

struct Fake(Arc<Recorded>);

impl Effects for Fake {
    fn relaunch(&self) -> Result<(), String> {
        self.0.calls.lock().unwrap().push("relaunch".into());
        if self.0.relaunch_fails {
            Err("no exe".into())
        } else {
            Ok(())
        }
    }
    fn ask_quit(&self, report: &str) -> bool {
        self.0.calls.lock().unwrap().push(format!("ask:{report}"));
        self.0.quit_answer
    }
    fn exit(&self, code: i32) {
        self.0.calls.lock().unwrap().push(format!("exit:{code}"));
    }
}

fn guards(build: BuildKind, relaunch: bool, relaunched: bool, rec: Recorded) -> (Guards, Arc<Recorded>) {
    let rec = Arc::new(rec);
    let config = GuardConfig { build, relaunch_enabled: relaunch, already_relaunched: relaunched, probation: false };
    (Guards::new(config, Box::new(Fake(rec.clone()))), rec)
}

fn calls(rec: &Recorded) -> Vec<String> {
    rec.calls.lock().unwrap().clone()
}

#[test]
fn panic_reports_are_redacted_single_lines() {
    let payload: Box<dyn std::any::Any + Send> = Box::new(String::from("bad token=abc.def.ghi\npassword: hunter2"));
    let report = describe_panic(payload.as_ref(), Some("x.rs:1".into()));
    assert!(!report.contains('\n'), "{report}");
    assert!(!report.contains("hunter2"), "{report}");
    assert!(report.ends_with("at x.rs:1"));
    let payload: Box<dyn std::any::Any + Send> = Box::new(42u8);
    assert_eq!(describe_panic(payload.as_ref(), None), "non-string panic payload");
}

#[test]
fn packaged_fatal_failures_relaunch_once_then_ask() {
    let (g, rec) = guards(BuildKind::Packaged, true, false, Recorded::default());
    assert_eq!(g.on_panic(Some("actix-system"), "boom", 0), Outcome::Relaunched);
    assert_eq!(calls(&rec), ["relaunch", "exit:70"]);

    let (g, rec) = guards(BuildKind::Packaged, true, true, Recorded { quit_answer: false, ..Default::default() });
    assert_eq!(g.on_panic(Some("actix-system"), "boom", 0), Outcome::Continued, "already relaunched: ask");
    assert_eq!(calls(&rec), ["ask:boom"]);
}

#[test]
fn a_failed_relaunch_falls_back_to_the_dialog() {
    let rec = Recorded { quit_answer: true, relaunch_fails: true, ..Default::default() };
    let (g, rec) = guards(BuildKind::Packaged, true, false, rec);
    assert_eq!(g.on_panic(Some("actix-system"), "boom", 0), Outcome::Quit);
    assert_eq!(calls(&rec), ["relaunch", "ask:boom", "exit:1"]);
}

#[test]
fn development_builds_ask_quit_or_continue() {
    let (g, rec) = guards(BuildKind::Development, true, false, Recorded { quit_answer: true, ..Default::default() });
    assert_eq!(g.on_panic(Some("actix-system"), "boom", 0), Outcome::Quit);
    assert_eq!(calls(&rec), ["ask:boom", "exit:1"]);
    let (g, rec) = guards(BuildKind::Development, false, false, Recorded::default());
    assert_eq!(g.on_panic(Some("actix-system"), "boom", 0), Outcome::Continued);
    assert_eq!(calls(&rec), ["ask:boom"]);
}

#[test]
fn a_ui_thread_failure_cannot_ask_and_quits() {
    let (g, rec) = guards(BuildKind::Development, false, false, Recorded::default());
    assert_eq!(g.on_panic(Some("main"), "boom", 0), Outcome::Quit);
    assert_eq!(calls(&rec), ["exit:1"]);
}

#[test]
fn repeated_recoverable_failures_raise_the_stability_warning() {
    let (g, rec) = guards(BuildKind::Packaged, true, false, Recorded::default());
    assert_eq!(g.on_panic(Some("tokio-runtime-worker"), "x", 1_000), Outcome::Counted);
    assert_eq!(g.on_panic(None, "x", 2_000), Outcome::Counted);
    assert_eq!(g.status(), StabilityStatus { failures: 2, warning_at_ms: None });
    assert_eq!(g.on_panic(Some("actix-rt|system:0|arbiter:2"), "x", 3_000), Outcome::Warned);
    assert_eq!(g.status(), StabilityStatus { failures: 3, warning_at_ms: Some(3_000) });
    assert!(calls(&rec).is_empty(), "recoverable failures neither relaunch, ask nor exit");
    let json = serde_json::to_value(g.status()).unwrap();
    assert_eq!(json, serde_json::json!({"failures": 3, "warningAtMs": 3000}));
}

#[test]
fn on_probation_a_fatal_failure_quits_without_relaunch_or_dialog() {
    for (build, relaunch) in [(BuildKind::Packaged, true), (BuildKind::Development, false)] {
        let rec = Arc::new(Recorded { quit_answer: false, ..Recorded::default() });
        let config = GuardConfig { build, relaunch_enabled: relaunch, already_relaunched: false, probation: true };
        let g = Guards::new(config, Box::new(Fake(rec.clone())));
        assert_eq!(g.on_panic(Some("actix-system"), "boom", 0), Outcome::Quit, "{build:?}");
        // No "relaunch", no "ask:…" (the operator would have chosen Continue here).
        assert_eq!(calls(&rec), ["exit:1"], "{build:?}");
        // Recoverable failures are counted as before.
        assert_eq!(g.on_panic(Some("relay-worker"), "x", 0), Outcome::Counted);
    }
}
