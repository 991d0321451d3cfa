//! [`StatusFeedClient`] against the scripted loopback fake upstream: a full poll from the
//! fixtures, and each control of the fetch (deadline, byte caps, redirects, no cookies, the
//! Proofpoint form, Mist's partial failures, origin-only messages, cancellation). Every test
//! is bounded by an outer guard so a missing control fails instead of hanging.

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use domain::status_feeds::{ProviderId, MIST_REGIONS, PROVIDERS};
use fake_upstream::{FakeUpstream, Reply};

use super::testdata::{expected_item_count, FIXTURE_NOW_MS, ROUTES};
use super::*;

const TEST_CAP: u64 = 64 * 1024;

async fn bounded<F: Future>(f: F) -> F::Output {
    tokio::time::timeout(Duration::from_secs(10), f).await.expect("the poll hung: a control is missing")
}

async fn fixtures() -> FakeUpstream {
    let fake = FakeUpstream::start().await;
    for (method, path, content_type, body) in ROUTES {
        fake.route(method, path, Reply::content(content_type, body.to_vec()));
    }
    fake
}

fn client_with(fake: &FakeUpstream, limits: FeedLimits) -> StatusFeedClient {
    StatusFeedClient::with_limits(limits).unwrap().with_upstream_override(&fake.base_url())
}

/// Generous deadline (debug-build parsing), small caps so oversized tests stay quick.
fn client(fake: &FakeUpstream) -> StatusFeedClient {
    client_with(
        fake,
        FeedLimits { timeout: Duration::from_secs(5), json_max_bytes: TEST_CAP, html_max_bytes: TEST_CAP / 2 },
    )
}

async fn poll(client: &StatusFeedClient) -> Vec<ProviderPoll> {
    bounded(client.poll_all(FIXTURE_NOW_MS, &CancellationToken::new())).await
}

fn outcome(polls: &[ProviderPoll], provider: ProviderId) -> &Result<Vec<StatusItem>, String> {
    &polls.iter().find(|p| p.provider == provider).unwrap().outcome
}

fn error(polls: &[ProviderPoll], provider: ProviderId) -> String {
    outcome(polls, provider).clone().expect_err("the provider should have failed")
}

fn assert_others_ok(polls: &[ProviderPoll], failed: &[ProviderId]) {
    for p in polls.iter().filter(|p| !failed.contains(&p.provider)) {
        assert!(p.outcome.is_ok(), "{:?} failed: {:?}", p.provider, p.outcome);
    }
}

#[tokio::test]
async fn one_poll_reads_all_seventeen_providers_from_the_fixtures() {
    let fake = fixtures().await;
    let polls = poll(&client(&fake)).await;
    let order: Vec<ProviderId> = polls.iter().map(|p| p.provider).collect();
    assert_eq!(order, PROVIDERS.iter().map(|p| p.id).collect::<Vec<_>>());
    for p in &polls {
        let items = p.outcome.as_ref().unwrap_or_else(|e| panic!("{:?}: {e}", p.provider));
        assert_eq!(items.len(), expected_item_count(p.provider), "{:?}: {items:#?}", p.provider);
        assert!(items.iter().all(|i| i.provider == p.provider));
        assert!(items.iter().all(|i| i.link.is_empty() || i.link.starts_with("https://")));
        assert!(items.windows(2).all(|w| w[0].pub_date >= w[1].pub_date), "finalized: newest first");
    }
    // Mist: one notice list, the components, and one detail per listed notice.
    let requests = fake.requests();
    let mist_details = requests.iter().filter(|r| r.path().starts_with("/api/v1/notices/")).count();
    assert_eq!(mist_details, 3);
    assert_eq!(requests.len(), 14 + 1 + 1 + mist_details, "14 sources, Mist components, the aura call");
    for r in &requests {
        assert_eq!(r.header("cache-control"), Some("no-cache"), "{}", r.target);
        assert_eq!(r.header("cookie"), None);
        assert_eq!(r.header("authorization"), None);
    }
    let notices = requests.iter().find(|r| r.path() == "/api/v1/notices").unwrap();
    assert_eq!(notices.query(), Some("filter[timeline_state_eq]=present&filter[type_eq]=unplanned"));
}

#[tokio::test]
async fn a_feed_that_stalls_past_the_deadline_fails_alone() {
    let fake = fixtures().await;
    fake.route(
        "GET",
        "/rss/all.rss",
        Reply::status(200).header("Content-Type", "application/rss+xml").declared_length(4096).stall_after_headers(),
    );
    fake.route("GET", "/incidents.json", Reply::json("[]").delay_before_headers(Duration::from_secs(3)));
    let limits = FeedLimits { timeout: Duration::from_millis(1500), ..FeedLimits::default() };
    let polls = poll(&client_with(&fake, limits)).await;
    let origin = fake.base_url();
    assert_eq!(error(&polls, ProviderId::Aws), format!("request to {origin} timed out"));
    assert_eq!(error(&polls, ProviderId::Google), format!("request to {origin} timed out"));
    assert_others_ok(&polls, &[ProviderId::Aws, ProviderId::Google]);
}

#[tokio::test]
async fn oversized_bodies_are_aborted_with_and_without_a_length() {
    let fake = fixtures().await;
    fake.route(
        "GET",
        "/incidents.json",
        Reply::content("application/json", b"[".to_vec()).repeated_body(b' ', 4 << 20),
    );
    fake.route("GET", "/v1/incidents/active", Reply::status(200).repeated_body(b' ', 4 << 20).without_length());
    fake.route("GET", "/rss/all.rss", Reply::status(200).repeated_body(b' ', 4 << 20).chunked());
    // The HTML cap is smaller than the JSON cap: a page between the two is refused.
    fake.route("GET", "/services/crowdstrike", Reply::content("text/html", vec![b' '; (TEST_CAP - 10) as usize]));
    let polls = poll(&client(&fake)).await;
    let origin = fake.base_url();
    assert_eq!(error(&polls, ProviderId::Google), format!("response from {origin} exceeds {TEST_CAP} bytes"));
    assert_eq!(error(&polls, ProviderId::Salesforce), format!("response from {origin} exceeds {TEST_CAP} bytes"));
    assert_eq!(error(&polls, ProviderId::Aws), format!("response from {origin} exceeds {TEST_CAP} bytes"));
    assert_eq!(
        error(&polls, ProviderId::Crowdstrike),
        format!("response from {origin} exceeds {} bytes", TEST_CAP / 2)
    );
    assert_others_ok(&polls, &[ProviderId::Google, ProviderId::Salesforce, ProviderId::Aws, ProviderId::Crowdstrike]);
}

#[tokio::test]
async fn redirects_are_refused() {
    let fake = fixtures().await;
    fake.route("GET", "/v1/incidents/active", Reply::redirect(302, "/incidents.json"));
    fake.route("GET", "/community/s/proofpoint-current-incidents", Reply::redirect(301, "https://login.example.test/"));
    let polls = poll(&client(&fake)).await;
    let message = error(&polls, ProviderId::Salesforce);
    assert_eq!(message, format!("redirect to {} refused: host not allowed", fake.base_url()));
    assert_eq!(
        error(&polls, ProviderId::Proofpoint),
        "redirect to https://login.example.test refused: host not allowed"
    );
    let google_fetches = fake.requests().iter().filter(|r| r.path() == "/incidents.json").count();
    assert_eq!(google_fetches, 1, "the redirect target was not followed");
    assert!(!fake.requests().iter().any(|r| r.path() == "/community/s/sfsites/aura"));
}

#[tokio::test]
async fn proofpoint_posts_the_aura_form_with_the_page_values_and_no_cookie() {
    let fake = fixtures().await;
    let page = Reply::content("text/html", super::testdata::PROOFPOINT_PAGE.to_vec())
        .header("Set-Cookie", "sid=secret; Path=/");
    fake.route("GET", "/community/s/proofpoint-current-incidents", page);
    let client = client(&fake);
    let polls = poll(&client).await;
    assert_eq!(outcome(&polls, ProviderId::Proofpoint).as_ref().unwrap().len(), 1);
    // A second poll on the same client: a cookie store would now send the page's cookie.
    poll(&client).await;
    let requests = fake.requests();
    assert!(requests.iter().all(|r| r.header("cookie").is_none()), "no cookie store");
    let post = requests.iter().find(|r| r.method == "POST").expect("the aura call was made");
    assert_eq!(post.path(), "/community/s/sfsites/aura");
    assert_eq!(post.query(), Some("r=1&aura.FlowRuntimeConnect.startFlow=1"));
    assert_eq!(post.header("content-type"), Some("application/x-www-form-urlencoded; charset=UTF-8"));
    assert_eq!(post.header("cookie"), None, "no cookie store");
    let form: Vec<(String, String)> = url::form_urlencoded::parse(&post.body).into_owned().collect();
    let field = |name: &str| form.iter().find(|(n, _)| n == name).map(|(_, v)| v.clone()).unwrap();
    let names: Vec<&str> = form.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, ["message", "aura.context", "aura.pageURI", "aura.token"]);
    let context: serde_json::Value = serde_json::from_str(&field("aura.context")).unwrap();
    assert_eq!(
        context["fwuid"],
        "eGx3MHlRT1VMNVpkUWdRY3d5YVhDQTVpdWhxcDNZdnlpemJBQWpBVlFEQ2cxMy4zMzU1NDQzMi4yNTE2NTgyNA"
    );
    assert_eq!(context["loaded"]["APPLICATION@markup://siteforce:communityApp"], "1187_Qx9-abCDef12");
    let message: serde_json::Value = serde_json::from_str(&field("message")).unwrap();
    assert_eq!(message["actions"][0]["params"]["flowDevName"], "Incident_Article_Number");
    assert_eq!(field("aura.token"), "null");
    assert_eq!(field("aura.pageURI"), "/community/s/proofpoint-current-incidents");
}

#[tokio::test]
async fn a_proofpoint_page_without_the_bootstrap_is_an_error_and_no_post_is_made() {
    let fake = fixtures().await;
    fake.route(
        "GET",
        "/community/s/proofpoint-current-incidents",
        Reply::content("text/html", "<html>maintenance</html>"),
    );
    let polls = poll(&client(&fake)).await;
    assert_eq!(
        error(&polls, ProviderId::Proofpoint),
        format!("response from {} is unreadable: the page does not contain the aura framework id", fake.base_url())
    );
    assert!(!fake.requests().iter().any(|r| r.method == "POST"));
}

#[tokio::test]
async fn mist_components_failing_is_an_error_for_each_region() {
    let fake = fixtures().await;
    fake.route("GET", "/api/v1/components", Reply::status(500));
    let polls = poll(&client(&fake)).await;
    for region in MIST_REGIONS {
        assert_eq!(error(&polls, region), format!("{} answered with status 500", fake.base_url()));
    }
    assert_others_ok(&polls, &MIST_REGIONS);
}

#[tokio::test]
async fn mist_notices_failing_fails_the_whole_group_and_details_are_not_fetched() {
    let fake = fixtures().await;
    fake.route("GET", "/api/v1/notices", Reply::json("{\"unexpected\": true}"));
    let polls = poll(&client(&fake)).await;
    for region in MIST_REGIONS {
        assert_eq!(
            error(&polls, region),
            format!(
                "response from {} is unreadable: the response does not match the expected Mist notices shape",
                fake.base_url()
            )
        );
    }
    assert_others_ok(&polls, &MIST_REGIONS);
    assert!(!fake.requests().iter().any(|r| r.path().starts_with("/api/v1/notices/")));
}

#[tokio::test]
async fn mist_detail_requests_are_bounded() {
    let fake = fixtures().await;
    let notices: Vec<serde_json::Value> = (0..60)
        .map(|n| serde_json::json!({"id": format!("n{n}"), "type": "unplanned", "state": "investigating", "timeline_state": "present", "subject": "s"}))
        .collect();
    fake.route("GET", "/api/v1/notices", Reply::json(serde_json::json!({ "notices": notices }).to_string()));
    let polls = poll(&client(&fake)).await;
    let details = fake.requests().iter().filter(|r| r.path().starts_with("/api/v1/notices/")).count();
    assert_eq!(details, mist::MAX_NOTICE_DETAILS);
    // Undetailed notices still count (for every region); items are bounded by finalize.
    assert_eq!(
        outcome(&polls, ProviderId::MistFederal).as_ref().unwrap().len(),
        domain::status_feeds::MAX_ITEMS_PER_PROVIDER
    );
}

#[tokio::test]
async fn messages_name_the_origin_only() {
    let fake = fixtures().await;
    fake.route("GET", "/1.0/status/546d8cb6af8407b6730000cb", Reply::status(404));
    fake.route("GET", "/api/feed/mac", Reply::content("application/xml", "<feed><entry><title>x</entry></feed>"));
    let polls = poll(&client(&fake)).await;
    let origin = fake.base_url();
    assert_eq!(error(&polls, ProviderId::Dynatrace), format!("{origin} answered with status 404"));
    assert_eq!(
        error(&polls, ProviderId::M365),
        format!("response from {origin} is unreadable: the feed is not well-formed XML")
    );
    for p in &polls {
        if let Err(message) = &p.outcome {
            assert!(!message.contains("/1.0/") && !message.contains("/api/"), "{message}");
        }
    }
}

#[tokio::test]
async fn a_cancelled_poll_ends_every_provider_at_once() {
    let fake = fixtures().await;
    for (method, path, _, _) in ROUTES {
        fake.route(method, path, Reply::status(200).declared_length(4096).stall_after_headers());
    }
    let cancel = CancellationToken::new();
    cancel.cancel();
    let polls = bounded(client(&fake).poll_all(FIXTURE_NOW_MS, &cancel)).await;
    assert_eq!(polls.len(), PROVIDERS.len());
    for p in polls {
        let message = p.outcome.unwrap_err();
        assert!(message.ends_with("cancelled"), "{message}");
    }
}

#[tokio::test]
async fn the_poller_trait_object_is_send_and_static() {
    let fake = fixtures().await;
    let poller: Arc<dyn FeedPoller> = Arc::new(client(&fake));
    let future = poller.poll_all(FIXTURE_NOW_MS, CancellationToken::new());
    drop(poller);
    let polls = bounded(tokio::spawn(future)).await.unwrap();
    assert_eq!(polls.len(), PROVIDERS.len());
    assert!(polls.iter().all(|p| p.outcome.is_ok()));
}

#[test]
fn test_overrides_cover_every_status_endpoint() {
    let vars = super::testdata::override_vars();
    assert_eq!(vars.len(), 14);
    assert!(vars.iter().all(|v| v.starts_with("RELAY_TEST_UPSTREAM_STATUS_")));
    for info in PROVIDERS {
        let (endpoint, path) = source(info.id);
        assert!(crate::http::endpoints::all().any(|e| e == endpoint), "{:?}", info.id);
        assert!(endpoint.production.starts_with("https://") && path.starts_with('/'));
    }
}
