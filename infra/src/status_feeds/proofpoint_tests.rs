//! Proofpoint: the bootstrap, the aura form, impacted rows, empty and malformed tables.

use domain::status_feeds::Severity;

use super::*;
use crate::status_feeds::testdata::{PROOFPOINT_AURA, PROOFPOINT_PAGE};

fn aura_with_table(value: serde_json::Value) -> Vec<u8> {
    serde_json::json!({"actions": [{"id": "1;a", "state": "SUCCESS", "returnValue": {"response": {"fields": [
        {"name": "Other", "inputs": [{"name": "columns", "value": "[]"}]},
        {"name": "Incidents_Table", "inputs": [{"name": "tableData", "value": value}]}
    ]}}}]})
    .to_string()
    .into_bytes()
}

#[test]
fn the_bootstrap_is_read_from_the_url_encoded_script_path() {
    let got = parse_bootstrap(PROOFPOINT_PAGE).unwrap();
    assert_eq!(got.fwuid, "eGx3MHlRT1VMNVpkUWdRY3d5YVhDQTVpdWhxcDNZdnlpemJBQWpBVlFEQ2cxMy4zMzU1NDQzMi4yNTE2NTgyNA");
    assert_eq!(got.app_version, "1187_Qx9-abCDef12");
    assert_eq!(parse_bootstrap(b"<html>no aura</html>"), Err(FeedParseError::Missing("the aura framework id")));
}

#[test]
fn the_aura_form_carries_the_flow_and_the_context() {
    let form = aura_form(&AuraBootstrap { fwuid: "FW".into(), app_version: "V1".into() });
    let names: Vec<&str> = form.iter().map(|(n, _)| *n).collect();
    assert_eq!(names, ["message", "aura.context", "aura.pageURI", "aura.token"]);
    let message: serde_json::Value = serde_json::from_str(&form[0].1).unwrap();
    assert_eq!(message["actions"][0]["id"], "1;a");
    assert_eq!(message["actions"][0]["descriptor"], "aura://FlowRuntimeConnectController/ACTION$startFlow");
    assert_eq!(message["actions"][0]["params"]["flowDevName"], "Incident_Article_Number");
    let context: serde_json::Value = serde_json::from_str(&form[1].1).unwrap();
    assert_eq!(context["mode"], "PROD");
    assert_eq!(context["fwuid"], "FW");
    assert_eq!(context["app"], "siteforce:communityApp");
    assert_eq!(context["loaded"]["APPLICATION@markup://siteforce:communityApp"], "V1");
    assert_eq!(form[2].1, "/community/s/proofpoint-current-incidents");
    assert_eq!(form[3].1, "null");
}

#[test]
fn impacted_rows_become_scopes_and_articles_without_them_are_dropped() {
    let items = parse_aura(PROOFPOINT_AURA, 0).unwrap();
    assert_eq!(items.len(), 1);
    let item = &items[0];
    assert_eq!(item.id, "proofpoint-000012345");
    assert_eq!(item.title, "Email delivery delays for some customers");
    assert_eq!(item.severity, Severity::Error);
    assert_eq!(item.affected_scopes, ["Email Protection (US)", "Email Protection (EU)"]);
    assert_eq!(item.description, "Inbound email is delayed by up to 30 minutes.");
    assert_eq!(item.link, "https://proofpoint.my.site.com/community/s/article/Email-delivery-delays-000012345");
    assert_eq!(item.pub_date, parse_date_ms("2025-06-10T13:10:00.000Z"));
}

#[test]
fn the_default_summary_and_the_link_rule() {
    let table = serde_json::json!([{
        "ArticleNumber": "1", "Title": "t", "Community_URL__c": "https://proofpoint.my.site.com/other/path",
        "FAQ_How_To_Description__c": "<table><tr><td>TAP</td><td>Currently Impacted</td></tr></table>"
    }]);
    let items = parse_aura(&aura_with_table(table), 0).unwrap();
    assert_eq!(items[0].description, "Proofpoint reports a service outage.");
    assert_eq!(items[0].link, "https://proofpoint.my.site.com/community/s/proofpoint-current-incidents");
}

#[test]
fn an_empty_table_is_authoritative() {
    assert!(parse_aura(&aura_with_table(serde_json::json!("[]")), 0).unwrap().is_empty());
    assert!(parse_aura(&aura_with_table(serde_json::json!([])), 0).unwrap().is_empty());
}

#[test]
fn malformed_responses_are_errors() {
    assert_eq!(parse_aura(b"<html>", 0), Err(FeedParseError::Shape("aura response")));
    let failed = br#"{"actions": [{"state": "ERROR", "error": [{"message": "x"}]}]}"#;
    assert_eq!(parse_aura(failed, 0), Err(FeedParseError::Missing("a successful aura action")));
    let no_table = br#"{"actions": [{"state": "SUCCESS", "returnValue": {"response": {"fields": []}}}]}"#;
    assert_eq!(parse_aura(no_table, 0), Err(FeedParseError::Missing("the incident table")));
    assert_eq!(
        parse_aura(&aura_with_table(serde_json::json!("{not json")), 0),
        Err(FeedParseError::Shape("Proofpoint table data"))
    );
    assert_eq!(
        parse_aura(&aura_with_table(serde_json::json!(7)), 0),
        Err(FeedParseError::Shape("Proofpoint table data"))
    );
    let no_number = serde_json::json!([{"Title": "t"}]);
    assert_eq!(parse_aura(&aura_with_table(no_number), 0), Err(FeedParseError::Shape("Proofpoint table data")));
    let guarded = [b"while(1);".as_slice(), PROOFPOINT_AURA].concat();
    assert_eq!(parse_aura(&guarded, 0).unwrap().len(), 1);
}
