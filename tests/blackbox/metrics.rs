//! Black-box tests of `GET /api/relay/metrics` on the real binary: a loopback client gets valid
//! Prometheus text (0.0.4) whose request counter names the route *pattern* it just called, never
//! the raw id; a `Host` that is not loopback (DNS rebinding) is refused; the Relay Web gateway
//! does not serve it even to a signed-in browser; and a client whose TCP peer address is not
//! loopback is refused. That last test re-runs itself inside a new network namespace
//! (`unshare -n`) whose only interface is `lo`, carrying the documentation address 192.0.2.10,
//! so nothing is sent on a real interface.

use std::time::Duration;

use serde_json::Value;
use support::{client, Relay};

const RECORD_ROUTE: &str = "/api/collections/{collection}/records/{id}";

/// Every line is a comment (`# HELP`/`# TYPE`) or `name{labels} value` with a numeric value.
fn assert_exposition(text: &str) {
    assert!(!text.trim().is_empty());
    for line in text.lines().filter(|l| !l.is_empty()) {
        if let Some(comment) = line.strip_prefix("# ") {
            assert!(comment.starts_with("HELP ") || comment.starts_with("TYPE "), "comment: {line}");
            continue;
        }
        let (series, value) = line.rsplit_once(' ').unwrap_or_else(|| panic!("no value: {line}"));
        assert!(value.parse::<f64>().is_ok() || value == "+Inf", "value: {line}");
        let name = series.split('{').next().unwrap();
        assert!(name.starts_with("relay_") && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_'), "{line}");
        assert_eq!(series.contains('{'), series.ends_with('}'), "labels: {line}");
    }
}

fn counter(text: &str, labels: &[&str]) -> f64 {
    text.lines()
        .filter(|l| l.starts_with("relay_http_requests_total{"))
        .filter(|l| labels.iter().all(|want| l.contains(want)))
        .map(|l| l.rsplit(' ').next().unwrap().parse::<f64>().unwrap())
        .sum()
}

async fn scrape(url: &str) -> reqwest::Response {
    client().get(url).send().await.expect("metrics request")
}

#[tokio::test]
async fn loopback_clients_get_prometheus_text_counting_route_patterns_not_ids() {
    let relay = Relay::start();
    let token = relay.token().await;
    let created = relay.create(&token, "contacts", &support::sample("contacts")).await;
    let id = created["id"].as_str().unwrap().to_string();
    for _ in 0..3 {
        let res = client()
            .get(relay.url(&format!("/api/collections/contacts/records/{id}")))
            .header("Authorization", &token)
            .send()
            .await
            .unwrap();
        assert_eq!(res.status(), 200);
    }

    // No token needed: the rule is loopback, and this client is on 127.0.0.1.
    let res = scrape(&relay.url("/api/relay/metrics")).await;
    assert_eq!(res.status(), 200);
    let content_type = res.headers()["content-type"].to_str().unwrap().to_string();
    assert!(content_type.starts_with("text/plain; version=0.0.4"), "{content_type}");
    let text = res.text().await.unwrap();
    assert_exposition(&text);
    let route = format!("route=\"{RECORD_ROUTE}\"");
    let got = counter(&text, &["surface=\"data-api\"", "method=\"GET\"", &route, "status=\"2xx\""]);
    assert_eq!(got, 3.0, "{text}");
    assert!(!text.contains(&id), "a record id leaked into the metrics");
    assert!(counter(&text, &["method=\"POST\"", "route=\"/api/collections/{collection}/records\""]) >= 1.0);
    assert!(text.contains("relay_http_request_duration_seconds_bucket{"), "{text}");
    for actor in ["store", "auth", "realtime", "presence", "privileged", "web_sessions"] {
        assert!(text.contains(&format!("relay_actor_queue_depth{{actor=\"{actor}\"}}")), "{actor}: {text}");
        assert!(text.contains(&format!("relay_actor_restarts_total{{actor=\"{actor}\"}}")), "{actor}");
    }
    assert!(text.contains("relay_realtime_clients "), "{text}");
    let db = text.lines().find(|l| l.starts_with("relay_database_size_bytes ")).expect("database size");
    assert!(db.rsplit(' ').next().unwrap().parse::<f64>().unwrap() > 0.0, "{db}");

    // A page that rebinds its own name to 127.0.0.1 arrives from loopback with a foreign Host.
    let port = relay.base.rsplit(':').next().unwrap();
    for host in [format!("attacker.example:{port}"), format!("localhost.attacker.example:{port}")] {
        let res = client().get(relay.url("/api/relay/metrics")).header("Host", &host).send().await.unwrap();
        assert_eq!(res.status(), 403, "{host}");
    }
    let res = client().get(relay.url("/api/relay/metrics")).header("Host", format!("localhost:{port}")).send().await;
    assert_eq!(res.unwrap().status(), 200);
}

#[tokio::test]
async fn the_relay_web_gateway_does_not_serve_metrics() {
    let relay = Relay::start_web();
    let base = relay.web.clone().unwrap().replace("127.0.0.1", "localhost");
    let support::WebSession { cookie, token, .. } = support::web_session(&base).await;
    let token = token.as_str();
    // Signed in with a live session and the app token, over loopback: still not there.
    let res = client()
        .get(format!("{base}/api/relay/metrics"))
        .header("Cookie", &cookie)
        .header("Authorization", token)
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 404);
    let health = client()
        .get(format!("{base}/api/relay/health"))
        .header("Cookie", &cookie)
        .header("Authorization", token)
        .send()
        .await
        .unwrap();
    assert_eq!(health.status(), 200, "the read-only dashboard is on the gateway");
    // The gateway's requests are counted on the data API's metrics, by pattern.
    let text = scrape(&relay.url("/api/relay/metrics")).await.text().await.unwrap();
    assert!(counter(&text, &["surface=\"gateway\"", "route=\"/api/relay/health\"", "status=\"2xx\""]) >= 1.0, "{text}");
}

// --- A real non-loopback peer, isolated -------------------------------------------------------

const NETNS_MARKER: &str = "RELAY_METRICS_NETNS_CHILD";
const INNER_TEST: &str = "non_loopback_peers_are_refused_inside_the_namespace";
const NETNS_ADDRESS: &str = "192.0.2.10";
const CHILD_DEADLINE: Duration = Duration::from_secs(90);

#[test]
fn non_loopback_peers_are_refused() {
    let inner_test = support::test_path(module_path!(), INNER_TEST);
    support::run_in_netns(NETNS_MARKER, NETNS_ADDRESS, &inner_test, CHILD_DEADLINE);
}

#[tokio::test]
#[ignore = "runs only inside the network namespace made by non_loopback_peers_are_refused"]
async fn non_loopback_peers_are_refused_inside_the_namespace() {
    support::assert_in_test_netns(NETNS_MARKER);

    let tmp = tempfile::tempdir().unwrap();
    let relay = Relay::start_bound(&tmp.path().join("data"), "0.0.0.0", &[]);
    let token = relay.token().await;
    let port = relay.base.rsplit(':').next().unwrap().to_string();
    let lan_url = format!("http://{NETNS_ADDRESS}:{port}/api/relay/metrics");
    // The peer is 192.0.2.10: refused, whatever the Host header or token says.
    for host in [format!("{NETNS_ADDRESS}:{port}"), format!("127.0.0.1:{port}"), format!("localhost:{port}")] {
        let res = client().get(&lan_url).header("Host", &host).header("Authorization", &token).send().await.unwrap();
        assert_eq!(res.status(), 403, "Host {host}");
        let body: Value = res.json().await.unwrap();
        assert_eq!(body["status"], 403);
    }
    // The rest of the data API still answers that peer; loopback still gets the metrics.
    let res = client().get(format!("http://{NETNS_ADDRESS}:{port}/api/health")).send().await.unwrap();
    assert_eq!(res.status(), 200);
    assert_eq!(scrape(&relay.url("/api/relay/metrics")).await.status(), 200);
}
