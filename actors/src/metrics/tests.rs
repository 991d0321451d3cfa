//! Metrics tests: the pure label rules (status classes, methods, bounded route labels) and the
//! actor over a real server start: recorded requests render as Prometheus text by route pattern,
//! with latency histograms, realtime clients, per-actor queue depth and restarts and the
//! database size folded in at render time; a degraded subsystem's state, condition code and
//! failing units as bounded series, never its reason.

use std::collections::HashSet;
use std::time::Duration;

use super::*;
use crate::health::Report;
use crate::system::start_server;
use crate::testkit::relay_config;

fn request(route: Option<&str>, method: &str, status: u16, ms: u64) -> RecordRequest {
    RecordRequest {
        surface: Surface::DataApi,
        method: method.into(),
        route: route.map(String::from),
        status,
        latency: Duration::from_millis(ms),
    }
}

#[test]
fn statuses_are_classed_and_unknown_methods_collapse() {
    assert_eq!([status_class(101), status_class(204), status_class(304)], ["1xx", "2xx", "3xx"]);
    assert_eq!([status_class(404), status_class(503), status_class(42)], ["4xx", "5xx", "other"]);
    assert_eq!(method_label("PATCH"), "PATCH");
    assert_eq!(method_label("BREW"), "OTHER");
    assert_eq!(method_label("get"), "OTHER", "methods are case-sensitive tokens");
}

#[test]
fn route_labels_are_bounded() {
    let mut seen = HashSet::new();
    assert_eq!(route_label(None, &mut seen, 2), UNMATCHED_ROUTE);
    assert_eq!(route_label(Some("/a/{id}"), &mut seen, 2), "/a/{id}");
    assert_eq!(route_label(Some("/b"), &mut seen, 2), "/b");
    assert_eq!(route_label(Some("/c"), &mut seen, 2), OTHER_ROUTE);
    assert_eq!(route_label(Some("/a/{id}"), &mut seen, 2), "/a/{id}", "known patterns keep their label");
    assert_eq!(seen.len(), 2);
}

/// The sample line of `name` whose labels contain every one of `labels`.
fn sample(text: &str, name: &str, labels: &[&str]) -> Option<f64> {
    text.lines()
        .filter(|l| l.starts_with(&format!("{name}{{")) || l.starts_with(&format!("{name} ")))
        .find(|l| labels.iter().all(|want| l.contains(want)))
        .and_then(|l| l.rsplit(' ').next()?.parse().ok())
}

#[actix_rt::test]
async fn requests_render_by_pattern_with_latency_and_subsystem_numbers() {
    let tmp = tempfile::tempdir().unwrap();
    let h = start_server(relay_config(tmp.path())).unwrap();
    let records = "/api/collections/{collection}/records/{id}";
    h.metrics.do_send(request(Some(records), "GET", 200, 3));
    h.metrics.do_send(request(Some(records), "GET", 200, 700));
    h.metrics.do_send(request(Some(records), "GET", 404, 1));
    h.metrics.do_send(request(None, "GET", 404, 1));
    h.health.do_send(Report::restarted("auth"));
    let text = h.metrics.send(RenderMetrics).await.unwrap().unwrap();

    let route = format!("route=\"{records}\"");
    let ok = ["surface=\"data-api\"", "method=\"GET\"", route.as_str(), "status=\"2xx\""];
    assert_eq!(sample(&text, "relay_http_requests_total", &ok), Some(2.0), "{text}");
    assert_eq!(sample(&text, "relay_http_requests_total", &[route.as_str(), "status=\"4xx\""]), Some(1.0));
    assert_eq!(sample(&text, "relay_http_requests_total", &["route=\"unmatched\""]), Some(1.0));
    let count = sample(&text, "relay_http_request_duration_seconds_count", &[route.as_str()]);
    assert_eq!(count, Some(3.0), "{text}");
    let fast = sample(&text, "relay_http_request_duration_seconds_bucket", &[route.as_str(), "le=\"0.005\""]);
    assert_eq!(fast, Some(2.0), "two of three answered within 5 ms: {text}");
    assert!(text.contains("# TYPE relay_http_request_duration_seconds histogram"), "{text}");
    assert!(text.contains("# TYPE relay_http_requests_total counter"), "{text}");

    assert_eq!(sample(&text, "relay_realtime_clients", &[]), Some(0.0));
    assert_eq!(sample(&text, "relay_actor_restarts_total", &["actor=\"auth\""]), Some(1.0), "{text}");
    assert!(sample(&text, "relay_actor_queue_depth", &["actor=\"store\""]).is_some(), "{text}");
    assert!(sample(&text, "relay_database_size_bytes", &[]).unwrap() > 0.0, "{text}");
    assert!(!text.contains("# EOF"), "Prometheus 0.0.4 text, not OpenMetrics");

    // Restarts are not double-counted across renders; a new one is added.
    h.health.do_send(Report::restarted("auth"));
    let text = h.metrics.send(RenderMetrics).await.unwrap().unwrap();
    assert_eq!(sample(&text, "relay_actor_restarts_total", &["actor=\"auth\""]), Some(2.0), "{text}");
}

#[actix_rt::test]
async fn a_flood_of_distinct_patterns_stays_within_the_route_limit() {
    let tmp = tempfile::tempdir().unwrap();
    let mut config = relay_config(tmp.path());
    config.metrics.max_routes = 3;
    let h = start_server(config).unwrap();
    for i in 0..50 {
        h.metrics.do_send(request(Some(&format!("/probe/{i}")), "GET", 200, 1));
    }
    let text = h.metrics.send(RenderMetrics).await.unwrap().unwrap();
    let series = text.lines().filter(|l| l.starts_with("relay_http_requests_total{")).count();
    assert_eq!(series, 4, "three named patterns plus `other`: {text}");
    assert_eq!(sample(&text, "relay_http_requests_total", &["route=\"other\""]), Some(47.0));
}

#[actix_rt::test]
async fn a_degraded_subsystem_renders_its_state_condition_and_counts_without_its_reason() {
    use domain::work_condition::{ConditionCode, WorkCondition};
    let tmp = tempfile::tempdir().unwrap();
    let h = start_server(relay_config(tmp.path())).unwrap();
    h.health.do_send(Report::state("status_feeds", ActorState::Running, 0));
    let reason = "14 of 17 feeds failing: connection refused";
    h.health.do_send(Report::condition(
        "status_feeds",
        WorkCondition::new(ConditionCode::FeedsFailing, reason).counting(14, 17),
    ));
    let text = h.metrics.send(RenderMetrics).await.unwrap().unwrap();
    let feeds = "actor=\"status_feeds\"";
    assert_eq!(sample(&text, "relay_actor_state", &[feeds, "state=\"degraded\""]), Some(1.0), "{text}");
    assert_eq!(sample(&text, "relay_actor_state", &[feeds, "state=\"running\""]), Some(0.0), "{text}");
    assert_eq!(sample(&text, "relay_actor_running", &[feeds]), Some(0.0), "{text}");
    assert_eq!(sample(&text, "relay_actor_condition", &[feeds, "code=\"feeds_failing\""]), Some(1.0), "{text}");
    assert_eq!(sample(&text, "relay_actor_condition", &[feeds, "code=\"sign_in_needed\""]), Some(0.0), "{text}");
    assert_eq!(sample(&text, "relay_actor_failing_units", &[feeds]), Some(14.0), "{text}");
    assert_eq!(sample(&text, "relay_actor_units", &[feeds]), Some(17.0), "{text}");
    assert!(!text.contains("connection refused"), "the reason is never a label: {text}");
    assert!(sample(&text, "relay_actor_condition", &["actor=\"store\""]).is_none(), "no condition series for the rest");

    h.health.do_send(Report::recovered("status_feeds"));
    let text = h.metrics.send(RenderMetrics).await.unwrap().unwrap();
    assert_eq!(sample(&text, "relay_actor_state", &[feeds, "state=\"running\""]), Some(1.0), "{text}");
    assert_eq!(sample(&text, "relay_actor_condition", &[feeds, "code=\"feeds_failing\""]), Some(0.0), "{text}");
    assert_eq!(sample(&text, "relay_actor_failing_units", &[feeds]), Some(0.0), "{text}");
}
