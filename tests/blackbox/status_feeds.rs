//! Service status against the real `relay serve` binary, with every status-feed endpoint
//! pointed (debug-only loopback override) at one fake upstream serving recorded-format
//! fixtures: a refresh fills all providers, the server-owned records are readable but not
//! writable, outages become notices, a failed feed keeps its last items with the error, and
//! unchanged polls write nothing; operator refreshes are limited (429 + Retry-After); on Relay
//! Web the status needs a web session and the refresh a CSRF token.

use std::time::Duration;

use fake_upstream::{FakeUpstream, Reply};
use infra::status_feeds::testdata;
use serde_json::{json, Value};
use support::{client, Relay};

async fn serve_fixtures() -> FakeUpstream {
    let fake = FakeUpstream::start().await;
    for (method, path, content_type, body) in testdata::ROUTES {
        fake.route(method, path, Reply::status(200).header("Content-Type", content_type).body(body.to_vec()));
    }
    fake
}

fn start_against(fake: &FakeUpstream, extra_env: &[(&str, &str)], web: bool) -> (Relay, tempfile::TempDir) {
    let tmp = tempfile::tempdir().unwrap();
    let data_dir = tmp.path().join("data");
    let origin = fake.url("");
    let origin = origin.trim_end_matches('/');
    let mut env: Vec<(String, String)> = testdata::override_env(origin);
    env.extend(extra_env.iter().map(|(k, v)| (k.to_string(), v.to_string())));
    let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    let relay = if web {
        Relay::start_env(&data_dir, "0.0.0.0", &["--web", "--web-port", "0"], &env)
    } else {
        Relay::start_env(&data_dir, "127.0.0.1", &[], &env)
    };
    (relay, tmp)
}

async fn status(relay: &Relay, token: &str) -> Value {
    relay.get_json(token, "/api/relay/status").await
}

/// Asks for a refresh (retrying while the actor is still loading) and waits until every
/// provider was checked after `after` (a `lastUpdated` string, or none).
async fn refresh_and_wait(relay: &Relay, token: &str, after: Option<&str>) -> Value {
    for _ in 0..100 {
        let res =
            client().post(relay.url("/api/relay/status/refresh")).header("Authorization", token).send().await.unwrap();
        match res.status().as_u16() {
            202 => break,
            503 => tokio::time::sleep(Duration::from_millis(100)).await,
            other => panic!("refresh answered {other}: {}", res.text().await.unwrap()),
        }
    }
    for _ in 0..300 {
        let s = status(relay, token).await;
        let updated = s["lastUpdated"].as_str().map(str::to_string);
        if !s["refreshing"].as_bool().unwrap() && updated.is_some() && updated.as_deref() != after {
            return s;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("the poll never finished: {}", relay.stderr());
}

fn provider<'a>(status: &'a Value, id: &str) -> &'a Value {
    status["providers"].as_array().unwrap().iter().find(|p| p["id"] == id).unwrap()
}

async fn records(relay: &Relay, token: &str, collection: &str) -> Vec<Value> {
    let page = relay.get_json(token, &format!("/api/collections/{collection}/records?perPage=100")).await;
    page["items"].as_array().unwrap().clone()
}

#[tokio::test]
async fn a_refresh_reads_every_feed_through_the_fixed_endpoints_and_stores_only_changes() {
    let fake = serve_fixtures().await;
    let (mut relay, _dir) = start_against(&fake, &[("RELAY_TEST_STATUS_REFRESH_INTERVAL_MS", "0")], false);
    let token = relay.token().await;

    let first = refresh_and_wait(&relay, &token, None).await;
    let providers = first["providers"].as_array().unwrap();
    assert_eq!(providers.len(), 17);
    for p in providers {
        assert!(p["error"].is_null(), "{} failed: {}", p["id"], p["error"]);
    }
    // Providers whose fixtures do not depend on today's date: their items arrive whole.
    let github = provider(&first, "github");
    assert_eq!(
        github["items"].as_array().unwrap().len(),
        testdata::expected_item_count(domain::status_feeds::ProviderId::Github)
    );
    assert_eq!(github["state"], "outage");
    assert_eq!(github["statusPage"], "https://www.githubstatus.com/");
    let count = |id: &str| provider(&first, id)["items"].as_array().unwrap().len();
    assert!(count("salesforce") > 0 && count("proofpoint") > 0);
    assert_eq!(count("crowdstrike"), 1);

    // The requests went to the fixed production paths, credential-free.
    let requests = fake.requests();
    assert!(requests.iter().any(|r| r.target.starts_with("/api/v2/summary.json")));
    assert!(requests.iter().all(|r| !r.headers.iter().any(|(k, _)| k == "authorization" || k == "cookie")));

    // Server-owned: readable, one record per provider, never writable through the record API.
    let stored = records(&relay, &token, "cloud_status").await;
    assert_eq!(stored.len(), 17);
    for collection in ["cloud_status", "cloud_status_notices"] {
        let res = client()
            .post(relay.url(&format!("/api/collections/{collection}/records")))
            .header("Authorization", &token)
            .json(&support::sample(collection))
            .send()
            .await
            .unwrap();
        assert_eq!(res.status(), 403, "{collection}");
    }
    let id = stored[0]["id"].as_str().unwrap();
    for req in [
        client().patch(relay.url(&format!("/api/collections/cloud_status/records/{id}"))).json(&json!({"error": "x"})),
        client().delete(relay.url(&format!("/api/collections/cloud_status/records/{id}"))),
    ] {
        assert_eq!(req.header("Authorization", &token).send().await.unwrap().status(), 403);
    }

    // Outages became notices (one per episode).
    let notices = records(&relay, &token, "cloud_status_notices").await;
    assert!(notices.iter().any(|n| n["provider"] == "github" && n["severity"] == "error"), "{notices:?}");

    // An unchanged poll writes nothing.
    let revisions: Vec<Value> = stored.iter().map(|r| r["revision"].clone()).collect();
    let second = refresh_and_wait(&relay, &token, first["lastUpdated"].as_str()).await;
    let again: Vec<Value> =
        records(&relay, &token, "cloud_status").await.iter().map(|r| r["revision"].clone()).collect();
    assert_eq!(revisions, again, "no visible change, no write");

    // A failing feed keeps its last good items and shows the error.
    fake.route("GET", "/incidents.json", Reply::status(500).body(b"oops".to_vec()));
    fake.route("GET", "/v1/incidents/active", Reply::status(500).body(b"oops".to_vec()));
    let third = refresh_and_wait(&relay, &token, second["lastUpdated"].as_str()).await;
    let salesforce = provider(&third, "salesforce");
    assert!(salesforce["error"].as_str().unwrap().contains("500"), "{salesforce}");
    assert_eq!(salesforce["items"], provider(&second, "salesforce")["items"]);
    assert_eq!(salesforce["state"], "outage", "its last items still show the outage");
    let stored = records(&relay, &token, "cloud_status").await;
    let record = stored.iter().find(|r| r["provider"] == "salesforce").unwrap();
    assert!(record["error"].as_str().unwrap().contains("500"));
    // Failing poll after poll is one warning per provider, not one per request.
    refresh_and_wait(&relay, &token, third["lastUpdated"].as_str()).await;
    let output = relay.output();
    let failing = |id: &str| output.lines().filter(|l| l.contains("status feed failing") && l.contains(id)).count();
    assert_eq!((failing("salesforce"), failing("github")), (1, 0), "{output}");
    assert!(!output.lines().any(|l| l.contains("WARN") && l.contains("outbound request failed")), "{output}");
    for path in ["/v1/incidents/active", "/incidents.json", "/api/v2/summary.json", "/community/s/sfsites/aura"] {
        assert!(!output.contains(path), "logs name origins only, never {path}");
    }
    relay.stop();
}

#[tokio::test]
async fn operator_refreshes_are_limited_and_relay_web_needs_a_session_and_csrf() {
    let fake = serve_fixtures().await;
    let (mut relay, _dir) = start_against(&fake, &[], true);
    let token = relay.token().await;
    refresh_and_wait(&relay, &token, None).await;
    let res =
        client().post(relay.url("/api/relay/status/refresh")).header("Authorization", &token).send().await.unwrap();
    assert_eq!(res.status(), 429);
    let retry: u64 = res.headers()["retry-after"].to_str().unwrap().parse().unwrap();
    assert!((1..=30).contains(&retry), "{retry}");
    let body: Value = res.json().await.unwrap();
    assert_eq!(body["data"]["code"], "status_refresh_rate_limited");

    let base = relay.web.clone().unwrap().replace("127.0.0.1", "localhost");
    let anonymous = client().get(format!("{base}/api/relay/status")).header("Origin", &base).send().await.unwrap();
    assert_eq!(anonymous.status(), 401);
    let web = support::web_session(&base).await;
    // A request as the renderer in the browser makes it: origin, session cookie, app token.
    let as_browser = |req: reqwest::RequestBuilder| {
        req.header("Origin", &base).header("Cookie", &web.cookie).header("Authorization", &web.token)
    };
    let read = as_browser(client().get(format!("{base}/api/relay/status"))).send().await.unwrap();
    assert_eq!(read.status(), 200);
    assert_eq!(read.json::<Value>().await.unwrap()["providers"].as_array().unwrap().len(), 17);
    let refresh = || as_browser(client().post(format!("{base}/api/relay/status/refresh")));
    assert_eq!(refresh().send().await.unwrap().status(), 403, "no CSRF token");
    let with_csrf = refresh().header("X-Relay-CSRF", &web.csrf).send().await.unwrap();
    assert_eq!(with_csrf.status(), 429, "past CSRF, the server-wide limit still holds");
    relay.stop();
}

/// The Prometheus sample `series` (exact name and labels) in `text`.
fn sample(text: &str, series: &str) -> Option<f64> {
    text.lines().find_map(|l| l.strip_prefix(series)?.strip_prefix(' ')?.parse().ok())
}

#[tokio::test]
async fn without_internet_health_and_metrics_say_status_feeds_are_degraded_with_the_count() {
    // Every feed points at a closed loopback port (support::CLOSED_UPSTREAM): a server with no
    // Internet. The first scheduled poll fails them all.
    let mut relay = support::Relay::start();
    let token = relay.token().await;
    let mut health = Value::Null;
    for _ in 0..200 {
        health = relay.get_json(&token, "/api/relay/health").await;
        if health["actors"]["status_feeds"]["state"] == "degraded" {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let feeds = &health["actors"]["status_feeds"];
    assert_eq!(feeds["state"], "degraded", "{health}");
    assert_eq!(health["status"], "degraded", "the overall status does not say ok");
    let condition = &feeds["condition"];
    assert_eq!(condition["code"], "feeds_failing", "{feeds}");
    assert_eq!((condition["failing"].as_u64(), condition["total"].as_u64()), (Some(17), Some(17)), "{feeds}");
    let reason = condition["reason"].as_str().unwrap();
    assert!(reason.starts_with("17 of 17 feeds failing: "), "{reason}");
    assert!(condition["since"].is_string(), "{feeds}");

    let text = client().get(relay.url("/api/relay/metrics")).send().await.unwrap().text().await.unwrap();
    assert_eq!(sample(&text, "relay_actor_state{actor=\"status_feeds\",state=\"degraded\"}"), Some(1.0), "{text}");
    assert_eq!(sample(&text, "relay_actor_state{actor=\"status_feeds\",state=\"running\"}"), Some(0.0), "{text}");
    assert_eq!(sample(&text, "relay_actor_running{actor=\"status_feeds\"}"), Some(0.0), "{text}");
    assert_eq!(sample(&text, "relay_actor_failing_units{actor=\"status_feeds\"}"), Some(17.0), "{text}");
    assert_eq!(sample(&text, "relay_actor_units{actor=\"status_feeds\"}"), Some(17.0), "{text}");
    assert_eq!(
        sample(&text, "relay_actor_condition{actor=\"status_feeds\",code=\"feeds_failing\"}"),
        Some(1.0),
        "{text}"
    );
    assert!(!text.contains(reason), "the free-text reason is never a label");
    relay.stop();
}
