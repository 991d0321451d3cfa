//! Mist: region mapping, severity, links, component warnings and component failures.

use std::collections::HashMap;

use domain::status_feeds::{ProviderId, Severity};

use super::*;
use crate::status_feeds::testdata::{MIST_COMPONENTS, MIST_NOTICES, MIST_NOTICE_EMEA, MIST_NOTICE_GLOBAL};

fn fixture_details() -> HashMap<String, Notice> {
    [MIST_NOTICE_EMEA, MIST_NOTICE_GLOBAL]
        .iter()
        .map(|bytes| {
            let notice = parse_notice_detail(bytes).unwrap();
            (notice.id(), notice)
        })
        .collect()
}

fn by_region(built: &[(ProviderId, Result<Vec<StatusItem>, String>)], region: ProviderId) -> &Vec<StatusItem> {
    built.iter().find(|(r, _)| *r == region).unwrap().1.as_ref().unwrap()
}

#[test]
fn only_present_unplanned_notices_are_read() {
    let notices = parse_notices(MIST_NOTICES).unwrap();
    let ids: Vec<String> = notices.iter().map(Notice::id).collect();
    assert_eq!(ids, ["n0tice1emea", "n0tice2glob", "n0tice3done"]);
}

#[test]
fn notices_map_to_regions_and_degraded_components_without_a_notice_warn() {
    let notices = parse_notices(MIST_NOTICES).unwrap();
    let components = parse_components(MIST_COMPONENTS).unwrap();
    let built = build(&notices, &fixture_details(), Ok(&components));
    assert_eq!(built.iter().map(|(r, _)| *r).collect::<Vec<_>>(), MIST_REGIONS);

    let emea = by_region(&built, ProviderId::MistEmea);
    assert_eq!(emea.len(), 1, "the degraded EMEA component has a notice: no extra warning");
    assert_eq!(emea[0].id, "n0tice1emea");
    assert_eq!(emea[0].severity, Severity::Error);
    assert_eq!(emea[0].description, "The cause is identified; a fix is rolling out.");
    assert_eq!(emea[0].pub_date, parse_date_ms("2025-06-10T13:15:00.000Z"));
    assert_eq!(emea[0].link, "https://status.mist.com/notices/n0tice1emea");

    let global = by_region(&built, ProviderId::MistGlobal);
    assert_eq!((global[0].id.as_str(), global[0].severity), ("n0tice2glob", Severity::Warning));
    assert_eq!(global[0].link, "https://status.mist.com/", "an off-site notice link is replaced");

    let apac = by_region(&built, ProviderId::MistApac);
    assert_eq!(apac[0].id, "mist-component-84051");
    assert_eq!(apac[0].title, "MIST APAC CLOUD is degraded");
    assert_eq!(apac[0].severity, Severity::Warning);

    assert!(by_region(&built, ProviderId::MistFederal).is_empty());
}

#[test]
fn a_notice_without_mappable_components_counts_for_every_region() {
    let notices = parse_notices(MIST_NOTICES).unwrap();
    // No details fetched: the listed notices name no components.
    let built = build(&notices, &HashMap::new(), Ok(&[]));
    for region in MIST_REGIONS {
        let ids: Vec<&str> = by_region(&built, region).iter().map(|i| i.id.as_str()).collect();
        assert_eq!(ids, ["n0tice1emea", "n0tice2glob"], "{region:?}");
    }
}

#[test]
fn a_components_failure_is_an_error_for_every_region() {
    let notices = parse_notices(MIST_NOTICES).unwrap();
    let built = build(&notices, &fixture_details(), Err("cannot connect to https://status.mist.com"));
    assert_eq!(built.len(), 4);
    for (_, outcome) in built {
        assert_eq!(outcome, Err("cannot connect to https://status.mist.com".to_string()));
    }
}

#[test]
fn links_must_be_https_on_exactly_status_mist_com() {
    assert_eq!(notice_link(Some("https://status.mist.com/n/1")), "https://status.mist.com/n/1");
    for bad in [
        "http://status.mist.com/n/1",
        "https://status.mist.com.evil.test/",
        "https://x@status.mist.com/",
        "https://status.mist.com:8443/",
        "javascript:alert(1)",
    ] {
        assert_eq!(notice_link(Some(bad)), "https://status.mist.com/", "{bad}");
    }
    assert_eq!(notice_link(None), "https://status.mist.com/");
}

#[test]
fn notice_paths_accept_only_plain_ids_and_shapes_are_checked() {
    assert_eq!(notice_path("abc-1_2").as_deref(), Some("/api/v1/notices/abc-1_2"));
    assert_eq!(notice_path("../components"), None);
    assert_eq!(notice_path("a?b"), None);
    assert_eq!(notice_path(""), None);
    assert_eq!(parse_notices(b"{}").unwrap_err(), FeedParseError::Shape("Mist notices"));
    assert_eq!(parse_components(b"[]").unwrap_err(), FeedParseError::Shape("Mist components"));
    assert_eq!(parse_notice_detail(b"{\"notice\": {}}").unwrap_err(), FeedParseError::Shape("Mist notice"));
}

#[test]
fn numeric_ids_and_component_names_map_too() {
    let notices = br#"{"notices": [{"id": 77, "state": "Identified", "subject": "s", "components": [{"id": 1, "name": "Mist Federal Cloud"}]}]}"#;
    let notices = parse_notices(notices).unwrap();
    let built = build(&notices, &HashMap::new(), Ok(&[]));
    assert_eq!(by_region(&built, ProviderId::MistFederal)[0].id, "77");
    assert!(by_region(&built, ProviderId::MistGlobal).is_empty());
}
