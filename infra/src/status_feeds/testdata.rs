//! Recorded-format fixtures of every status source (`tests/vectors/status_feeds/`, written from
//! the public wire formats) and the fake-upstream routes that serve them all from one origin,
//! for parser tests, fetch tests, the actor's tests, black-box tests of the binary and the
//! bench. Only in tests and with the `test-fixtures` feature. The five Statuspage hosts share
//! one path, so one origin serves them one summary.

use domain::status_feeds::ProviderId;

use crate::http::endpoints::{Endpoint, STATUS_FEEDS};

/// The instant the fixtures were written for (2025-06-10T14:00:00Z): pass it as `now_ms` so
/// the 7-day windows keep and drop the same items every run.
pub const FIXTURE_NOW_MS: i64 = 1_749_564_000_000;

macro_rules! vector {
    ($name:literal) => {
        include_bytes!(concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/vectors/status_feeds/", $name))
    };
}

pub const AWS_RSS: &[u8] = vector!("aws_all.rss");
pub const AZURE_RSS: &[u8] = vector!("azure_status.rss");
pub const M365_ATOM: &[u8] = vector!("m365_feed.atom");
pub const STATUSPAGE_SUMMARY: &[u8] = vector!("statuspage_summary.json");
pub const STATUSPAGE_INDICATOR_MINOR: &[u8] = vector!("statuspage_indicator_minor.json");
pub const GOOGLE_INCIDENTS: &[u8] = vector!("google_incidents.json");
pub const SALESFORCE_INCIDENTS: &[u8] = vector!("salesforce_incidents_active.json");
pub const MIST_NOTICES: &[u8] = vector!("mist_notices.json");
pub const MIST_NOTICE_EMEA: &[u8] = vector!("mist_notice_emea.json");
pub const MIST_NOTICE_GLOBAL: &[u8] = vector!("mist_notice_global.json");
pub const MIST_COMPONENTS: &[u8] = vector!("mist_components.json");
pub const DYNATRACE_STATUS: &[u8] = vector!("dynatrace_status.json");
pub const PROOFPOINT_PAGE: &[u8] = vector!("proofpoint_page.html");
pub const PROOFPOINT_AURA: &[u8] = vector!("proofpoint_aura.json");
pub const STATUSGATOR_UP: &[u8] = vector!("statusgator_up.html");
pub const STATUSGATOR_MAINTENANCE: &[u8] = vector!("statusgator_maintenance.html");
pub const STATUSGATOR_ISSUES: &[u8] = vector!("statusgator_issues.html");
pub const STATUSGATOR_DOWN: &[u8] = vector!("statusgator_down.html");

const RSS: &str = "application/rss+xml; charset=utf-8";
const ATOM: &str = "application/atom+xml; charset=utf-8";
const JSON: &str = "application/json; charset=utf-8";
const HTML: &str = "text/html; charset=utf-8";

/// A scripted reply: `(method, path without query, content type, body)`.
pub type FixtureRoute = (&'static str, &'static str, &'static str, &'static [u8]);

/// Every route a full poll requests, on one origin (query strings are not part of the path).
pub const ROUTES: &[FixtureRoute] = &[
    ("GET", "/rss/all.rss", RSS, AWS_RSS),
    ("GET", "/en-us/status/feed/", RSS, AZURE_RSS),
    ("GET", "/api/feed/mac", ATOM, M365_ATOM),
    ("GET", "/api/v2/summary.json", JSON, STATUSPAGE_SUMMARY),
    ("GET", "/incidents.json", JSON, GOOGLE_INCIDENTS),
    ("GET", "/v1/incidents/active", JSON, SALESFORCE_INCIDENTS),
    ("GET", "/api/v1/notices", JSON, MIST_NOTICES),
    ("GET", "/api/v1/notices/n0tice1emea", JSON, MIST_NOTICE_EMEA),
    ("GET", "/api/v1/notices/n0tice2glob", JSON, MIST_NOTICE_GLOBAL),
    ("GET", "/api/v1/components", JSON, MIST_COMPONENTS),
    ("GET", "/1.0/status/546d8cb6af8407b6730000cb", JSON, DYNATRACE_STATUS),
    ("GET", "/community/s/proofpoint-current-incidents", HTML, PROOFPOINT_PAGE),
    ("POST", "/community/s/sfsites/aura", JSON, PROOFPOINT_AURA),
    ("GET", "/services/crowdstrike", HTML, STATUSGATOR_ISSUES),
];

/// The status-feed endpoints whose overrides a black-box test sets.
pub fn endpoints() -> &'static [Endpoint] {
    STATUS_FEEDS
}

/// `RELAY_TEST_UPSTREAM_STATUS_*`, one per status endpoint.
pub fn override_vars() -> Vec<String> {
    STATUS_FEEDS.iter().map(Endpoint::override_var).collect()
}

/// `(variable, origin)` pairs that point every status endpoint at `origin` (a fake upstream's
/// base URL), for a child process's environment.
pub fn override_env(origin: &str) -> Vec<(String, String)> {
    override_vars().into_iter().map(|var| (var, origin.to_string())).collect()
}

/// The items a full poll of [`ROUTES`] at [`FIXTURE_NOW_MS`] yields per provider (after
/// finalizing), for assertions in other crates.
pub fn expected_item_count(provider: ProviderId) -> usize {
    use ProviderId::*;
    match provider {
        Aws => 3,
        Azure => 3,
        M365 => 3,
        Jira | Github | Cloudflare | Anthropic | Openai => 5,
        Google => 3,
        Salesforce => 3,
        MistGlobal | MistEmea | MistApac => 1,
        MistFederal => 0,
        Dynatrace => 2,
        Proofpoint => 1,
        Crowdstrike => 1,
    }
}
