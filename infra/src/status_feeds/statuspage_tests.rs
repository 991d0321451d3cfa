//! Statuspage parser: incidents of each impact, fallbacks, the synthetic item and Cloudflare.

use domain::status_feeds::{ProviderId, Severity};

use super::*;
use crate::status_feeds::testdata::{STATUSPAGE_INDICATOR_MINOR, STATUSPAGE_SUMMARY};

#[test]
fn incidents_of_each_impact_and_status() {
    let items = parse(ProviderId::Github, STATUSPAGE_SUMMARY, 0).unwrap();
    let got: Vec<(&str, Severity)> = items.iter().map(|i| (i.id.as_str(), i.severity)).collect();
    assert_eq!(
        got,
        [
            ("crit01abcdef", Severity::Error),
            ("major02ghijk", Severity::Error),
            ("minor03lmnop", Severity::Warning),
            ("none04qrstu", Severity::Info),
            ("post05vwxyz", Severity::Resolved),
        ]
    );
    // The latest update's body and date, the shortlink.
    assert_eq!(items[0].description, "We are seeing failed API requests & are investigating.");
    assert_eq!(items[0].pub_date, parse_date_ms("2025-06-10T13:40:00.000Z"));
    assert_eq!(items[0].link, "https://stspg.io/crit01");
    // No updates: updated_at, and the page link when there is no shortlink.
    assert_eq!(items[1].pub_date, parse_date_ms("2025-06-10T12:30:00.000Z"));
    assert_eq!(items[1].link, "https://www.githubstatus.com/incidents/major02ghijk");
    // Neither update nor updated_at: created_at; an empty shortlink counts as none.
    assert_eq!(items[3].pub_date, parse_date_ms("2025-06-10T10:00:00.000Z"));
    assert_eq!(items[3].link, "https://www.githubstatus.com/incidents/none04qrstu");
    assert!(items.iter().all(|i| !i.title.contains("maintenance")), "scheduled maintenances are not incidents");
}

#[test]
fn no_incidents_but_an_indicator_gives_one_synthetic_item() {
    let items = parse(ProviderId::Jira, STATUSPAGE_INDICATOR_MINOR, 0).unwrap();
    assert_eq!(items.len(), 1);
    let item = &items[0];
    assert_eq!(item.id, "jira-status-minor");
    assert_eq!(item.title, "Minor Service Outage");
    assert_eq!(item.severity, Severity::Warning);
    assert_eq!(
        item.description,
        "Affected components: Workers (degraded performance), Frankfurt, Germany - (FRA) (partial outage), \
         Amsterdam, Netherlands - (AMS) (under maintenance)"
    );
    assert_eq!(item.link, "https://jira-software.status.atlassian.com/");
}

#[test]
fn the_indicator_severity_and_none() {
    let doc = |indicator: &str| {
        format!(
            r#"{{"incidents": [], "components": [], "status": {{"indicator": "{indicator}", "description": "d"}}}}"#
        )
    };
    let sev =
        |indicator: &str| parse(ProviderId::Openai, doc(indicator).as_bytes(), 0).unwrap().first().map(|i| i.severity);
    assert_eq!(sev("none"), None);
    assert_eq!(sev("major"), Some(Severity::Error));
    assert_eq!(sev("critical"), Some(Severity::Error));
    assert_eq!(sev("maintenance"), Some(Severity::Info));
}

#[test]
fn cloudflare_component_only_status_needs_an_incident() {
    assert!(parse(ProviderId::Cloudflare, STATUSPAGE_INDICATOR_MINOR, 0).unwrap().is_empty());
    assert_eq!(parse(ProviderId::Cloudflare, STATUSPAGE_SUMMARY, 0).unwrap().len(), 5);
    assert_eq!(
        parse(ProviderId::Cloudflare, STATUSPAGE_SUMMARY, 0).unwrap()[1].link,
        "https://www.cloudflarestatus.com/incidents/major02ghijk"
    );
}

#[test]
fn wrong_types_are_a_typed_error() {
    assert_eq!(parse(ProviderId::Github, b"not json", 0), Err(FeedParseError::Shape("Statuspage summary")));
    let numeric_id = br#"{"incidents": [{"id": 5, "name": "x"}]}"#;
    assert_eq!(parse(ProviderId::Github, numeric_id, 0), Err(FeedParseError::Shape("Statuspage summary")));
    assert!(parse(ProviderId::Github, b"{}", 0).unwrap().is_empty());
}
